//===- Lattice.h - Abstract values of DMA descriptors -----------*- C++ -*-===//
//
// A descriptor's abstract value at a program point is a set of Values. Each
// Value names an Origin (where and how the descriptor was built: local,
// remote, or unknown) and the Assumptions under which it reaches this point:
// the polarity of side-effect-free conditions ("atoms") on the path that
// carried it. Assumptions are what makes
//     auto d = r ? remote(...) : local(...);  if (r) d.wait_send();
// clean: the local Value carries r=false, and the branch drops it.
//
//===----------------------------------------------------------------------===//
#ifndef DMALINT_LATTICE_H
#define DMALINT_LATTICE_H

#include "llvm/ADT/SmallVector.h"
#include <cstdint>
#include <utility>
#include <vector>

namespace dmalint {

enum class Remoteness : uint8_t { Local, Remote, Unknown };

using OriginId = uint32_t;
using AtomId = uint32_t;

/// The origin every descriptor of unknown provenance shares (parameters,
/// results of functions the analysis cannot see). Never reported.
constexpr OriginId UnknownOrigin = 0;

/// A conjunction of atom polarities, sorted by atom.
using Assumptions = llvm::SmallVector<std::pair<AtomId, bool>, 2>;

struct Value {
  OriginId Origin = UnknownOrigin;
  Assumptions Assumed;

  friend bool operator==(const Value &A, const Value &B) {
    return A.Origin == B.Origin && A.Assumed == B.Assumed;
  }
  friend bool operator<(const Value &A, const Value &B) {
    if (A.Origin != B.Origin)
      return A.Origin < B.Origin;
    return A.Assumed < B.Assumed;
  }
};

/// A set of Values kept in a canonical form (sorted, no duplicates, no Value
/// implied by another), so that equal sets compare equal and the fixed point
/// is detected.
class ValueSet {
public:
  ValueSet() = default;
  static ValueSet of(Value V);

  const std::vector<Value> &values() const { return Values; }
  bool empty() const { return Values.empty(); }
  size_t size() const { return Values.size(); }

  /// Adds every Value of \p Other.
  void unionWith(const ValueSet &Other);
  /// Adds \p Extra to the assumptions of every Value (a value that already
  /// assumes the opposite of one of them is dropped: it cannot be on this path).
  void assume(const Assumptions &Extra);
  /// Drops Values that assume \p Atom has the opposite polarity of \p Holds,
  /// and removes the now-settled assumption from the rest.
  void restrict(AtomId Atom, bool Holds);
  /// Forgets everything assumed about \p Atom (its variables changed).
  void forget(AtomId Atom);
  /// Keeps only Values for which \p Keep is true.
  template <typename Pred> void filter(Pred Keep) {
    std::vector<Value> Kept;
    for (const Value &V : Values)
      if (Keep(V))
        Kept.push_back(V);
    Values = std::move(Kept);
  }
  /// Forgets all assumptions (the bounded fallback when a set grows too big).
  void dropAssumptions();

  friend bool operator==(const ValueSet &A, const ValueSet &B) {
    return A.Values == B.Values;
  }
  friend bool operator!=(const ValueSet &A, const ValueSet &B) { return !(A == B); }

private:
  void normalize();
  std::vector<Value> Values;
};

/// True when \p Weaker's assumptions are a subset of \p Stronger's.
bool implies(const Assumptions &Stronger, const Assumptions &Weaker);

/// The conjunction of two assumption sets; false when they contradict.
bool conjoin(const Assumptions &A, const Assumptions &B, Assumptions &Out);

} // namespace dmalint

#endif // DMALINT_LATTICE_H
