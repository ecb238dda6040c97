//===- Formulas.h - Integer expressions over one parameter, and their value at a call -*- C++ -*-===//
//
// A slot a helper or a lambda computes from the step it is given
// (`buf.at(step % 2)`, `sems[1 - slot]`) is a formula: constants and
// arithmetic over one integer parameter that is never written. At a call
// it is the formula with the call's argument in the parameter's place
// (`(i + 1) % 2` for the call `fetch(i + 1)`), which the index comparisons
// of the protocol checks (Semaphores.h) then compare like any expression
// the caller wrote.
//
//===----------------------------------------------------------------------===//
#ifndef DMALINT_FORMULAS_H
#define DMALINT_FORMULAS_H

#include "clang/AST/ASTContext.h"
#include "clang/AST/Expr.h"

namespace dmalint {

class UnwrittenVariables;

/// The one parameter of \p Owner (the function of \p Vars, or a lambda's
/// call operator in it) that \p E, an integer expression of constants,
/// arithmetic and that parameter (never written), reads; null for anything
/// else.
const clang::ParmVarDecl *formulaParameter(const clang::Expr *E, const UnwrittenVariables &Vars,
                                           const clang::ASTContext &Ctx,
                                           const clang::DeclContext *Owner);

/// \p Formula (formulaParameter) with \p Arg in its parameter's place: new
/// nodes in \p Ctx, made once per pair (AnalysisCache::substitution); null
/// when the argument's type is not the parameter's.
const clang::Expr *substituted(const clang::Expr *Formula, const clang::Expr *Arg,
                               const clang::ASTContext &Ctx);

} // namespace dmalint

#endif // DMALINT_FORMULAS_H
