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
#include "dmalint/ProtocolSummary.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SmallPtrSet.h"
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
///
/// With \p CalledLambdas, the walk also notes the semaphore arguments of
/// copies a lambda makes (not in a lambda of its own) when a local holds the
/// lambda and the function only ever calls it (`fetch(next).start()`): each
/// call is inlined by the analysis, so its copies are made where the analysis
/// sees them. So is an argument of such a call for a semaphore parameter of
/// those copies. Whether they count is the question's (\p LambdaCopies of
/// onlyInCopies).
class RootMentions : public clang::RecursiveASTVisitor<RootMentions> {
public:
  /// \p Vars: the function's (which variables it names whole).
  RootMentions(const ApiIndex &Api, const UnwrittenVariables &Vars,
               llvm::ArrayRef<const clang::Expr *> Followed = {}, bool CalledLambdas = false);

  bool TraverseStmt(clang::Stmt *S);
  bool TraverseLambdaExpr(clang::LambdaExpr *L);
  /// Naming a variable in a capture list (`[&, sem]`, `[&sem]`, `[sem]`)
  /// is no mention of it: the lambda's body names it where it uses it (a
  /// copy of a semaphore is the same semaphore), as with `[&]` or `[=]`.
  bool TraverseLambdaCapture(clang::LambdaExpr *L, const clang::LambdaCapture *C,
                             clang::Expr *Init);
  bool TraverseVarDecl(clang::VarDecl *V);
  bool VisitCallExpr(clang::CallExpr *Call);
  bool VisitCXXOperatorCallExpr(clang::CXXOperatorCallExpr *Call);
  bool VisitCXXConstructExpr(clang::CXXConstructExpr *CE);
  bool VisitDeclRefExpr(clang::DeclRefExpr *DRE);
  /// `(void)sem;` reads the value and drops it: not a mention.
  bool VisitExplicitCastExpr(clang::ExplicitCastExpr *Cast);
  /// A member of the object of a member function (`sem_`), or of a
  /// variable (`s.sem`), is a root too.
  bool VisitMemberExpr(clang::MemberExpr *ME);
  bool VisitCXXMemberCallExpr(clang::CXXMemberCallExpr *Call);
  bool VisitCXXThisExpr(clang::CXXThisExpr *This);

  /// Whether `this` is named other than to reach a member or to call a
  /// member function on it (`helper(*this)`): what it is handed to may wait
  /// any member.
  bool thisHandedOn() const { return ThisHandedOn; }
  /// The member functions called on `*this`.
  const llvm::SmallPtrSetImpl<const clang::CXXMethodDecl *> &thisCalls() const {
    return ThisCalls;
  }

