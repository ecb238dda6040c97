//===- ProtocolSummary.h - Which semaphores a helper starts copies on and waits -*- C++ -*-===//
//
// What the protocol checks learn of a function of the translation unit that
// a caller hands semaphores (and buffers) to: the copies it starts that may
// still be in flight when it returns, and the waits it makes, each named in
// terms of its parameters (`sems.at(0, slot)` with `sems` and `slot`
// parameters), and for each parameter whether that is all it does with the
// semaphores the caller passes there. At a call the names become the
// caller's, with the arguments put in for the parameters (Protocol.cpp), so
// the caller's in-flight copies and waits include the helper's. Whatever
// cannot be named this way is unknown: a parameter the helper hands on,
// stores, writes or mentions in a lambda is not followed, and a wait whose
// semaphore cannot be named may take any semaphore's bytes.
//
//===----------------------------------------------------------------------===//
#ifndef DMALINT_PROTOCOLSUMMARY_H
#define DMALINT_PROTOCOLSUMMARY_H

#include "dmalint/Buffers.h"
#include "dmalint/Facts.h"
#include "dmalint/Location.h"
#include "dmalint/Values.h"
#include <optional>
#include <string>
#include <vector>

namespace clang {
class CallExpr;
class FieldDecl;
class LambdaExpr;
} // namespace clang

