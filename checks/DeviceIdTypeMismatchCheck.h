//===- DeviceIdTypeMismatchCheck.h ------------------------------*- C++ -*-===//
#ifndef DMALINT_CHECKS_DEVICEIDTYPEMISMATCHCHECK_H
#define DMALINT_CHECKS_DEVICEIDTYPEMISMATCHCHECK_H

#include "dmalint/ApiModel.h"
#include "clang-tidy/ClangTidyCheck.h"

namespace dmalint::checks {

/// Flags a device id made of several mesh coordinates passed with the
/// logical device-id kind, which takes a single id.
///
/// For the user-facing documentation see:
/// docs/checks/dma-device-id-type-mismatch.md
class DeviceIdTypeMismatchCheck : public clang::tidy::ClangTidyCheck {
public:
  DeviceIdTypeMismatchCheck(llvm::StringRef Name, clang::tidy::ClangTidyContext *Context);
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
