//===- ShapeMismatchCheck.h -------------------------------------*- C++ -*-===//
#ifndef DMALINT_CHECKS_SHAPEMISMATCHCHECK_H
#define DMALINT_CHECKS_SHAPEMISMATCHCHECK_H

#include "DataflowCheck.h"

namespace dmalint::checks {

/// Flags a copy that is started or waited whose source and target are
/// slices of different constant sizes, which Mosaic's verifier rejects
/// ("DMA source and target shape mismatch").
///
/// For the user-facing documentation see: docs/checks/dma-shape-mismatch.md
class ShapeMismatchCheck : public DataflowCheck {
public:
  using DataflowCheck::DataflowCheck;
  void registerDmaMatchers(DmaMatchers &Matchers) override;
  void check(const clang::ast_matchers::MatchFinder::MatchResult &Result) override;

private:
  /// Reports \p Copy (a construction, ApiIndex::isCopy) when its slices differ.
  void judge(const clang::Expr &Copy, clang::ASTContext &Ctx);
};

} // namespace dmalint::checks

#endif