namespace dmalint {

struct LambdaCall;

/// An index, slice start or slice size in a summary: a constant (an
/// expression of the helper clang evaluates), the value of a parameter, or
/// unknown.
struct SummaryTerm {
  const clang::Expr *Constant = nullptr;
  int Param = -1;
  /// With Param: an integer expression of the helper over that parameter
  /// alone (`step % 2`, `1 - slot`, `(step + 1) % 2`), which a call names
  /// with its argument in the parameter's place (a helper that computes its
  /// slot from the step it is given).
  const clang::Expr *Formula = nullptr;
  bool known() const { return Constant || Param >= 0; }
};

/// A semaphore a helper names: a parameter and the indices it selects.
struct SummarySemaphore {
  unsigned Param = 0;
  llvm::SmallVector<SummaryTerm, 2> Indices;
  /// Instead of Param, in a member function's summary: a member of its
  /// object that only constructors set (`sem_`), named at a call by what
  /// the object's constructor set it to (ProtocolSummary::MemberInits).
  const clang::FieldDecl *Member = nullptr;
};

/// A buffer view a helper names: a parameter and the sub-views taken of it.
struct SummaryBuffer {
  struct Step {
    SummaryTerm Start, Size; ///< `at(Start)` when Size is not a slice's.
    bool Slice = false;
  };
  unsigned Param = 0;
  llvm::SmallVector<Step, 3> Steps;
  /// The view is inside this one: steps the summary cannot name were dropped.
  bool Inexact = false;
  const clang::FieldDecl *Member = nullptr; ///< As SummarySemaphore's.
};

/// A copy a helper starts that may be in flight when it returns.
struct HelperStart {
  const clang::Expr *At = nullptr; ///< The start, in the helper (innermost).
  const clang::FunctionDecl *In = nullptr; ///< The function At is in.
  Remoteness Kind = Remoteness::Local;
  SummarySemaphore Receive;
  std::optional<SummaryBuffer> Target;
  /// Only when the helper's bool parameters have these values.
  ParamFacts When;
  /// Also under conditions on the arguments of a call inside the helper
  /// that the summary cannot state: it may be started or not, whatever When
  /// says.
  bool Conditional = false;
  /// Set, instead of Receive and Target, for the copies the object of a
  /// member function holds at this path: what the object's constructor
  /// stored there names them at a call (ObjectCopies.cpp).
  std::optional<AccessPath> ObjectPath;
};

/// A wait a helper makes.
struct HelperWait {
  const clang::Expr *At = nullptr; ///< The wait, in the helper (innermost).
  const clang::FunctionDecl *In = nullptr; ///< The function At is in.
  /// The semaphores it may take bytes from; empty with Unknown.
  llvm::SmallVector<SummarySemaphore, 2> Semaphores;
  /// It may take any semaphore's bytes: what it waits cannot be named.
  bool Unknown = false;
  /// Source and target are one view: it stands for any copy on its semaphore
  /// (or they may become one at a call: see placeholderAtCall).
  bool Placeholder = false;
  std::optional<SummaryBuffer> Source;
  /// The one local copy it waits, into Target (a wait the race check can
  /// judge); else it only tells which semaphores may be taken.
  bool Exact = false;
  std::optional<SummaryBuffer> Target;
  ParamFacts When;
  bool Conditional = false;
  /// Set, instead of the semaphores and views, for a wait of the copies the
  /// object of a member function holds at this path (as HelperStart's).
  std::optional<AccessPath> ObjectPath;
};

/// A wait_recv() of a remote copy a helper builds, whose send semaphore is a
/// parameter's and is waited nowhere in the helper: the caller that owns
/// the semaphore judges whether anything waits it (dma-send-never-waited).
struct HelperReceiveOnly {
  const clang::Expr *WaitRecv = nullptr;     ///< In the helper (innermost).
  const clang::Expr *Construction = nullptr; ///< Of the copy, in the helper.
  const clang::FunctionDecl *In = nullptr;   ///< The function WaitRecv is in.
  /// The send semaphores of the copies the wait may be of.
  llvm::SmallVector<SummarySemaphore, 1> Sends;
  ParamFacts When;
};

/// The copy a function returns when every return hands back a copy (local,
/// or remote with its send semaphore named) made at one construction of it: a wrapper of the factory
/// (`AsyncCopyDescriptor block(Ref<T> hbm, Ref<T> buf, Sems sems, int slot)`),
/// its semaphore and buffers in terms of the parameters.
struct ReturnedCopy {
  SummarySemaphore Receive;
  std::optional<SummaryBuffer> Source, Target;
  /// A remote copy's send semaphore (`make_hop(...)` wrapping
  /// make_async_remote_copy); none for a local copy.
  std::optional<SummarySemaphore> Send;
};

/// The copies a constructor leaves at one path below its object, all made
/// at one local construction of it whose semaphore and buffers its
/// parameters name (`copies_.push_back(make_async_copy(hbm.at(page),
/// buf.at(i), sem))` in a loop: `sem` into inside `buf`).
struct StoredCopy {
  AccessPath Path;
  ReturnedCopy Copy;
};

/// A member a constructor sets from its parameters, and to what, in them:
/// `sem_(sem)`, `pages_(pages_hbm.at(head))`, or `sem_ = sem;` in its body.
struct MemberInit {
  const clang::FieldDecl *Field = nullptr;
  std::optional<SummarySemaphore> Semaphore;
  std::optional<SummaryBuffer> Buffer;
};

/// What a function does with the semaphores its callers pass it.
struct ProtocolSummary {
  std::vector<HelperStart> Starts;
  std::optional<ReturnedCopy> Returned;
  /// Instead of Returned, a function that returns one of two constructions,
  /// one local and one remote (picked on a bool parameter: `if (remote)
  /// return make_async_remote_copy(...); return make_async_copy(...);`),
  /// each named: by kind, for a call where the arguments pick one.
  llvm::SmallVector<std::pair<Remoteness, ReturnedCopy>, 2> ReturnedPicked;
  /// The copies it returns below its value instead, each made at one
  /// construction of its own (`.first` and `.second` of a returned
  /// `std::pair`, the members of a returned struct).
  std::vector<StoredCopy> ReturnedAt;
  /// A constructor's: the copies it stores in its object, by path, and the
  /// members it sets from its parameters.
  std::vector<StoredCopy> Stored;
  std::vector<MemberInit> MemberInits;
  std::vector<HelperWait> Waits;
  std::vector<HelperReceiveOnly> ReceiveOnly;
  /// By parameter: the starts and waits above are all the function does
  /// with the semaphores a caller passes there (it never hands them on,
  /// stores, writes or captures them).
  llvm::SmallVector<bool, 4> Followed;
  /// A constructor's, by parameter: the semaphores a caller passes there go
  /// only into the Stored copies and MemberInits (and the starts and waits
  /// above), so they are followed wherever what is done with the object is.
  llvm::SmallVector<bool, 4> StoredFollowed;
  /// A member function's: its starts and waits at object paths are all it
  /// does with the copies its object holds (it stores none there, and hands
  /// none on), and it mentions the semaphores its object's members hold
  /// only as the semaphores of copies.
  bool ObjectFollowed = false;

