//===- Analyzer.h - The per-function descriptor analysis, by concern -*- C++ -*-===//
//
// Private to lib/. One Analyzer runs the analysis of one function (and the
// lambdas it calls); its member functions live in the file of their concern:
//
//   Cfg.cpp             the CFG of a body, built once, with its range-for loops
//   Liveness.cpp        locals no path mentions again leave the state
//   Worklist.cpp        the component-ordered fixed point, the work bound
//   Conditions.cpp      atoms, guards, constant conditions, refinement
//   Memory.cpp          resolving expressions to locations, reads, writes, copies
//   DescriptorModel.cpp transfer functions of the API's roles, optional arguments
//   Transfer.cpp        C++ statements: declarations, initialisation, assignment
//   SequenceSizes.cpp   how many elements a local vector holds, where it is known
//   AppendIndices.cpp   the iteration of a counting loop that appended each element
//   Calls.cpp           calls: summaries, lambdas, opaque functions, std functions
//   Summaries.cpp       what this function's callers learn of it
//   ObjectCopies.cpp    the copies a local object of the kernel's classes holds
//
//===----------------------------------------------------------------------===//
#ifndef DMALINT_LIB_ANALYZER_H
#define DMALINT_LIB_ANALYZER_H

#include "dmalint/CfgCache.h"
#include "dmalint/DescriptorAnalysis.h"
#include "dmalint/State.h"
#include "dmalint/TypeModel.h"
#include "clang/Analysis/CFG.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/FoldingSet.h"
#include <map>
#include <memory>
#include <set>

namespace dmalint {

class UnwrittenVariables;

/// How a write replaces what a location held.
enum class Update {
  Weak,   ///< Adds to it: one element of a container, one of several targets.
  Strong, ///< Replaces it, when it is one location that stands for one object.
};

/// The lifecycle events of a descriptor (DescriptorModel.cpp).
enum class LifeEvent { Start, WaitSend, WaitRecv, Wait };

/// The local variables of a function mentioned only as the object of member
/// calls (not in Other), with the member functions called on each
/// (ObjectCopies.cpp).
struct ObjectUses {
  /// By local (or binding of a structured binding).
  llvm::DenseMap<const clang::ValueDecl *, llvm::SmallVector<const clang::CXXMethodDecl *, 4>>
      Methods;
  llvm::DenseSet<const clang::ValueDecl *> Other;
  /// By lambda of the function: its calls, and the locals they initialise.
  llvm::DenseMap<const clang::LambdaExpr *, unsigned> LambdaCalls;
  llvm::DenseMap<const clang::LambdaExpr *, llvm::SmallVector<const clang::VarDecl *, 2>>
      LambdaInits;
};

/// The members of `*this` that \p Body (of a member function) may write:
/// every mention that is not a plain read (a load, a copy, a const member
/// call on it). \p Any: `this` itself goes elsewhere, so any may be written
/// (ObjectCopies.cpp).
llvm::DenseSet<const clang::FieldDecl *> membersWritten(const clang::Stmt *Body, bool &Any);

/// A constructor's summary with the names rooted at its object's members
/// (the copies a member function it calls makes) put in terms of its
/// parameters, through its MemberInits; what cannot be is dropped (a start,
/// a stored or returned copy) or unknown (a wait) (ObjectCopies.cpp).
void resolveOwnMembers(ProtocolSummary &P);

/// Whether \p F may hold a semaphore: a member that is none of a buffer, a
/// holder of descriptors, a number or a pointer to numbers (ObjectCopies.cpp).
bool mayHoldSemaphore(const clang::FieldDecl &F, const ApiIndex &Api);
/// Whether \p Body (of a member function or constructor) leaves the member
/// \p F of its object as it found it: every `this` in it reads a member or
/// calls a const member function, and no use of \p F is assigned,
/// incremented or has its address taken (Conditions.cpp).
bool leavesMember(const clang::Stmt *Body, const clang::FieldDecl *F);
/// Whether a member of type \p T may be a flag: a bool, or an enum (a kind
/// compared with its enumerators).
bool isFlagType(clang::QualType T);
/// The bool or enum member \p E reads (`x.remote`, `p->kind`,
/// `pair.second`, `std::get<1>(pair)`, a structured binding of one); null
/// for anything else (Flags.cpp).
const clang::FieldDecl *flagField(const clang::Expr *E);

/// One object a flag read may be about, and what its flag says of the
/// branch (Flags.cpp).
struct FlagCandidate {
  Location Object;   ///< What the reference designates (refineFlag).
  int32_t Index = 0; ///< Or the index (refineIndex); PathStep::Summary: one written at an unknown one.
  LocationList FlagsAt;
  bool Excluded = false;         ///< Every flag there is surely the other value.
  const clang::FieldDecl *Of = nullptr; ///< Every flag there is is_remote() of this member.
  FlagValue IfRemote = FlagUnknown, IfLocal = FlagUnknown; ///< An enum's relation to it.
};
/// An expression (its profile) compared with a constant: `x == c`, `x < c`
/// or `x > c`, however written (`c > x` is `x < c`).
struct ConstantComparison {
  enum Relation : uint8_t { Equal, Below, Above };
  llvm::FoldingSetNodeID Subject;
  int64_t Constant = 0;
  Relation Rel = Equal;
  /// Whether \p Value makes the comparison hold.
  bool holdsFor(int64_t Value) const {
    return Rel == Equal ? Value == Constant : Rel == Below ? Value < Constant : Value > Constant;
  }
};

/// The local integer variable a subscript's index is (`k` of `a[k]`), whose
/// value a branch may narrow (State::Indices); null for anything else.
const clang::VarDecl *indexVariable(const clang::Expr *Index);

/// Blocks reachable from the entry, in reverse post-order (Worklist.cpp).
std::vector<const clang::CFGBlock *> reversePostOrder(const clang::CFG &G);
/// The order the fixed point visits \p G's blocks in (Worklist.cpp).
ComponentOrder componentOrder(const clang::CFG &G);
/// By block ID: the locals declared in \p G that no path from the block's
/// exit mentions again (Liveness.cpp). \p Order: \p G's reachable blocks,
/// as componentOrder gives them.
std::vector<llvm::SmallVector<const clang::VarDecl *, 2>>
deadLocals(const clang::CFG &G, llvm::ArrayRef<const clang::CFGBlock *> Order,
           const RangeForMap &RangeFors);

class Analyzer {
public:
  Analyzer(clang::ASTContext &Ctx, const ApiIndex &Api, const AnalysisLimits &Limits,
           SummarySource *Summaries, TypeModel &Types, CfgCache &Cfgs, FunctionAnalysis &Out);

  void run(const clang::FunctionDecl &FD);

  // ----------------------------------------------------- CfgCache.cpp ---
  const clang::CFG *cfgFor(const clang::Decl *D, clang::Stmt *Body) {
    const BodyCfg *B = Cfgs.get(D, Body, Ctx);
    return B ? B->Graph.get() : nullptr;
  }
  const clang::CXXForRangeStmt *rangeForOf(const clang::VarDecl *VD) const {
    return Cfgs.rangeForOf(VD);
  }

  // ----------------------------------------------------- Liveness.cpp ---
  void dropDeadLocals(const clang::CFGBlock &B, State &S);

