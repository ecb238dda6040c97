//===- Conditions.cpp - Atoms, guards, constant conditions, refinement ----===//
//
// A branch tells the analysis something when its condition is a constant
// (the dead side contributes nothing), an atom (a side-effect-free
// expression over locals, parameters, constants and device queries, interned
// by its structural profile: the same condition tested twice is one atom), or
// an is_remote() test of descriptors the memory model can name.
//
//===----------------------------------------------------------------------===//
#include "Analyzer.h"
#include "dmalint/AnalysisCache.h"
#include "dmalint/Arguments.h"
#include "dmalint/AstUtil.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include <functional>
#include <limits>

using namespace clang;

namespace dmalint {

std::optional<bool> Analyzer::constantCondition(const Expr *E) const {
  if (!E || E->isValueDependent() || E->isTypeDependent())
    return std::nullopt;
  auto [It, Inserted] = ConstantOfExpr.try_emplace(E);
  if (Inserted) {
    bool Value;
    if (E->EvaluateAsBooleanCondition(Value, Ctx))
      It->second = Value;
  }
  return It->second;
}

bool Analyzer::collectAtomVars(const Expr *E, llvm::SmallVectorImpl<const VarDecl *> &Vars) const {
  E = E->IgnoreParenCasts();
  if (isa<IntegerLiteral, CXXBoolLiteralExpr, CharacterLiteral, FloatingLiteral>(E))
    return true;
  if (const auto *DRE = dyn_cast<DeclRefExpr>(E)) {
    if (isa<EnumConstantDecl>(DRE->getDecl()))
      return true;
    const auto *VD = dyn_cast<VarDecl>(DRE->getDecl());
    if (!VD)
      return false;
    if (VD->getType().isConstQualified() && !VD->hasLocalStorage())
      return true;
    if (!VD->hasLocalStorage())
      return false;
    // What a reference names may be written through another name; not when
    // the function sees it const (`const Step &last`).
    if (VD->getType()->isReferenceType() &&
        !VD->getType().getNonReferenceType().isConstQualified())
      return false;
    Vars.push_back(VD);
    return true;
  }
  // Through a pointer to const (`*flag`, `last->forward`): as through a
  // const reference.
  auto PointsToConst = [](const Expr *Pointer) {
    QualType T = Pointer->getType();
    return T->isPointerType() && T->getPointeeType().isConstQualified();
  };
  if (const auto *UO = dyn_cast<UnaryOperator>(E)) {
    if (UO->getOpcode() == UO_Deref)
      return PointsToConst(UO->getSubExpr()) && collectAtomVars(UO->getSubExpr(), Vars);
    return !UO->isIncrementDecrementOp() && UO->getOpcode() != UO_AddrOf &&
           collectAtomVars(UO->getSubExpr(), Vars);
  }
  if (const auto *BO = dyn_cast<BinaryOperator>(E))
    return !BO->isAssignmentOp() && !BO->isCommaOp() && collectAtomVars(BO->getLHS(), Vars) &&
           collectAtomVars(BO->getRHS(), Vars);
  if (const auto *ME = dyn_cast<MemberExpr>(E))
    return (!ME->isArrow() || PointsToConst(ME->getBase())) &&
           isa<FieldDecl>(ME->getMemberDecl()) && collectAtomVars(ME->getBase(), Vars);
  if (const auto *CE = dyn_cast<CallExpr>(E)) {
    if (Api.roleOf(CE->getDirectCallee()) != ApiRole::DeviceQuery)
      return false;
    for (const Expr *Arg : CE->arguments())
      if (!isa<StringLiteral>(Arg->IgnoreParenImpCasts()) && !collectAtomVars(Arg, Vars))
        return false;
    return true;
  }
  return false;
}

const Expr *Analyzer::builtComparison(const Expr *L, const Expr *R, BinaryOperatorKind Op) {
  const Expr *&Built = BuiltComparisons[{L, R, unsigned(Op)}];
  if (!Built)
    Built = BinaryOperator::Create(Ctx, const_cast<Expr *>(L), const_cast<Expr *>(R), Op,
                                   Ctx.BoolTy, VK_PRValue, OK_Ordinary, L->getExprLoc(),
                                   FPOptionsOverride());
  return Built;
}

const Expr *Analyzer::withArguments(const Expr *Cond, ParameterArgument ArgumentOf) {
  auto Parameter = [](const Stmt *S) -> const ParmVarDecl * {
    const auto *DRE = dyn_cast_or_null<DeclRefExpr>(S);
    return DRE ? dyn_cast<ParmVarDecl>(DRE->getDecl()) : nullptr;
  };
  // Whether \p Root names a parameter to replace (a walk, not a recursion:
  // this runs for every condition of a lambda run at its call).
  auto Names = [&](const Stmt *Root) {
    llvm::SmallVector<const Stmt *, 16> Work{Root};
    while (!Work.empty()) {
      const Stmt *S = Work.pop_back_val();
      if (!S)
        continue;
      if (const ParmVarDecl *P = Parameter(S); P && ArgumentOf(P))
        return true;
      Work.append(S->child_begin(), S->child_end());
    }
    return false;
  };
  // A side that is a parameter to replace, alone: its argument (or null).
  auto Argument = [&](const Expr *Side) -> std::optional<const Expr *> {
    const ParmVarDecl *P = Parameter(Side->IgnoreParenImpCasts());
    return P ? ArgumentOf(P) : std::nullopt;
  };
  if (!Names(Cond))
    return Cond;
  if (std::optional<const Expr *> Whole = Argument(Cond))
    return *Whole;
  const auto *BO = dyn_cast<BinaryOperator>(Cond->IgnoreParenImpCasts());
  if (!BO || !BO->isComparisonOp())
    return nullptr;
  std::optional<const Expr *> L = Argument(BO->getLHS()), R = Argument(BO->getRHS());
  if ((L && !*L) || (R && !*R) || (!L && Names(BO->getLHS())) || (!R && Names(BO->getRHS())))
    return nullptr;
  return builtComparison(L ? *L : BO->getLHS(), R ? *R : BO->getRHS(), BO->getOpcode());
}

const Expr *Analyzer::withLambdaArguments(const Expr *E) {
  return withArguments(E, [&](const ParmVarDecl *P) -> std::optional<const Expr *> {
    auto It = LambdaArguments.find(P);
    return It == LambdaArguments.end() ? std::nullopt : std::optional(It->second);
  });
}

std::optional<AtomId> Analyzer::atomFor(const Expr *E, bool &Positive) {
  // In a lambda run at a call that passes its parameters conditions of the
  // caller's: the caller's atom (not kept by E: another call passes others).
  if (!LambdaArguments.empty()) {
    const Expr *Here = withLambdaArguments(E);
    if (Here != E) {
      if (!Here)
        return std::nullopt;
      bool HerePositive = true;
      std::optional<AtomId> Atom = conditionAtom(Here, HerePositive);
      if (Atom && !HerePositive)
        Positive = !Positive;
      return Atom;
    }
  }
  auto Known = AtomOfExpr.find(E);
  if (Known == AtomOfExpr.end()) {
    AtomOf Made;
    Made.Id = makeAtom(E, Made.Negated);
    Known = AtomOfExpr.try_emplace(E, Made).first;
  }
  if (Known->second.Id && Known->second.Negated)
    Positive = !Positive;
  return Known->second.Id;
}

namespace {
/// The profile of `x == c`: x's and c's value, however c is spelled (`0`,
/// `0L`, an enumerator), so that an integer tested for truth (`if (k)`) is
/// the negation of the atom `k == 0`.
void equalityProfile(const llvm::FoldingSetNodeID &Subject, int64_t Constant,
                     llvm::FoldingSetNodeID &Profile) {
  Profile.AddInteger(0x3d3d);
  Profile.AddNodeID(Subject);
  Profile.AddInteger(0x3d63);
  Profile.AddInteger(Constant);
}

/// The profile of the comparison \p E as its one spelling: `a != b` is the
/// negation of `a == b` (\p Negated), `a >= b` of `a < b`, `a > b` is
/// `b < a`, `a <= b` the negation of `b < a`, and `b == a` is `a == b`.
/// False for anything else, and for floating-point operands (a NaN
/// compares false both ways).
bool canonicalComparison(const Expr *E, const ASTContext &Ctx, llvm::FoldingSetNodeID &Profile,
                         bool &Negated, std::optional<ConstantComparison> &Compared) {
  // `if (k)` of an integer or enum: `k != 0`.
  const Expr *Bare = E->IgnoreParenImpCasts();
  if (!Bare->getType()->isBooleanType() && Bare->getType()->isIntegralOrEnumerationType()) {
    llvm::FoldingSetNodeID Subject;
    Bare->IgnoreParenCasts()->Profile(Subject, Ctx, /*Canonical=*/true);
    equalityProfile(Subject, 0, Profile);
    Compared = ConstantComparison{Subject, 0, ConstantComparison::Equal};
    Negated = true;
    return true;
  }
  const auto *BO = dyn_cast<BinaryOperator>(E->IgnoreParenCasts());
  if (!BO || !BO->isComparisonOp())
    return false;
  auto Exact = [](const Expr *X) {
    QualType T = X->IgnoreParenImpCasts()->getType();
    return T->isIntegralOrEnumerationType() || T->isPointerType();
  };
  if (!Exact(BO->getLHS()) || !Exact(BO->getRHS()))
    return false;
  const Expr *L = BO->getLHS(), *R = BO->getRHS();
  bool Equality = true;
  Negated = false;
  switch (BO->getOpcode()) {
  case BO_EQ:
    break;
  case BO_NE:
    Negated = true;
    break;
  case BO_LT:
    Equality = false;
    break;
  case BO_GE:
    Equality = false;
    Negated = true;
    break;
  case BO_GT:
    Equality = false;
    std::swap(L, R);
    break;
  case BO_LE:
    Equality = false;
    std::swap(L, R);
    Negated = true;
    break;
  default:
    return false;
  }
  llvm::FoldingSetNodeID Left, Right;
  L->IgnoreParenCasts()->Profile(Left, Ctx, /*Canonical=*/true);
  R->IgnoreParenCasts()->Profile(Right, Ctx, /*Canonical=*/true);
  // `x == c`, `x < c`, `c < x` (x > c): x and c. Equal to two different
  // constants is impossible, and an index that fails the comparison is not
  // an element's it excludes.
  std::optional<int64_t> CL = constantInt(L, Ctx), CR = constantInt(R, Ctx);
  using Rel = ConstantComparison;
  if (CL && !CR)
    Compared = ConstantComparison{Right, *CL, Equality ? Rel::Equal : Rel::Above};
  else if (CR && !CL)
    Compared = ConstantComparison{Left, *CR, Equality ? Rel::Equal : Rel::Below};
  if (Equality && Compared) {
    equalityProfile(Compared->Subject, Compared->Constant, Profile);
    return true;
  }
  if (Equality && Right < Left)
    std::swap(Left, Right);
  Profile.AddInteger(Equality ? 0x3d3d : 0x3c);
  Profile.AddNodeID(Left);
  Profile.AddNodeID(Right);
  return true;
}
} // namespace

void Analyzer::learnConstantValue(const VarDecl *VD, const Expr *Value, State &S) {
  QualType T = VD->getType();
  if (!Function || !Value || !VD->hasLocalStorage() || T->isReferenceType() ||
      T.isConstQualified() || T.isVolatileQualified() || !T->isIntegralOrEnumerationType() ||
      Value->isValueDependent())
    return;
  // Not one a lambda, a pointer or a reference may write unseen.
  if (!AnalysisCache::current().variables(*Function, Api).onlyPlainlyWritten(VD))
    return;
  const Expr *&Reference = BuiltReferences[VD];
  if (!Reference)
    Reference = DeclRefExpr::Create(Ctx, NestedNameSpecifierLoc(), SourceLocation(),
                                    const_cast<VarDecl *>(VD), /*RefersToEnclosing=*/false,
                                    VD->getLocation(), T.getNonReferenceType(), VK_LValue);
  if (T->isBooleanType()) {
    // `bool remote = false;` ... `remote = true;` beside the remote copy:
    // the atom `if (remote)` tests, known on this path.
    std::optional<bool> Constant = constantCondition(Value);
    bool Positive = true;
    std::optional<AtomId> Atom = Constant ? atomFor(Reference, Positive) : std::nullopt;
    if (Atom && Atoms[*Atom].Vars.size() == 1 && Atoms[*Atom].Vars[0] == VD)
      S.Facts.add(Fact{*Atom, *Constant == Positive});
    return;
  }
  std::optional<int64_t> Constant = constantInt(Value, Ctx);
  // Only where a comparison can use it: each fact a path knows makes its
  // values apart from the other paths' where they meet.
  if (!Constant || !comparedWithConstant(VD))
    return;
  // x's profile as a condition reading it has it (canonicalComparison).
  llvm::FoldingSetNodeID Subject;
  Reference->Profile(Subject, Ctx, /*Canonical=*/true);
  // An atom of its own, not the one `x == c` written in a branch is: it
  // compares as that one does (comparisonsAgree), but names no element
  // (indexFacts) and has no siblings to refute, so what a read `a[x]`
  // resolves to is what it was before x's value was known.
  llvm::FoldingSetNodeID Profile;
  Profile.AddInteger(0x3d76);
  equalityProfile(Subject, *Constant, Profile);
  auto [Id, New] = internAtom(Profile);
  if (New) {
    Atoms[Id].Compared = ConstantComparison{Subject, *Constant, ConstantComparison::Equal};
    Atoms[Id].WrittenValue = true;
    Atoms[Id].Vars.push_back(VD);
    AtomsByVar[VD].push_back(Id); // The next write forgets it (invalidateVar).
  }
  S.Facts.add(Fact{Id, true});
}

bool Analyzer::steadyCondition(const Expr *E, const UnwrittenVariables &Vars) const {
  llvm::SmallVector<const VarDecl *, 2> Read;
  return collectAtomVars(E, Read) &&
         llvm::all_of(Read, [&](const VarDecl *V) { return Vars.unwritten(V); });
}

const Expr *Analyzer::testedCondition(const Expr *Cond, bool &Positive) const {
  const Expr *E = bareCondition(Cond, Positive, /*ThroughCasts=*/true);
  for (unsigned Depth = 0; Depth < 4 && Function; ++Depth) {
    if (!isa<DeclRefExpr, MemberExpr>(E) || !E->getType()->isBooleanType())
      break;
    const UnwrittenVariables &Vars = AnalysisCache::current().variables(*Function, Api);
    const Expr *Built = Vars.builtValue(E);
    if (!Built || !steadyCondition(Built, Vars))
      break;
    E = bareCondition(Built, Positive, /*ThroughCasts=*/true);
  }
  return E;
}

const Expr *Analyzer::keptLogical(const Expr *E) const {
  if (!Function || !isa<DeclRefExpr, MemberExpr>(E) || !E->getType()->isBooleanType())
    return nullptr;
  const UnwrittenVariables &Vars = AnalysisCache::current().variables(*Function, Api);
  const Expr *Built = Vars.builtValue(E);
  const auto *Logical = Built ? dyn_cast<BinaryOperator>(Built->IgnoreParenImpCasts()) : nullptr;
  if (!Logical || !Logical->isLogicalOp())
    return nullptr;
  std::function<bool(const Expr *)> Same = [&](const Expr *X) {
    X = X->IgnoreParenImpCasts();
    if (const auto *Call = dyn_cast<CXXMemberCallExpr>(X)) {
      if (Api.roleOf(Call->getMethodDecl()) != ApiRole::IsRemote)
        return false;
      const auto *DRE =
          dyn_cast<DeclRefExpr>(Call->getImplicitObjectArgument()->IgnoreParenImpCasts());
      const auto *V = DRE ? dyn_cast<VarDecl>(DRE->getDecl()) : nullptr;
      return V && V->hasLocalStorage() && !V->getType()->isReferenceType() &&
             Vars.keepsObject(V);
    }
    if (const auto *BO = dyn_cast<BinaryOperator>(X); BO && BO->isLogicalOp())
      return Same(BO->getLHS()) && Same(BO->getRHS());
    if (const auto *UO = dyn_cast<UnaryOperator>(X); UO && UO->getOpcode() == UO_LNot)
      return Same(UO->getSubExpr());
    return steadyCondition(X, Vars);
  };
  return Same(Logical) ? Logical : nullptr;
}

std::optional<AtomId> Analyzer::makeAtom(const Expr *E, bool &Negated) {
  Negated = false;
  // A constant is folded where it is tested, never an atom: `1 ? r : l`
  // is r, not "r when 1 holds".
  if (constantCondition(E))
    return std::nullopt;
  // An integer or enum parameter compared with a constant: the atom a
  // `case` of a switch on it shares (`a != kStart`: its negation).
  bool Equal = true;
  if (auto Compared = comparedParameter(E->IgnoreParenImpCasts(), Equal, Ctx))
    if (std::optional<AtomId> Atom = paramValueAtom(Compared->first, Compared->second)) {
      Negated = !Equal;
      return Atom;
    }
  // One tested for truth (`if (i)`): `i != 0`.
  if (const auto *DRE = dyn_cast<DeclRefExpr>(E->IgnoreParenImpCasts()))
    if (const auto *P = dyn_cast<ParmVarDecl>(DRE->getDecl()))
      if (std::optional<AtomId> Atom = paramValueAtom(P, 0)) {
        Negated = true;
        return Atom;
      }
  // A member of `*this` the member function never writes: an atom a call
  // decides from what its caller knows of the object (ObjectFact).
  if (std::optional<ObjectFact> Member = objectMemberTest(E, Negated)) {
    llvm::FoldingSetNodeID Profile;
    Profile.AddInteger(0x7415);
    Profile.AddPointer(Member->Field);
    Profile.AddInteger(Member->Equals);
    auto [Id, New] = internAtom(Profile);
    if (New)
      Atoms[Id].ObjectMember = Member;
    return Id;
  }
  llvm::SmallVector<const VarDecl *, 2> Vars;
  if (!collectAtomVars(E, Vars))
    return std::nullopt;
  llvm::FoldingSetNodeID Profile;
  std::optional<ConstantComparison> Compared;
  bool Comparison = canonicalComparison(E, Ctx, Profile, Negated, Compared);
  if (!Comparison)
    E->IgnoreParenCasts()->Profile(Profile, Ctx, /*Canonical=*/true);
  auto [Id, New] = internAtom(Profile);
  if (!New)
    return Id;
  Atoms[Id].Cond = E;
  Atoms[Id].CondNegated = Negated;
  if (Compared) {
    Atoms[Id].Compared = Compared;
    if (Compared->Rel == ConstantComparison::Equal)
      EqualityAtoms[Compared->Subject.ComputeHash()].push_back(Id);
  }
  if (const auto *DRE = dyn_cast<DeclRefExpr>(E->IgnoreParenCasts()))
    if (const auto *P = dyn_cast<ParmVarDecl>(DRE->getDecl()))
      if (P->getType()->isBooleanType() && P->getDeclContext() == Function)
        Atoms[Id].BoolParam = P->getFunctionScopeIndex();
  // `peer == me` of two parameters: what a call compares its arguments by.
  if (const auto *BO = dyn_cast<BinaryOperator>(E->IgnoreParenCasts());
      BO && (BO->getOpcode() == BO_EQ || BO->getOpcode() == BO_NE) && !Compared) {
    auto Param = [&](const Expr *Side) -> const ParmVarDecl * {
      const auto *DRE = dyn_cast<DeclRefExpr>(Side->IgnoreParenImpCasts());
      const auto *P = DRE ? dyn_cast<ParmVarDecl>(DRE->getDecl()) : nullptr;
      return P && P->getDeclContext() == Function && !P->getType()->isBooleanType() &&
                     P->getType()->isIntegralOrEnumerationType()
                 ? P
                 : nullptr;
    };
    const ParmVarDecl *L = Param(BO->getLHS()), *R = Param(BO->getRHS());
    if (L && R && L != R)
      Atoms[Id].ParamsEqual = std::minmax(L->getFunctionScopeIndex(), R->getFunctionScopeIndex());
  }
  for (const VarDecl *VD : Vars)
    if (!llvm::is_contained(Atoms[Id].Vars, VD)) {
      Atoms[Id].Vars.push_back(VD);
      AtomsByVar[VD].push_back(Id);
    }
  return Id;
}

std::pair<AtomId, bool> Analyzer::internAtom(const llvm::FoldingSetNodeID &Profile) {
  auto &Bucket = AtomsByHash[Profile.ComputeHash()];
  for (AtomId Id : Bucket)
    if (Atoms[Id].Profile == Profile)
      return {Id, false};
  AtomId Id = static_cast<AtomId>(Atoms.size());
  Atoms.push_back(AtomInfo{Profile, {}, std::nullopt});
  Bucket.push_back(Id);
  return {Id, true};
}

std::optional<bool> Analyzer::boundCondition(const Expr *E) const {
  if (BoundParameters.empty() || !E)
    return std::nullopt;
  bool Positive = true;
  const Expr *Bare = testedCondition(E, Positive);
  if (const auto *DRE = dyn_cast<DeclRefExpr>(Bare->IgnoreParenImpCasts()))
    if (const auto *P = dyn_cast<ParmVarDecl>(DRE->getDecl()))
      if (std::optional<int64_t> Value = boundParameter(P); Value && P->getType()->isBooleanType())
        return (*Value != 0) == Positive;
  bool Equal = true;
  if (auto Compared = comparedParameter(Bare, Equal, Ctx))
    if (std::optional<int64_t> Value = boundParameter(Compared->first))
      return ((*Value == Compared->second) == Equal) == Positive;
  return std::nullopt;
}

std::optional<AtomId> Analyzer::paramValueAtom(const ParmVarDecl *P, int64_t Value) {
  if (!P || P->getDeclContext() != Function || P->getType()->isBooleanType() ||
      !P->getType()->isIntegralOrEnumerationType())
    return std::nullopt;
  auto [It, Inserted] = ParamValueAtoms.try_emplace({P, Value}, 0);
  if (!Inserted)
    return It->second;
  AtomId Id = static_cast<AtomId>(Atoms.size());
  AtomInfo Info;
  Info.ParamEquals = std::make_pair(P->getFunctionScopeIndex(), Value);
  Info.Vars.push_back(P);
  Atoms.push_back(std::move(Info));
  AtomsByVar[P].push_back(Id); // A write of the parameter forgets it.
  It->second = Id;
  return Id;
}

std::optional<AtomId> Analyzer::equalityAtom(const Expr *A, const Expr *B, bool &Positive) {
  if (!A || !B || isa<CXXDefaultArgExpr>(A) || isa<CXXDefaultArgExpr>(B) ||
      A->isValueDependent() || B->isValueDependent() ||
      !A->getType()->isIntegralOrEnumerationType() ||
      !B->getType()->isIntegralOrEnumerationType())
    return std::nullopt;
  // The comparison as if written here, so that it is the atom the same
  // test of this function is, however that is spelled (a parameter
  // compared with a constant, `me == p`, `p != me`).
  Positive = true;
  return conditionAtom(builtComparison(A, B, BO_EQ), Positive);
}

void Analyzer::invalidateVar(const VarDecl *VD, State &S) {
  S.Indices.erase(VD);
  // Elements appended where `VD == e` keep it as their index's.
  if (!S.Cells.empty() && AtomsByVar.count(VD))
    indexElementAtoms(VD, S);
  if (FlagsSeen)
    forgetIndexedFlagTests(VD, S);
  // The variable's own test, and those of its members.
  for (auto G = S.Guards.lower_bound(Location::variable(VD));
       G != S.Guards.end() && G->first.Kind == Location::Variable && G->first.Root == VD;)
    G = S.Guards.erase(G);
  auto It = AtomsByVar.find(VD);
  if (It == AtomsByVar.end())
    return;
  for (AtomId Id : It->second) {
    if (Atoms[Id].WrittenValue) {
      // What the variable was last set to says nothing once it is set
      // again: forgotten, not retired (no value is kept apart by it).
      S.Facts.erase(Id);
      for (auto &[L, C] : S.Cells)
        C.Values.forget(Id);
      continue;
    }
    // A bool assigned this condition holds its old value.
    for (auto G = S.Guards.begin(); G != S.Guards.end();)
      G = G->second.Alias == Id ? S.Guards.erase(G) : std::next(G);
    AtomId Retired = retiredAtom(Id);
    S.Facts.erase(Retired);
    if (std::optional<bool> Holds = S.Facts.lookup(Id)) {
      S.Facts.erase(Id);
      S.Facts.add(Fact{Retired, *Holds});
    }
    for (auto &[L, C] : S.Cells) {
      C.Values.forget(Retired);
      C.Values.renameAtom(Id, Retired);
    }
  }
}

AtomId Analyzer::retiredAtom(AtomId Id) {
  auto [It, Inserted] = RetiredAtoms.try_emplace(Id, 0);
  if (Inserted) {
    // No expression profiles to this: no condition is the retired atom.
    llvm::FoldingSetNodeID Profile;
    Profile.AddInteger(0x7e71);
    Profile.AddInteger(Id);
    It->second = internAtom(Profile).first;
  }
  return It->second;
}

Guard Analyzer::classify(const Expr *Cond, const State &S) {
  Guard G;
  bool Positive = true;
  const Expr *E = testedCondition(Cond, Positive);
  G.Negated = !Positive;
  G.SubjectsNegated = G.Negated;
  if (const auto *Call = dyn_cast<CXXMemberCallExpr>(E);
      Call && role(Call->getMethodDecl()) == ApiRole::IsRemote) {
    LocationList Subjects = objectLocations(Call, S);
    if (!hasUnknown(Subjects))
      G.Subjects = std::move(Subjects);
    return G;
  }
  // A bool or enum member beside descriptors (`i.remote`,
  // `i.kind == Kind::kRemote`): a flag (Flags.cpp), as written
  // (testedCondition may have replaced it by its initialiser).
  bool FlagPositive = true;
  FlagValue Equals = FlagTrue;
  if (const Expr *Read = testedFlag(Cond, Equals, FlagPositive)) {
    G.Flag = Read;
    G.FlagNegated = !FlagPositive;
    G.FlagEquals = Equals;
  }
  // A bool that holds d.is_remote(): a test of d, and an atom of its own.
  if (std::optional<Location> Key = guardKey(E)) {
    auto Stored = S.Guards.find(*Key);
    if (Stored != S.Guards.end()) {
      if (Stored->second.Flag && !G.Flag) {
        G.Flag = Stored->second.Flag;
        G.FlagNegated = G.Negated != Stored->second.FlagNegated;
        G.FlagEquals = Stored->second.FlagEquals;
      }
      G.Subjects = Stored->second.Subjects;
      G.SubjectsNegated ^= Stored->second.SubjectsNegated;
      G.Alias = Stored->second.Alias;
      G.AliasNegated = G.Negated != Stored->second.AliasNegated;
    }
  }
  // `a != b`: the negation of the atom `a == b` (makeAtom).
  bool AtomPositive = true;
  G.Atom = atomFor(E, AtomPositive);
  if (!AtomPositive)
    G.Negated = !G.Negated;
  return G;
}

std::optional<Location> Analyzer::guardKey(const Expr *E) {
  E = E->IgnoreParenImpCasts();
  if (const auto *DRE = dyn_cast<DeclRefExpr>(E)) {
    if (const auto *VD = dyn_cast<VarDecl>(DRE->getDecl()))
      return Location::variable(VD);
    return std::nullopt;
  }
  // `s.remote`, `s.stage.remote`: a write of s or of any member of it
  // forgets it (invalidateVar).
  llvm::SmallVector<const FieldDecl *, 2> Path;
  const VarDecl *V = isa<MemberExpr>(E) ? fieldPathVariable(E, Path) : nullptr;
  if (!V || !V->hasLocalStorage() || V->getType()->isReferenceType())
    return std::nullopt;
  Location Key = Location::variable(V);
  for (const FieldDecl *FD : Path)
    Key = Key.child(PathStep::field(FD));
  if (Key.isUnknown())
    return std::nullopt;
  return Key;
}

void Analyzer::refine(State &S, const Guard &G, bool Holds) {
  bool Outcome = Holds != G.SubjectsNegated;
  llvm::SmallVector<OriginId, 4> Removed;
  auto NoteRemoved = [&](const ValueSet &Before, const ValueSet &After) {
    for (OriginId Id : Before.origins())
      if (!After.hasOrigin(Id) && !llvm::is_contained(Removed, Id))
        Removed.push_back(Id);
  };
  // What every copy the one tested location keeps assumes holds on the
  // path: `if (k > 0) d = R; if (k > 0) e = R;` then `if (d.is_remote())`
  // is where k > 0, so e is remote there too.
  std::optional<FactSet> Implied;
  unsigned Tested = 0;
  // Descriptors of the other kind are not on this path. A parameter's
  // descriptor is of unknown kind: remember on which side of its own
  // is_remote() test this path is, for its summary.
  for (const Location &Subject : G.Subjects) {
    bool AnyBefore = false, AnyAfter = false;
    for (auto &[L, C] : S.Cells) {
      if (L.Path.Depth != Subject.Path.Depth || !Subject.mayAlias(L) || C.Values.empty())
        continue;
      AnyBefore = true;
      ++Tested;
      ValueSet Kept = C.Values;
      Kept.filter([&](const Value &V) {
        Remoteness K = Out.Origins[V.Origin].Kind;
        return K == Remoteness::Unknown || (K == Remoteness::Remote) == Outcome;
      });
      if (llvm::any_of(Kept.values(),
                       [&](const Value &V) { return Out.Origins[V.Origin].isParameter(); })) {
        ValueSet Marked;
        for (const Value &V : Kept.values()) {
          ValueSet One = ValueSet::of(V);
          if (Out.Origins[V.Origin].isParameter())
            One.assume(FactSet{Fact{paramRemoteAtom(V.Origin), Outcome}});
          Marked.unionWith(One);
        }
        Kept = std::move(Marked);
      }
      NoteRemoved(C.Values, Kept);
      C.Values = std::move(Kept);
      AnyAfter |= !C.Values.empty();
      for (const Value &V : C.Values.values())
        Implied = Implied ? FactSet::intersect(*Implied, V.Assumed) : V.Assumed;
    }
    if (AnyBefore && !AnyAfter && G.Subjects.size() == 1)
      S.Reachable = false; // d is provably the other kind here.
  }
  // A copy the refinement took out of every location that held it was not
  // built on this path (the other side of `r ? remote(...) : local(...)`):
  // its lifecycle here is nothing, not what the uses of a location that
  // might have held it said.
  forgetUnheldLife(S, Removed, /*OnlyIfMaybeIdle=*/false);
  auto Learn = [&](AtomId Atom, bool Outcome) {
    std::optional<bool> Known = S.Facts.lookup(Atom);
    if (Known) {
      if (*Known != Outcome)
        S.Reachable = false;
      return;
    }
    S.Facts.add(Fact{Atom, Outcome});
    // `x > 1` after `x > 0` failed: no path, and no value made where it did.
    bool Compared = Atoms[Atom].Compared.has_value();
    if (Compared && !comparisonsAgree(S.Facts)) {
      S.Reachable = false;
      return;
    }
    for (auto &[L, C] : S.Cells) {
      bool WasEmpty = C.Values.empty();
      C.Values.restrict(Fact{Atom, Outcome}, &Removed);
      if (Compared) {
        // Only values that assume another comparison can disagree.
        auto Agrees = [&](const Value &V) {
          return llvm::none_of(V.Assumed, [&](const Fact &F) {
                   return F.Atom < Atoms.size() && Atoms[F.Atom].Compared;
                 }) ||
                 onOnePath(V.Assumed, S.Facts);
        };
        if (!llvm::all_of(C.Values.values(), Agrees)) {
          ValueSet Before = C.Values;
          C.Values.filter(Agrees);
          NoteRemoved(Before, C.Values);
        }
      }
      if (!WasEmpty && C.Values.empty())
        S.Reachable = false; // Every value needs the other outcome.
    }
    forgetUnheldLife(S, Removed, /*OnlyIfMaybeIdle=*/false);
  };
  if (Implied && Tested == 1 && G.Subjects.size() == 1)
    for (const Fact &F : *Implied)
      if (S.Reachable && !Atoms[F.Atom].ParamRemote)
        Learn(F.Atom, F.Holds);
  if (G.Atom) {
    Learn(*G.Atom, Holds != G.Negated);
    // `x == c` holds: `x == d` for another constant d does not.
    llvm::SmallVector<AtomId, 4> Others;
    const auto &Compared = Atoms[*G.Atom].Compared;
    if (Compared && Compared->Rel == ConstantComparison::Equal) {
      auto Siblings = EqualityAtoms.find(Compared->Subject.ComputeHash());
      if (Siblings != EqualityAtoms.end())
        for (AtomId Other : Siblings->second)
          if (Atoms[Other].Compared->Subject == Compared->Subject &&
              Atoms[Other].Compared->Constant != Compared->Constant)
            Others.push_back(Other);
    } else if (const auto &Equals = Atoms[*G.Atom].ParamEquals) {
      for (const auto &[Key, Other] : ParamValueAtoms)
        if (Key.first->getFunctionScopeIndex() == Equals->first && Key.second != Equals->second &&
            Key.first->getDeclContext() == Function)
          Others.push_back(Other);
    }
    if (Holds != G.Negated)
      for (AtomId Other : Others)
        if (S.Reachable)
          Learn(Other, false);
  }
  if (G.Alias && S.Reachable)
    Learn(*G.Alias, Holds != G.AliasNegated);
  if (G.Flag && S.Reachable)
    refineFlag(S, G.Flag, G.FlagEquals, Holds != G.FlagNegated);
}

AtomId Analyzer::paramRemoteAtom(OriginId Origin) {
  auto [It, Inserted] = ParamRemoteAtoms.emplace(Origin, 0);
  if (Inserted) {
    It->second = static_cast<AtomId>(Atoms.size());
    Atoms.push_back(AtomInfo{});
    Atoms.back().ParamRemote = true;
  }
  return It->second;
}

bool Analyzer::isUnguardedParam(const Value &V) const {
  if (!Out.Origins[V.Origin].isParameter())
    return false;
  auto It = ParamRemoteAtoms.find(V.Origin);
  return It == ParamRemoteAtoms.end() || V.Assumed.lookup(It->second) != std::optional(true);
}

ObjectFacts Analyzer::objectFacts(const State &S) const {
  ObjectFacts Result;
  for (const Fact &F : S.Facts)
    if (const std::optional<ObjectFact> &Member = Atoms[F.Atom].ObjectMember)
      Result.push_back(ObjectFact{Member->Field, Member->Equals, F.Holds});
  return Result;
}

namespace {
/// How a member function's body uses `this`, for steadyObjectMember: how
/// many `this` there are and how many of them are a member's base, whether
/// a non-const member function is called on it, and which uses of one
/// member are written.
class ThisUses : public RecursiveASTVisitor<ThisUses> {
public:
  explicit ThisUses(const FieldDecl *F) : F(F) {}
  bool shouldVisitLambdaBody() const { return true; }
  bool VisitCXXThisExpr(CXXThisExpr *) {
    ++Thises;
    return true;
  }
  bool VisitMemberExpr(MemberExpr *ME) {
    if (!isa<CXXThisExpr>(ME->getBase()->IgnoreParenImpCasts()))
      return true;
    ++Bases;
    if (const auto *M = dyn_cast<CXXMethodDecl>(ME->getMemberDecl());
        M && !M->isConst() && !M->isStatic())
      NonConstCall = true;
    if (ME->getMemberDecl() == F)
      Uses.push_back(ME);
    return true;
  }
  bool VisitBinaryOperator(BinaryOperator *BO) {
    if (BO->isAssignmentOp())
      Written.insert(BO->getLHS()->IgnoreParens());
    return true;
  }
  bool VisitUnaryOperator(UnaryOperator *UO) {
    if (UO->isIncrementDecrementOp() || UO->getOpcode() == UO_AddrOf)
      Written.insert(UO->getSubExpr()->IgnoreParens());
    return true;
  }
  bool steady() const {
    return Thises == Bases && !NonConstCall &&
           llvm::none_of(Uses, [&](const Expr *U) { return Written.contains(U); });
  }

private:
  const FieldDecl *F;
  unsigned Thises = 0, Bases = 0;
  bool NonConstCall = false;
  llvm::SmallVector<const Expr *, 4> Uses;
  llvm::DenseSet<const Expr *> Written;
};
} // namespace

bool Analyzer::steadyObjectMember(const FieldDecl *F) {
  auto [It, Inserted] = SteadyObjectMembers.try_emplace({Function, F}, false);
  if (!Inserted)
    return It->second;
  const auto *MD = dyn_cast_or_null<CXXMethodDecl>(Function);
  const auto *Owner = dyn_cast<CXXRecordDecl>(F->getParent());
  // A constructor's members are not the caller's yet.
  if (!MD || MD->isStatic() || isa<CXXConstructorDecl>(MD) || !MD->getBody() || !Owner ||
      MD->getParent()->getCanonicalDecl() != Owner->getCanonicalDecl() ||
      AnalysisCache::current().flagWrittenUnseen(*F, Ctx))
    return false;
  It->second = dmalint::leavesMember(MD->getBody(), F);
  return It->second;
}

bool leavesMember(const Stmt *Body, const FieldDecl *F) {
  ThisUses Walk(F);
  Walk.TraverseStmt(const_cast<Stmt *>(Body));
  return Walk.steady();
}

std::optional<ObjectFact> Analyzer::objectMemberTest(const Expr *E, bool &Negated) {
  if (!isa_and_nonnull<CXXMethodDecl>(Function))
    return std::nullopt;
  auto MemberOf = [](const Expr *X) -> const FieldDecl * {
    const auto *ME = dyn_cast<MemberExpr>(X->IgnoreParenImpCasts());
    if (!ME || !isa<CXXThisExpr>(ME->getBase()->IgnoreParenImpCasts()))
      return nullptr;
    const auto *F = dyn_cast<FieldDecl>(ME->getMemberDecl());
    return F && isFlagType(F->getType()) ? F : nullptr;
  };
  std::optional<ObjectFact> Test;
  const Expr *Bare = E->IgnoreParenImpCasts();
  // A bool tested as it is (an enum converted to bool is not its value).
  if (const FieldDecl *F = MemberOf(Bare); F && F->getType()->isBooleanType()) {
    Negated = false;
    Test = ObjectFact{F, 1, true};
  } else if (const auto *BO = dyn_cast<BinaryOperator>(Bare);
             BO && (BO->getOpcode() == BO_EQ || BO->getOpcode() == BO_NE)) {
    for (auto [Side, Other] : {std::pair(BO->getLHS(), BO->getRHS()),
                               std::pair(BO->getRHS(), BO->getLHS())})
      if (const FieldDecl *F = MemberOf(Side))
        if (std::optional<int64_t> Value = constantInt(Other, Ctx)) {
          Negated = BO->getOpcode() == BO_NE;
          Test = ObjectFact{F, *Value, true};
          break;
        }
  }
  if (!Test || !steadyObjectMember(static_cast<const FieldDecl *>(Test->Field)))
    return std::nullopt;
  return Test;
}

bool Analyzer::comparisonsAgree(const FactSet &Facts) const {
  llvm::SmallVector<const Fact *, 4> Compared;
  for (const Fact &F : Facts)
    if (F.Atom < Atoms.size() && Atoms[F.Atom].Compared)
      Compared.push_back(&F);
  if (Compared.size() < 2)
    return true;
  // Each subject's values as an interval less the points `x == c` fails
  // at; 128 bits: `x > INT64_MAX` must not wrap.
  using Bound = __int128;
  llvm::SmallVector<bool, 4> Done(Compared.size(), false);
  for (size_t I = 0; I < Compared.size(); ++I) {
    if (Done[I])
      continue;
    const llvm::FoldingSetNodeID &Subject = Atoms[Compared[I]->Atom].Compared->Subject;
    Bound Low = std::numeric_limits<int64_t>::min(), High = std::numeric_limits<int64_t>::max();
    llvm::SmallVector<int64_t, 2> Excluded;
    for (size_t J = I; J < Compared.size(); ++J) {
      const ConstantComparison &C = *Atoms[Compared[J]->Atom].Compared;
      if (Done[J] || !(C.Subject == Subject))
        continue;
      Done[J] = true;
      bool Holds = Compared[J]->Holds;
      Bound K = C.Constant;
      switch (C.Rel) {
      case ConstantComparison::Equal:
        if (Holds)
          Low = std::max(Low, K), High = std::min(High, K);
        else
          Excluded.push_back(C.Constant);
        break;
      case ConstantComparison::Below: // x < K, or x >= K.
        Holds ? High = std::min(High, K - 1) : Low = std::max(Low, K);
        break;
      case ConstantComparison::Above: // x > K, or x <= K.
        Holds ? Low = std::max(Low, K + 1) : High = std::min(High, K);
        break;
      }
    }
    if (Low > High)
      return false;
    llvm::sort(Excluded);
    Excluded.erase(std::unique(Excluded.begin(), Excluded.end()), Excluded.end());
    Bound Inside = 0;
    for (int64_t X : Excluded)
      Inside += X >= Low && X <= High;
    if (Inside == High - Low + 1)
      return false;
  }
  return true;
}

bool Analyzer::onOnePath(const FactSet &A, const FactSet &B) const {
  FactSet Both;
  return FactSet::conjoin(A, B, Both) && comparisonsAgree(Both);
}

ParamFacts Analyzer::paramFacts(const State &S) const {
  ParamFacts Result;
  for (const Fact &F : S.Facts) {
    if (Atoms[F.Atom].BoolParam)
      Result.push_back(ParamFact{*Atoms[F.Atom].BoolParam, F.Holds, std::nullopt});
    else if (const auto &Equals = Atoms[F.Atom].ParamEquals)
      Result.push_back(ParamFact{Equals->first, F.Holds, Equals->second});
  }
  return Result;
}

} // namespace dmalint
