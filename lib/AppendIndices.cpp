//===- AppendIndices.cpp - The iteration that appended each element -------===//
//
// Generic collective code issues one copy per peer into a vector, local or
// remote by the peer, then drains the sends in a second loop that skips
// itself:
//     for (int p = 0; p < n; ++p)
//       copies.push_back(p == me ? make_async_copy(...) : make_async_remote_copy(...));
//     for (int p = 0; p < n; ++p) {
//       if (p == me) continue;
//       copies[p].wait_send();
//     }
// The model keeps the elements appended in a loop in one summary, and what
// the first loop knew of p (the copy pushed where p == me is the local one)
// was retired when p changed: the drain read the local copy at every index,
// a false finding.
//
// Where a loop appends exactly one element per iteration to a sequence that
// is empty when the loop starts, and counts from 0 by one (an append-indexed
// loop), the element at index k is the one iteration p == k appended. So
// when the counter changes, what the sequence's elements assume of `p == e`
// becomes an assumption of their own index, `index == e` (an element atom,
// of the sequence and e), instead of being retired. A read `copies[q]` is
// element q: there each element atom of that sequence becomes this
// function's atom `q == e`, and what the path knows of it decides the
// values (ValueSet::restrict); a value copied out keeps the atom `q == e`,
// which a later branch on it decides.
//
// The loop and the sequence are recognised from the AST, conservatively
// (sequencesIndexedBy): a `for` whose init declares the counter as 0, whose
// increment is `++p`, `p++` or `p += 1`, and whose condition and body only
// read it; a local sequence whose size the model follows (sizeTracked),
// built empty, reserved at most before the loop, with no loop around the
// loop that is not also around its declaration, that every path through the
// body appends to once (push_back or emplace_back; an `if` appends as many
// in both branches, a path that returns counts for nothing, a break or a
// continue of the loop is refused), and that is otherwise only read so that
// no element moves to another index: element reads whose result is the
// object of a const or API member function, or copied, or bound to a
// reference that is only such an object; const member functions; after the
// loop also pop_back and a range-for. No lambda mentions it, and the
// function has no goto.
//
//===----------------------------------------------------------------------===//
#include "Analyzer.h"
#include "dmalint/AnalysisCache.h"
#include "dmalint/Arguments.h"
#include "dmalint/Semaphores.h"
#include "dmalint/AstUtil.h"
#include <functional>

using namespace clang;

namespace dmalint {

namespace {

const DeclRefExpr *mentionOf(const Expr *E, const VarDecl &V) {
  const auto *DRE = E ? dyn_cast<DeclRefExpr>(E->IgnoreParenImpCasts()) : nullptr;
  return DRE && DRE->getDecl() == &V ? DRE : nullptr;
}

/// The sequence a call appends to (push_back or emplace_back on a variable).
const VarDecl *appendedSequence(const Stmt *S) {
  const auto *MC = dyn_cast<CXXMemberCallExpr>(S);
  const CXXMethodDecl *MD = MC ? MC->getMethodDecl() : nullptr;
  if (!MD || !MD->getIdentifier() || (MD->getName() != "push_back" && MD->getName() != "emplace_back"))
    return nullptr;
  const auto *DRE = dyn_cast<DeclRefExpr>(MC->getImplicitObjectArgument()->IgnoreParenImpCasts());
  return DRE ? dyn_cast<VarDecl>(DRE->getDecl()) : nullptr;
}

/// How many times every path through a statement appends to one sequence.
struct AppendCount {
  bool Leaves = false; ///< Every path leaves the function (the count is moot).
  unsigned N = 0;
};

class AppendCounter {
public:
  explicit AppendCounter(const VarDecl &V) : V(V) {}

