//===- DataflowCheck.h - Base of the checks that read the descriptor analysis -*- C++ -*-===//
#ifndef DMALINT_CHECKS_DATAFLOWCHECK_H
#define DMALINT_CHECKS_DATAFLOWCHECK_H

#include "DmaCheck.h"
#include "dmalint/AnalysisCache.h"
#include "clang/ASTMatchers/ASTMatchers.h"
#include <memory>

namespace dmalint::checks {

/// A check that judges the events of the shared per-function analysis. It
/// owns no analysis of its own: it asks the translation unit's cache.
class DataflowCheck : public DmaCheck {
public:
  DataflowCheck(llvm::StringRef Name, clang::tidy::ClangTidyContext *Context);
  void onStartOfTranslationUnit() override { AnalysisCache::current().reset(); }
  void storeOptions(clang::tidy::ClangTidyOptions::OptionMap &Opts) override;

protected:
  /// Function definitions that touch the API at all (call a descriptor
  /// method, a factory, or build a descriptor): the others cost nothing.
  clang::ast_matchers::internal::BindableMatcher<clang::Decl> functionsUsingApi() const;

  /// The analysis of \p FD, or null when it must not be judged: a template
  /// pattern, a translation unit with errors, or a function over the work
  /// limit (then reported as a remark when ReportSkippedFunctions is set).
  const FunctionAnalysis *analysisOf(const clang::FunctionDecl &FD,
                                     clang::ASTContext &Ctx);
  /// One note per origin, at its construction; \p Message takes the name as %0.
  void noteConstructions(const FunctionAnalysis &Analysis, llvm::ArrayRef<OriginId> Origins,
                         llvm::StringRef Message, llvm::StringRef Name);
  /// The source text of a descriptor expression, for messages.
  static std::string nameOf(const clang::Expr *E, const clang::ASTContext &Ctx);

  AnalysisLimits Limits;
  bool ReportSkippedFunctions;
};

/// Makes every dataflow check report each function it skips at its work
/// limit, whatever its ReportSkippedFunctions option says. The standalone
/// dmalint does (it counts them, lists them in SARIF, and prints the remarks
/// the options ask for); the plugin never calls it.
void reportEverySkippedFunction();

} // namespace dmalint::checks

#endif
