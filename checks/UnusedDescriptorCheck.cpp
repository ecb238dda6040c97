//===- UnusedDescriptorCheck.cpp ------------------------------------------===//
#include "UnusedDescriptorCheck.h"
#include "dmalint/AstUtil.h"
#include "clang/AST/ParentMapContext.h"
#include "clang/ASTMatchers/ASTMatchFinder.h"

using namespace clang;
using namespace clang::ast_matchers;

namespace dmalint::checks {

void UnusedDescriptorCheck::registerDmaMatchers(DmaMatchers &Matchers) {
  Matchers.add<FunctionDecl, definitionReachingApi>("function");
}

/// Whether \p E only passes on the object of its operand (a variable
/// initialised with it is known by that variable's name).
static bool passesOn(const Expr *E) {
  return E && (isa<ImplicitCastExpr, MaterializeTemporaryExpr, CXXBindTemporaryExpr,
                   ExprWithCleanups, CXXFunctionalCastExpr, ParenExpr>(E) ||
               (isa<CXXConstructExpr>(E) &&
                cast<CXXConstructExpr>(E)->getConstructor()->isCopyOrMoveConstructor()));
}

/// Whether \p Body assigns the variable \p VD (`d = make_async_copy(...)`).
static bool assigns(const Stmt *Body, const VarDecl *VD) {
  llvm::SmallVector<const Stmt *, 32> Work{Body};
  while (!Work.empty()) {
    const Stmt *S = Work.pop_back_val();
    if (!S)
      continue;
    const Expr *Target = nullptr;
    if (const auto *BO = dyn_cast<BinaryOperator>(S); BO && BO->isAssignmentOp())
      Target = BO->getLHS();
    else if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(S);
             Op && Op->getOperator() == OO_Equal && Op->getNumArgs() == 2)
      Target = Op->getArg(0);
    if (const auto *DRE = Target ? dyn_cast<DeclRefExpr>(Target->IgnoreParenImpCasts()) : nullptr;
        DRE && DRE->getDecl() == VD)
      return true;
    llvm::append_range(Work, S->children());
  }
  return false;
}

/// The name a construction is known by: the variable it initialises (and in
/// \p Initialises, that variable), or the called factory for a temporary.
/// \p Parents: those of the function whose analysis built it.
static std::string constructionName(const Expr *Site, BodyParents &Parents, ASTContext &Ctx,
                                    const VarDecl *&Initialises) {
  Initialises = nullptr;
  const Stmt *Current = Site;
  if (Parents.contains(*Site)) {
    // The function's own statements: its parent map, not the translation
    // unit's.
    while (const Stmt *P = Parents.parent(*Current)) {
      if (const VarDecl *VD = Parents.initialised(*Current)) {
        Initialises = VD;
        return VD->getNameAsString();
      }
      const auto *E = dyn_cast<Expr>(P);
      if (!passesOn(E))
        break;
      Current = E;
    }
  } else {
    while (true) {
      DynTypedNodeList Found = Ctx.getParents(*Current);
      if (Found.empty())
        break;
      if (const auto *VD = Found[0].get<VarDecl>()) {
        Initialises = VD;
        return VD->getNameAsString();
      }
      const auto *E = Found[0].get<Expr>();
      if (!passesOn(E))
        break;
      Current = E;
    }
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
  std::vector<OriginId> Unused = Analysis->unusedConstructions();
  BodyParents Parents(*Function);

  for (OriginId Id = 1; Id < Analysis->Origins.size(); ++Id) {
    const OriginInfo &Origin = Analysis->origin(Id);
    if (!Origin.Site || Origin.isParameter() || Origin.Imported || Origin.Folded ||
        Origin.Engaged || Origin.Kind == Remoteness::Unknown)
      continue;
    SourceLocation At = constructionLoc(Origin.Site);
    if (!llvm::is_contained(Unused, Id)) {
      reached(At, std::nullopt); // Used here: another instantiation's verdict is wrong.
      continue;
    }
    Candidate C;
    C.Loc = At;
    const VarDecl *Variable = nullptr;
    std::string Name = constructionName(Origin.Site, Parents, Ctx, Variable);
    // A placeholder the variable starts with and is assigned over (`auto d =
    // make_async_copy(x, x, s); if (c) d = ...; else d = ...; d.start();`):
    // the variable is used, the copy it was initialised with is not.
    bool Replaced = Variable && assigns(Function->getBody(), Variable);
    C.Message = formatMessage(
        Replaced ? "the descriptor '%0' is initialised with is never started or waited before "
                   "'%0' is assigned another; did you mean to call '%1' or '%2' on it?"
                 : "descriptor '%0' is built but never started or waited; did you mean to call "
                   "'%1' or '%2' on it?",
        {Name, methodWithRole(Api->model(), ApiRole::Start),
         methodWithRole(Api->model(), ApiRole::Wait)});
    reached(At, std::move(C));
  }
}

} // namespace dmalint::checks
