//===- MatchedNodes.cpp - The nodes worth handing to the dma-* checks ---===//
#include "MatchedNodes.h"
#include "dmalint/Arguments.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/ExprCXX.h"
#include "clang/Basic/SourceManager.h"

using namespace clang;

namespace dmalint {

bool MatchedNodes::mayMatch(ASTNodeKind Kind) {
  auto [It, Inserted] = Kinds.try_emplace(Kind, false);
  if (Inserted)
    It->second = llvm::any_of(Asked, [&](ASTNodeKind K) { return K.isBaseOf(Kind); });
  return It->second;
}

bool MatchedNodes::mayMatch(const Stmt &S) {
  uint8_t &Known = StmtClasses[S.getStmtClass()];
  if (!Known)
    Known = mayMatch(ASTNodeKind::getFromNode(S)) ? 2 : 1;
  return Known == 2;
}

MatchCandidate MatchedNodes::candidate(const Decl &D, const ASTContext &Ctx) {
  if (!mayMatch(ASTNodeKind::getFromNode(D)))
    return MatchCandidate::No;
  if (const auto *Function = dyn_cast<FunctionDecl>(&D)) {
    // Every dma-* matcher of functions takes definitions that use the API;
    // system headers hold no kernels.
    if (!Function->isThisDeclarationADefinition())
      return MatchCandidate::No;
    if (!Api)
      return MatchCandidate::Yes;
    const SourceManager &SM = Ctx.getSourceManager();
    if (SM.isInSystemHeader(SM.getExpansionLoc(Function->getLocation())))
      return MatchCandidate::No;
    return MatchCandidate::IfFunctionUsesApi;
  }
  if (const auto *Record = dyn_cast<CXXRecordDecl>(&D))
    return mayName(Record) ? MatchCandidate::Yes : MatchCandidate::No;
  return MatchCandidate::Yes;
}

MatchCandidate MatchedNodes::candidate(const Stmt &S) {
  if (!mayMatch(S))
    return MatchCandidate::No;
  if (const auto *Call = dyn_cast<CallExpr>(&S)) {
    const auto *Member = dyn_cast<CXXMemberCallExpr>(Call);
    const CXXMethodDecl *Method = Member ? Member->getMethodDecl() : nullptr;
    // A standard function that builds a descriptor from what it forwards
    // (v.emplace_back(src, dst, sem, ...)) names no part of the API.
    return mayName(Call->getDirectCallee()) || (Method && mayName(Method->getParent())) ||
                   mayForwardConstruction(Call->getDirectCallee())
               ? MatchCandidate::Yes
               : MatchCandidate::No;
  }
  if (const auto *Construct = dyn_cast<CXXConstructExpr>(&S))
    return mayName(Construct->getConstructor()->getParent()) ? MatchCandidate::Yes
                                                             : MatchCandidate::No;
  return MatchCandidate::Yes;
}

} // namespace dmalint
