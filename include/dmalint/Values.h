//===- Values.h - Abstract values of DMA descriptors ------------*- C++ -*-===//
//
// A descriptor's abstract value at a program point is a set of Values. Each
// Value names an Origin (where and how the descriptor was built: local,
// remote, or unknown) and the facts it assumes: the polarity of atoms on the
// path that carried it (Facts.h). Assumptions are what makes
//     auto d = r ? remote(...) : local(...);  if (r) d.wait_send();
// clean: the local Value assumes r=false, and the branch drops it.
//
//===----------------------------------------------------------------------===//
#ifndef DMALINT_VALUES_H
#define DMALINT_VALUES_H

#include "dmalint/Facts.h"
#include <cstdint>
#include <vector>

namespace dmalint {

enum class Remoteness : uint8_t { Local, Remote, Unknown };

using OriginId = uint32_t;

/// The origin every descriptor of unknown provenance shares (results of
/// functions the analysis cannot see, what an opaque call may have left).
/// Never reported.
constexpr OriginId UnknownOrigin = 0;

struct Value {
  OriginId Origin = UnknownOrigin;
  FactSet Assumed;

  friend bool operator==(const Value &A, const Value &B) {
    return A.Origin == B.Origin && A.Assumed == B.Assumed;
  }
  friend bool operator<(const Value &A, const Value &B) {
    if (A.Origin != B.Origin)
      return A.Origin < B.Origin;
    return A.Assumed < B.Assumed;
  }
};

/// A set of Values in a canonical form (sorted, no duplicates, no Value
/// implied by another of the same origin), so that equal sets compare equal
/// and the fixed point is detected.
class ValueSet {
public:
  ValueSet() = default;
  static ValueSet of(Value V);
  static ValueSet of(OriginId Origin) { return of(Value{Origin, {}}); }

  const std::vector<Value> &values() const { return Values; }
  bool empty() const { return Values.empty(); }
  size_t size() const { return Values.size(); }
  /// The distinct origins, in order.
  llvm::SmallVector<OriginId, 4> origins() const;
  bool hasOrigin(OriginId Origin) const;

  /// Adds every Value of \p Other.
  void unionWith(const ValueSet &Other);
  /// What a location holds where two paths meet, \p A on the one that knew
  /// \p TagA besides what both knew and \p B on the other: a Value both
  /// hold as it is (it is there on every path into the merge, so tagging it
  /// with either side's facts would say nothing), the others tagged with
  /// their side's facts.
  static ValueSet merged(const ValueSet &A, const FactSet &TagA, const ValueSet &B,
                         const FactSet &TagB);
  /// Adds \p Extra to the assumptions of every Value (a value that already
  /// assumes the opposite of one of them is dropped: it cannot be on this path).
  void assume(const FactSet &Extra);
  /// Drops Values that assume the opposite of \p F, and removes the
  /// now-settled assumption from the rest. Origins that go entirely are
  /// added to \p Gone.
  void restrict(Fact F, llvm::SmallVectorImpl<OriginId> *Gone = nullptr);
  /// Forgets everything assumed about \p Atom (its variables changed).
  void forget(AtomId Atom);
  /// Makes what each Value assumes of \p From an assumption of \p To,
  /// which no Value may mention yet (Analyzer::invalidateVar).
  void renameAtom(AtomId From, AtomId To);
  /// Makes what each Value assumes of \p From an assumption of \p To (its
  /// negation where \p Flip), which some may mention already: a Value that
  /// assumes the opposite is on no path and goes (AppendIndices.cpp).
  void translateAtom(AtomId From, AtomId To, bool Flip);
  /// Keeps only Values for which \p Keep is true.
  template <typename Pred> void filter(Pred Keep) {
    std::vector<Value> Kept;
    for (const Value &V : Values)
      if (Keep(V))
        Kept.push_back(V);
    Values = std::move(Kept);
  }
  /// Replaces each Value's origin by \p Map(origin) (the bounded fallback
  /// that folds many origins into one).
  template <typename Fn> void remap(Fn Map) {
    for (Value &V : Values)
      V.Origin = Map(V.Origin);
    normalize();
  }
  /// Forgets all assumptions, or those beyond the first \p Keep of each
  /// value (the bounded fallback when a set grows too big).
  void dropAssumptions(size_t Keep = 0);

  friend bool operator==(const ValueSet &A, const ValueSet &B) {
    return A.Values == B.Values;
  }
  friend bool operator!=(const ValueSet &A, const ValueSet &B) { return !(A == B); }

private:
  void normalize();
  std::vector<Value> Values;
};

} // namespace dmalint

#endif // DMALINT_VALUES_H
