//===- AstUtil.h - Small AST helpers shared by the analysis and checks -*- C++ -*-===//
#ifndef DMALINT_ASTUTIL_H
#define DMALINT_ASTUTIL_H

#include "clang/AST/ASTContext.h"
#include "clang/AST/Expr.h"
#include <string>

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

/// True when \p S sits in a template pattern (code that is never run as
/// written; only its instantiations are analysed).
bool isInDependentContext(const clang::Stmt &S, clang::ASTContext &Ctx);

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
