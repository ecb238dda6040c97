//===- Liveness.cpp - Locals no path mentions again leave the state -------===//
//
// A block visit copies its entry state and joins states at merges, so what a
// visit costs is the size of the state. One backward pass over the CFG (bit
// vectors of blocks by locals) finds, for each block, the locals that no path
// from its exit names again; they leave the state on the block's outgoing
// edges. Without it a function of n sequential steps costs n^2.
//
//===----------------------------------------------------------------------===//
#include "Analyzer.h"
#include "llvm/ADT/BitVector.h"

using namespace clang;

namespace dmalint {

/// By block ID: the locals declared in \p G that no path from the block's
/// exit mentions again. Their locations leave the state there, so a
/// function's state holds the descriptors still to be used, not every one
/// it built (a kernel of n sequential steps would otherwise cost n^2).
/// Locals a lambda captures are kept: calling it later reads them without
/// naming them. Empty when the function is too large to compute it cheaply.
std::vector<llvm::SmallVector<const VarDecl *, 2>>
deadLocals(const CFG &G, llvm::ArrayRef<const CFGBlock *> Order, const RangeForMap &RangeFors) {
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
          if (const CXXForRangeStmt *For = RangeFors.lookup(VD)) {
            Pending.push_back(For->getRangeInit());
            // A temporary range lives in the loop's hidden range variable.
            Pending.push_back(For->getRangeStmt());
          }
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
  // One scratch vector for every block and pass: assigning it to a block's
  // vector of the same size copies words, it allocates nothing.
  llvm::BitVector Live(Vars.size());
  for (bool Changed = true; Changed;) {
    Changed = false;
    for (auto It = Order.rbegin(); It != Order.rend(); ++It) {
      const CFGBlock *B = *It;
      Live.reset();
      for (const CFGBlock::AdjacentBlock &Succ : B->succs())
        if (const CFGBlock *S = Succ.getReachableBlock()) {
          Live |= Mentions[S->getBlockID()];
          Live |= LiveOut[S->getBlockID()];
        }
      if (Live != LiveOut[B->getBlockID()]) {
        LiveOut[B->getBlockID()] = Live;
        Changed = true;
      }
    }
  }
  // Dead at a block's exit: what may be in the state there (mentioned in
  // it or live after a predecessor) and is not live after it.
  Dead.resize(NumBlocks);
  llvm::BitVector &Present = Live;
  for (const CFGBlock *B : Order) {
    Present = Mentions[B->getBlockID()];
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
void Analyzer::dropDeadLocals(const CFGBlock &B, State &S) {
  const BodyCfg *Body = Cfgs.of(*B.getParent());
  if (!Body || Body->DeadAfter.empty())
    return;
  for (const VarDecl *VD : Body->DeadAfter[B.getBlockID()]) {
    bool Designated = llvm::any_of(S.Cells, [&](const auto &Entry) {
      return Entry.first.Root != VD && llvm::any_of(Entry.second.Targets, [&](const Location &L) {
               return L.Kind == Location::Variable && L.Root == VD;
             });
    });
    if (!Designated)
      endLifetime(VD, S);
  }
}

} // namespace dmalint
