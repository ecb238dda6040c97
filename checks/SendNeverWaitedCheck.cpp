//===- SendNeverWaitedCheck.cpp -------------------------------------------===//
#include "SendNeverWaitedCheck.h"
#include "dmalint/AstUtil.h"
#include "dmalint/Protocol.h"
#include "clang/ASTMatchers/ASTMatchFinder.h"

using namespace clang;
using namespace clang::ast_matchers;

namespace dmalint::checks {

void SendNeverWaitedCheck::registerDmaMatchers(DmaMatchers &Matchers) {
  Matchers.add(functionsUsingApi().bind("function"));
}

void SendNeverWaitedCheck::check(const MatchFinder::MatchResult &Result) {
  if (validateApi(Result))
    return;
  const auto *Function = Result.Nodes.getNodeAs<FunctionDecl>("function");
  ASTContext &Ctx = *Result.Context;
  const FunctionAnalysis *Analysis = Function ? analysisOf(*Function, Ctx) : nullptr;
  if (!Analysis || Analysis->ReceiveWaits.empty())
    return;
  // Whether a caller exists is asked only of functions with a candidate: it
  // walks the translation unit once.
  bool HasCandidate = llvm::any_of(Analysis->ReceiveWaits, [&](const DescriptorUse &U) {
    return Api->roleOf(U.Call->getMethodDecl()) == ApiRole::WaitRecv &&
           Analysis->verdict(U.Values, Remoteness::Remote).All;
  });
  if (!HasCandidate)
    return;
  bool Called = AnalysisCache::current().calledInTranslationUnit(*Function, Ctx);
  std::string Wait = methodWithRole(Api->model(), ApiRole::Wait);
  for (const SendNeverWaited &F : sendsNeverWaited(*Analysis, *Function, Ctx, *Api, Called)) {
    const CXXMemberCallExpr &Call = *F.WaitRecv->Call;
    std::string Name = nameOf(F.WaitRecv->Object, Ctx);
    std::string Semaphore = spelling(F.SendSemaphore, Ctx);
    Candidate C;
    C.Loc = Call.getExprLoc();
    C.Message = formatMessage(
        "remote copy '%0' is waited only on its receive side: nothing in the kernel waits "
        "its send semaphore%1, which is still signalled when the kernel exits; use '%2()' to "
        "wait both sides",
        {Name, Semaphore.empty() ? "" : " '" + Semaphore + "'", Wait});
    const auto *Member = dyn_cast<MemberExpr>(Call.getCallee()->IgnoreParens());
    if (!Wait.empty() && Member && !Member->getMemberLoc().isMacroID())
      C.Fixes.push_back(FixItHint::CreateReplacement(
          CharSourceRange::getTokenRange(Member->getMemberLoc()), Wait));
    noteConstructions(C, *Analysis, F.Origins,
                      "'%0' is a remote copy: built here with a send semaphore", Name);
    reached(C.Loc, std::move(C));
  }
}

} // namespace dmalint::checks
