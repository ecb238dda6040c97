//===- Flags.cpp - Bool members beside descriptors ------------------------===//
//
// Generic code often keeps, beside each copy it issued, whether that copy
// is remote, and waits the send side of those that are:
//
//     issued.push_back({remote_copy, true});
//     issued.push_back({local_copy, false});
//     for (auto &i : issued)
//       if (i.remote) i.copy.wait_send();
//
// Each element's copy is known, and so is its flag, but `i` designates any
// element, so without the flags the wait_send reads both copies. A flag is
// the constant a bool member (or a std::pair's bool part) of an object that
// holds descriptors was given: a literal, a constant, or is_remote() of a
// descriptor of known kind. It lives in the member's cell (Cell::Flag) and
// moves with the object (copyObject, swaps, insertions). A branch on a flag
// read through a reference, pointer or iterator narrows what that variable
// designates to the objects whose flag has the branch's value; a flag read
// from a local decides the branch.
//
// A flag is trusted only while nothing the analysis does not see may have
// written it:
//   - every write of the member in the translation unit is an assignment
//     the analysis runs (an assignment in a function it does not run is in
//     a callee, below), no reference or pointer to it is ever formed, and no
//     class has a reference member to its object, which the model does not
//     follow (flagWrittenUnseen, one walk of the translation unit, on the
//     first branch that could use a flag);
//   - a call forgets the flags below what it is handed by reference or
//     pointer, below what the pointers in its by-value arguments designate,
//     and below the object of a non-const member function (forgetCallFlags);
//     a lambda the analysis does not run, the flags below what it captures.
// The model's other assumption is the descriptors' own: an object whose
// address escaped is not written behind its back.
//
//===----------------------------------------------------------------------===//
#include "Analyzer.h"
#include "dmalint/AnalysisCache.h"
#include "dmalint/AstUtil.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Basic/SourceManager.h"

using namespace clang;

namespace dmalint {

namespace {

/// The location a weak write through \p L lands in.
Location summaryOf(Location L) {
  for (unsigned I = 0; I < L.Path.Depth; ++I)
    if (L.Path.Steps[I].isAnyElement())
      L.Path.Steps[I].Index = PathStep::Summary;
  return L;
}

/// A member (or a pair's part): where a flag may live. A plain bool
/// variable is a guard's business (State::Guards).
bool flagPlace(const Location &L) {
  return !L.isUnknown() && L.Path.Depth > 0 &&
         L.Path.Steps[L.Path.Depth - 1].K == PathStep::Field;
}

/// The field of a std::pair that std::get<I> of \p Call reads.
const FieldDecl *pairFieldOf(const CallExpr *Call) {
  const FunctionDecl *FD = Call->getDirectCallee();
  if (!FD || Call->getNumArgs() != 1 || TypeModel::functionEffect(FD) != FunctionEffect::GetPart)
    return nullptr;
  const TemplateArgumentList *Args = FD->getTemplateSpecializationArgs();
  if (!Args || Args->size() == 0 || Args->get(0).getKind() != TemplateArgument::Integral)
    return nullptr;
  uint64_t Index = Args->get(0).getAsIntegral().getZExtValue();
  const auto *RD = Call->getArg(0)->getType().getNonReferenceType()->getAsCXXRecordDecl();
  if (!RD || !RD->isInStdNamespace() || RD->getName() != "pair")
    return nullptr;
  for (const FieldDecl *F : RD->fields())
    if (F->getFieldIndex() == Index)
      return F;
  return nullptr;
}

/// Every expression that names a bool member, and whether each use of it
/// is a read or an assignment: any other use (a reference or a pointer
/// bound to it, an argument of a reference parameter) may write it where
/// the analysis does not look.
class FlagUses : public RecursiveASTVisitor<FlagUses> {
public:
  explicit FlagUses(const SourceManager &SM) : SM(SM) {}
  bool shouldVisitTemplateInstantiations() const { return true; }
  bool shouldVisitImplicitCode() const { return true; }

