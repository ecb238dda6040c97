//===- State.h - The lattice element of the descriptor analysis -*- C++ -*-===//
//
// What the analysis knows at a program point:
//
//   Cells       location -> what it holds: the descriptor values that may be
//               there (Values.h), or, for a pointer, reference, iterator or
//               smart pointer, the locations it may designate (Location.h),
//               or, for a bool member beside descriptors (`{copy, true}`),
//               the constant it holds (Flags.cpp);
//   Facts       the atoms known on every path here (Facts.h);
//   Guards      bool variables, and bool members of local variables, that
//               hold `d.is_remote()` for some d or another test;
//   Indices     local integer variables known to hold one of a few constant
//               indices: a branch on a flag read at `a[k]` decided it;
//   Life        the lifecycle of each descriptor origin that is not surely
//               idle: in flight, send side waited, receive side waited;
//   Pending     `wait_send` calls whose descriptor has not yet had a
//               receive-side wait on this path (for the fix-it's choice);
//   Received    objects whose receive side was waited since they were last
//               started or written, on every path here (for the same
//               choice: a wait_send after it has no bytes left to take).
//
// The join (joinStates) is the least upper bound: cells and their values
// unite, and a value that arrives from one side only is tagged with the
// facts that side knew and the other did not, so a later branch on the same
// condition can drop it; facts and guards are kept where both sides agree;
// lifecycles unite state by state; pending waits unite; received objects
// are those both sides have.
//
//===----------------------------------------------------------------------===//
#ifndef DMALINT_STATE_H
#define DMALINT_STATE_H

#include "dmalint/Facts.h"
#include "dmalint/Location.h"
#include "dmalint/Values.h"
#include "clang/AST/Expr.h"
#include <map>
#include <optional>
#include <utility>
#include <vector>

namespace dmalint {

/// What a bool or enum member or part (a flag) is known to hold: a
/// constant (the value plus one: false and true are 1 and 2, an enumerator
/// of value v is v + 1), or (FlagIsRemote, bools only) whatever
/// `is_remote()` of the descriptor member beside it (Cell::FlagOf) gives.
/// A constant too large for a byte is not kept (unknown).
enum FlagValue : uint8_t { FlagUnknown = 0, FlagFalse = 1, FlagTrue = 2, FlagIsRemote = 0xFF };

/// The flag of the constant \p V; FlagUnknown when it has no room.
inline FlagValue flagConstant(int64_t V) {
  return V >= 0 && V < int64_t(FlagIsRemote) - 1 ? FlagValue(V + 1) : FlagUnknown;
}
/// Whether \p F is a constant (not unknown, not FlagIsRemote).
inline bool isFlagConstant(FlagValue F) { return F != FlagUnknown && F != FlagIsRemote; }

/// What a flag is known to hold (a cell's Flag, FlagOf, FlagIfRemote and
/// FlagIfLocal).
struct KnownFlag {
  FlagValue Value = FlagUnknown;
  const clang::FieldDecl *Of = nullptr;
  /// An enum that is a function of the kind of the copy beside it (Of): its
  /// value where that copy is remote, and where it is local (FlagUnknown: no
  /// copy of that kind is there). Unset for a bool, whose relation is
  /// is_remote() itself.
  FlagValue IfRemote = FlagUnknown, IfLocal = FlagUnknown;
  friend bool operator==(const KnownFlag &A, const KnownFlag &B) {
    return A.Value == B.Value && A.Of == B.Of && A.IfRemote == B.IfRemote &&
           A.IfLocal == B.IfLocal;
  }
};

/// Which kinds of the copy beside it a flag related to that copy
/// (KnownFlag::Of) lets through a branch where it equals \p Equals (\p Value)
/// or not: a bool is is_remote() itself, so one kind (none tested: both); an
/// enum lets the kinds whose value passes (and a kind with no copy there).
struct PassingKinds {
  bool Remote = true, Local = true;
};
inline PassingKinds passingKinds(FlagValue IfRemote, FlagValue IfLocal, FlagValue Equals,
                                 bool Value) {
  if (IfRemote || IfLocal)
    return {!IfRemote || ((IfRemote == Equals) == Value),
            !IfLocal || ((IfLocal == Equals) == Value)};
  if (Equals != FlagTrue && Equals != FlagFalse)
    return {};
  bool Remote = Value == (Equals == FlagTrue);
  return {Remote, !Remote};
}

/// What a location holds.
struct Cell {
  ValueSet Values;       ///< A descriptor, or an optional argument's engagement.
  LocationList Targets;  ///< What a pointer, reference or iterator may designate.
  /// A bool member or part: its constant, or FlagIsRemote. A cell with a
  /// flag holds nothing else, and goes when the flag becomes unknown (no
  /// cell: unknown).
  FlagValue Flag = FlagUnknown;
  /// The descriptor member beside the flag whose is_remote() it equals
  /// (`{c, c.is_remote()}`, `{c, remote}` with c chosen by `remote`, or a
  /// constant that matches the kind of every copy there): set for
  /// FlagIsRemote, and may be beside a constant.
  const clang::FieldDecl *FlagOf = nullptr;
  /// An enum's relation to the copy beside it (KnownFlag::IfRemote, IfLocal).
  FlagValue FlagIfRemote = FlagUnknown, FlagIfLocal = FlagUnknown;

