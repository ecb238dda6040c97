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
// size is never tracked; a lambda that captures it counts only where the
// analysis runs it at each of its calls (held in a local that is only
// called, or called where it is written). The count is a mark below the variable
// (PathStep::Size): states that disagree on it join into two marks, which is
// unknown, and a write the model does not follow into the summary of the
// elements makes it unknown too.
//
// Where the size is not known (a loop appends one element per iteration),
// the element appended last still is: `cps.push_back(p == me ? local :
// remote); ... if (p != me) cps.back().wait_send();` reads the copy this
// iteration pushed, not every copy any iteration did. push_back and
// emplace_back of such a sequence write the new element into the summary
// and into a second view of it (PathStep::Last), which back() reads. The
// view holds descriptors only (no flags), and it goes wherever which
// element is last, or what it holds, may change: any write below another
// element (an index, an iterator, a range-for, an algorithm), any other
// non-const member function (pop_back, clear, insert, erase, ...), and a
// join where one side has no view. A write through back() itself is one
// into the summary (the view goes). A pointer, a reference or a lambda
// parameter bound to back() designates every element instead, so that a
// later push_back does not move it.
//
//===----------------------------------------------------------------------===//
#include "Analyzer.h"
#include "dmalint/AstUtil.h"
#include "ScopeExit.h"
#include "llvm/ADT/SmallPtrSet.h"

using namespace clang;

