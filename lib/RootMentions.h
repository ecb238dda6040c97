//===- RootMentions.h - Where a function mentions semaphore roots -*- C++ -*-===//
//
// Private to lib/: the protocol checks (Protocol.cpp) and the summaries of
// helpers (ProtocolSummaries.cpp) ask whether every mention of a semaphore
// root is one the analysis follows.
//
//===----------------------------------------------------------------------===//
#ifndef DMALINT_LIB_ROOTMENTIONS_H
#define DMALINT_LIB_ROOTMENTIONS_H

#include "dmalint/ApiModel.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "llvm/ADT/DenseSet.h"
#include <vector>

namespace dmalint {

/// Where a function mentions semaphore roots. A root mentioned only as a
/// semaphore argument of copies (directly, or through a local semaphore
/// variable that is used only there), or as an argument of a helper whose
/// summary follows that parameter (\p Followed), is waited nowhere but where
/// the analysis sees; any other mention (a call of a function it cannot see,
/// a reference bound to it, a store) may wait it where the analysis does not
/// look, and so may a copy or a call in a lambda, which the analysis follows
/// only where it sees the lambda called.
class RootMentions : public clang::RecursiveASTVisitor<RootMentions> {
public:
  RootMentions(const ApiIndex &Api, llvm::ArrayRef<const clang::Expr *> Followed = {});

  bool TraverseStmt(clang::Stmt *S);
  bool TraverseLambdaExpr(clang::LambdaExpr *L);
  bool TraverseVarDecl(clang::VarDecl *V);
  bool VisitCallExpr(clang::CallExpr *Call);
  bool VisitCXXConstructExpr(clang::CXXConstructExpr *CE);
  bool VisitDeclRefExpr(clang::DeclRefExpr *DRE);

  /// True when every mention of \p Root is one the analysis follows.
  bool onlyInCopies(const clang::ValueDecl *Root) const;

private:
  struct Mention {
    const clang::VarDecl *Var;
    bool InCopy;
    const clang::VarDecl *InInitOf;
  };

  void addArguments(const clang::Expr *Copy);
  /// A local variable mentioned only as a semaphore argument of copies.
  bool isLocalSemaphoreCopy(const clang::VarDecl *V) const;

  const ApiIndex &Api;
  unsigned Inside = 0, InLambda = 0;
  std::vector<clang::VarDecl *> Initialising;
  llvm::DenseSet<const clang::Stmt *> SemaphoreArguments;
  std::vector<Mention> Mentions;
};

} // namespace dmalint

#endif // DMALINT_LIB_ROOTMENTIONS_H
