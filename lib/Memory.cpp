//===- Memory.cpp - Locations of expressions; reads, writes and copies ----===//
//
// The memory model: which locations an expression designates (resolve for
// lvalues, designated for pointers, iterators and smart pointers), and how
// a state's cells are read, written, copied and forgotten. What it cannot
// name is the unknown location: read, it gives the unknown origin; written,
// what goes there escapes.
//
//===----------------------------------------------------------------------===//
#include "Analyzer.h"
#include "dmalint/AnalysisCache.h"
#include "dmalint/Arguments.h"
#include "dmalint/AstUtil.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/RecursiveASTVisitor.h"

using namespace clang;

namespace dmalint {

namespace {

/// \p E without parentheses and the casts that keep the object the same.
const Expr *sameObject(const Expr *E) { return withoutWrappers(E, /*Conversions=*/false); }

/// Pointer arithmetic and ++: a constant element becomes every element.
LocationList widened(LocationList Locs) {
  for (Location &L : Locs)
    for (unsigned I = 0; I < L.Path.Depth; ++I)
      if (L.Path.Steps[I].isConstantElement() && I + 1 == L.Path.Depth)
        L.Path.Steps[I].Index = PathStep::Any;
  return Locs;
}

LocationList children(const LocationList &Bases, PathStep Step) {
  LocationList Result;
  for (const Location &B : Bases)
    addLocation(Result, B.child(Step));
  return Result;
}

LocationList unite(LocationList A, const LocationList &B) {
  for (const Location &L : B)
    addLocation(A, L);
  return A;
}

/// The index of std::get<I> or std::get<T> on a value of type \p Of.
std::optional<unsigned> getIndex(const FunctionDecl *FD, QualType Of) {
  const TemplateArgumentList *Args = FD ? FD->getTemplateSpecializationArgs() : nullptr;
  if (!Args || Args->size() == 0)
    return std::nullopt;
  const TemplateArgument &First = Args->get(0);
  if (First.getKind() == TemplateArgument::Integral)
    return First.getAsIntegral().getZExtValue();
  if (First.getKind() != TemplateArgument::Type)
    return std::nullopt;
  // std::get<T>: the position of T among the variant's or tuple's types.
  const auto *Spec =
      dyn_cast_or_null<ClassTemplateSpecializationDecl>(Of.getNonReferenceType()->getAsCXXRecordDecl());
  if (!Spec || Spec->getTemplateArgs().size() == 0 ||
      Spec->getTemplateArgs()[0].getKind() != TemplateArgument::Pack)
    return std::nullopt;
  unsigned I = 0;
  QualType Wanted = First.getAsType().getCanonicalType().getUnqualifiedType();
  for (const TemplateArgument &A : Spec->getTemplateArgs()[0].pack_elements()) {
    if (A.getKind() == TemplateArgument::Type &&
        A.getAsType().getCanonicalType().getUnqualifiedType() == Wanted)
      return I;
    ++I;
  }
  return std::nullopt;
}

} // namespace

int32_t Analyzer::indexOf(const Expr *Index) const {
  if (!Index)
    return PathStep::Any;
  std::optional<int64_t> Value = constantInt(Index, Ctx);
  if (Value && *Value >= 0 && *Value < MaxTrackedIndex)
    return static_cast<int32_t>(*Value);
  return PathStep::Any;
}

LocationList Analyzer::elementsAt(const LocationList &Bases, const Expr *Index,
                                  const State &S) const {
  int32_t I = indexOf(Index);
  const VarDecl *K = I == PathStep::Any ? indexVariable(Index) : nullptr;
  if (K && !S.Indices.empty())
    if (auto Known = S.Indices.find(K); Known != S.Indices.end()) {
      LocationList Result;
      for (int32_t One : Known->second)
        for (const Location &B : Bases)
          addLocation(Result, B.child(PathStep::element(One)));
      return Result;
    }
  // `for (int k = 1; k < n; ++k) ops[k]`, or `if (k > 0) ops[k]`: each
  // element the state holds at an index the loop or the path allows, and
  // those written at unknown indices.
  std::optional<int64_t> From = K ? loopLowerBound(K) : std::nullopt;
  if (From && *From <= 0)
    From.reset();
  llvm::SmallVector<std::pair<ConstantComparison, bool>, 2> Facts;
  if (I == PathStep::Any)
    Facts = indexFacts(Index, S);
  if ((From || !Facts.empty()) &&
      llvm::none_of(Bases, [](const Location &B) { return B.isUnknown(); })) {
    auto Allowed = [&](int64_t N) {
      return (!From || N >= *From) && llvm::all_of(Facts, [&](const auto &F) {
               return F.first.holdsFor(N) == F.second;
             });
    };
    LocationList Result;
    bool Excluded = false;
    for (const Location &B : Bases) {
      for (auto It = S.Cells.lower_bound(B); It != S.Cells.end() && B.isPrefixOf(It->first);
           ++It) {
        if (It->first.Path.Depth <= B.Path.Depth)
          continue;
        const PathStep &Step = It->first.Path.Steps[B.Path.Depth];
        if (Step.K != PathStep::Element || Step.Index < 0)
          continue;
        if (Allowed(Step.Index))
          addLocation(Result, B.child(Step));
        else
          Excluded = true;
      }
      addLocation(Result, B.child(PathStep::element(PathStep::Summary)));
    }
    // Excluding nothing the state holds, it is every element: one location
    // (which a flag's reader and refineIndex take apart themselves).
    if (Excluded)
      return Result;
  }
  return children(Bases, PathStep::element(I));
}

llvm::SmallVector<std::pair<ConstantComparison, bool>, 2>
Analyzer::indexFacts(const Expr *Index, const State &S) const {
  llvm::SmallVector<std::pair<ConstantComparison, bool>, 2> Result;
  if (!Index || S.Facts.empty())
    return Result;
  std::optional<llvm::FoldingSetNodeID> Profile;
  const auto *DRE = dyn_cast<DeclRefExpr>(Index->IgnoreParenImpCasts());
  const auto *Param = DRE ? dyn_cast<ParmVarDecl>(DRE->getDecl()) : nullptr;
  for (const Fact &F : S.Facts) {
    const AtomInfo &Info = Atoms[F.Atom];
    if (Info.WrittenValue)
      continue; // Not a test: it leaves a[x] every element (learnConstantValue).
    if (Info.Compared) {
      if (!Profile) {
        Profile.emplace();
        Index->IgnoreParenCasts()->Profile(*Profile, Ctx, /*Canonical=*/true);
      }
      if (Info.Compared->Subject == *Profile)
        Result.push_back({*Info.Compared, F.Holds});
    } else if (Info.ParamEquals && Param && Param->getDeclContext() == Function &&
               Param->getFunctionScopeIndex() == Info.ParamEquals->first) {
      ConstantComparison Equals;
      Equals.Constant = Info.ParamEquals->second;
      Result.push_back({Equals, F.Holds});
    }
  }
  return Result;
}

namespace {
/// Whether every mention of \p K in what it walks reads its value.
/// (A braced list's semantic form is where its elements' reads are: the
/// walk visits implicit code, and counts each mention once.)
class OnlyRead : public RecursiveASTVisitor<OnlyRead> {
public:
  explicit OnlyRead(const VarDecl *K) : K(K) {}
  bool shouldVisitImplicitCode() const { return true; }
  bool VisitDeclRefExpr(DeclRefExpr *DRE) {
    if (DRE->getDecl() == K)
      Mentions.insert(DRE);
    return true;
  }
  bool VisitImplicitCastExpr(ImplicitCastExpr *E) {
    if (E->getCastKind() == CK_LValueToRValue)
      if (const auto *DRE = dyn_cast<DeclRefExpr>(E->getSubExpr()->IgnoreParens()))
        if (DRE->getDecl() == K)
          Reads.insert(DRE);
    return true;
  }
  bool onlyRead() const {
    return llvm::all_of(Mentions, [&](const DeclRefExpr *DRE) { return Reads.contains(DRE); });
  }

private:
  const VarDecl *K;
  llvm::SmallPtrSet<const DeclRefExpr *, 8> Mentions, Reads;
};

/// The for statements of a function by the counter their init declares,
/// and the integer locals it compares with a constant (`step > 0`, `k ==
/// 2`, `if (k)`) other than in the condition of the loop that counts them.
class LoopCounters : public RecursiveASTVisitor<LoopCounters> {
public:
  LoopCounters(llvm::DenseMap<const VarDecl *, const ForStmt *> &Loops,
               llvm::DenseSet<const VarDecl *> &Compared, const ASTContext &Ctx)
      : Loops(Loops), Compared(Compared), Ctx(Ctx) {}
  bool VisitForStmt(ForStmt *F) {
    if (const auto *Decl = dyn_cast_or_null<DeclStmt>(F->getInit()))
      if (Decl->isSingleDecl())
        if (const auto *VD = dyn_cast<VarDecl>(Decl->getSingleDecl())) {
          Loops[VD] = F;
          if (F->getCond())
            OwnConditions.insert(F->getCond()->IgnoreParenImpCasts());
        }
    return true;
  }
  bool VisitBinaryOperator(BinaryOperator *BO) {
    if (!BO->isComparisonOp() || OwnConditions.contains(BO))
      return true;
    for (auto [Side, Other] : {std::pair(BO->getLHS(), BO->getRHS()),
                               std::pair(BO->getRHS(), BO->getLHS())})
      if (const VarDecl *VD = local(Side); VD && constantInt(Other, Ctx))
        Compared.insert(VD);
    return true;
  }
  bool VisitImplicitCastExpr(ImplicitCastExpr *E) {
    if (E->getCastKind() == CK_IntegralToBoolean)
      if (const VarDecl *VD = local(E->getSubExpr()))
        Compared.insert(VD);
    return true;
  }

private:
  static const VarDecl *local(const Expr *E) {
    const auto *DRE = dyn_cast<DeclRefExpr>(E->IgnoreParenImpCasts());
    const auto *VD = DRE ? dyn_cast<VarDecl>(DRE->getDecl()) : nullptr;
    return VD && VD->hasLocalStorage() ? VD : nullptr;
  }
  llvm::DenseMap<const VarDecl *, const ForStmt *> &Loops;
  llvm::DenseSet<const VarDecl *> &Compared;
  llvm::SmallPtrSet<const Expr *, 8> OwnConditions;
  const ASTContext &Ctx;
};
} // namespace

void Analyzer::walkLoops(const VarDecl *K) const {
  const auto *Owner = dyn_cast<FunctionDecl>(K->getDeclContext());
  const Stmt *Body = Owner ? Owner->getBody() : nullptr;
  if (Body && BodiesWithLoopsFound.insert(Body).second)
    LoopCounters(ForLoopsByCounter, ComparedWithConstants, Ctx)
        .TraverseStmt(const_cast<Stmt *>(Body));
}

const ForStmt *Analyzer::forLoopOf(const VarDecl *K) const {
  walkLoops(K);
  return ForLoopsByCounter.lookup(K);
}

bool Analyzer::comparedWithConstant(const VarDecl *K) const {
  walkLoops(K);
  return ComparedWithConstants.contains(K);
}

std::optional<int64_t> Analyzer::loopLowerBound(const VarDecl *K) const {
  auto [It, Inserted] = LoopLowerBounds.try_emplace(K);
  if (!Inserted)
    return It->second;
  const auto *Owner = dyn_cast<FunctionDecl>(K->getDeclContext());
  std::optional<int64_t> First = K->getInit() ? constantInt(K->getInit(), Ctx) : std::nullopt;
  if (!Owner || !Owner->getBody() || !First || !K->getType()->isIntegerType())
    return std::nullopt;
  const ForStmt *F = forLoopOf(K);
  if (!F)
    return std::nullopt;
  // It only grows: `++k`, `k++`, `k += c` with a constant c >= 0.
  const Expr *Inc = F->getInc() ? F->getInc()->IgnoreParenImpCasts() : nullptr;
  auto IsK = [&](const Expr *E) {
    const auto *DRE = dyn_cast<DeclRefExpr>(E->IgnoreParenImpCasts());
    return DRE && DRE->getDecl() == K;
  };
  bool Grows = false;
  if (const auto *UO = dyn_cast_or_null<UnaryOperator>(Inc))
    Grows = UO->isIncrementOp() && IsK(UO->getSubExpr());
  else if (const auto *CA = dyn_cast_or_null<CompoundAssignOperator>(Inc))
    if (CA->getOpcode() == BO_AddAssign && IsK(CA->getLHS()))
      if (std::optional<int64_t> Step = constantInt(CA->getRHS(), Ctx))
        Grows = *Step >= 0;
  if (!Grows)
    return std::nullopt;
  OnlyRead Uses(K);
  Uses.TraverseStmt(const_cast<Expr *>(F->getCond()));
  Uses.TraverseStmt(const_cast<Stmt *>(F->getBody()));
  if (!Uses.onlyRead())
    return std::nullopt;
  It->second = First;
  return First;
}

LocationList Analyzer::resolve(const Expr *E, const State &S) {
  E = sameObject(E);
  if (const auto *DRE = dyn_cast<DeclRefExpr>(E)) {
    if (const auto *BD = dyn_cast<BindingDecl>(DRE->getDecl())) {
      // A structured binding names a part of its hidden variable (or, for
      // tuple-like types, what get<I> of it returns).
      if (const VarDecl *Holding = BD->getHoldingVar())
        if (Holding->getInit())
          return resolve(Holding->getInit(), S);
      if (const Expr *Binding = BD->getBinding())
        return resolve(Binding, S);
      return {Location::unknown()};
    }
    const auto *VD = dyn_cast<VarDecl>(DRE->getDecl());
    if (!VD)
      return {Location::unknown()};
    return variableLocations(VD, S);
  }
  if (const auto *ME = dyn_cast<MemberExpr>(E)) {
    const auto *FD = dyn_cast<FieldDecl>(ME->getMemberDecl());
    if (!FD)
      return {Location::unknown()};
    LocationList Bases = ME->isArrow() ? designated(ME->getBase(), S) : resolve(ME->getBase(), S);
    return children(Bases, PathStep::field(FD));
  }
  if (const auto *ASE = dyn_cast<ArraySubscriptExpr>(E)) {
    const Expr *Base = ASE->getBase()->IgnoreParens();
    if (const auto *Decay = dyn_cast<ImplicitCastExpr>(Base);
        Decay && Decay->getCastKind() == CK_ArrayToPointerDecay)
      return elementsAt(resolve(Decay->getSubExpr(), S), ASE->getIdx(), S);
    return widened(designated(Base, S));
  }
  if (const auto *UO = dyn_cast<UnaryOperator>(E)) {
    if (UO->getOpcode() == UO_Deref)
      return designated(UO->getSubExpr(), S);
    return {Location::unknown()};
  }
  if (const auto *CO = dyn_cast<AbstractConditionalOperator>(E)) {
    if (std::optional<bool> Constant = constantCondition(CO->getCond()))
      return resolve(*Constant ? CO->getTrueExpr() : CO->getFalseExpr(), S);
    return unite(resolve(CO->getTrueExpr(), S), resolve(CO->getFalseExpr(), S));
  }
  if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(E)) {
    if (Op->getNumArgs() == 0)
      return {Location::unknown()};
    const Expr *Object = Op->getArg(0);
    const TypeShape &TS = Types.shapeOf(Object->getType());
    switch (Op->getOperator()) {
    case OO_Subscript:
      if (TS.Kind == Shape::Sequence || TS.Kind == Shape::FixedArray)
        return elementsAt(resolve(Object, S), Op->getNumArgs() > 1 ? Op->getArg(1) : nullptr,
                          S);
      if (TS.Kind == Shape::Pointer)
        return designated(Object, S);
      break;
    case OO_Star:
      if (TS.Kind == Shape::Optional)
        return children(resolve(Object, S), PathStep::part(0));
      if (TS.Kind == Shape::Pointer)
        return designated(Object, S);
      break;
    case OO_Equal:
      return resolve(Object, S);
    default:
      break;
    }
    return {Location::unknown()};
  }
  if (const auto *MC = dyn_cast<CXXMemberCallExpr>(E)) {
    const Expr *Object = MC->getImplicitObjectArgument();
    const CXXMethodDecl *MD = MC->getMethodDecl();
    if (!Object || !MD)
      return {Location::unknown()};
    const TypeShape &TS = Types.shapeOf(Object->getType());
    LocationList Bases;
    auto Base = [&]() -> const LocationList & {
      if (Bases.empty())
        Bases = objectLocations(MC, S);
      return Bases;
    };
    switch (TypeModel::methodEffect(TS.Kind, MD)) {
    case MethodEffect::Element: {
      if (TS.Kind == Shape::Optional)
        return children(Base(), PathStep::part(0));
      StringRef Name = MD->getName();
      int32_t Index = PathStep::Any;
      if (Name == "front")
        Index = 0;
      else if (Name == "back" && TS.Kind == Shape::FixedArray && TS.Extent > 0)
        Index = TS.Extent - 1 < uint64_t(MaxTrackedIndex) ? int32_t(TS.Extent - 1)
                                                            : PathStep::Any;
      else if (Name == "back" && TS.Kind == Shape::Sequence && Base().size() == 1) {
        if (std::optional<unsigned> Size = knownSize(Base()[0], S); Size && *Size > 0)
          Index = int32_t(*Size - 1);
        else if (!Size && lastElement(Base()[0], S))
          Index = PathStep::Last;
      } else if (MC->getNumArgs() > 0) {
        return elementsAt(Base(), MC->getArg(0), S); // at(k)
      }
      return children(Base(), PathStep::element(Index));
    }
    case MethodEffect::Designated:
      return readTargets(Base(), S);
    default:
      break;
    }
    return {Location::unknown()};
  }
  if (const auto *Call = dyn_cast<CallExpr>(E)) {
    const FunctionDecl *FD = Call->getDirectCallee();
    switch (TypeModel::functionEffect(FD)) {
    case FunctionEffect::Identity:
      if (Call->getNumArgs() >= 1)
        return resolve(Call->getArg(0), S);
      break;
    case FunctionEffect::GetPart:
      if (Call->getNumArgs() == 1) {
        const Expr *Whole = Call->getArg(0);
        if (std::optional<unsigned> Index = getIndex(FD, Whole->getType()))
          if (std::optional<PathStep> Step = Types.partStep(Whole->getType(), *Index))
            return children(resolve(Whole, S), *Step);
      }
      break;
    default:
      break;
    }
    return {Location::unknown()};
  }
  return {Location::unknown()};
}

