//===- WaitSendOnLocalCopyCheck.cpp ---------------------------------------===//
#include "WaitSendOnLocalCopyCheck.h"
#include "WaitSendFixes.h"
#include "dmalint/AstUtil.h"
#include "clang/ASTMatchers/ASTMatchFinder.h"

using namespace clang;
using namespace clang::ast_matchers;

namespace dmalint::checks {

void WaitSendOnLocalCopyCheck::registerDmaMatchers(DmaMatchers &Matchers) {
  // Direct wait_sends, and calls that hand a local copy to a helper that
  // waits its send side: any function that touches the API, or calls one
  // that does (`stage.finish_send()` on an object a constructor built).
  Matchers.add<FunctionDecl, definitionReachingApi>("function");
}

/// Where a call is best pointed at: the called name.
static SourceLocation calleeLoc(const Expr *Call) {
  if (const auto *MC = dyn_cast<CXXMemberCallExpr>(Call))
    if (const auto *ME = dyn_cast<MemberExpr>(MC->getCallee()->IgnoreParens()))
      return ME->getMemberLoc();
  if (const auto *CE = dyn_cast<CallExpr>(Call))
    if (const auto *DRE = dyn_cast<DeclRefExpr>(CE->getCallee()->IgnoreParenImpCasts()))
      return DRE->getLocation();
  if (const auto *Construct = dyn_cast<CXXConstructExpr>(Call))
    return constructionLoc(Construct);
  return Call->getBeginLoc();
}

static std::string calleeName(const Expr *Call) {
  const FunctionDecl *FD = nullptr;
  if (const auto *CE = dyn_cast<CallExpr>(Call))
    FD = CE->getDirectCallee();
  else if (const auto *Construct = dyn_cast<CXXConstructExpr>(Call))
    FD = Construct->getConstructor();
  return FD ? FD->getNameAsString() : "the callee";
}

void WaitSendOnLocalCopyCheck::check(const MatchFinder::MatchResult &Result) {
  if (validateApi(Result))
    return;
  const auto *Function = Result.Nodes.getNodeAs<FunctionDecl>("function");
  ASTContext &Ctx = *Result.Context;
  const FunctionAnalysis *Analysis = analysisOf(*Function, Ctx);
  if (!Analysis)
    return;
  BodyParents Parents(*Function);
  for (const DescriptorUse &Use : Analysis->WaitSends) {
    const auto *Member = cast<MemberExpr>(Use.Call->getCallee()->IgnoreParens());
    KindVerdict Local = Analysis->localOriginsAt(Use);
    if (Analysis->judgedAtCalls(Use, Local))
      continue;
    if (Local.Origins.empty()) {
      // Reached, and no local copy: proven fine, unless it cannot tell.
      if (!Local.AnyUnknown)
        reached(Member->getMemberLoc(), std::nullopt);
      continue;
    }
    std::string Name = nameOf(Use.Object, Ctx);
    StringRef Method = Use.Call->getMethodDecl()->getName();
    Candidate C;
    C.Loc = Member->getMemberLoc();
    C.Definite = Local.All;
    C.Message = formatMessage(Local.All ? "'%0' on '%1', a local copy with no send side"
                                        : "'%0' on '%1', which is a local copy on some paths",
                              {Method.str(), Name});
    for (const FixItHint &Fix :
         Local.All
             ? definiteLocalFix(*Use.Call,
                                Analysis->receiveWaitedBefore(Use)
                                    ? ReceiveWaitAfter::Always // Nothing left to take.
                                    : Analysis->receiveWaitAfter(Use),
                                *Api, Ctx, Parents)
             : guardFix(*Use.Call, *Api, Ctx, Parents))
      C.Fixes.push_back(Fix);
    noteConstructions(C, *Analysis, Local.Origins,
                      Local.All ? "'%0' is a local copy: built here without a device id and "
                                  "source semaphore"
                                : "'%0' is a local copy on this path: built here without a "
                                  "device id and source semaphore",
                      Name);
    reached(C.Loc, std::move(C));
  }
  // A function that reaches the API only through the calls it makes is
  // here for the objects whose constructor decided their copy's kind.
  bool UsesApi = definitionUsingApi(*Function, Ctx, *Api);
  for (const HelperWaitSend &Helper : Analysis->HelperWaitSends)
    if (UsesApi || Helper.ByConstructor)
      reportHelperCall(Helper, *Analysis, Ctx);
}

void WaitSendOnLocalCopyCheck::reportHelperCall(const HelperWaitSend &Helper,
                                                const FunctionAnalysis &Analysis,
                                                ASTContext &Ctx) {
  KindVerdict Local = Analysis.verdict(Helper.Values, Remoteness::Local);
  SourceLocation Key = Helper.Argument->getBeginLoc();
  if (Local.Origins.empty()) {
    if (!Local.AnyUnknown)
      reached(Key, std::nullopt);
    return;
  }
  // What the helper receives: a descriptor, a container's elements, or (for a
  // pointer) what it points to, named as the caller wrote it.
  const Expr *Argument = Helper.Argument->IgnoreParenImpCasts();
  bool Container = isDescriptorContainer(Argument->getType(), *Api);
  if (const auto *AddressOf = dyn_cast<UnaryOperator>(Argument);
      AddressOf && AddressOf->getOpcode() == UO_AddrOf) {
    Argument = AddressOf->getSubExpr()->IgnoreParenImpCasts();
    Container = isDescriptorContainer(Argument->getType(), *Api);
  } else if (Argument->getType()->isPointerType()) {
    Container = isDescriptorContainer(Argument->getType()->getPointeeType(), *Api);
  }
  std::string Name = nameOf(Argument, Ctx);
  std::string What = Container ? "an element of '" + Name + "'" : "'" + Name + "'";
  const CXXMemberCallExpr *WaitSend = Helper.Requirement.WaitSend;
  StringRef Method = WaitSend->getMethodDecl()->getName();
  Candidate C;
  C.Loc = calleeLoc(Helper.Call);
  C.Definite = Local.All;
  C.Message = formatMessage(Local.All ? "'%0' calls '%1' on %2, a local copy with no send side"
                                      : "'%0' calls '%1' on %2, which is a local copy on "
                                        "some paths",
                            {calleeName(Helper.Call), Method.str(), What});
  noteConstructions(C, Analysis, Local.Origins,
                    Local.All ? "%0 is a local copy: built here without a device id and source "
                                "semaphore"
                              : "%0 is a local copy on this path: built here without a device "
                                "id and source semaphore",
                    What);
  // The way down to the wait_send, one helper at a time.
  for (const Expr *Through : Helper.Requirement.Through)
    C.Notes.push_back({calleeLoc(Through),
                       formatMessage("which passes it to '%0' here", {calleeName(Through)})});
  C.Notes.push_back({cast<MemberExpr>(WaitSend->getCallee()->IgnoreParens())->getMemberLoc(),
                     formatMessage("'%0' is called here without an '%1()' guard",
                                   {Method.str(),
                                    methodWithRole(Api->model(), ApiRole::IsRemote)})});
  reached(Key, std::move(C));
}

} // namespace dmalint::checks
