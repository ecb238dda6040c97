//===- DescriptorAnalysis.cpp - Per-function dataflow of DMA descriptors --===//
//
// A forward analysis over clang's CFG. The state maps abstract locations
// (a variable, a field of a local struct, or the summary of a container's
// elements) to ValueSets, references and pointers to the locations they may
// designate, and keeps the facts known about side-effect-free conditions on
// the current path. At merges, a value that reached through one predecessor
// only is tagged with that predecessor's facts, so a later branch on the same
// condition can drop it (see Lattice.h).
//
//===----------------------------------------------------------------------===//
#include "dmalint/DescriptorAnalysis.h"
#include "dmalint/Arguments.h"
#include "dmalint/AstUtil.h"
#include "clang/AST/ParentMapContext.h"
#include "clang/Analysis/CFG.h"
#include "clang/Basic/SourceManager.h"
#include "llvm/ADT/BitVector.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/FoldingSet.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/ScopeExit.h"
#include <functional>
#include <map>
#include <memory>
#include <queue>
#include <set>

using namespace clang;

namespace dmalint {

bool isDescriptorContainer(QualType T, const ApiIndex &Api) {
  T = T.getNonReferenceType().getCanonicalType();
  if (const auto *AT = dyn_cast<ConstantArrayType>(T.getTypePtr()))
    return Api.isDescriptorType(AT->getElementType());
  const auto *RD = T->getAsCXXRecordDecl();
  const auto *Spec = dyn_cast_or_null<ClassTemplateSpecializationDecl>(RD);
  if (!Spec || Spec->getTemplateArgs().size() == 0)
    return false;
  const TemplateArgument &First = Spec->getTemplateArgs()[0];
  return First.getKind() == TemplateArgument::Type &&
         Api.isDescriptorType(First.getAsType());
}

namespace {

/// An abstract location: a variable, a field of a local struct variable, or
/// the summary of all elements of a container held there.
struct Loc {
  const ValueDecl *Root = nullptr;
  const FieldDecl *Field = nullptr;
  bool Elements = false;

  Loc elements() const { return Loc{Root, Field, true}; }
  friend bool operator<(const Loc &A, const Loc &B) {
    return std::tie(A.Root, A.Field, A.Elements) < std::tie(B.Root, B.Field, B.Elements);
  }
  friend bool operator==(const Loc &A, const Loc &B) {
    return A.Root == B.Root && A.Field == B.Field && A.Elements == B.Elements;
  }
};
using LocList = llvm::SmallVector<Loc, 2>;

struct State {
  bool Reachable = true;
  std::map<Loc, ValueSet> Values;
  std::map<const VarDecl *, LocList> PointsTo; ///< References and pointers.
  std::map<AtomId, bool> Facts;
  std::map<const VarDecl *, Loc> RemoteFlags; ///< bool b = d.is_remote();

  friend bool operator==(const State &A, const State &B) {
    return A.Reachable == B.Reachable && A.Values == B.Values && A.PointsTo == B.PointsTo &&
           A.Facts == B.Facts && A.RemoteFlags == B.RemoteFlags;
  }
};

/// A condition the analysis can use at a branch.
struct Condition {
  enum Kind { None, IsRemote, Atom } K = None;
  bool Negated = false;
  LocList Locs;     ///< For IsRemote.
  AtomId Id = 0;    ///< For Atom.
  const VarDecl *FlagVar = nullptr; ///< A bool holding is_remote(): also an atom.
};

class Analyzer {
public:
  Analyzer(ASTContext &Ctx, const ApiIndex &Api, const AnalysisLimits &Limits,
           const SummaryLookup &Summaries, FunctionAnalysis &Out)
      : Ctx(Ctx), Api(Api), Limits(Limits), Summaries(Summaries), Out(Out) {
    Out.Origins.push_back(OriginInfo{}); // UnknownOrigin
  }

  void run(const FunctionDecl &FD) {
    Function = &FD;
    const CFG *G = cfgFor(&FD, FD.getBody());
    if (!G)
      return;
    Out.Summary.Params.resize(FD.getNumParams());
    // Each parameter brings descriptors of its own origin: of unknown kind
    // here (never reported), and what the function's summary is about.
    State Entry;
    for (unsigned I = 0; I < FD.getNumParams(); ++I) {
      const ParmVarDecl *P = FD.getParamDecl(I);
      QualType T = P->getType();
      ValueSet Brought = ValueSet::of(paramValue(P, I));
      if (T->isPointerType() && isTracked(T->getPointeeType())) {
        Loc Pointee{P, nullptr, true};
        Entry.PointsTo[P] = {Pointee};
        Entry.Values[Pointee] = Brought;
      } else if (Api.isDescriptorType(T)) {
        Entry.Values[Loc{P, nullptr, false}] = Brought;
      } else if (isDescriptorContainer(T, Api)) {
        Entry.Values[Loc{P, nullptr, true}] = Brought;
      }
    }
    runCFG(*G, std::move(Entry), /*Report=*/true, /*Depth=*/0);
    if (Out.HitWorkLimit) {
      Out.WaitSends.clear();
      Out.Starts.clear();
      Out.HelperWaitSends.clear();
      return;
    }
    summarise(FD);
  }

private:
  ASTContext &Ctx;
  const ApiIndex &Api;
  const AnalysisLimits &Limits;
  const SummaryLookup &Summaries;
  FunctionAnalysis &Out;
  std::vector<bool> Used, Escaped; // By OriginId.
  bool InReportSweep = false;       // Uses and escapes count only then.
  unsigned StoredStates = 0;        // Block entry states held, over nested runs.
  std::set<const ParmVarDecl *> WrittenParams;
  std::map<OriginId, AtomId> ParamRemoteAtoms;

  std::map<const Stmt *, std::unique_ptr<CFG>> CFGs;
  std::map<const CFG *, std::vector<llvm::SmallVector<const VarDecl *, 2>>> DeadAfter;
  std::map<std::pair<const void *, Remoteness>, OriginId> OriginIds;
  std::map<std::pair<const void *, bool>, OriginId> OptionalOriginIds;
  // Atoms: interned by the profile of the condition expression.
  struct AtomInfo {
    llvm::FoldingSetNodeID Profile;
    llvm::SmallVector<const VarDecl *, 2> Vars;
    std::optional<unsigned> BoolParam; ///< The atom is exactly this bool parameter.
  };
  const FunctionDecl *Function = nullptr;
  std::vector<AtomInfo> Atoms;
  llvm::DenseMap<unsigned, llvm::SmallVector<AtomId, 1>> AtomsByHash;
  llvm::DenseMap<const VarDecl *, llvm::SmallVector<AtomId, 2>> AtomsByVar;
  // Where a call's use is in WaitSends or Starts (a call is one or the other).
  std::map<const CXXMemberCallExpr *, size_t> UseIndex;

  // ---------------------------------------------------------------- CFG ---

  const CFG *cfgFor(const Decl *D, Stmt *Body) {
    if (!Body)
      return nullptr;
    auto &Slot = CFGs[Body];
    if (!Slot) {
      CFG::BuildOptions Options;
      // Elements are the statements transfer() acts on: calls, constructions,
      // declarations and returns are always elements; assignments, ++/-- and
      // lambdas (whose captures the liveness pass reads) are elements only
      // when asked for. Every other subexpression is evaluated from its
      // parent (eval), so making each one an element (setAllAlwaysAdd) would
      // only cost memory: a block of n statements holds several times n.
      Options.setAlwaysAdd(Stmt::BinaryOperatorClass)
          .setAlwaysAdd(Stmt::CompoundAssignOperatorClass)
          .setAlwaysAdd(Stmt::UnaryOperatorClass)
          .setAlwaysAdd(Stmt::LambdaExprClass);
      Options.AddImplicitDtors = false;
      Options.AddTemporaryDtors = false;
      Options.AddInitializers = false;
      // Where a local's scope ends its locations leave the state: the state
      // then holds what is live, not everything the function ever declared,
      // and a block visit costs the same early and late in a long function.
      Options.AddLifetime = true;
      Options.AddScopes = false;
      Slot = CFG::buildCFG(D, Body, &Ctx, Options);
      // A range-for is the terminator of its loop's head: note its loop
      // variable, which declare() binds to the range's elements.
      if (Slot) {
        for (const CFGBlock *B : *Slot)
          if (const auto *For = dyn_cast_or_null<CXXForRangeStmt>(B->getTerminatorStmt()))
            RangeFors[For->getLoopVariable()] = For;
        DeadAfter[Slot.get()] = deadLocals(*Slot);
      }
    }
    return Slot.get();
  }

  // ---------------------------------------------------------- liveness ---