std::optional<LocationList> Analyzer::decidedBinding(const VarDecl *VD, const State &S) const {
  auto It = ConditionalBindings.find(VD);
  if (It == ConditionalBindings.end())
    return std::nullopt;
  std::optional<bool> Known = S.Facts.lookup(It->second.Atom);
  if (!Known)
    return std::nullopt;
  return *Known ? It->second.WhenTrue : It->second.WhenFalse;
}

void Analyzer::noteConditionalBinding(const VarDecl *VD, const Expr *Init) {
  ConditionalBindings.erase(VD);
  const auto *CO = Init ? dyn_cast<AbstractConditionalOperator>(stripWrappers(Init)) : nullptr;
  if (!CO || !Function || constantCondition(CO->getCond()))
    return;
  const bool Pointer = !VD->getType()->isReferenceType();
  const UnwrittenVariables &Vars = AnalysisCache::current().variables(*Function, Api);
  if (Pointer && !Vars.unwritten(VD))
    return;
  // The condition has one value wherever it is tested: every variable it
  // reads is one the function never writes.
  if (!steadyCondition(CO->getCond(), Vars))
    return;
  // Each side names the same object wherever it is read: a variable that is
  // not a reference, or a member of one (`m.remote`), its address for a
  // pointer.
  auto Side = [&](const Expr *E) -> std::optional<LocationList> {
    E = E->IgnoreParenImpCasts();
    if (Pointer) {
      const auto *AddrOf = dyn_cast<UnaryOperator>(E);
      if (!AddrOf || AddrOf->getOpcode() != UO_AddrOf)
        return std::nullopt;
      E = AddrOf->getSubExpr()->IgnoreParens();
    }
    llvm::SmallVector<const FieldDecl *, 2> Path;
    const VarDecl *V = fieldPathVariable(E, Path);
    if (!V || V->getType()->isReferenceType() || !V->hasLocalStorage())
      return std::nullopt;
    State Empty;
    return resolve(E, Empty);
  };
  bool Positive = true;
  std::optional<AtomId> Atom = conditionAtom(CO->getCond(), Positive);
  std::optional<LocationList> True = Side(CO->getTrueExpr()), False = Side(CO->getFalseExpr());
  if (!Atom || !True || !False)
    return;
  ConditionalBindings[VD] = {*Atom, Positive ? *True : *False, Positive ? *False : *True};
}