  bool TraverseDecl(Decl *D) {
    // The standard library writes members only as part of whole objects
    // (assignment, swap), which the model follows.
    if (D && !isa<TranslationUnitDecl>(D) && D->getLocation().isValid() &&
        SM.isInSystemHeader(D->getLocation()))
      return true;
    return RecursiveASTVisitor::TraverseDecl(D);
  }
  bool TraverseLambdaExpr(LambdaExpr *L) {
    bool Result = true;
    if (traverseGenericLambda(*this, L, Result))
      return Result;
    return RecursiveASTVisitor::TraverseLambdaExpr(L);
  }
  bool VisitImplicitCastExpr(ImplicitCastExpr *E) {
    if (E->getCastKind() == CK_LValueToRValue)
      Allowed.insert(E->getSubExpr()->IgnoreParens());
    return true;
  }
  bool VisitBinaryOperator(BinaryOperator *BO) {
    if (BO->isAssignmentOp())
      Allowed.insert(BO->getLHS()->IgnoreParens());
    return true;
  }
  bool VisitBindingDecl(BindingDecl *BD) {
    // What a structured binding names is resolved at each use of it; its
    // uses are what counts.
    if (Expr *B = BD->getBinding())
      Allowed.insert(B->IgnoreParens());
    if (VarDecl *Holding = BD->getHoldingVar())
      if (Expr *Init = Holding->getInit())
        Allowed.insert(Init->IgnoreParenImpCasts());
    return true;
  }
  bool VisitDecompositionDecl(DecompositionDecl *D) {
    for (BindingDecl *BD : D->bindings())
      VisitBindingDecl(BD);
    return true;
  }
  bool VisitMemberExpr(MemberExpr *ME) {
    if (ME->isGLValue() && ME->getType()->isBooleanType() && isa<FieldDecl>(ME->getMemberDecl()))
      Named.push_back(ME);
    return true;
  }
  bool VisitDeclRefExpr(DeclRefExpr *DRE) {
    if (isa<BindingDecl>(DRE->getDecl()) && DRE->getType()->isBooleanType())
      Named.push_back(DRE);
    return true;
  }
  bool VisitCallExpr(CallExpr *Call) {
    if (Call->isGLValue() && Call->getType()->isBooleanType() && pairFieldOf(Call))
      Named.push_back(Call);
    return true;
  }
  bool VisitFieldDecl(FieldDecl *F) {
    // A member that is a reference to an object (`struct Holder { Issued
    // &slot; };`): the model does not follow it, so what is written through
    // it (`h.slot.remote = true`) lands where it cannot see.
    if (F->getType()->isReferenceType())
      if (const auto *RD = F->getType().getNonReferenceType()->getAsCXXRecordDecl())
        Referenced.insert(RD->getCanonicalDecl());
    return true;
  }