  // ----------------------------------------------------- Worklist.cpp ---
  State runCFG(const clang::CFG &G, State Entry, bool Report, unsigned Depth);
  /// Counts the steps of one block visit; false (and HitWorkLimit) past the bound.
  bool chargeVisit(const clang::CFGBlock &B, const State &S);

  // --------------------------------------------------- Conditions.cpp ---
  bool collectAtomVars(const clang::Expr *E, llvm::SmallVectorImpl<const clang::VarDecl *> &Vars) const;
  /// The atom of a condition that may be tested again: the same atom for
  /// structurally equal expressions over the same variables, and for one
  /// comparison however it is spelled; \p Positive flips when \p E is the
  /// atom's negation (`a != b` of `a == b`: makeAtom).
  std::optional<AtomId> atomFor(const clang::Expr *E, bool &Positive);
  std::optional<AtomId> makeAtom(const clang::Expr *E, bool &Negated);
  /// The atom of \p Profile, and whether it is new (then the caller says
  /// what it is).
  std::pair<AtomId, bool> internAtom(const llvm::FoldingSetNodeID &Profile);
  /// What the condition \p Cond tests, its negations taken off into
  /// \p Positive, and a bool of the function that keeps the value of its
  /// initialiser replaced by that initialiser (`bool remote = far;`, the
  /// member `s.remote` of `Slot s{..., far}`), when the initialiser is a
  /// condition over variables the function never writes: every spelling of
  /// one test is one atom.
  const clang::Expr *testedCondition(const clang::Expr *Cond, bool &Positive) const;
  /// The initialiser of the bool \p E (testedCondition's answer) when it
  /// keeps it (UnwrittenVariables::builtValue) and it is a logical operator
  /// over tests that read the same wherever the bool is read: conditions
  /// over variables the function never writes, and is_remote() of a variable
  /// that keeps its copy (`bool send = d.is_remote() && far;`). Null
  /// otherwise.
  const clang::Expr *keptLogical(const clang::Expr *E) const;
  /// Whether \p E is a condition (collectAtomVars) over variables the
  /// function never writes: it has one value wherever it is evaluated.
  bool steadyCondition(const clang::Expr *E, const UnwrittenVariables &Vars) const;
  /// atomFor(testedCondition(Cond, Positive)).
  std::optional<AtomId> conditionAtom(const clang::Expr *Cond, bool &Positive) {
    return atomFor(testedCondition(Cond, Positive), Positive);
  }
  /// The fact of this function's path under which the callee's parameter
  /// fact \p F holds for the argument \p Arg: `finish(d, p != me)` to a
  /// `bool remote` the callee waits the send side under is where `p == me`
  /// fails; `drain(d, k)` to an `int` the callee tests `== 2` is this
  /// function's `k == 2` where k is its own parameter. Nullopt when the
  /// argument is no such condition (a constant is applies()'s).
  std::optional<Fact> argumentFact(const ParamFact &F, const clang::Expr *Arg);
  /// The atom `P == Value` for an integer or enum parameter \p P of the
  /// function that is never written (nullopt for any other).
  std::optional<AtomId> paramValueAtom(const clang::ParmVarDecl *P, int64_t Value);
  /// The atom of this function's `\p A == \p B` (two arguments of a call):
  /// the one the same comparison written here is (\p Positive false when
  /// that is its negation, as for a `!=` atom). Nullopt where no atom is.
  std::optional<AtomId> equalityAtom(const clang::Expr *A, const clang::Expr *B, bool &Positive);
  /// `\p L \p Op \p R` built as if written in this function (a condition
  /// whose operands come from elsewhere), once per operands and operator.
  const clang::Expr *builtComparison(const clang::Expr *L, const clang::Expr *R,
                                     clang::BinaryOperatorKind Op);
  std::map<std::tuple<const clang::Expr *, const clang::Expr *, unsigned>, const clang::Expr *>
      BuiltComparisons;
  /// After \p VD is set to \p Value (its initialiser, or a plain
  /// assignment): where Value is a constant c and VD an integer local the
  /// function may write, the path knows the atom `VD == c`. A value that
  /// reaches a loop's head only from before the loop then assumes the
  /// counter's first value (`prev` a placeholder until `if (step > 0)
  /// prev.wait_send(); prev = remote(...);` replaces it). For a bool set
  /// to a constant: the atom a test of it is (`remote = true;` beside the
  /// remote copy, then `if (remote)`).
  void learnConstantValue(const clang::VarDecl *VD, const clang::Expr *Value, State &S);
  /// A reference to a variable as if written in this function, one each.
  llvm::DenseMap<const clang::VarDecl *, const clang::Expr *> BuiltReferences;
  /// What replaces a parameter in withArguments: nullopt, it stays; null,
  /// it cannot be replaced; else the expression in its place.
  using ParameterArgument =
      llvm::function_ref<std::optional<const clang::Expr *>(const clang::ParmVarDecl *)>;
  /// \p Cond with parameters replaced (\p ArgumentOf): Cond itself where it
  /// names none to replace; null where it names one in a form not rewritten
  /// (only a parameter alone, and a comparison of which each side is a
  /// parameter alone or names none to replace, are).
  const clang::Expr *withArguments(const clang::Expr *Cond, ParameterArgument ArgumentOf);
  const clang::ASTContext &context() const { return Ctx; }
  /// The value of a condition clang can evaluate as a constant (through
  /// macros, constexpr names and the template arguments of an instantiation).
  std::optional<bool> constantCondition(const clang::Expr *E) const;
  /// \p E (a branch condition) decided by the constants a call passes the
  /// parameters of the lambda being run (`finish(d, false)` of `auto finish
  /// = [&](D &d, bool remote) { if (remote) d.wait_send(); }`): a bool
  /// parameter tested alone, or an integer or enum one compared with a
  /// constant; nullopt for any other.
  std::optional<bool> boundCondition(const clang::Expr *E) const;
  /// The value a call passes the lambda parameter \p P, if constant.
  std::optional<int64_t> boundParameter(const clang::ParmVarDecl *P) const {
    auto It = BoundParameters.find(P);
    return It == BoundParameters.end() ? std::nullopt : std::optional<int64_t>(It->second);
  }
  /// The constants the calls of the lambdas being run pass their parameters
  /// (each a parameter the lambda never writes).
  llvm::DenseMap<const clang::ParmVarDecl *, int64_t> BoundParameters;
  /// The conditions the call of the lambda being run passes its integer,
  /// enum and bool parameters (that it never writes), as this function's
  /// expressions: a condition of the body over them is the caller's
  /// (`finish(d, p != me)` then `if (remote)` in the body is `p != me`).
  llvm::DenseMap<const clang::ParmVarDecl *, const clang::Expr *> LambdaArguments;
  /// \p E with the parameters of LambdaArguments replaced (withArguments).
  const clang::Expr *withLambdaArguments(const clang::Expr *E);
  Guard classify(const clang::Expr *Cond, const State &S);
  /// The bool at \p Key (a variable, or a member of the local \p VD) now
  /// holds \p Value: remember it as a test (S.Guards) when it is
  /// `d.is_remote()` or a condition with an atom, negated or not.
  void rememberTest(const clang::VarDecl *VD, const Location &Key, const clang::Expr *Value,
                    State &S);
  /// Where S.Guards keeps what the bool \p E holds: a variable, or a member
  /// (through '.') of a local that is not a reference.
  static std::optional<Location> guardKey(const clang::Expr *E);
  /// Narrows \p S to the paths where \p G evaluates to \p Holds; marks it
  /// unreachable when no such path exists.
  void refine(State &S, const Guard &G, bool Holds);
  /// \p VD may have changed (or its lifetime ended): a condition over it
  /// may test another value from here on. What the path knew of its atoms,
  /// and what values assumed of them, moves to their retired atoms: no
  /// later condition is one, yet the values a branch on it made stay
  /// correlated (`if (me > 0) s = send; if (me > 0) id = peer;` made both
  /// or neither however `me` changes after).
  void invalidateVar(const clang::VarDecl *VD, State &S);
  /// The atom that stands for the last value of \p Id's variables before
  /// they changed. One per atom: a retirement forgets the previous one's.
  AtomId retiredAtom(AtomId Id);
  /// Whether one value of each expression compared with constants in
  /// \p Facts passes every comparison as \p Facts says (`x > 1` holding
  /// and `x > 0` failing is no path). Facts of other atoms agree.
  bool comparisonsAgree(const FactSet &Facts) const;
  /// Whether \p A and \p B can hold on one path: no atom both ways, and
  /// their comparisons agree.
  bool onOnePath(const FactSet &A, const FactSet &B) const;
  /// The pseudo-atom "this parameter's descriptor is remote".
  AtomId paramRemoteAtom(OriginId Origin);
  /// A parameter's descriptor not known to be remote on its path.
  bool isUnguardedParam(const Value &V) const;
  ParamFacts paramFacts(const State &S) const;
  /// The facts of \p S about members of the object (objectMemberTest).
  ObjectFacts objectFacts(const State &S) const;
  /// The member of `*this` that \p E tests (`remote_`, `this->remote_`,
  /// `kind_ == Kind::kRemote`, `kind_ != ...`: \p Negated) with the
  /// constant it is compared with, when the function is a member function
  /// that never writes it (steadyObjectMember).
  std::optional<ObjectFact> objectMemberTest(const clang::Expr *E, bool &Negated);
  /// Whether the member function being analysed never writes \p F of its
  /// object, nor lets anything else: every `this` in it reads a member or
  /// calls a const member function, and no code binds a reference or a
  /// pointer to \p F (flagWrittenUnseen).
  bool steadyObjectMember(const clang::FieldDecl *F);
  llvm::DenseMap<std::pair<const clang::FunctionDecl *, const clang::FieldDecl *>, bool>
      SteadyObjectMembers;