  /// Nullopt where paths differ, or the loop is left or continued early.
  std::optional<AppendCount> count(const Stmt *S) {
    if (!S)
      return AppendCount{};
    if (const auto *CS = dyn_cast<CompoundStmt>(S)) {
      AppendCount Total;
      for (const Stmt *Child : CS->body()) {
        std::optional<AppendCount> C = count(Child);
        if (!C)
          return std::nullopt;
        if (C->Leaves)
          return AppendCount{true, 0};
        Total.N += C->N;
      }
      return Total;
    }
    if (const auto *If = dyn_cast<IfStmt>(S)) {
      if (!plain(If->getInit()) || !plain(If->getCond()) ||
          (If->getConditionVariableDeclStmt() && !plain(If->getConditionVariableDeclStmt())))
        return std::nullopt;
      std::optional<AppendCount> Then = count(If->getThen()), Else = count(If->getElse());
      if (!Then || !Else)
        return std::nullopt;
      if (Then->Leaves)
        return Else;
      if (Else->Leaves)
        return Then;
      return Then->N == Else->N ? Then : std::nullopt;
    }
    if (isa<ReturnStmt>(S))
      return plain(S) ? std::optional<AppendCount>(AppendCount{true, 0}) : std::nullopt;
    if (isa<ContinueStmt, BreakStmt, GotoStmt, IndirectGotoStmt>(S))
      return std::nullopt; // Of the loop itself.
    // Anything else appends nowhere, or in one expression where nothing
    // decides whether it does.
    unsigned N = 0;
    if (!appendsIn(S, N, /*Nested=*/false, /*InSwitch=*/false, /*Decided=*/false))
      return std::nullopt;
    return AppendCount{false, N};
  }

private:
  /// No append and no escape in \p S.
  bool plain(const Stmt *S) {
    unsigned N = 0;
    return !S || (appendsIn(S, N, false, false, false) && N == 0);
  }

  /// Counts the appends in \p S into \p N; false where one is under a
  /// condition (\p Decided: inside a branch of an expression), in a nested
  /// loop, switch or lambda, or where a break or continue leaves the loop.
  bool appendsIn(const Stmt *S, unsigned &N, bool Nested, bool InSwitch, bool Decided) {
    if (!S)
      return true;
    if (const VarDecl *Seq = appendedSequence(S); Seq == &V) {
      if (Nested || InSwitch || Decided)
        return false;
      ++N;
    }
    if (isa<LambdaExpr>(S) || isa<GotoStmt, IndirectGotoStmt, StmtExpr>(S))
      return !isa<GotoStmt, IndirectGotoStmt>(S) && !mentions(S);
    if (isa<ContinueStmt>(S) && !Nested)
      return false;
    if (isa<BreakStmt>(S) && !Nested && !InSwitch)
      return false;
    bool ChildNested = Nested || isLoop(S);
    bool ChildInSwitch = InSwitch || isa<SwitchStmt>(S);
    bool ChildDecided = Decided || isa<ConditionalOperator, BinaryConditionalOperator>(S) ||
                        (isa<BinaryOperator>(S) && cast<BinaryOperator>(S)->isLogicalOp()) ||
                        isa<IfStmt, CXXTryStmt>(S);
    for (const Stmt *Child : S->children())
      if (!appendsIn(Child, N, ChildNested, ChildInSwitch, ChildDecided))
        return false;
    return true;
  }

  bool mentions(const Stmt *S) {
    if (!S)
      return false;
    if (const auto *DRE = dyn_cast<DeclRefExpr>(S); DRE && DRE->getDecl() == &V)
      return true;
    for (const Stmt *Child : S->children())
      if (mentions(Child))
        return true;
    return false;
  }

