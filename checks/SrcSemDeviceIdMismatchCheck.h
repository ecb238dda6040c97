//===- SrcSemDeviceIdMismatchCheck.h ----------------------------*- C++ -*-===//
#ifndef DMALINT_CHECKS_SRCSEMDEVICEIDMISMATCHCHECK_H
#define DMALINT_CHECKS_SRCSEMDEVICEIDMISMATCHCHECK_H

#include "dmalint/ApiModel.h"
#include "clang-tidy/ClangTidyCheck.h"

namespace dmalint::checks {

/// Flags a descriptor built with exactly one of `src_sem` and `device_id`.
///
/// For the user-facing documentation see:
/// docs/checks/dma-src-sem-device-id-mismatch.md
class SrcSemDeviceIdMismatchCheck : public clang::tidy::ClangTidyCheck {
public:
  SrcSemDeviceIdMismatchCheck(llvm::StringRef Name, clang::tidy::ClangTidyContext *Context);
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