  bool followed(unsigned Param) const { return Param < Followed.size() && Followed[Param]; }
  /// Whether some start, wait or returned copy is stated in the object of a
  /// member function (an object path or a member): named at each call.
  bool hasObjectEntries() const;
};

/// \p N (a name in the function of \p Vars) in terms of that function's
/// parameters; nullopt when its root is not a parameter the function never
/// writes.
std::optional<SummarySemaphore> summarySemaphore(const SemaphoreName &N,
                                                 const UnwrittenVariables &Vars,
                                                 const clang::ASTContext &Ctx);
std::optional<SummaryBuffer> summaryBuffer(const BufferName &N, const UnwrittenVariables &Vars,
                                           const clang::ASTContext &Ctx);

/// The name a caller gives \p S at a call with \p Args (the callee's
/// arguments in parameter order): the argument's name with the summary's
/// indices after it, an argument in place of each parameter. Nullopt when
/// the argument cannot be named (UnwrittenVariables of the caller, \p Vars).
/// An index that cannot be named stays in the name as unknown (null).
///
/// \p Within: the arguments (some of them) are written in the body of the
/// lambda this call calls (an object's constructor arguments, where a lambda
/// of the caller made the object): names through them are put at that call
/// (semaphoreAtLambdaCall).
std::optional<SemaphoreName> semaphoreAtCall(const SummarySemaphore &S,
                                             llvm::ArrayRef<const clang::Expr *> Args,
                                             const UnwrittenVariables &Vars,
                                             const clang::ASTContext &Ctx,
                                             const LambdaCall *Within = nullptr);
std::optional<BufferName> bufferAtCall(const SummaryBuffer &B,
                                       llvm::ArrayRef<const clang::Expr *> Args,
                                       const ApiIndex &Api, const UnwrittenVariables &Vars,
                                       const clang::ASTContext &Ctx,
                                       const LambdaCall *Within = nullptr);

/// Whether \p W is a placeholder at a call with \p Args: it is one in the
/// helper, or the arguments make its source and target one view.
bool placeholderAtCall(const HelperWait &W, llvm::ArrayRef<const clang::Expr *> Args,
                       const ApiIndex &Api, const UnwrittenVariables &Vars,
                       const clang::ASTContext &Ctx, const LambdaCall *Within = nullptr);

/// A call a function makes of a lambda of its own, which the analysis
/// inlines: of the lambda written at the call, or held by a local that is
/// not a reference (`auto fetch = [&](int slot) {...}; fetch(next)`).
struct LambdaCall {
  const clang::CallExpr *Call = nullptr;
  const clang::LambdaExpr *Lambda = nullptr;
  /// The call operator the call runs: the lambda's, or for a generic lambda
  /// the instantiation the call makes (whose parameters and body hold what
  /// the call's arguments give).
  const clang::CXXMethodDecl *Operator = nullptr;
  llvm::SmallVector<const clang::Expr *, 4> Args; ///< In parameter order.
};

/// The call of a lambda \p E is (through parentheses and temporaries).
std::optional<LambdaCall> lambdaCall(const clang::Expr *E);

/// \p N, a name written in the body of the lambda \p C calls, as the
/// function that makes the call (of \p Vars) names it there: the lambda's
/// unwritten parameters become the call's arguments, and the variables it
/// captures, which must be the function's unwritten ones, stay. Nullopt
/// when the root is none of these; an index that mentions anything else (a
/// local of the lambda, a parameter in an expression) is unknown (null).
std::optional<SemaphoreName> semaphoreAtLambdaCall(const SemaphoreName &N, const LambdaCall &C,
                                                   const UnwrittenVariables &Vars);
std::optional<BufferName> bufferAtLambdaCall(const BufferName &N, const LambdaCall &C,
                                             const ApiIndex &Api, const UnwrittenVariables &Vars);

/// \p S or \p B as the caller would write it (`sems.at(0, next)`), for
/// messages; "" when a part has no spelling.
std::string spellAtCall(const SummarySemaphore &S, llvm::ArrayRef<const clang::Expr *> Args,
                        const clang::ASTContext &Ctx, const LambdaCall *Within = nullptr);
std::string spellAtCall(const SummaryBuffer &B, llvm::ArrayRef<const clang::Expr *> Args,
                        const clang::ASTContext &Ctx, const LambdaCall *Within = nullptr);
/// The same for a name in the body of the lambda \p C calls.
std::string spellAtLambdaCall(const SemaphoreName &N, const LambdaCall &C,
                              const clang::ASTContext &Ctx);
std::string spellAtLambdaCall(const BufferName &N, const LambdaCall &C,
                              const clang::ASTContext &Ctx);

} // namespace dmalint

#endif // DMALINT_PROTOCOLSUMMARY_H