  const VarDecl &V;
};

} // namespace

/// Whether every mention of the sequence \p V in the body \p Body of its
/// function keeps each element at its index, with the loop \p F the only
/// place that appends to it (see the file comment); \p Api says which
/// member functions are the API's.
static bool elementsStayPut(const VarDecl &V, const ForStmt &F, const Stmt *Body,
                            llvm::function_ref<bool(const CXXMethodDecl *)> ApiMethod) {
  enum Where { Before, Inside, After } At = Before;
  bool Declared = false, Ok = true;
  unsigned Loops = 0, LoopsAtDecl = 0, Lambdas = 0;
  llvm::SmallVector<const Stmt *, 32> Parents;
  llvm::SmallPtrSet<const VarDecl *, 2> ElementRefs; // References bound to an element.
  // Each mention of a reference, and whether it is the object of a reading call.
  llvm::SmallVector<std::pair<const VarDecl *, bool>, 8> RefUses;

  // The parent of Parents[I] that is not a cast or a temporary's wrapper,
  // and the index below it.
  auto Above = [&](size_t I) -> std::pair<const Stmt *, size_t> {
    while (I > 0 && isa<ImplicitCastExpr, ParenExpr, MaterializeTemporaryExpr,
                        CXXBindTemporaryExpr, ExprWithCleanups>(Parents[I - 1]))
      --I;
    return {I > 0 ? Parents[I - 1] : nullptr, I - 1};
  };
  // Whether the object at Parents[I] (or \p Child) is only the object of a
  // const or API member function.
  auto ObjectOfReadingCall = [&](const Stmt *P, size_t I) {
    const auto *ME = dyn_cast_or_null<MemberExpr>(P);
    if (!ME || I == 0)
      return false;
    const auto *MC = dyn_cast<CXXMemberCallExpr>(Parents[I - 1]);
    const auto *MD = MC ? MC->getMethodDecl() : nullptr;
    return MD && MC->getCallee()->IgnoreParens() == ME && (MD->isConst() || ApiMethod(MD));
  };
  // An element read whose result sits at Parents[I]: it must not move.
  auto ElementStays = [&](size_t I) {
    auto [P, J] = Above(I);
    if (ObjectOfReadingCall(P, J))
      return true;
    if (const auto *Construct = dyn_cast_or_null<CXXConstructExpr>(P))
      return Construct->getConstructor()->isCopyConstructor();
    if (const auto *DS = dyn_cast_or_null<DeclStmt>(P))
      for (const Decl *D : DS->decls())
        if (const auto *Var = dyn_cast<VarDecl>(D);
            Var && Var->getInit() && Var->getType()->isLValueReferenceType() &&
            Var->getInit()->IgnoreParenImpCasts() == cast<Expr>(Parents[I])->IgnoreParenImpCasts()) {
          ElementRefs.insert(Var);
          return true;
        }
    return false;
  };
  auto Classify = [&](const DeclRefExpr *DRE) {
    Parents.push_back(DRE);
    auto [P, I] = Above(Parents.size() - 1);
    bool Accepted = false;
    if (Lambdas == 0 && P) {
      if (const auto *ME = dyn_cast<MemberExpr>(P); ME && I > 0) {
        const auto *MC = dyn_cast<CXXMemberCallExpr>(Parents[I - 1]);
        const CXXMethodDecl *MD = MC ? MC->getMethodDecl() : nullptr;
        llvm::StringRef Name = MD && MD->getIdentifier() ? MD->getName() : "";
        if (!MD || MC->getCallee()->IgnoreParens() != ME)
          Accepted = false;
        else if (Name == "push_back" || Name == "emplace_back")
          Accepted = At == Inside; // Counted by AppendCounter.
        else if (Name == "at" || Name == "back" || Name == "front")
          Accepted = ElementStays(I - 1);
        else if (Name == "reserve")
          Accepted = At == Before;
        else if (Name == "pop_back")
          Accepted = At == After;
        else
          Accepted = MD->isConst();
      } else if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(P);
                 Op && Op->getOperator() == OO_Subscript && Op->getNumArgs() == 2 &&
                 mentionOf(Op->getArg(0), V)) {
        Accepted = ElementStays(I);
      } else if (const auto *DS = dyn_cast<DeclStmt>(P); DS && DS->isSingleDecl()) {
        // A range-for's own reference to its range.
        const auto *Range = dyn_cast<VarDecl>(DS->getSingleDecl());
        Accepted = At == After && Range && Range->isImplicit();
      }
    }
    Parents.pop_back();
    Ok &= Accepted;
  };

