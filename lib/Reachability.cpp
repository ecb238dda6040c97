//===- Reachability.cpp - Whether one statement may run after another -----===//
#include "dmalint/Reachability.h"
#include "llvm/ADT/BitVector.h"
#include "llvm/ADT/SmallVector.h"

using namespace clang;

namespace dmalint {

void BodyReachability::index() const {
  if (Indexed)
    return;
  Indexed = true;
  for (const CFGBlock *B : *Graph)
    for (unsigned I = 0; I < B->size(); ++I)
      if (std::optional<CFGStmt> S = (*B)[I].getAs<CFGStmt>())
        Elements.try_emplace(S->getStmt(), B, I);
}

std::pair<const CFGBlock *, unsigned> BodyReachability::elementOf(const Stmt *S) const {
  index();
  return Elements.lookup(S);
}

bool BodyReachability::mayReach(const Stmt *From, const Stmt *To, const Stmt *Loop) const {
  if (!Graph || !From || !To)
    return true;
  auto [FromBlock, FromIndex] = elementOf(From);
  auto [ToBlock, ToIndex] = elementOf(To);
  if (!FromBlock || !ToBlock)
    return true; // Not an element of this CFG: it cannot tell.
  if (FromBlock == ToBlock && FromIndex < ToIndex)
    return true;
  // Search the blocks after From's; a block that ends Loop's iteration (its
  // back edge: clang marks it with the loop as its target) leads nowhere.
  llvm::BitVector Seen(Graph->getNumBlockIDs());
  llvm::SmallVector<const CFGBlock *, 16> Work;
  auto Successors = [&](const CFGBlock *B) {
    if (Loop && B->getLoopTarget() == Loop)
      return;
    for (const CFGBlock::AdjacentBlock &Next : B->succs())
      if (const CFGBlock *N = Next.getReachableBlock(); N && !Seen.test(N->getBlockID())) {
        Seen.set(N->getBlockID());
        Work.push_back(N);
      }
  };
  Successors(FromBlock);
  while (!Work.empty()) {
    const CFGBlock *B = Work.pop_back_val();
    if (B == ToBlock)
      return true;
    Successors(B);
  }
  return false;
}

} // namespace dmalint
