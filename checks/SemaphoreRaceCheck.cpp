//===- SemaphoreRaceCheck.cpp ---------------------------------------------===//
#include "SemaphoreRaceCheck.h"
#include "dmalint/AstUtil.h"
#include "dmalint/Protocol.h"
#include "clang/ASTMatchers/ASTMatchFinder.h"

using namespace clang;
using namespace clang::ast_matchers;

namespace dmalint::checks {

void SemaphoreRaceCheck::registerDmaMatchers(DmaMatchers &Matchers) {
  Matchers.add(functionsUsingApi().bind("function"));
}

void SemaphoreRaceCheck::check(const MatchFinder::MatchResult &Result) {
  if (validateApi(Result))
    return;
  const auto *Function = Result.Nodes.getNodeAs<FunctionDecl>("function");
  ASTContext &Ctx = *Result.Context;
  const FunctionAnalysis *Analysis = Function ? analysisOf(*Function, Ctx) : nullptr;
  if (!Analysis)
    return;
  for (const SemaphoreRace &R : semaphoreRaces(*Analysis, *Function, Ctx, *Api)) {
    std::string Semaphore = spelling(R.Semaphore, Ctx);
    std::string Target = spelling(R.WaitBuffer, Ctx);
    std::string Other = spelling(R.InFlightBuffer, Ctx);
    if (Semaphore.empty() || Target.empty() || Other.empty())
      continue; // Spelled by a macro: nothing to name it by.
    Candidate C;
    C.Loc = R.Wait->Call->getExprLoc();
    C.Message = formatMessage(
        "this wait on '%0' for '%1' may return on the bytes of the copy into '%2', which "
        "signals the same semaphore and is still in flight; give each buffer slot its own "
        "semaphore",
        {Semaphore, Target, Other});
    C.Notes.push_back(
        {R.Start->getExprLoc(),
         formatMessage(R.InLoop ? "the copy into '%0' is started here on '%1', and not waited "
                                  "before this iteration ends"
                                : "the copy into '%0' is started here on '%1', and not waited "
                                  "before the function returns",
                       {Other, Semaphore})});
    reached(C.Loc, std::move(C));
  }
}

} // namespace dmalint::checks