  std::function<void(const Stmt *)> Walk = [&](const Stmt *S) {
    if (!S || !Ok)
      return;
    if (isa<GotoStmt, IndirectGotoStmt>(S)) {
      Ok = false;
      return;
    }
    if (const auto *DRE = dyn_cast<DeclRefExpr>(S)) {
      if (DRE->getDecl() == &V) {
        Classify(DRE);
      } else if (const auto *Var = dyn_cast<VarDecl>(DRE->getDecl());
                 Var && Var->getType()->isLValueReferenceType()) {
        // Judged once every reference bound to an element is known.
        Parents.push_back(DRE);
        auto [P, I] = Above(Parents.size() - 1);
        RefUses.push_back({Var, ObjectOfReadingCall(P, I)});
        Parents.pop_back();
      }
      return;
    }
    if (const auto *DS = dyn_cast<DeclStmt>(S))
      for (const Decl *D : DS->decls())
        if (D == &V) {
          Declared = true;
          LoopsAtDecl = Loops;
        }
    bool IsF = S == &F;
    if (IsF) {
      if (!Declared || Loops != LoopsAtDecl || Lambdas != 0) {
        Ok = false;
        return;
      }
      At = Inside;
    }
    bool Loop = isLoop(S);
    bool Lambda = isa<LambdaExpr>(S);
    Loops += Loop;
    Lambdas += Lambda;
    Parents.push_back(S);
    for (const Stmt *Child : S->children())
      Walk(Child);
    Parents.pop_back();
    Loops -= Loop;
    Lambdas -= Lambda;
    if (IsF)
      At = After;
  };
  Walk(Body);
  if (!Ok || At != After)
    return false;
  // A reference bound to an element is only the object of reading calls.
  return llvm::none_of(RefUses, [&](const std::pair<const VarDecl *, bool> &Use) {
    return !Use.second && ElementRefs.count(Use.first);
  });
}

const llvm::SmallVector<const VarDecl *, 1> &Analyzer::sequencesIndexedBy(const VarDecl *K) {
  auto [It, Inserted] = IndexedSequences.try_emplace(K);
  if (!Inserted)
    return It->second;
  const auto *Owner = dyn_cast<FunctionDecl>(K->getDeclContext());
  std::optional<int64_t> First = K->getInit() ? constantInt(K->getInit(), Ctx) : std::nullopt;
  if (!Owner || !Owner->getBody() || First != 0 || !K->getType()->isIntegerType())
    return It->second;
  const ForStmt *F = forLoopOf(K);
  if (!F || !loopLowerBound(K))
    return It->second; // It only grows, only read in the condition and body.
  const auto *Inc = F->getInc() ? dyn_cast<Expr>(F->getInc())->IgnoreParenImpCasts() : nullptr;
  bool ByOne = false;
  if (const auto *UO = dyn_cast_or_null<UnaryOperator>(Inc))
    ByOne = UO->isIncrementOp();
  else if (const auto *CA = dyn_cast_or_null<CompoundAssignOperator>(Inc))
    ByOne = constantInt(CA->getRHS(), Ctx) == 1;
  if (!ByOne)
    return It->second;
  // The sequences the body appends to.
  llvm::SmallVector<const VarDecl *, 2> Candidates;
  std::function<void(const Stmt *)> Appends = [&](const Stmt *S) {
    if (!S)
      return;
    if (const VarDecl *Seq = appendedSequence(S); Seq && !llvm::is_contained(Candidates, Seq))
      Candidates.push_back(Seq);
    for (const Stmt *Child : S->children())
      Appends(Child);
  };
  Appends(F->getBody());
  auto ApiMethod = [&](const CXXMethodDecl *MD) { return role(MD) != ApiRole::None; };
  llvm::SmallVector<const VarDecl *, 1> Found;
  for (const VarDecl *Seq : Candidates) {
    const auto *Init = Seq->getInit() ? dyn_cast<CXXConstructExpr>(Seq->getInit()->IgnoreImplicit())
                                      : nullptr;
    if (!sizeTracked(Seq) || !Init || Init->getNumArgs() != 0)
      continue;
    std::optional<AppendCount> Count = AppendCounter(*Seq).count(F->getBody());
    if (!Count || Count->Leaves || Count->N != 1 ||
        !elementsStayPut(*Seq, *F, Owner->getBody(), ApiMethod))
      continue;
    Found.push_back(Seq);
  }
  // The map may have grown (sizeTracked, role): find the entry again.
  return IndexedSequences[K] = std::move(Found);
}