LocationList Analyzer::variableLocations(const VarDecl *VD, const State &S) {
  if (VD->getType()->isReferenceType()) {
    if (std::optional<LocationList> Decided = decidedBinding(VD, S))
      return *Decided;
    // Bound to an object: its targets; to a temporary it extends: the
    // temporary, in the variable's own cells.
    auto It = S.Cells.find(Location::variable(VD));
    if (It != S.Cells.end() && !It->second.Targets.empty())
      return It->second.Targets;
  }
  if (VD->hasLocalStorage() || VD->isStaticLocal())
    return {Location::variable(VD)};
  return {Location::unknown()}; // Globals may change behind our back.
}

LocationList Analyzer::rangeElements(const Expr *First, const State &S) {
  return widened(designated(First, S));
}

LocationList Analyzer::designated(const Expr *E, const State &S) {
  E = E->IgnoreParens();
  if (const auto *ICE = dyn_cast<ImplicitCastExpr>(E)) {
    switch (ICE->getCastKind()) {
    case CK_ArrayToPointerDecay:
      return children(resolve(ICE->getSubExpr(), S), PathStep::element(PathStep::Any));
    case CK_NullToPointer:
      return {};
    case CK_NoOp:
    case CK_DerivedToBase:
    case CK_UncheckedDerivedToBase:
    case CK_BaseToDerived:
    case CK_LValueToRValue:
    case CK_BitCast:
      return designated(ICE->getSubExpr(), S);
    default:
      return {Location::unknown()};
    }
  }
  if (isa<CXXThisExpr>(E))
    return {ObjectClass ? Location::object(ObjectClass) : Location::unknown()};
  if (isa<CXXNullPtrLiteralExpr, GNUNullExpr>(E))
    return {};
  if (const auto *UO = dyn_cast<UnaryOperator>(E)) {
    if (UO->getOpcode() == UO_AddrOf)
      return resolve(UO->getSubExpr(), S);
    if (UO->isIncrementDecrementOp())
      return widened(designated(UO->getSubExpr(), S));
    return {Location::unknown()};
  }
  if (const auto *BO = dyn_cast<BinaryOperator>(E)) {
    if (BO->isAdditiveOp())
      return widened(designated(BO->getLHS()->getType()->isPointerType() ? BO->getLHS()
                                                                         : BO->getRHS(),
                                S));
    if (BO->isAssignmentOp() || BO->isCommaOp())
      return designated(BO->getRHS(), S);
    return {Location::unknown()};
  }
  if (const auto *CO = dyn_cast<AbstractConditionalOperator>(E)) {
    if (std::optional<bool> Constant = constantCondition(CO->getCond()))
      return designated(*Constant ? CO->getTrueExpr() : CO->getFalseExpr(), S);
    return unite(designated(CO->getTrueExpr(), S), designated(CO->getFalseExpr(), S));
  }
  if (const auto *NE = dyn_cast<CXXNewExpr>(E))
    return {Location::heap(NE)};
  if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(E)) {
    if (Op->getNumArgs() == 0)
      return {Location::unknown()};
    const Expr *Object = Op->getArg(0);
    const TypeShape &TS = Types.shapeOf(Object->getType());
    switch (Op->getOperator()) {
    case OO_Arrow:
      if (TS.Kind == Shape::Optional)
        return children(resolve(Object, S), PathStep::part(0));
      if (TS.Kind == Shape::Pointer)
        return designated(Object, S);
      break;
    case OO_PlusPlus:
    case OO_MinusMinus:
    case OO_Plus:
    case OO_Minus:
    case OO_PlusEqual:
    case OO_MinusEqual:
      if (TS.Kind == Shape::Pointer)
        return widened(designated(Object, S));
      break;
    case OO_Equal:
      if (Op->getNumArgs() == 2)
        return designated(Op->getArg(1), S);
      break;
    default:
      break;
    }
    // `*it` where it designates pointers: the pointer there.
    if (E->isGLValue())
      return readTargets(resolve(E, S), S);
    return {Location::unknown()};
  }
  if (const auto *MC = dyn_cast<CXXMemberCallExpr>(E)) {
    const Expr *Object = MC->getImplicitObjectArgument();
    const CXXMethodDecl *MD = MC->getMethodDecl();
    if (!Object || !MD)
      return {Location::unknown()};
    const TypeShape &TS = Types.shapeOf(Object->getType());
    switch (TypeModel::methodEffect(TS.Kind, MD)) {
    case MethodEffect::ElementAddress:
    case MethodEffect::Iterator:
      if (TS.Kind == Shape::Optional)
        return children(objectLocations(MC, S), PathStep::part(0));
      return children(objectLocations(MC, S), PathStep::element(PathStep::Any));
    case MethodEffect::DesignatedAddress:
      return readTargets(objectLocations(MC, S), S);
    default:
      break;
    }
    if (E->isGLValue())
      return readTargets(resolve(E, S), S);
    return {Location::unknown()};
  }
  if (const auto *Construct = dyn_cast<CXXConstructExpr>(E)) {
    // A copy of an iterator or a smart pointer designates what it does;
    // unique_ptr(p), shared_ptr(p) what p does; span(v) v's elements.
    if (Construct->getNumArgs() >= 1 && !isa<CXXDefaultArgExpr>(Construct->getArg(0))) {
      const Expr *First = Construct->getArg(0);
      if (Types.isPointer(First->getType()) || First->getType()->isPointerType() ||
          isa<CXXNullPtrLiteralExpr>(First->IgnoreParenImpCasts()))
        return designated(First, S);
      if (Types.isContainer(First->getType()))
        return children(resolve(First, S), PathStep::element(PathStep::Any));
    }
    if (Construct->getNumArgs() == 0)
      return {};
    return {Location::unknown()};
  }
  if (const auto *Cast = dyn_cast<ExplicitCastExpr>(E)) {
    switch (Cast->getCastKind()) {
    case CK_NoOp:
    case CK_BitCast:
    case CK_DerivedToBase:
    case CK_UncheckedDerivedToBase:
    case CK_BaseToDerived:
      return designated(Cast->getSubExpr(), S);
    default:
      return {Location::unknown()};
    }
  }
  if (const auto *MTE = dyn_cast<MaterializeTemporaryExpr>(E))
    return designated(MTE->getSubExpr(), S);
  if (const auto *BTE = dyn_cast<CXXBindTemporaryExpr>(E))
    return designated(BTE->getSubExpr(), S);
  if (const auto *EWC = dyn_cast<ExprWithCleanups>(E))
    return designated(EWC->getSubExpr(), S);
  if (const auto *Call = dyn_cast<CallExpr>(E)) {
    const FunctionDecl *FD = Call->getDirectCallee();
    switch (TypeModel::functionEffect(FD)) {
    case FunctionEffect::Identity:
      if (Call->getNumArgs() >= 1)
        return widened(designated(Call->getArg(0), S));
      break;
    case FunctionEffect::AddressOf:
      if (Call->getNumArgs() >= 1)
        return resolve(Call->getArg(0), S);
      break;
    case FunctionEffect::Iterator:
      if (Call->getNumArgs() >= 1)
        return children(resolve(Call->getArg(0), S), PathStep::element(PathStep::Any));
      break;
    case FunctionEffect::GetPartAddress:
      if (Call->getNumArgs() == 1) {
        const Expr *Pointer = Call->getArg(0);
        QualType Whole = Pointer->getType()->getPointeeType();
        if (!Whole.isNull())
          if (std::optional<unsigned> Index = getIndex(FD, Whole))
            if (std::optional<PathStep> Step = Types.partStep(Whole, *Index))
              return children(designated(Pointer, S), *Step);
      }
      break;
    case FunctionEffect::MakeHeap:
      return {Location::heap(Call)};
    default:
      break;
    }
    return {Location::unknown()};
  }
  // A pointer held somewhere: what its cell says (for a pointer bound by
  // a conditional, the side this path decided).
  if (const auto *DRE = dyn_cast<DeclRefExpr>(E))
    if (const auto *VD = dyn_cast<VarDecl>(DRE->getDecl()))
      if (std::optional<LocationList> Decided = decidedBinding(VD, S))
        return *Decided;
  if (E->isGLValue())
    return readTargets(resolve(E, S), S);
  return {Location::unknown()};
}

