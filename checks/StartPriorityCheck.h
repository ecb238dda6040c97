//===- StartPriorityCheck.h -------------------------------------*- C++ -*-===//
#ifndef DMALINT_CHECKS_STARTPRIORITYCHECK_H
#define DMALINT_CHECKS_STARTPRIORITYCHECK_H

#include "dmalint/ApiModel.h"
#include "clang-tidy/ClangTidyCheck.h"

namespace dmalint::checks {

/// Flags `start(p)` with a constant priority the TPU rejects: negative, or
/// above 1.
///
/// For the user-facing documentation see: docs/checks/dma-start-priority.md
class StartPriorityCheck : public clang::tidy::ClangTidyCheck {
public:
  StartPriorityCheck(llvm::StringRef Name, clang::tidy::ClangTidyContext *Context);
  bool isLanguageVersionSupported(const clang::LangOptions &LangOpts) const override {
    return LangOpts.CPlusPlus17;
  }
  void registerMatchers(clang::ast_matchers::MatchFinder *Finder) override;
  void check(const clang::ast_matchers::MatchFinder::MatchResult &Result) override;

private:
  std::shared_ptr<const ApiIndex> Api;
};

} // namespace dmalint::checks

#endif