std::optional<Fact> Analyzer::elementFact(Fact F, const VarDecl *K, const VarDecl *Seq) {
  const AtomInfo &Info = Atoms[F.Atom];
  const auto *BO = Info.Cond ? dyn_cast<BinaryOperator>(Info.Cond->IgnoreParenImpCasts()) : nullptr;
  if (!BO || (BO->getOpcode() != BO_EQ && BO->getOpcode() != BO_NE))
    return std::nullopt;
  const Expr *Other = mentionOf(BO->getLHS(), *K)   ? BO->getRHS()
                      : mentionOf(BO->getRHS(), *K) ? BO->getLHS()
                                                    : nullptr;
  llvm::SmallVector<const VarDecl *, 2> Vars;
  if (!Other || !collectAtomVars(Other, Vars) || llvm::is_contained(Vars, K))
    return std::nullopt;
  // The atom is `K == Other` where Equal holds.
  bool Equal = (BO->getOpcode() == BO_EQ) != Info.CondNegated;
  llvm::FoldingSetNodeID Profile;
  Profile.AddInteger(0xe1e);
  Profile.AddPointer(Seq);
  Other->IgnoreParenCasts()->Profile(Profile, Ctx, /*Canonical=*/true);
  auto [Id, New] = internAtom(Profile);
  if (New) {
    ElementAtomsMade = true;
    Atoms[Id].ElementOf = Seq;
    Atoms[Id].ElementEquals = Other;
    for (const VarDecl *VD : Vars) { // A write of them forgets it.
      Atoms[Id].Vars.push_back(VD);
      AtomsByVar[VD].push_back(Id);
    }
  }
  return Fact{Id, F.Holds == Equal};
}

void Analyzer::indexElementAtoms(const VarDecl *K, State &S) {
  llvm::SmallVector<const VarDecl *, 1> Sequences = sequencesIndexedBy(K);
  if (Sequences.empty())
    return;
  auto ById = AtomsByVar.find(K);
  if (ById == AtomsByVar.end())
    return;
  llvm::SmallVector<AtomId, 4> Ids(ById->second.begin(), ById->second.end());
  for (const VarDecl *Seq : Sequences)
    for (AtomId Id : Ids) {
      std::optional<Fact> Element = elementFact(Fact{Id, true}, K, Seq);
      if (!Element)
        continue;
      auto [First, Last] = S.cellsBelow(Location::variable(Seq));
      for (auto C = First; C != Last; ++C)
        if (C->first.Path.Depth >= 1 && C->first.Path.Steps[0].K == PathStep::Element)
          C->second.Values.translateAtom(Id, Element->Atom, /*Flip=*/!Element->Holds);
    }
}

