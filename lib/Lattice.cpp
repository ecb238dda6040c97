//===- Lattice.cpp - Abstract values of DMA descriptors -------------------===//
#include "dmalint/Lattice.h"
#include <algorithm>

namespace dmalint {

bool implies(const Assumptions &Stronger, const Assumptions &Weaker) {
  return std::includes(Stronger.begin(), Stronger.end(), Weaker.begin(), Weaker.end());
}

bool conjoin(const Assumptions &A, const Assumptions &B, Assumptions &Out) {
  Out.clear();
  auto I = A.begin(), J = B.begin();
  while (I != A.end() || J != B.end()) {
    if (J == B.end() || (I != A.end() && I->first < J->first)) {
      Out.push_back(*I++);
    } else if (I == A.end() || J->first < I->first) {
      Out.push_back(*J++);
    } else {
      if (I->second != J->second)
        return false;
      Out.push_back(*I++);
      ++J;
    }
  }
  return true;
}

ValueSet ValueSet::of(Value V) {
  ValueSet S;
  S.Values.push_back(std::move(V));
  return S;
}

void ValueSet::normalize() {
  std::sort(Values.begin(), Values.end());
  Values.erase(std::unique(Values.begin(), Values.end()), Values.end());
  // Merge pairs that differ only in the polarity of one atom (v{c} and
  // v{!c} is v), and drop values implied by a weaker one of the same origin,
  // until nothing changes. Sets are small; quadratic is fine.
  bool Changed = true;
  while (Changed) {
    Changed = false;
    for (size_t I = 0; I < Values.size() && !Changed; ++I) {
      for (size_t J = 0; J < Values.size() && !Changed; ++J) {
        if (I == J || Values[I].Origin != Values[J].Origin)
          continue;
        const Assumptions &A = Values[I].Assumed, &B = Values[J].Assumed;
        if (implies(B, A)) { // J is the stronger: I covers it.
          Values.erase(Values.begin() + J);
          Changed = true;
          break;
        }
        if (A.size() != B.size())
          continue;
        unsigned Differences = 0;
        size_t At = 0;
        for (size_t K = 0; K < A.size() && Differences < 2; ++K) {
          if (A[K].first != B[K].first) {
            Differences = 2;
          } else if (A[K].second != B[K].second) {
            ++Differences;
            At = K;
          }
        }
        if (Differences == 1) {
          Values[I].Assumed.erase(Values[I].Assumed.begin() + At);
          Values.erase(Values.begin() + J);
          Changed = true;
        }
      }
    }
    if (Changed) {
      std::sort(Values.begin(), Values.end());
      Values.erase(std::unique(Values.begin(), Values.end()), Values.end());
    }
  }
}

void ValueSet::unionWith(const ValueSet &Other) {
  if (Other.Values.empty())
    return;
  Values.insert(Values.end(), Other.Values.begin(), Other.Values.end());
  normalize();
}

void ValueSet::assume(const Assumptions &Extra) {
  if (Extra.empty())
    return;
  std::vector<Value> Out;
  Assumptions Joined;
  for (const Value &V : Values)
    if (conjoin(V.Assumed, Extra, Joined))
      Out.push_back(Value{V.Origin, Joined});
  Values = std::move(Out);
  normalize();
}

void ValueSet::restrict(AtomId Atom, bool Holds) {
  std::vector<Value> Out;
  for (Value &V : Values) {
    auto It = std::find_if(V.Assumed.begin(), V.Assumed.end(),
                           [&](auto &P) { return P.first == Atom; });
    if (It != V.Assumed.end()) {
      if (It->second != Holds)
        continue;
      V.Assumed.erase(It);
    }
    Out.push_back(std::move(V));
  }
  Values = std::move(Out);
  normalize();
}

void ValueSet::forget(AtomId Atom) {
  bool Any = false;
  for (Value &V : Values) {
    auto It = std::find_if(V.Assumed.begin(), V.Assumed.end(),
                           [&](auto &P) { return P.first == Atom; });
    if (It != V.Assumed.end()) {
      V.Assumed.erase(It);
      Any = true;
    }
  }
  if (Any)
    normalize();
}

void ValueSet::dropAssumptions() {
  for (Value &V : Values)
    V.Assumed.clear();
  normalize();
}

} // namespace dmalint