  /// The members some use may write unseen.
  llvm::DenseSet<const FieldDecl *> writtenUnseen() const {
    llvm::DenseSet<const FieldDecl *> Written;
    for (const Expr *E : Named) {
      const FieldDecl *F = flagField(E);
      if (!F)
        continue;
      const auto *Owner = dyn_cast<CXXRecordDecl>(F->getParent());
      if (!Allowed.count(E) || (Owner && Referenced.count(Owner->getCanonicalDecl())))
        Written.insert(F);
    }
    return Written;
  }

private:
  const SourceManager &SM;
  llvm::DenseSet<const Expr *> Allowed;
  std::vector<const Expr *> Named;
  llvm::DenseSet<const CXXRecordDecl *> Referenced;
};

} // namespace

const FieldDecl *flagField(const Expr *E) {
  for (unsigned Depth = 0; E && Depth < 4; ++Depth) {
    E = E->IgnoreParenImpCasts();
    if (!E->getType()->isBooleanType())
      return nullptr;
    if (const auto *ME = dyn_cast<MemberExpr>(E))
      return dyn_cast<FieldDecl>(ME->getMemberDecl());
    if (const auto *Call = dyn_cast<CallExpr>(E))
      return pairFieldOf(Call);
    const auto *DRE = dyn_cast<DeclRefExpr>(E);
    const auto *BD = DRE ? dyn_cast<BindingDecl>(DRE->getDecl()) : nullptr;
    if (!BD)
      return nullptr;
    const VarDecl *Holding = BD->getHoldingVar();
    E = Holding ? Holding->getInit() : BD->getBinding();
  }
  return nullptr;
}

bool AnalysisCache::flagWrittenUnseen(const FieldDecl &F, ASTContext &C) {
  if (!FlagsWrittenUnseen) {
    FlagUses Uses(C.getSourceManager());
    Uses.TraverseDecl(C.getTranslationUnitDecl());
    FlagsWrittenUnseen = Uses.writtenUnseen();
  }
  return FlagsWrittenUnseen->contains(&F);
}

FlagValue Analyzer::flagAt(const Location &X, const State &S) const {
  if (X.isUnknown() || X.hasAnyElement())
    return FlagUnknown;
  auto It = S.Cells.find(X);
  if (It == S.Cells.end() || !It->second.Flag)
    return FlagUnknown;
  FlagValue V = It->second.Flag;
  // An element at a constant index may be one written at an unknown index:
  // the summary's flag counts too, once the summary holds an element.
  for (unsigned I = 0; I < X.Path.Depth; ++I) {
    if (!X.Path.Steps[I].isConstantElement())
      continue;
    Location Alternative = X;
    Alternative.Path.Steps[I].Index = PathStep::Summary;
    auto A = S.Cells.find(Alternative);
    if (A != S.Cells.end() && A->second.Flag) {
      if (A->second.Flag != V)
        return FlagUnknown;
      continue;
    }
    Location Element = Alternative;
    Element.Path.Depth = I + 1;
    auto [First, Last] = const_cast<State &>(S).cellsBelow(Element);
    for (auto C = First; C != Last; ++C)
      if (!C->second.Values.empty() || !C->second.Targets.empty() || C->second.Flag)
        return FlagUnknown;
  }
  return V;
}

void Analyzer::forgetFlagsBelow(const Location &L, State &S) {
  if (!FlagsSeen || L.isUnknown())
    return;
  for (auto It = S.Cells.lower_bound(Location{L.Kind, L.Root, {}});
       It != S.Cells.end() && It->first.Kind == L.Kind && It->first.Root == L.Root;) {
    It = It->second.Flag && L.mayAlias(It->first) ? S.Cells.erase(It) : std::next(It);
  }
}

void Analyzer::copyFlags(const std::map<Location, FlagValue> &Flags, const Location &To,
                         bool Replace, State &S) {
  if (Replace) {
    for (const auto &[L, V] : Flags)
      if (V) {
        S.Cells[L].Flag = V;
        FlagsSeen = true;
      }
    return;
  }
  if (!FlagsSeen && Flags.empty())
    return;
  // To may now hold the object copied or what it held: a flag stays where
  // both agree. An object that held nothing (a fresh slot, an empty
  // summary of elements) takes the copy's.
  Location Target = summaryOf(To);
  bool Fresh = true;
  auto [First, Last] = S.cellsBelow(Target);
  for (auto It = First; It != Last && Fresh; ++It)
    Fresh = It->second.Values.empty() && It->second.Targets.empty() && !It->second.Flag;
  for (auto It = S.Cells.lower_bound(Location{To.Kind, To.Root, {}});
       It != S.Cells.end() && It->first.Kind == To.Kind && It->first.Root == To.Root;) {
    if (!It->second.Flag || !To.mayAlias(It->first)) {
      ++It;
      continue;
    }
    auto Copied = Flags.find(To.child(To.suffixOf(It->first).steps()));
    It = Copied == Flags.end() || Copied->second != It->second.Flag ? S.Cells.erase(It)
                                                                     : std::next(It);
  }
  if (!Fresh)
    return;
  for (const auto &[L, V] : Flags)
    if (V) {
      S.Cells[summaryOf(L)].Flag = V;
      FlagsSeen = true;
    }
}

FlagValue Analyzer::flagValue(const Expr *E, const State &S) {
  if (!E)
    return FlagUnknown;
  if (std::optional<bool> Constant = constantCondition(E))
    return *Constant ? FlagTrue : FlagFalse;
  // `{copy, copy.is_remote()}` of a copy whose kind is known.
  bool Positive = true;
  const auto *Call = dyn_cast<CXXMemberCallExpr>(bareCondition(E, Positive, true));
  if (!Call || role(Call->getMethodDecl()) != ApiRole::IsRemote)
    return FlagUnknown;
  ValueSet VS = read(objectLocations(Call, S), S);
  if (VS.empty())
    return FlagUnknown;
  std::optional<bool> Remote;
  for (const Value &V : VS.values()) {
    Remoteness K = Out.Origins[V.Origin].Kind;
    if (K == Remoteness::Unknown || (Remote && *Remote != (K == Remoteness::Remote)))
      return FlagUnknown;
    Remote = K == Remoteness::Remote;
  }
  return *Remote == Positive ? FlagTrue : FlagFalse;
}

void Analyzer::initializeFlag(const Location &Dest, const Expr *Init, State &S) {
  if (!flagPlace(Dest))
    return;
  forgetFlagsBelow(Dest, S);
  FlagValue V = flagValue(Init, S);
  if (V && Dest.isSingle()) {
    S.Cells[Dest].Flag = V;
    FlagsSeen = true;
  }
}

void Analyzer::assignFlag(const BinaryOperator *BO, State &S) {
  FlagValue V = BO->getOpcode() == BO_Assign ? flagValue(BO->getRHS(), S) : FlagUnknown;
  if (!V && !FlagsSeen)
    return;
  LocationList Locs = resolve(BO->getLHS(), S);
  bool Strong = Locs.size() == 1 && Locs[0].isSingle();
  for (const Location &L : Locs) {
    if (!flagPlace(L))
      continue;
    if (Strong) {
      initializeFlag(L, BO->getRHS(), S);
      continue;
    }
    // One of several: each keeps its flag only if it is the one written.
    for (auto It = S.Cells.lower_bound(Location{L.Kind, L.Root, {}});
         It != S.Cells.end() && It->first.Kind == L.Kind && It->first.Root == L.Root;)
      It = It->second.Flag && L.mayAlias(It->first) && It->second.Flag != V ? S.Cells.erase(It)
                                                                            : std::next(It);
  }
}

void Analyzer::forgetCallFlags(const FunctionDecl *Callee, llvm::ArrayRef<const Expr *> Args,
                               const LocationList *Object, State &S) {
  // The standard library writes the members of the program's objects only
  // as whole objects (an assignment, a swap, an algorithm), which the model
  // follows; an iterator's operator!= writes nothing.
  if (!FlagsSeen ||
      (Callee && Ctx.getSourceManager().isInSystemHeader(Callee->getLocation())))
    return;
  auto ForgetPointed = [&](const LocationList &Locs) {
    for (const Location &L : Locs) {
      if (L.isUnknown())
        continue;
      auto [First, Last] = S.cellsBelow(L);
      LocationList Pointed;
      for (auto It = First; It != Last; ++It)
        for (const Location &T : It->second.Targets)
          addLocation(Pointed, T);
      for (const Location &T : Pointed)
        forgetFlagsBelow(T, S);
    }
  };
  for (unsigned I = 0; I < Args.size(); ++I) {
    const Expr *Arg = Args[I];
    if (isa<CXXDefaultArgExpr>(Arg))
      continue;
    QualType ParamType;
    if (Callee && I < Callee->getNumParams())
      ParamType = Callee->getParamDecl(I)->getType();
    const Expr *Plain = Arg->IgnoreParenImpCasts();
    if (Plain->getType()->isPointerType() || Types.isPointer(Plain->getType())) {
      LocationList Targets = designated(Plain, S);
      for (const Location &L : Targets)
        forgetFlagsBelow(L, S);
      ForgetPointed(Targets);
      continue;
    }
    if (!Plain->isGLValue())
      continue;
    LocationList Locs = resolve(Plain, S);
    bool ByMutableRef = ParamType.isNull() || (ParamType->isReferenceType() &&
                                               !ParamType.getNonReferenceType().isConstQualified());
    if (ByMutableRef)
      for (const Location &L : Locs)
        forgetFlagsBelow(L, S);
    ForgetPointed(Locs);
  }
  const auto *MD = dyn_cast_or_null<CXXMethodDecl>(Callee);
  if (Object && (!MD || !MD->isConst()))
    for (const Location &L : *Object)
      forgetFlagsBelow(L, S);
  if (Object)
    ForgetPointed(*Object);
}

/// The variable whose cell says what \p E (a flag read) is read through:
/// the reference, pointer or iterator on the way from the flag to a
/// variable, or the variable itself.
static const VarDecl *flagReadThrough(const Expr *E) {
  for (unsigned Depth = 0; E && Depth < 8; ++Depth) {
    E = E->IgnoreParenImpCasts();
    if (const auto *ME = dyn_cast<MemberExpr>(E)) {
      E = ME->getBase();
      continue;
    }
    if (const auto *DRE = dyn_cast<DeclRefExpr>(E)) {
      if (const auto *BD = dyn_cast<BindingDecl>(DRE->getDecl())) {
        const VarDecl *Holding = BD->getHoldingVar();
        E = Holding ? Holding->getInit() : BD->getBinding();
        continue;
      }
      return dyn_cast<VarDecl>(DRE->getDecl());
    }
    if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(E)) {
      if ((Op->getOperator() != OO_Arrow && Op->getOperator() != OO_Star) ||
          Op->getNumArgs() != 1)
        return nullptr;
      E = Op->getArg(0);
      continue;
    }
    if (const auto *UO = dyn_cast<UnaryOperator>(E)) {
      if (UO->getOpcode() != UO_Deref)
        return nullptr;
      E = UO->getSubExpr();
      continue;
    }
    if (const auto *Call = dyn_cast<CallExpr>(E)) {
      if (Call->getNumArgs() != 1 ||
          TypeModel::functionEffect(Call->getDirectCallee()) != FunctionEffect::GetPart)
        return nullptr;
      E = Call->getArg(0);
      continue;
    }
    return nullptr;
  }
  return nullptr;
}