LocationList Analyzer::objectLocations(const CXXMemberCallExpr *Call, const State &S) {
  const Expr *Object = Call->getImplicitObjectArgument();
  if (!Object)
    return {Location::unknown()};
  const auto *ME = dyn_cast<MemberExpr>(Call->getCallee()->IgnoreParens());
  return ME && ME->isArrow() ? designated(Object, S) : resolve(Object, S);
}

namespace {
/// Calls \p Fn on each cell of \p S that reading \p L may touch: at its
/// depth (\p Below: and below it). False when there is none.
template <typename Fn>
bool forEachCell(const Location &L, const State &S, bool Below, Fn Visit) {
  bool Found = false;
  for (auto It = S.Cells.lower_bound(Location{L.Kind, L.Root, {}});
       It != S.Cells.end() && It->first.Kind == L.Kind && It->first.Root == L.Root; ++It) {
    if ((!Below && It->first.Path.Depth != L.Path.Depth) || !L.mayAlias(It->first))
      continue;
    Found = true;
    Visit(It->second);
  }
  return Found;
}
} // namespace

ValueSet Analyzer::read(const LocationList &Locs, const State &S) const {
  ValueSet Result;
  if (Locs.empty())
    return unknown();
  for (const Location &L : Locs)
    if (L.isUnknown() ||
        !forEachCell(L, S, false, [&](const Cell &C) { Result.unionWith(C.Values); }))
      Result.unionWith(unknown());
  return Result;
}

