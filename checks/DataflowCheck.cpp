//===- DataflowCheck.cpp - Base of the checks that read the descriptor analysis ===//
#include "DataflowCheck.h"
#include "ConfigurationErrors.h"
#include "dmalint/AstUtil.h"
#include "clang/AST/ExprCXX.h"
#include "clang/Lex/Lexer.h"
#include <atomic>
#include <limits>

using namespace clang;

namespace dmalint::checks {

static std::atomic<bool> EverySkippedFunction{false};

void reportEverySkippedFunction() { EverySkippedFunction = true; }

/// The options every dataflow check has.
static constexpr llvm::StringRef DataflowOptions[] = {"WorkLimit", "CrossFunctionSummaries",
                                                      "ReportSkippedFunctions"};

DataflowCheck::DataflowCheck(StringRef Name, tidy::ClangTidyContext *Context)
    : DmaCheck(Name, Context, DataflowOptions) {
  // Strictly: a value the option cannot take is a configuration error, never
  // the default in its place. (Read as text: the bool specialisation of
  // OptionsView::get is compiled into clang-tidy and its mangled name
  // differs between GCC and Clang.)
  auto Bad = [&](StringRef Option, StringRef Value, StringRef Expected) {
    reportConfigurationError((Name + "." + Option).str(),
                             ("must be " + Expected + ", got '" + Value + "'").str());
  };
  ReportSkippedFunctions = false;
  if (std::optional<StringRef> Value = Options.get("ReportSkippedFunctions")) {
    if (std::optional<bool> Parsed = parseBooleanOption(*Value))
      ReportSkippedFunctions = *Parsed;
    else
      Bad("ReportSkippedFunctions", *Value, "true or false");
  }
  if (std::optional<StringRef> Value = Options.get("CrossFunctionSummaries")) {
    if (std::optional<bool> Parsed = parseBooleanOption(*Value))
      Limits.UseSummaries = *Parsed;
    else
      Bad("CrossFunctionSummaries", *Value, "true or false");
  }
  if (std::optional<StringRef> Value = Options.get("WorkLimit")) {
    if (std::optional<unsigned> Parsed = parsePositiveOption(*Value))
      Limits.MaxBlockVisits = *Parsed;
    else
      Bad("WorkLimit", *Value,
          "a number of steps from 1 to " + std::to_string(std::numeric_limits<unsigned>::max()));
  }
}

void DataflowCheck::storeOptions(tidy::ClangTidyOptions::OptionMap &Opts) {
  DmaCheck::storeOptions(Opts);
  Options.store(Opts, "WorkLimit", Limits.MaxBlockVisits);
  Options.store(Opts, "CrossFunctionSummaries", Limits.UseSummaries ? "true" : "false");
  Options.store(Opts, "ReportSkippedFunctions", ReportSkippedFunctions ? "true" : "false");
}

namespace {
/// ApiIndex::usedBy through the translation unit's cache: the dataflow
/// checks share one walk per function.
AST_MATCHER_P(FunctionDecl, usesApi, std::shared_ptr<const ApiIndex>, Api) {
  return AnalysisCache::current().usesApi(Node, *Api);
}
} // namespace

ast_matchers::internal::BindableMatcher<Decl> DataflowCheck::functionsUsingApi() const {
  using namespace ast_matchers;
  // Cheapest first. System headers (the standard library) never hold
  // kernels: skipping them before the walk of each body is most of what this
  // matcher saves.
  return functionDecl(isDefinition(), apiInTranslationUnit(Api),
                      unless(isExpansionInSystemHeader()), usesApi(Api));
}

const FunctionAnalysis *DataflowCheck::analysisOf(const FunctionDecl &FD, ASTContext &Ctx) {
  if (FD.isDependentContext() || Ctx.getDiagnostics().hasUncompilableErrorOccurred())
    return nullptr;
  const FunctionAnalysis &A = AnalysisCache::current().analysis(FD, Ctx, *Api, Limits);
  if (A.HitWorkLimit) {
    if ((ReportSkippedFunctions || EverySkippedFunction) &&
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

void DataflowCheck::noteConstructions(const FunctionAnalysis &Analysis,
                                      llvm::ArrayRef<OriginId> Origins, StringRef Message,
                                      StringRef Name) {
  for (OriginId Origin : Origins)
    diag(constructionLoc(Analysis.Origins[Origin].Site), Message, DiagnosticIDs::Note) << Name;
}

std::string DataflowCheck::nameOf(const Expr *E, const ASTContext &Ctx) {
  E = E->IgnoreImplicit();
  // opt->wait_send(): the object is spelled `opt->`; name the optional.
  if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(E);
      Op && Op->getOperator() == OO_Arrow && Op->getNumArgs() == 1)
    E = Op->getArg(0)->IgnoreImplicit();
  std::string Text = spelling(E, Ctx);
  if (Text.empty()) {
    // Inside a macro body: the name as the macro spells it.
    const SourceManager &SM = Ctx.getSourceManager();
    SourceLocation Begin = SM.getSpellingLoc(E->getBeginLoc());
    SourceLocation End = SM.getSpellingLoc(E->getEndLoc());
    if (SM.getFileID(Begin) == SM.getFileID(End) &&
        SM.getFileOffset(Begin) <= SM.getFileOffset(End))
      Text = Lexer::getSourceText(CharSourceRange::getTokenRange(Begin, End), SM,
                                  Ctx.getLangOpts())
                 .str();
  }
  if (Text.empty() || Text.size() > 60 || Text.find('\n') != std::string::npos)
    return "descriptor";
  return Text;
}

} // namespace dmalint::checks
