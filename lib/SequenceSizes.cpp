//===- SequenceSizes.cpp - How many elements a local vector holds ---------===//
//
// A std::vector or std::deque keeps constant indices apart when it is built
// from a braced list; what push_back adds later went to the summary of its
// elements, which every constant index also reads. So `std::vector<D> v;
// v.push_back(remote); v.push_back(local); v[0].wait_send();` read both
// copies at v[0], a false finding. Where the number of elements is known,
// push_back appends at that index instead.
//
// It is known for a local sequence built empty or from a braced list whose
// every mention in its function is one whose effect on the size the model
// follows: push_back, emplace_back, pop_back and clear, element and iterator
// accesses, const member functions, a range-for. Any other mention (handed
// to a call, bound to a reference, copied, captured by a lambda, any other
// member function) may resize it where the model does not see, and then its
// size is never tracked. The count is a mark below the variable
// (PathStep::Size): states that disagree on it join into two marks, which is
// unknown, and a write the model does not follow into the summary of the
// elements makes it unknown too.
//
//===----------------------------------------------------------------------===//
#include "Analyzer.h"
#include "llvm/ADT/SmallPtrSet.h"

using namespace clang;

namespace dmalint {

namespace {

/// Every mention of \p VD in \p Body is one whose effect on its size the
/// model follows (see the file comment).
bool sizeFollowedEverywhere(const VarDecl &VD, const Stmt *Body) {
  auto Mention = [&](const Expr *E) -> const DeclRefExpr * {
    const auto *DRE = E ? dyn_cast<DeclRefExpr>(E->IgnoreParenImpCasts()) : nullptr;
    return DRE && DRE->getDecl() == &VD ? DRE : nullptr;
  };
  // Mentions their parent has accepted; a parent is met before its children.
  llvm::SmallPtrSet<const DeclRefExpr *, 8> Accepted;
  llvm::SmallVector<const Stmt *, 32> Work{Body};
  while (!Work.empty()) {
    const Stmt *S = Work.pop_back_val();
    if (!S)
      continue;
    if (const auto *MC = dyn_cast<CXXMemberCallExpr>(S)) {
      const CXXMethodDecl *MD = MC->getMethodDecl();
      if (const DeclRefExpr *DRE = Mention(MC->getImplicitObjectArgument());
          DRE && MD &&
          (MD->isConst() ||
           (MD->getIdentifier() &&
            llvm::is_contained({"push_back", "emplace_back", "pop_back", "clear", "at", "front",
                                "back", "begin", "end", "rbegin", "rend", "data", "reserve"},
                               MD->getName()))))
        Accepted.insert(DRE);
    } else if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(S)) {
      if (Op->getOperator() == OO_Subscript && Op->getNumArgs() == 2)
        if (const DeclRefExpr *DRE = Mention(Op->getArg(0)))
          Accepted.insert(DRE);
    } else if (const auto *DS = dyn_cast<DeclStmt>(S)) {
      // A range-for's own reference to its range.
      for (const Decl *D : DS->decls())
        if (const auto *Range = dyn_cast<VarDecl>(D); Range && Range->isImplicit())
          if (const DeclRefExpr *DRE = Mention(Range->getInit()))
            Accepted.insert(DRE);
    } else if (const auto *DRE = dyn_cast<DeclRefExpr>(S)) {
      if (DRE->getDecl() == &VD && !Accepted.contains(DRE))
        return false;
    }
    for (const Stmt *Child : S->children())
      Work.push_back(Child);
  }
  return true;
}

} // namespace

bool Analyzer::sizeTracked(const VarDecl *VD) {
  if (auto It = SizeTracked.find(VD); It != SizeTracked.end())
    return It->second;
  bool Tracked = false;
  if (VD->hasLocalStorage() && !isa<ParmVarDecl>(VD) && !VD->getType()->isReferenceType() &&
      Types.shapeOf(VD->getType()).Kind == Shape::Sequence)
    if (const auto *FD = dyn_cast_or_null<FunctionDecl>(VD->getParentFunctionOrMethod()))
      if (const Stmt *Body = FD->getBody())
        Tracked = sizeFollowedEverywhere(*VD, Body);
  SizeTracked[VD] = Tracked;
  return Tracked;
}

std::optional<unsigned> Analyzer::knownSize(const Location &Container, const State &S) {
  const VarDecl *VD = Container.variable();
  if (!VD || Container.Path.Depth != 0 || !sizeTracked(VD))
    return std::nullopt;
  std::optional<unsigned> Size;
  for (auto It = S.Cells.lower_bound(Container);
       It != S.Cells.end() && It->first.Kind == Container.Kind && It->first.Root == Container.Root;
       ++It) {
    if (It->first.Path.Depth == 0)
      continue;
    const PathStep &First = It->first.Path.Steps[0];
    if (First.K == PathStep::Size) {
      if (Size)
        return std::nullopt; // Paths that disagree.
      Size = unsigned(First.Index);
    } else if (First.K == PathStep::Element && First.Index == PathStep::Summary &&
               (!It->second.Values.empty() || !It->second.Targets.empty())) {
      return std::nullopt; // Added where the model does not know the index.
    }
  }
  return Size;
}

void Analyzer::setSize(const Location &Container, std::optional<unsigned> Count, State &S) {
  const VarDecl *VD = Container.variable();
  if (!VD || Container.Path.Depth != 0 || !sizeTracked(VD))
    return;
  auto [First, Last] = S.cellsBelow(Container);
  for (auto It = First; It != Last;)
    It = It->first.Path.Depth > 0 && It->first.Path.Steps[0].K == PathStep::Size
             ? S.Cells.erase(It)
             : std::next(It);
  if (Count && *Count <= unsigned(MaxTrackedIndex))
    S.Cells[Container.child(PathStep::size(*Count))];
}

} // namespace dmalint