LocationList Analyzer::readTargets(const LocationList &Locs, const State &S) const {
  LocationList Result;
  for (const Location &L : Locs)
    if (L.isUnknown() || !forEachCell(L, S, false, [&](const Cell &C) {
          for (const Location &T : C.Targets)
            addLocation(Result, T);
        }))
      addLocation(Result, Location::unknown());
  return Result;
}

ValueSet Analyzer::heldBelow(const LocationList &Locs, const State &S) const {
  ValueSet Result;
  LocationList Pointed;
  for (const Location &L : Locs) {
    if (L.isUnknown()) {
      Result.unionWith(unknown());
      continue;
    }
    forEachCell(L, S, true, [&](const Cell &C) {
      Result.unionWith(C.Values);
      for (const Location &T : C.Targets)
        if (!T.isUnknown() && !llvm::is_contained(Locs, T))
          addLocation(Pointed, T);
    });
  }
  // One level through the pointers held there: a struct of pointers to
  // descriptors hands those descriptors over too.
  for (const Location &T : Pointed)
    forEachCell(T, S, true, [&](const Cell &C) { Result.unionWith(C.Values); });
  return Result;
}

namespace {
bool endsInSummary(const Location &L) {
  for (unsigned I = 0; I < L.Path.Depth; ++I)
    if (L.Path.Steps[I].K == PathStep::Element && L.Path.Steps[I].Index < 0)
      return true;
  return false;
}
} // namespace

