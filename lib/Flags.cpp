//===- Flags.cpp - Bool and enum members beside descriptors ---------------===//
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
// what a bool member (or a std::pair's bool part) of an object that holds
// descriptors was given: a constant (a literal, a condition the path
// decided, is_remote() of a descriptor of known kind), or is_remote() of
// the descriptor member beside it (`{c, c.is_remote()}`, `{c, remote}` with
// c chosen by remote: Cell::FlagOf), which survives joins and summaries of
// elements where constants of both values would not. It lives in the
// member's cell and moves with the object (copyObject, swaps, insertions).
// A branch on a flag read through a reference, pointer or iterator narrows
// what that variable designates to the objects whose flag may have the
// branch's value (refineFlag); read at an index variable, which indices it
// holds (refineIndex, State::Indices); on a local, the branch is decided.
// Where the flags left are is_remote() of a member, the branch tests those
// members as `if (i.copy.is_remote())` would. A bool kept from a flag read
// (`const bool remote = i.remote;`) is that read until a flag changes (or,
// read at an index variable, until that variable is written).
//
// An enum member is a flag the same way (`{copy, Kind::kRemote}`): its
// branch is a comparison with an enumerator (`i.kind == Kind::kRemote`,
// `!=`: testedFlag) or a switch's case (the worklist), which keeps the
// objects whose flag may be that enumerator (or may not be). Where a bool
// is is_remote() of the copy beside it, an enum given a constant beside a
// copy of known kind is that kind's value (relateEnumFlag), and a join keeps
// the values of both kinds (mergeFlags): a function of the copy's kind.
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
#include "dmalint/Arguments.h"
#include "dmalint/AstUtil.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Basic/SourceManager.h"

using namespace clang;