  // ------------------------------------------------------- Memory.cpp ---
  /// The locations an lvalue expression may designate ({unknown} when the
  /// model does not follow it).
  LocationList resolve(const clang::Expr *E, const State &S);
  /// The object a local or static local names (a reference's targets).
  LocationList variableLocations(const clang::VarDecl *VD, const State &S);
  /// A reference, or a pointer the function never writes, bound by a
  /// conditional on a condition that keeps its value (`auto &d = r ? rem :
  /// loc;`, `auto *p = r ? &rem : &loc;`): where a test of the same
  /// condition decided it on this path (`if (r) d.wait_send();`), the one
  /// side it designates; nullopt elsewhere.
  std::optional<LocationList> decidedBinding(const clang::VarDecl *VD, const State &S) const;
  /// Records VD's binding when it is one decidedBinding can decide.
  void noteConditionalBinding(const clang::VarDecl *VD, const clang::Expr *Init);
  struct ConditionalBinding {
    AtomId Atom = 0;
    LocationList WhenTrue, WhenFalse;
  };
  llvm::DenseMap<const clang::VarDecl *, ConditionalBinding> ConditionalBindings;
  /// The locations a pointer-like expression (pointer, iterator, smart
  /// pointer) may designate.
  LocationList designated(const clang::Expr *E, const State &S);
  /// The elements of a range that starts at the iterator or pointer
  /// \p First: what it designates, every element of it.
  LocationList rangeElements(const clang::Expr *First, const State &S);
  /// The locations of a method call's object: `d.f()` is d, `p->f()` is *p.
  LocationList objectLocations(const clang::CXXMemberCallExpr *Call, const State &S);
  /// The descriptor values at \p Locs.
  ValueSet read(const LocationList &Locs, const State &S) const;
  /// The targets of the pointers at \p Locs.
  LocationList readTargets(const LocationList &Locs, const State &S) const;
  /// Every descriptor value held at or below \p Locs (and, one level, in
  /// what the pointers there designate).
  ValueSet heldBelow(const LocationList &Locs, const State &S) const;
  void write(const LocationList &Locs, const ValueSet &VS, State &S, Update How);
  void writeTargets(const LocationList &Locs, const LocationList &Targets, State &S, Update How);
  /// Copies what is at and below \p From (patterns) to \p To.
  void copyObject(const LocationList &From, const Location &To, State &S, Update How);
  /// Everything at and below \p L becomes unknown.
  void forgetBelow(const Location &L, State &S);
  /// Whatever is held below \p Locs escapes (the report sweep records it).
  void escapeBelow(const LocationList &Locs, const State &S);
  /// The cells below \p L go (a scope ends, a temporary is done).
  void eraseBelow(const Location &L, State &S);
  /// \p VD's scope ended, or (\p Redeclared) its declaration runs again.
  /// Only then do conditions over it retire (invalidateVar): until then no
  /// code can name it, so what the path knew of it still says which way
  /// the branches on it went, the same on every path to a join whichever
  /// one its last mention was on.
  void endLifetime(const clang::VarDecl *VD, State &S, bool Redeclared = false);
  /// Drops the lifecycle of each of \p Candidates that no cell holds (with
  /// \p OnlyIfMaybeIdle, only of those that may be idle).
  void forgetUnheldLife(State &S, llvm::ArrayRef<OriginId> Candidates, bool OnlyIfMaybeIdle);
  /// Cells for every leaf of \p T at \p Root, from \p Initial(leaf, cell).
  template <typename Fn>
  void materialize(const Location &Root, clang::QualType T, State &S, Fn Initial);
  /// A fresh object to build a value in (and erase after use).
  Location scratch() { return Location::scratch(++ScratchIds); }