ValueSet Analyzer::atElementIndex(const Expr *Read, ValueSet Values, const State &S) {
  if (Values.empty() || !ElementAtomsMade)
    return Values;
  // A reference bound to `seq[q]` where q has the value it had there: one
  // the function never writes, or the counter of a loop that only reads it
  // whose body declares the reference (bound again in each iteration).
  if (const auto *DRE = dyn_cast<DeclRefExpr>(Read->IgnoreParenImpCasts())) {
    const auto *Ref = dyn_cast<VarDecl>(DRE->getDecl());
    if (!Ref || !Ref->getType()->isLValueReferenceType() || !Ref->hasLocalStorage() ||
        !Ref->getInit() || !Function)
      return Values;
    Read = stripWrappers(Ref->getInit());
    const Expr *Index = nullptr;
    if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(Read);
        Op && Op->getOperator() == OO_Subscript && Op->getNumArgs() == 2)
      Index = Op->getArg(1);
    else if (const auto *MC = dyn_cast<CXXMemberCallExpr>(Read); MC && MC->getNumArgs() == 1)
      Index = MC->getArg(0);
    const auto *IndexRef = Index ? dyn_cast<DeclRefExpr>(Index->IgnoreParenImpCasts()) : nullptr;
    const auto *K = IndexRef ? dyn_cast<VarDecl>(IndexRef->getDecl()) : nullptr;
    if (!K)
      return Values;
    const UnwrittenVariables &Vars = AnalysisCache::current().variables(*Function, Api);
    bool Kept = Vars.unwritten(K);
    if (!Kept && loopLowerBound(K))
      if (const ForStmt *F = forLoopOf(K); F && F->getBody()) {
        const SourceManager &SM = Ctx.getSourceManager();
        SourceRange Body = F->getBody()->getSourceRange();
        SourceLocation At = Ref->getLocation();
        Kept = !At.isMacroID() && SM.isBeforeInTranslationUnit(Body.getBegin(), At) &&
               SM.isBeforeInTranslationUnit(At, Body.getEnd());
      }
    if (!Kept)
      return Values;
  }
  // `seq[q]` or `seq.at(q)` of a variable.
  const Expr *Object = nullptr, *Index = nullptr;
  if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(Read);
      Op && Op->getOperator() == OO_Subscript && Op->getNumArgs() == 2) {
    Object = Op->getArg(0);
    Index = Op->getArg(1);
  } else if (const auto *MC = dyn_cast<CXXMemberCallExpr>(Read);
             MC && MC->getNumArgs() == 1 && MC->getMethodDecl()->getIdentifier() &&
             MC->getMethodDecl()->getName() == "at") {
    Object = MC->getImplicitObjectArgument();
    Index = MC->getArg(0);
  }
  const auto *DRE = Object ? dyn_cast<DeclRefExpr>(Object->IgnoreParenImpCasts()) : nullptr;
  const auto *Seq = DRE ? dyn_cast<VarDecl>(DRE->getDecl()) : nullptr;
  if (!Seq)
    return Values;
  llvm::SmallVector<AtomId, 4> Elements;
  for (const Value &V : Values.values())
    for (const Fact &F : V.Assumed)
      if (Atoms[F.Atom].ElementOf == Seq && !llvm::is_contained(Elements, F.Atom))
        Elements.push_back(F.Atom);
  for (AtomId Id : Elements) {
    // Two constants (`v[1]` of an element appended where p == 0): decided.
    std::optional<int64_t> I = constantInt(Index, Ctx),
                           E = constantInt(Atoms[Id].ElementEquals, Ctx);
    if (I && E) {
      Values.restrict(Fact{Id, *I == *E});
      continue;
    }
    bool Positive = true;
    std::optional<AtomId> At = equalityAtom(Index, Atoms[Id].ElementEquals, Positive);
    if (!At)
      continue;
    Values.translateAtom(Id, *At, /*Flip=*/!Positive);
    if (std::optional<bool> Known = S.Facts.lookup(*At))
      Values.restrict(Fact{*At, *Known});
  }
  return Values;
}

} // namespace dmalint
