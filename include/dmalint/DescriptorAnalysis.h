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
#include <functional>
#include <optional>
#include <vector>

namespace dmalint {

/// Where and how a descriptor was built.
struct OriginInfo {
  const clang::Expr *Site = nullptr; ///< The factory call, constructor, or wrapper call.
  Remoteness Kind = Remoteness::Unknown;
  /// Set for the descriptor(s) a parameter brings in: of unknown kind inside
  /// the function, and what its summary is about.
  const clang::ParmVarDecl *Param = nullptr;
  unsigned ParamIndex = 0;
  /// Set instead for the state of a local std::optional (the source semaphore
  /// or device id of the general constructor): engaged or not, built here.
  std::optional<bool> Engaged;
};

/// The general constructor given exactly one of its source semaphore and
/// device id on some path, where at least one of them is an optional
/// variable (the written-out cases are judged without dataflow).
struct ConstructionMismatch {
  const clang::CXXConstructExpr *Construct = nullptr;
  bool OnlySrcSem = false;   ///< Some path sets only the source semaphore.
  bool OnlyDeviceId = false; ///< Some path sets only the device id.
  bool AlwaysMismatched = false;
  llvm::SmallVector<const clang::Expr *, 2> UnsetAt; ///< Where the unset side was made.
};

/// A `wait_send` reached from a function's parameter with no remoteness
/// guard on the way: directly, or through calls to other helpers.
struct SendWaitRequirement {
  const clang::CXXMemberCallExpr *WaitSend = nullptr; ///< In the innermost helper.
  std::vector<const clang::Expr *> Through;           ///< Calls from here down to it.
  /// Only when these bool parameters have these values (by index): a
  /// `do_copy(bool wait, ...)` helper needs a remote copy only to wait.
  llvm::SmallVector<std::pair<unsigned, bool>, 1> WhenParams;
};

/// What a function does with one parameter (a descriptor, a container of
/// descriptors, or a pointer to either), as its callers need to know.
struct ParameterSummary {
  std::optional<SendWaitRequirement> RequiresRemote;
  bool MayUse = false;   ///< May start or wait it.
  bool Escapes = false;  ///< May keep it beyond the call, or hand it where we cannot see.
  bool MayWrite = false; ///< May assign it (through a reference or pointer).
};

/// What a function's callers need to know of it.
struct FunctionSummary {
  std::vector<ParameterSummary> Params;
  /// The kinds of the copies it builds and returns (a descriptor, or the
  /// elements of a returned container).
  llvm::SmallVector<Remoteness, 2> Returns;
  llvm::SmallVector<unsigned, 2> ReturnsParams; ///< Parameters it may return.
  bool ReturnsUnknown = false;

  friend bool operator==(const FunctionSummary &A, const FunctionSummary &B);
};

/// Summaries of the functions a function calls; null for a function whose
/// body the translation unit does not have (or that is being analysed).
using SummaryLookup = std::function<const FunctionSummary *(const clang::FunctionDecl &)>;

/// A call that hands a descriptor to a helper whose summary waits its send side.
struct HelperWaitSend {
  const clang::Expr *Call = nullptr;
  const clang::FunctionDecl *Callee = nullptr;
  const clang::Expr *Argument = nullptr;
  unsigned Param = 0;
  ValueSet Values; ///< Of the descriptor, or of the container's elements.
  SendWaitRequirement Requirement;
};

/// A use of a descriptor that a check may judge: the call, its object
/// expression, and the values that may reach it (over every path and every
/// inlined lambda call).
struct DescriptorUse {
  const clang::CXXMemberCallExpr *Call = nullptr;
  const clang::Expr *Object = nullptr;
  ValueSet Values;
  /// Bool parameters of the function known on every path to the use, by
  /// index: `if (wait) d.wait_send();` is reached only with wait == true.
  llvm::SmallVector<std::pair<unsigned, bool>, 1> ParamFacts;
};

/// Bounds on the work one function may take.
struct AnalysisLimits {
  unsigned MaxBlockVisits = 100000;  ///< Over the function and its lambdas.
  unsigned MaxValuesPerLocation = 32; ///< Beyond this, assumptions are dropped.
  unsigned MaxLambdaDepth = 4;
  bool UseSummaries = true; ///< Follow calls into functions of the same translation unit.
};

struct FunctionAnalysis {
  std::vector<OriginInfo> Origins; ///< Indexed by OriginId; 0 is unknown.
  std::vector<DescriptorUse> WaitSends;
  std::vector<DescriptorUse> Starts;
  std::vector<HelperWaitSend> HelperWaitSends;
  std::vector<ConstructionMismatch> Mismatches;
  /// By OriginId: started or waited somewhere, or escaped (returned, stored
  /// beyond the function, handed to a function that may use or keep it).
  std::vector<bool> UsedOrEscaped;
  FunctionSummary Summary;
  bool HitWorkLimit = false; ///< Then the events are empty: nothing is reported.
  unsigned BlockVisits = 0;
  /// The most locations one block's entry state held: what a visit costs.
  unsigned PeakLocations = 0;
  /// The most block entry states held at once: with the CFG, what the
  /// analysis of a function keeps in memory.
  unsigned PeakStoredStates = 0;
  unsigned AssumptionsDropped = 0; ///< Times a set hit MaxValuesPerLocation.

  Remoteness kindOf(const Value &V) const { return Origins[V.Origin].Kind; }

  /// The distinct origins of kind \p Kind among \p Values, and whether
  /// every value is of that kind (a definite finding, not a maybe).
  std::pair<llvm::SmallVector<OriginId, 2>, bool> originsOfKind(const ValueSet &Values,
                                                                Remoteness Kind) const {
    llvm::SmallVector<OriginId, 2> Found;
    bool All = true;
    for (const Value &V : Values.values()) {
      if (kindOf(V) != Kind)
        All = false;
      else if (!llvm::is_contained(Found, V.Origin))
        Found.push_back(V.Origin);
    }
    return {Found, All};
  }
};

/// Analyses the body of \p FD (a definition that is not a template pattern),
/// using \p Summaries for the functions it calls.
FunctionAnalysis analyzeFunction(const clang::FunctionDecl &FD, clang::ASTContext &Ctx,
                                 const ApiIndex &Api, const AnalysisLimits &Limits,
                                 const SummaryLookup &Summaries = nullptr);

/// A lower bound on the reachable blocks of the CFG of \p Body, where its
/// code can run (a branch in code that never runs has no reachable block):
/// one for each if, conditional operator, && and ||, case label and do-while
/// loop, and two for each other loop (one if its condition is a literal
/// false). Lambda bodies are not counted: each has a CFG of its own.
uint64_t reachableBlocksAtLeast(const clang::Stmt &Body);

/// True when \p T is a container (C array, std::array, std::vector, ...,
/// std::optional) whose elements are descriptors.
bool isDescriptorContainer(clang::QualType T, const ApiIndex &Api);

} // namespace dmalint

#endif // DMALINT_DESCRIPTORANALYSIS_H
