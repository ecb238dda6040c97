//===- Buffers.h - Which part of which buffer a copy reads or writes -*- C++ -*-===//
//
// The buffer model of the protocol checks (checks.md): a buffer is a root
// `Ref` (a parameter, a local, a member of `*this`) and the chain of
// sub-views taken of it (`at(i)`, `slice(start, n)`). Two different roots
// are different buffers (a kernel's operands and scratch refs do not alias);
// two views of one root are the same, disjoint, or may overlap.
//
//===----------------------------------------------------------------------===//
#ifndef DMALINT_BUFFERS_H
#define DMALINT_BUFFERS_H

#include "dmalint/Semaphores.h"

namespace dmalint {

/// One sub-view: `at(index)` (Size null) or `slice(start, size)`.
struct BufferStep {
  const clang::Expr *Start = nullptr;
  const clang::Expr *Size = nullptr;
  bool isSlice() const { return Size != nullptr; }
};

/// A buffer view as the code names it.
struct BufferName {
  const clang::ValueDecl *Root = nullptr;
  llvm::SmallVector<BufferStep, 3> Steps; ///< Outermost first.
  const clang::Expr *Spelling = nullptr;
  const clang::Expr *RootAt = nullptr; ///< As SemaphoreName's.
  /// A view inside the one Steps name (a helper's sub-view the caller
  /// cannot name): never the same as another.
  bool Inexact = false;
};

/// The view \p E names: through implicit copies and unwritten local `Ref`
/// variables. Nullopt for anything else (a call's result, a conditional).
std::optional<BufferName> bufferName(const clang::Expr *E, const ApiIndex &Api,
                                     const UnwrittenVariables &Vars);

enum class BufferRelation {
  Same,      ///< The same view.
  Disjoint,  ///< Views of one root that share no element.
  OtherRoot, ///< Different buffers.
  Overlap,   ///< Views of one root that may share elements.
};

/// Compares two views. Indices compare as for semaphores; constant slices
/// (and slices `e + c` of one invariant `e`) as intervals; a view and a
/// view of it (a prefix of its chain) overlap.
BufferRelation compareBuffers(const BufferName &A, const BufferName &B,
                              const UnwrittenVariables &Vars, const clang::ASTContext &Ctx,
                              Evaluation Where);

} // namespace dmalint

#endif // DMALINT_BUFFERS_H
