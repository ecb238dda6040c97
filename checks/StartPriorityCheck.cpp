//===- StartPriorityCheck.cpp ---------------------------------------------===//
#include "StartPriorityCheck.h"
#include "ApiOptions.h"
#include "dmalint/Arguments.h"
#include "clang/ASTMatchers/ASTMatchFinder.h"

using namespace clang;
using namespace clang::ast_matchers;

namespace dmalint::checks {

StartPriorityCheck::StartPriorityCheck(StringRef Name,
                                       tidy::ClangTidyContext *Context)
    : ClangTidyCheck(Name, Context), Api(loadApiIndex()) {}

void StartPriorityCheck::registerMatchers(MatchFinder *Finder) {
  std::vector<StringRef> Types(Api->model().DescriptorTypes.begin(),
                               Api->model().DescriptorTypes.end());
  Finder->addMatcher(
      cxxMemberCallExpr(callee(cxxMethodDecl(ofClass(hasAnyName(Types)))))
          .bind("call"),
      this);
}

void StartPriorityCheck::check(const MatchFinder::MatchResult &Result) {
  const auto *Call = Result.Nodes.getNodeAs<CXXMemberCallExpr>("call");
  if (Api->roleOf(Call->getMethodDecl()) != ApiRole::Start ||
      isInDependentContext(*Call, *Result.Context))
    return;
  unsigned Index = Api->model().StartPriorityParam;
  if (Index >= Call->getNumArgs() || isa<CXXDefaultArgExpr>(Call->getArg(Index)))
    return;
  const Expr *Priority = Call->getArg(Index);
  std::optional<int64_t> Value = constantInt(Priority, *Result.Context);
  if (!Value)
    return;
  if (*Value < 0)
    diag(Priority->getBeginLoc(), "DMA start priority must be non-negative, got %0")
        << std::to_string(*Value);
  else if (*Value > 1)
    diag(Priority->getBeginLoc(), "DMA start priority must be 0 or 1, got %0")
        << std::to_string(*Value);
}

} // namespace dmalint::checks
