//===- BoolRefCheck.h -------------------------------------------*- C++ -*-===//
#ifndef DMALINT_CHECKS_BOOLREFCHECK_H
#define DMALINT_CHECKS_BOOLREFCHECK_H

#include "DmaCheck.h"
#include <set>

namespace dmalint::checks {

/// Flags a copy whose source or target is a buffer of bool, which Pallas TPU
/// rejects ("DMAs with bool dtypes are not supported").
///
/// For the user-facing documentation see: docs/checks/dma-bool-ref.md
class BoolRefCheck : public DmaCheck {
public:
  using DmaCheck::DmaCheck;
  void registerDmaMatchers(DmaMatchers &Matchers) override;
  void check(const clang::ast_matchers::MatchFinder::MatchResult &Result) override;
  void onStartOfTranslationUnit() override { Reported.clear(); }

private:
  /// One finding per spelling, however many instantiations reach it.
  std::set<unsigned> Reported;
};

} // namespace dmalint::checks

#endif