void Analyzer::write(const LocationList &Written, const ValueSet &VS, State &S, Update How) {
  LocationList Redirected;
  const LocationList &Locs =
      LastsKept ? (Redirected = beforeElementWrite(Written, S), Redirected) : Written;
  bool Replace = How == Update::Strong && Locs.size() == 1 && Locs[0].isSingle();
  pendingOverwritten(Locs, S);
  for (const Location &L : Locs) {
    forgetFlagsBelow(L, S); // An object written whole: its members' flags go.
    forgetFlagsOf(L, S);    // A copy a flag said is_remote() of: not that copy now.
    // A test of what was there says nothing of what is now.
    for (auto It = S.Guards.begin(); It != S.Guards.end();)
      It = llvm::any_of(It->second.Subjects,
                        [&](const Location &G) { return G.mayAlias(L) || L.mayAlias(G); })
               ? S.Guards.erase(It)
               : std::next(It);
    if (L.isUnknown()) {
      markEscaped(VS); // Stored where we cannot follow it: a global, ...
      continue;
    }
    if (L.Kind == Location::Variable || L.Kind == Location::Object)
      if (const auto *P = dyn_cast<ParmVarDecl>(static_cast<const Decl *>(L.Root))) {
        WrittenParams.insert(P);
        // Through a reference or pointer parameter: the caller sees it.
        if (L.Kind == Location::Object || P->getType()->isReferenceType())
          markEscaped(VS);
      }
    if (L.Kind == Location::Object && L.Root == ObjectClass) {
      // The object outlives the call: what is built here and stored in it
      // escapes. What a parameter brought goes back to the caller, into its
      // object, through the summary's ObjectStores: it does not.
      WroteObject = true;
      ValueSet Built = VS;
      Built.filter([&](const Value &V) { return !Out.Origins[V.Origin].Param; });
      // A member no code reads: what it holds is used here or never.
      if (!AnalysisCache::current().unreadMember(*ObjectClass, L.Path))
        mark(Escaped, Built); // Into the object only (HandedOnBesidesObject).
    }
    if (const VarDecl *VD = L.variable(); VD && VD->isStaticLocal())
      markEscaped(VS); // So does a static local.

    if (Replace) {
      S.Cells[L].Values = VS;
      continue;
    }
    Location Target = L.weakTarget();
    auto [It, Inserted] = S.Cells.try_emplace(Target);
    // What a location the state did not hold had is unknown; the summary of
    // a container's elements starts empty.
    if (Inserted && !endsInSummary(Target))
      It->second.Values = unknown();
    It->second.Values.unionWith(VS);
    bound(It->second.Values);
  }
}

