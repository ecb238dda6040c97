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
  // differs between GCC and Clang.) Each may be set for every dma-* check at
  // once (a key without the check's name), as clang-tidy's own global
  // options are.
  auto Bad = [&](StringRef Option, StringRef Value, StringRef Expected) {
    reportConfigurationError((Name + "." + Option).str(),
                             ("must be " + Expected + ", got '" + Value + "'").str());
  };
  ReportSkippedFunctions = false;
  if (std::optional<StringRef> Value = Options.getLocalOrGlobal("ReportSkippedFunctions")) {
    if (std::optional<bool> Parsed = parseBooleanOption(*Value))
      ReportSkippedFunctions = *Parsed;
    else
      Bad("ReportSkippedFunctions", *Value, "true or false");
  }
  if (std::optional<StringRef> Value = Options.getLocalOrGlobal("CrossFunctionSummaries")) {
    if (std::optional<bool> Parsed = parseBooleanOption(*Value))
      Limits.UseSummaries = *Parsed;
    else
      Bad("CrossFunctionSummaries", *Value, "true or false");
  }
  if (std::optional<StringRef> Value = Options.getLocalOrGlobal("WorkLimit")) {
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

void DataflowCheck::onStartOfTranslationUnit() {
  AnalysisCache::current().reset();
  Pending.clear();
  Order.clear();
}

bool definitionReachingApi(const FunctionDecl &FD, ASTContext &Ctx, const ApiIndex &Api) {
  return userDefinitionWithApi(FD, Ctx, Api) && AnalysisCache::current().reachesApi(FD, Ctx, Api);
}

namespace {

bool sameFixes(const std::vector<FixItHint> &A, const std::vector<FixItHint> &B) {
  if (A.size() != B.size())
    return false;
  for (size_t I = 0; I < A.size(); ++I)
    if (A[I].RemoveRange.getBegin() != B[I].RemoveRange.getBegin() ||
        A[I].RemoveRange.getEnd() != B[I].RemoveRange.getEnd() ||
        A[I].CodeToInsert != B[I].CodeToInsert)
      return false;
  return true;
}
} // namespace

bool DataflowCheck::analysedWithEnclosingFunction(const FunctionDecl &FD, ASTContext &Ctx) {
  const auto *Lambda = dyn_cast<CXXMethodDecl>(&FD);
  if (!Lambda || !Lambda->getParent()->isLambda())
    return false;
  const FunctionDecl *Enclosing = enclosingFunction(*Lambda);
  if (!Enclosing || Enclosing->isDependentContext() ||
      !definitionReachingApi(*Enclosing, Ctx, *Api))
    return false;
  return AnalysisCache::current().analysis(*Enclosing, Ctx, *Api, Limits).ranEveryCallOf(*Lambda);
}

const FunctionAnalysis *DataflowCheck::analysisOf(const FunctionDecl &FD, ASTContext &Ctx) {
  return analysisOf(FD, Ctx, /*Alone=*/false);
}

const FunctionAnalysis *DataflowCheck::analysisOf(const FunctionDecl &FD, ASTContext &Ctx,
                                                  bool Alone) {
  if (FD.isDependentContext() || Ctx.getDiagnostics().hasUncompilableErrorOccurred())
    return nullptr;
  // A lambda whose enclosing function's analysis ran it at each of its calls
  // is judged there: every use in it was reached with what the calls give
  // it, and an analysis of its own (parameters and captures unknown) would
  // only repeat that, at the cost of running every lambda it calls again.
  if (!Alone && analysedWithEnclosingFunction(FD, Ctx))
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

void DataflowCheck::reached(SourceLocation Key, std::optional<Candidate> Finding) {
  auto [It, Inserted] = Pending.try_emplace(Key.getRawEncoding());
  if (Inserted)
    Order.push_back(Key.getRawEncoding());
  if (Finding)
    It->second.Found.push_back(std::move(*Finding));
  else
    It->second.Disproved = true;
}

void DataflowCheck::onEndOfTranslationUnit() {
  for (unsigned Key : Order) {
    Votes &V = Pending[Key];
    if (V.Disproved || V.Found.empty())
      continue;
    bool AllDefinite = llvm::all_of(V.Found, [](const Candidate &C) { return C.Definite; });
    const Candidate *Chosen = &V.Found.front();
    if (!AllDefinite)
      Chosen = &*llvm::find_if(V.Found, [](const Candidate &C) { return !C.Definite; });
    bool SameFixes = llvm::all_of(V.Found, [&](const Candidate &C) {
      return C.Definite != Chosen->Definite || sameFixes(C.Fixes, Chosen->Fixes);
    });
    {
      auto Diag = diag(Chosen->Loc, "%0") << Chosen->Message;
      if (SameFixes)
        for (const FixItHint &Fix : Chosen->Fixes)
          Diag << Fix;
    }
    std::vector<std::pair<SourceLocation, std::string>> Notes;
    for (const Candidate &C : V.Found)
      if (C.Definite == Chosen->Definite)
        for (const auto &N : C.Notes)
          if (!llvm::is_contained(Notes, N))
            Notes.push_back(N);
    for (const auto &[Loc, Text] : Notes)
      diag(Loc, "%0", DiagnosticIDs::Note) << Text;
  }
  Pending.clear();
  Order.clear();
}

void DataflowCheck::noteConstructions(Candidate &C, const FunctionAnalysis &Analysis,
                                      llvm::ArrayRef<OriginId> Origins, StringRef Message,
                                      StringRef Name) {
  for (OriginId Origin : Origins)
    if (const Expr *Site = Analysis.origin(Origin).Site)
      C.Notes.push_back({constructionLoc(Site), formatMessage(Message, {Name.str()})});
}

std::string DataflowCheck::nameOf(const Expr *E, const ASTContext &Ctx) {
  E = E->IgnoreImplicit();
  // opt->wait_send(): the object is spelled `opt->`; name the optional.
  if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(E);
      Op && Op->getOperator() == OO_Arrow && Op->getNumArgs() == 1)
    E = Op->getArg(0)->IgnoreImplicit();
  return nameInMessage(E, Ctx, "descriptor");
}

std::string formatMessage(StringRef Format, llvm::ArrayRef<std::string> Args) {
  std::string Out;
  for (size_t I = 0; I < Format.size(); ++I) {
    if (Format[I] == '%' && I + 1 < Format.size() && isdigit(Format[I + 1])) {
      unsigned N = Format[I + 1] - '0';
      if (N < Args.size())
        Out += Args[N];
      ++I;
      continue;
    }
    Out += Format[I];
  }
  return Out;
}

} // namespace dmalint::checks