const VarDecl *indexVariable(const Expr *Index) {
  const auto *DRE = Index ? dyn_cast<DeclRefExpr>(Index->IgnoreParenImpCasts()) : nullptr;
  const auto *VD = DRE ? dyn_cast<VarDecl>(DRE->getDecl()) : nullptr;
  if (!VD || !VD->hasLocalStorage() || VD->getType()->isReferenceType() ||
      !VD->getType()->isIntegralOrEnumerationType())
    return nullptr;
  return VD;
}

/// The index variable of the subscript on the way from the flag \p E to
/// its container (`k` of `slots[k].remote`, `slots.at(k).remote`).
static const VarDecl *flagIndexedBy(const Expr *E) {
  for (unsigned Depth = 0; E && Depth < 8; ++Depth) {
    E = E->IgnoreParenImpCasts();
    if (const auto *ME = dyn_cast<MemberExpr>(E)) {
      E = ME->getBase();
      continue;
    }
    if (const auto *ASE = dyn_cast<ArraySubscriptExpr>(E))
      return indexVariable(ASE->getIdx());
    if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(E))
      return Op->getOperator() == OO_Subscript && Op->getNumArgs() == 2
                 ? indexVariable(Op->getArg(1))
                 : nullptr;
    if (const auto *MC = dyn_cast<CXXMemberCallExpr>(E)) {
      const CXXMethodDecl *MD = MC->getMethodDecl();
      return MD && MD->getIdentifier() && MD->getName() == "at" && MC->getNumArgs() == 1
                 ? indexVariable(MC->getArg(0))
                 : nullptr;
    }
    return nullptr;
  }
  return nullptr;
}

