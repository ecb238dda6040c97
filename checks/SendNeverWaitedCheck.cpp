//===- SendNeverWaitedCheck.cpp -------------------------------------------===//
#include "SendNeverWaitedCheck.h"
#include "dmalint/AstUtil.h"
#include "dmalint/Protocol.h"
#include "clang/ASTMatchers/ASTMatchFinder.h"

using namespace clang;
using namespace clang::ast_matchers;

namespace dmalint::checks {

void SendNeverWaitedCheck::registerDmaMatchers(DmaMatchers &Matchers) {
  Matchers.add<FunctionDecl, definitionReachingApi>("function");
}

void SendNeverWaitedCheck::check(const MatchFinder::MatchResult &Result) {
  if (validateApi(Result))
    return;
  const auto *Function = Result.Nodes.getNodeAs<FunctionDecl>("function");
  ASTContext &Ctx = *Result.Context;
  const FunctionAnalysis *Analysis = Function ? analysisOf(*Function, Ctx) : nullptr;
  if (!Analysis)
    return;
  // Whether a caller exists is asked only of functions with a candidate: it
  // walks the translation unit once.
  bool HasCandidate =
      llvm::any_of(Analysis->ReceiveWaits,
                   [&](const DescriptorUse &U) {
                     return Api->roleOf(U.Call->getMethodDecl()) == ApiRole::WaitRecv &&
                            !Analysis->verdict(U.Values, Remoteness::Remote).Origins.empty();
                   }) ||
      llvm::any_of(Analysis->ProtocolCalls,
                   [](const ProtocolCall &PC) { return !PC.Summary.ReceiveOnly.empty(); });
  if (!HasCandidate)
    return;
  auto Called = [&] { return AnalysisCache::current().calledInTranslationUnit(*Function, Ctx); };
  std::string Wait = methodWithRole(Api->model(), ApiRole::Wait);
  for (const SendNeverWaited &F : sendsNeverWaited(*Analysis, *Function, Ctx, *Api, Called)) {
    if (F.Call) {
      // A helper waits the copy's receive side only: said at the call; the
      // fix is the helper's, and other callers may drain what they pass.
      std::string Helper = F.Helper->getNameAsString();
      Candidate C;
      C.Loc = F.Call->getExprLoc();
      C.Message = formatMessage(
          "'%0' waits a remote copy only on its receive side: nothing in the kernel waits "
          "its send semaphore%1, which is still signalled when the kernel exits; wait both "
          "sides in '%0' with '%2()', or drain%1 here",
          {Helper, F.SendText.empty() ? "" : " '" + F.SendText + "'", Wait});
      C.Notes.push_back(
          {F.HelperWaitRecv->getExprLoc(),
           formatMessage("'%0' waits only the receive side here",
                         {F.HelperWaitRecvIn ? F.HelperWaitRecvIn->getNameAsString() : Helper})});
      C.Notes.push_back({constructionLoc(F.HelperConstruction),
                         "the remote copy is built here with a send semaphore"});
      reached(C.Loc, std::move(C));
      continue;
    }
    const CXXMemberCallExpr &Call = *F.WaitRecv->Call;
    std::string Name = nameOf(F.WaitRecv->Object, Ctx);
    std::string Semaphore = F.SendSemaphore ? spelling(F.SendSemaphore, Ctx) : F.SendText;
    Candidate C;
    C.Loc = Call.getExprLoc();
    C.Message = formatMessage(
        F.SomePaths
            ? "'%0', which is a remote copy on some paths, is waited only on its receive side: "
              "nothing in the kernel waits the send semaphore%1 of that copy, which is still "
              "signalled when the kernel exits; use '%2()' to wait both sides"
            : "remote copy '%0' is waited only on its receive side: nothing in the kernel waits "
              "its send semaphore%1, which is still signalled when the kernel exits; use '%2()' "
              "to wait both sides",
        {Name, Semaphore.empty() ? "" : " '" + Semaphore + "'", Wait});
    // `wait()` is right for both kinds, but the fix-it is offered only where
    // the copy is surely remote (checks.md).
    const auto *Member = dyn_cast<MemberExpr>(Call.getCallee()->IgnoreParens());
    if (!F.SomePaths && !Wait.empty() && Member && !Member->getMemberLoc().isMacroID())
      C.Fixes.push_back(FixItHint::CreateReplacement(
          CharSourceRange::getTokenRange(Member->getMemberLoc()), Wait));
    noteConstructions(C, *Analysis, F.Origins,
                      F.SomePaths ? "'%0' is a remote copy on this path: built here with a send "
                                    "semaphore"
                                  : "'%0' is a remote copy: built here with a send semaphore",
                      Name);
    reached(C.Loc, std::move(C));
  }
}

} // namespace dmalint::checks
