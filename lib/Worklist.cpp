//===- Worklist.cpp - The component-ordered fixed point and its work bound ===//
#include "Analyzer.h"
#include "ScopeExit.h"
#include "dmalint/Arguments.h"
#include "dmalint/AstUtil.h"
#include "llvm/Support/raw_ostream.h"
#include <algorithm>
#include <cstdlib>
#include <queue>

using namespace clang;

namespace dmalint {

/// Blocks reachable from the entry, in reverse post-order. (LLVM's
/// traversal would visit the null successors that CFG pruning leaves for
/// constant conditions such as `do { } while (0)`.)
///
/// The depth-first search takes a block's successors last to first. A loop
/// head's successors are its body, then its exit: searched in that order, the
/// code after the loop would finish last and come first in the order, before
/// the body, and the fixed point would visit it with the state of the first
/// iteration only, then again once the body has run. Searched exit first,
/// the body comes first and the code after the loop is visited once the
/// loop has settled.
std::vector<const CFGBlock *> reversePostOrder(const CFG &G) {
  std::vector<const CFGBlock *> PostOrder;
  std::vector<bool> Seen(G.getNumBlockIDs(), false);
  // A block and how many of its successors are still to search.
  std::vector<std::pair<const CFGBlock *, unsigned>> Stack;
  Stack.push_back({&G.getEntry(), G.getEntry().succ_size()});
  Seen[G.getEntry().getBlockID()] = true;
  while (!Stack.empty()) {
    auto &[Block, Left] = Stack.back();
    if (Left == 0) {
      PostOrder.push_back(Block);
      Stack.pop_back();
      continue;
    }
    --Left;
    const CFGBlock *Succ = (Block->succ_begin() + Left)->getReachableBlock();
    if (Succ && !Seen[Succ->getBlockID()]) {
      Seen[Succ->getBlockID()] = true;
      Stack.push_back({Succ, Succ->succ_size()});
    }
  }
  return std::vector<const CFGBlock *>(PostOrder.rbegin(), PostOrder.rend());
}

ComponentOrder componentOrder(const CFG &G) {
  std::vector<const CFGBlock *> RPO = reversePostOrder(G);
  std::vector<unsigned> RPOIndex(G.getNumBlockIDs(), 0);
  for (unsigned I = 0; I < RPO.size(); ++I)
    RPOIndex[RPO[I]->getBlockID()] = I;
  // Tarjan's algorithm, iterative (a CFG can have 100,000 blocks): it
  // completes the components in reverse topological order.
  constexpr unsigned Unvisited = ~0u;
  std::vector<unsigned> Index(G.getNumBlockIDs(), Unvisited), Low(G.getNumBlockIDs(), 0);
  std::vector<bool> OnStack(G.getNumBlockIDs(), false);
  std::vector<const CFGBlock *> Stack;
  // The completed components, one after another, and where each ends.
  std::vector<const CFGBlock *> Completed;
  std::vector<unsigned> ComponentEnd;
  Completed.reserve(RPO.size());
  std::vector<std::pair<const CFGBlock *, CFGBlock::const_succ_iterator>> Calls;
  unsigned Next = 0;
  auto Enter = [&](const CFGBlock *B) {
    Index[B->getBlockID()] = Low[B->getBlockID()] = Next++;
    Stack.push_back(B);
    OnStack[B->getBlockID()] = true;
    Calls.push_back({B, B->succ_begin()});
  };
  Enter(&G.getEntry());
  while (!Calls.empty()) {
    auto &[B, It] = Calls.back();
    unsigned ID = B->getBlockID();
    if (It != B->succ_end()) {
      const CFGBlock *Succ = It->getReachableBlock();
      ++It;
      if (!Succ)
        continue;
      unsigned SuccID = Succ->getBlockID();
      if (Index[SuccID] == Unvisited)
        Enter(Succ); // Invalidates B and It.
      else if (OnStack[SuccID])
        Low[ID] = std::min(Low[ID], Index[SuccID]);
      continue;
    }
    if (Low[ID] == Index[ID]) {
      size_t First = Completed.size();
      const CFGBlock *Member;
      do {
        Member = Stack.back();
        Stack.pop_back();
        OnStack[Member->getBlockID()] = false;
        Completed.push_back(Member);
      } while (Member != B);
      std::sort(Completed.begin() + First, Completed.end(),
                [&](const CFGBlock *X, const CFGBlock *Y) {
                  return RPOIndex[X->getBlockID()] < RPOIndex[Y->getBlockID()];
                });
      ComponentEnd.push_back(Completed.size());
    }
    const CFGBlock *Finished = B;
    Calls.pop_back();
    if (!Calls.empty()) {
      unsigned Parent = Calls.back().first->getBlockID();
      Low[Parent] = std::min(Low[Parent], Low[Finished->getBlockID()]);
    }
  }
  ComponentOrder Order;
  Order.Blocks.reserve(RPO.size());
  Order.ComponentStart.reserve(RPO.size());
  for (size_t C = ComponentEnd.size(); C-- > 0;) {
    unsigned Start = Order.Blocks.size();
    for (size_t I = C == 0 ? 0 : ComponentEnd[C - 1]; I < ComponentEnd[C]; ++I) {
      Order.Blocks.push_back(Completed[I]);
      Order.ComponentStart.push_back(Start);
    }
  }
  return Order;
}

namespace {

/// The expression whose value picks the successor of \p B.
const Expr *branchCondition(const CFGBlock &B) {
  const Stmt *Term = B.getTerminatorStmt();
  if (!Term)
    return nullptr;
  const Expr *Cond = nullptr;
  if (const auto *BO = dyn_cast<BinaryOperator>(Term); BO && BO->isLogicalOp())
    Cond = BO->getLHS();
  else
    Cond = dyn_cast_or_null<Expr>(
        const_cast<CFGBlock &>(B).getTerminatorCondition(/*StripParens=*/true));
  // In the block that evaluates the right operand of && or ||, the branch
  // is taken on that operand.
  while (Cond) {
    const auto *BO = dyn_cast<BinaryOperator>(Cond->IgnoreParenImpCasts());
    if (!BO || !BO->isLogicalOp())
      break;
    Cond = BO->getRHS();
  }
  return Cond;
}

/// What one edge of a branch says of one operand of its condition.
struct OperandGuard {
  Guard G;
  unsigned Edge; ///< 0: where the condition is true; 1: where it is false.
  bool Holds;    ///< The operand's value on that edge.
};

/// The operands of a logical operator that a branch on \p Cond decides:
/// `a && b` makes both true where it is true, `a || b` both false where it
/// is false; with one operand a constant that cannot decide it
/// (`d.is_remote() && "message"`), the other decides both edges. The CFG
/// splits a logical operator that is the condition itself (and
/// branchCondition takes its right operand); this is for one under a cast or
/// a negation, which the CFG evaluates as a value: `assert(c && "message")`
/// expands to `static_cast<bool>(c && "message") ? void(0) : __assert_fail(...)`.
void decidedOperands(Analyzer &A, const Expr *Cond, const State &S,
                     llvm::SmallVectorImpl<OperandGuard> &Out) {
  bool Positive = true;
  const Expr *Tested = A.testedCondition(Cond, Positive);
  // `if (send)` of `bool send = d.is_remote() && far;`: as the operator.
  if (const Expr *Kept = A.keptLogical(Tested))
    Tested = Kept;
  const auto *BO = dyn_cast<BinaryOperator>(Tested);
  const bool Negated = !Positive;
  if (!BO || !BO->isLogicalOp())
    return;
  // Where the operator's value is Decisive (true for &&, false for ||),
  // each operand has that value too.
  const bool Decisive = BO->getOpcode() == BO_LAnd;
  const unsigned Edge = Decisive != Negated ? 0 : 1;
  const Expr *Operands[2] = {BO->getLHS(), BO->getRHS()};
  std::optional<bool> Constant[2] = {A.constantCondition(Operands[0]),
                                     A.constantCondition(Operands[1])};
  for (unsigned I = 0; I < 2; ++I) {
    if (Constant[I])
      continue;
    Guard G = A.classify(Operands[I], S);
    if (G.empty())
      continue;
    Out.push_back({G, Edge, Decisive});
    // The other operand is the neutral constant: this one is the value.
    if (Constant[1 - I] && *Constant[1 - I] == Decisive)
      Out.push_back({std::move(G), 1 - Edge, !Decisive});
  }
}

/// Hands \p S (consumed) to each successor of \p B, refined by the branch
/// condition: the last edge takes it without a copy.
template <typename Fn> void propagate(Analyzer &A, const CFGBlock &B, State &&S, Fn Emit) {
  if (B.hasNoReturnElement())
    return;
  // A two-way branch (not a switch: its edges are cases, not true and false).
  const Expr *Cond = nullptr;
  if (B.succ_size() == 2 && !isa_and_nonnull<SwitchStmt>(B.getTerminatorStmt()))
    Cond = branchCondition(B);
  // clang prunes the edges its CFG builder can evaluate; what it leaves of
  // a constant condition is dead all the same.
  std::optional<bool> Constant = Cond ? A.constantCondition(Cond) : std::nullopt;
  if (Cond && !Constant)
    Constant = A.boundCondition(Cond);
  Guard G = Cond && !Constant ? A.classify(Cond, S) : Guard();
  llvm::SmallVector<OperandGuard, 2> Operands;
  if (Cond && !Constant)
    decidedOperands(A, Cond, S, Operands);
  auto Taken = [&](unsigned Edge) {
    const CFGBlock::AdjacentBlock &Succ = *(B.succ_begin() + Edge);
    return Succ.getReachableBlock() && !(Constant && *Constant != (Edge == 0));
  };
  unsigned Last = B.succ_size();
  while (Last > 0 && !Taken(Last - 1))
    --Last;
  // A switch on an integer or enum parameter: each case's edge knows the
  // parameter's value, the default edge that it is none of the cases'.
  const auto *Switch = dyn_cast_or_null<SwitchStmt>(B.getTerminatorStmt());
  const ParmVarDecl *SwitchParam = Switch ? switchedParameter(*Switch) : nullptr;
  // A switch on a flag (`switch (i.kind)`): each case's edge narrows what
  // the flag is read through as `i.kind == case` would (Flags.cpp).
  const Expr *SwitchFlag = Switch && !SwitchParam && !Switch->getInit() &&
                                   !Switch->getConditionVariable() && Switch->getCond() &&
                                   flagField(Switch->getCond())
                               ? Switch->getCond()->IgnoreParenImpCasts()
                               : nullptr;
  // The label \p Edge leads to when it is one of this switch's own cases
  // (not a label nested in another switch the edge happens to reach).
  auto EdgeCase = [&](unsigned Edge) -> const CaseStmt * {
    const CFGBlock *Succ = (B.succ_begin() + Edge)->getReachableBlock();
    const auto *Label = Succ ? dyn_cast_or_null<CaseStmt>(Succ->getLabel()) : nullptr;
    for (const SwitchCase *SC = Switch->getSwitchCaseList(); SC && Label; SC = SC->getNextSwitchCase())
      if (SC == Label)
        return Label;
    return nullptr;
  };
  // Whether \p Edge is the default edge (the last), which no case takes.
  auto DefaultEdge = [&](unsigned Edge) { return Edge + 1 == B.succ_size(); };
  auto RefineCase = [&](unsigned Edge, State &T) {
    auto Refine = [&](int64_t Value, bool Holds) {
      if (SwitchFlag) {
        Guard Is;
        Is.Flag = SwitchFlag;
        Is.FlagEquals = flagConstant(Value);
        A.refine(T, Is, Holds);
        return;
      }
      if (std::optional<AtomId> Atom = A.paramValueAtom(SwitchParam, Value)) {
        Guard Is;
        Is.Atom = Atom;
        A.refine(T, Is, Holds);
      }
    };
    if (const CaseStmt *Case = EdgeCase(Edge)) {
      if (std::optional<int64_t> V = caseValue(*Case, A.context()))
        Refine(*V, /*Holds=*/true);
      return;
    }
    if (!DefaultEdge(Edge))
      return;
    for (const SwitchCase *SC = Switch->getSwitchCaseList(); SC && T.Reachable;
         SC = SC->getNextSwitchCase())
      if (std::optional<int64_t> V = caseValue(*SC, A.context()))
        Refine(*V, /*Holds=*/false);
  };
  // A switch on a lambda parameter the call binds to a constant: only its
  // case's edge (or the default one) runs.
  std::optional<int64_t> Bound = SwitchParam ? A.boundParameter(SwitchParam) : std::nullopt;
  auto CaseTaken = [&](unsigned Edge) {
    if (!Bound)
      return true;
    if (const CaseStmt *Case = EdgeCase(Edge)) {
      std::optional<int64_t> V = caseValue(*Case, A.context());
      return !V || *V == *Bound;
    }
    if (!DefaultEdge(Edge))
      return true; // Not a case edge nor the default: it cannot tell.
    for (const SwitchCase *SC = Switch->getSwitchCaseList(); SC; SC = SC->getNextSwitchCase()) {
      std::optional<int64_t> V = caseValue(*SC, A.context());
      if (V && *V == *Bound)
        return false; // A case takes it.
    }
    return true;
  };
  for (unsigned Edge = 0; Edge < Last; ++Edge) {
    if (!Taken(Edge) || !CaseTaken(Edge))
      continue;
    State T = Edge + 1 == Last ? std::move(S) : S;
    if (SwitchParam || SwitchFlag)
      RefineCase(Edge, T);
    if (!G.empty())
      A.refine(T, G, /*Holds=*/Edge == 0);
    for (const OperandGuard &O : Operands)
      if (O.Edge == Edge && T.Reachable)
        A.refine(T, O.G, O.Holds);
    // After the branch: its condition may be what makes an edge unreachable.
    A.dropDeadLocals(B, T);
    if (T.Reachable)
      Emit((B.succ_begin() + Edge)->getReachableBlock(), std::move(T));
  }
}

} // namespace

/// Runs to a fixed point from \p Entry; with \p Report, records the uses in
/// a sweep over the converged states. Returns the state at exit.
///
/// Blocks are visited in an order where each strongly connected component
/// (a loop, or a single block) is contiguous and comes after every
/// component that can reach it. With the lowest position first, a
/// component is done once a later one is reached: its states are final, so
/// its uses are recorded and its states freed then. A function's peak is
/// then the states of one loop, not one state per block of the function.
State Analyzer::runCFG(const CFG &G, State Entry, bool Report, unsigned Depth) {
  const ComponentOrder &Order = Cfgs.of(G)->Order;
  const std::vector<const CFGBlock *> &ByOrder = Order.Blocks;
  // Every reachable block is visited at least once: a CFG with more blocks
  // than the budget has left cannot finish, so give up before storing a
  // state per block.
  if (Out.Steps + ByOrder.size() > Limits.MaxBlockVisits) {
    Out.HitWorkLimit = true;
    return State();
  }
  std::vector<unsigned> Position(G.getNumBlockIDs(), 0);
  for (unsigned I = 0; I < ByOrder.size(); ++I)
    Position[ByOrder[I]->getBlockID()] = I;
  const unsigned ExitID = G.getExit().getBlockID();
  // By block ID; a pointer each, as most blocks hold no state at a time.
  std::vector<std::unique_ptr<State>> In(G.getNumBlockIDs());
  auto Store = [&](std::unique_ptr<State> &Slot, State S) {
    Out.PeakStoredStates = std::max(Out.PeakStoredStates, ++StoredStates);
    Slot = std::make_unique<State>(std::move(S));
  };
  // However this run ends, its states are gone after it.
  auto Release = onScopeExit(
      [&, Before = StoredStates] { StoredStates = Before; });
  Store(In[G.getEntry().getBlockID()], std::move(Entry));
  std::priority_queue<unsigned, std::vector<unsigned>, std::greater<unsigned>> Queue;
  std::vector<bool> Queued(ByOrder.size(), false);
  Queue.push(0);
  Queued[0] = true;

  // For developers: the converged state at the start of each block.
  auto DebugState = [this](const CFGBlock &B, const State &S) {
    static const bool Debug = std::getenv("DMALINT_DEBUG_STATES") != nullptr;
    if (!Debug)
      return;
    llvm::errs() << "B" << B.getBlockID() << ":";
    // The facts the path knows, each atom with the condition it stands for.
    for (const Fact &F : S.Facts) {
      llvm::errs() << " " << (F.Holds ? "" : "!") << "a" << F.Atom;
      if (F.Atom < Atoms.size() && Atoms[F.Atom].Cond) {
        llvm::errs() << "(";
        Atoms[F.Atom].Cond->printPretty(llvm::errs(), nullptr, Ctx.getPrintingPolicy());
        llvm::errs() << ")";
      }
    }
    llvm::errs() << " |";
    for (auto &[L, C] : S.Cells) {
      llvm::errs() << " " << L.str() << "={";
      for (const Value &V : C.Values.values())
      {
        llvm::errs() << V.Origin;
        for (const Fact &F : V.Assumed) // The atoms it assumes, `!` where one fails.
          llvm::errs() << (&F == V.Assumed.begin() ? "?" : "&") << (F.Holds ? "" : "!")
                       << "a" << F.Atom;
        llvm::errs() << ",";
      }
      for (const Location &T : C.Targets)
        llvm::errs() << "->" << T.str() << ",";
      if (C.Flag == FlagIsRemote)
        llvm::errs() << "is_remote";
      else if (C.Flag)
        llvm::errs() << "flag=" << int(C.Flag) - 1;
      if (C.FlagOf)
        llvm::errs() << "=" << C.FlagOf->getName() << ".is_remote()";
      if (C.FlagIfRemote || C.FlagIfLocal)
        llvm::errs() << "(remote:" << int(C.FlagIfRemote) - 1 << ",local:" << int(C.FlagIfLocal) - 1
                     << ")";
      llvm::errs() << "}";
    }
    llvm::errs() << "\n";
  };
  // Whether the block at \p At is visited once: a component of its own,
  // not its own successor.
  auto OnlyVisit = [&](unsigned At) {
    if (Order.ComponentStart[At] != At ||
        (At + 1 < ByOrder.size() && Order.ComponentStart[At + 1] == At))
      return false;
    const CFGBlock *B = ByOrder[At];
    return llvm::none_of(B->succs(), [&](const CFGBlock::AdjacentBlock &Succ) {
      return Succ.getReachableBlock() == B;
    });
  };

  // Records the uses of the blocks before position \p End, whose states are
  // final, and frees their states (the exit's is returned).
  unsigned Done = 0;
  auto Finish = [&](unsigned End) {
    bool Outer = InReportSweep;
    InReportSweep = true;
    for (; Done < End; ++Done) {
      const CFGBlock *B = ByOrder[Done];
      std::unique_ptr<State> &Slot = In[B->getBlockID()];
      if (!Slot)
        continue;
      if (Report) {
        DebugState(*B, *Slot);
        if (B->getBlockID() == ExitID) {
          State S = *Slot;
          transferBlock(*B, S, /*Report=*/true, Depth);
        } else {
          transferBlock(*B, *Slot, /*Report=*/true, Depth);
        }
        if (Out.HitWorkLimit)
          break;
      }
      if (B->getBlockID() != ExitID) {
        Slot.reset();
        --StoredStates;
      }
    }
    InReportSweep = Outer;
  };

  while (!Queue.empty()) {
    unsigned At = Queue.top();
    Queue.pop();
    Queued[At] = false;
    Finish(Order.ComponentStart[At]);
    if (Out.HitWorkLimit)
      return State();
    const CFGBlock *B = ByOrder[At];
    std::unique_ptr<State> &Slot = In[B->getBlockID()];
    // A block that is a component of its own (no loop through it) is
    // visited once, with its final state: its uses are recorded in this
    // visit, and its state is not kept for the sweep.
    bool Final = Report && B->getBlockID() != ExitID && OnlyVisit(At);
    State S = Final ? std::move(*Slot) : *Slot;
    if (Final) {
      Slot.reset();
      --StoredStates;
    }
    if (!chargeVisit(*B, S))
      return State();
    if (Final) {
      DebugState(*B, S);
      bool Outer = InReportSweep;
      InReportSweep = true;
      transferBlock(*B, S, /*Report=*/true, Depth);
      InReportSweep = Outer;
    } else {
      transferBlock(*B, S, /*Report=*/false, Depth);
    }
    if (Out.HitWorkLimit)
      return State();
    propagate(*this, *B, std::move(S), [&](const CFGBlock *Succ, State T) {
      auto &Slot = In[Succ->getBlockID()];
      if (!Slot) {
        // Every state stored for a successor is bounded (the entry, stored
        // unbounded, has no predecessor), so an arrival equal to it is
        // nothing new.
        bound(T);
        Store(Slot, std::move(T));
      } else {
        // A loop's back edge brings what the head already has once the
        // loop has settled: nothing to join.
        if (T == *Slot)
          return;
        State Joined = joinStates(*Slot, T);
        bound(Joined);
        if (Joined == *Slot)
          return;
        *Slot = std::move(Joined);
      }
      unsigned SuccAt = Position[Succ->getBlockID()];
      if (!Queued[SuccAt]) {
        Queued[SuccAt] = true;
        Queue.push(SuccAt);
      }
    });
  }
  Finish(ByOrder.size());
  if (Out.HitWorkLimit)
    return State();
  auto &Exit = In[ExitID];
  if (!Exit) {
    State Unreached;
    Unreached.Reachable = false;
    return Unreached;
  }
  return std::move(*Exit);
}

bool Analyzer::chargeVisit(const CFGBlock &B, const State &S) {
  // A visit costs one step, and one more per 16 values and elements it
  // handles: the bound is on the work, and a visit that carries a large
  // state (or a block with a huge initialiser) costs what it takes.
  size_t Size = S.size();
  Out.PeakLocations = std::max<unsigned>(Out.PeakLocations, Size);
  ++Out.BlockVisits;
  Out.Steps += 1 + (Size + B.size()) / 16;
  if (Out.Steps > Limits.MaxBlockVisits) {
    Out.HitWorkLimit = true;
    return false;
  }
  return true;
}

} // namespace dmalint