  // -------------------------------------------------------- Flags.cpp ---
  /// What the bool member at \p X holds on this path, if known (an element
  /// at a constant index: and any written at an unknown index).
  KnownFlag flagAt(const Location &X, const State &S) const;
  /// The flags at and below \p L are unknown now (but those of the members
  /// of L's own object that \p Kept keeps).
  void forgetFlagsBelow(const Location &L, State &S,
                        llvm::function_ref<bool(const clang::FieldDecl *)> Kept = nullptr);
  /// The descriptor at \p L changed: no flag equals its is_remote() now
  /// (\p KeepBelow: but those in the object L, which a copy of a whole
  /// object brings along). Nothing while copyObject writes (CopyingInto).
  void forgetFlagsOf(const Location &L, State &S, bool KeepBelow = false);
  /// copyObject's flags: \p Flags (by where they go) into the object \p To
  /// (\p Fresh: which held nothing before).
  void copyFlags(const std::map<Location, KnownFlag> &Flags, const Location &To, bool Replace,
                 bool Fresh, State &S);
  /// The object copyObject is writing: the flags below it go with it.
  const Location *CopyingInto = nullptr;
  /// The constant \p E gives a bool: a constant, a condition this path
  /// decided, or is_remote() of a copy of known kind.
  FlagValue flagValue(const clang::Expr *E, State const &S);
  /// Whether every copy in \p VS is remote (true) or every one local
  /// (false); nullopt for a mix, an unknown kind, or none.
  std::optional<bool> kindOf(const ValueSet &VS) const;
  /// The bool member at \p Dest is built from \p Init.
  void initializeFlag(const Location &Dest, const clang::Expr *Init, State &S);
  /// The members of the object at \p Object were just built from their
  /// initialisers (\p Members): a bool among them that equals is_remote()
  /// of a descriptor member beside it remembers which (Cell::FlagOf).
  void relateFlags(const Location &Object,
                   llvm::ArrayRef<std::pair<const clang::FieldDecl *, const clang::Expr *>> Members,
                   State &S);
  /// relateFlags for the enum member \p Flag given a constant beside a copy
  /// of known kind: the constant is the member's value for that kind.
  void relateEnumFlag(const Location &Object, const clang::FieldDecl *Flag,
                      llvm::ArrayRef<std::pair<const clang::FieldDecl *, const clang::Expr *>> Members,
                      State &S);
  /// `x.remote = ...`, `remote |= ...`: the flags it writes.
  void assignFlag(const clang::BinaryOperator *BO, State &S);
  /// A call may write the bool members of what it is handed by reference
  /// or pointer, of what the pointers it is handed designate, and of its
  /// object: their flags are unknown after it.
  void forgetCallFlags(const clang::FunctionDecl *Callee, llvm::ArrayRef<const clang::Expr *> Args,
                       const LocationList *Object, State &S);
  /// A branch where the bool member \p E reads \p Value: what the variable
  /// it is read through designates narrows to the objects whose flag may
  /// be that (and, where those flags equal is_remote() of a member beside
  /// them, the branch tests those members); a local's own flag of the other
  /// value makes it unreachable.
  /// (\p Equals: the constant the branch compares the flag with, FlagTrue
  /// for a bool tested as it is; \p Value: whether they are equal here.)
  void refineFlag(State &S, const clang::Expr *E, FlagValue Equals, bool Value);
  /// refineFlag for a flag read at `a[k]`: the indices k may hold narrow to
  /// those whose flag may be \p Equals (\p Value) or not.
  void refineIndex(State &S, const clang::Expr *E, const clang::VarDecl *K, FlagValue Equals,
                   bool Value, llvm::function_ref<bool()> Trusted);
  /// The flag read a condition tests (`i.remote`, `!i.remote`,
  /// `i.kind == Kind::kRemote`, `i.kind != ...`), the constant it is
  /// compared with (\p Equals) and whether the condition holds when they
  /// are equal (\p Positive); null when it tests none.
  const clang::Expr *testedFlag(const clang::Expr *Cond, FlagValue &Equals, bool &Positive) const;
  /// What refineFlag and refineIndex do with what each candidate's flags
  /// said: \p Keep the candidates left, or make the path unreachable, and
  /// test the members their flags equal is_remote() of.
  void narrowByFlags(State &S, llvm::ArrayRef<FlagCandidate> Candidates, FlagValue Equals,
                     bool Value,
                     llvm::function_ref<bool()> Trusted,
                     llvm::function_ref<void(llvm::ArrayRef<const FlagCandidate *>)> Keep);
  /// Whether \p E reads a flag through a reference or of a local itself,
  /// which names the same object wherever it is evaluated in its scope (a
  /// bool kept from it is read again where it is tested).
  bool steadyFlagRead(const clang::Expr *E) const;
  /// The index variable \p K is written: a bool kept from a flag read at
  /// it (`const bool remote = slots[k].remote;`) is not that read any more.
  void forgetIndexedFlagTests(const clang::VarDecl *K, State &S);
  /// A flag may have changed: a bool kept from a flag read is not that read
  /// any more.
  void flagsChanged(State &S);
  /// Set once a flag is kept: until then no flag is looked for.
  bool FlagsSeen = false;
  /// The constant index of a subscript, or PathStep::Any.
  int32_t indexOf(const clang::Expr *Index) const;
  /// The elements of \p Bases at \p Index: a constant's, the indices a
  /// local index variable is known to hold (State::Indices), those from a
  /// loop counter's first value on (loopLowerBound), those the path's facts
  /// on the index allow (indexFacts), or every element (null \p Index too).
  LocationList elementsAt(const LocationList &Bases, const clang::Expr *Index,
                          const State &S) const;
  /// What the facts of \p S say of the index \p Index: each comparison of
  /// it with a constant, and whether it holds (`if (i > 0)`, `if (i == 0)
  /// continue;`, `if (k != 0)` of a parameter k).
  llvm::SmallVector<std::pair<ConstantComparison, bool>, 2>
  indexFacts(const clang::Expr *Index, const State &S) const;
  /// The value a `for` loop's counter \p K starts from, when the loop only
  /// makes it grow (`++k`, `k++`, `k += c`) and its condition and body only
  /// read it: no value below it is ever an index of that loop.
  std::optional<int64_t> loopLowerBound(const clang::VarDecl *K) const;
  mutable llvm::DenseMap<const clang::VarDecl *, std::optional<int64_t>> LoopLowerBounds;
  /// The for statement whose init declares \p K; null for none. The for
  /// statements of each body that declares a counter asked about are found
  /// in one walk of it.
  const clang::ForStmt *forLoopOf(const clang::VarDecl *K) const;
  /// Whether the body that declares the integer local \p K compares it with
  /// a constant (or tests it for truth) other than in the condition of the
  /// for loop that declares it: where its value set by a constant can
  /// decide something (learnConstantValue).
  bool comparedWithConstant(const clang::VarDecl *K) const;
  /// The walk of the body that declares \p K both of those answer from.
  void walkLoops(const clang::VarDecl *K) const;
  mutable llvm::DenseMap<const clang::VarDecl *, const clang::ForStmt *> ForLoopsByCounter;
  mutable llvm::DenseSet<const clang::VarDecl *> ComparedWithConstants;
  mutable llvm::SmallPtrSet<const clang::Stmt *, 2> BodiesWithLoopsFound;

  // ---------------------------------------------- DescriptorModel.cpp ---
  /// \p ReturnPath: where below what the wrapper call \p Site returns.
  Value originValue(const clang::Expr *Site, Remoteness Kind,
                    const AccessPath &ReturnPath = AccessPath());
  Value importedValue(const clang::Expr *Site, Remoteness Kind);
  Value paramValue(const clang::ParmVarDecl *P, unsigned Index, const AccessPath &Path);
  Value objectValue(const AccessPath &Path);
  Value foldedValue(Remoteness Kind);
  static ValueSet unknown() { return ValueSet::of(Value{}); }
  Value optionalValue(const clang::Expr *Site, bool Engaged);
  ValueSet evalOptional(const clang::Expr *E, const State &S);
  /// The descriptors the general constructor makes from \p Args.
  ValueSet constructed(const clang::Expr *Site, llvm::ArrayRef<const clang::Expr *> Args,
                       const State &S, bool Report);
  /// A call of a descriptor method that plays an API role.
  bool transferApiMethod(const clang::CXXMemberCallExpr *MC, State &S, bool Report);
  void lifecycle(const LocationList &Locs, const ValueSet &Values, LifeEvent E, State &S);
  void recordUse(std::vector<DescriptorUse> &Uses, const clang::CXXMemberCallExpr *Call,
                 const ValueSet &Values, const State &S);
  /// Sets \p ByOrigin for the origins of \p VS (in the report sweep only).
  void mark(std::vector<bool> &ByOrigin, const ValueSet &VS) const;
  void markUsed(const ValueSet &VS);
  void markEscaped(const ValueSet &VS);
  /// Marks what a helper may start or wait (FunctionAnalysis::HandedOn).
  void markHelperUsed(const ValueSet &VS);
  /// Applies MaxValuesPerLocation, MaxOriginsPerLocation, MaxAssumptionsPerValue.
  void bound(ValueSet &VS);
  void bound(State &S);

