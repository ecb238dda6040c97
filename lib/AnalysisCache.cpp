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
}

const FunctionAnalysis &AnalysisCache::analysis(const clang::FunctionDecl &FD,
                                                clang::ASTContext &Ctx, const ApiIndex &Api,
                                                const AnalysisLimits &Limits) {
  auto Key = std::make_pair(&FD, Limits.MaxBlockVisits);
  auto It = Results.find(Key);
  if (It != Results.end())
    return It->second;
  return Results.emplace(Key, analyzeFunction(FD, Ctx, Api, Limits)).first->second;
}

bool AnalysisCache::firstReport(llvm::StringRef Check, clang::SourceLocation Loc) {
  return Reported.insert({Check.str(), Loc.getRawEncoding()}).second;
}

} // namespace dmalint
