//===- WaitSendOnLocalCopyCheck.cpp ---------------------------------------===//
#include "WaitSendOnLocalCopyCheck.h"
#include "WaitSendFixes.h"
#include "dmalint/AstUtil.h"
#include "clang/ASTMatchers/ASTMatchFinder.h"

using namespace clang;
using namespace clang::ast_matchers;

namespace dmalint::checks {

void WaitSendOnLocalCopyCheck::registerMatchers(MatchFinder *Finder) {
  registerApiValidation(Finder);
  // Direct wait_sends, and calls that hand a local copy to a helper that
  // waits its send side: any function that touches the API.
  Finder->addMatcher(functionsUsingApi().bind("function"), this);
}

/// Where a call is best pointed at: the called name.
static SourceLocation calleeLoc(const Expr *Call) {
  if (const auto *MC = dyn_cast<CXXMemberCallExpr>(Call))
    if (const auto *ME = dyn_cast<MemberExpr>(MC->getCallee()->IgnoreParens()))
      return ME->getMemberLoc();
  if (const auto *CE = dyn_cast<CallExpr>(Call))
    if (const auto *DRE = dyn_cast<DeclRefExpr>(CE->getCallee()->IgnoreParenImpCasts()))
      return DRE->getLocation();
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
  for (const DescriptorUse &Use : Analysis->WaitSends) {
    auto [LocalOrigins, AllLocal] = Analysis->originsOfKind(Use.Values, Remoteness::Local);
    if (LocalOrigins.empty())
      continue;
    const auto *Member = cast<MemberExpr>(Use.Call->getCallee()->IgnoreParens());
    if (!AnalysisCache::current().firstReport("dma-wait-send-on-local-copy",
                                              Member->getMemberLoc()))
      continue;
    std::string Name = nameOf(Use.Object, Ctx);
    StringRef Method = Use.Call->getMethodDecl()->getName();
    {
      auto Diag =
          AllLocal
              ? diag(Member->getMemberLoc(), "'%0' on '%1', a local copy with no send side")
              : diag(Member->getMemberLoc(),
                     "'%0' on '%1', which is a local copy on some paths");
      Diag << Method << Name;
      for (const FixItHint &Fix : AllLocal ? definiteLocalFix(*Use.Call, *Api, Ctx)
                                           : guardFix(*Use.Call, *Api, Ctx))
        Diag << Fix;
    }
    noteConstructions(*Analysis, LocalOrigins,
                      AllLocal ? "'%0' is a local copy: built here without a device id and "
                                 "source semaphore"
                               : "'%0' is a local copy on this path: built here without a "
                                 "device id and source semaphore",
                      Name);
  }
  for (const HelperWaitSend &Helper : Analysis->HelperWaitSends)
    reportHelperCall(Helper, *Analysis, Ctx);
}

void WaitSendOnLocalCopyCheck::reportHelperCall(const HelperWaitSend &Helper,
                                                const FunctionAnalysis &Analysis,
                                                ASTContext &Ctx) {
  auto [LocalOrigins, AllLocal] = Analysis.originsOfKind(Helper.Values, Remoteness::Local);
  if (LocalOrigins.empty() ||
      !AnalysisCache::current().firstReport("dma-wait-send-on-local-copy",
                                            Helper.Argument->getBeginLoc()))
    return;
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
  diag(calleeLoc(Helper.Call), AllLocal ? "'%0' calls '%1' on %2, a local copy with no send side"
                                        : "'%0' calls '%1' on %2, which is a local copy on "
                                          "some paths")
      << calleeName(Helper.Call) << Method << What;
  noteConstructions(Analysis, LocalOrigins,
                    AllLocal ? "%0 is a local copy: built here without a device id and source "
                               "semaphore"
                             : "%0 is a local copy on this path: built here without a device "
                               "id and source semaphore",
                    What);
  // The way down to the wait_send, one helper at a time.
  for (const Expr *Through : Helper.Requirement.Through)
    diag(calleeLoc(Through), "which passes it to '%0' here", DiagnosticIDs::Note)
        << calleeName(Through);
  diag(cast<MemberExpr>(WaitSend->getCallee()->IgnoreParens())->getMemberLoc(),
       "'%0' is called here without an '%1()' guard", DiagnosticIDs::Note)
      << Method << methodWithRole(Api->model(), ApiRole::IsRemote);
}

} // namespace dmalint::checks
