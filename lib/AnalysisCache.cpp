//===- AnalysisCache.cpp - One descriptor analysis per function, shared ---===//
#include "dmalint/AnalysisCache.h"
#include "llvm/ADT/STLExtras.h"

namespace dmalint {

AnalysisCache &AnalysisCache::current() {
  // Per thread: the standalone driver runs translation units in parallel.
  thread_local AnalysisCache Cache;
  return Cache;
}

void AnalysisCache::reset() {
  Results.clear();
  UsesApi.clear();
  Reported.clear();
  InProgress.clear();
  Recursive.clear();
  Provisional.clear();
  Retired.clear();
}

bool AnalysisCache::usesApi(const clang::FunctionDecl &FD, const ApiIndex &Api) {
  auto [It, Inserted] = UsesApi.try_emplace(&FD, false);
  if (Inserted)
    It->second = Api.usedBy(FD);
  return It->second;
}

const FunctionAnalysis &AnalysisCache::analysis(const clang::FunctionDecl &FD,
                                                clang::ASTContext &Ctx, const ApiIndex &Api,
                                                const AnalysisLimits &Limits) {
  Key K = keyOf(&FD, Limits);
  auto It = Results.find(K);
  if (It != Results.end())
    return It->second;
  SummaryLookup Lookup = [&](const clang::FunctionDecl &Callee) {
    return summary(Callee, Ctx, Api, Limits);
  };
  InProgress.push_back(&FD);
  FunctionAnalysis Result = analyzeFunction(FD, Ctx, Api, Limits, Lookup);
  // A recursive function saw itself (or a caller of itself) before its
  // summary was known: analyse it again with the summary just found, after
  // dropping what was computed from the stale one, until the summary stops
  // changing (bounded).
  for (unsigned Round = 0; Recursive.count(&FD) && !Result.HitWorkLimit && Round < 3;
       ++Round) {
    Recursive.erase(&FD);
    dropProvisional(&FD, Limits);
    Results[K] = std::move(Result);
    FunctionAnalysis Again = analyzeFunction(FD, Ctx, Api, Limits, Lookup);
    bool Stable = Again.Summary == Results[K].Summary;
    Result = std::move(Again);
    if (Stable)
      break;
  }
  InProgress.pop_back();
  Recursive.erase(&FD);
  // Once no recursion is open, what was provisional is final or gone.
  if (!Provisional.count(&FD) || InProgress.empty())
    dropProvisional(&FD, Limits);
  FunctionAnalysis &Stored = Results[K] = std::move(Result);
  if (InProgress.empty())
    Retired.clear();
  return Stored;
}

void AnalysisCache::dropProvisional(const clang::FunctionDecl *Keep,
                                    const AnalysisLimits &Limits) {
  for (const clang::FunctionDecl *Stale : Provisional)
    if (Stale != Keep && !llvm::is_contained(InProgress, Stale))
      if (auto Node = Results.extract(keyOf(Stale, Limits)))
        Retired.push_back(std::move(Node));
  Provisional.clear();
}

const FunctionSummary *AnalysisCache::summary(const clang::FunctionDecl &FD,
                                              clang::ASTContext &Ctx, const ApiIndex &Api,
                                              const AnalysisLimits &Limits) {
  auto OnStack = llvm::find(InProgress, &FD);
  if (OnStack != InProgress.end()) {
    Recursive.insert(&FD);
    for (auto It = std::next(OnStack); It != InProgress.end(); ++It)
      Provisional.insert(*It);
    auto Earlier = Results.find(keyOf(&FD, Limits));
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
