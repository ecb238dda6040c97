//===- Values.cpp - Facts and abstract values of DMA descriptors ----------===//
#include "dmalint/Values.h"
#include <algorithm>

namespace dmalint {

// ----------------------------------------------------------------- facts ---

FactSet::FactSet(std::initializer_list<Fact> List) {
  for (const Fact &F : List)
    add(F);
}

std::optional<bool> FactSet::lookup(AtomId Atom) const {
  auto It = llvm::lower_bound(Facts, Fact{Atom, false});
  if (It != Facts.end() && It->Atom == Atom)
    return It->Holds;
  return std::nullopt;
}

bool FactSet::add(Fact F) {
  auto It = llvm::lower_bound(Facts, Fact{F.Atom, false});
  if (It != Facts.end() && It->Atom == F.Atom)
    return It->Holds == F.Holds;
  Facts.insert(It, F);
  return true;
}

bool FactSet::erase(AtomId Atom) {
  auto It = llvm::lower_bound(Facts, Fact{Atom, false});
  if (It == Facts.end() || It->Atom != Atom)
    return false;
  Facts.erase(It);
  return true;
}

bool FactSet::implies(const FactSet &Weaker) const {
  return std::includes(Facts.begin(), Facts.end(), Weaker.Facts.begin(), Weaker.Facts.end());
}

bool FactSet::conjoin(const FactSet &A, const FactSet &B, FactSet &Out) {
  Out.Facts.clear();
  auto I = A.Facts.begin(), J = B.Facts.begin();
  while (I != A.Facts.end() || J != B.Facts.end()) {
    if (J == B.Facts.end() || (I != A.Facts.end() && I->Atom < J->Atom)) {
      Out.Facts.push_back(*I++);
    } else if (I == A.Facts.end() || J->Atom < I->Atom) {
      Out.Facts.push_back(*J++);
    } else {
      if (I->Holds != J->Holds)
        return false;
      Out.Facts.push_back(*I++);
      ++J;
    }
  }
  return true;
}

FactSet FactSet::intersect(const FactSet &A, const FactSet &B) {
  FactSet Out;
  std::set_intersection(A.Facts.begin(), A.Facts.end(), B.Facts.begin(), B.Facts.end(),
                        std::back_inserter(Out.Facts));
  return Out;
}

FactSet FactSet::minus(const FactSet &A, const FactSet &B) {
  FactSet Out;
  std::set_difference(A.Facts.begin(), A.Facts.end(), B.Facts.begin(), B.Facts.end(),
                      std::back_inserter(Out.Facts));
  return Out;
}

// ---------------------------------------------------------------- values ---

ValueSet ValueSet::of(Value V) {
  ValueSet S;
  S.Values.push_back(std::move(V));
  return S;
}

llvm::SmallVector<OriginId, 4> ValueSet::origins() const {
  llvm::SmallVector<OriginId, 4> Result;
  for (const Value &V : Values)
    if (Result.empty() || Result.back() != V.Origin)
      Result.push_back(V.Origin);
  return Result;
}

bool ValueSet::hasOrigin(OriginId Origin) const {
  auto It = llvm::lower_bound(Values, Value{Origin, {}});
  return It != Values.end() && It->Origin == Origin;
}

/// Merges the values of one origin, [First, Last): a value implied by a
/// weaker one goes, and two that differ only in the polarity of one atom
/// become one without it (v{c} and v{!c} is v), until nothing changes.
/// Values of different origins never interact, so the work is quadratic in
/// the values of one origin, not of the set.
static void mergeOneOrigin(std::vector<Value> &Group) {
  for (bool Changed = true; Changed && Group.size() > 1;) {
    Changed = false;
    for (size_t I = 0; I < Group.size() && !Changed; ++I) {
      for (size_t J = 0; J < Group.size() && !Changed; ++J) {
        if (I == J)
          continue;
        const FactSet &A = Group[I].Assumed, &B = Group[J].Assumed;
        if (B.implies(A)) { // J is the stronger: I covers it.
          Group.erase(Group.begin() + J);
          Changed = true;
          break;
        }
        if (A.size() != B.size())
          continue;
        unsigned Differences = 0;
        size_t At = 0;
        for (size_t K = 0; K < A.size() && Differences < 2; ++K) {
          const Fact &X = A.facts()[K], &Y = B.facts()[K];
          if (X.Atom != Y.Atom) {
            Differences = 2;
          } else if (X.Holds != Y.Holds) {
            ++Differences;
            At = K;
          }
        }
        if (Differences == 1) {
          Group[I].Assumed.erase(A.facts()[At].Atom);
          Group.erase(Group.begin() + J);
          Changed = true;
        }
      }
    }
  }
  std::sort(Group.begin(), Group.end());
}

void ValueSet::normalize() {
  std::sort(Values.begin(), Values.end());
  Values.erase(std::unique(Values.begin(), Values.end()), Values.end());
  std::vector<Value> Out, Group;
  Out.reserve(Values.size());
  for (size_t I = 0; I < Values.size();) {
    size_t End = I + 1;
    while (End < Values.size() && Values[End].Origin == Values[I].Origin)
      ++End;
    if (End - I == 1) {
      Out.push_back(std::move(Values[I]));
    } else {
      Group.assign(std::make_move_iterator(Values.begin() + I),
                   std::make_move_iterator(Values.begin() + End));
      mergeOneOrigin(Group);
      for (Value &V : Group)
        Out.push_back(std::move(V));
    }
    I = End;
  }
  Values = std::move(Out);
}

void ValueSet::unionWith(const ValueSet &Other) {
  if (Other.Values.empty())
    return;
  if (Values.empty()) {
    Values = Other.Values;
    return;
  }
  Values.insert(Values.end(), Other.Values.begin(), Other.Values.end());
  normalize();
}

ValueSet ValueSet::merged(const ValueSet &A, const FactSet &TagA, const ValueSet &B,
                          const FactSet &TagB) {
  ValueSet Common, OnlyA, OnlyB;
  // Both are sorted: one pass.
  auto I = A.Values.begin(), J = B.Values.begin();
  while (I != A.Values.end() || J != B.Values.end()) {
    if (J == B.Values.end() || (I != A.Values.end() && *I < *J))
      OnlyA.Values.push_back(*I++);
    else if (I == A.Values.end() || *J < *I)
      OnlyB.Values.push_back(*J++);
    else {
      Common.Values.push_back(*I++);
      ++J;
    }
  }
  OnlyA.assume(TagA);
  OnlyB.assume(TagB);
  Common.unionWith(OnlyA);
  Common.unionWith(OnlyB);
  return Common;
}

void ValueSet::assume(const FactSet &Extra) {
  if (Extra.empty())
    return;
  std::vector<Value> Out;
  FactSet Joined;
  for (const Value &V : Values)
    if (FactSet::conjoin(V.Assumed, Extra, Joined))
      Out.push_back(Value{V.Origin, Joined});
  Values = std::move(Out);
  normalize();
}

void ValueSet::restrict(Fact F, llvm::SmallVectorImpl<OriginId> *Gone) {
  if (llvm::none_of(Values, [&](const Value &V) { return V.Assumed.lookup(F.Atom); }))
    return;
  std::vector<Value> Out;
  bool Changed = false;
  for (size_t I = 0; I < Values.size(); ++I) {
    Value &V = Values[I];
    std::optional<bool> Known = V.Assumed.lookup(F.Atom);
    if (Known) {
      Changed = true;
      if (*Known != F.Holds) {
        // The last value of its origin to go (values of one origin are adjacent).
        bool Kept = (!Out.empty() && Out.back().Origin == V.Origin);
        for (size_t J = I + 1; !Kept && J < Values.size() && Values[J].Origin == V.Origin; ++J)
          Kept = Values[J].Assumed.lookup(F.Atom) != std::optional(!F.Holds);
        if (Gone && !Kept && !llvm::is_contained(*Gone, V.Origin))
          Gone->push_back(V.Origin);
        continue;
      }
      V.Assumed.erase(F.Atom);
    }
    Out.push_back(std::move(V));
  }
  (void)Changed;
  Values = std::move(Out);
  normalize();
}

void ValueSet::forget(AtomId Atom) {
  bool Any = false;
  for (Value &V : Values)
    Any |= V.Assumed.erase(Atom);
  if (Any)
    normalize();
}

void ValueSet::renameAtom(AtomId From, AtomId To) {
  bool Any = false;
  for (Value &V : Values)
    if (std::optional<bool> Holds = V.Assumed.lookup(From)) {
      V.Assumed.erase(From);
      V.Assumed.add(Fact{To, *Holds});
      Any = true;
    }
  if (Any)
    normalize();
}

void ValueSet::translateAtom(AtomId From, AtomId To, bool Flip) {
  if (llvm::none_of(Values, [&](const Value &V) { return V.Assumed.lookup(From); }))
    return;
  std::vector<Value> Out;
  for (Value &V : Values) {
    if (std::optional<bool> Holds = V.Assumed.lookup(From)) {
      V.Assumed.erase(From);
      if (!V.Assumed.add(Fact{To, *Holds != Flip}))
        continue; // It assumed the opposite already: on no path.
    }
    Out.push_back(std::move(V));
  }
  Values = std::move(Out);
  normalize();
}

void ValueSet::dropAssumptions(size_t Keep) {
  for (Value &V : Values)
    V.Assumed.truncate(Keep);
  normalize();
}

} // namespace dmalint