  // ----------------------------------------------------- Transfer.cpp ---
  void transferBlock(const clang::CFGBlock &B, State &S, bool Report, unsigned Depth);
  void transfer(const clang::Stmt *St, State &S, bool Report, unsigned Depth);
  void declare(const clang::VarDecl *VD, State &S, bool Report, unsigned Depth);
  /// Puts the value of \p Init (of type \p T) into the fresh location \p Dest.
  void initialize(const Location &Dest, clang::QualType T, const clang::Expr *Init, State &S,
                  bool Report, unsigned Depth);
  /// Initialises the parts of \p Dest, a std::pair or std::tuple of type
  /// \p T, from \p Args in order (its constructor's, make_pair's, or
  /// emplace_back's arguments).
  void initializeParts(const Location &Dest, clang::QualType T,
                       llvm::ArrayRef<const clang::Expr *> Args, State &S, bool Report,
                       unsigned Depth);
  /// Initialises \p Dest as a copy of \p Source (an object or a temporary).
  void initializeFrom(const Location &Dest, clang::QualType T, const clang::Expr *Source,
                      State &S, bool Report, unsigned Depth);
  /// Assigns the value of \p Init to \p Dest (several: a weak update).
  void assign(const LocationList &Dest, clang::QualType T, const clang::Expr *Init, State &S,
              bool Report, unsigned Depth);
  /// The values of a descriptor-typed expression.
  ValueSet eval(const clang::Expr *E, const State &S);
  /// The locations a pointer-typed expression designates, building what a
  /// `new` or `make_unique` allocates.
  LocationList evalTargets(const clang::Expr *E, State &S, bool Report, unsigned Depth);
  void transferOperatorCall(const clang::CXXOperatorCallExpr *Op, State &S, bool Report,
                            unsigned Depth);
  void transferMemberCall(const clang::CXXMemberCallExpr *MC, State &S, bool Report,
                          unsigned Depth);
  /// The braced list a container's constructor takes its elements from
  /// (`std::vector<D> v{a, b}`), if that is its one argument.
  static const clang::InitListExpr *listOfElements(llvm::ArrayRef<const clang::Expr *> Args);
  /// An insertion or removal that moves the elements of \p Containers to
  /// other indices (insert, erase, push_front, ...): what their constant
  /// indices held joins the summary of their elements.
  void spreadIndexed(const LocationList &Containers, State &S);
  /// What an algorithm of std the table does not list does to the
  /// containers and arrays its arguments \p Args reach through a non-const
  /// iterator or pointer, or name whole. Over one container and nothing
  /// else that holds descriptors (reverse, rotate, sort), it moves elements
  /// within it: spreadIndexed. Given another container or a descriptor
  /// (copy, fill, swap_ranges), what each of them holds afterwards is not
  /// known, and what they held escapes.
  void algorithmReached(llvm::ArrayRef<const clang::Expr *> Args, State &S);
  /// std::swap(a, b), a.swap(b), std::iter_swap: \p A and \p B exchange
  /// what is below them (each takes the other's, where both are one object).
  void swapObjects(const LocationList &A, const LocationList &B, State &S);
  /// What push_back/emplace/insert adds to a container of \p ElementType.
  void insertInto(const LocationList &Elements, clang::QualType ElementType,
                  llvm::ArrayRef<const clang::Expr *> Args, const clang::Expr *Site, State &S,
                  bool Report, unsigned Depth);
  void recordReceivePending(const clang::CXXMemberCallExpr *WaitSend, const LocationList &Locs,
                            const ValueSet &Values, State &S);
  void receiveWaited(const LocationList &Locs, State &S, const ValueSet *Rebuilt = nullptr);
  /// Whether the copies \p A and \p B are made (each at its own site) on one
  /// receive semaphore into one view, written alike over variables the
  /// function never writes: a copy rebuilt to wait another's bytes.
  bool sameReceiveView(OriginId A, OriginId B) const;
  void receiveMayBeWaited(const LocationList &Locs, State &S);
  /// The object a start or wait at \p Locs, named by \p Object, is, for
  /// State::Received: its location where that is one object, or with the
  /// reference variable named (`c` of a range-for); none otherwise.
  static std::optional<ReceivedObject> receivedKey(const clang::Expr *Object,
                                                   const LocationList &Locs);
  /// A receive-side wait of \p Object at \p Locs; a start there makes the
  /// copies in flight again (\p Started).
  void noteReceived(const clang::Expr *Object, const LocationList &Locs, State &S);
  void startedAgain(const LocationList &Locs, State &S);
  /// A call the model does not see into may start what it can reach.
  static void forgetReceived(State &S) { S.Received.clear(); }
  /// The descriptors at \p Locs are others now: no wait that follows is the
  /// receive wait of a wait_send pending there. With \p Kept, those pending
  /// in it (made before a lambda ran) stay.
  void pendingOverwritten(const LocationList &Locs, State &S,
                          const std::vector<PendingReceive> *Kept = nullptr);

  // ----------------------------------------------- AppendIndices.cpp ---
  /// The local sequences the for loop that counts with \p K appends to
  /// once per iteration from empty, so that element k is the one appended
  /// where K == k (the file comment says how this is recognised).
  const llvm::SmallVector<const clang::VarDecl *, 1> &sequencesIndexedBy(const clang::VarDecl *K);
  /// \p F, a fact of an atom `K == e` (or `!=`), as the element atom of
  /// \p Seq: `index == e`. Nullopt for an atom of another shape.
  std::optional<Fact> elementFact(Fact F, const clang::VarDecl *K, const clang::VarDecl *Seq);
  /// Before the counter \p K changes: what the elements of the sequences
  /// it indexes assume of `K == e` becomes their element atoms.
  void indexElementAtoms(const clang::VarDecl *K, State &S);
  /// \p Values read at \p Read: at `seq[q]` or `seq.at(q)`, the element
  /// atoms of seq become `q == e`, decided where the path knows it.
  ValueSet atElementIndex(const clang::Expr *Read, ValueSet Values, const State &S);

