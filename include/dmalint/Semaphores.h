//===- Semaphores.h - Which semaphore an expression names, and whether two are one -*- C++ -*-===//
//
// The semaphore model of the protocol checks (checks.md, "Protocol and
// Mosaic-verifier checks"): a semaphore is a root (a parameter, a local
// variable, a member or a global) and the index tuple that selects one
// semaphore of it (`sems[i]`, `sems.at(i, j)`). Two names are the same
// semaphore, provably different ones, semaphores of different roots, or
// unknown; a check reports only what is provable, so every doubt answers
// "unknown".
//
//===----------------------------------------------------------------------===//
#ifndef DMALINT_SEMAPHORES_H
#define DMALINT_SEMAPHORES_H

#include "dmalint/ApiModel.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/Decl.h"
#include "clang/AST/Expr.h"
#include "clang/AST/ParentMap.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SmallVector.h"
#include <optional>

namespace dmalint {

/// A semaphore as the code names it.
struct SemaphoreName {
  /// The variable, parameter or member the semaphore (or its array) is.
  const clang::ValueDecl *Root = nullptr;
  /// The indices that select one semaphore of the root, outermost first
  /// (`sems.at(i, j)`: i, j; `sems[i]`: i). Empty for a scalar root.
  llvm::SmallVector<const clang::Expr *, 3> Indices;
  /// The semaphore expression as written (for messages and notes).
  const clang::Expr *Spelling = nullptr;
  /// Where the root is named (`s.sem` of `s.sem[i]`): how a message spells
  /// a member of a variable.
  const clang::Expr *RootAt = nullptr;
};

/// Where two expressions being compared are evaluated.
enum class Evaluation {
  /// Anywhere in the function: a variable declared in a loop takes a new
  /// value in each iteration, so it is not the same twice.
  Anywhere,
  /// In one iteration of the innermost loop around both (or once in a
  /// function without one): a variable written only by its initialiser
  /// keeps its value between them.
  SameIteration,
};

/// The variables of one function that keep one value from their
/// initialisation on: never assigned, incremented, bound to a non-const
/// reference or taken the address of. A local of that kind declared in a
/// loop still takes a new value in each iteration (see invariantIn).
class UnwrittenVariables {
public:
  UnwrittenVariables(const clang::FunctionDecl &FD, const ApiIndex &Api);
  /// True when \p V is one of those variables (a parameter or a local of the function).
  bool unwritten(const clang::VarDecl *V) const;
  /// The same for a parameter or local of a lambda in the function's body
  /// (the walk sees the lambda's code too); a new one at each call of the
  /// lambda, so never invariant.
  bool unwrittenInLambda(const clang::VarDecl *V) const;
  /// True when \p E has the same value wherever it is evaluated in the
  /// function: constants, unwritten parameters, unwritten locals declared
  /// outside every loop, and device queries (program_id(0), axis_index("x"))
  /// of such arguments, combined by side-effect-free operators.
  bool invariant(const clang::Expr *E, Evaluation Where = Evaluation::Anywhere) const;
  /// True when \p V (a parameter or a local of the function) is never
  /// assigned, bound to a non-const reference or taken the address of: only
  /// member functions are called on it, which keep a descriptor the same copy.
  /// (A local of a lambda in the function's body too.)
  bool keepsObject(const clang::VarDecl *V) const;
  /// True when \p V is declared in the body of a loop (a new object in each
  /// iteration).
  bool declaredInLoop(const clang::VarDecl *V) const { return InLoop.contains(V); }
  /// The argument a lambda of the function called where it is written
  /// (`[&](int s) { ... }(slot)`) passes for its parameter \p P; null for
  /// any other parameter.
  const clang::Expr *inPlaceArgument(const clang::ParmVarDecl *P) const {
    return InPlaceArguments.lookup(P);
  }
  const clang::FunctionDecl &function() const { return FD; }
  const ApiIndex &api() const { return Api; }

  /// These variables, and, for expressions written in one iteration of
  /// \p Loop (the function's run when null) up to the end of the statement
  /// of its body that holds \p Until, also the integer variables that keep
  /// their value there: every write of one is a plain assignment or
  /// increment of the function's own code (not a lambda's, not through a
  /// pointer or reference) that no run of the iteration reaches before
  /// \p Until ends: in a later statement of the body, in the loop's
  /// increment, or outside the loop (`slot = next;` at the end of a
  /// double-buffer loop, the counter of a `for`). invariant(E,
  /// Evaluation::SameIteration) then holds for them where E is written in
  /// that part of the body, not elsewhere (an initialiser before the loop
  /// saw another value). A function with a goto has none.
  UnwrittenVariables steadyUntil(const clang::Stmt *Loop, const clang::Stmt *Until,
                                 const clang::ParentMap &PM,
                                 const clang::SourceManager &SM) const;
  /// True when every write of the integer, bool or enum variable \p V is
  /// a plain assignment or increment of the function's own code (not a
  /// lambda's, not through a pointer or reference), or it has none: what
  /// the function last assigned it is what it holds.
  bool onlyPlainlyWritten(const clang::VarDecl *V) const {
    return unwritten(V) || Assigned.count(V);
  }
  /// True when steadyUntil may find such variables (the function assigns one).
  bool mayBeSteady() const { return !HasGoto && !Assigned.empty(); }

