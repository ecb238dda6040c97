//===- SymbolicCount.h - Counts that may name values the code reads -*- C++ -*-===//
//
// How often a barrier is signalled or waited is often not a number but an
// expression of what the kernel reads: `axis_size("x") - 1` signals, a wait
// for `n`. A SymbolicCount is a polynomial with integer coefficients in such
// atoms, so that `n - 1` against `n` is provably one less, and `n` against
// `2` is unknown. Atoms are interned in an AtomTable, which also knows the
// least value each may take (an axis has at least one device).
//
//===----------------------------------------------------------------------===//
#ifndef DMALINT_SYMBOLICCOUNT_H
#define DMALINT_SYMBOLICCOUNT_H

#include "llvm/ADT/SmallVector.h"
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace dmalint {

/// A polynomial in atoms (AtomTable ids) with integer coefficients.
class SymbolicCount {
public:
  /// A product of atoms, ids in ascending order (an atom may repeat); the
  /// empty product is the constant term.
  using Monomial = llvm::SmallVector<unsigned, 2>;

  SymbolicCount() = default;
  static SymbolicCount constant(int64_t Value);
  static SymbolicCount atom(unsigned Id);

  SymbolicCount operator+(const SymbolicCount &Other) const;
  SymbolicCount operator-(const SymbolicCount &Other) const;
  SymbolicCount operator*(const SymbolicCount &Other) const;
  bool operator==(const SymbolicCount &Other) const { return Terms == Other.Terms; }
  bool operator!=(const SymbolicCount &Other) const { return !(*this == Other); }

  /// The value when no atom is left.
  std::optional<int64_t> asConstant() const;
  /// The atom when this is exactly that atom (coefficient 1, no constant).
  std::optional<unsigned> asAtom() const;
  /// `Coefficient * atom + Constant` with Coefficient != 0, when this is one.
  struct Linear {
    unsigned Atom;
    int64_t Coefficient;
    int64_t Constant;
  };
  std::optional<Linear> asLinear() const;

  /// Non-zero coefficients by monomial.
  const std::map<Monomial, int64_t> &terms() const { return Terms; }

private:
  void add(const Monomial &M, int64_t Coefficient);
  std::map<Monomial, int64_t> Terms;
};

/// The atoms of the counts of one function: what each is (a key that two
/// spellings of one value share: the axis for an axis size, the variable for
/// a parameter), how to write it in a message, and its least value if known.
class AtomTable {
public:
  /// The id of the atom with \p Key, made with \p Spelling if new.
  unsigned intern(const std::string &Key, const std::string &Spelling);
  /// Writes the atom as \p Spelling from now on (a variable's name reads
  /// better than the call that initialised it).
  void respell(unsigned Id, const std::string &Spelling) { Atoms[Id].Spelling = Spelling; }
  /// The atom takes no value below \p Bound (the largest bound given wins).
  void boundBelow(unsigned Id, int64_t Bound);
  std::optional<int64_t> lowerBound(unsigned Id) const { return Atoms[Id].LowerBound; }
  const std::string &spelling(unsigned Id) const { return Atoms[Id].Spelling; }
  unsigned size() const { return Atoms.size(); }

  /// The least value of \p C over the atoms' ranges, when every non-constant
  /// coefficient is positive and the atoms of its monomial are bounded below
  /// by non-negative numbers (then the least value is at those bounds).
  std::optional<int64_t> leastValue(const SymbolicCount &C) const;
  /// The greatest value, when every non-constant coefficient is negative and
  /// its monomial bounded below by non-negative atoms.
  std::optional<int64_t> greatestValue(const SymbolicCount &C) const;

  /// \p C as C++ would write it: `2 * n - 1`, `axis_size("x") - 1`, `0`.
  std::string str(const SymbolicCount &C) const;

private:
  struct Atom {
    std::string Key;
    std::string Spelling;
    std::optional<int64_t> LowerBound;
  };
  /// The least value of a monomial (a product of atoms each bounded below
  /// by a non-negative number).
  std::optional<int64_t> leastMonomial(const SymbolicCount::Monomial &M) const;
  std::vector<Atom> Atoms;
};

/// Whether a count is provably zero, positive, negative, or none of these.
enum class CountSign { Zero, Positive, Negative, Unknown };
CountSign signOf(const SymbolicCount &C, const AtomTable &Atoms);

} // namespace dmalint

#endif // DMALINT_SYMBOLICCOUNT_H
