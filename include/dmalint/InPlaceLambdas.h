//===- InPlaceLambdas.h - Lambdas that run where they are written -*- C++ -*-===//
//
// Kernels ported from Pallas write `@pl.when(cond)` as a helper of their own,
// `template <class F> void when(bool c, F f) { if (c) f(); }`, and put the
// step's code in `when(cond, [&] { ... })`. Such a lambda runs at most once,
// at the call, before the call returns: its body is the function's own code
// under a condition, and the walks that judge a function's code treat it so
// (not as a lambda, which may run anywhere, any number of times).
//
//===----------------------------------------------------------------------===//
#ifndef DMALINT_INPLACELAMBDAS_H
#define DMALINT_INPLACELAMBDAS_H

#include "clang/AST/Expr.h"
#include "clang/AST/ExprCXX.h"
#include "llvm/ADT/SmallPtrSet.h"
#include <optional>

namespace clang {
class ParentMap;
} // namespace clang

namespace dmalint {

/// How a function runs its parameter in place (inPlaceRun).
struct InPlaceRun {
  /// The bool parameter whose argument decides whether the call runs it,
  /// none when every call does.
  std::optional<unsigned> Flag;
  bool Positive = true; ///< It runs when the flag holds (else when it does not).
};

/// How \p FD's body calls its parameter \p Param, with no argument, at most
/// once, in place: the one mention of the parameter is that call (or
/// `std::forward` / `std::move` of it), not in a loop, a lambda or after a
/// label, and the body calls nothing else (so nothing but the parameter's
/// call can act between the call's start and its return); and what decides
/// whether it is reached is known: nothing, or one bool parameter `c`
/// mentioned only in one test, `if (c) f();` (its then or else branch, the
/// call's value returned or cast to void) or `if (c) return; f();`. None
/// for anything else. Written for `when`: `if (c) f();`, `f();`.
std::optional<InPlaceRun> inPlaceRun(const clang::FunctionDecl &FD, unsigned Param);

/// The lambda of argument \p Arg of a call of \p Callee with \p Args (one
/// per parameter) when the call runs it in place: a lambda written in the
/// argument, with no parameters, handed to a function of the translation
/// unit that calls it in place (inPlaceRun, asked once per function and
/// parameter through AnalysisCache::inPlaceRun).
const clang::LambdaExpr *inPlaceLambdaArgument(const clang::FunctionDecl *Callee,
                                               llvm::ArrayRef<const clang::Expr *> Args,
                                               unsigned Arg);

/// Adds to \p Into the lambdas that \p Call runs in place: its in-place
/// lambda arguments (of a function, or of a lambda held in a local and
/// called by name), or the lambda it calls where it is written
/// (`[&] { ... }()`). For walks that meet the call before its arguments.
void addInPlaceLambdas(const clang::CallExpr &Call,
                       llvm::SmallPtrSetImpl<const clang::LambdaExpr *> &Into);

/// The call that runs \p L in place, found through \p PM; null when \p L
/// does not run in place.
const clang::CallExpr *inPlaceCall(const clang::LambdaExpr &L, const clang::ParentMap &PM);

/// The condition under which \p Call runs its in-place lambda \p L, as
/// written at the call (the argument for the callee's flag), and whether
/// the lambda runs when it holds (\p Positive); null when every call runs it.
const clang::Expr *inPlaceConditionAt(const clang::CallExpr &Call, const clang::LambdaExpr &L,
                                      bool &Positive);

/// Whether a call with \p Args of a function that runs a parameter as \p Run
/// says runs it, when that is known at the call (the flag's argument a
/// constant, or no flag). None otherwise.
std::optional<bool> runDecided(const InPlaceRun &Run, llvm::ArrayRef<const clang::Expr *> Args,
                               const clang::ASTContext &Ctx);

/// For a call of \p Callee with \p Args whose argument \p Arg is a lambda it
/// runs in place: whether it runs, when that is known at the call (the
/// flag's argument a constant, or no flag). None otherwise.
std::optional<bool> runsInPlace(const clang::FunctionDecl *Callee,
                                llvm::ArrayRef<const clang::Expr *> Args, unsigned Arg,
                                const clang::ASTContext &Ctx);

} // namespace dmalint

#endif // DMALINT_INPLACELAMBDAS_H