  /// Declared in the function's own code: its body, or a lambda of it that
  /// runs in place (InPlaceLambdas.h).
  bool ownVariable(const clang::VarDecl *V) const;

  /// What \p E holds wherever it is read, when it keeps what its
  /// declaration put there: a local of the function's own code (not static,
  /// not a reference) never written, or const: its initialiser; a member of
  /// one reached through `.` (member by member through nested aggregates)
  /// that the function only reads and reaches through that variable alone,
  /// named only to reach members (holdingVariable): the element of the
  /// braced list that sets it (`p.tp` of `const MeshPos p{axis_index("dp"),
  /// axis_index("tp")}`, `s.remote` of `Slot s{copy, far}` beside
  /// `s.copy.start()`). Null for anything else.
  const clang::Expr *builtValue(const clang::Expr *E) const;

  /// The one object through which the function (lambdas included) reaches
  /// the member \p F, when it only reads it: a variable (`s` of `s.buf`),
  /// the function itself for `*this`, or a member (`kv` of `s.kv.buf`, whose
  /// own object this answers in turn). Null when it reaches F through two
  /// objects, through another expression (`v[i].buf`), writes it, or never
  /// names it.
  const clang::Decl *fieldBase(const clang::FieldDecl *F) const {
    return F ? FieldBases.lookup(F->getCanonicalDecl()) : nullptr;
  }
  /// Whether the function (lambdas included) names the variable \p V only
  /// to read it or its members (`s.sem`, `s.buf.at(i)`).
  bool readThroughMembers(const clang::VarDecl *V) const {
    return V && ReadThroughMembers.contains(V);
  }
  /// Whether the function (lambdas included) names the variable \p V other
  /// than to reach one of its members (`helper(s)`, `auto t = s;`): what it
  /// is handed to may reach any member of it.
  bool mentionedWhole(const clang::VarDecl *V) const {
    return V && NamedWhole.contains(V->getCanonicalDecl());
  }
  /// Whether the function (lambdas included) names the member \p F other
  /// than to reach a member of it (`helper(s.kv)`, not `s.kv.sem`).
  bool mentionedWhole(const clang::FieldDecl *F) const {
    return F && FieldsNamedWhole.contains(F->getCanonicalDecl());
  }
  /// The variable through which the function reaches the member \p F, member
  /// by member (`s` of `s.kv.buf` for buf), when each member on the way is
  /// reached through one object only and named only to reach the next:
  /// fieldBase's answer followed up to a variable. Null for `*this` and
  /// wherever fieldBase is null.
  const clang::VarDecl *holdingVariable(const clang::FieldDecl *F) const;
  /// The member of `*this` through which the function reaches \p F, a
  /// member of a member (`b_` of `b_.sem`), member by member as
  /// holdingVariable follows them; null for a member of `*this` itself and
  /// wherever holdingVariable would not reach `*this`.
  const clang::FieldDecl *thisMemberHolding(const clang::FieldDecl *F) const;
  /// Whether the function (lambdas included) names the member \p F at all.
  bool namesField(const clang::FieldDecl *F) const {
    return F && FieldBases.count(F->getCanonicalDecl());
  }

private:
  /// Where \p F's chain of members ends (holdingVariable's walk): a
  /// variable, the function itself for `*this`, or null (another object, a
  /// member on the way named whole, a chain too long); \p Outermost is the
  /// member whose object that is.
  const clang::Decl *chainEnd(const clang::FieldDecl *F,
                              const clang::FieldDecl *&Outermost) const;

  bool steadyAt(const clang::DeclRefExpr *DRE) const;