  KnownFlag flag() const { return {Flag, FlagOf, FlagIfRemote, FlagIfLocal}; }
  void setFlag(const KnownFlag &K) {
    Flag = K.Value;
    FlagOf = K.Of;
    FlagIfRemote = K.IfRemote;
    FlagIfLocal = K.IfLocal;
  }

  /// Whether anything is known to be here (a fresh slot's cells hold nothing).
  bool holds() const { return !Values.empty() || !Targets.empty() || Flag; }

  friend bool operator==(const Cell &A, const Cell &B) {
    return A.Values == B.Values && A.Targets == B.Targets && A.flag() == B.flag();
  }
  friend bool operator!=(const Cell &A, const Cell &B) { return !(A == B); }
};

/// What a branch condition tells the analysis: that an atom holds (Negated:
/// that it does not), and that the descriptors at Subjects are remote
/// (`d.is_remote()`; SubjectsNegated: that they are local). A bool variable
/// that holds `d.is_remote()` is both: a test of d, and an atom of its own.
struct Guard {
  std::optional<AtomId> Atom;
  bool Negated = false;
  LocationList Subjects;
  bool SubjectsNegated = false;
  /// A bool assigned a condition (`remote = far;`): the atom it holds, tested
  /// with the bool's own; AliasNegated for `remote = !far;`.
  std::optional<AtomId> Alias;
  bool AliasNegated = false;
  /// A bool member read where the condition is (`i.remote`, `it->remote`,
  /// a structured binding): which objects the reference or iterator it is
  /// read through may designate narrows to those whose flag has the
  /// branch's value (Flags.cpp). FlagNegated for `!i.remote`.
  const clang::Expr *Flag = nullptr;
  bool FlagNegated = false;
  /// The constant the flag is compared with: FlagTrue for a bool tested
  /// as it is, an enumerator's for `i.kind == Kind::kRemote`.
  FlagValue FlagEquals = FlagTrue;