void Analyzer::writeTargets(const LocationList &Written, const LocationList &Designated,
                            State &S, Update How) {
  LocationList Redirected, Kept;
  const LocationList &Locs =
      LastsKept ? (Redirected = beforeElementWrite(Written, S), Redirected) : Written;
  const LocationList &Targets = LastsKept ? (Kept = withoutLast(Designated), Kept) : Designated;
  bool Replace = How == Update::Strong && Locs.size() == 1 && Locs[0].isSingle();
  for (const Location &L : Locs) {
    if (L.isUnknown()) {
      escapeBelow(Targets, S);
      continue;
    }
    forgetFlagsBelow(L, S);
    if (L.Kind == Location::Object && L.Root == ObjectClass)
      WroteObject = true;
    Cell &C = S.Cells[Replace ? L : L.weakTarget()];
    if (Replace) {
      C.Targets = Targets;
      continue;
    }
    for (const Location &T : Targets)
      addLocation(C.Targets, T);
  }
}

void Analyzer::copyObject(const LocationList &From, const Location &Into, State &S,
                          Update How) {
  // A copy into back() is one into every element (beforeElementWrite,
  // once what is copied is collected: it may be the last element's view).
  const Location To = WritingLast ? Into : withoutLast({Into}).front();
  if (To.isUnknown()) {
    escapeBelow(From, S);
    return;
  }
  std::map<Location, Cell> Collected;
  // The flags of the one object copied, by where they go (Flags.cpp).
  std::map<Location, KnownFlag> Flags;
  bool Unknown = false;
  for (const Location &F : From) {
    if (F.isUnknown()) {
      Unknown = true;
      continue;
    }
    for (auto It = S.Cells.lower_bound(Location{F.Kind, F.Root, {}});
         It != S.Cells.end() && It->first.Kind == F.Kind && It->first.Root == F.Root; ++It) {
      if (!F.mayAlias(It->first))
        continue;
      if (It->second.Flag) {
        if (From.size() == 1) {
          Location Source = F.child(F.suffixOf(It->first).steps());
          Location Dest = To.child(F.suffixOf(It->first).steps());
          if (!Dest.isUnknown())
            Flags.emplace(Dest, flagAt(Source, S));
        }
        continue;
      }
      Location Dest = To.child(F.suffixOf(It->first).steps());
      if (Dest.isUnknown())
        continue;
      Cell &C = Collected[Dest];
      C.Values.unionWith(It->second.Values);
      for (const Location &T : It->second.Targets)
        addLocation(C.Targets, T);
    }
  }
  if (LastsKept)
    beforeElementWrite({To}, S);
  bool Replace = How == Update::Strong && To.isSingle();
  if (Replace) {
    pendingOverwritten({To}, S);
    eraseBelow(To, S);
  }
  // The flags below To go with the copies beside them (copyFlags), not
  // away because those copies are written; a flag beside To that said
  // is_remote() of To (or of what holds it) does.
  bool Fresh = !Replace && S.holdsNothingBelow(To.weakTarget());
  forgetFlagsOf(To, S, /*KeepBelow=*/true);
  const Location *OuterCopy = CopyingInto;
  CopyingInto = &To;
  for (auto &[L, C] : Collected) {
    if (Unknown) {
      C.Values.unionWith(unknown());
      addLocation(C.Targets, Location::unknown());
    }
    if (!C.Targets.empty())
      writeTargets({L}, C.Targets, S, Replace ? Update::Strong : Update::Weak);
    if (!C.Values.empty() || C.Targets.empty())
      write({L}, C.Values, S, Replace ? Update::Strong : Update::Weak);
  }
  CopyingInto = OuterCopy;
  copyFlags(Flags, To, Replace, Fresh, S);
}

