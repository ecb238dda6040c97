//===- DataflowCheck.cpp - Base of the checks that read the descriptor analysis ===//
#include "DataflowCheck.h"
#include "ApiOptions.h"
#include "dmalint/AstUtil.h"

using namespace clang;

namespace dmalint::checks {

DataflowCheck::DataflowCheck(StringRef Name, tidy::ClangTidyContext *Context)
    : ClangTidyCheck(Name, Context), Api(loadApiIndex()) {
  // Read as text: the bool specialisation of OptionsView::get is compiled
  // into clang-tidy and its mangled name differs between GCC and Clang.
  StringRef Skipped = Options.get("ReportSkippedFunctions", "false");
  ReportSkippedFunctions = Skipped.equals_insensitive("true") || Skipped == "1";
  Limits.MaxBlockVisits = Options.get("WorkLimit", Limits.MaxBlockVisits);
}

void DataflowCheck::storeOptions(tidy::ClangTidyOptions::OptionMap &Opts) {
  Options.store(Opts, "WorkLimit", Limits.MaxBlockVisits);
  Options.store(Opts, "ReportSkippedFunctions", ReportSkippedFunctions ? "true" : "false");
}

const FunctionAnalysis *DataflowCheck::analysisOf(const FunctionDecl &FD, ASTContext &Ctx) {
  if (FD.isDependentContext() || Ctx.getDiagnostics().hasUncompilableErrorOccurred())
    return nullptr;
  const FunctionAnalysis &A = AnalysisCache::current().analysis(FD, Ctx, *Api, Limits);
  if (A.HitWorkLimit) {
    if (ReportSkippedFunctions &&
        AnalysisCache::current().firstReport("work-limit", FD.getLocation()))
      diag(FD.getLocation(),
           "'%0' was not analysed: it needs more than %1 steps (the WorkLimit option); "
           "its descriptor findings are not reported",
           DiagnosticIDs::Remark)
          << FD.getQualifiedNameAsString() << Limits.MaxBlockVisits;
    return nullptr;
  }
  return &A;
}

std::string DataflowCheck::nameOf(const Expr *E, const ASTContext &Ctx) {
  std::string Text = spelling(E->IgnoreImplicit(), Ctx);
  if (Text.empty() || Text.size() > 60 || Text.find('\n') != std::string::npos)
    return "descriptor";
  return Text;
}

} // namespace dmalint::checks
