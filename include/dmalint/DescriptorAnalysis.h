//===- DescriptorAnalysis.h - Per-function dataflow of DMA descriptors -*- C++ -*-===//
//
// For one function: which descriptor origins (where built; local, remote or
// unknown) may reach each use, under which path assumptions; where each
// origin is in its lifecycle; which constructions are never used. It runs
// once per function (AnalysisCache.h); checks ask it the questions at the
// end of this file and never read the state itself. The design and its
// limits are in docs/design.md.
//
//===----------------------------------------------------------------------===//
#ifndef DMALINT_DESCRIPTORANALYSIS_H
#define DMALINT_DESCRIPTORANALYSIS_H

#include "dmalint/ApiModel.h"
#include "dmalint/Location.h"
#include "dmalint/ProtocolSummary.h"
#include "dmalint/Values.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/ExprCXX.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallPtrSet.h"
#include <map>
#include <optional>
#include <vector>

namespace dmalint {

class TypeModel;
class CfgCache;

/// Where and how a descriptor was built.
struct OriginInfo {
  const clang::Expr *Site = nullptr; ///< The factory call, constructor, or wrapper call.
  Remoteness Kind = Remoteness::Unknown;
  /// Set for the descriptors a parameter (or, with ImplicitObject, the object
  /// a member function is called on) brings, at ParamPath below it: of
  /// unknown kind inside the function, and what its summary is about.
  const clang::ParmVarDecl *Param = nullptr;
  unsigned ParamIndex = 0;
  bool ImplicitObject = false;
  AccessPath ParamPath;
  /// Set instead for the state of a local std::optional (the source semaphore
  /// or device id of the general constructor): engaged or not, built here.
  std::optional<bool> Engaged;
  /// Built in another function and seen here through a summary (what a
  /// class's member functions store in its members): never reported as unused
  /// here, and reported at a helper call only where it was built.
  bool Imported = false;
  /// A copy a wrapper of the translation unit returns (Site is the call):
  /// where below the returned value it is (`.in` and `.out` of a returned
  /// struct of two copies are two origins; empty for the value itself).
  AccessPath ReturnPath;
  /// Stands for the origins of one kind folded together where a location
  /// held too many (AnalysisLimits::MaxOriginsPerLocation): no site.
  bool Folded = false;
  /// What `*this` brings at a private member, which the class summary
  /// already describes: it says nothing more of its kind (Queries.cpp).
  bool Covered = false;
  /// A copy the class summary lists at a member of `*this` whose kind each
  /// constructor decides (one kind per constructor, no other store there):
  /// which one an object holds is for the calls on it to judge.
  bool ByConstructor = false;
  /// Set instead for a copy a helper of the translation unit starts and may
  /// leave in flight (ProtocolSummary): the call is Site, and this is
  /// 1 + its index in FunctionAnalysis::ProtocolCalls, with the index of the
  /// summary's start in HelperEntry. No location holds it; only the
  /// protocol checks look at it.
  unsigned HelperCall = 0;
  unsigned HelperEntry = 0;

  bool isParameter() const { return Param || ImplicitObject; }
};

/// What the general constructor's source semaphore and device id may be at
/// one construction, path by path: one combination per consistent pair of
/// their states (engaged, not, or unknown) and where each state was made.
/// The check judges whether one is set without the other.
struct ConstructionArguments {
  struct Combination {
    std::optional<bool> SrcSem, DeviceId; ///< Set or not; nullopt: unknown.
    const clang::Expr *SrcSemSite = nullptr, *DeviceIdSite = nullptr;
  };
  /// The construction written out; null when a standard function builds
  /// the copy from the arguments it forwards (Forwarding).
  const clang::CXXConstructExpr *Construct = nullptr;
  /// `v.emplace_back(src, dst, sem, ...)`, `std::make_unique<D>(...)`,
  /// `o.emplace(...)`: the call whose arguments are the constructor's.
  const clang::Expr *Forwarding = nullptr;
  llvm::SmallVector<Combination, 2> Combinations;