void Analyzer::forgetBelow(const Location &Forgotten, State &S) {
  if (Forgotten.isUnknown())
    return;
  const Location L = LastsKept ? beforeElementWrite({Forgotten}, S).front() : Forgotten;
  forgetFlagsBelow(L, S);
  forgetFlagsOf(L, S);
  for (auto It = S.Cells.lower_bound(Location{L.Kind, L.Root, {}});
       It != S.Cells.end() && It->first.Kind == L.Kind && It->first.Root == L.Root; ++It) {
    if (!L.mayAlias(It->first))
      continue;
    if (!It->second.Targets.empty())
      It->second.Targets = {Location::unknown()};
    else
      It->second.Values = unknown();
  }
  for (auto It = S.Guards.begin(); It != S.Guards.end();)
    It = llvm::any_of(It->second.Subjects, [&](const Location &G) { return L.mayAlias(G); })
             ? S.Guards.erase(It)
             : std::next(It);
}

void Analyzer::escapeBelow(const LocationList &Locs, const State &S) {
  if (InReportSweep)
    markEscaped(heldBelow(Locs, S));
}

void Analyzer::eraseBelow(const Location &L, State &S) {
  if (L.isUnknown())
    return;
  auto [First, Last] = S.cellsBelow(L);
  S.Cells.erase(First, Last);
}

void Analyzer::endLifetime(const VarDecl *VD, State &S, bool Redeclared) {
  Location Root = Location::variable(VD);
  if (Redeclared)
    invalidateVar(VD, S);
  else
    S.Indices.erase(VD);
  for (auto It = S.Guards.begin(); It != S.Guards.end();)
    It = llvm::any_of(It->second.Subjects,
                      [&](const Location &G) { return G.Kind == Root.Kind && G.Root == VD; })
             ? S.Guards.erase(It)
             : std::next(It);
  pendingOverwritten({Root}, S);
  // A reference that named a received object names another one next.
  llvm::erase_if(S.Received, [&](const ReceivedObject &R) { return R.Through == VD; });
  // The copies its own cells held (what pointers there designate is held
  // by the cells it designates, and stays).
  auto [First, Last] = S.cellsBelow(Root);
  if (First == Last)
    return; // Most locals hold nothing the analysis follows.
  // An object whose destruction runs code that reaches the API (a guard
  // that waits its member in its destructor): the analysis runs no
  // destructor, so what the object holds may be started or waited there.
  if (!VD->getType()->isReferenceType() &&
      AnalysisCache::current().destructionReachesApi(
          VD->getType()->getBaseElementTypeUnsafe()->getAsCXXRecordDecl(), Ctx, Api))
    escapeBelow({Root}, S);
  llvm::SmallVector<OriginId, 4> Held;
  if (!S.Life.empty())
    for (auto It = First; It != Last; ++It)
      for (const Value &V : It->second.Values.values())
        if (!llvm::is_contained(Held, V.Origin))
          Held.push_back(V.Origin);
  S.Cells.erase(First, Last);
  // A copy that no location holds any more can be waited only through its
  // semaphore. While it is surely pending (no path has it idle) its
  // lifecycle stays, for the waits on that semaphore; a maybe is dropped:
  // nothing after this can settle it, and a loop that outlives it would
  // carry it through every later join.
  forgetUnheldLife(S, Held, /*OnlyIfMaybeIdle=*/true);
}

void Analyzer::forgetUnheldLife(State &S, llvm::ArrayRef<OriginId> Candidates,
                                bool OnlyIfMaybeIdle) {
  if (S.Life.empty() || Candidates.empty())
    return;
  llvm::DenseSet<OriginId> StillHeld;
  for (const auto &[L, C] : S.Cells)
    for (const Value &V : C.Values.values())
      StillHeld.insert(V.Origin);
  for (OriginId Id : Candidates)
    if (!StillHeld.count(Id) && (!OnlyIfMaybeIdle || (S.lifeOf(Id) & Idle)))
      S.setLife(Id, Idle);
}

} // namespace dmalint