  bool empty() const { return !Atom && !Alias && Subjects.empty() && !Flag; }
  friend bool operator==(const Guard &A, const Guard &B) {
    return A.Atom == B.Atom && A.Negated == B.Negated && A.Subjects == B.Subjects &&
           A.SubjectsNegated == B.SubjectsNegated && A.Alias == B.Alias &&
           A.AliasNegated == B.AliasNegated && A.Flag == B.Flag &&
           A.FlagNegated == B.FlagNegated && A.FlagEquals == B.FlagEquals;
  }
};

/// The lifecycle of one origin, as the set of states it may be in.
enum LifeState : uint8_t {
  Idle = 1,       ///< Built, or done: nothing pending (what an origin not in Life is).
  InFlight = 2,   ///< Started; neither side waited since.
  SendWaited = 4, ///< Started; the send side waited, the receive side pending.
  RecvWaited = 8, ///< Started; the receive side waited, the send side pending (remote).
};
using LifeMask = uint8_t;

/// A `wait_send` whose descriptor, at Object, has had no receive-side wait
/// since on this path.
struct PendingReceive {
  const clang::Expr *Use = nullptr;
  Location Object;
  friend bool operator==(const PendingReceive &A, const PendingReceive &B) {
    return A.Use == B.Use && A.Object == B.Object;
  }
  friend bool operator<(const PendingReceive &A, const PendingReceive &B) {
    return std::tie(A.Use, A.Object) < std::tie(B.Use, B.Object);
  }
};

/// An object whose receive side was waited (ReceivedObject::Object), and the
/// variable the wait named it through (`c` of `for (auto &c : copies)
/// c.wait_recv();`), which tells it from the other elements its location
/// stands for; null where the location is one object.
struct ReceivedObject {
  Location Object;
  const clang::VarDecl *Through = nullptr;
  friend bool operator==(const ReceivedObject &A, const ReceivedObject &B) {
    return A.Object == B.Object && A.Through == B.Through;
  }
  friend bool operator<(const ReceivedObject &A, const ReceivedObject &B) {
    return std::tie(A.Object, A.Through) < std::tie(B.Object, B.Through);
  }
};

struct State {
  bool Reachable = true;
  std::map<Location, Cell> Cells;
  FactSet Facts;
  /// By the bool's location: a variable, or a member of a local (`s.remote`).
  std::map<Location, Guard> Guards;
  /// `k` after `if (slots[k].remote)`: the indices whose flag allowed it.
  std::map<const clang::VarDecl *, llvm::SmallVector<int32_t, 2>> Indices;
  std::vector<std::pair<OriginId, LifeMask>> Life; ///< Sorted by origin.
  std::vector<PendingReceive> Pending;             ///< Sorted.
  std::vector<ReceivedObject> Received;            ///< Sorted.

  /// The cells of \p Root and everything below it: one contiguous range.
  std::pair<std::map<Location, Cell>::iterator, std::map<Location, Cell>::iterator>
  cellsBelow(const Location &Root);
  /// Whether no cell at or below \p Root holds anything (Cell::holds): an
  /// object no path has put anything in.
  bool holdsNothingBelow(const Location &Root) const;
  LifeMask lifeOf(OriginId Origin) const;
  void setLife(OriginId Origin, LifeMask Mask);
  /// How many values and targets the cells hold: what a visit costs.
  size_t size() const;

  friend bool operator==(const State &A, const State &B) {
    return A.Reachable == B.Reachable && A.Cells == B.Cells && A.Facts == B.Facts &&
           A.Guards == B.Guards && A.Indices == B.Indices && A.Life == B.Life &&
           A.Pending == B.Pending && A.Received == B.Received;
  }
  friend bool operator!=(const State &A, const State &B) { return !(A == B); }
};

/// The join of two states (see the file comment).
State joinStates(const State &A, const State &B);

/// What a flag is after a join or a weak write of \p From into \p Into:
/// the same constant stays; two that both equal the same member's
/// is_remote() are that; two enums that are each a function of the same
/// member's kind, with no kind given two values, are the function of both
/// (`{local, kLocal}` and `{remote, kRemote}`); false when nothing is known.
inline bool mergeFlags(KnownFlag &Into, const KnownFlag &From) {
  if (Into == From)
    return Into.Value != FlagUnknown;
  if (Into.Of && Into.Of == From.Of) {
    bool Enum = Into.IfRemote || Into.IfLocal || From.IfRemote || From.IfLocal;
    auto Join = [](FlagValue &A, FlagValue B) {
      if (!A)
        A = B;
      return !B || A == B;
    };
    if (!Enum || (Join(Into.IfRemote, From.IfRemote) && Join(Into.IfLocal, From.IfLocal))) {
      if (Into.Value != From.Value)
        Into.Value = FlagIsRemote;
      return true;
    }
  }
  Into.Of = nullptr;
  Into.IfRemote = Into.IfLocal = FlagUnknown;
  if (Into.Value != From.Value || Into.Value == FlagIsRemote)
    Into.Value = FlagUnknown;
  return Into.Value != FlagUnknown;
}

} // namespace dmalint

#endif // DMALINT_STATE_H