  const clang::Expr *site() const {
    return Construct ? static_cast<const clang::Expr *>(Construct) : Forwarding;
  }
};

/// A `wait_send` reached from a function's parameter with no remoteness
/// guard on the way: directly, or through calls to other helpers.
struct SendWaitRequirement {
  const clang::CXXMemberCallExpr *WaitSend = nullptr; ///< In the innermost helper.
  std::vector<const clang::Expr *> Through;           ///< Calls from here down to it.
  /// Only when these bool parameters have these values: a
  /// `do_copy(bool wait, ...)` helper needs a remote copy only to wait.
  ParamFacts WhenParams;
  /// Only when the object's members have these values: a member function
  /// `if (remote_) d_.wait_send();` needs a remote copy only where the
  /// caller's object may have remote_ true.
  ObjectFacts WhenObject;
};

/// A requirement on the descriptors at one path below a parameter (or below
/// what a pointer parameter designates): `void drain(Half &h)` that calls
/// `h.send.wait_send()` requires a remote copy at `.send` only.
struct PathRequirement {
  AccessPath Path;
  SendWaitRequirement Requirement;
};

/// What a function does with one parameter (or with the object of a member
/// function), as its callers need to know.
struct ParameterSummary {
  llvm::SmallVector<PathRequirement, 1> RequiresRemote;
  bool MayUse = false;   ///< May start or wait what it holds.
  bool Escapes = false;  ///< May keep it beyond the call, or hand it where we cannot see.
  bool MayWrite = false; ///< May assign what it holds (through a reference or pointer).
};

/// What a summary says a location may hold.
struct SummaryValues {
  /// Copies built inside the function, by construction and kind. Returned
  /// ones become copies built at the call (so a wrapper of make_async_copy
  /// is as precise as the factory); stored ones keep their site (Imported).
  llvm::SmallVector<std::pair<const clang::Expr *, Remoteness>, 2> Built;
  /// For returned values: the bool parameters (never written) on which a
  /// construction of Built is handed back, when every return of it is under
  /// them (`if (remote) return make_async_remote_copy(...);`). A caller's
  /// constant argument decides it; its own bool variable guards it. A site
  /// not listed is returned whatever the parameters.
  llvm::SmallVector<std::pair<std::pair<const clang::Expr *, Remoteness>, ParamFacts>, 1>
      BuiltWhen;
  /// The sites of Built that are not new to a caller: the function starts,
  /// waits or stores one elsewhere (on some path) before returning it, or
  /// reads it from an object. The caller's copy of one is used.
  llvm::SmallVector<const clang::Expr *, 1> UsedByCallee;
  /// What a parameter brought, at a path below it.
  llvm::SmallVector<std::pair<unsigned, AccessPath>, 1> FromParams;
  bool FromObject = false; ///< What the object of the member function held.
  bool Unknown = false;

  void unionWith(const SummaryValues &Other);
  friend bool operator==(const SummaryValues &A, const SummaryValues &B);
};

struct PathValues {
  AccessPath Path;
  SummaryValues Values;
};
/// Adds \p From to \p Into, path by path.
void unitePaths(std::vector<PathValues> &Into, const std::vector<PathValues> &From);

/// How a constructor initialises a bool or enum member: from its parameter
/// Param (as it is, or, IsRemoteOf, as is_remote() of that descriptor
/// parameter), or with the constant Constant.
struct MemberFlagInit {
  const clang::FieldDecl *Field = nullptr;
  std::optional<unsigned> Param;
  bool IsRemoteOf = false;
  int64_t Constant = 0;
  friend bool operator==(const MemberFlagInit &A, const MemberFlagInit &B) {
    return A.Field == B.Field && A.Param == B.Param && A.IsRemoteOf == B.IsRemoteOf &&
           A.Constant == B.Constant;
  }
};

/// What a function's callers need to know of it.
struct FunctionSummary {
  std::vector<ParameterSummary> Params;
  ParameterSummary Object; ///< The object of a member function (`this`).
  /// What it returns, by path below the returned value (a descriptor at the
  /// empty path, a container's elements, a struct's fields).
  std::vector<PathValues> Returns;
  /// A constructor or member function: what it may leave in `*this`, by path.
  std::vector<PathValues> ObjectStores;
  /// A constructor: the bool or enum members it gives a value a call
  /// decides (a parameter it never writes, a constant, is_remote() of a
  /// descriptor parameter), which the object then holds as flags.
  std::vector<MemberFlagInit> FlagInits;

