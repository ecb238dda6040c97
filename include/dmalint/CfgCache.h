//===- CfgCache.h - The CFGs of a translation unit's bodies, built once ---===//
//
// A lambda's body is run inlined at every call of every function that calls
// it, and analysed as a function of its own; a helper's body is analysed
// for its summary and again for its own findings. Each of those analyses is
// an Analyzer of its own, so a CFG kept per Analyzer was built once per
// analysis that reached the body (317 builds for about 60 bodies in the
// corpus' mla_ragged_paged_attention.cc). The
// CFG, the order the fixed point visits its blocks in and the locals dead
// after each block depend on the body alone: they are kept here, once per
// translation unit.
//
//===----------------------------------------------------------------------===//
#ifndef DMALINT_CFGCACHE_H
#define DMALINT_CFGCACHE_H

#include "clang/Analysis/CFG.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallVector.h"
#include <memory>
#include <vector>

namespace dmalint {

/// The reachable blocks of a CFG, each strongly connected component
/// contiguous, components in topological order, and the blocks of one
/// component in reverse post-order (lib/Worklist.cpp).
struct ComponentOrder {
  std::vector<const clang::CFGBlock *> Blocks;
  std::vector<unsigned> ComponentStart; ///< By position: where its component starts.
};

using RangeForMap = llvm::DenseMap<const clang::VarDecl *, const clang::CXXForRangeStmt *>;

/// What the analysis needs of one body's CFG.
struct BodyCfg {
  std::unique_ptr<clang::CFG> Graph;
  ComponentOrder Order;
  /// By block ID: the locals that leave the state on the block's edges.
  std::vector<llvm::SmallVector<const clang::VarDecl *, 2>> DeadAfter;
};

class CfgCache {
public:
  /// The CFG of \p Body, the body of \p D; null when clang cannot build one.
  const BodyCfg *get(const clang::Decl *D, clang::Stmt *Body, clang::ASTContext &Ctx);
  /// What get() returned \p G in.
  const BodyCfg *of(const clang::CFG &G) const { return ByGraph.lookup(&G); }
  /// The range-for whose loop variable \p VD is, in a body built here.
  const clang::CXXForRangeStmt *rangeForOf(const clang::VarDecl *VD) const {
    return RangeFors.lookup(VD);
  }

private:
  /// By body; a constructor's by the constructor, as its graph holds its
  /// member initialisers (instantiations of a class template may share one
  /// body, `{}`, and not their initialisers).
  llvm::DenseMap<const void *, std::unique_ptr<BodyCfg>> Bodies;
  llvm::DenseMap<const clang::CFG *, const BodyCfg *> ByGraph;
  RangeForMap RangeFors;
};

} // namespace dmalint

#endif // DMALINT_CFGCACHE_H
