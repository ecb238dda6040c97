//===- SemaphoreRaceCheck.cpp ---------------------------------------------===//
#include "SemaphoreRaceCheck.h"
#include "dmalint/AstUtil.h"
#include "dmalint/Protocol.h"
#include "clang/ASTMatchers/ASTMatchFinder.h"

using namespace clang;
using namespace clang::ast_matchers;

namespace dmalint::checks {

/// A helper as the kernel's author calls it: a member function with its
/// class (`PageCopies::wait`), so that it reads as the call it names.
static std::string helperName(const FunctionDecl &FD) {
  if (const auto *MD = dyn_cast<CXXMethodDecl>(&FD); MD && !MD->getParent()->isLambda())
    return MD->getParent()->getNameAsString() + "::" + MD->getNameAsString();
  return FD.getNameAsString();
}

void SemaphoreRaceCheck::registerDmaMatchers(DmaMatchers &Matchers) {
  Matchers.add<FunctionDecl, definitionReachingApi>("function");
}

void SemaphoreRaceCheck::check(const MatchFinder::MatchResult &Result) {
  if (validateApi(Result))
    return;
  const auto *Function = Result.Nodes.getNodeAs<FunctionDecl>("function");
  ASTContext &Ctx = *Result.Context;
  if (!Function)
    return;
  // A lambda that starts and then waits is judged on its own too: within
  // one call, its starts and waits are its own (lambdaRacesJudgedAlone).
  const auto *Lambda = dyn_cast<CXXMethodDecl>(Function);
  bool Alone = Lambda && Lambda->getParent()->isLambda() && lambdaRacesJudgedAlone(*Lambda, *Api);
  const FunctionAnalysis *Analysis = analysisOf(*Function, Ctx, Alone);
  if (!Analysis)
    return;
  for (const SemaphoreRace &R : semaphoreRaces(*Analysis, *Function, Ctx, *Api)) {
    // What the code spells each by; a name written only in a macro's body
    // has no text of its own, and the message then describes it instead.
    auto Quoted = [](const std::string &Name, const char *Named, const char *Unnamed) {
      return Name.empty() ? std::string(Unnamed) : formatMessage(Named, {Name});
    };
    std::string Semaphore = Quoted(R.Semaphore, "'%0'", "its semaphore");
    std::string For = Quoted(R.WaitBuffer, " for '%0'", "");
    std::string InFlight = Quoted(R.InFlightBuffer, "the copy into '%0'", "another copy");
    // A helper by its name, a lambda by the local that holds it.
    std::string Waiter = R.WaitLambda   ? R.WaitLambda->getNameAsString()
                         : R.WaitHelper ? helperName(*R.WaitHelper)
                                        : "";
    std::string Starter = R.StartLambda   ? R.StartLambda->getNameAsString()
                          : R.StartHelper ? helperName(*R.StartHelper)
                                          : "";
    Candidate C;
    C.Loc = R.WaitAt->getExprLoc();
    C.Message = formatMessage(
        !Waiter.empty()
            ? "'%3' waits here on %0%1 and may return on the bytes of %2, which signals the same "
              "semaphore and is still in flight; give each buffer slot its own semaphore"
            : "this wait on %0%1 may return on the bytes of %2, which signals the same semaphore "
              "and is still in flight; give each buffer slot its own semaphore",
        {Semaphore, For, InFlight, Waiter});
    if (R.WaitInHelper)
      C.Notes.push_back(
          {R.WaitInHelper->getExprLoc(),
           formatMessage("the wait in '%0' is here",
                         {R.WaitIn ? helperName(*R.WaitIn) : Waiter})});
    const char *Until = R.InLoop ? "before this iteration ends"
                        : Lambda && Lambda->getParent()->isLambda() ? "before the lambda returns"
                                                                    : "before the function returns";
    std::string Started = Quoted(R.InFlightBuffer, "the copy into '%0'", "the other copy");
    std::string On = Quoted(R.Semaphore, "'%0'", "the same semaphore");
    C.Notes.push_back(
        {R.Start->getExprLoc(),
         formatMessage(!Starter.empty() ? "%0 is started here on %1, by '%2', and not waited %3"
                                        : "%0 is started here on %1, and not waited %3",
                       {Started, On, Starter, Until})});
    if (R.StartInHelper)
      C.Notes.push_back(
          {R.StartInHelper->getExprLoc(),
           formatMessage("'%0' starts it here",
                         {R.StartIn ? helperName(*R.StartIn) : Starter})});
    reached(C.Loc, std::move(C));
  }
}

} // namespace dmalint::checks