  /// True when every mention of \p Root is one the analysis follows; with
  /// \p LambdaCopies, also the semaphore arguments of the copies of lambdas
  /// only called, and of their calls.
  bool onlyInCopies(const clang::ValueDecl *Root, bool LambdaCopies = false) const;
  /// True when every mention of \p Root, in the function's own code or in
  /// any lambda of it, is a semaphore argument of a copy: nothing holds it
  /// that a call could wait without naming it.
  bool onlyCopyArguments(const clang::ValueDecl *Root) const;
  /// A lambda a local holds whose every mention is a call of it.
  bool onlyCalled(const clang::LambdaExpr *L) const;
  /// The local \p L initialises, if one does.
  const clang::VarDecl *holderOf(const clang::LambdaExpr *L) const { return Holders.lookup(L); }
  /// The calls of \p L the function's own code makes (with CalledLambdas).
  llvm::ArrayRef<LambdaCall> callsOf(const clang::LambdaExpr *L) const {
    auto It = Calls.find(L);
    if (It == Calls.end())
      return {};
    return It->second;
  }
  /// Whether code in a lambda calls \p L (with CalledLambdas).
  bool calledInLambda(const clang::LambdaExpr *L) const { return CalledInLambdas.contains(L); }
  /// The lambdas whose calls the function's own code makes (with CalledLambdas).
  llvm::SmallVector<const clang::LambdaExpr *, 2> lambdasCalled() const {
    llvm::SmallVector<const clang::LambdaExpr *, 2> Out;
    for (const auto &[L, Made] : Calls)
      Out.push_back(L);
    return Out;
  }
  /// The lambdas whose copies (or calls) hold a mention (with
  /// CalledLambdas): those onlyInCopies may count with LambdaCopies.
  llvm::SmallVector<const clang::LambdaExpr *, 2> lambdasWithCopies() const;

private:
  struct Mention {
    const clang::ValueDecl *Var; ///< A variable, or a member of `*this`.
    bool InCopy;
    bool InAnyCopy; ///< A semaphore argument of a copy, in a lambda or not.
    const clang::VarDecl *InInitOf;
    /// A semaphore argument of a copy this lambda makes, or of its call for one.
    const clang::LambdaExpr *InLambdaCopy = nullptr;
    bool Called = false; ///< The callee of a call (`fetch(...)`).
    /// The member of InInitOf (a local struct) its braced initialiser's
    /// element that holds the mention sets.
    const clang::FieldDecl *InField = nullptr;
  };
  void addArguments(const clang::Expr *Copy);
  void addMention(const clang::ValueDecl *Root, const clang::Expr *At);
  /// Whether \p M is a semaphore argument of a copy the question follows.
  bool inCopy(const Mention &M, bool LambdaCopies) const;
  /// A local variable mentioned only as a semaphore argument of copies.
  bool isLocalSemaphoreCopy(const clang::VarDecl *V, bool LambdaCopies) const;
  /// A local struct never named whole whose member \p F is mentioned only as
  /// a semaphore argument of copies.
  bool isLocalStructMember(const clang::VarDecl *V, const clang::FieldDecl *F,
                           bool LambdaCopies) const;

  const ApiIndex &Api;
  const UnwrittenVariables &Vars;
  bool CalledLambdas;
  unsigned Inside = 0, InLambda = 0;
  const clang::LambdaExpr *Lambda = nullptr; ///< The innermost one being walked.
  /// Semaphore arguments of copies in lambdas; whether one is being walked.
  llvm::DenseSet<const clang::Stmt *> LambdaCopyArguments;
  unsigned InLambdaArgument = 0;
  /// Arguments of calls of lambdas for their parameters that are semaphore
  /// arguments of their copies (SemaphoreParameters), with the lambda; the
  /// innermost being walked.
  llvm::DenseMap<const clang::Stmt *, const clang::LambdaExpr *> CallArguments;
  const clang::LambdaExpr *InCallArgument = nullptr;
  llvm::DenseMap<const clang::LambdaExpr *, llvm::SmallVector<unsigned, 2>> SemaphoreParameters;
  llvm::DenseMap<const clang::LambdaExpr *, std::vector<LambdaCall>> Calls;
  llvm::SmallPtrSet<const clang::LambdaExpr *, 4> CalledInLambdas;
  /// Lambdas that run where they are written: the function's own code.
  llvm::SmallPtrSet<const clang::LambdaExpr *, 4> InPlace;
  llvm::DenseSet<const clang::DeclRefExpr *> Callees;
  llvm::DenseMap<const clang::LambdaExpr *, const clang::VarDecl *> Holders;
  std::vector<clang::VarDecl *> Initialising;
  llvm::DenseSet<const clang::Stmt *> SemaphoreArguments;
  std::vector<Mention> Mentions;
  /// Operands of casts to void (`(void)alias;`).
  llvm::DenseSet<const clang::Expr *> Discarded;
  /// The `this` that is the base of a member or the object of a member call.
  llvm::DenseSet<const clang::Expr *> ThisAsBase;
  /// The elements of local structs' braced initialisers, by the member each
  /// sets; the one being walked.
  llvm::DenseMap<const clang::Stmt *, const clang::FieldDecl *> ElementFields;
  void mapElements(const clang::Expr *Init, clang::QualType T, unsigned Depth);
  const clang::FieldDecl *InitialisingField = nullptr;
  const clang::Expr *InitialisingElement = nullptr;
  bool ThisHandedOn = false;
  llvm::SmallPtrSet<const clang::CXXMethodDecl *, 4> ThisCalls;
};

} // namespace dmalint

#endif // DMALINT_LIB_ROOTMENTIONS_H
