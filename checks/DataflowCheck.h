//===- DataflowCheck.h - Base of the checks that read the descriptor analysis -*- C++ -*-===//
#ifndef DMALINT_CHECKS_DATAFLOWCHECK_H
#define DMALINT_CHECKS_DATAFLOWCHECK_H

#include "DmaCheck.h"
#include "dmalint/AnalysisCache.h"
#include "clang/ASTMatchers/ASTMatchers.h"
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace dmalint::checks {

/// A function definition that uses the API (definitionUsingApi), or calls a
/// function of the translation unit that does: the protocol checks follow
/// helpers' summaries.
bool definitionReachingApi(const clang::FunctionDecl &FD, clang::ASTContext &Ctx,
                           const ApiIndex &Api);

/// A diagnostic a dataflow check would give at one spelling, as data.
struct Candidate {
  clang::SourceLocation Loc;
  std::string Message;
  bool Definite = true;
  std::vector<clang::FixItHint> Fixes;
  std::vector<std::pair<clang::SourceLocation, std::string>> Notes;
};

/// A check that judges the answers of the shared per-function analysis. It
/// owns no analysis of its own: it asks the translation unit's cache.
///
/// Its findings wait for the end of the translation unit: a template's
/// instantiations each give their verdict on the spellings they reach, and a
/// finding is reported once per spelling, only when no instantiation that
/// reaches it proves it wrong (one that cannot tell does not object); it is
/// definite when every one says so, and keeps its fix-its when every one
/// would make the same.
class DataflowCheck : public DmaCheck {
public:
  DataflowCheck(llvm::StringRef Name, clang::tidy::ClangTidyContext *Context);
  void onStartOfTranslationUnit() override;
  void onEndOfTranslationUnit() override;
  void storeOptions(clang::tidy::ClangTidyOptions::OptionMap &Opts) override;

protected:
  /// The analysis of \p FD, or null when it must not be judged: a template
  /// pattern, a translation unit with errors, a lambda judged with the
  /// function it is written in (analysedWithEnclosingFunction), or a
  /// function over the work limit (then reported as a remark when
  /// ReportSkippedFunctions is set).
  const FunctionAnalysis *analysisOf(const clang::FunctionDecl &FD, clang::ASTContext &Ctx);
  /// As analysisOf, for a check that judges a lambda on its own even where
  /// the function it is written in ran it (\p Alone): what holds within one
  /// call of it, which that function's judgement may not see.
  const FunctionAnalysis *analysisOf(const clang::FunctionDecl &FD, clang::ASTContext &Ctx,
                                     bool Alone);
  /// Whether \p FD is a lambda's call operator whose body the analysis of
  /// the function it is written in ran at every call it met, and never had
  /// to leave unrun (FunctionAnalysis::ranEveryCallOf).
  bool analysedWithEnclosingFunction(const clang::FunctionDecl &FD, clang::ASTContext &Ctx);

  /// One instantiation's verdict at \p Key: a finding, or (nullopt) a proof
  /// that there is none there.
  void reached(clang::SourceLocation Key, std::optional<Candidate> Finding);
  /// Notes at the constructions of \p Origins, \p Message with %0 for \p Name.
  static void noteConstructions(Candidate &C, const FunctionAnalysis &Analysis,
                                llvm::ArrayRef<OriginId> Origins, llvm::StringRef Message,
                                llvm::StringRef Name);
  /// The source text of a descriptor expression, for messages.
  static std::string nameOf(const clang::Expr *E, const clang::ASTContext &Ctx);

  AnalysisLimits Limits;
  bool ReportSkippedFunctions;

private:
  struct Votes {
    std::vector<Candidate> Found;
    bool Disproved = false;
  };
  std::map<unsigned, Votes> Pending;
  std::vector<unsigned> Order;
};

/// \p Format with each %N replaced by \p Args[N].
std::string formatMessage(llvm::StringRef Format, llvm::ArrayRef<std::string> Args);

/// Makes every dataflow check report each function it skips at its work
/// limit, whatever its ReportSkippedFunctions option says. The standalone
/// dmalint does (it counts them, lists them in SARIF, and prints the remarks
/// the options ask for); the plugin never calls it.
void reportEverySkippedFunction();

} // namespace dmalint::checks

#endif