  friend bool operator==(const FunctionSummary &A, const FunctionSummary &B);
};

/// What the member functions of one class may store in its members: the
/// union of their ObjectStores. Inside a member function, `*this`'s members
/// hold this (and whatever the caller's object held).
struct ClassSummary {
  std::vector<PathValues> Members;
  /// Some member function could not be analysed (its body is elsewhere, or
  /// the summary did not settle): the members may hold anything too.
  bool Incomplete = false;
  friend bool operator==(const ClassSummary &A, const ClassSummary &B);
};

/// Where the analysis of one function finds the summaries of others.
class SummarySource {
public:
  virtual ~SummarySource() = default;
  /// Null for a function whose body the translation unit does not have (or
  /// that is being analysed and has no summary yet).
  virtual const FunctionSummary *function(const clang::FunctionDecl &FD) = 0;
  /// Null when the class's member functions cannot be summarised.
  virtual const ClassSummary *members(const clang::CXXRecordDecl &RD) = 0;
  /// What \p FD does with the semaphores a caller passes it; null when it
  /// cannot say (no body here, recursion in progress, no use of the API).
  virtual const ProtocolSummary *protocol(const clang::FunctionDecl &FD) { return nullptr; }
  /// The same for a constructor whose object's member functions use the
  /// API, though it may not itself (it sets the members they name).
  virtual const ProtocolSummary *constructorProtocol(const clang::FunctionDecl &Ctor) {
    return protocol(Ctor);
  }
};

/// A call that hands a descriptor to a helper whose summary waits its send side.
struct HelperWaitSend {
  const clang::Expr *Call = nullptr;
  const clang::FunctionDecl *Callee = nullptr;
  const clang::Expr *Argument = nullptr; ///< The object for a member function.
  unsigned Param = 0;
  ValueSet Values; ///< Of the descriptors at the required paths.
  SendWaitRequirement Requirement;
  /// A member function's wait_send on a copy whose kind the object's
  /// constructor decided (Analyzer::constructorsDecideKind): judged here.
  bool ByConstructor = false;
};

/// A call of a helper of the translation unit with a ProtocolSummary: the
/// starts and waits it makes, as this function sees them at the call.
struct ProtocolCall {
  const clang::Expr *Call = nullptr;
  const clang::FunctionDecl *Callee = nullptr;
  /// The arguments in the order of the callee's parameters (its summary's
  /// terms name them).
  llvm::SmallVector<const clang::Expr *, 6> Args;
  /// The callee's summary, without the starts and waits whose conditions on
  /// the callee's bool parameters the arguments here contradict.
  ProtocolSummary Summary;
  /// By start and by wait of Summary: its conditions hold on every path to
  /// the call (the arguments are constants, or this function's parameters
  /// known there), so it happens whenever the call does.
  llvm::SmallVector<bool, 4> StartDecided, WaitDecided;
  /// By start and by wait: the same conditions as this function's bool
  /// parameters where they are (what a summary of this function says of it).
  std::vector<ParamFacts> StartWhen, WaitWhen;
  /// By start and by wait: conditions that are neither decided here nor
  /// this function's parameters.
  llvm::SmallVector<bool, 4> StartOpen, WaitOpen;
  /// This function's bool parameters known on every path to the call.
  ParamFacts Here;
  /// By receive-only wait of Summary: the same conditions as this
  /// function's parameters (those the arguments here contradict are gone
  /// from the summary: their Sends are empty).
  std::vector<ParamFacts> ReceiveOnlyWhen;
  /// By start: the origin that stands for the copy in this function.
  llvm::SmallVector<OriginId, 2> StartOrigins;
  /// The origins that may be in flight just before the call, on some path.
  llvm::SmallVector<OriginId, 2> InFlightBefore;
  /// Set when the call is on an object a lambda of the function made: the
  /// constructor's arguments among Args are that lambda's, named at this
  /// call of it (the names' Within).
  std::optional<LambdaCall> Within;
  const LambdaCall *within() const { return Within ? &*Within : nullptr; }
};

/// A use of a descriptor that a check may judge: the call, its object
/// expression, and the values that may reach it (over every path and every
/// inlined lambda call).
struct DescriptorUse {
  const clang::CXXMemberCallExpr *Call = nullptr;
  const clang::Expr *Object = nullptr;
  ValueSet Values;
  /// Bool parameters of the function known on every path to the use.
  ParamFacts Params;
  /// The same of the members of its object (a member function's).
  ObjectFacts ObjectMembers;
  /// The origins that may still be in flight (started, receive side not
  /// waited) just before the call, on some path.
  llvm::SmallVector<OriginId, 2> InFlightBefore;
  /// Made in a lambda the analysis inlines at its calls (each call reaches
  /// it, with one origin for the copies the lambda makes at all of them).
  bool InLambda = false;
};

/// Bounds on the work one function may take.
struct AnalysisLimits {
  /// Steps over the function and its lambdas: a block visit is one step
  /// plus one per value the state carries into it, so the bound is on time,
  /// not only on visits.
  unsigned MaxBlockVisits = 100000;
  unsigned MaxValuesPerLocation = 32;   ///< Beyond this, assumptions are dropped.
  unsigned MaxOriginsPerLocation = 16;  ///< Beyond this, origins of a kind are folded.
  unsigned MaxAssumptionsPerValue = 8;  ///< Beyond this, the oldest are forgotten.
  unsigned MaxLambdaDepth = 4;
  bool UseSummaries = true; ///< Follow calls into functions of the same translation unit.
};

/// Whether a receive-side wait of a `wait_send`'s descriptor follows it.
enum class ReceiveWaitAfter {
  Never,      ///< On no path: `wait_send` -> `wait_recv` keeps the bytes taken.
  Always,     ///< On every path: the `wait_send` can simply go.
  Sometimes,  ///< On some paths, or the analysis cannot tell.
};

/// A descriptor use judged against one kind: the origins of that kind that
/// may reach it, whether every value is of it, whether any is unknown.
struct KindVerdict {
  llvm::SmallVector<OriginId, 2> Origins;
  bool All = false;
  bool AnyUnknown = false;
};

struct FunctionAnalysis {
  std::vector<OriginInfo> Origins; ///< Indexed by OriginId; 0 is unknown.
  std::vector<DescriptorUse> WaitSends;
  std::vector<DescriptorUse> Starts;
  std::vector<DescriptorUse> ReceiveWaits; ///< wait() and wait_recv().
  std::vector<HelperWaitSend> HelperWaitSends;
  std::vector<ConstructionArguments> Constructions; ///< General constructions.
  std::vector<ProtocolCall> ProtocolCalls;
  /// The calls of helpers that return a local copy made at one construction
  /// of theirs (ProtocolSummary::Returned): the copy is the origin built at
  /// the call, and this names its semaphore and buffers.
  llvm::DenseMap<const clang::Expr *, ReturnedCopy> ReturnedCopies;
  /// The same for the copies such a helper returns below its value
  /// (ProtocolSummary::ReturnedAt), by call and place (OriginInfo::ReturnPath).
  std::map<std::pair<const clang::Expr *, AccessPath>, ReturnedCopy> ReturnedCopiesAt;
  /// The arguments a returned copy of a member function of a local object
  /// is named with, where that copy is named through the object's members:
  /// the call's, then the object's constructor's (atObject).
  llvm::DenseMap<const clang::Expr *, llvm::SmallVector<const clang::Expr *, 8>>
      ReturnedCopyArguments;
  /// The copy \p O is when a helper returns it at its call, named in the
  /// helper's parameters; null otherwise.
  const ReturnedCopy *returnedCopy(const OriginInfo &O) const;
  /// The arguments returnedCopy(O) is named with.
  llvm::SmallVector<const clang::Expr *, 8> returnedCopyArguments(const OriginInfo &O) const;
  /// The factories that return started copies (async_copy), with the bool
  /// parameter facts on every path to each.
  std::vector<std::pair<const clang::Expr *, ParamFacts>> StartedFactories;
  /// The copies that may be in flight when the function returns, on some path.
  llvm::SmallVector<OriginId, 4> InFlightAtExit;
  /// What the function does with the semaphores its callers pass: made when
  /// a caller first asks (AnalysisCache::protocol).
  std::optional<ProtocolSummary> Protocol;
  /// By OriginId: started or waited somewhere, or escaped (returned, stored
  /// beyond the function, handed to a function that may use or keep it).
  std::vector<bool> UsedOrEscaped;
  /// By OriginId: started or waited somewhere (here, or by a helper it is
  /// handed to), escapes aside.
  std::vector<bool> StartedOrWaited;
  /// By OriginId: escaped, or handed to a helper that may start or wait it:
  /// what this function does with the copy is then not all that is done.
  std::vector<bool> HandedOn;
  /// By OriginId: HandedOn, but for being stored in the object of the
  /// constructor or member function (ProtocolSummary::Stored follows that).
  std::vector<bool> HandedOnBesidesObject;
  /// By index into WaitSends: a receive-side wait of the same descriptor may
  /// follow; the function may end (or the wait_send run again) without one.
  std::vector<bool> ReceiveWaitMayFollow, ReceiveWaitMayBeMissing;
  /// Per wait_send: a receive-side wait of its object precedes it, since the
  /// object was last started or written, on every path.
  std::vector<bool> ReceiveWaitedBefore;
  FunctionSummary Summary;
  bool HitWorkLimit = false; ///< Then the events are empty: nothing is reported.
  /// The lambdas' call operators whose bodies this analysis ran at a call
  /// (inlined), and the lambdas whose body it met and could not run (past
  /// MaxLambdaDepth, or a dependent body): ranEveryCallOf().
  llvm::SmallPtrSet<const clang::FunctionDecl *, 4> LambdasRun;
  llvm::SmallPtrSet<const clang::CXXRecordDecl *, 2> LambdasNotRun;
  unsigned BlockVisits = 0;
  uint64_t Steps = 0; ///< What MaxBlockVisits bounds.
  /// The most values and targets one block's entry state held: what a visit costs.
  unsigned PeakLocations = 0;
  /// The most block entry states held at once: with the CFG, what the
  /// analysis of a function keeps in memory.
  unsigned PeakStoredStates = 0;
  unsigned AssumptionsDropped = 0; ///< Times a set hit MaxValuesPerLocation.
  unsigned OriginsFolded = 0;      ///< Times a location hit MaxOriginsPerLocation.

