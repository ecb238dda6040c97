//===- RootMentions.cpp - Where a function mentions semaphore roots -------===//
#include "RootMentions.h"
#include "dmalint/Semaphores.h"
#include "clang/AST/ExprCXX.h"

using namespace clang;

namespace dmalint {

RootMentions::RootMentions(const ApiIndex &Api, llvm::ArrayRef<const Expr *> Followed)
    : Api(Api) {
  for (const Expr *E : Followed)
    SemaphoreArguments.insert(E);
}

bool RootMentions::TraverseStmt(Stmt *S) {
  if (!S)
    return true;
  bool Allowed = SemaphoreArguments.contains(S);
  Inside += Allowed;
  bool Result = RecursiveASTVisitor::TraverseStmt(S);
  Inside -= Allowed;
  return Result;
}

bool RootMentions::TraverseLambdaExpr(LambdaExpr *L) {
  ++InLambda;
  bool Result = RecursiveASTVisitor::TraverseLambdaExpr(L);
  --InLambda;
  return Result;
}

bool RootMentions::TraverseVarDecl(VarDecl *V) {
  Initialising.push_back(V);
  bool Result = RecursiveASTVisitor::TraverseVarDecl(V);
  Initialising.pop_back();
  return Result;
}

bool RootMentions::VisitCallExpr(CallExpr *Call) {
  if (Api.isCopy(*Call))
    addArguments(Call);
  return true;
}

bool RootMentions::VisitCXXConstructExpr(CXXConstructExpr *CE) {
  if (Api.isCopy(*CE)) {
    addArguments(CE);
    // The source semaphore may be an optional the analysis follows, or
    // not: either way it is a semaphore argument.
    if (Api.model().CtorSrcSemParam < CE->getNumArgs())
      SemaphoreArguments.insert(CE->getArg(Api.model().CtorSrcSemParam));
  }
  return true;
}

bool RootMentions::VisitDeclRefExpr(DeclRefExpr *DRE) {
  const auto *V = dyn_cast<VarDecl>(DRE->getDecl());
  if (!V)
    return true;
  const VarDecl *Init = Initialising.empty() ? nullptr : Initialising.back();
  Mentions.push_back({cast<VarDecl>(V->getCanonicalDecl()), Inside > 0 && InLambda == 0, Init});
  return true;
}

bool RootMentions::onlyInCopies(const ValueDecl *Root) const {
  const auto *V = dyn_cast<VarDecl>(Root);
  if (!V)
    return false;
  for (const Mention &M : Mentions) {
    if (M.Var != V || M.InCopy)
      continue;
    if (!M.InInitOf || M.InInitOf == V || !isLocalSemaphoreCopy(M.InInitOf))
      return false;
  }
  return true;
}

void RootMentions::addArguments(const Expr *Copy) {
  CopySemaphores Sems = copySemaphores(Copy, Api);
  for (const Expr *E : {Sems.Send, Sems.Receive})
    if (E)
      SemaphoreArguments.insert(E);
}

bool RootMentions::isLocalSemaphoreCopy(const VarDecl *V) const {
  if (!V->isLocalVarDecl() || isa<ParmVarDecl>(V))
    return false;
  const VarDecl *Canonical = V->getCanonicalDecl();
  for (const Mention &M : Mentions)
    if (M.Var == Canonical && !M.InCopy)
      return false;
  return true;
}

} // namespace dmalint
