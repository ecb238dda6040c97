//===- Protocol.h - What the semaphore protocol checks ask -------*- C++ -*-===//
//
// Questions about the semaphores a function's copies signal and wait,
// answered from its descriptor analysis and the semaphore model
// (Semaphores.h). Each answer is only what is provable: a semaphore the
// model cannot name, a copy that leaves the function, or a root the
// function hands to code it cannot see makes the question unanswered, and
// nothing is reported.
//
//===----------------------------------------------------------------------===//
#ifndef DMALINT_PROTOCOL_H
#define DMALINT_PROTOCOL_H

#include "dmalint/DescriptorAnalysis.h"
#include "dmalint/Buffers.h"
#include "dmalint/Semaphores.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include <string>
#include <vector>

namespace dmalint {

/// A receive-side wait (`wait_recv()`) of copies that are remote on every
/// path, none of whose send semaphores the function waits anywhere: no
/// `wait()` or `wait_send()` of the copies, and no wait of any descriptor on
/// a semaphore of the same root that may be the same (a descriptor rebuilt
/// to drain it). The send semaphores stay signalled at kernel exit.
struct SendNeverWaited {
  const DescriptorUse *WaitRecv = nullptr;
  llvm::SmallVector<OriginId, 1> Origins;
  /// The send semaphore of the first origin, as written at its construction
  /// (for a copy a wrapper makes, SendText: as the wrapper's call names it).
  const clang::Expr *SendSemaphore = nullptr;
  /// Instead, a helper makes the wait_recv (HelperReceiveOnly): the call
  /// here, the helper, its wait_recv and the copy's construction in it, and
  /// the send semaphore as this function names it.
  const clang::Expr *Call = nullptr;
  const clang::FunctionDecl *Helper = nullptr;
  const clang::Expr *HelperWaitRecv = nullptr, *HelperConstruction = nullptr;
  const clang::FunctionDecl *HelperWaitRecvIn = nullptr; ///< The function it is in.
  std::string SendText;
  /// The wait_recv's object is a local copy on the other paths (a list of
  /// copies of both kinds, a copy chosen by a condition).
  bool SomePaths = false;
};

/// The receive-side waits (`wait_recv()`) of \p A whose copies are remote on
/// every path (\p SomePaths: on some, and local on the others; of no
/// unknown kind either way), each with its remote copies: the waits that may
/// leave a send semaphore signalled.
std::vector<std::pair<const DescriptorUse *, llvm::SmallVector<OriginId, 1>>>
receiveWaitsOfRemoteCopies(const FunctionAnalysis &A, const ApiIndex &Api,
                           bool SomePaths = false);

/// The SendNeverWaited of \p A, the analysis of \p FD. \p CalledHere says
/// whether a function of the translation unit calls \p FD (then a caller
/// may wait the semaphores it passes, and a parameter's are not judged):
/// asked only about a parameter's semaphore that would otherwise be judged.
std::vector<SendNeverWaited> sendsNeverWaited(const FunctionAnalysis &A,
                                              const clang::FunctionDecl &FD,
                                              const clang::ASTContext &Ctx,
                                              const ApiIndex &Api,
                                              llvm::function_ref<bool()> CalledHere);

/// A receive wait W on semaphore S for one destination, made while a local
/// copy D started earlier in the same iteration (or the same run of a
/// function without a loop) on a semaphore that is provably S, into a
/// provably disjoint part of the same buffer, is still in flight; and no
/// wait that may take D's bytes follows D's start before the iteration (or
/// the function) ends. W may return on D's bytes before its own arrived.
struct SemaphoreRace {
  const DescriptorUse *Wait = nullptr; ///< W, when the function makes it.
  const clang::Expr *WaitAt = nullptr; ///< W, or the call of the helper that makes it.
  OriginId InFlight = 0;
  const clang::Expr *Start = nullptr; ///< Where D was started (or the helper's call).
  /// W's semaphore, W's destination and D's destination as the function
  /// writes them (a helper's: its arguments put in); "" when a part has no
  /// spelling of its own (a macro).
  std::string Semaphore, WaitBuffer, InFlightBuffer;
  bool InLoop = false; ///< D was started in a loop (else: in the function's one run).
  /// Set when a helper makes W, or starts D: the helper called here, and
  /// where the wait or start is (in that helper or one it calls, In).
  const clang::FunctionDecl *WaitHelper = nullptr, *StartHelper = nullptr;
  const clang::Expr *WaitInHelper = nullptr, *StartInHelper = nullptr;
  const clang::FunctionDecl *WaitIn = nullptr, *StartIn = nullptr;
  /// Set instead of the helper when a lambda of the function makes W, or
  /// starts D: the local that holds it (its name), called here (WaitAt,
  /// Start); the wait or start in it is WaitInHelper, StartInHelper.
  const clang::VarDecl *WaitLambda = nullptr, *StartLambda = nullptr;
};

/// Whether dma-semaphore-race judges the lambda whose call operator is \p Op
/// on its own, within one call: it starts a copy and then waits one in its
/// body, and does not run where it is written (that is the code of the
/// function it is written in, judged with it). The function that makes its
/// calls judges what one call leaves in flight for another (at the calls);
/// what is in flight within one call is the lambda's, however it is called
/// (handed to an emitter, held in a local and called in a loop).
bool lambdaRacesJudgedAlone(const clang::CXXMethodDecl &Op, const ApiIndex &Api);

/// The SemaphoreRace of \p A, the analysis of \p FD.
std::vector<SemaphoreRace> semaphoreRaces(const FunctionAnalysis &A,
                                          const clang::FunctionDecl &FD,
                                          const clang::ASTContext &Ctx, const ApiIndex &Api);

/// The semaphores a wait of role \p Role on a copy of origin \p O (built in
/// the function of \p Vars, the analysis \p A: by the factory, or by a
/// wrapper whose summary names them) waits: false when they cannot be named
/// (then the wait may wait anything).
bool waitedSemaphores(const FunctionAnalysis &A, const OriginInfo &O, ApiRole Role,
                      const UnwrittenVariables &Vars, const ApiIndex &Api,
                      const clang::ASTContext &Ctx, llvm::SmallVectorImpl<SemaphoreName> &Out);

/// Whether some wait of the function of \p A (its own, on any path, or one
/// of the helpers it calls) may take what a remote copy signals on its send
/// semaphore \p Send: a wait of the copy \p D itself (0: none) but
/// wait_recv, or a wait on a semaphore that may be \p Send. A wait in a
/// lambda the function calls, on a semaphore parameter of the lambda, waits
/// what each call passes: \p LambdaCalls gives the calls of a call operator
/// when the function's own code makes every call of it (none: any semaphore).
bool sendMayBeDrained(
    const FunctionAnalysis &A, OriginId D, const SemaphoreName &Send,
    const UnwrittenVariables &Vars, const clang::ASTContext &Ctx, const ApiIndex &Api,
    llvm::function_ref<std::vector<LambdaCall>(const clang::CXXMethodDecl &)> LambdaCalls =
        nullptr);

/// The arguments of the helper calls of \p A at parameters whose semaphores
/// the helper's summary follows: mentions there are followed.
std::vector<const clang::Expr *> followedArguments(const FunctionAnalysis &A);

/// What \p FD (analysed as \p A) does with the semaphores its callers pass.
ProtocolSummary summariseProtocol(const FunctionAnalysis &A, const clang::FunctionDecl &FD,
                                  const clang::ASTContext &Ctx, const ApiIndex &Api);

} // namespace dmalint

#endif // DMALINT_PROTOCOL_H
