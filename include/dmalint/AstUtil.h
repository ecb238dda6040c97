//===- AstUtil.h - Small AST helpers shared by the analysis and checks -*- C++ -*-===//
#ifndef DMALINT_ASTUTIL_H
#define DMALINT_ASTUTIL_H

#include "dmalint/Facts.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/Expr.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/StmtCXX.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/SmallVector.h"
#include <memory>
#include <optional>
#include <utility>
#include <string>
#include <vector>

namespace clang {
class ParentMap;
} // namespace clang

namespace dmalint {

/// \p E without parentheses, implicit casts, temporaries, cleanups and
/// elidable copies: the expression that makes the value.
const clang::Expr *stripWrappers(const clang::Expr *E);

/// \p E without parentheses, the casts that keep the object the same
/// (no-op, derived-to-base and back, lvalue-to-rvalue), temporaries,
/// cleanups, default arguments and default member initialisers; with
/// \p Conversions also the constructor and user conversions and functional
/// casts that build the object from another: the expression an object's
/// value comes from.
const clang::Expr *withoutWrappers(const clang::Expr *E, bool Conversions);

/// What builds the temporary \p E is (a prvalue) or materialises (a
/// reference bound to it extends its lifetime); null when \p E names an
/// object.
const clang::Expr *temporaryBuilt(const clang::Expr *E);

/// An argument as the callee sees it, without parentheses and implicit
/// casts: the expression written at the call, or the default argument's.
const clang::Expr *bareArgument(const clang::Expr *E);

/// \p E without parentheses, implicit casts and `!`s, each `!` flipping
/// \p Positive: `!!wait` is `wait`, `!wait` is `wait` negated. With
/// \p ThroughCasts, without explicit casts too (`static_cast<bool>(c)`, as
/// assert writes its condition).
const clang::Expr *bareCondition(const clang::Expr *E, bool &Positive,
                                 bool ThroughCasts = false);

/// The bool parameter \p Cond tests alone (`c`, `!c`, `!!c`), with
/// \p Positive flipped by each `!`; null for any other condition.
const clang::ParmVarDecl *testedBoolParameter(const clang::Expr *Cond, bool &Positive);
/// `P == C`, `C == P`, `P != C` or `C != P` for a parameter P and a constant
/// C (an enumerator, a literal, a constexpr name), without parentheses and
/// casts around: P and C's value, with \p Equal telling `==` from `!=`.
std::optional<std::pair<const clang::ParmVarDecl *, int64_t>>
comparedParameter(const clang::Expr *E, bool &Equal, const clang::ASTContext &Ctx);
/// The parameter a switch tests, alone (`switch (a)`); null for any other.
const clang::ParmVarDecl *switchedParameter(const clang::SwitchStmt &Switch);
/// The value `case K:` matches; none for a default label, a GNU range
/// (`case 1 ... 3:`) or a label clang cannot evaluate.
std::optional<int64_t> caseValue(const clang::SwitchCase &SC, const clang::ASTContext &Ctx);

/// Whether \p Call is a member call on `this` (written or implicit).
bool isCallOnThis(const clang::Expr *Call);

/// The object whose members \p ME reaches (`s` of `s.sem` and of
/// `s.kv.sem`, `this` of `b_.sem`), through at most four members below
/// \p ME, without parentheses and implicit casts; a member expression when
/// the chain is longer.
const clang::Expr *memberChainObject(const clang::MemberExpr &ME);

/// The variable memberChainObject names; null for a member of `*this`, of a
/// temporary or of anything but a variable.
const clang::VarDecl *memberChainVariable(const clang::MemberExpr &ME);

/// The variable \p E names through `.` members of fields (`c.sync.barrier`:
/// c), with the fields from it to \p E in \p Path (sync, barrier; empty
/// for the variable itself), without parentheses and implicit casts between;
/// null for anything else (a `->`, a method, more than five members, not a
/// variable).
const clang::VarDecl *fieldPathVariable(const clang::Expr *E,
                                        llvm::SmallVectorImpl<const clang::FieldDecl *> &Path);

/// The operand \p S only reads, if it is one that does: a load's, a copy
/// construction's from a const reference, a const member function's object
/// (called or as an operator). The walks that find what a body may write
/// count every other mention as a write.
const clang::Expr *onlyReadOperand(const clang::Stmt *S);
/// The array whose element \p E is, through built-in subscripts (`s.sems`
/// of `s.sems[i]`, `grid` of `grid[i][j]`): reading an element reads the
/// array. \p E itself when it is no element of a built-in array.
const clang::Expr *arrayOfElement(const clang::Expr *E);

/// How many times \p S (and what it holds, lambdas included) names \p D.
unsigned mentionsOf(const clang::ValueDecl *D, const clang::Stmt *S);

/// The body of the loop \p Loop (a for, range-for, while or do statement);
/// null for any other statement.
const clang::Stmt *loopBody(const clang::Stmt *Loop);
/// Whether \p S is a for, range-for, while or do statement.
inline bool isLoop(const clang::Stmt *S) {
  return llvm::isa_and_nonnull<clang::ForStmt, clang::WhileStmt, clang::DoStmt,
                               clang::CXXForRangeStmt>(S);
}

/// What the one return statement of \p FD returns, without wrappers
/// (stripWrappers): the construction each call makes when it is one. Null
/// when the body has no return with a value or more than one return (those
/// of lambdas in it aside).
const clang::Expr *returnedConstruction(const clang::FunctionDecl &FD);

/// What a call's argument \p Arg says of a callee's fact "its bool parameter
/// is \p Holds": \p Constant when clang evaluates the argument (then the
/// fact is that constant's), else the argument without its `!`s (\p Tested)
/// and whether it must hold for the fact (\p TestedHolds). Null Tested and
/// no Constant: a dependent or missing argument.
struct BoolArgument {
  std::optional<bool> Constant;
  const clang::Expr *Tested = nullptr;
  bool TestedHolds = true;
};
BoolArgument boolArgument(const clang::Expr *Arg, bool Holds, const clang::ASTContext &Ctx);
/// The same for any fact of a callee (ParamFact): a bool parameter's as
/// above; for `param == Equals`, Constant says whether the argument clang
/// evaluates equals it (nothing when it cannot evaluate it).
BoolArgument factArgument(const ParamFact &F, const clang::Expr *Arg,
                          const clang::ASTContext &Ctx);

/// The expression that builds part \p Index of the value \p E builds where no
/// code of the program runs on it: an argument of `std::make_pair` or
/// `std::make_tuple`, of a `std::pair` or `std::tuple` constructor (not a
/// copy or a move), or an initialiser of a braced list; without wrappers.
/// Null for anything else.
const clang::Expr *partBuilt(const clang::Expr *E, unsigned Index);

/// True when \p S sits in a template pattern (code that is never run as
/// written; only its instantiations are analysed).
bool isInDependentContext(const clang::Stmt &S, clang::ASTContext &Ctx);

/// The instantiations of the call operator of \p L when it is a generic
/// lambda (`[&](auto x) { ... }`): bodies of their own, the code that runs
/// at its calls (the pattern's body, with dependent types, never runs).
/// Empty for any other lambda.
llvm::SmallVector<const clang::CXXMethodDecl *, 2>
genericLambdaInstantiations(const clang::LambdaExpr &L);

/// Calls \p Each with every generic lambda written in \p Root, or in the body
/// of an instantiation found so, and each instantiation of its call
/// operator (once per body).
void forEachGenericLambdaInstantiation(
    const clang::Stmt *Root,
    llvm::function_ref<void(const clang::LambdaExpr &, const clang::CXXMethodDecl &)> Each);

/// Whether \p DC is the call operator of \p L, or an instantiation of it.
bool isCallOperatorOf(const clang::DeclContext *DC, const clang::LambdaExpr &L);

/// The function \p Lambda (a lambda's call operator) is written in, through
/// the lambdas around it; null for one written elsewhere (a member's
/// initialiser, a global's).
const clang::FunctionDecl *enclosingFunction(const clang::CXXMethodDecl &Lambda);

/// For a RecursiveASTVisitor \p V: walks a generic lambda as the code that
/// runs, its explicit captures and the bodies of the instantiations of its
/// call operator, in place of its pattern. False (nothing walked) for any
/// other lambda.
template <typename Visitor>
bool traverseGenericLambda(Visitor &V, clang::LambdaExpr *L, bool &Result) {
  if (!L->getLambdaClass() || !L->getLambdaClass()->isGenericLambda())
    return false;
  Result = true;
  for (unsigned I = 0, N = L->capture_size(); I != N && Result; ++I) {
    const clang::LambdaCapture *C = L->capture_begin() + I;
    if (C->isExplicit())
      Result = V.TraverseLambdaCapture(L, C, L->capture_init_begin()[I]);
  }
  for (const clang::CXXMethodDecl *Op : genericLambdaInstantiations(*L))
    if (Result && Op->getBody())
      Result = V.TraverseStmt(Op->getBody());
  return true;
}

/// The parents of the statements of one function's body: clang's ParentMap
/// of that body, built on first use. The translation unit's parent map
/// (ASTContext::getParents) is built for the whole translation unit,
/// standard headers included, the first time anything asks: on the way to a
/// report about a statement of a known function, this one is what to ask.
///
/// A generic lambda written in the function (`[&](auto x) { ... }`) has its
/// code in the instantiations of its call operator, bodies of their own that
/// the function's body does not hold; the analysis runs them where they are
/// called. Their statements are the function's too: each instantiation's body
/// gets a ParentMap of its own, built the first time a statement is not in
/// the ones before.
class BodyParents {
public:
  explicit BodyParents(const clang::FunctionDecl &Function);
  ~BodyParents();
  /// Whether \p S is the body or a statement in it, or in the body of an
  /// instantiation of a generic lambda written in it.
  bool contains(const clang::Stmt &S);
  /// The statement \p S is a child of; null for a body itself. (Where the
  /// translation unit's map gives a declaration, for the initialiser of a
  /// local variable or an init-capture, this gives the declaration
  /// statement or the lambda.)
  const clang::Stmt *parent(const clang::Stmt &S);
  /// The local variable (or a lambda's init-capture) \p S initialises, if
  /// it is one's initialiser.
  const clang::VarDecl *initialised(const clang::Stmt &S);
  /// The function whose body holds \p S: the function, or the
  /// instantiation of a generic lambda's call operator; null when \p S is
  /// in neither.
  const clang::FunctionDecl *owner(const clang::Stmt &S);

private:
  struct Body;
  /// The body holding \p S, or null.
  Body *bodyOf(const clang::Stmt &S);
  /// The function's body first; the instantiations' bodies once needed.
  std::vector<Body> Bodies;
  bool InstantiationsAdded = false;
};

/// The source text of \p E as written, or "" when it does not come from one
/// contiguous range of a file.
std::string spelling(const clang::Expr *E, const clang::ASTContext &Ctx);

/// \p E as a message names it: its spelling, or inside a macro body the text
/// the macro spells it with; \p Fallback when that is none, longer than a
/// name should be, or more than one line.
std::string nameInMessage(const clang::Expr *E, const clang::ASTContext &Ctx,
                          llvm::StringRef Fallback);

/// Where a construction is best pointed at: the variable's name for
/// `T d(...)`, the member name for `v.emplace_back(...)`, else the start.
clang::SourceLocation constructionLoc(const clang::Expr *Site);

/// The type of the class \p RD itself (`getTypeForDecl` is gone from TagDecl
/// in LLVM 22; its replacement is not in LLVM 19).
clang::QualType recordTypeOf(const clang::ASTContext &Ctx, const clang::CXXRecordDecl &RD);

} // namespace dmalint

#endif // DMALINT_ASTUTIL_H
