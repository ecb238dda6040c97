//===- SendNeverWaitedCheck.h -----------------------------------*- C++ -*-===//
#ifndef DMALINT_CHECKS_SENDNEVERWAITEDCHECK_H
#define DMALINT_CHECKS_SENDNEVERWAITEDCHECK_H

#include "DataflowCheck.h"

namespace dmalint::checks {

/// Flags `wait_recv()` on a remote copy whose send semaphore the kernel
/// waits nowhere: the semaphore is still signalled when the kernel exits.
///
/// For the user-facing documentation see: docs/checks/dma-send-never-waited.md
class SendNeverWaitedCheck : public DataflowCheck {
public:
  using DataflowCheck::DataflowCheck;
  void registerDmaMatchers(DmaMatchers &Matchers) override;
  void check(const clang::ast_matchers::MatchFinder::MatchResult &Result) override;
};

} // namespace dmalint::checks

#endif
