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
#include "llvm/ADT/DenseMap.h"
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
/// only where it sees the lambda called. With \p CalledLambdas, a semaphore
/// argument of the copy a lambda returns (`[&](int slot) { return
/// make_async_copy(...); }`) is followed too when a local holds the lambda
/// and only ever calls it (`fetch(next).start()`): each call is a copy made
/// where the analysis sees it. So is an argument of such a call that is the
/// semaphore of that copy.
class RootMentions : public clang::RecursiveASTVisitor<RootMentions> {
public:
  RootMentions(const ApiIndex &Api, llvm::ArrayRef<const clang::Expr *> Followed = {},
               bool CalledLambdas = false);

  bool TraverseStmt(clang::Stmt *S);
  bool TraverseLambdaExpr(clang::LambdaExpr *L);
  bool TraverseVarDecl(clang::VarDecl *V);
  bool VisitCallExpr(clang::CallExpr *Call);
  bool VisitCXXOperatorCallExpr(clang::CXXOperatorCallExpr *Call);
  bool VisitCXXConstructExpr(clang::CXXConstructExpr *CE);
  bool VisitDeclRefExpr(clang::DeclRefExpr *DRE);

  /// True when every mention of \p Root is one the analysis follows.
  bool onlyInCopies(const clang::ValueDecl *Root) const;

private:
  struct Mention {
    const clang::VarDecl *Var;
    bool InCopy;
    const clang::VarDecl *InInitOf;
    /// A semaphore argument of the copy this lambda returns.
    const clang::LambdaExpr *InLambdaCopy = nullptr;
    bool Called = false; ///< The callee of a call (`fetch(...)`).
  };

  void addArguments(const clang::Expr *Copy);
  /// A local variable mentioned only as a semaphore argument of copies.
  bool isLocalSemaphoreCopy(const clang::VarDecl *V) const;
  /// A lambda a local holds whose every mention is a call of it.
  bool onlyCalled(const clang::LambdaExpr *L) const;

  const ApiIndex &Api;
  bool CalledLambdas;
  unsigned Inside = 0, InsideReturned = 0, InLambda = 0;
  const clang::LambdaExpr *Lambda = nullptr; ///< The innermost one being walked.
  const clang::Expr *LambdaReturns = nullptr; ///< What it returns (returnedConstruction).
  llvm::DenseSet<const clang::Stmt *> ReturnedArguments; ///< Of the copy it returns.
  /// Arguments of calls of lambdas that are the semaphores of the copies
  /// they return, and the innermost one being walked.
  llvm::DenseMap<const clang::Stmt *, const clang::LambdaExpr *> LambdaArguments;
  const clang::LambdaExpr *ArgumentOf = nullptr;
  llvm::DenseSet<const clang::DeclRefExpr *> Callees;
  llvm::DenseMap<const clang::LambdaExpr *, const clang::VarDecl *> Holders;
  std::vector<clang::VarDecl *> Initialising;
  llvm::DenseSet<const clang::Stmt *> SemaphoreArguments;
  std::vector<Mention> Mentions;
};

} // namespace dmalint

#endif // DMALINT_LIB_ROOTMENTIONS_H
