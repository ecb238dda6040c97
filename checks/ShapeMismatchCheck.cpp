//===- ShapeMismatchCheck.cpp ---------------------------------------------===//
#include "ShapeMismatchCheck.h"
#include "dmalint/Arguments.h"
#include "clang/ASTMatchers/ASTMatchFinder.h"

using namespace clang;
using namespace clang::ast_matchers;

namespace dmalint::checks {

namespace {
bool callsSyncCopy(const CallExpr &Call, ASTContext &Ctx, const ApiIndex &Api) {
  return Api.isSyncCopy(Call.getDirectCallee()) && apiSeen(Ctx, Api);
}
} // namespace

void ShapeMismatchCheck::registerDmaMatchers(DmaMatchers &Matchers) {
  // A sync copy starts and waits itself; a descriptor only counts once the
  // analysis of its function says it is started or waited.
  Matchers.add<CallExpr, callsSyncCopy>("sync");
  Matchers.add<FunctionDecl, definitionUsingApi>("function");
}

void ShapeMismatchCheck::check(const MatchFinder::MatchResult &Result) {
  if (validateApi(Result))
    return;
  ASTContext &Ctx = *Result.Context;
  if (const auto *Sync = Result.Nodes.getNodeAs<CallExpr>("sync")) {
    // The context last: finding it builds the parent map.
    if (!Ctx.getDiagnostics().hasUncompilableErrorOccurred() &&
        !Sync->isInstantiationDependent())
      judge(*Sync, Ctx);
    return;
  }
  const auto *Function = Result.Nodes.getNodeAs<FunctionDecl>("function");
  const FunctionAnalysis *Analysis = Function ? analysisOf(*Function, Ctx) : nullptr;
  if (!Analysis)
    return;
  for (const Expr *Copy : AnalysisCache::current().usedCopies(*Analysis, Ctx, *Api, Limits))
    judge(*Copy, Ctx);
}

void ShapeMismatchCheck::judge(const Expr &Copy, ASTContext &Ctx) {
  CopyBuffers Buffers = copyBuffers(&Copy, *Api);
  if (!Buffers.Source)
    return;
  std::optional<ConstantSlice> Source = constantSlice(Buffers.Source, *Api, Ctx);
  std::optional<ConstantSlice> Target = constantSlice(Buffers.Target, *Api, Ctx);
  if (!Source || !Target || Source->Size == Target->Size ||
      isInDependentContext(Copy, Ctx))
    return;
  // Every instantiation that reaches a mismatch has it (its own sizes): one
  // that slices equally does not make another's copy right, so none is
  // asked to disprove it.
  Candidate C;
  C.Loc = userLocation(constructionLoc(&Copy), Ctx.getSourceManager());
  C.Message = formatMessage("DMA source and target shape mismatch: the source is a slice of "
                            "%0 along its majormost dimension, the target a slice of %1",
                            {std::to_string(Source->Size), std::to_string(Target->Size)});
  reached(C.Loc, std::move(C));
}

} // namespace dmalint::checks
