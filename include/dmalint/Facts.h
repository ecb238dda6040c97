//===- Facts.h - What a path knows: atoms and their polarity ----*- C++ -*-===//
//
// The one shape of path knowledge. An atom is a side-effect-free condition
// the analysis can test twice and get the same answer (`r`, `k % 2 == 0`,
// `program_id(0) == 0`), or the pseudo-condition "the descriptor a parameter
// brings is remote". A Fact is an atom with a polarity. A state knows a set
// of facts (the branches taken on the path to it); a value carries the facts
// under which it got here (its assumptions); a use or a summary projects
// them onto the function's bool parameters (ParamFact).
//
//===----------------------------------------------------------------------===//
#ifndef DMALINT_FACTS_H
#define DMALINT_FACTS_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"
#include <cstdint>
#include <optional>
#include <tuple>

namespace clang {
class Expr;
}

namespace dmalint {

using AtomId = uint32_t;

/// An atom holding (or not) on a path.
struct Fact {
  AtomId Atom = 0;
  bool Holds = true;

  Fact opposite() const { return Fact{Atom, !Holds}; }
  friend bool operator==(const Fact &A, const Fact &B) {
    return A.Atom == B.Atom && A.Holds == B.Holds;
  }
  friend bool operator!=(const Fact &A, const Fact &B) { return !(A == B); }
  friend bool operator<(const Fact &A, const Fact &B) {
    return std::tie(A.Atom, A.Holds) < std::tie(B.Atom, B.Holds);
  }
};

/// A conjunction of facts: sorted by atom, at most one polarity per atom.
class FactSet {
public:
  FactSet() = default;
  FactSet(std::initializer_list<Fact> Facts);

  llvm::ArrayRef<Fact> facts() const { return Facts; }
  bool empty() const { return Facts.empty(); }
  size_t size() const { return Facts.size(); }
  auto begin() const { return Facts.begin(); }
  auto end() const { return Facts.end(); }

  /// The polarity of \p Atom, if known.
  std::optional<bool> lookup(AtomId Atom) const;
  /// Adds \p F; false when the set already holds the opposite (a contradiction).
  bool add(Fact F);
  /// Forgets what is known of \p Atom; true when something was.
  bool erase(AtomId Atom);
  /// Keeps the first \p N facts (the bounded fallback: forgetting an
  /// assumption only makes a value reach more paths).
  void truncate(size_t N) { Facts.truncate(std::min(N, Facts.size())); }

  /// Every fact of \p Weaker is in this set.
  bool implies(const FactSet &Weaker) const;
  /// The conjunction of \p A and \p B; false when they contradict.
  static bool conjoin(const FactSet &A, const FactSet &B, FactSet &Out);
  /// The facts both hold.
  static FactSet intersect(const FactSet &A, const FactSet &B);
  /// The facts of \p A that \p B does not hold.
  static FactSet minus(const FactSet &A, const FactSet &B);

  friend bool operator==(const FactSet &A, const FactSet &B) { return A.Facts == B.Facts; }
  friend bool operator!=(const FactSet &A, const FactSet &B) { return !(A == B); }
  friend bool operator<(const FactSet &A, const FactSet &B) {
    return std::lexicographical_compare(A.Facts.begin(), A.Facts.end(), B.Facts.begin(),
                                        B.Facts.end());
  }

private:
  llvm::SmallVector<Fact, 2> Facts;
};

/// A bool parameter of the function, by index, with the value a path gives
/// it: `if (wait) d.wait_send();` is reached only with wait == true. With
/// Equals, an integer or enum parameter compared with a constant instead:
/// `param == Equals` holds or not (`if (a == Action::kStart)`, a `case` of
/// `switch (a)`), as a call that passes a constant decides.
struct ParamFact {
  unsigned Param = 0;
  bool Holds = true;
  std::optional<int64_t> Equals;
  /// `Param == EqualsParam` of two integer or enum parameters (`peer ==
  /// me`). Only in what a summary says of the constructions it returns
  /// (SummaryValues::BuiltWhen), where a call compares its two arguments.
  std::optional<unsigned> EqualsParam;
  /// A lambda's condition over what it captures from the function it is
  /// written in, and its parameters (`peer == me` with `me` captured,
  /// `remote` captured): \c Condition evaluates to Holds (Param unused).
  /// Only in BuiltWhen, where a call rewrites it in its own terms.
  const clang::Expr *Condition = nullptr;
  friend bool operator==(const ParamFact &A, const ParamFact &B) {
    return A.Param == B.Param && A.Holds == B.Holds && A.Equals == B.Equals &&
           A.EqualsParam == B.EqualsParam && A.Condition == B.Condition;
  }
};
using ParamFacts = llvm::SmallVector<ParamFact, 1>;

/// Whether no call can make both \p A and \p B hold: one bool parameter
/// with two values, `p == v` and `p != v`, or `p == v` and `p == w`.
inline bool contradicts(const ParamFact &A, const ParamFact &B) {
  if (A.Condition || B.Condition)
    return A.Condition == B.Condition && A.Holds != B.Holds;
  if (A.EqualsParam || B.EqualsParam)
    return A.Param == B.Param && A.EqualsParam == B.EqualsParam && A.Holds != B.Holds;
  if (A.Param != B.Param || A.Equals.has_value() != B.Equals.has_value())
    return false;
  if (!A.Equals || *A.Equals == *B.Equals)
    return A.Holds != B.Holds;
  return A.Holds && B.Holds;
}

/// Keeps in \p Into only the facts \p Other also has: what holds on both of
/// two ways to one place.
inline void keepCommonFacts(ParamFacts &Into, const ParamFacts &Other) {
  llvm::erase_if(Into, [&](const ParamFact &F) { return !llvm::is_contained(Other, F); });
}

/// A member function's fact about a bool or enum member of its object that
/// it never writes (`if (remote_) d_.wait_send();`, `if (kind_ ==
/// Kind::kRemote)`): `Field == Equals` holds or not. A call decides it from
/// what the caller knows of its object's member (a flag, Flags.cpp).
struct ObjectFact {
  const void *Field = nullptr; ///< The clang::FieldDecl.
  int64_t Equals = 1;
  bool Holds = true;
  friend bool operator==(const ObjectFact &A, const ObjectFact &B) {
    return A.Field == B.Field && A.Equals == B.Equals && A.Holds == B.Holds;
  }
};
using ObjectFacts = llvm::SmallVector<ObjectFact, 1>;

inline void keepCommonFacts(ObjectFacts &Into, const ObjectFacts &Other) {
  llvm::erase_if(Into, [&](const ObjectFact &F) { return !llvm::is_contained(Other, F); });
}

} // namespace dmalint

#endif // DMALINT_FACTS_H
