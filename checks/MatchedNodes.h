//===- MatchedNodes.h - The nodes the dma-* matchers start from -*- C++ -*-===//
//
// A walk that hands nodes to a MatchFinder one by one (the standalone
// dmalint's, which skips clang's per-node matcher machinery) asks here which
// nodes are worth handing over. The answer mirrors the matchers of
// DmaCheck.h and the checks' registerMatchers, and lives next to them so
// that a new matcher changes both:
//
//   functionsUsingApi()       function definitions that use the API
//   registerApiValidation()   classes named like a descriptor type
//   callsDescriptorMethod()   calls of a method of a class the model names
//   callsDeviceIdUser()       calls of a function the model names
//   callsSemaphoreWait()      calls of a function the model names (barrier waits)
//   constructs*()             constructions of a class the model names
//   makesCopy()               calls of a function the model names (factories,
//                             sync copies), constructions of a descriptor
//
// The fixtures run every check through both this walk and clang-tidy's own
// and expect the same findings, so a node missing here shows there.
//
//===----------------------------------------------------------------------===//
#ifndef DMALINT_CHECKS_MATCHEDNODES_H
#define DMALINT_CHECKS_MATCHEDNODES_H

#include "dmalint/ApiModel.h"
#include "clang/AST/ASTContext.h"

namespace dmalint::checks {

enum class MatchCandidate {
  No,                ///< No dma-* matcher can match it.
  Yes,               ///< Hand it to the matchers.
  IfFunctionUsesApi, ///< A function definition: only if it uses the API.
};

/// Whether a dma-* matcher may match \p D. Without \p Api (the options are
/// in error), every node of the kinds above.
MatchCandidate matchCandidate(const clang::Decl &D, const clang::ASTContext &Ctx,
                              const ApiIndex *Api);
/// Whether a dma-* matcher may match \p S.
MatchCandidate matchCandidate(const clang::Stmt &S, const ApiIndex *Api);

} // namespace dmalint::checks

#endif