  /// By block ID: the locals declared in \p G that no path from the block's
  /// exit mentions again. Their locations leave the state there, so a
  /// function's state holds the descriptors still to be used, not every one
  /// it built (a kernel of n sequential steps would otherwise cost n^2).
  /// Locals a lambda captures are kept: calling it later reads them without
  /// naming them. Empty when the function is too large to compute it cheaply.
  std::vector<llvm::SmallVector<const VarDecl *, 2>> deadLocals(const CFG &G) {
    std::vector<llvm::SmallVector<const VarDecl *, 2>> Dead;
    llvm::DenseMap<const VarDecl *, unsigned> Index;
    std::vector<const VarDecl *> Vars;
    llvm::DenseSet<const VarDecl *> Captured;
    for (const CFGBlock *B : G)
      for (const CFGElement &Element : *B) {
        auto CS = Element.getAs<CFGStmt>();
        if (!CS)
          continue;
        if (const auto *DS = dyn_cast<DeclStmt>(CS->getStmt())) {
          for (const Decl *D : DS->decls())
            if (const auto *VD = dyn_cast<VarDecl>(D))
              if (VD->hasLocalStorage() && !isa<ParmVarDecl, DecompositionDecl>(VD) &&
                  Index.try_emplace(VD, Vars.size()).second)
                Vars.push_back(VD);
        } else if (const auto *Lambda = dyn_cast<LambdaExpr>(CS->getStmt())) {
          for (const LambdaCapture &C : Lambda->captures())
            if (C.capturesVariable())
              if (const auto *VD = dyn_cast<VarDecl>(C.getCapturedVar()))
                Captured.insert(VD);
        }
      }
    for (const VarDecl *VD : Captured)
      Index.erase(VD);
    unsigned NumBlocks = G.getNumBlockIDs();
    // Bit vectors of blocks x locals; past this the function keeps all.
    constexpr uint64_t MaxBits = uint64_t(1) << 25;
    if (Index.empty() || uint64_t(NumBlocks) * Vars.size() > MaxBits)
      return Dead;

    // What each block mentions: names in its statements (a statement's
    // value is computed from its subexpressions again where they are in
    // other blocks, as a conditional's branches are), the variables it
    // declares, and for a range-for's loop variable, the range.
    std::vector<llvm::BitVector> Mentions(NumBlocks, llvm::BitVector(Vars.size()));
    uint64_t Budget = MaxBits; // Node visits.
    // A subexpression that is an element of the same block is collected as
    // such: each node is walked about once per block that evaluates it.
    llvm::DenseSet<const Stmt *> InBlock;
    llvm::SmallVector<const Stmt *, 32> Pending; // A worklist, not recursion.
    auto Collect = [&](const Stmt *Root, llvm::BitVector &Into) {
      Pending.push_back(Root);
      while (!Pending.empty()) {
        const Stmt *St = Pending.pop_back_val();
        if (!St || Budget == 0)
          continue;
        --Budget;
        auto Mention = [&](const Decl *D) {
          if (const auto *VD = dyn_cast_or_null<VarDecl>(D)) {
            auto It = Index.find(VD);
            if (It != Index.end())
              Into.set(It->second);
            if (const CXXForRangeStmt *For = RangeFors.lookup(VD))
              Pending.push_back(For->getRangeInit());
          }
        };
        if (const auto *DRE = dyn_cast<DeclRefExpr>(St))
          Mention(DRE->getDecl());
        else if (const auto *DS = dyn_cast<DeclStmt>(St))
          for (const Decl *D : DS->decls())
            Mention(D);
        for (const Stmt *Child : St->children())
          if (Child && !InBlock.count(Child))
            Pending.push_back(Child);
      }
    };
    for (const CFGBlock *B : G) {
      llvm::BitVector &Into = Mentions[B->getBlockID()];
      InBlock.clear();
      for (const CFGElement &Element : *B)
        if (auto CS = Element.getAs<CFGStmt>())
          InBlock.insert(CS->getStmt());
      for (const CFGElement &Element : *B)
        if (auto CS = Element.getAs<CFGStmt>())
          Collect(CS->getStmt(), Into);
      if (const auto *For = dyn_cast_or_null<CXXForRangeStmt>(B->getTerminatorStmt()))
        Collect(For->getRangeInit(), Into);
      else
        Collect(const_cast<CFGBlock *>(B)->getTerminatorCondition(), Into);
    }
    if (Budget == 0)
      return Dead;

    // Backward: mentioned on some path from the block's exit.
    std::vector<llvm::BitVector> LiveOut(NumBlocks, llvm::BitVector(Vars.size()));
    std::vector<const CFGBlock *> Order = reversePostOrder(G);
    for (bool Changed = true; Changed;) {
      Changed = false;
      for (auto It = Order.rbegin(); It != Order.rend(); ++It) {
        const CFGBlock *B = *It;
        llvm::BitVector Live(Vars.size());
        for (const CFGBlock::AdjacentBlock &Succ : B->succs())
          if (const CFGBlock *S = Succ.getReachableBlock()) {
            Live |= Mentions[S->getBlockID()];
            Live |= LiveOut[S->getBlockID()];
          }
        if (Live != LiveOut[B->getBlockID()]) {
          LiveOut[B->getBlockID()] = std::move(Live);
          Changed = true;
        }
      }
    }
    // Dead at a block's exit: what may be in the state there (mentioned in
    // it or live after a predecessor) and is not live after it.
    Dead.resize(NumBlocks);
    for (const CFGBlock *B : Order) {
      llvm::BitVector Present = Mentions[B->getBlockID()];
      for (const CFGBlock::AdjacentBlock &Pred : B->preds())
        if (const CFGBlock *P = Pred.getReachableBlock())
          Present |= LiveOut[P->getBlockID()];
      Present.reset(LiveOut[B->getBlockID()]);
      for (unsigned I : Present.set_bits())
        Dead[B->getBlockID()].push_back(Vars[I]);
    }
    return Dead;
  }

  /// Drops the locals that are dead after \p B, but not one that a reference
  /// or pointer in the state may still designate.
  void dropDeadLocals(const CFGBlock &B, State &S) {
    auto It = DeadAfter.find(B.getParent());
    if (It == DeadAfter.end() || It->second.empty())
      return;
    for (const VarDecl *VD : It->second[B.getBlockID()]) {
      bool Designated = llvm::any_of(S.PointsTo, [&](const auto &Entry) {
        return Entry.first != VD &&
               llvm::any_of(Entry.second, [&](const Loc &L) { return L.Root == VD; });
      });
      if (!Designated)
        endLifetime(VD, S);
    }
  }

