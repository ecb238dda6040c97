//===- MatchedNodes.cpp - The nodes the dma-* matchers start from ---------===//
#include "MatchedNodes.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/ExprCXX.h"
#include "clang/Basic/SourceManager.h"

using namespace clang;

namespace dmalint::checks {

static bool mayName(const NamedDecl *D, const ApiIndex *Api) { return !Api || Api->mayName(D); }

MatchCandidate matchCandidate(const Decl &D, const ASTContext &Ctx, const ApiIndex *Api) {
  if (const auto *Function = dyn_cast<FunctionDecl>(&D)) {
    if (!Function->isThisDeclarationADefinition())
      return MatchCandidate::No;
    // System headers hold no kernels: functionsUsingApi() skips them too.
    const SourceManager &SM = Ctx.getSourceManager();
    if (Api && SM.isInSystemHeader(SM.getExpansionLoc(Function->getLocation())))
      return MatchCandidate::No;
    return MatchCandidate::IfFunctionUsesApi;
  }
  if (const auto *Record = dyn_cast<CXXRecordDecl>(&D))
    return mayName(Record, Api) ? MatchCandidate::Yes : MatchCandidate::No;
  return MatchCandidate::No;
}

MatchCandidate matchCandidate(const Stmt &S, const ApiIndex *Api) {
  bool May = false;
  if (const auto *Call = dyn_cast<CallExpr>(&S)) {
    const auto *Member = dyn_cast<CXXMemberCallExpr>(Call);
    const CXXMethodDecl *Method = Member ? Member->getMethodDecl() : nullptr;
    May = mayName(Call->getDirectCallee(), Api) || (Method && mayName(Method->getParent(), Api));
  } else if (const auto *Construct = dyn_cast<CXXConstructExpr>(&S)) {
    May = mayName(Construct->getConstructor()->getParent(), Api);
  }
  return May ? MatchCandidate::Yes : MatchCandidate::No;
}

} // namespace dmalint::checks