void Analyzer::refineFlag(State &S, const Expr *E, bool Value) {
  if (!FlagsSeen)
    return;
  const FieldDecl *Field = flagField(E);
  if (!Field)
    return;
  const FlagValue Other = Value ? FlagFalse : FlagTrue;
  // Whether every place \p Locs names surely holds the other value.
  auto Excluded = [&](const LocationList &Locs) {
    return !Locs.empty() &&
           llvm::all_of(Locs, [&](const Location &L) { return flagAt(L, S) == Other; });
  };
  auto Trusted = [&] {
    return !AnalysisCache::current().flagWrittenUnseen(*Field, Ctx);
  };
  const VarDecl *Through = flagReadThrough(E);
  if (!Through) {
    if (const VarDecl *K = flagIndexedBy(E))
      refineIndex(S, E, K, Other, Trusted);
    return;
  }
  auto Ref = S.Cells.find(Location::variable(Through));
  bool Designates = Ref != S.Cells.end() && !Ref->second.Targets.empty() &&
                    !(Through->getType()->isReferenceType() && decidedBinding(Through, S));
  if (!Designates) {
    // A local's own member: the branch is decided.
    if (Excluded(resolve(E, S)) && Trusted())
      S.Reachable = false;
    return;
  }
  // The objects the variable may designate, one by one: an element of a
  // container is each element the state knows, and those written at
  // unknown indices (unless the container's size is known).
  const LocationList Original = Ref->second.Targets;
  LocationList Candidates;
  for (const Location &T : Original) {
    if (T.isUnknown())
      return;
    unsigned AnyCount = 0, At = 0;
    for (unsigned I = 0; I < T.Path.Depth; ++I)
      if (T.Path.Steps[I].isAnyElement()) {
        ++AnyCount;
        At = I;
      }
    if (AnyCount == 0) {
      addLocation(Candidates, T);
      continue;
    }
    if (AnyCount > 1)
      return;
    Location Container = T;
    Container.Path.Depth = At;
    auto [First, Last] = S.cellsBelow(Container);
    for (auto It = First; It != Last; ++It) {
      if (It->first.Path.Depth <= At || It->first.Path.Steps[At].K != PathStep::Element)
        continue;
      Location One = T;
      One.Path.Steps[At] = It->first.Path.Steps[At];
      if (T.mayAlias(One))
        addLocation(Candidates, One);
    }
    if (!knownSize(Container, S)) {
      Location Summary = T;
      Summary.Path.Steps[At].Index = PathStep::Summary;
      addLocation(Candidates, Summary);
    }
  }
  LocationList Kept;
  bool Narrowed = false;
  for (const Location &C : Candidates) {
    Ref->second.Targets = {C};
    if (Excluded(resolve(E, S)))
      Narrowed = true;
    else
      addLocation(Kept, C);
  }
  Ref->second.Targets = Original;
  if (!Narrowed || !Trusted())
    return;
  if (Kept.empty())
    S.Reachable = false;
  else
    Ref->second.Targets = std::move(Kept);
}