  // The queries the checks ask (lib/Queries.cpp).

  /// The origins of \p Kind among \p Values, and whether every value is of it.
  KindVerdict verdict(const ValueSet &Values, Remoteness Kind) const;
  /// The local copies that may reach a use (the descriptor of a wait_send).
  KindVerdict localOriginsAt(const DescriptorUse &Use) const {
    return verdict(Use.Values, Remoteness::Local);
  }
  /// Whether a maybe at \p Use (a wait_send on a member of `*this`) comes
  /// only from the copies the class summary lists for that member, of both
  /// kinds: which one an object holds is its callers' to judge, as for a
  /// parameter (Calls.cpp, classMayHoldOthers), not this function's.
  bool judgedAtCalls(const DescriptorUse &Use, const KindVerdict &Local) const;
  /// Copies built in this function that on every path from their
  /// construction are neither started, waited nor escape.
  std::vector<OriginId> unusedConstructions() const;
  /// Whether this analysis ran the body of \p CallOperator (a lambda's) at
  /// its calls and never had to leave it unrun: then every use in that body
  /// was reached here, with what each call gives it (a lambda written in
  /// this function is analysed with it).
  bool ranEveryCallOf(const clang::CXXMethodDecl &CallOperator) const {
    return !HitWorkLimit && LambdasRun.count(&CallOperator) &&
           !LambdasNotRun.count(CallOperator.getParent());
  }
  /// Whether the copies of \p Id are started or waited somewhere: in this
  /// function, or in a helper it hands them to.
  bool startedOrWaited(OriginId Id) const {
    return Id < StartedOrWaited.size() && StartedOrWaited[Id];
  }
  /// The constructions (factory calls, constructor calls, calls of the
  /// functions that returned them, with the path below the returned value)
  /// of the copies this function starts or waits: parameters and unknown
  /// origins aside.
  std::vector<std::pair<const clang::Expr *, AccessPath>> usedConstructions() const;
  /// Whether a receive-side wait of \p WaitSend's descriptor follows it.
  ReceiveWaitAfter receiveWaitAfter(const DescriptorUse &WaitSend) const;
  /// Whether \p WaitSend's object had its receive side waited since it was
  /// last started, on every path (`c.wait_recv(); c.wait_send();`): no bytes
  /// are left for a receive wait in its place to take.
  bool receiveWaitedBefore(const DescriptorUse &WaitSend) const;
  /// The origins that may be in flight just before \p Use (a start or a wait).
  llvm::ArrayRef<OriginId> inFlightAt(const DescriptorUse &Use) const {
    return Use.InFlightBefore;
  }
  /// Whether the copies of \p Id escape or are handed to a helper that may
  /// start or wait them.
  bool handedOn(OriginId Id) const { return Id >= HandedOn.size() || HandedOn[Id]; }
  const OriginInfo &origin(OriginId Id) const { return Origins[Id]; }
  Remoteness kindOf(const Value &V) const { return Origins[V.Origin].Kind; }
};

/// Analyses the body of \p FD (a definition that is not a template pattern),
/// using \p Summaries for the functions it calls, \p Types for the shapes
/// of its types and \p Cfgs for the CFGs of the bodies it runs (fresh ones
/// when null).
FunctionAnalysis analyzeFunction(const clang::FunctionDecl &FD, clang::ASTContext &Ctx,
                                 const ApiIndex &Api, const AnalysisLimits &Limits,
                                 SummarySource *Summaries = nullptr,
                                 TypeModel *Types = nullptr, CfgCache *Cfgs = nullptr);

/// A lower bound on the reachable blocks of the CFG of \p Body, where its
/// code can run (a branch in code that never runs has no reachable block):
/// one for each if, conditional operator, && and ||, case label and do-while
/// loop, and two for each other loop (one if its condition is a literal
/// false). Lambda bodies are not counted: each has a CFG of its own.
uint64_t reachableBlocksAtLeast(const clang::Stmt &Body);

/// True when \p T is a container (C array, std::array, std::vector, ...,
/// std::optional) of things that hold descriptors.
bool isDescriptorContainer(clang::QualType T, const ApiIndex &Api);

} // namespace dmalint

#endif // DMALINT_DESCRIPTORANALYSIS_H