namespace dmalint {

namespace {

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
  // Implicit code (a class's implicit copy and move, a range-for's hidden
  // variables) reads and assigns members whole, which the model follows.
  bool shouldVisitImplicitCode() const { return false; }
  bool shouldWalkTypesOfTypeLocs() const { return false; }
  // A written type holds no write of a member (an array bound, a decltype
  // are constants or unevaluated); a function's type holds its parameters,
  // whose default arguments may bind a reference to one.
  bool TraverseTypeLoc(TypeLoc TL) {
    if (!TL.getAsAdjusted<FunctionProtoTypeLoc>())
      return true;
    return RecursiveASTVisitor::TraverseTypeLoc(TL);
  }
  bool TraverseNestedNameSpecifierLoc(NestedNameSpecifierLoc) { return true; }

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
    if (E->getCastKind() == CK_LValueToRValue && isFlagType(E->getType()))
      Allowed.insert(E->getSubExpr()->IgnoreParens());
    return true;
  }
  bool VisitBinaryOperator(BinaryOperator *BO) {
    if (BO->isAssignmentOp() && isFlagType(BO->getLHS()->getType()))
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
    if (ME->isGLValue() && isFlagType(ME->getType()) && isa<FieldDecl>(ME->getMemberDecl()))
      Named.push_back(ME);
    return true;
  }
  bool VisitDeclRefExpr(DeclRefExpr *DRE) {
    if (isa<BindingDecl>(DRE->getDecl()) && isFlagType(DRE->getType()))
      Named.push_back(DRE);
    return true;
  }
  bool VisitCallExpr(CallExpr *Call) {
    if (Call->isGLValue() && isFlagType(Call->getType()) && pairFieldOf(Call))
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

bool isFlagType(QualType T) {
  return T->isBooleanType() || T->isEnumeralType();
}

const FieldDecl *flagField(const Expr *E) {
  for (unsigned Depth = 0; E && Depth < 4; ++Depth) {
    E = E->IgnoreParenImpCasts();
    if (!isFlagType(E->getType()))
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

namespace {
/// An element of a container as the state has it: its index (a constant,
/// or PathStep::Summary for those written at unknown indices), and whether
/// anything is known to be in it.
struct HeldElement {
  int32_t Index;
  bool Holds;
};
} // namespace

/// The elements the state has cells for in the container of \p L, whose
/// \p At-th step is every element.
static llvm::SmallVector<HeldElement, 4> heldElements(const Location &L, unsigned At,
                                                      const State &S) {
  Location Container = L;
  Container.Path.Depth = At;
  llvm::SmallVector<HeldElement, 4> Elements;
  for (auto It = S.Cells.lower_bound(Container);
       It != S.Cells.end() && Container.isPrefixOf(It->first); ++It) {
    if (It->first.Path.Depth <= At || It->first.Path.Steps[At].K != PathStep::Element ||
        It->first.Path.Steps[At].isLastElement())
      continue;
    int32_t Index = It->first.Path.Steps[At].Index;
    bool Holds = It->second.holds();
    auto Known = llvm::find_if(Elements, [&](const HeldElement &E) { return E.Index == Index; });
    if (Known == Elements.end())
      Elements.push_back({Index, Holds});
    else
      Known->Holds |= Holds;
  }
  return Elements;
}

KnownFlag Analyzer::flagAt(const Location &X, const State &S) const {
  if (X.isUnknown())
    return {};
  if (X.hasAnyElement()) {
    // Every element's: each one the state holds must have one, and they
    // must agree (as constants, or as is_remote() of the same member).
    unsigned At = 0;
    if (X.anyElementSteps(&At) != 1)
      return {};
    KnownFlag All;
    bool First = true;
    for (const HeldElement &Element : heldElements(X, At, S)) {
      if (!Element.Holds)
        continue;
      Location One = X;
      One.Path.Steps[At].Index = Element.Index;
      KnownFlag K = flagAt(One, S);
      if (!K.Value)
        return {};
      if (First)
        All = K;
      else if (!mergeFlags(All, K))
        return {};
      First = false;
    }
    return All;
  }
  auto It = S.Cells.find(X);
  if (It == S.Cells.end() || !It->second.Flag)
    return {};
  KnownFlag K = It->second.flag();
  // An element at a constant index may be one written at an unknown index:
  // the summary's flag counts too, once the summary holds an element.
  for (unsigned I = 0; I < X.Path.Depth; ++I) {
    if (!X.Path.Steps[I].isConstantElement())
      continue;
    Location Alternative = X;
    Alternative.Path.Steps[I].Index = PathStep::Summary;
    auto A = S.Cells.find(Alternative);
    if (A != S.Cells.end() && A->second.Flag) {
      if (!mergeFlags(K, A->second.flag()))
        return {};
      continue;
    }
    Location Element = Alternative;
    Element.Path.Depth = I + 1;
    if (!S.holdsNothingBelow(Element))
      return {};
  }
  return K;
}

void Analyzer::flagsChanged(State &S) {
  for (auto It = S.Guards.begin(); It != S.Guards.end();)
    It = It->second.Flag ? S.Guards.erase(It) : std::next(It);
}

void Analyzer::forgetFlagsBelow(const Location &L, State &S,
                                llvm::function_ref<bool(const FieldDecl *)> Kept) {
  if (!FlagsSeen || L.isUnknown())
    return;
  flagsChanged(S);
  for (auto It = S.Cells.lower_bound(Location{L.Kind, L.Root, {}});
       It != S.Cells.end() && It->first.Kind == L.Kind && It->first.Root == L.Root;) {
    const Location &At = It->first;
    bool Forget = It->second.Flag && L.mayAlias(At);
    if (Forget && Kept && At.Path.Depth == L.Path.Depth + 1 &&
        At.Path.Steps[L.Path.Depth].K == PathStep::Field)
      Forget = !Kept(At.Path.Steps[L.Path.Depth].FieldD);
    It = Forget ? S.Cells.erase(It) : std::next(It);
  }
}

/// Where the descriptor member a flag at \p FlagAt equals is_remote() of is.
static Location flagSubject(const Location &FlagAt, const FieldDecl *Of) {
  Location Parent = FlagAt;
  --Parent.Path.Depth;
  return Parent.child(PathStep::field(Of));
}

void Analyzer::forgetFlagsOf(const Location &L, State &S, bool KeepBelow) {
  if (!FlagsSeen || L.isUnknown() || (CopyingInto && !KeepBelow))
    return;
  flagsChanged(S);
  for (auto It = S.Cells.lower_bound(Location{L.Kind, L.Root, {}});
       It != S.Cells.end() && It->first.Kind == L.Kind && It->first.Root == L.Root;) {
    Cell &C = It->second;
    bool Below = KeepBelow && It->first.Path.Depth > L.Path.Depth && L.mayAlias(It->first);
    if (!C.FlagOf || Below || !flagSubject(It->first, C.FlagOf).overlaps(L)) {
      ++It;
      continue;
    }
    // The copy changed: a constant stays, the relation goes.
    C.FlagOf = nullptr;
    C.FlagIfRemote = C.FlagIfLocal = FlagUnknown;
    It = C.Flag == FlagIsRemote ? S.Cells.erase(It) : std::next(It);
  }
}

void Analyzer::copyFlags(const std::map<Location, KnownFlag> &Flags, const Location &To,
                         bool Replace, bool Fresh, State &S) {
  if (!FlagsSeen && Flags.empty())
    return;
  flagsChanged(S);
  auto Set = [&](const Location &L, const KnownFlag &K) {
    S.Cells[L].setFlag(K);
    FlagsSeen = true;
  };
  if (Replace) {
    for (const auto &[L, K] : Flags)
      if (K.Value)
        Set(L, K);
    return;
  }
  // To may now hold the object copied or what it held: a flag stays where
  // both agree. An object that held nothing (\p Fresh: a fresh slot, an
  // empty summary of elements) takes the copy's.
  for (auto It = S.Cells.lower_bound(Location{To.Kind, To.Root, {}});
       It != S.Cells.end() && It->first.Kind == To.Kind && It->first.Root == To.Root;) {
    if (!It->second.Flag || !To.mayAlias(It->first)) {
      ++It;
      continue;
    }
    auto Copied = Flags.find(To.child(To.suffixOf(It->first).steps()));
    KnownFlag Merged = It->second.flag();
    bool Kept = Copied != Flags.end() && mergeFlags(Merged, Copied->second);
    if (Kept)
      It->second.setFlag(Merged);
    It = Kept ? std::next(It) : S.Cells.erase(It);
  }
  if (!Fresh)
    return;
  for (const auto &[L, K] : Flags)
    if (K.Value)
      Set(L.weakTarget(), K);
}

FlagValue Analyzer::flagValue(const Expr *E, const State &S) {
  if (!E || E->isValueDependent())
    return FlagUnknown;
  if (E->getType()->isEnumeralType()) {
    // `{copy, Kind::kRemote}`: an enumerator, or any constant of the type.
    Expr::EvalResult Result;
    if (!E->EvaluateAsInt(Result, Ctx))
      return FlagUnknown;
    return flagConstant(Result.Val.getInt().getExtValue());
  }
  if (std::optional<bool> Constant = constantCondition(E))
    return *Constant ? FlagTrue : FlagFalse;
  bool Positive = true;
  const Expr *Bare = bareCondition(E, Positive, true);
  // `{copy, copy.is_remote()}` of a copy whose kind is known.
  const auto *Call = dyn_cast<CXXMemberCallExpr>(Bare);
  if (!Call || role(Call->getMethodDecl()) != ApiRole::IsRemote) {
    // A condition this path decided (`{copy, remote}` under `if (remote)`).
    Positive = true;
    if (std::optional<AtomId> Atom = conditionAtom(E, Positive))
      if (std::optional<bool> Known = S.Facts.lookup(*Atom))
        return *Known == Positive ? FlagTrue : FlagFalse;
    return FlagUnknown;
  }
  ValueSet VS = read(objectLocations(Call, S), S);
  std::optional<bool> Remote = kindOf(VS);
  if (!Remote)
    return FlagUnknown;
  return *Remote == Positive ? FlagTrue : FlagFalse;
}

std::optional<bool> Analyzer::kindOf(const ValueSet &VS) const {
  std::optional<bool> Remote;
  for (const Value &V : VS.values()) {
    Remoteness K = Out.Origins[V.Origin].Kind;
    if (K == Remoteness::Unknown || (Remote && *Remote != (K == Remoteness::Remote)))
      return std::nullopt;
    Remote = K == Remoteness::Remote;
  }
  return Remote;
}

void Analyzer::initializeFlag(const Location &Dest, const Expr *Init, State &S) {
  if (!flagPlace(Dest))
    return;
  flagsChanged(S);
  forgetFlagsBelow(Dest, S);
  FlagValue V = flagValue(Init, S);
  if (V && Dest.isSingle()) {
    S.Cells[Dest].Flag = V;
    FlagsSeen = true;
  }
}

/// The same object, named the same way (`c` and `c`, `s.copy` and `s.copy`).
static bool sameObject(const Expr *A, const Expr *B) {
  A = A->IgnoreParenImpCasts();
  B = B->IgnoreParenImpCasts();
  if (const auto *DA = dyn_cast<DeclRefExpr>(A)) {
    const auto *DB = dyn_cast<DeclRefExpr>(B);
    return DB && DA->getDecl() == DB->getDecl() && isa<VarDecl>(DA->getDecl());
  }
  if (const auto *MA = dyn_cast<MemberExpr>(A)) {
    const auto *MB = dyn_cast<MemberExpr>(B);
    return MB && !MA->isArrow() && !MB->isArrow() &&
           MA->getMemberDecl() == MB->getMemberDecl() && sameObject(MA->getBase(), MB->getBase());
  }
  return false;
}

void Analyzer::relateFlags(const Location &Object,
                           llvm::ArrayRef<std::pair<const FieldDecl *, const Expr *>> Members,
                           State &S) {
  for (const auto &[Flag, FlagInit] : Members) {
    if (!FlagInit)
      continue;
    if (Flag->getType()->isEnumeralType()) {
      relateEnumFlag(Object, Flag, Members, S);
      continue;
    }
    if (!Flag->getType()->isBooleanType())
      continue;
    Location At = Object.child(PathStep::field(Flag));
    if (!flagPlace(At) || !At.isSingle())
      continue;
    // The constant initializeFlag just gave it, if any.
    auto Given = S.Cells.find(At);
    FlagValue Constant = Given != S.Cells.end() ? Given->second.Flag : FlagUnknown;
    bool Positive = true;
    const Expr *Bare = bareCondition(FlagInit, Positive, true);
    const auto *Test = dyn_cast<CXXMemberCallExpr>(Bare);
    if (Test && role(Test->getMethodDecl()) != ApiRole::IsRemote)
      Test = nullptr;
    bool AtomPositive = true;
    std::optional<AtomId> Atom = Test ? std::nullopt : conditionAtom(FlagInit, AtomPositive);
    for (const auto &[Copy, CopyInit] : Members) {
      if (Copy == Flag || !CopyInit || !Types.isDescriptor(Copy->getType()))
        continue;
      ValueSet Held = read({Object.child(PathStep::field(Copy))}, S);
      if (Held.empty())
        continue;
      bool Related = false;
      if (Test && Positive) {
        // `{c, c.is_remote()}`: the copy made of c, and c's test.
        const Expr *Source = withoutWrappers(CopyInit, /*Conversions=*/true);
        if (const auto *Construct = dyn_cast_or_null<CXXConstructExpr>(Source);
            Construct && Construct->getConstructor()->isCopyOrMoveConstructor() &&
            Construct->getNumArgs() >= 1)
          Source = withoutWrappers(Construct->getArg(0), /*Conversions=*/true);
        Related = Source && Source->isGLValue() && Test->getImplicitObjectArgument() &&
                  sameObject(Source, Test->getImplicitObjectArgument());
      } else if (Constant == FlagTrue || Constant == FlagFalse) {
        // `{remote_copy, true}`: every copy there is of the kind it says.
        std::optional<bool> Remote = kindOf(Held);
        Related = Remote && *Remote == (Constant == FlagTrue);
      } else if (Atom) {
        // `{c, remote}` with `c = remote ? ... : ...`: each copy there was
        // built where the condition had the value the copy's kind says.
        Related = llvm::all_of(Held.values(), [&](const Value &V) {
          std::optional<bool> Holds = V.Assumed.lookup(*Atom);
          Remoteness K = Out.Origins[V.Origin].Kind;
          return Holds && K != Remoteness::Unknown &&
                 (*Holds == AtomPositive) == (K == Remoteness::Remote);
        });
      }
      if (!Related)
        continue;
      Cell &C = S.Cells[At];
      C.FlagOf = Copy;
      if (!C.Flag)
        C.Flag = FlagIsRemote;
      FlagsSeen = true;
      break;
    }
  }
}

void Analyzer::relateEnumFlag(
    const Location &Object, const FieldDecl *Flag,
    llvm::ArrayRef<std::pair<const FieldDecl *, const Expr *>> Members, State &S) {
  Location At = Object.child(PathStep::field(Flag));
  if (!flagPlace(At) || !At.isSingle())
    return;
  // `{local_copy, Kind::kLocal}`: the enumerator is what the member holds
  // where the copy beside it is of that copy's kind, which a join with
  // `{remote_copy, Kind::kRemote}` keeps as a function of the kind.
  auto Given = S.Cells.find(At);
  if (Given == S.Cells.end() || !isFlagConstant(Given->second.Flag))
    return;
  for (const auto &[Copy, CopyInit] : Members) {
    if (Copy == Flag || !CopyInit || !Types.isDescriptor(Copy->getType()))
      continue;
    std::optional<bool> Remote = kindOf(read({Object.child(PathStep::field(Copy))}, S));
    if (!Remote)
      continue;
    Cell &C = S.Cells[At];
    C.FlagOf = Copy;
    (*Remote ? C.FlagIfRemote : C.FlagIfLocal) = C.Flag;
    FlagsSeen = true;
    return;
  }
}

void Analyzer::assignFlag(const BinaryOperator *BO, State &S) {
  FlagValue V = BO->getOpcode() == BO_Assign ? flagValue(BO->getRHS(), S) : FlagUnknown;
  if (!V && !FlagsSeen)
    return;
  flagsChanged(S);
  LocationList Locs = resolve(BO->getLHS(), S);
  bool Strong = Locs.size() == 1 && Locs[0].isSingle();
  for (const Location &L : Locs) {
    if (!flagPlace(L))
      continue;
    if (Strong) {
      initializeFlag(L, BO->getRHS(), S);
      continue;
    }
    // One of several: each keeps what it had only where the value agrees.
    for (auto It = S.Cells.lower_bound(Location{L.Kind, L.Root, {}});
         It != S.Cells.end() && It->first.Kind == L.Kind && It->first.Root == L.Root;) {
      KnownFlag Merged = It->second.flag();
      bool Kept = !It->second.Flag || !L.mayAlias(It->first) || mergeFlags(Merged, {V});
      if (Kept && It->second.Flag && L.mayAlias(It->first))
        It->second.setFlag(Merged);
      It = Kept ? std::next(It) : S.Cells.erase(It);
    }
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
  if (Object && (!MD || !MD->isConst())) {
    // A member function of the file: the object's own members it leaves
    // as they are (leavesMember) keep their flags.
    const FunctionDecl *Body = nullptr;
    bool Seen = MD && MD->hasBody(Body) && !Body->isDependentContext();
    auto Left = [&](const FieldDecl *F) { return leavesMember(*Body, F); };
    for (const Location &L : *Object)
      forgetFlagsBelow(L, S, Seen ? llvm::function_ref<bool(const FieldDecl *)>(Left) : nullptr);
  }
  if (Object)
    ForgetPointed(*Object);
}

bool Analyzer::leavesMember(const FunctionDecl &Body, const FieldDecl *F) {
  auto [It, Inserted] = MembersLeft.try_emplace({&Body, F}, false);
  if (Inserted)
    It->second = Body.getBody() && dmalint::leavesMember(Body.getBody(), F);
  return It->second;
}

const VarDecl *indexVariable(const Expr *Index) {
  const auto *DRE = Index ? dyn_cast<DeclRefExpr>(Index->IgnoreParenImpCasts()) : nullptr;
  const auto *VD = DRE ? dyn_cast<VarDecl>(DRE->getDecl()) : nullptr;
  if (!VD || !VD->hasLocalStorage() || VD->getType()->isReferenceType() ||
      !VD->getType()->isIntegralOrEnumerationType())
    return nullptr;
  return VD;
}

namespace {
/// What a flag read (`i.remote`) is read through, on the way from the flag
/// to a variable: the variable (a reference, pointer or iterator, whose
/// cell says what it designates, or a local itself), or the index variable
/// of a subscript (`k` of `slots[k].remote`, `slots.at(k).remote`).
struct FlagBase {
  const VarDecl *Through = nullptr;
  const VarDecl *Index = nullptr;
  bool OfThis = false; ///< A member of the object a member function works on.
};
} // namespace

static FlagBase flagBase(const Expr *E) {
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
      return {dyn_cast<VarDecl>(DRE->getDecl()), nullptr};
    }
    if (const auto *ASE = dyn_cast<ArraySubscriptExpr>(E))
      return {nullptr, indexVariable(ASE->getIdx())};
    if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(E)) {
      if (Op->getOperator() == OO_Subscript && Op->getNumArgs() == 2)
        return {nullptr, indexVariable(Op->getArg(1))};
      if ((Op->getOperator() != OO_Arrow && Op->getOperator() != OO_Star) ||
          Op->getNumArgs() != 1)
        return {};
      E = Op->getArg(0);
      continue;
    }
    if (const auto *MC = dyn_cast<CXXMemberCallExpr>(E)) {
      const CXXMethodDecl *MD = MC->getMethodDecl();
      if (MD && MD->getIdentifier() && MD->getName() == "at" && MC->getNumArgs() == 1)
        return {nullptr, indexVariable(MC->getArg(0))};
      return {};
    }
    if (isa<CXXThisExpr>(E))
      return {nullptr, nullptr, true};
    if (const auto *UO = dyn_cast<UnaryOperator>(E)) {
      if (UO->getOpcode() != UO_Deref)
        return {};
      E = UO->getSubExpr();
      continue;
    }
    if (const auto *Call = dyn_cast<CallExpr>(E)) {
      if (Call->getNumArgs() != 1 ||
          TypeModel::functionEffect(Call->getDirectCallee()) != FunctionEffect::GetPart)
        return {};
      E = Call->getArg(0);
      continue;
    }
    return {};
  }
  return {};
}

bool Analyzer::steadyFlagRead(const Expr *E) const {
  if (!flagField(E))
    return false;
  FlagBase Base = flagBase(E);
  // At an index variable: until it is written (forgetIndexedFlagTests).
  if (Base.Index)
    return true;
  return Base.Through && Base.Through->hasLocalStorage() &&
         (Base.Through->getType()->isReferenceType() || !Types.isPointer(Base.Through->getType()));
}

void Analyzer::forgetIndexedFlagTests(const VarDecl *K, State &S) {
  for (auto It = S.Guards.begin(); It != S.Guards.end();)
    It = It->second.Flag && flagBase(It->second.Flag).Index == K ? S.Guards.erase(It)
                                                                  : std::next(It);
}

const Expr *Analyzer::testedFlag(const Expr *Cond, FlagValue &Equals, bool &Positive) const {
  Positive = true;
  const Expr *Read = bareCondition(Cond, Positive, /*ThroughCasts=*/true);
  // A bool tested as it is (an enum converted to bool is not its value).
  if (Read->getType()->isBooleanType() && flagField(Read)) {
    Equals = FlagTrue;
    return Read;
  }
  // `i.kind == Kind::kRemote`, `i.remote != false`.
  const auto *BO = dyn_cast<BinaryOperator>(Read);
  if (!BO || (BO->getOpcode() != BO_EQ && BO->getOpcode() != BO_NE))
    return nullptr;
  for (auto [Side, Other] : {std::pair(BO->getLHS(), BO->getRHS()),
                             std::pair(BO->getRHS(), BO->getLHS())}) {
    if (!flagField(Side))
      continue;
    std::optional<int64_t> Constant = constantInt(Other, Ctx);
    if (!Constant || !isFlagConstant(flagConstant(*Constant)))
      return nullptr;
    Equals = flagConstant(*Constant);
    Positive ^= BO->getOpcode() == BO_NE;
    return Side->IgnoreParenImpCasts();
  }
  return nullptr;
}

/// Fills in what \p C's flags (at \p FlagsAt) say of a branch where they
/// equal \p Equals (\p Value) or differ from it. True when one was known.
static bool judge(FlagCandidate &C, LocationList FlagsAt, FlagValue Equals, bool Value,
                  llvm::function_ref<KnownFlag(const Location &)> FlagAt) {
  C.FlagsAt = std::move(FlagsAt);
  if (C.FlagsAt.empty())
    return false;
  bool First = true, AnyKnown = false;
  C.Excluded = true;
  for (const Location &L : C.FlagsAt) {
    KnownFlag K = FlagAt(L);
    AnyKnown |= K.Value != FlagUnknown;
    C.Excluded &= isFlagConstant(K.Value) && (K.Value == Equals) != Value;
    if (First) {
      C.Of = K.Of;
      C.IfRemote = K.IfRemote;
      C.IfLocal = K.IfLocal;
    } else if (C.Of != K.Of || C.IfRemote != K.IfRemote || C.IfLocal != K.IfLocal) {
      C.Of = nullptr;
    }
    First = false;
  }
  return AnyKnown;
}

void Analyzer::narrowByFlags(State &S, llvm::ArrayRef<FlagCandidate> Candidates,
                             FlagValue Equals, bool Value,
                             llvm::function_ref<bool()> Trusted,
                             llvm::function_ref<void(llvm::ArrayRef<const FlagCandidate *>)> Keep) {
  llvm::SmallVector<const FlagCandidate *, 4> Kept;
  bool Narrowed = false;
  for (const FlagCandidate &C : Candidates) {
    if (C.Excluded)
      Narrowed = true;
    else
      Kept.push_back(&C);
  }
  // Each kept object's flag is is_remote() of the same member beside it (a
  // bool), or the same function of its kind (an enum): the branch is that
  // member's test.
  const FieldDecl *Of = Kept.empty() ? nullptr : Kept.front()->Of;
  FlagValue IfRemote = Of ? Kept.front()->IfRemote : FlagUnknown;
  FlagValue IfLocal = Of ? Kept.front()->IfLocal : FlagUnknown;
  for (const FlagCandidate *C : Kept)
    if (C->Of != Of || C->IfRemote != IfRemote || C->IfLocal != IfLocal)
      Of = nullptr;
  bool Enum = IfRemote || IfLocal;
  if (!Enum && Equals != FlagTrue && Equals != FlagFalse)
    Of = nullptr;
  if ((!Narrowed && !Of) || !Trusted())
    return;
  if (Kept.empty()) {
    S.Reachable = false;
    return;
  }
  if (Narrowed)
    Keep(Kept);
  if (!Of)
    return;
  // The kind of the copies the branch keeps.
  PassingKinds Kinds = passingKinds(IfRemote, IfLocal, Equals, Value);
  if (!Kinds.Remote && !Kinds.Local) {
    S.Reachable = false;
    return;
  }
  if (Kinds.Remote == Kinds.Local)
    return;
  bool Remote = Kinds.Remote;
  Guard Test;
  for (const FlagCandidate *C : Kept)
    for (const Location &L : C->FlagsAt)
      addLocation(Test.Subjects, flagSubject(L, Of));
  refine(S, Test, Remote);
}

void Analyzer::refineFlag(State &S, const Expr *E, FlagValue Equals, bool Value) {
  if (!FlagsSeen || !isFlagConstant(Equals))
    return;
  const FieldDecl *Field = flagField(E);
  if (!Field)
    return;
  auto FlagAt = [&](const Location &L) { return flagAt(L, S); };
  auto Trusted = [&] {
    return !AnalysisCache::current().flagWrittenUnseen(*Field, Ctx);
  };
  FlagBase Base = flagBase(E);
  if (Base.Index) {
    refineIndex(S, E, Base.Index, Equals, Value, Trusted);
    return;
  }
  const VarDecl *Through = Base.Through;
  if (!Through && Base.OfThis) {
    // The object's own member (`if (remote_)`): decided, or its copy's test.
    FlagCandidate One;
    if (judge(One, resolve(E, S), Equals, Value, FlagAt))
      narrowByFlags(S, {One}, Equals, Value, Trusted,
                    [](llvm::ArrayRef<const FlagCandidate *>) {});
    return;
  }
  if (!Through)
    return;
  auto Ref = S.Cells.find(Location::variable(Through));
  bool Designates = Ref != S.Cells.end() && !Ref->second.Targets.empty() &&
                    !(Through->getType()->isReferenceType() && decidedBinding(Through, S));
  if (!Designates) {
    // A local's own member: the branch is decided, or is its copy's test.
    FlagCandidate One;
    if (judge(One, resolve(E, S), Equals, Value, FlagAt))
      narrowByFlags(S, {One}, Equals, Value, Trusted,
                    [](llvm::ArrayRef<const FlagCandidate *>) {});
    return;
  }
  // The objects the variable may designate, one by one: an element of a
  // container is each element the state knows, and those written at
  // unknown indices (unless the container's size is known).
  const LocationList Original = Ref->second.Targets;
  LocationList Objects;
  for (const Location &T : Original) {
    if (T.isUnknown())
      return;
    unsigned At = 0;
    unsigned AnyCount = T.anyElementSteps(&At);
    if (AnyCount == 0) {
      addLocation(Objects, T);
      continue;
    }
    if (AnyCount > 1)
      return;
    for (const HeldElement &Element : heldElements(T, At, S)) {
      if (Element.Index < 0 && !Element.Holds)
        continue; // No element written at an unknown index (but see below).
      Location One = T;
      One.Path.Steps[At].Index = Element.Index;
      addLocation(Objects, One);
    }
    Location Container = T;
    Container.Path.Depth = At;
    if (!knownSize(Container, S)) {
      Location Summary = T;
      Summary.Path.Steps[At].Index = PathStep::Summary;
      addLocation(Objects, Summary);
    }
  }
  llvm::SmallVector<FlagCandidate, 4> Candidates;
  bool AnyKnown = false;
  for (const Location &O : Objects) {
    Ref->second.Targets = {O};
    FlagCandidate C;
    C.Object = O;
    AnyKnown |= judge(C, resolve(E, S), Equals, Value, FlagAt);
    Candidates.push_back(std::move(C));
  }
  Ref->second.Targets = Original;
  if (!AnyKnown)
    return;
  narrowByFlags(S, Candidates, Equals, Value, Trusted,
                [&](llvm::ArrayRef<const FlagCandidate *> Kept) {
                  LocationList Targets;
                  for (const FlagCandidate *C : Kept)
                    addLocation(Targets, C->Object);
                  S.Cells[Location::variable(Through)].Targets = std::move(Targets);
                });
}

void Analyzer::refineIndex(State &S, const Expr *E, const VarDecl *K, FlagValue Equals,
                           bool Value, llvm::function_ref<bool()> Trusted) {
  auto FlagAt = [&](const Location &L) { return flagAt(L, S); };
  // The indices k may hold: those a branch before left, or each element the
  // state knows, and one written at an unknown index (which no index the
  // branch could keep names: if it is kept, k stays as it was).
  auto Known = S.Indices.find(K);
  const std::optional<llvm::SmallVector<int32_t, 2>> Before =
      Known != S.Indices.end() ? std::optional(Known->second) : std::nullopt;
  llvm::SmallVector<FlagCandidate, 4> Candidates;
  bool AnyKnown = false;
  auto Judge = [&](int32_t Index, LocationList FlagsAt) {
    FlagCandidate C;
    C.Index = Index;
    AnyKnown |= judge(C, std::move(FlagsAt), Equals, Value, FlagAt);
    Candidates.push_back(std::move(C));
  };
  if (Before) {
    for (int32_t Index : *Before) {
      S.Indices[K] = {Index};
      Judge(Index, resolve(E, S));
    }
    S.Indices[K] = *Before;
  } else {
    // What the path's facts on k leave (`if (k > 0)`: elementsAt lists them
    // one by one), as indices below the location of every element.
    LocationList Allowed = resolve(E, S);
    LocationList Locs = Allowed;
    if (Allowed.size() > 1) {
      FactSet Facts = std::move(S.Facts);
      S.Facts = FactSet();
      Locs = resolve(E, S);
      S.Facts = std::move(Facts);
    }
    if (Locs.size() != 1 || Locs[0].isUnknown())
      return;
    const Location &L = Locs[0];
    unsigned At = 0;
    if (L.anyElementSteps(&At) != 1)
      return;
    for (const HeldElement &Element : heldElements(L, At, S)) {
      if (Element.Index < 0 && !Element.Holds)
        continue; // No element written at an unknown index.
      if (Allowed.size() > 1 && llvm::none_of(Allowed, [&](const Location &A) {
            return A.Path.Depth > At && A.Path.Steps[At].Index == Element.Index;
          }))
        continue; // One the facts exclude.
      Location One = L;
      One.Path.Steps[At].Index = Element.Index;
      Judge(Element.Index, {One});
    }
  }
  if (!AnyKnown)
    return;
  narrowByFlags(S, Candidates, Equals, Value, Trusted,
                [&](llvm::ArrayRef<const FlagCandidate *> Kept) {
                  llvm::SmallVector<int32_t, 2> Indices;
                  for (const FlagCandidate *C : Kept) {
                    if (C->Index < 0)
                      return; // One written at an unknown index: k may be any.
                    Indices.push_back(C->Index);
                  }
                  llvm::sort(Indices);
                  S.Indices[K] = std::move(Indices);
                });
}

} // namespace dmalint
