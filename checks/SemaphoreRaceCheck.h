//===- SemaphoreRaceCheck.h -------------------------------------*- C++ -*-===//
#ifndef DMALINT_CHECKS_SEMAPHORERACECHECK_H
#define DMALINT_CHECKS_SEMAPHORERACECHECK_H

#include "DataflowCheck.h"

namespace dmalint::checks {

/// Flags a wait on a semaphore that a copy into another slot of the same
/// buffer, started before it in the same step and still in flight, also
/// signals: the wait may return on that copy's bytes.
///
/// For the user-facing documentation see: docs/checks/dma-semaphore-race.md
class SemaphoreRaceCheck : public DataflowCheck {
public:
  using DataflowCheck::DataflowCheck;
  void registerDmaMatchers(DmaMatchers &Matchers) override;
  void check(const clang::ast_matchers::MatchFinder::MatchResult &Result) override;
};

} // namespace dmalint::checks

#endif
