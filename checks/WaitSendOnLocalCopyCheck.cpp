//===- WaitSendOnLocalCopyCheck.cpp ---------------------------------------===//
#include "WaitSendOnLocalCopyCheck.h"
#include "WaitSendFixes.h"
#include "dmalint/AstUtil.h"
#include "clang/ASTMatchers/ASTMatchFinder.h"

using namespace clang;
using namespace clang::ast_matchers;

namespace dmalint::checks {

static std::vector<std::string> methodsWithRole(const ApiModel &M, ApiRole Role) {
  std::vector<std::string> Names;
  for (auto &[Name, R] : M.Methods)
    if (R == Role)
      Names.push_back(Name);
  return Names;
}

void WaitSendOnLocalCopyCheck::registerMatchers(MatchFinder *Finder) {
  std::vector<StringRef> Types(Api->model().DescriptorTypes.begin(),
                               Api->model().DescriptorTypes.end());
  std::vector<std::string> WaitSend = methodsWithRole(Api->model(), ApiRole::WaitSend);
  // Only functions that call wait_send at all are analysed.
  Finder->addMatcher(
      functionDecl(isDefinition(),
                   hasDescendant(cxxMemberCallExpr(callee(cxxMethodDecl(
                       hasAnyName(std::vector<StringRef>(WaitSend.begin(), WaitSend.end())),
                       ofClass(hasAnyName(Types)))))))
          .bind("function"),
      this);
}

void WaitSendOnLocalCopyCheck::check(const MatchFinder::MatchResult &Result) {
  const auto *Function = Result.Nodes.getNodeAs<FunctionDecl>("function");
  ASTContext &Ctx = *Result.Context;
  const FunctionAnalysis *Analysis = analysisOf(*Function, Ctx);
  if (!Analysis)
    return;
  for (const DescriptorUse &Use : Analysis->WaitSends) {
    llvm::SmallVector<OriginId, 2> LocalOrigins;
    bool AllLocal = true;
    for (const Value &V : Use.Values.values()) {
      if (Analysis->kindOf(V) != Remoteness::Local) {
        AllLocal = false;
        continue;
      }
      if (llvm::find(LocalOrigins, V.Origin) == LocalOrigins.end())
        LocalOrigins.push_back(V.Origin);
    }
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
    for (OriginId Origin : LocalOrigins)
      diag(constructionLoc(Analysis->Origins[Origin].Site),
           AllLocal ? "'%0' is a local copy: built here without a device id and source semaphore"
                    : "'%0' is a local copy on this path: built here without a device id and "
                      "source semaphore",
           DiagnosticIDs::Note)
          << Name;
  }
}

} // namespace dmalint::checks