  // ----------------------------------------------- SequenceSizes.cpp ---
  /// The number of elements of the std::vector or std::deque \p Container,
  /// where it is known: a local built empty or from a braced list, then
  /// only appended to (push_back, emplace_back), shortened (pop_back) or
  /// cleared, with no other mention that could change its size
  /// (sizeTracked). Then push_back appends at that index, and back() reads
  /// it.
  std::optional<unsigned> knownSize(const Location &Container, const State &S);
  /// Marks \p Container (a local sequence) as holding \p Count elements,
  /// where its size may be tracked; else leaves it unmarked.
  void setSize(const Location &Container, std::optional<unsigned> Count, State &S);
  /// Every mention of the local sequence \p VD in its function is one that
  /// cannot change its size except as the model follows (the calls above,
  /// element and iterator accesses, const member functions, a range-for):
  /// nothing else (a call it is handed to, a reference bound to it, a copy,
  /// a lambda that captures it) may resize it unseen.
  bool sizeTracked(const clang::VarDecl *VD);
  /// The second view of the element push_back or emplace_back added last
  /// to the local sequence \p Container (PathStep::Last), where this path
  /// has one: nothing has changed which element is last, or what it holds,
  /// since.
  std::optional<Location> lastElement(const Location &Container, const State &S);
  /// push_back or emplace_back of \p Args to \p Container, whose size is
  /// not known: into the summary of its elements, and into its last.
  void appendLast(const Location &Container, clang::QualType ElementType,
                  llvm::ArrayRef<const clang::Expr *> Args, const clang::Expr *Site, State &S,
                  bool Report, unsigned Depth);
  /// push_back or emplace_back added \p Appended, at the known size of
  /// \p Container: the view of its last element is a copy of it.
  void keepLast(const Location &Container, const Location &Appended, State &S);
  /// The view of a last element at \p Last holds no flag.
  static void withoutFlags(const Location &Last, State &S);
  /// Which element of \p Container is last, or what it holds, may have
  /// changed: its last element's view goes.
  void dropLast(const Location &Container, State &S);
  /// \p Locs are about to be written: those below an element drop their
  /// container's last view, and one that is that view is every element
  /// instead (a write through back() is one into the summary).
  LocationList beforeElementWrite(const LocationList &Locs, State &S);
  /// \p Locs with the last element's view as every element: what a
  /// pointer, reference or guard keeps, which a later push_back must not
  /// move to another element.
  LocationList withoutLast(LocationList Locs) const;
  /// Set once a last element's view is kept: until then none is looked for.
  bool LastsKept = false;
  /// appendLast is writing the view itself.
  bool WritingLast = false;

  // -------------------------------------------------------- Calls.cpp ---
  const FunctionSummary *summaryFor(const clang::FunctionDecl *FD);
  /// The definition whose summary a call of \p FD reads, or null when its
  /// summary would say nothing (no descriptor in or out, an API function).
  const clang::FunctionDecl *summarisedDefinition(const clang::FunctionDecl *FD);
  /// The API role of \p FD (ApiIndex::roleOf, memoised).
  ApiRole role(const clang::FunctionDecl *FD);
  /// A call of a function (or constructor, or member function with \p Object).
  void call(const clang::Expr *Call, const clang::FunctionDecl *Callee,
            llvm::ArrayRef<const clang::Expr *> Args, const LocationList *Object, State &S,
            bool Report, unsigned Depth);
  void opaqueCall(const clang::FunctionDecl *Callee, llvm::ArrayRef<const clang::Expr *> Args,
                  State &S, bool Report, unsigned Depth);
  /// Where an argument passed to a parameter of type \p ParamType lives (for
  /// a reference or pointer parameter: what the callee reaches through it).
  LocationList argumentLocations(const clang::Expr *Arg, clang::QualType ParamType,
                                 const State &S);
  /// Whether \p Arg is a temporary holding descriptors that the reference
  /// parameter of type \p ParamType binds (`run(make_async_copy(...))`):
  /// the reference names no place the state knows, so what the callee reads
  /// through it is what building the temporary puts in it (builtAt).
  bool boundTemporary(const clang::Expr *Arg, clang::QualType ParamType);
  /// What building the temporary \p Temporary puts at \p Path below it.
  ValueSet builtAt(const clang::Expr *Temporary, const AccessPath &Path, const State &S);
  /// The descriptors an argument hands over, at and below.
  ValueSet argumentValues(const clang::Expr *Arg, const State &S);
  /// The values a summary says a location holds, for a call with \p Args.
  ValueSet summaryValues(const SummaryValues &SV, const clang::Expr *Call,
                         llvm::ArrayRef<const clang::Expr *> Args,
                         const clang::FunctionDecl *Callee, const LocationList *Object,
                         const AccessPath &Path, bool Imported, const State &S);
  /// Applies a summary's ObjectStores to \p Object.
  void applyObjectStores(const FunctionSummary &Summary, const clang::Expr *Call,
                         llvm::ArrayRef<const clang::Expr *> Args,
                         const clang::FunctionDecl *Callee, const LocationList &Object,
                         Update How, State &S);
  const clang::LambdaExpr *lambdaOf(const clang::Expr *E);
  /// Runs a lambda's body from the caller's state, its parameters bound to
  /// \p Args. One handed to another function may run or not (\p MayNotRun).
  /// One that runs \p InPlace (InPlaceLambdas.h) is the function's own code:
  /// its uses are not DescriptorUse::InLambda.
  /// With \p RunsWhen: the lambda runs only where that condition of the
  /// caller evaluates to \p RunsWhenHolds (`when(r, [&] { ... })`), which
  /// its body may then assume.
  void inlineLambda(const clang::LambdaExpr *Lambda, const clang::CXXMethodDecl *CallOperator,
                    llvm::ArrayRef<LocationList> ArgLocations, State &S, bool MayNotRun,
                    bool Report, unsigned Depth, bool InPlace,
                    const clang::Expr *RunsWhen = nullptr, bool RunsWhenHolds = true,
                    const LocationList *Closure = nullptr);
  /// A lambda handed to \p Callee as its argument \p Arg: one it runs in
  /// place only where it runs (never, under a constant false flag; surely,
  /// under a true one or none), any other as one that may run or not.
  void inlineHandedLambda(const clang::LambdaExpr *Lambda, const clang::FunctionDecl *Callee,
                          llvm::ArrayRef<const clang::Expr *> Args, unsigned Arg, State &S,
                          bool Report, unsigned Depth);
  void forgetCaptures(const clang::LambdaExpr *Lambda, State &S);
  /// What \p Lambda captures by copy that holds descriptors (variables, not
  /// init-captures): each variable, the closure's field for it, and the
  /// expression that copies it where the lambda is written.
  struct CopiedCapture {
    const clang::VarDecl *Variable;
    const clang::FieldDecl *Field;
    const clang::Expr *Init;
  };
  llvm::SmallVector<CopiedCapture, 1> copiedCaptures(const clang::LambdaExpr &Lambda);
  /// The variables \p Lambda captures by copy whose copies in \p Closure
  /// (the closure object the call runs) differ from what they hold in \p S,
  /// each with its copy's location.
  llvm::SmallVector<std::pair<Location, Location>, 1>
  capturedCopies(const clang::LambdaExpr *Lambda, const LocationList *Closure, const State &S);
  /// The cells below \p A and below \p B are the same, path by path.
  static bool sameBelow(const State &S, const Location &A, const Location &B);
  /// The cells below \p To become those below \p From (in \p FromState, by
  /// default \p S), with no write's other effects (pending waits, guards):
  /// the same objects seen from elsewhere.
  void replaceBelow(const Location &To, State &S, const Location &From,
                    const State *FromState = nullptr);
  /// The call operator a call of \p Lambda with arguments that hold
  /// descriptors runs: its own, or for a generic lambda its instantiation
  /// for one such argument (null if there is none).
  const clang::CXXMethodDecl *calledOperator(const clang::LambdaExpr &Lambda);
  void transferStdCall(const clang::CallExpr *Call, FunctionEffect Effect, State &S, bool Report,
                       unsigned Depth);
  /// What the caller knows of the members of a call's object that the
  /// callee's requirements test (WhenObject), read before the call.
  using ObjectFlags = llvm::SmallVector<std::pair<const void *, KnownFlag>, 1>;
  bool applies(const SendWaitRequirement &Requirement, llvm::ArrayRef<const clang::Expr *> Args,
               const ObjectFlags &Members);
  /// dmalint::leavesMember of \p Body's body, once per function and member.
  bool leavesMember(const clang::FunctionDecl &Body, const clang::FieldDecl *F);
  llvm::DenseMap<std::pair<const clang::FunctionDecl *, const clang::FieldDecl *>, bool>
      MembersLeft;
  /// The FlagInits of the summary of \p Ctor (Summaries.cpp).
  std::vector<MemberFlagInit> memberFlagInits(const clang::CXXConstructorDecl &Ctor);
  /// A constructor's FlagInits, at a construction of \p Object.
  void initializeMemberFlags(const FunctionSummary &Summary, llvm::ArrayRef<const clang::Expr *> Args,
                             const LocationList &Object, State &S);
  void recordHelperWaitSend(const clang::Expr *Call, const clang::FunctionDecl *Callee,
                            const clang::Expr *Arg, unsigned Param, const ValueSet &VS,
                            const SendWaitRequirement &Inner, bool ByConstructor = false);

