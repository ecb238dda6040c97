//===- WaitSendOnLocalCopyCheck.h -------------------------------*- C++ -*-===//
#ifndef DMALINT_CHECKS_WAITSENDONLOCALCOPYCHECK_H
#define DMALINT_CHECKS_WAITSENDONLOCALCOPYCHECK_H

#include "DataflowCheck.h"

namespace dmalint::checks {

/// Flags `wait_send()` on a descriptor that is, or on some path may be, a
/// local copy, which has no send side.
///
/// For the user-facing documentation see:
/// docs/checks/dma-wait-send-on-local-copy.md
class WaitSendOnLocalCopyCheck : public DataflowCheck {
public:
  using DataflowCheck::DataflowCheck;
  void registerDmaMatchers(DmaMatchers &Matchers) override;
  void check(const clang::ast_matchers::MatchFinder::MatchResult &Result) override;

private:
  /// A local copy handed to a helper whose summary waits its send side.
  void reportHelperCall(const HelperWaitSend &Helper, const FunctionAnalysis &Analysis,
                        clang::ASTContext &Ctx);
};

} // namespace dmalint::checks

#endif
