//===- DescriptorAnalysis.h - Per-function dataflow of DMA descriptors -*- C++ -*-===//
//
// For one function: which descriptor origins (where built; local, remote or
// unknown) may reach each use, under which path assumptions. It runs once per
// function; every check reads its events. The design and its limits are in
// docs/design.md.
//
//===----------------------------------------------------------------------===//
#ifndef DMALINT_DESCRIPTORANALYSIS_H
#define DMALINT_DESCRIPTORANALYSIS_H

#include "dmalint/ApiModel.h"
#include "dmalint/Lattice.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/ExprCXX.h"
#include "llvm/ADT/DenseMap.h"
#include <vector>

namespace dmalint {

/// Where and how a descriptor was built.
struct OriginInfo {
  const clang::Expr *Site = nullptr; ///< The factory call or constructor.
  Remoteness Kind = Remoteness::Unknown;
};

/// A use of a descriptor that a check may judge: the call, its object
/// expression, and the values that may reach it (over every path and every
/// inlined lambda call).
struct DescriptorUse {
  const clang::CXXMemberCallExpr *Call = nullptr;
  const clang::Expr *Object = nullptr;
  ValueSet Values;
};

/// Bounds on the work one function may take.
struct AnalysisLimits {
  unsigned MaxBlockVisits = 100000;  ///< Over the function and its lambdas.
  unsigned MaxValuesPerLocation = 32; ///< Beyond this, assumptions are dropped.
  unsigned MaxLambdaDepth = 4;
};

struct FunctionAnalysis {
  std::vector<OriginInfo> Origins; ///< Indexed by OriginId; 0 is unknown.
  std::vector<DescriptorUse> WaitSends;
  std::vector<DescriptorUse> Starts;
  bool HitWorkLimit = false; ///< Then the events are empty: nothing is reported.
  unsigned BlockVisits = 0;
  unsigned AssumptionsDropped = 0; ///< Times a set hit MaxValuesPerLocation.

  Remoteness kindOf(const Value &V) const { return Origins[V.Origin].Kind; }
};

/// Analyses the body of \p FD (a definition that is not a template pattern).
FunctionAnalysis analyzeFunction(const clang::FunctionDecl &FD, clang::ASTContext &Ctx,
                                 const ApiIndex &Api, const AnalysisLimits &Limits);

/// True when \p T is a container (C array, std::array, std::vector, ...,
/// std::optional) whose elements are descriptors.
bool isDescriptorContainer(clang::QualType T, const ApiIndex &Api);

} // namespace dmalint

#endif // DMALINT_DESCRIPTORANALYSIS_H
