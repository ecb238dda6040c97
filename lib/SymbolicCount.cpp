//===- SymbolicCount.cpp - Counts that may name values the code reads -----===//
#include "dmalint/SymbolicCount.h"
#include "llvm/ADT/STLExtras.h"

namespace dmalint {

namespace {
/// Products saturate rather than wrap: a count that large is no count.
std::optional<int64_t> checkedProduct(int64_t A, int64_t B) {
  int64_t Out;
  if (__builtin_mul_overflow(A, B, &Out))
    return std::nullopt;
  return Out;
}
} // namespace

SymbolicCount SymbolicCount::constant(int64_t Value) {
  SymbolicCount C;
  C.add({}, Value);
  return C;
}

SymbolicCount SymbolicCount::atom(unsigned Id) {
  SymbolicCount C;
  C.add({Id}, 1);
  return C;
}

void SymbolicCount::add(const Monomial &M, int64_t Coefficient) {
  if (Coefficient == 0)
    return;
  auto [It, Inserted] = Terms.try_emplace(M, Coefficient);
  if (Inserted)
    return;
  It->second += Coefficient;
  if (It->second == 0)
    Terms.erase(It);
}

SymbolicCount SymbolicCount::operator+(const SymbolicCount &Other) const {
  SymbolicCount Out = *this;
  for (auto &[M, C] : Other.Terms)
    Out.add(M, C);
  return Out;
}

SymbolicCount SymbolicCount::operator-(const SymbolicCount &Other) const {
  SymbolicCount Out = *this;
  for (auto &[M, C] : Other.Terms)
    Out.add(M, -C);
  return Out;
}

SymbolicCount SymbolicCount::operator*(const SymbolicCount &Other) const {
  SymbolicCount Out;
  for (auto &[MA, CA] : Terms)
    for (auto &[MB, CB] : Other.Terms) {
      Monomial M = MA;
      M.append(MB.begin(), MB.end());
      llvm::sort(M);
      // An overflowing product is a count nobody writes; keep it visibly
      // unusable rather than wrapped.
      Out.add(M, checkedProduct(CA, CB).value_or(INT64_MAX / 2));
    }
  return Out;
}

std::optional<int64_t> SymbolicCount::asConstant() const {
  if (Terms.empty())
    return 0;
  if (Terms.size() == 1 && Terms.begin()->first.empty())
    return Terms.begin()->second;
  return std::nullopt;
}

std::optional<unsigned> SymbolicCount::asAtom() const {
  if (Terms.size() != 1)
    return std::nullopt;
  auto &[M, C] = *Terms.begin();
  if (M.size() != 1 || C != 1)
    return std::nullopt;
  return M.front();
}

std::optional<SymbolicCount::Linear> SymbolicCount::asLinear() const {
  std::optional<Linear> Out;
  int64_t Constant = 0;
  for (auto &[M, C] : Terms) {
    if (M.empty()) {
      Constant = C;
      continue;
    }
    if (M.size() != 1 || Out)
      return std::nullopt;
    Out = Linear{M.front(), C, 0};
  }
  if (Out)
    Out->Constant = Constant;
  return Out;
}

unsigned AtomTable::intern(const std::string &Key, const std::string &Spelling) {
  for (unsigned I = 0; I < Atoms.size(); ++I)
    if (Atoms[I].Key == Key)
      return I;
  Atoms.push_back({Key, Spelling, std::nullopt});
  return Atoms.size() - 1;
}

void AtomTable::boundBelow(unsigned Id, int64_t Bound) {
  std::optional<int64_t> &Current = Atoms[Id].LowerBound;
  if (!Current || *Current < Bound)
    Current = Bound;
}

std::optional<int64_t> AtomTable::leastMonomial(const SymbolicCount::Monomial &M) const {
  int64_t Least = 1;
  for (unsigned Id : M) {
    std::optional<int64_t> Bound = Atoms[Id].LowerBound;
    if (!Bound || *Bound < 0)
      return std::nullopt; // A product of signed values has no least value here.
    std::optional<int64_t> Product = checkedProduct(Least, *Bound);
    if (!Product)
      return std::nullopt;
    Least = *Product;
  }
  return Least;
}

std::optional<int64_t> AtomTable::leastValue(const SymbolicCount &C) const {
  int64_t Least = 0;
  for (auto &[M, Coefficient] : C.terms()) {
    if (M.empty()) {
      Least += Coefficient;
      continue;
    }
    // A growing term is least at its atoms' least values.
    std::optional<int64_t> Bound = leastMonomial(M);
    std::optional<int64_t> Term = Bound ? checkedProduct(*Bound, Coefficient) : std::nullopt;
    if (Coefficient < 0 || !Term)
      return std::nullopt;
    Least += *Term;
  }
  return Least;
}

std::optional<int64_t> AtomTable::greatestValue(const SymbolicCount &C) const {
  std::optional<int64_t> Least = leastValue(SymbolicCount() - C);
  if (!Least)
    return std::nullopt;
  return -*Least;
}

CountSign signOf(const SymbolicCount &C, const AtomTable &Atoms) {
  if (C.terms().empty())
    return CountSign::Zero;
  if (std::optional<int64_t> Least = Atoms.leastValue(C); Least && *Least > 0)
    return CountSign::Positive;
  if (std::optional<int64_t> Greatest = Atoms.greatestValue(C); Greatest && *Greatest < 0)
    return CountSign::Negative;
  return CountSign::Unknown;
}

std::string AtomTable::str(const SymbolicCount &C) const {
  if (C.terms().empty())
    return "0";
  // Highest degree first, the constant last: `2 * n - 1`.
  std::vector<std::pair<const SymbolicCount::Monomial *, int64_t>> Order;
  for (auto &[M, Coefficient] : C.terms())
    Order.push_back({&M, Coefficient});
  // std::map keeps monomials in order: a stable sort by degree is enough,
  // and an insertion sort of a few terms needs no temporary buffer.
  for (size_t I = 1; I < Order.size(); ++I)
    for (size_t J = I; J > 0 && Order[J - 1].first->size() < Order[J].first->size(); --J)
      std::swap(Order[J - 1], Order[J]);
  std::string Out;
  for (auto &[M, Coefficient] : Order) {
    int64_t Magnitude = Coefficient < 0 ? -Coefficient : Coefficient;
    if (Out.empty())
      Out = Coefficient < 0 ? "-" : "";
    else
      Out += Coefficient < 0 ? " - " : " + ";
    std::string Term;
    if (M->empty() || Magnitude != 1)
      Term = std::to_string(Magnitude);
    for (unsigned Id : *M)
      Term += (Term.empty() ? "" : " * ") + Atoms[Id].Spelling;
    Out += Term;
  }
  return Out;
}

} // namespace dmalint