namespace dmalint {

namespace {

/// Every mention of \p VD in \p Body is one whose effect on its size the
/// model follows (see the file comment). A lambda may capture it where the
/// analysis runs the lambda at each of its calls: one called where it is
/// written (`[&] { ... }()`), or one held in a local that is only ever
/// called (`auto issue = [&](int i) { v.push_back(...); }; issue(0);`).
bool sizeFollowedEverywhere(const VarDecl &VD, const Stmt *Body) {
  auto Mention = [&](const Expr *E) -> const DeclRefExpr * {
    const auto *DRE = E ? dyn_cast<DeclRefExpr>(E->IgnoreParenImpCasts()) : nullptr;
    return DRE && DRE->getDecl() == &VD ? DRE : nullptr;
  };
  // Mentions their parent has accepted; a parent is met before its children.
  llvm::SmallPtrSet<const DeclRefExpr *, 8> Accepted;
  // Lambdas held in a local, lambdas called where they are written, the
  // holders of lambdas that capture VD, and the calls of any local.
  llvm::DenseMap<const LambdaExpr *, const VarDecl *> HeldBy;
  llvm::SmallPtrSet<const LambdaExpr *, 2> CalledInPlace;
  llvm::SmallPtrSet<const VarDecl *, 2> Holders;
  llvm::SmallPtrSet<const DeclRefExpr *, 8> Called;
  llvm::SmallVector<const DeclRefExpr *, 8> HolderMentions;
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
      if (Op->getOperator() == OO_Call && Op->getNumArgs() >= 1) {
        const Expr *Callee = Op->getArg(0)->IgnoreParenImpCasts();
        if (const auto *DRE = dyn_cast<DeclRefExpr>(Callee))
          Called.insert(DRE);
        else if (const auto *Lambda = dyn_cast<LambdaExpr>(stripWrappers(Callee)))
          CalledInPlace.insert(Lambda);
      }
    } else if (const auto *DS = dyn_cast<DeclStmt>(S)) {
      for (const Decl *D : DS->decls()) {
        const auto *Var = dyn_cast<VarDecl>(D);
        if (!Var || !Var->getInit())
          continue;
        // A range-for's own reference to its range.
        if (Var->isImplicit())
          if (const DeclRefExpr *DRE = Mention(Var->getInit()))
            Accepted.insert(DRE);
        if (const auto *Lambda = dyn_cast<LambdaExpr>(stripWrappers(Var->getInit()));
            Lambda && Var->hasLocalStorage() && !Var->getType()->isReferenceType())
          HeldBy[Lambda] = Var;
      }
    } else if (const auto *Lambda = dyn_cast<LambdaExpr>(S)) {
      const VarDecl *Holder = HeldBy.lookup(Lambda);
      if (Holder || CalledInPlace.contains(Lambda))
        for (const Expr *Init : Lambda->capture_inits())
          if (const DeclRefExpr *DRE = Mention(Init)) {
            Accepted.insert(DRE);
            if (Holder)
              Holders.insert(Holder);
          }
    } else if (const auto *DRE = dyn_cast<DeclRefExpr>(S)) {
      if (DRE->getDecl() == &VD && !Accepted.contains(DRE))
        return false;
      if (const auto *Var = dyn_cast<VarDecl>(DRE->getDecl()); Var && Var->getInit() &&
          isa<LambdaExpr>(stripWrappers(Var->getInit())))
        HolderMentions.push_back(DRE);
    }
    for (const Stmt *Child : S->children())
      Work.push_back(Child);
  }
  // A holder of a lambda that captures VD is only ever called: handed on, it
  // could run where the analysis does not see.
  return llvm::all_of(HolderMentions, [&](const DeclRefExpr *DRE) {
    return !Holders.contains(cast<VarDecl>(DRE->getDecl())) || Called.contains(DRE);
  });
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

std::optional<Location> Analyzer::lastElement(const Location &Container, const State &S) {
  // Only a sequence whose every mention the model follows keeps a view
  // that nothing unseen moves (a copy of one returned by a call may hold
  // the callee's).
  if (!LastsKept || Container.Kind != Location::Variable || Container.Path.Depth != 0 ||
      !sizeTracked(Container.variable()))
    return std::nullopt;
  Location Last = Container.child(PathStep::element(PathStep::Last));
  auto It = S.Cells.lower_bound(Last);
  if (It == S.Cells.end() || !Last.isPrefixOf(It->first))
    return std::nullopt;
  return Last;
}

void Analyzer::appendLast(const Location &Container, QualType ElementType,
                          llvm::ArrayRef<const Expr *> Args, const Expr *Site, State &S,
                          bool Report, unsigned Depth) {
  Location Last = Container.child(PathStep::element(PathStep::Last));
  setSize(Container, std::nullopt, S);
  dropLast(Container, S);
  bool Outer = WritingLast;
  WritingLast = true;
  auto Restore = onScopeExit([&] { WritingLast = Outer; });
  // An empty element, which what is added then fills (insertInto adds to
  // what its slot holds), then copied into the summary as insertInto
  // would have added it there.
  materialize(Last, ElementType, S, [](const TypeModel::Leaf &, Cell &C) { C.Targets.clear(); });
  insertInto({Last}, ElementType, Args, Site, S, Report, Depth);
  copyObject({Last}, Container.child(PathStep::element(PathStep::Summary)), S, Update::Weak);
  withoutFlags(Last, S);
  LastsKept = true;
}

void Analyzer::keepLast(const Location &Container, const Location &Appended, State &S) {
  Location Last = Container.child(PathStep::element(PathStep::Last));
  dropLast(Container, S);
  replaceBelow(Last, S, Appended);
  withoutFlags(Last, S);
  LastsKept = true;
}

void Analyzer::withoutFlags(const Location &Last, State &S) {
  auto [First, End] = S.cellsBelow(Last);
  for (auto It = First; It != End;)
    It = It->second.Flag ? S.Cells.erase(It) : std::next(It);
}

void Analyzer::dropLast(const Location &Container, State &S) {
  Location Last = Container.child(PathStep::element(PathStep::Last));
  eraseBelow(Last, S);
  for (auto It = S.Guards.begin(); It != S.Guards.end();)
    It = llvm::any_of(It->second.Subjects,
                      [&](const Location &G) { return Last.isPrefixOf(G); })
             ? S.Guards.erase(It)
             : std::next(It);
}

LocationList Analyzer::beforeElementWrite(const LocationList &Locs, State &S) {
  if (!LastsKept || WritingLast)
    return Locs;
  LocationList Written;
  for (const Location &L : Locs) {
    if (L.Kind != Location::Variable || L.Path.Depth == 0 ||
        L.Path.Steps[0].K != PathStep::Element) {
      addLocation(Written, L);
      continue;
    }
    dropLast(Location::variable(L.variable()), S);
    Location Every = L;
    if (Every.Path.Steps[0].isLastElement())
      Every.Path.Steps[0].Index = PathStep::Any;
    addLocation(Written, Every);
  }
  return Written;
}

LocationList Analyzer::withoutLast(LocationList Locs) const {
  if (LastsKept)
    for (Location &L : Locs)
      if (L.Path.Depth > 0 && L.Path.Steps[0].isLastElement())
        L.Path.Steps[0].Index = PathStep::Any;
  return Locs;
}

} // namespace dmalint