  /// Runs to a fixed point from \p Entry; with \p Report, records the uses in
  /// a sweep over the converged states. Returns the state at exit.
  ///
  /// Blocks are visited in an order where each strongly connected component
  /// (a loop, or a single block) is contiguous and comes after every
  /// component that can reach it. With the lowest position first, a
  /// component is done once a later one is reached: its states are final, so
  /// its uses are recorded and its states freed then. A function's peak is
  /// then the states of one loop, not one state per block of the function.
  State runCFG(const CFG &G, State Entry, bool Report, unsigned Depth) {
    ComponentOrder Order = componentOrder(G);
    const std::vector<const CFGBlock *> &ByOrder = Order.Blocks;
    // Every reachable block is visited at least once: a CFG with more blocks
    // than the budget has left cannot finish, so give up before storing a
    // state per block.
    if (Out.BlockVisits + ByOrder.size() > Limits.MaxBlockVisits) {
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
    auto Release = llvm::make_scope_exit(
        [&, Before = StoredStates] { StoredStates = Before; });
    Store(In[G.getEntry().getBlockID()], std::move(Entry));
    std::priority_queue<unsigned, std::vector<unsigned>, std::greater<unsigned>> Queue;
    std::vector<bool> Queued(ByOrder.size(), false);
    Queue.push(0);
    Queued[0] = true;

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
      if (++Out.BlockVisits > Limits.MaxBlockVisits) {
        Out.HitWorkLimit = true;
        return State();
      }
      const CFGBlock *B = ByOrder[At];
      State S = *In[B->getBlockID()];
      Out.PeakLocations = std::max<unsigned>(Out.PeakLocations, S.Values.size());
      transferBlock(*B, S, /*Report=*/false, Depth);
      if (Out.HitWorkLimit)
        return State();
      propagate(*B, S, [&](const CFGBlock *Succ, State T) {
        auto &Slot = In[Succ->getBlockID()];
        if (!Slot) {
          Store(Slot, std::move(T));
        } else {
          State Joined = join(*Slot, T);
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

  /// The reachable blocks of a CFG, each strongly connected component
  /// contiguous, components in topological order, and the blocks of one
  /// component in reverse post-order.
  struct ComponentOrder {
    std::vector<const CFGBlock *> Blocks;
    std::vector<unsigned> ComponentStart; ///< By position: where its component starts.
  };

  static ComponentOrder componentOrder(const CFG &G) {
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
    std::vector<std::vector<const CFGBlock *>> Components;
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
        std::vector<const CFGBlock *> Component;
        const CFGBlock *Member;
        do {
          Member = Stack.back();
          Stack.pop_back();
          OnStack[Member->getBlockID()] = false;
          Component.push_back(Member);
        } while (Member != B);
        llvm::sort(Component, [&](const CFGBlock *X, const CFGBlock *Y) {
          return RPOIndex[X->getBlockID()] < RPOIndex[Y->getBlockID()];
        });
        Components.push_back(std::move(Component));
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
    for (auto C = Components.rbegin(); C != Components.rend(); ++C) {
      unsigned Start = Order.Blocks.size();
      for (const CFGBlock *B : *C) {
        Order.Blocks.push_back(B);
        Order.ComponentStart.push_back(Start);
      }
    }
    return Order;
  }

  /// Blocks reachable from the entry, in reverse post-order. (LLVM's
  /// traversal would visit the null successors that CFG pruning leaves for
  /// constant conditions such as `do { } while (0)`.)
  static std::vector<const CFGBlock *> reversePostOrder(const CFG &G) {
    std::vector<const CFGBlock *> PostOrder;
    std::vector<bool> Seen(G.getNumBlockIDs(), false);
    std::vector<std::pair<const CFGBlock *, CFGBlock::const_succ_iterator>> Stack;
    Stack.push_back({&G.getEntry(), G.getEntry().succ_begin()});
    Seen[G.getEntry().getBlockID()] = true;
    while (!Stack.empty()) {
      auto &[Block, Next] = Stack.back();
      if (Next == Block->succ_end()) {
        PostOrder.push_back(Block);
        Stack.pop_back();
        continue;
      }
      const CFGBlock *Succ = Next->getReachableBlock();
      ++Next;
      if (Succ && !Seen[Succ->getBlockID()]) {
        Seen[Succ->getBlockID()] = true;
        Stack.push_back({Succ, Succ->succ_begin()});
      }
    }
    return std::vector<const CFGBlock *>(PostOrder.rbegin(), PostOrder.rend());
  }

  template <typename Fn> void propagate(const CFGBlock &B, const State &S, Fn Emit) {
    if (B.hasNoReturnElement())
      return;
    const Expr *Cond = nullptr;
    if (B.succ_size() == 2)
      Cond = branchCondition(B);
    Condition C = Cond ? classify(Cond, S) : Condition();
    unsigned I = 0;
    for (const CFGBlock::AdjacentBlock &Succ : B.succs()) {
      unsigned Edge = I++;
      if (!Succ.getReachableBlock())
        continue;
      State T = S;
      if (C.K != Condition::None)
        refine(T, C, /*Holds=*/Edge == 0);
      // After the branch: its condition may be what makes an edge unreachable.
      dropDeadLocals(B, T);
      if (T.Reachable)
        Emit(Succ.getReachableBlock(), std::move(T));
    }
  }

  /// The expression whose value picks the successor of \p B.
  static const Expr *branchCondition(const CFGBlock &B) {
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

  // ------------------------------------------------------------- joins ---

  State join(const State &A, const State &B) {
    if (!A.Reachable)
      return B;
    if (!B.Reachable)
      return A;
    State R;
    for (auto &[Atom, Holds] : A.Facts) {
      auto It = B.Facts.find(Atom);
      if (It != B.Facts.end() && It->second == Holds)
        R.Facts[Atom] = Holds;
    }
    auto Extra = [&](const State &S) {
      Assumptions Tag;
      for (auto &[Atom, Holds] : S.Facts)
        if (!R.Facts.count(Atom))
          Tag.push_back({Atom, Holds});
      return Tag;
    };
    Assumptions TagA = Extra(A), TagB = Extra(B);
    auto Merge = [&](const State &S, const Assumptions &Tag) {
      for (auto &[L, VS] : S.Values) {
        ValueSet Tagged = VS;
        Tagged.assume(Tag);
        auto [It, Inserted] = R.Values.emplace(L, Tagged);
        if (!Inserted)
          It->second.unionWith(Tagged);
      }
    };
    Merge(A, TagA);
    Merge(B, TagB);
    for (auto &[L, VS] : R.Values)
      if (VS.size() > Limits.MaxValuesPerLocation) {
        VS.dropAssumptions();
        ++Out.AssumptionsDropped;
      }
    R.PointsTo = A.PointsTo;
    for (auto &[Var, Targets] : B.PointsTo) {
      LocList &Into = R.PointsTo[Var];
      for (const Loc &L : Targets)
        if (llvm::find(Into, L) == Into.end())
          Into.push_back(L);
    }
    for (auto &[Var, L] : A.RemoteFlags) {
      auto It = B.RemoteFlags.find(Var);
      if (It != B.RemoteFlags.end() && It->second == L)
        R.RemoteFlags[Var] = L;
    }
    return R;
  }

  // ------------------------------------------------------------- atoms ---

  /// True when \p E has no side effects and reads only locals, parameters,
  /// constants and device queries, so two evaluations with no write to its
  /// variables in between agree.
  bool collectAtomVars(const Expr *E, llvm::SmallVectorImpl<const VarDecl *> &Vars) {
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
      // What a reference names may be written through another name; not
      // when the function sees it const (`const Step &last`).
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
      return !BO->isAssignmentOp() && !BO->isCommaOp() &&
             collectAtomVars(BO->getLHS(), Vars) && collectAtomVars(BO->getRHS(), Vars);
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

  std::optional<AtomId> atomFor(const Expr *E) {
    llvm::SmallVector<const VarDecl *, 2> Vars;
    if (!collectAtomVars(E, Vars))
      return std::nullopt;
    llvm::FoldingSetNodeID Profile;
    E->IgnoreParenCasts()->Profile(Profile, Ctx, /*Canonical=*/true);
    auto &Bucket = AtomsByHash[Profile.ComputeHash()];
    for (AtomId Id : Bucket)
      if (Atoms[Id].Profile == Profile)
        return Id;
    AtomId Id = static_cast<AtomId>(Atoms.size());
    Atoms.push_back(AtomInfo{Profile, {}, std::nullopt});
    if (const auto *P = dyn_cast_or_null<ParmVarDecl>(varOf(E->IgnoreParenCasts())))
      if (P->getType()->isBooleanType() && P->getDeclContext() == Function)
        Atoms[Id].BoolParam = P->getFunctionScopeIndex();
    for (const VarDecl *VD : Vars)
      if (llvm::find(Atoms[Id].Vars, VD) == Atoms[Id].Vars.end()) {
        Atoms[Id].Vars.push_back(VD);
        AtomsByVar[VD].push_back(Id);
      }
    Bucket.push_back(Id);
    return Id;
  }

  /// \p VD may have changed: forget what conditions over it said.
  void invalidateVar(const VarDecl *VD, State &S) {
    S.RemoteFlags.erase(VD);
    auto It = AtomsByVar.find(VD);
    if (It == AtomsByVar.end())
      return;
    for (AtomId Id : It->second) {
      S.Facts.erase(Id);
      for (auto &[L, VS] : S.Values)
        VS.forget(Id);
    }
  }

  Condition classify(const Expr *Cond, const State &S) {
    Condition C;
    const Expr *E = Cond->IgnoreParenCasts();
    while (const auto *UO = dyn_cast<UnaryOperator>(E)) {
      if (UO->getOpcode() != UO_LNot)
        break;
      C.Negated = !C.Negated;
      E = UO->getSubExpr()->IgnoreParenCasts();
    }
    if (const auto *Call = dyn_cast<CXXMemberCallExpr>(E);
        Call && Api.roleOf(Call->getMethodDecl()) == ApiRole::IsRemote) {
      C.K = Condition::IsRemote;
      C.Locs = objectLocs(Call, S);
      if (C.Locs.empty())
        C.K = Condition::None;
      return C;
    }
    if (const auto *DRE = dyn_cast<DeclRefExpr>(E))
      if (const auto *VD = dyn_cast<VarDecl>(DRE->getDecl()))
        if (S.RemoteFlags.count(VD))
          C.FlagVar = VD;
    if (std::optional<AtomId> Id = atomFor(E)) {
      C.K = Condition::Atom;
      C.Id = *Id;
    }
    return C;
  }

  /// Narrows \p S to the paths where \p C evaluates to \p Holds; marks it
  /// unreachable when no such path exists.
  void refine(State &S, const Condition &C, bool Holds) {
    bool Outcome = Holds != C.Negated;
    auto KeepKind = [&](const LocList &Locs, bool Remote) {
      for (const Loc &L : Locs) {
        auto It = S.Values.find(L);
        if (It == S.Values.end() || It->second.empty())
          continue;
        It->second.filter([&](const Value &V) {
          Remoteness K = Out.Origins[V.Origin].Kind;
          return K == Remoteness::Unknown || (K == Remoteness::Remote) == Remote;
        });
        // A parameter's descriptor is of unknown kind; remember on which
        // side of its own is_remote() test this path is, for its summary.
        ValueSet Marked;
        for (const Value &V : It->second.values()) {
          ValueSet One = ValueSet::of(V);
          if (Out.Origins[V.Origin].Param)
            One.assume({{paramRemoteAtom(V.Origin), Remote}});
          Marked.unionWith(One);
        }
        It->second = Marked;
        if (It->second.empty() && Locs.size() == 1)
          S.Reachable = false; // d is provably the other kind here.
      }
    };
    if (C.K == Condition::IsRemote)
      KeepKind(C.Locs, Outcome);
    if (C.FlagVar)
      KeepKind(LocList{S.RemoteFlags[C.FlagVar]}, Outcome);
    if (C.K != Condition::Atom)
      return;
    auto Known = S.Facts.find(C.Id);
    if (Known != S.Facts.end()) {
      if (Known->second != Outcome)
        S.Reachable = false;
      return;
    }
    S.Facts[C.Id] = Outcome;
    for (auto &[L, VS] : S.Values) {
      bool WasEmpty = VS.empty();
      VS.restrict(C.Id, Outcome);
      if (!WasEmpty && VS.empty())
        S.Reachable = false; // Every value needs the other outcome.
    }
  }

  // -------------------------------------------------------- locations ---

  static const VarDecl *varOf(const Expr *E) {
    if (const auto *DRE = dyn_cast<DeclRefExpr>(E->IgnoreParenImpCasts()))
      return dyn_cast<VarDecl>(DRE->getDecl());
    return nullptr;
  }

  bool isTracked(QualType T) const {
    return Api.isDescriptorType(T) || isDescriptorContainer(T, Api);
  }

  /// The locations an lvalue expression may designate (empty: unknown).
  LocList resolve(const Expr *E, const State &S) {
    E = E->IgnoreParenImpCasts();
    if (const auto *MTE = dyn_cast<MaterializeTemporaryExpr>(E))
      E = MTE->getSubExpr()->IgnoreParenImpCasts();
    if (const auto *DRE = dyn_cast<DeclRefExpr>(E)) {
      const auto *VD = dyn_cast<VarDecl>(DRE->getDecl());
      if (!VD)
        return {};
      auto It = S.PointsTo.find(VD);
      if (It != S.PointsTo.end() && VD->getType()->isReferenceType())
        return It->second;
      if (!VD->hasLocalStorage() && !isa<ParmVarDecl>(VD))
        return {}; // Globals may change behind our back.
      return {Loc{VD, nullptr, false}};
    }
    if (const auto *ME = dyn_cast<MemberExpr>(E)) {
      const auto *FD = dyn_cast<FieldDecl>(ME->getMemberDecl());
      if (!FD)
        return {};
      LocList Bases = ME->isArrow() ? pointees(ME->getBase(), S) : resolve(ME->getBase(), S);
      LocList Result;
      for (const Loc &B : Bases)
        if (!B.Field && !B.Elements)
          Result.push_back(Loc{B.Root, FD, false});
      return Result;
    }
    if (const auto *ASE = dyn_cast<ArraySubscriptExpr>(E))
      return pointees(ASE->getBase(), S);
    if (const auto *UO = dyn_cast<UnaryOperator>(E); UO && UO->getOpcode() == UO_Deref)
      return pointees(UO->getSubExpr(), S);
    if (const auto *CO = dyn_cast<AbstractConditionalOperator>(E)) {
      LocList Result = resolve(CO->getTrueExpr(), S);
      for (const Loc &L : resolve(CO->getFalseExpr(), S))
        Result.push_back(L);
      return Result;
    }
    if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(E)) {
      OverloadedOperatorKind K = Op->getOperator();
      if ((K == OO_Subscript || K == OO_Star || K == OO_Arrow) && Op->getNumArgs() >= 1 &&
          isDescriptorContainer(Op->getArg(0)->getType(), Api))
        return elementsOf(resolve(Op->getArg(0), S));
      return {};
    }
    if (const auto *MC = dyn_cast<CXXMemberCallExpr>(E)) {
      const Expr *Obj = MC->getImplicitObjectArgument();
      const CXXMethodDecl *MD = MC->getMethodDecl();
      if (Obj && MD && MD->getIdentifier() && isDescriptorContainer(Obj->getType(), Api)) {
        StringRef Name = MD->getName();
        if (Name == "at" || Name == "front" || Name == "back" || Name == "value")
          return elementsOf(resolve(Obj, S));
      }
      return {};
    }
    return {};
  }

  static LocList elementsOf(const LocList &Containers) {
    LocList Result;
    for (const Loc &L : Containers)
      Result.push_back(L.elements());
    return Result;
  }

  /// The locations a pointer-valued expression may point to.
  LocList pointees(const Expr *E, const State &S) {
    E = E->IgnoreParens();
    if (const auto *ICE = dyn_cast<ImplicitCastExpr>(E)) {
      if (ICE->getCastKind() == CK_ArrayToPointerDecay)
        return elementsOf(resolve(ICE->getSubExpr(), S));
      return pointees(ICE->getSubExpr(), S);
    }
    if (const auto *UO = dyn_cast<UnaryOperator>(E)) {
      if (UO->getOpcode() == UO_AddrOf)
        return resolve(UO->getSubExpr(), S);
      if (UO->isIncrementDecrementOp())
        return pointees(UO->getSubExpr(), S);
    }
    if (const auto *BO = dyn_cast<BinaryOperator>(E); BO && BO->isAdditiveOp())
      return BO->getLHS()->getType()->isPointerType() ? pointees(BO->getLHS(), S)
                                                      : pointees(BO->getRHS(), S);
    if (const auto *DRE = dyn_cast<DeclRefExpr>(E))
      if (const auto *VD = dyn_cast<VarDecl>(DRE->getDecl())) {
        auto It = S.PointsTo.find(VD);
        if (It != S.PointsTo.end())
          return It->second;
      }
    if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(E);
        Op && Op->getOperator() == OO_Arrow)
      return resolve(Op, S); // opt->f(): the optional's descriptor.
    if (const auto *CO = dyn_cast<AbstractConditionalOperator>(E)) {
      LocList Result = pointees(CO->getTrueExpr(), S);
      for (const Loc &L : pointees(CO->getFalseExpr(), S))
        if (llvm::find(Result, L) == Result.end())
          Result.push_back(L);
      return Result;
    }
    if (const auto *MC = dyn_cast<CXXMemberCallExpr>(E))
      if (const CXXMethodDecl *MD = MC->getMethodDecl();
          MD && MD->getIdentifier() && MD->getName() == "data" &&
          isDescriptorContainer(MC->getImplicitObjectArgument()->getType(), Api))
        return elementsOf(resolve(MC->getImplicitObjectArgument(), S));
    return {};
  }

  // ----------------------------------------------------------- values ---

  Value originValue(const Expr *Site, Remoteness Kind, bool Started = false) {
    auto [It, Inserted] = OriginIds.emplace(std::make_pair(Site, Kind), 0);
    if (Inserted) {
      It->second = static_cast<OriginId>(Out.Origins.size());
      Out.Origins.push_back(OriginInfo{Site, Kind});
    }
    Value V{It->second, {}};
    if (Started) // async_copy(...): built and started in one call.
      mark(Used, ValueSet::of(V));
    return V;
  }

  static ValueSet unknown() { return ValueSet::of(Value{}); }

  Value paramValue(const ParmVarDecl *P, unsigned Index) {
    auto [It, Inserted] = OriginIds.emplace(std::make_pair(P, Remoteness::Unknown), 0);
    if (Inserted) {
      It->second = static_cast<OriginId>(Out.Origins.size());
      Out.Origins.push_back(OriginInfo{nullptr, Remoteness::Unknown, P, Index});
    }
    return Value{It->second, {}};
  }

  /// The pseudo-condition "this parameter's descriptor is remote".
  AtomId paramRemoteAtom(OriginId Origin) {
    auto [It, Inserted] = ParamRemoteAtoms.emplace(Origin, 0);
    if (Inserted) {
      It->second = static_cast<AtomId>(Atoms.size());
      Atoms.push_back(AtomInfo{});
    }
    return It->second;
  }

  /// True when \p V is a parameter's descriptor not known to be remote on
  /// its path: a wait_send on it needs the caller to pass a remote copy.
  bool isUnguardedParam(const Value &V) {
    if (!Out.Origins[V.Origin].Param)
      return false;
    auto It = ParamRemoteAtoms.find(V.Origin);
    return It == ParamRemoteAtoms.end() ||
           llvm::find(V.Assumed, std::make_pair(It->second, true)) == V.Assumed.end();
  }

  static void mark(std::vector<bool> &Set, const ValueSet &VS) {
    for (const Value &V : VS.values()) {
      if (Set.size() <= V.Origin)
        Set.resize(V.Origin + 1, false);
      Set[V.Origin] = true;
    }
  }

  ValueSet read(const LocList &Locs, const State &S) {
    if (Locs.empty())
      return unknown();
    ValueSet Result;
    for (const Loc &L : Locs) {
      auto It = S.Values.find(L);
      Result.unionWith(It == S.Values.end() ? unknown() : It->second);
    }
    return Result;
  }

  // ------------------------------------------------- optional states ---

  /// Local optionals are followed (engaged or not) so that a descriptor
  /// built from them knows whether it is remote.
  bool isTrackedOptional(QualType T) const {
    return isStdOptional(T) && !isDescriptorContainer(T, Api);
  }

  Value optionalValue(const Expr *Site, bool Engaged) {
    auto [It, Inserted] = OptionalOriginIds.emplace(std::make_pair(Site, Engaged), 0);
    if (Inserted) {
      It->second = static_cast<OriginId>(Out.Origins.size());
      OriginInfo O;
      O.Site = Site;
      O.Engaged = Engaged;
      Out.Origins.push_back(O);
    }
    return Value{It->second, {}};
  }

  /// The states an optional argument may have. A plain value (as forwarded
  /// by emplace_back) becomes an engaged optional.
  ValueSet evalOptional(const Expr *E, const State &S) {
    QualType T = stripWrappers(E)->getType();
    if (!isa<CXXDefaultArgExpr>(E) && !isStdOptional(T) && T->isRecordType()) {
      const auto *RD = T->getAsCXXRecordDecl();
      bool Nullopt = RD->getIdentifier() && RD->getName() == "nullopt_t" && RD->isInStdNamespace();
      return ValueSet::of(optionalValue(E, !Nullopt));
    }
    switch (engagementOf(E)) {
    case Engagement::Engaged:
      return ValueSet::of(optionalValue(E, true));
    case Engagement::Disengaged:
    case Engagement::Omitted:
      return ValueSet::of(optionalValue(E, false));
    case Engagement::Unknown:
      break;
    }
    const Expr *Plain = stripWrappers(E);
    if (const VarDecl *VD = varOf(Plain); VD && VD->hasLocalStorage() &&
                                          !VD->getType()->isReferenceType() &&
                                          isTrackedOptional(VD->getType()))
      return read(LocList{Loc{VD, nullptr, false}}, S);
    return unknown();
  }

  std::optional<bool> engagedOf(const Value &V) const { return Out.Origins[V.Origin].Engaged; }

  /// The descriptors the general constructor makes from \p Args: one per
  /// consistent combination of the two optionals' states. Records a
  /// mismatch (in the report sweep) when some combination sets only one.
  ValueSet constructed(const Expr *Site, llvm::ArrayRef<const Expr *> Args, const State &S,
                       bool Report) {
    const ApiModel &M = Api.model();
    // An omitted argument is pointed at by the construction itself.
    auto StatesOf = [&](unsigned Index) {
      if (Index >= Args.size())
        return ValueSet::of(optionalValue(Site, false));
      if (isa<CXXDefaultArgExpr>(Args[Index]))
        return ValueSet::of(
            optionalValue(Site, engagementOf(Args[Index]) == Engagement::Engaged));
      return evalOptional(Args[Index], S);
    };
    ValueSet Src = StatesOf(M.CtorSrcSemParam), Dev = StatesOf(M.CtorDeviceIdParam);
    ValueSet Result;
    ConstructionMismatch Mismatch;
    bool AnyConsistent = false, AnyMismatch = false;
    Assumptions Both;
    for (const Value &A : Src.values()) {
      for (const Value &B : Dev.values()) {
        if (!conjoin(A.Assumed, B.Assumed, Both))
          continue; // Not on one path.
        std::optional<bool> SrcSet = engagedOf(A), DevSet = engagedOf(B);
        ValueSet One;
        if (!SrcSet || !DevSet) {
          One = unknown();
          AnyConsistent = true;
        } else if (*SrcSet == *DevSet) {
          One = ValueSet::of(originValue(Site, *SrcSet ? Remoteness::Remote : Remoteness::Local));
          AnyConsistent = true;
        } else {
          One = unknown(); // Pallas raises here; the mismatch is the finding.
          AnyMismatch = true;
          (*SrcSet ? Mismatch.OnlySrcSem : Mismatch.OnlyDeviceId) = true;
          const Expr *Unset = Out.Origins[(*SrcSet ? B : A).Origin].Site;
          if (Unset && !llvm::is_contained(Mismatch.UnsetAt, Unset))
            Mismatch.UnsetAt.push_back(Unset);
        }
        One.assume(Both);
        Result.unionWith(One);
      }
    }
    // Both written out (a value, std::nullopt, omitted): judged without
    // dataflow by the check itself.
    bool FromVariables =
        argumentEngagement(Args, M.CtorSrcSemParam) == Engagement::Unknown ||
        argumentEngagement(Args, M.CtorDeviceIdParam) == Engagement::Unknown;
    if (Report && AnyMismatch && FromVariables)
      if (const auto *Construct = dyn_cast<CXXConstructExpr>(Site)) {
        Mismatch.Construct = Construct;
        Mismatch.AlwaysMismatched = !AnyConsistent;
        auto It = llvm::find_if(Out.Mismatches, [&](const ConstructionMismatch &Old) {
          return Old.Construct == Construct;
        });
        if (It == Out.Mismatches.end())
          Out.Mismatches.push_back(Mismatch);
        else
          It->AlwaysMismatched &= Mismatch.AlwaysMismatched;
      }
    return Result.empty() ? unknown() : Result;
  }

  /// The values a descriptor-typed expression may evaluate to.
  ValueSet eval(const Expr *E, const State &S) {
    E = stripWrappers(E);
    if (const auto *Call = dyn_cast<CallExpr>(E)) {
      const FunctionDecl *FD = Call->getDirectCallee();
      if (FD && FD->isInStdNamespace() && FD->getIdentifier() &&
          (FD->getName() == "move" || FD->getName() == "forward") && Call->getNumArgs() == 1)
        return eval(Call->getArg(0), S);
      switch (Api.roleOf(FD)) {
      case ApiRole::LocalFactory:
      case ApiRole::StartedLocalFactory:
        return ValueSet::of(originValue(E, Remoteness::Local,
                                        Api.roleOf(FD) == ApiRole::StartedLocalFactory));
      case ApiRole::RemoteFactory:
      case ApiRole::StartedRemoteFactory:
        return ValueSet::of(originValue(E, Remoteness::Remote,
                                        Api.roleOf(FD) == ApiRole::StartedRemoteFactory));
      default:
        break;
      }
      // v[i], v.at(i), *opt: an element of a container we follow.
      if (LocList Locs = resolve(E, S); !Locs.empty())
        return read(Locs, S);
      if (const FunctionSummary *Summary = summaryFor(Call->getDirectCallee()))
        return returnedValues(*Summary, Call, callArguments(Call), S);
      return unknown();
    }
    if (const auto *Construct = dyn_cast<CXXConstructExpr>(E)) {
      if (Api.isDescriptorConstructor(Construct->getConstructor())) {
        return constructed(Construct, callArguments(Construct), S, /*Report=*/false);
      }
      return unknown();
    }
    if (const auto *CO = dyn_cast<ConditionalOperator>(E)) {
      ValueSet T = eval(CO->getTrueExpr(), S), F = eval(CO->getFalseExpr(), S);
      if (std::optional<AtomId> Id = atomFor(CO->getCond())) {
        T.assume({{*Id, true}});
        F.assume({{*Id, false}});
      }
      T.unionWith(F);
      return T;
    }
    return read(resolve(E, S), S);
  }

  /// Every descriptor value an initialiser puts into a container.
  ValueSet elementValues(const Expr *Init, const State &S) {
    if (!Init)
      return ValueSet();
    const Expr *E = Init;
    for (const Expr *Previous = nullptr; E != Previous;) {
      Previous = E;
      E = E->IgnoreParenImpCasts();
      if (const auto *EWC = dyn_cast<ExprWithCleanups>(E))
        E = EWC->getSubExpr();
      else if (const auto *MTE = dyn_cast<MaterializeTemporaryExpr>(E))
        E = MTE->getSubExpr();
      else if (const auto *BTE = dyn_cast<CXXBindTemporaryExpr>(E))
        E = BTE->getSubExpr();
    }
    if (Api.isDescriptorType(E->getType()))
      return eval(E, S);
    if (const auto *ILE = dyn_cast<InitListExpr>(E)) {
      ValueSet Result;
      for (const Expr *Sub : ILE->inits())
        Result.unionWith(elementValues(Sub, S));
      return Result;
    }
    if (const auto *IL = dyn_cast<CXXStdInitializerListExpr>(E))
      return elementValues(IL->getSubExpr(), S);
    if (const auto *Call = dyn_cast<CallExpr>(stripWrappers(E)))
      if (const FunctionSummary *Summary = summaryFor(Call->getDirectCallee()))
        return returnedValues(*Summary, Call, callArguments(Call), S);
    if (isa<ImplicitValueInitExpr, CXXScalarValueInitExpr>(E))
      return ValueSet();
    if (const auto *Construct = dyn_cast<CXXConstructExpr>(E)) {
      if (Construct->getNumArgs() == 0)
        return ValueSet(); // An empty container.
      if (Construct->getConstructor()->isCopyOrMoveConstructor())
        return read(elementsOf(resolve(Construct->getArg(0), S)), S);
      ValueSet Result;
      for (const Expr *Arg : Construct->arguments())
        if (isa<CXXDefaultArgExpr>(Arg))
          continue; // The allocator.
        else if (Api.isDescriptorType(Arg->getType()) || isa<CXXStdInitializerListExpr>(
                                                        Arg->IgnoreParenImpCasts()))
          Result.unionWith(elementValues(Arg, S));
        else if (!Arg->getType()->isIntegralOrEnumerationType())
          return unknown();
      return Result;
    }
    return read(elementsOf(resolve(E, S)), S);
  }

  // ------------------------------------------------------------ writes ---

  /// How a write replaces what a location held.
  enum class Update {
    Weak,           ///< Adds to it (one element of a container, or one of several targets).
    Strong,         ///< Replaces it when it is one plain location.
    WholeContainer, ///< Replaces all elements: `v = {...}`, `v.clear()`.
  };

  void write(const LocList &Locs, const ValueSet &VS, State &S, Update How) {
    for (auto It = S.RemoteFlags.begin(); It != S.RemoteFlags.end();)
      It = llvm::find(Locs, It->second) != Locs.end() ? S.RemoteFlags.erase(It)
                                                       : std::next(It);
    bool Replace = Locs.size() == 1 &&
                   ((How == Update::Strong && !Locs[0].Elements) ||
                    (How == Update::WholeContainer && Locs[0].Elements));
    if (Locs.empty() && InReportSweep)
      mark(Escaped, VS); // Stored where we cannot follow it: a member, a global.
    for (const Loc &L : Locs) {
      if (const auto *P = dyn_cast_or_null<ParmVarDecl>(L.Root)) {
        WrittenParams.insert(P);
        // Through a reference or pointer parameter: the caller sees it.
        QualType T = P->getType();
        if (InReportSweep && (T->isReferenceType() || T->isPointerType()))
          mark(Escaped, VS);
      }
      auto It = S.Values.find(L);
      if (Replace) {
        S.Values[L] = VS;
      } else if (It == S.Values.end()) {
        ValueSet Weak = unknown();
        Weak.unionWith(VS);
        S.Values[L] = Weak;
      } else {
        It->second.unionWith(VS);
      }
    }
  }

  /// Binds a freshly declared variable (or loop variable) to its initial value.
  void declare(const VarDecl *VD, State &S) {
    endLifetime(VD, S); // Whatever an earlier run of the declaration left.
    QualType T = VD->getType();
    const Expr *Init = VD->getInit();
    if (const auto *Range = rangeForOf(VD)) {
      // for (auto &d : ds) / for (auto d : ds): d is one of ds's elements.
      LocList Elements = elementsOf(resolve(Range->getRangeInit(), S));
      if (Elements.empty())
        Elements = pointees(Range->getRangeInit(), S);
      if (T->isReferenceType())
        S.PointsTo[VD] = Elements;
      else if (Api.isDescriptorType(T))
        S.Values[Loc{VD, nullptr, false}] = read(Elements, S);
      return;
    }
    if (T->isReferenceType()) {
      if (Init && isTracked(T.getNonReferenceType()))
        S.PointsTo[VD] = resolve(Init, S);
      return;
    }
    if (T->isPointerType()) {
      if (isTracked(T->getPointeeType()))
        S.PointsTo[VD] = Init ? pointees(Init, S) : LocList();
      return;
    }
    if (Api.isDescriptorType(T)) {
      S.Values[Loc{VD, nullptr, false}] = Init ? eval(Init, S) : unknown();
      return;
    }
    if (isDescriptorContainer(T, Api)) {
      S.Values[Loc{VD, nullptr, true}] = elementValues(Init, S);
      return;
    }
    if (isTrackedOptional(T)) {
      S.Values[Loc{VD, nullptr, false}] = Init ? evalOptional(Init, S) : unknown();
      return;
    }
    if (T->isBooleanType() && Init) {
      const Expr *E = Init->IgnoreParenImpCasts();
      if (const auto *Call = dyn_cast<CXXMemberCallExpr>(E);
          Call && Api.roleOf(Call->getMethodDecl()) == ApiRole::IsRemote) {
        LocList Locs = objectLocs(Call, S);
        if (Locs.size() == 1)
          S.RemoteFlags[VD] = Locs[0];
      }
      return;
    }
    if (const auto *RD = T->getAsCXXRecordDecl())
      declareStruct(VD, RD, Init, S);
  }

  /// A local struct holding descriptors: one location per such field.
  void declareStruct(const VarDecl *VD, const CXXRecordDecl *RD, const Expr *Init,
                     State &S) {
    if (!RD->hasDefinition())
      return;
    const Expr *E = Init ? Init->IgnoreParenImpCasts() : nullptr;
    if (const auto *EWC = dyn_cast_or_null<ExprWithCleanups>(E))
      E = EWC->getSubExpr()->IgnoreParenImpCasts();
    const auto *ILE = dyn_cast_or_null<InitListExpr>(E);
    const VarDecl *CopiedFrom = nullptr;
    if (const auto *Construct = dyn_cast_or_null<CXXConstructExpr>(E);
        Construct && Construct->getConstructor()->isCopyOrMoveConstructor())
      CopiedFrom = varOf(stripWrappers(Construct->getArg(0)));
    unsigned Index = 0;
    for (const FieldDecl *FD : RD->fields()) {
      unsigned I = Index++;
      bool Descriptor = Api.isDescriptorType(FD->getType());
      bool Container = isDescriptorContainer(FD->getType(), Api);
      if (!Descriptor && !Container)
        continue;
      Loc Target{VD, FD, Container};
      if (CopiedFrom) {
        S.Values[Target] = read(LocList{Loc{CopiedFrom, FD, Container}}, S);
      } else if (ILE && I < ILE->getNumInits()) {
        S.Values[Target] = Descriptor ? eval(ILE->getInit(I), S)
                                      : elementValues(ILE->getInit(I), S);
      } else if (FD->hasInClassInitializer()) {
        S.Values[Target] = Descriptor ? eval(FD->getInClassInitializer(), S)
                                      : elementValues(FD->getInClassInitializer(), S);
      }
    }
  }

  /// Loop variable -> its range-for, for every CFG built (cfgFor).
  llvm::DenseMap<const VarDecl *, const CXXForRangeStmt *> RangeFors;

  const CXXForRangeStmt *rangeForOf(const VarDecl *VD) const {
    return RangeFors.lookup(VD);
  }

  // --------------------------------------------------------- transfer ---

  void transferBlock(const CFGBlock &B, State &S, bool Report, unsigned Depth) {
    for (const CFGElement &Element : B) {
      if (auto CS = Element.getAs<CFGStmt>())
        transfer(CS->getStmt(), S, Report, Depth);
      else if (auto Ends = Element.getAs<CFGLifetimeEnds>())
        endLifetime(Ends->getVarDecl(), S);
      if (Out.HitWorkLimit)
        return;
    }
  }

  /// The locations of a method call's object: `d.f()` is d, `p->f()` is *p.
  LocList objectLocs(const CXXMemberCallExpr *Call, const State &S) {
    const Expr *Obj = Call->getImplicitObjectArgument();
    const auto *ME = dyn_cast<MemberExpr>(Call->getCallee()->IgnoreParens());
    return ME && ME->isArrow() ? pointees(Obj, S) : resolve(Obj, S);
  }

  ValueSet objectValues(const CXXMemberCallExpr *Call, const State &S) {
    const auto *ME = dyn_cast<MemberExpr>(Call->getCallee()->IgnoreParens());
    if (ME && ME->isArrow())
      return read(pointees(Call->getImplicitObjectArgument(), S), S);
    return eval(Call->getImplicitObjectArgument(), S);
  }

  void recordUse(std::vector<DescriptorUse> &Uses, const CXXMemberCallExpr *Call,
                 const State &S) {
    const Expr *Obj = Call->getImplicitObjectArgument();
    ValueSet VS = objectValues(Call, S);
    llvm::SmallVector<std::pair<unsigned, bool>, 1> ParamFacts;
    for (auto &[Atom, Holds] : S.Facts)
      if (Atoms[Atom].BoolParam)
        ParamFacts.push_back({*Atoms[Atom].BoolParam, Holds});
    auto [It, Inserted] = UseIndex.emplace(Call, Uses.size());
    if (Inserted) {
      Uses.push_back(DescriptorUse{Call, Obj, VS, ParamFacts});
      return;
    }
    // Reached again (an inlined lambda called twice): what holds on both.
    DescriptorUse &Use = Uses[It->second];
    Use.Values.unionWith(VS);
    llvm::erase_if(Use.ParamFacts,
                   [&](const auto &Fact) { return !llvm::is_contained(ParamFacts, Fact); });
  }

  void transfer(const Stmt *St, State &S, bool Report, unsigned Depth) {
    if (const auto *RS = dyn_cast<ReturnStmt>(St)) {
      if (Report && RS->getRetValue()) {
        if (Depth == 0)
          recordReturn(RS->getRetValue(), S);
        else // Out of an inlined lambda, to a caller that may keep it.
          mark(Escaped, argumentValues(RS->getRetValue(), S));
      }
      return;
    }
    if (const auto *DS = dyn_cast<DeclStmt>(St)) {
      for (const Decl *D : DS->decls())
        if (const auto *VD = dyn_cast<VarDecl>(D))
          declare(VD, S);
      return;
    }
    if (const auto *BO = dyn_cast<BinaryOperator>(St)) {
      if (BO->isAssignmentOp())
        if (const VarDecl *VD = varOf(BO->getLHS())) {
          invalidateVar(VD, S);
          if (VD->getType()->isPointerType() && isTracked(VD->getType()->getPointeeType()))
            S.PointsTo[VD] = pointees(BO->getRHS(), S);
        }
      return;
    }
    if (const auto *UO = dyn_cast<UnaryOperator>(St)) {
      if (UO->isIncrementDecrementOp())
        if (const VarDecl *VD = varOf(UO->getSubExpr()))
          invalidateVar(VD, S);
      return;
    }
    if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(St)) {
      transferOperatorCall(Op, S, Report, Depth);
      return;
    }
    if (const auto *MC = dyn_cast<CXXMemberCallExpr>(St)) {
      transferMemberCall(MC, S, Report, Depth);
      return;
    }
    if (const auto *Call = dyn_cast<CallExpr>(St)) {
      const FunctionDecl *FD = Call->getDirectCallee();
      if (Api.roleOf(FD) != ApiRole::None) {
        // The API's free functions change no descriptor; a factory builds
        // one, used or not (a discarded temporary is never used).
        if (Api.isDescriptorType(Call->getType()))
          eval(Call, S);
        return;
      }
      if (FD && FD->isInStdNamespace() && FD->getIdentifier() &&
          (FD->getName() == "move" || FD->getName() == "forward"))
        return;
      call(Call, FD, callArguments(Call), S, Report, Depth);
      return;
    }
    if (const auto *Construct = dyn_cast<CXXConstructExpr>(St)) {
      if (Api.isDescriptorConstructor(Construct->getConstructor()))
        constructed(Construct, callArguments(Construct), S, Report); // Built here, used or not.
      else if (!isDescriptorContainer(Construct->getType(), Api) &&
          !Construct->getConstructor()->isCopyOrMoveConstructor())
        call(Construct, Construct->getConstructor(), callArguments(Construct), S, Report,
             Depth);
    }
  }

  void transferOperatorCall(const CXXOperatorCallExpr *Op, State &S, bool Report,
                            unsigned Depth) {
    if (Op->getNumArgs() == 0)
      return;
    const Expr *Target = Op->getArg(0);
    QualType T = Target->getType();
    if (Op->getOperator() == OO_Equal && Op->getNumArgs() == 2) {
      if (Api.isDescriptorType(T)) {
        write(resolve(Target, S), eval(Op->getArg(1), S), S, Update::Strong);
        return;
      }
      if (isDescriptorContainer(T, Api)) {
        const Expr *RHS = Op->getArg(1);
        ValueSet VS = Api.isDescriptorType(RHS->getType()) ? eval(RHS, S)
                                                           : elementValues(RHS, S);
        write(elementsOf(resolve(Target, S)), VS, S, Update::WholeContainer);
        return;
      }
      if (isTrackedOptional(T)) {
        write(resolve(Target, S), evalOptional(Op->getArg(1), S), S, Update::Strong);
        return;
      }
      if (const VarDecl *VD = varOf(Target))
        invalidateVar(VD, S);
      return;
    }
    if (Op->getOperator() == OO_Call) {
      if (const LambdaExpr *Lambda = lambdaOf(Target)) {
        inlineLambda(Lambda, S, /*MayNotRun=*/false, Report, Depth);
        return;
      }
      opaqueCall(nullptr, llvm::ArrayRef(Op->getArgs() + 1, Op->getNumArgs() - 1), S, Report,
                 Depth);
      return;
    }
    if (Op->isAssignmentOp() || Op->getOperator() == OO_PlusPlus ||
        Op->getOperator() == OO_MinusMinus)
      if (const VarDecl *VD = varOf(Target))
        invalidateVar(VD, S);
  }

  void transferMemberCall(const CXXMemberCallExpr *MC, State &S, bool Report,
                          unsigned Depth) {
    const CXXMethodDecl *MD = MC->getMethodDecl();
    const Expr *Obj = MC->getImplicitObjectArgument();
    switch (Api.roleOf(MD)) {
    case ApiRole::WaitSend:
      if (Report)
        recordUse(Out.WaitSends, MC, S);
      if (Report)
        mark(Used, objectValues(MC, S));
      return;
    case ApiRole::Start:
      if (Report)
        recordUse(Out.Starts, MC, S);
      [[fallthrough]];
    case ApiRole::Wait:
    case ApiRole::WaitRecv:
      if (Report)
        mark(Used, objectValues(MC, S));
      return;
    case ApiRole::None:
      break;
    default:
      return;
    }
    if (Obj && MD && MD->getIdentifier() && isTrackedOptional(Obj->getType())) {
      StringRef Name = MD->getName();
      if (Name == "reset" || Name == "emplace") {
        write(resolve(Obj, S), ValueSet::of(optionalValue(MC, Name == "emplace")), S,
              Update::Strong);
        return;
      }
    }
    if (Obj && MD && isDescriptorContainer(Obj->getType(), Api)) {
      LocList Elements = elementsOf(resolve(Obj, S));
      StringRef Name = MD->getIdentifier() ? MD->getName() : "";
      if (Name == "push_back" || Name == "emplace_back" || Name == "push_front" ||
          Name == "emplace_front" || Name == "insert" || Name == "emplace") {
        write(Elements, insertedValue(MC, S), S, Update::Weak);
        return;
      }
      if (Name == "clear" || Name == "reset") {
        write(Elements, ValueSet(), S, Update::WholeContainer);
        return;
      }
      if (MD->isConst() || Name == "size" || Name == "begin" || Name == "end" ||
          Name == "at" || Name == "front" || Name == "back" || Name == "value" ||
          Name == "data" || Name == "pop_back" || Name == "reserve" || Name == "empty")
        return;
      write(Elements, unknown(), S, Update::Weak);
      return;
    }
    call(MC, MD, callArguments(MC), S, Report, Depth);
  }

  /// The descriptor a push_back/emplace/insert-style call adds.
  ValueSet insertedValue(const CXXMemberCallExpr *MC, const State &S) {
    llvm::SmallVector<const Expr *, 8> Args(MC->arguments());
    // push_back(d), insert(pos, d): the descriptor argument.
    for (auto It = Args.rbegin(); It != Args.rend(); ++It)
      if (Api.isDescriptorType((*It)->getType()))
        return eval(*It, S);
    // emplace_back(src, dst, sem, ...): the general constructor's arguments.
    if (Args.size() >= 3)
      return constructed(MC, Args, S, /*Report=*/false);
    // insert(pos, {a, b}) and friends.
    ValueSet Result;
    for (const Expr *Arg : Args)
      if (!Arg->getType()->isRecordType() || isa<CXXStdInitializerListExpr>(
                                                 Arg->IgnoreParenImpCasts()))
        Result.unionWith(elementValues(Arg, S));
    return Result.empty() ? unknown() : Result;
  }

  const LambdaExpr *lambdaOf(const Expr *E) {
    E = stripWrappers(E);
    if (const auto *L = dyn_cast<LambdaExpr>(E))
      return L;
    if (const VarDecl *VD = varOf(E))
      if (VD->getInit() && VD->hasLocalStorage() && !VD->getType()->isReferenceType())
        return dyn_cast<LambdaExpr>(stripWrappers(VD->getInit()));
    return nullptr;
  }

  /// Runs a lambda's body from the caller's state: its captures are the
  /// caller's variables. A lambda handed to another function may run or not.
  void inlineLambda(const LambdaExpr *Lambda, State &S, bool MayNotRun, bool Report,
                    unsigned Depth) {
    const CXXMethodDecl *Op = Lambda->getCallOperator();
    const CFG *G = Depth < Limits.MaxLambdaDepth ? cfgFor(Op, Op->getBody()) : nullptr;
    if (!G) {
      forgetCaptures(Lambda, S);
      return;
    }
    State Exit = runCFG(*G, S, Report, Depth + 1);
    if (Out.HitWorkLimit)
      return;
    // The lambda's own locals end with it.
    for (auto It = Exit.Values.begin(); It != Exit.Values.end();)
      It = isLocalTo(It->first.Root, Op) ? Exit.Values.erase(It) : std::next(It);
    if (!Exit.Reachable)
      Exit = S; // It cannot return normally; keep the caller's view.
    else
      Exit.Facts = S.Facts, Exit.PointsTo = S.PointsTo, Exit.RemoteFlags = S.RemoteFlags;
    S = MayNotRun ? join(S, Exit) : std::move(Exit);
  }

  static bool isLocalTo(const ValueDecl *D, const FunctionDecl *Fn) {
    return D && D->getDeclContext() == Fn;
  }

  /// A lambda we cannot follow may change what it captures by reference.
  void forgetCaptures(const LambdaExpr *Lambda, State &S) {
    for (const LambdaCapture &C : Lambda->captures())
      if (C.capturesVariable() && C.getCaptureKind() == LCK_ByRef)
        if (const auto *VD = dyn_cast<VarDecl>(C.getCapturedVar()))
          forgetVar(VD, S);
  }

  /// \p VD's scope ended: nothing can name its locations any more (a pointer
  /// that still does dangles).
  void endLifetime(const VarDecl *VD, State &S) {
    invalidateVar(VD, S);
    S.PointsTo.erase(VD);
    for (auto It = S.RemoteFlags.begin(); It != S.RemoteFlags.end();)
      It = It->second.Root == VD ? S.RemoteFlags.erase(It) : std::next(It);
    auto [First, Last] = locationsOf(VD, S);
    S.Values.erase(First, Last);
  }

  /// The entries of \p S for \p Root and its fields and elements: adjacent,
  /// as locations sort by their root first. (A scan of the whole state per
  /// declaration made a function of n descriptors cost n^2.)
  static std::pair<std::map<Loc, ValueSet>::iterator, std::map<Loc, ValueSet>::iterator>
  locationsOf(const ValueDecl *Root, State &S) {
    auto First = S.Values.lower_bound(Loc{Root, nullptr, false});
    auto Last = First;
    while (Last != S.Values.end() && Last->first.Root == Root)
      ++Last;
    return {First, Last};
  }

  /// Everything stored under \p VD becomes unknown.
  void forgetVar(const VarDecl *VD, State &S) {
    invalidateVar(VD, S);
    auto [First, Last] = locationsOf(VD, S);
    for (auto It = First; It != Last; ++It)
      It->second = unknown();
  }

  /// The summary of a function whose body this translation unit has, if it
  /// can be known: not the API, not a virtual call, not one being analysed.
  const FunctionSummary *summaryFor(const FunctionDecl *FD) {
    if (!FD || !Summaries || !Limits.UseSummaries || Api.roleOf(FD) != ApiRole::None)
      return nullptr;
    if (const auto *MD = dyn_cast<CXXMethodDecl>(FD); MD && MD->isVirtual())
      return nullptr;
    const FunctionDecl *Definition = nullptr;
    if (!FD->hasBody(Definition) || Definition->isDependentContext())
      return nullptr;
    // Only functions that take or return descriptors have anything to say;
    // the rest (most of the standard library) are not analysed at all.
    auto Relevant = [&](QualType T) {
      T = T.getNonReferenceType();
      if (T->isPointerType())
        T = T->getPointeeType();
      return isTracked(T);
    };
    if (!Relevant(Definition->getReturnType()) &&
        llvm::none_of(Definition->parameters(),
                      [&](const ParmVarDecl *P) { return Relevant(P->getType()); }))
      return nullptr;
    return Summaries(*Definition);
  }

  /// The descriptors an argument hands over: the descriptor, a container's
  /// elements, or what a pointer points to.
  ValueSet argumentValues(const Expr *Arg, const State &S) {
    QualType T = Arg->getType();
    if (Api.isDescriptorType(T))
      return eval(Arg, S);
    if (isDescriptorContainer(T, Api))
      return elementValues(Arg, S);
    if (T->isPointerType() && isTracked(T->getPointeeType()))
      return read(pointees(Arg, S), S);
    if (T->isRecordType()) {
      // A local struct holding descriptors hands over all of them.
      ValueSet Held;
      for (const Loc &Whole : resolve(Arg, S))
        for (auto &[L, VS] : S.Values)
          if (L.Root == Whole.Root && L.Field && !Whole.Field)
            Held.unionWith(VS);
      return Held;
    }
    return ValueSet();
  }

  ValueSet returnedValues(const FunctionSummary &Summary, const Expr *Call,
                          llvm::ArrayRef<const Expr *> Args, const State &S) {
    ValueSet Result;
    for (Remoteness Kind : Summary.Returns)
      Result.unionWith(ValueSet::of(originValue(Call, Kind)));
    // A parameter handed back: whatever the caller passed.
    for (unsigned I : Summary.ReturnsParams)
      Result.unionWith(I < Args.size() ? argumentValues(Args[I], S) : unknown());
    if (Summary.ReturnsUnknown || Result.empty())
      Result.unionWith(unknown());
    return Result;
  }

  void recordReturn(const Expr *Returned, const State &S) {
    ValueSet VS = Api.isDescriptorType(Returned->getType())
                      ? eval(Returned, S)
                      : isDescriptorContainer(Returned->getType(), Api)
                            ? elementValues(Returned, S)
                            : ValueSet();
    mark(Escaped, VS);
    FunctionSummary &Summary = Out.Summary;
    for (const Value &V : VS.values()) {
      const OriginInfo &O = Out.Origins[V.Origin];
      if (O.Param) {
        if (!llvm::is_contained(Summary.ReturnsParams, O.ParamIndex))
          Summary.ReturnsParams.push_back(O.ParamIndex);
      } else if (O.Kind == Remoteness::Unknown) {
        Summary.ReturnsUnknown = true;
      } else if (!llvm::is_contained(Summary.Returns, O.Kind)) {
        Summary.Returns.push_back(O.Kind);
      }
    }
  }

  /// A call: through the callee's summary where there is one.
  void call(const Expr *Call, const FunctionDecl *Callee, llvm::ArrayRef<const Expr *> Args,
            State &S, bool Report, unsigned Depth) {
    const FunctionSummary *Summary = summaryFor(Callee);
    if (!Summary) {
      opaqueCall(Callee, Args, S, Report, Depth);
      return;
    }
    for (unsigned I = 0; I < Args.size(); ++I) {
      const Expr *Arg = Args[I];
      if (const LambdaExpr *Lambda = lambdaOf(Arg)) {
        inlineLambda(Lambda, S, /*MayNotRun=*/true, Report, Depth);
        continue;
      }
      if (I >= Summary->Params.size() || isa<CXXDefaultArgExpr>(Arg))
        continue;
      const ParameterSummary &P = Summary->Params[I];
      ValueSet VS = argumentValues(Arg, S);
      if (Report) {
        if (P.MayUse)
          mark(Used, VS);
        if (P.Escapes)
          mark(Escaped, VS);
        if (P.RequiresRemote && !VS.empty() && applies(*P.RequiresRemote, Args))
          recordHelperWaitSend(Call, Callee, Arg, I, VS, *P.RequiresRemote);
      }
      if (P.MayWrite) {
        const Expr *Plain = Arg->IgnoreParenImpCasts();
        LocList Targets = Plain->getType()->isPointerType() ? pointees(Plain, S)
                                                            : resolve(Plain, S);
        if (isDescriptorContainer(Plain->getType(), Api))
          Targets = elementsOf(Targets);
        for (const Loc &L : Targets)
          forgetLoc(L, S);
      }
    }
  }

  /// False when a constant argument rules the requirement out:
  /// `do_copy(/*wait=*/false, local)` only starts.
  bool applies(const SendWaitRequirement &Requirement, llvm::ArrayRef<const Expr *> Args) {
    for (auto &[Index, Value] : Requirement.WhenParams) {
      if (Index >= Args.size() || Args[Index]->isValueDependent())
        continue;
      bool Constant;
      if (Args[Index]->EvaluateAsBooleanCondition(Constant, Ctx) && Constant != Value)
        return false;
    }
    return true;
  }

  void recordHelperWaitSend(const Expr *Call, const FunctionDecl *Callee, const Expr *Arg,
                            unsigned Param, const ValueSet &VS,
                            const SendWaitRequirement &Inner) {
    auto It = llvm::find_if(Out.HelperWaitSends, [&](const HelperWaitSend &H) {
      return H.Call == Call && H.Param == Param;
    });
    if (It == Out.HelperWaitSends.end())
      Out.HelperWaitSends.push_back(HelperWaitSend{Call, Callee, Arg, Param, VS, Inner});
    else
      It->Values.unionWith(VS);
  }

  /// What this function's callers need to know, from the report sweep.
  void summarise(const FunctionDecl &FD) {
    FunctionSummary &Summary = Out.Summary;
    auto Require = [&](const ValueSet &VS, const SendWaitRequirement &Requirement) {
      for (const Value &V : VS.values()) {
        if (!isUnguardedParam(V))
          continue;
        ParameterSummary &P = Summary.Params[Out.Origins[V.Origin].ParamIndex];
        if (!P.RequiresRemote) {
          P.RequiresRemote = Requirement;
        } else if (P.RequiresRemote->WhenParams != Requirement.WhenParams) {
          // Two wait_sends under different conditions: under any condition.
          P.RequiresRemote->WhenParams.clear();
        }
      }
    };
    for (const DescriptorUse &Use : Out.WaitSends)
      Require(Use.Values, SendWaitRequirement{Use.Call, {}, Use.ParamFacts});
    for (const HelperWaitSend &H : Out.HelperWaitSends) {
      SendWaitRequirement Chained = H.Requirement;
      Chained.Through.insert(Chained.Through.begin(), H.Call);
      Chained.WhenParams.clear(); // They were the callee's parameters.
      Require(H.Values, Chained);
    }
    for (OriginId Id = 0; Id < Out.Origins.size(); ++Id) {
      const OriginInfo &O = Out.Origins[Id];
      if (!O.Param || O.ParamIndex >= Summary.Params.size())
        continue;
      Summary.Params[O.ParamIndex].MayUse = Id < Used.size() && Used[Id];
      Summary.Params[O.ParamIndex].Escapes = Id < Escaped.size() && Escaped[Id];
    }
    for (unsigned I = 0; I < FD.getNumParams(); ++I) {
      QualType T = FD.getParamDecl(I)->getType();
      Summary.Params[I].MayWrite =
          WrittenParams.count(FD.getParamDecl(I)) &&
          (T->isReferenceType() || T->isPointerType()) &&
          !T->getPointeeType().isConstQualified();
    }
    Out.UsedOrEscaped.assign(Out.Origins.size(), false);
    for (OriginId Id = 0; Id < Out.Origins.size(); ++Id)
      Out.UsedOrEscaped[Id] =
          (Id < Used.size() && Used[Id]) || (Id < Escaped.size() && Escaped[Id]);
  }

  /// A call the analysis does not model: lambdas passed to it may run;
  /// descriptors (and containers) passed by non-const reference or pointer
  /// become unknown; variables passed by reference may have changed.
  void opaqueCall(const FunctionDecl *Callee, llvm::ArrayRef<const Expr *> Args, State &S,
                  bool Report, unsigned Depth) {
    for (unsigned I = 0; I < Args.size(); ++I) {
      const Expr *Arg = Args[I];
      if (isa<CXXDefaultArgExpr>(Arg))
        continue;
      if (const LambdaExpr *Lambda = lambdaOf(Arg)) {
        inlineLambda(Lambda, S, /*MayNotRun=*/true, Report, Depth);
        continue;
      }
      if (Report)
        mark(Escaped, argumentValues(Arg, S)); // Handed where we cannot see.
      QualType ParamType;
      if (Callee && I < Callee->getNumParams())
        ParamType = Callee->getParamDecl(I)->getType();
      bool ByMutableRef =
          ParamType.isNull()
              ? Arg->isGLValue()
              : (ParamType->isReferenceType() &&
                 !ParamType.getNonReferenceType().isConstQualified());
      const Expr *Plain = Arg->IgnoreParenImpCasts();
      if (const auto *UO = dyn_cast<UnaryOperator>(Plain); UO && UO->getOpcode() == UO_AddrOf) {
        for (const Loc &L : resolve(UO->getSubExpr(), S))
          forgetLoc(L, S);
        if (const VarDecl *VD = varOf(UO->getSubExpr()))
          invalidateVar(VD, S);
        continue;
      }
      if (Plain->getType()->isPointerType() && isTracked(Plain->getType()->getPointeeType())) {
        for (const Loc &L : pointees(Plain, S))
          forgetLoc(L, S);
        continue;
      }
      if (!ByMutableRef)
        continue;
      if (isTracked(Arg->getType()))
        for (const Loc &L : resolve(Arg, S))
          forgetLoc(L, S);
      if (const VarDecl *VD = varOf(Arg))
        invalidateVar(VD, S);
    }
  }

  void forgetLoc(const Loc &L, State &S) {
    if (!L.Elements && !L.Field) {
      forgetVar(cast<VarDecl>(L.Root), S);
      return;
    }
    write(LocList{L}, unknown(), S, L.Elements ? Update::WholeContainer : Update::Strong);
  }
};

} // namespace

bool operator==(const FunctionSummary &A, const FunctionSummary &B) {
  if (A.Params.size() != B.Params.size() || A.Returns != B.Returns ||
      A.ReturnsParams != B.ReturnsParams || A.ReturnsUnknown != B.ReturnsUnknown)
    return false;
  for (size_t I = 0; I < A.Params.size(); ++I) {
    const ParameterSummary &P = A.Params[I], &Q = B.Params[I];
    if (P.MayUse != Q.MayUse || P.Escapes != Q.Escapes || P.MayWrite != Q.MayWrite ||
        P.RequiresRemote.has_value() != Q.RequiresRemote.has_value())
      return false;
  }
  return true;
}

uint64_t reachableBlocksAtLeast(const Stmt &Body) {
  uint64_t Blocks = 0;
  llvm::SmallVector<const Stmt *, 64> Pending{&Body};
  while (!Pending.empty()) {
    const Stmt *S = Pending.pop_back_val();
    if (!S)
      continue;
    if (const auto *Lambda = dyn_cast<LambdaExpr>(S)) {
      // Its body is a CFG of its own; its captures are evaluated here.
      for (const Expr *Init : Lambda->capture_inits())
        Pending.push_back(Init);
      continue;
    }
    if (const auto *If = dyn_cast<IfStmt>(S)) {
      if (!If->isConstexpr())
        Blocks += 1; // The block that ends with the condition.
    } else if (isa<DoStmt>(S)) {
      Blocks += 1; // do { } while (0) runs once: its way back never runs.
    } else if (isa<ForStmt, WhileStmt, CXXForRangeStmt>(S)) {
      // The condition's block, and the one that loops back: a loop whose
      // condition is a literal false never gets there.
      const Expr *Cond = isa<ForStmt>(S)   ? cast<ForStmt>(S)->getCond()
                         : isa<WhileStmt>(S) ? cast<WhileStmt>(S)->getCond()
                                             : nullptr;
      const Expr *Literal = Cond ? Cond->IgnoreParenImpCasts() : nullptr;
      bool LiteralFalse = false;
      if (const auto *Int = dyn_cast_or_null<IntegerLiteral>(Literal))
        LiteralFalse = Int->getValue().isZero();
      else if (const auto *Bool = dyn_cast_or_null<CXXBoolLiteralExpr>(Literal))
        LiteralFalse = !Bool->getValue();
      Blocks += LiteralFalse ? 1 : 2;
    } else if (isa<ConditionalOperator, BinaryConditionalOperator, SwitchCase>(S)) {
      Blocks += 1;
    } else if (const auto *BO = dyn_cast<BinaryOperator>(S); BO && BO->isLogicalOp()) {
      Blocks += 1;
    }
    for (const Stmt *Child : S->children())
      Pending.push_back(Child);
  }
  return Blocks;
}

FunctionAnalysis analyzeFunction(const FunctionDecl &FD, ASTContext &Ctx,
                                 const ApiIndex &Api, const AnalysisLimits &Limits,
                                 const SummaryLookup &Summaries) {
  FunctionAnalysis Out;
  if (!FD.hasBody() || FD.isDependentContext())
    return Out;
  // Every reachable block is visited at least once, so a function with more
  // blocks than the work limit is skipped (runCFG). For a body long enough to
  // hold that many branches, the AST says so before a CFG of that size is
  // built: a branch takes at least one character, so shorter bodies are not
  // counted (one written with macros may still be; then runCFG skips it).
  const SourceManager &SM = Ctx.getSourceManager();
  const Stmt *Body = FD.getBody();
  SourceLocation Begin = SM.getExpansionLoc(Body->getBeginLoc());
  SourceLocation End = SM.getExpansionLoc(Body->getEndLoc());
  if (Begin.isValid() && End.isValid() && SM.getFileID(Begin) == SM.getFileID(End) &&
      SM.getFileOffset(End) - SM.getFileOffset(Begin) >= Limits.MaxBlockVisits &&
      reachableBlocksAtLeast(*Body) > Limits.MaxBlockVisits) {
    Out.HitWorkLimit = true;
    return Out;
  }
  Analyzer(Ctx, Api, Limits, Summaries, Out).run(FD);
  return Out;
}

} // namespace dmalint