  // -------------------------------------------- ProtocolSummaries.cpp ---
  /// A call of a helper with a ProtocolSummary: the copies it may leave in
  /// flight are in flight here from now on, and (in the report sweep) the
  /// call is recorded with the copies in flight before it (\p InFlightBefore).
  void protocolCall(const clang::Expr *Call, const clang::FunctionDecl *Callee,
                    llvm::ArrayRef<const clang::Expr *> Args,
                    llvm::ArrayRef<OriginId> InFlightBefore, State &S, bool Report);
  /// A factory that returns a started copy, with the bool parameter facts here.
  void recordStartedFactory(const clang::Expr *Call, const State &S);
  /// The origins that may be in flight in \p S.
  llvm::SmallVector<OriginId, 2> inFlight(const State &S) const;

  // ------------------------------------------------- ObjectCopies.cpp ---
  /// A local the function constructs, whose copies it names: made by a
  /// constructor whose summary names what it stores (Constructor), and
  /// mentioned only to call member functions that store no copy in it.
  /// Followed: each of those states all it does with the copies.
  /// Within: the construction is in what a lambda of the function returns,
  /// at this call of it.
  struct ConstructedObject {
    /// The constructor's arguments, in its parameters' order (for an
    /// aggregate, the source, target and semaphore of each copy it holds).
    llvm::SmallVector<const clang::Expr *, 8> Args;
    const ProtocolSummary *Constructor = nullptr;
    bool Followed = false;
    std::optional<LambdaCall> Within;
  };
  /// An aggregate the function brace-initialises with local copies
  /// (`KvCopies next{make_async_copy(...), make_async_copy(...)};`), as if
  /// a constructor had made each copy from its own arguments: a summary of
  /// that constructor (kept in AggregateConstructors), and the arguments.
  std::optional<ConstructedObject> aggregateObject(const clang::InitListExpr &List);
  /// \p R, a copy the member function \p Call calls returns, named through
  /// the members of the call's object (`ring.copy(chunk)` of a `Ring` whose
  /// constructor set `send_` and `recv_`): each member replaced by what the
  /// object's constructor set it to, in its arguments, appended to \p Args.
  /// Nullopt where a member it names is not so set.
  std::optional<ReturnedCopy> throughObjectMembers(const clang::CXXMemberCallExpr &Call,
                                                   const ReturnedCopy &R,
                                                   llvm::SmallVectorImpl<const clang::Expr *> &Args);
  std::map<const clang::InitListExpr *, ProtocolSummary> AggregateConstructors;
  std::optional<ConstructedObject> constructedObject(const clang::CXXMemberCallExpr &Call);
  /// The same for the local (or binding) \p D; with \p Siblings, an object
  /// a lambda makes is followed only if all the objects its calls make are.
  std::optional<ConstructedObject> makeObject(const clang::ValueDecl *D, bool Siblings);
  /// \p Summary (with entries at object paths) at the call \p Call with
  /// \p Args: the entries named on the object's constructed copies, with the
  /// constructor's arguments appended to \p Args; where the object is not
  /// such a local, starts dropped and waits unknown.
  ProtocolSummary atObject(const clang::Expr *Call, const ProtocolSummary &Summary,
                           llvm::SmallVectorImpl<const clang::Expr *> &Args,
                           std::optional<LambdaCall> &Within);

  // ---------------------------------------------------- Summaries.cpp ---
  void recordReturn(const clang::Expr *Returned, State &S, unsigned Depth);
  void summarise(const clang::FunctionDecl &FD, const State &Exit);
  /// \p VS for a summary; with \p Returned, the state at a return, whose
  /// facts on bool parameters say when each construction is handed back
  /// (SummaryValues::BuiltWhen).
  SummaryValues toSummary(const ValueSet &VS, const State *Returned = nullptr) const;
  /// The fact \p F of a lambda's path as a condition its caller can state
  /// (ParamFact::Condition): one over the lambda's parameters and the
  /// variables it captures from the function it is written in, none of
  /// which either function writes. Nullopt otherwise.
  std::optional<ParamFact> capturedCondition(const Fact &F) const;
  /// Whether the construction \p Site (of kind \p Kind) of a callee's summary \p SV is
  /// returned at a call with \p Args in state \p S; \p Assumed gets the
  /// caller's facts it is returned on (SummaryValues::BuiltWhen).
  bool returnedAtCall(const SummaryValues &SV, const clang::Expr *Site, Remoteness Kind,
                      const clang::FunctionDecl *Callee, llvm::ArrayRef<const clang::Expr *> Args,
                      const State &S, FactSet &Assumed);
  /// A lambda's condition \p Cond (ParamFact::Condition) in this function's
  /// terms at a call of it (\p Callee) with \p Args: its parameters
  /// replaced by the arguments. Null where it cannot be.
  const clang::Expr *conditionAtCall(const clang::Expr *Cond, const clang::FunctionDecl *Callee,
                                     llvm::ArrayRef<const clang::Expr *> Args);

  // ----------------------------------------------------------- shared ---
  clang::ASTContext &Ctx;
  const ApiIndex &Api;
  const AnalysisLimits &Limits;
  SummarySource *Summaries;
  TypeModel &Types;
  CfgCache &Cfgs;
  FunctionAnalysis &Out;