  const clang::FunctionDecl &FD;
  const ApiIndex &Api;
  llvm::DenseSet<const clang::VarDecl *> Written;
  llvm::DenseSet<const clang::VarDecl *> InLoop; ///< Declared in the body of a loop.
  llvm::DenseSet<const clang::VarDecl *> Rebound; ///< See keepsObject.
  /// The integer variables whose every write is a plain assignment or
  /// increment of the function's own code, and those writes.
  llvm::DenseMap<const clang::VarDecl *, llvm::SmallVector<const clang::Expr *, 2>> Assigned;
  bool HasGoto = false;
  llvm::DenseSet<const clang::DeclContext *> OwnLambdas; ///< See ownVariable.
  llvm::DenseMap<const clang::ParmVarDecl *, const clang::Expr *> InPlaceArguments;
  llvm::DenseMap<const clang::FieldDecl *, const clang::Decl *> FieldBases; ///< See fieldBase.
  llvm::DenseSet<const clang::VarDecl *> ReadThroughMembers; ///< See readThroughMembers.
  llvm::DenseSet<const clang::VarDecl *> NamedWhole;         ///< See mentionedWhole.
  llvm::DenseSet<const clang::FieldDecl *> FieldsNamedWhole; ///< See mentionedWhole.
  /// Set by steadyUntil: the variables steady in its window, and the window.
  llvm::DenseSet<const clang::VarDecl *> Steady;
  clang::SourceLocation WindowBegin, WindowEnd;
  const clang::SourceManager *SM = nullptr;
};

/// What the root of a semaphore or buffer name \p Inner (a DeclRefExpr or a
/// member of `*this`, wrappers stripped) is: the variable or member itself,
/// or, for a local variable never written after its initialisation, that
/// initialiser (Init), which names what the variable copies or refers to.
/// A local made by default construction (`Semaphore barrier;`, a scoped
/// scratch semaphore) copies nothing: it is its own root, when declared
/// outside every loop (in a loop's body it is a new object each iteration),
/// and has none in a loop.
struct NameRoot {
  const clang::ValueDecl *Root = nullptr;
  const clang::Expr *Init = nullptr;
};
std::optional<NameRoot> nameRoot(const clang::Expr *Inner, const UnwrittenVariables &Vars);

/// True when \p Root is a semaphore or buffer the function of \p Vars makes:
/// a local of it, default-constructed (`Semaphore barrier;`, `Semaphore
/// barrier{};`) outside every loop and never written. No other name refers
/// to it but through that local.
bool madeHere(const clang::ValueDecl *Root, const UnwrittenVariables &Vars);

/// The semaphore \p E (a semaphore argument of a copy, a wait or a signal)
/// names: through implicit copies, a `std::optional` wrapping (the general
/// constructor's source semaphore), and unwritten local semaphore variables
/// (`DmaSemaphore s = sems[slot];`) to what initialised them. Nullopt when it
/// is none of that (a call's result, a conditional, a written variable).
std::optional<SemaphoreName> semaphoreName(const clang::Expr *E,
                                           const UnwrittenVariables &Vars);

/// How two semaphore names relate.
enum class SemaphoreRelation {
  Same,          ///< The same root and provably the same indices.
  Disjoint,      ///< The same root and provably different indices.
  OtherRoot,     ///< Different roots (two parameters may still be one semaphore).
  Unknown,
};

/// True when \p A and \p B are the same expression (parentheses and
/// implicit casts aside), as clang's canonical profile of each says.
bool sameExpression(const clang::Expr *A, const clang::Expr *B, const clang::ASTContext &Ctx);

/// How two indices relate.
enum class IndexRelation { Same, Different, Unknown };
/// Indices are the same when both are the same constant or the same
/// invariant expression (UnwrittenVariables::invariant, for \p Where), and
/// different when they are different constants or an invariant `e` against
/// `1 - e`, `e ^ 1`, `(e + 1) % 2`, `e == 0 ? 1 : 0`, or `e + c` against
/// `e + d` (constants c != d).
IndexRelation compareIndices(const clang::Expr *A, const clang::Expr *B,
                             const UnwrittenVariables &Vars, const clang::ASTContext &Ctx,
                             Evaluation Where);

/// B - A, when both are constants or `e + c` of one invariant `e`.
std::optional<int64_t> constantDifference(const clang::Expr *A, const clang::Expr *B,
                                          const UnwrittenVariables &Vars,
                                          const clang::ASTContext &Ctx, Evaluation Where);

/// Compares two semaphore names, index by index (compareIndices).
SemaphoreRelation compareSemaphores(const SemaphoreName &A, const SemaphoreName &B,
                                    const UnwrittenVariables &Vars,
                                    const clang::ASTContext &Ctx,
                                    Evaluation Where = Evaluation::Anywhere);

/// The semaphores a copy (a factory call or the general constructor) names,
/// as written at the positions of the API model; null where it names none
/// (a local copy has no send semaphore) or the position is not written.
struct CopySemaphores {
  const clang::Expr *Send = nullptr;
  const clang::Expr *Receive = nullptr;
};
CopySemaphores copySemaphores(const clang::Expr *Copy, const ApiIndex &Api);

} // namespace dmalint

#endif // DMALINT_SEMAPHORES_H
