//===- UnusedDescriptorCheck.cpp ------------------------------------------===//
#include "UnusedDescriptorCheck.h"
#include "dmalint/AstUtil.h"
#include "clang/AST/ParentMapContext.h"
#include "clang/ASTMatchers/ASTMatchFinder.h"

using namespace clang;
using namespace clang::ast_matchers;

namespace dmalint::checks {

void UnusedDescriptorCheck::registerMatchers(MatchFinder *Finder) {
  registerApiValidation(Finder);
  Finder->addMatcher(functionsUsingApi().bind("function"), this);
}

/// The name a construction is known by: the variable it initialises, or the
/// called factory for a temporary.
static std::string constructionName(const Expr *Site, ASTContext &Ctx) {
  const Stmt *Current = Site;
  while (true) {
    DynTypedNodeList Parents = Ctx.getParents(*Current);
    if (Parents.empty())
      break;
    if (const auto *VD = Parents[0].get<VarDecl>())
      return VD->getNameAsString();
    const auto *E = Parents[0].get<Expr>();
    if (!E || !(isa<ImplicitCastExpr, MaterializeTemporaryExpr, CXXBindTemporaryExpr,
                    ExprWithCleanups, CXXFunctionalCastExpr, ParenExpr>(E) ||
                (isa<CXXConstructExpr>(E) &&
                 cast<CXXConstructExpr>(E)->getConstructor()->isCopyOrMoveConstructor())))
      break;
    Current = E;
  }
  if (const auto *Call = dyn_cast<CallExpr>(Site))
    if (const FunctionDecl *FD = Call->getDirectCallee())
      return FD->getNameAsString() + "(...)";
  return "descriptor";
}

void UnusedDescriptorCheck::check(const MatchFinder::MatchResult &Result) {
  if (validateApi(Result))
    return;
  const auto *Function = Result.Nodes.getNodeAs<FunctionDecl>("function");
  ASTContext &Ctx = *Result.Context;
  const FunctionAnalysis *Analysis = analysisOf(*Function, Ctx);
  if (!Analysis)
    return;
  for (OriginId Id = 1; Id < Analysis->Origins.size(); ++Id) {
    const OriginInfo &Origin = Analysis->Origins[Id];
    if (Origin.Param || Origin.Kind == Remoteness::Unknown || !Origin.Site ||
        (Id < Analysis->UsedOrEscaped.size() && Analysis->UsedOrEscaped[Id]))
      continue;
    SourceLocation At = constructionLoc(Origin.Site);
    if (!AnalysisCache::current().firstReport("dma-unused-descriptor", At))
      continue;
    diag(At, "descriptor '%0' is built but never started or waited; did you mean to call "
             "'%1' or '%2' on it?")
        << constructionName(Origin.Site, Ctx) << methodWithRole(Api->model(), ApiRole::Start)
        << methodWithRole(Api->model(), ApiRole::Wait);
  }
}

} // namespace dmalint::checks