  const clang::FunctionDecl *Function = nullptr;
  /// The class of `*this` in a member function (or a lambda inside one).
  const clang::CXXRecordDecl *ObjectClass = nullptr;
  std::vector<bool> Used, Escaped, HelperUsed; ///< By OriginId.
  /// Escaped other than into the object of a constructor or member function.
  std::vector<bool> EscapedBesidesObject;
  /// Escaped other than by being returned (recordReturn sets InReturn).
  std::vector<bool> EscapedNotReturned;
  bool InReturn = false;
  bool InReportSweep = false;      ///< Uses and escapes count only then.
  unsigned StoredStates = 0;       ///< Block entry states held, over nested runs.
  std::set<const clang::ParmVarDecl *> WrittenParams;
  bool WroteObject = false;
  std::map<OriginId, AtomId> ParamRemoteAtoms;
  /// Set by a fold: uses of these origins are not known any more.
  llvm::DenseSet<OriginId> FoldedAway;

  std::map<std::tuple<const void *, Remoteness, bool, AccessPath>, OriginId> OriginIds;
  std::map<std::pair<const void *, bool>, OriginId> OptionalOriginIds;
  std::map<std::tuple<const void *, bool, AccessPath>, OriginId> ParamOriginIds;
  std::map<Remoteness, OriginId> FoldedIds;
  uintptr_t ScratchIds = 0;

  struct AtomInfo {
    llvm::FoldingSetNodeID Profile;
    llvm::SmallVector<const clang::VarDecl *, 2> Vars;
    std::optional<unsigned> BoolParam; ///< The atom is exactly this bool parameter.
    /// The atom is `param == value` for this integer or enum parameter.
    std::optional<std::pair<unsigned, int64_t>> ParamEquals;
    /// The atom is `param == param` for these two integer or enum
    /// parameters (the lower index first).
    std::optional<std::pair<unsigned, unsigned>> ParamsEqual;
    /// The condition the atom was made of (CondNegated: its negation is
    /// the atom), for a lambda's summary (ParamFact::Condition).
    const clang::Expr *Cond = nullptr;
    bool CondNegated = false;
    /// The atom compares an expression x (its profile) with a constant:
    /// `x == c` (where it holds, `x == other value` does not:
    /// EqualityAtoms), `x < c` or `x > c`. An index known to fail it names
    /// no element it excludes (excludedIndex).
    std::optional<ConstantComparison> Compared;
    /// The atom is `x == c` where the path last set the variable x to c
    /// (learnConstantValue), not a branch's test of it.
    bool WrittenValue = false;
    /// The atom is `member == value` for a member of `*this` the function
    /// never writes (objectMemberTest).
    std::optional<ObjectFact> ObjectMember;
    /// The pseudo-atom of paramRemoteAtom: a mark on a parameter's copy,
    /// not a condition of the path.
    bool ParamRemote = false;
    /// An element atom (AppendIndices.cpp): the index of an element of this
    /// sequence equals ElementEquals. No branch tests it; a read at an index
    /// turns it into that index's comparison.
    const clang::VarDecl *ElementOf = nullptr;
    const clang::Expr *ElementEquals = nullptr;
  };
  std::vector<AtomInfo> Atoms;
  /// The atoms `param == value`, by parameter and value: one atom however
  /// it is written (`a == kStart`, `kStart == a`, a `case kStart:`).
  std::map<std::pair<const clang::ParmVarDecl *, int64_t>, AtomId> ParamValueAtoms;
  llvm::DenseMap<unsigned, llvm::SmallVector<AtomId, 1>> AtomsByHash;
  llvm::DenseMap<const clang::VarDecl *, llvm::SmallVector<AtomId, 2>> AtomsByVar;
  /// retiredAtom, by the atom it retires.
  llvm::DenseMap<AtomId, AtomId> RetiredAtoms;
  /// The atoms `x == value`, by the hash of x's profile.
  llvm::DenseMap<unsigned, llvm::SmallVector<AtomId, 2>> EqualityAtoms;
  /// atomFor and constantCondition by expression: neither depends on the
  /// state, and a loop's conditions are asked on every visit (profiling and
  /// constant evaluation are what a visit of a small block costs most).
  struct AtomOf {
    std::optional<AtomId> Id;
    bool Negated = false; ///< The expression is the atom's negation.
  };
  llvm::DenseMap<const clang::Expr *, AtomOf> AtomOfExpr;
  mutable llvm::DenseMap<const clang::Expr *, std::optional<bool>> ConstantOfExpr;

  /// The origin of each start of a helper's summary at each call.
  std::map<std::pair<const clang::Expr *, unsigned>, OriginId> HelperOriginIds;
  /// Found once per function, at the first member call that needs it.
  std::optional<ObjectUses> LocalObjects;
  llvm::DenseMap<const clang::ValueDecl *, std::optional<ConstructedObject>> Objects;
  /// Where a call is in Out.ProtocolCalls.
  std::map<const clang::Expr *, size_t> ProtocolCallIndex;
  /// What each function and expression met is, by the model: asked at
  /// every visit of a block, and the same every time.
  llvm::DenseMap<const clang::FunctionDecl *, ApiRole> Roles;
  llvm::DenseMap<const clang::FunctionDecl *, const clang::FunctionDecl *> SummarisedDefinition;
  llvm::DenseMap<const clang::Expr *, const clang::LambdaExpr *> Lambdas;
  /// The lambda of each closure type lambdaOf has met (Analyzer::lambdaOf).
  llvm::DenseMap<const clang::CXXRecordDecl *, const clang::LambdaExpr *> ClosureLambdas;
  /// sequencesIndexedBy, per counter; whether any element atom was made.
  llvm::DenseMap<const clang::VarDecl *, llvm::SmallVector<const clang::VarDecl *, 1>>
      IndexedSequences;
  bool ElementAtomsMade = false;
  /// sizeTracked, per local sequence.
  llvm::DenseMap<const clang::VarDecl *, bool> SizeTracked;
  /// How many inlined lambda calls are being run (DescriptorUse::InLambda).
  unsigned InlinedLambdas = 0;

  /// Where a call's use is in its list of uses.
  std::map<const clang::CXXMemberCallExpr *, size_t> UseIndex;
  /// By wait_send call: a receive wait may follow / may be missing.
  llvm::DenseMap<const clang::Expr *, std::pair<bool, bool>> ReceiveAfter;
  /// By wait_send call: its object's receive side was waited since its last
  /// start on every path the report sweep met it on.
  llvm::DenseMap<const clang::Expr *, bool> ReceivedBefore;
  /// Whether the copies \p RD's class summary lists at \p Path of its
  /// objects are what its constructors store there, each constructor one
  /// kind, and both kinds occur: a member function's wait_send there is
  /// right for some objects and wrong for others, judged at each call on
  /// the object's own copies (FunctionAnalysis::judgedAtCalls).
  bool constructorsDecideKind(const clang::CXXRecordDecl &RD, const AccessPath &Path);
};

template <typename Fn>
void Analyzer::materialize(const Location &Root, clang::QualType T, State &S, Fn Initial) {
  llvm::SmallVector<TypeModel::Leaf, 8> Leaves;
  Types.leafPaths(T, Leaves);
  for (const TypeModel::Leaf &Leaf : Leaves) {
    Location L = Root.child(Leaf.Path.steps());
    if (L.isUnknown())
      continue;
    Cell &C = S.Cells[L];
    if (Leaf.Kind == Shape::Pointer)
      C.Targets = {Location::unknown()};
    Initial(Leaf, C);
  }
}

} // namespace dmalint

#endif // DMALINT_LIB_ANALYZER_H
