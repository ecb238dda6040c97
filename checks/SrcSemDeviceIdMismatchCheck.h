//===- SrcSemDeviceIdMismatchCheck.h ----------------------------*- C++ -*-===//
#ifndef DMALINT_CHECKS_SRCSEMDEVICEIDMISMATCHCHECK_H
#define DMALINT_CHECKS_SRCSEMDEVICEIDMISMATCHCHECK_H

#include "DataflowCheck.h"
#include "dmalint/Arguments.h"

namespace dmalint::checks {

/// Flags a descriptor built with exactly one of `src_sem` and `device_id`,
/// written so or, through optional variables, on some path.
///
/// For the user-facing documentation see:
/// docs/checks/dma-src-sem-device-id-mismatch.md
class SrcSemDeviceIdMismatchCheck : public DataflowCheck {
public:
  using DataflowCheck::DataflowCheck;
  void registerDmaMatchers(DmaMatchers &Matchers) override;
  void check(const clang::ast_matchers::MatchFinder::MatchResult &Result) override;

private:
  /// Both arguments written out at \p Site (a value, std::nullopt, or
  /// omitted): a construction, or a standard function forwarding \p Args to
  /// \p Constructor (emplace_back(...)).
  void checkWritten(const clang::Expr &Site, const clang::CXXConstructorDecl &Constructor,
                    llvm::ArrayRef<const clang::Expr *> Args,
                    Engagement (*EngagementOf)(llvm::ArrayRef<const clang::Expr *>, unsigned),
                    clang::ASTContext &Ctx);
  /// An optional variable that is engaged on some paths only.
  void checkPaths(const clang::FunctionDecl &Function, clang::ASTContext &Ctx);
};

} // namespace dmalint::checks

#endif
