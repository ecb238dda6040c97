//===- WaitSendFixes.h - Fix-its for wait_send on a local copy --*- C++ -*-===//
//
// Definite local copy, a receive-side wait does not follow on every path:
//   d.wait_send();            ->  d.wait_recv();
// Definite local copy, a receive-side wait of d follows on every path (the
// analysis decides it on the CFG):
//   d.wait_send();            ->  (statement removed)
//   d.wait_recv();                d.wait_recv();
// Maybe local (guard, in the author's brace style and indentation; inside a
// one-statement loop or if body):
//   for (auto &d : ds)            for (auto &d : ds)
//     d.wait_send();      ->        if (d.is_remote())
//                                     d.wait_send();
// The guard repeats the object as written before the member operator, with
// the same operator: `p->`, `opt->`, `it->`, `(*p).`. Inserted lines end as
// the file's lines do (CRLF stays CRLF). No fix-it where the statement is not
// spelled in a file (a macro body).
//
//===----------------------------------------------------------------------===//
#ifndef DMALINT_CHECKS_WAITSENDFIXES_H
#define DMALINT_CHECKS_WAITSENDFIXES_H

#include "dmalint/ApiModel.h"
#include "dmalint/AstUtil.h"
#include "dmalint/DescriptorAnalysis.h"
#include "clang/AST/ExprCXX.h"
#include "clang/Basic/Diagnostic.h"
#include "llvm/ADT/SmallVector.h"

namespace dmalint::checks {

/// \p Parents: those of the function whose analysis found the wait_send.
llvm::SmallVector<clang::FixItHint, 2>
definiteLocalFix(const clang::CXXMemberCallExpr &WaitSend, ReceiveWaitAfter After,
                 const ApiIndex &Api, clang::ASTContext &Ctx, BodyParents &Parents);

llvm::SmallVector<clang::FixItHint, 2>
guardFix(const clang::CXXMemberCallExpr &WaitSend, const ApiIndex &Api,
         clang::ASTContext &Ctx, BodyParents &Parents);

} // namespace dmalint::checks

#endif
