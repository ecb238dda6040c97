//===- StartPriorityCheck.cpp ---------------------------------------------===//
#include "StartPriorityCheck.h"
#include "dmalint/Arguments.h"
#include "clang/ASTMatchers/ASTMatchFinder.h"

using namespace clang;
using namespace clang::ast_matchers;

namespace dmalint::checks {

void StartPriorityCheck::registerDmaMatchers(DmaMatchers &Matchers) {
  Matchers.add<CXXMemberCallExpr, callsDescriptorMethod>("call");
  // Whether the copy is remote needs the descriptor analysis of the function.
  Matchers.add<FunctionDecl, definitionUsingApi>("function");
}

std::optional<int64_t> StartPriorityCheck::priorityOf(const CXXMemberCallExpr &Call,
                                                      const ASTContext &Ctx) const {
  unsigned Index = Api->model().StartPriorityParam;
  if (Api->roleOf(Call.getMethodDecl()) != ApiRole::Start || Index >= Call.getNumArgs() ||
      isa<CXXDefaultArgExpr>(Call.getArg(Index)))
    return std::nullopt;
  return constantInt(Call.getArg(Index), Ctx);
}

void StartPriorityCheck::check(const MatchFinder::MatchResult &Result) {
  if (validateApi(Result))
    return;
  if (const auto *Call = Result.Nodes.getNodeAs<CXXMemberCallExpr>("call"))
    checkConstant(*Call, *Result.Context);
  if (const auto *Function = Result.Nodes.getNodeAs<FunctionDecl>("function"))
    checkRemote(*Function, *Result.Context);
}

void StartPriorityCheck::checkConstant(const CXXMemberCallExpr &Call, ASTContext &Ctx) {
  std::optional<int64_t> Value = priorityOf(Call, Ctx);
  // The context last: finding it builds the parent map, which clean code
  // never needs.
  if (!Value || (*Value >= 0 && *Value <= 1) || isInDependentContext(Call, Ctx))
    return;
  SourceLocation At = userLocation(
      Call.getArg(Api->model().StartPriorityParam)->getBeginLoc(), Ctx.getSourceManager());
  if (*Value < 0)
    diag(At, "DMA start priority must be non-negative, got %0") << std::to_string(*Value);
  else if (*Value > 1)
    diag(At, "DMA start priority must be 0 or 1, got %0") << std::to_string(*Value);
}

void StartPriorityCheck::checkRemote(const FunctionDecl &Function, ASTContext &Ctx) {
  const FunctionAnalysis *Analysis = analysisOf(Function, Ctx);
  if (!Analysis)
    return;
  unsigned Index = Api->model().StartPriorityParam;
  for (const DescriptorUse &Use : Analysis->Starts) {
    if (Index >= Use.Call->getNumArgs() || isa<CXXDefaultArgExpr>(Use.Call->getArg(Index)))
      continue;
    SourceLocation At = Use.Call->getArg(Index)->getBeginLoc();
    std::optional<int64_t> Priority = priorityOf(*Use.Call, Ctx);
    if (!Priority)
      continue;
    // Out-of-range priorities are reported above, whatever the copy; 0 is
    // right for any copy.
    KindVerdict Remote = Analysis->verdict(Use.Values, Remoteness::Remote);
    if (*Priority != 1 || Remote.Origins.empty()) {
      if (*Priority != 1 || !Remote.AnyUnknown)
        reached(At, std::nullopt);
      continue;
    }
    std::string Name = nameOf(Use.Object, Ctx);
    Candidate C;
    C.Loc = At;
    C.Definite = Remote.All;
    C.Message = formatMessage("remote copy '%0' must be started with priority 0, got %1",
                              {Name, std::to_string(*Priority)});
    noteConstructions(C, *Analysis, Remote.Origins,
                      Remote.All ? "'%0' is a remote copy: built here with a device id and "
                                   "source semaphore"
                                 : "'%0' may be a remote copy: built here with a device id and "
                                   "source semaphore",
                      Name);
    reached(At, std::move(C));
  }
}

} // namespace dmalint::checks
