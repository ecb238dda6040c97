//===- StartPriorityCheck.h -------------------------------------*- C++ -*-===//
#ifndef DMALINT_CHECKS_STARTPRIORITYCHECK_H
#define DMALINT_CHECKS_STARTPRIORITYCHECK_H

#include "DataflowCheck.h"

namespace dmalint::checks {

/// Flags `start(p)` with a constant priority the TPU rejects: negative, above
/// 1, or non-zero on a copy that is (or may be) remote.
///
/// For the user-facing documentation see: docs/checks/dma-start-priority.md
class StartPriorityCheck : public DataflowCheck {
public:
  using DataflowCheck::DataflowCheck;
  void registerDmaMatchers(DmaMatchers &Matchers) override;
  void check(const clang::ast_matchers::MatchFinder::MatchResult &Result) override;

private:
  /// The constant priority of a start call, when written and constant.
  std::optional<int64_t> priorityOf(const clang::CXXMemberCallExpr &Call,
                                    const clang::ASTContext &Ctx) const;
  void checkConstant(const clang::CXXMemberCallExpr &Call, clang::ASTContext &Ctx);
  void checkRemote(const clang::FunctionDecl &Function, clang::ASTContext &Ctx);
};

} // namespace dmalint::checks

#endif
