//===- AnalysisCache.cpp - One descriptor analysis per function, shared ---===//
#include "dmalint/AnalysisCache.h"

namespace dmalint {

AnalysisCache &AnalysisCache::current() {
  // Per thread: the standalone driver runs translation units in parallel.
  thread_local AnalysisCache Cache;
  return Cache;
}

void AnalysisCache::reset() {
  Results.clear();
  Reported.clear();
  InProgress.clear();
  Recursive.clear();
}

const FunctionAnalysis &AnalysisCache::analysis(const clang::FunctionDecl &FD,
                                                clang::ASTContext &Ctx, const ApiIndex &Api,
                                                const AnalysisLimits &Limits) {
  auto Key = std::make_pair(&FD, Limits.MaxBlockVisits);
  auto It = Results.find(Key);
  if (It != Results.end())
    return It->second;
  SummaryLookup Lookup = [&](const clang::FunctionDecl &Callee) {
    return summary(Callee, Ctx, Api, Limits);
  };
  InProgress.insert(&FD);
  FunctionAnalysis Result = analyzeFunction(FD, Ctx, Api, Limits, Lookup);
  // A recursive function saw itself as opaque: analyse it again with the
  // summary just found, until the summary stops changing (bounded).
  for (unsigned Round = 0; Recursive.count(&FD) && !Result.HitWorkLimit && Round < 3;
       ++Round) {
    Recursive.erase(&FD);
    Results[Key] = std::move(Result);
    FunctionAnalysis Again = analyzeFunction(FD, Ctx, Api, Limits, Lookup);
    bool Stable = Again.Summary == Results[Key].Summary;
    Result = std::move(Again);
    if (Stable)
      break;
  }
  InProgress.erase(&FD);
  Recursive.erase(&FD);
  return Results[Key] = std::move(Result);
}

const FunctionSummary *AnalysisCache::summary(const clang::FunctionDecl &FD,
                                              clang::ASTContext &Ctx, const ApiIndex &Api,
                                              const AnalysisLimits &Limits) {
  if (InProgress.count(&FD)) {
    Recursive.insert(&FD);
    auto Earlier = Results.find(std::make_pair(&FD, Limits.MaxBlockVisits));
    return Earlier == Results.end() ? nullptr : &Earlier->second.Summary;
  }
  // Deep chains of helpers: past this depth, calls are opaque.
  if (InProgress.size() >= 64)
    return nullptr;
  const FunctionAnalysis &A = analysis(FD, Ctx, Api, Limits);
  return A.HitWorkLimit ? nullptr : &A.Summary;
}

bool AnalysisCache::firstReport(llvm::StringRef Check, clang::SourceLocation Loc) {
  return Reported.insert({Check.str(), Loc.getRawEncoding()}).second;
}

} // namespace dmalint