void Analyzer::refineIndex(State &S, const Expr *E, const VarDecl *K, FlagValue Other,
                           llvm::function_ref<bool()> Trusted) {
  // The indices k may hold: those a branch before left, or each element the
  // state knows (an element written at an unknown index has none a branch
  // could name: unless its flag rules it out, nothing narrows).
  auto Known = S.Indices.find(K);
  const std::optional<llvm::SmallVector<int32_t, 2>> Before =
      Known != S.Indices.end() ? std::optional(Known->second) : std::nullopt;
  llvm::SmallVector<int32_t, 4> Candidates;
  if (Before) {
    Candidates.append(Before->begin(), Before->end());
  } else {
    LocationList Locs = resolve(E, S);
    if (Locs.size() != 1 || Locs[0].isUnknown())
      return;
    const Location &L = Locs[0];
    unsigned AnyCount = 0, At = 0;
    for (unsigned I = 0; I < L.Path.Depth; ++I)
      if (L.Path.Steps[I].isAnyElement()) {
        ++AnyCount;
        At = I;
      }
    if (AnyCount != 1)
      return;
    Location Container = L;
    Container.Path.Depth = At;
    bool SummaryHolds = false;
    auto [First, Last] = S.cellsBelow(Container);
    for (auto It = First; It != Last; ++It) {
      if (It->first.Path.Depth <= At || It->first.Path.Steps[At].K != PathStep::Element)
        continue;
      int32_t Index = It->first.Path.Steps[At].Index;
      if (Index >= 0) {
        if (!llvm::is_contained(Candidates, Index))
          Candidates.push_back(Index);
      } else if (!It->second.Values.empty() || !It->second.Targets.empty() ||
                 It->second.Flag) {
        SummaryHolds = true;
      }
    }
    Location Summary = L;
    Summary.Path.Steps[At].Index = PathStep::Summary;
    if (SummaryHolds && flagAt(Summary, S) != Other)
      return;
  }
  llvm::SmallVector<int32_t, 2> Kept;
  bool Narrowed = false;
  for (int32_t C : Candidates) {
    S.Indices[K] = {C};
    LocationList Locs = resolve(E, S);
    if (!Locs.empty() &&
        llvm::all_of(Locs, [&](const Location &L) { return flagAt(L, S) == Other; }))
      Narrowed = true;
    else
      Kept.push_back(C);
  }
  if (Before)
    S.Indices[K] = *Before;
  else
    S.Indices.erase(K);
  if (!Narrowed || !Trusted())
    return;
  if (Kept.empty()) {
    S.Reachable = false;
    return;
  }
  llvm::sort(Kept);
  S.Indices[K] = std::move(Kept);
}

} // namespace dmalint
