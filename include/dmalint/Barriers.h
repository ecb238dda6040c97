//===- Barriers.h - Regular semaphores used as barriers, counted -*- C++ -*-===//
//
// The barrier model of dma-semaphore-imbalance (checks.md): a regular
// semaphore that one function both signals and waits, in one region with no
// branch, early exit or uncounted loop between its signals and waits. Every
// device runs the same code (SPMD), so when each signal goes to a target that
// is a bijection of the device's own id (a ring neighbour, itself, every
// device in a loop), a device receives exactly what it sends; the region is
// balanced when that total equals what its waits take. Counts are symbolic
// (SymbolicCount.h): loops count their iterations, `n - 1` against `n`.
//
// Anything the model cannot count or cannot prove a bijection leaves the
// semaphore unjudged: no verdict, never a finding.
//
//===----------------------------------------------------------------------===//
#ifndef DMALINT_BARRIERS_H
#define DMALINT_BARRIERS_H

#include "dmalint/ApiModel.h"
#include "dmalint/SymbolicCount.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/Decl.h"
#include "clang/AST/Expr.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include <memory>
#include <vector>

namespace dmalint {

/// Which devices a signal comes from, seen from the device that receives it.
enum class SignalSource {
  Itself,           ///< A signal without a device id, or to the device's own id.
  Neighbour,        ///< A signal to a bijection of the device's id (a ring neighbour).
  /// A loop that signals a different neighbour in each iteration: the
  /// device's id rotated by the loop's counter, `(me + i) % n`.
  NeighbourPerIteration,
  EveryDevice,      ///< A loop that signals every device of an axis.
  EveryOtherDevice, ///< The same loop skipping the device itself.
};

/// One signal of a barrier, counted for one run of its region.
struct BarrierSignal {
  const clang::CallExpr *Call = nullptr;
  SignalSource Source = SignalSource::Itself;
  /// What each device receives from one source device (the increment times
  /// the iterations of the loops around the signal), and from how many
  /// source devices (1, or the iterations of the loop that picks them).
  SymbolicCount PerSource, Sources;
  SymbolicCount Received; ///< PerSource * Sources.
};

/// One wait of a barrier, counted for one run of its region.
struct BarrierWait {
  const clang::CallExpr *Call = nullptr;
  SymbolicCount Total; ///< The value it takes times the iterations around it.
};

/// A barrier semaphore whose signals and waits the model could count.
struct BarrierBalance {
  /// The semaphore as written at the last wait.
  const clang::Expr *Semaphore = nullptr;
  /// The waits in source order; the last one is where the region ends.
  std::vector<BarrierWait> Waits;
  std::vector<BarrierSignal> Signals; ///< In source order.
  SymbolicCount Received, Waited;
  /// Received - Waited: positive when the semaphore is left signalled at
  /// kernel exit, negative when a wait never completes.
  CountSign Difference = CountSign::Unknown;
  /// Writes the counts above (the atoms are the function's).
  std::shared_ptr<const AtomTable> Atoms;

  const BarrierWait &lastWait() const { return Waits.back(); }
};

/// The barriers of \p FD whose balance is provable: Difference is Zero,
/// Positive or Negative, never Unknown. A semaphore is left out when:
///  - one of its signals or waits is in a lambda, under a condition or a
///    loop the model cannot count, or separated from the others by an early
///    exit (return, break, continue, goto, throw);
///  - a signal's target is not a provable bijection of the device's id;
///  - the function mentions it anywhere but as the semaphore of a signal or
///    wait (a helper may signal or wait it), or only signals or only waits
///    it (a handshake with another function or grid step);
///  - it is a member or a global, or a parameter for which \p CallerMayUse
///    says a function of the translation unit that calls this one may
///    signal or wait what it passes (not when it only passes to this
///    function a semaphore it made or was given and uses no other way);
///  - another semaphore the function signals or waits may be the same one
///    (two parameters may name one semaphore) and could make up the
///    difference.
///
/// \p CallerMayUse is asked only when a balance depends on it. With
/// \p AssumedUncalled given, balanced barriers alone are returned without
/// asking, judged as if no function called \p FD, and *AssumedUncalled is
/// set: they hold only if none does (ask again without it to know).
std::vector<BarrierBalance> barrierBalances(const clang::FunctionDecl &FD,
                                            clang::ASTContext &Ctx, const ApiIndex &Api,
                                            llvm::function_ref<bool(const clang::ParmVarDecl &)> CallerMayUse,
                                            bool *AssumedUncalled = nullptr);

} // namespace dmalint

#endif // DMALINT_BARRIERS_H
