//===- State.cpp - The lattice element of the descriptor analysis, and its join ===//
#include "dmalint/State.h"
#include "llvm/ADT/STLExtras.h"
#include <algorithm>

namespace dmalint {

std::pair<std::map<Location, Cell>::iterator, std::map<Location, Cell>::iterator>
State::cellsBelow(const Location &Root) {
  auto First = Cells.lower_bound(Root);
  auto Last = First;
  while (Last != Cells.end() && Root.isPrefixOf(Last->first))
    ++Last;
  return {First, Last};
}

bool State::holdsNothingBelow(const Location &Root) const {
  for (auto It = Cells.lower_bound(Root); It != Cells.end() && Root.isPrefixOf(It->first); ++It)
    if (It->second.holds())
      return false;
  return true;
}

LifeMask State::lifeOf(OriginId Origin) const {
  auto It = llvm::lower_bound(Life, std::make_pair(Origin, LifeMask(0)));
  return It != Life.end() && It->first == Origin ? It->second : LifeMask(Idle);
}

void State::setLife(OriginId Origin, LifeMask Mask) {
  auto It = llvm::lower_bound(Life, std::make_pair(Origin, LifeMask(0)));
  bool Present = It != Life.end() && It->first == Origin;
  if (Mask == Idle) {
    if (Present)
      Life.erase(It);
  } else if (Present) {
    It->second = Mask;
  } else {
    Life.insert(It, {Origin, Mask});
  }
}

size_t State::size() const {
  size_t N = Life.size() + Pending.size();
  for (const auto &[L, C] : Cells)
    N += 1 + C.Values.size() + C.Targets.size();
  return N;
}

State joinStates(const State &A, const State &B) {
  if (!A.Reachable)
    return B;
  if (!B.Reachable)
    return A;
  State R;
  R.Facts = FactSet::intersect(A.Facts, B.Facts);
  FactSet TagA = FactSet::minus(A.Facts, R.Facts), TagB = FactSet::minus(B.Facts, R.Facts);
  // Both maps are sorted: one merge pass.
  auto Tagged = [](const Cell &C, const FactSet &Tag) {
    Cell T = C;
    T.Values.assume(Tag);
    return T;
  };
  auto I = A.Cells.begin(), J = B.Cells.begin();
  auto Hint = R.Cells.end();
  // A flag known on one side only stays where the other side holds nothing
  // of its object (an element one path did not add); where it holds the
  // object, with no flag, it is unknown: no cell.
  auto NoObject = [](const State &Other, const Location &Flag) {
    Location Object = Flag;
    --Object.Path.Depth;
    return Other.holdsNothingBelow(Object);
  };
  // A view of the last element (PathStep::Last) one side does not have:
  // which element is last there is not known, so the view goes.
  llvm::SmallVector<Location, 1> OneSidedLast;
  auto NoteLast = [&](const Location &L) {
    if (L.Path.Depth == 0 || !L.Path.Steps[0].isLastElement())
      return;
    Location View = L;
    View.Path.Depth = 1;
    if (OneSidedLast.empty() || OneSidedLast.back() != View)
      OneSidedLast.push_back(View);
  };
  while (I != A.Cells.end() || J != B.Cells.end()) {
    if (J == B.Cells.end() || (I != A.Cells.end() && I->first < J->first)) {
      NoteLast(I->first);
      if (!I->second.Flag || NoObject(B, I->first))
        Hint = R.Cells.emplace_hint(Hint, I->first, Tagged(I->second, TagA));
      ++I;
    } else if (I == A.Cells.end() || J->first < I->first) {
      NoteLast(J->first);
      if (!J->second.Flag || NoObject(A, J->first))
        Hint = R.Cells.emplace_hint(Hint, J->first, Tagged(J->second, TagB));
      ++J;
    } else if (I->second.Flag || J->second.Flag) {
      Cell C = I->second;
      KnownFlag F = C.flag();
      if (mergeFlags(F, J->second.flag())) {
        C.setFlag(F);
        Hint = R.Cells.emplace_hint(Hint, I->first, std::move(C));
      }
      ++I;
      ++J;
    } else {
      Cell C = I->second;
      if (!(I->second == J->second)) {
        C.Values = ValueSet::merged(I->second.Values, TagA, J->second.Values, TagB);
        for (const Location &L : J->second.Targets)
          addLocation(C.Targets, L);
      }
      Hint = R.Cells.emplace_hint(Hint, I->first, std::move(C));
      ++I;
      ++J;
    }
  }
  for (const Location &View : OneSidedLast) {
    auto [First, Last] = R.cellsBelow(View);
    R.Cells.erase(First, Last);
  }
  if (A.Guards == B.Guards) {
    R.Guards = A.Guards;
  } else {
    for (const auto &[Var, G] : A.Guards) {
      auto It = B.Guards.find(Var);
      if (It != B.Guards.end() && It->second == G)
        R.Guards.emplace(Var, G);
    }
  }
  // An index known on both sides is one of either's.
  if (A.Indices == B.Indices) {
    R.Indices = A.Indices;
  } else {
    for (const auto &[Var, Known] : A.Indices) {
      auto It = B.Indices.find(Var);
      if (It == B.Indices.end())
        continue;
      llvm::SmallVector<int32_t, 2> Either = Known;
      for (int32_t I : It->second)
        if (!llvm::is_contained(Either, I))
          Either.push_back(I);
      llvm::sort(Either);
      R.Indices.emplace(Var, std::move(Either));
    }
  }
  // An origin absent on one side is idle there. The lifecycles of a loop's
  // back edge and its entry are mostly the same: copy those whole.
  if (A.Life == B.Life) {
    R.Life = A.Life;
  } else {
    R.Life.reserve(std::max(A.Life.size(), B.Life.size()));
    auto L = A.Life.begin(), M = B.Life.begin();
    while (L != A.Life.end() || M != B.Life.end()) {
      if (M == B.Life.end() || (L != A.Life.end() && L->first < M->first)) {
        R.Life.push_back({L->first, LifeMask(L->second | Idle)});
        ++L;
      } else if (L == A.Life.end() || M->first < L->first) {
        R.Life.push_back({M->first, LifeMask(M->second | Idle)});
        ++M;
      } else {
        R.Life.push_back({L->first, LifeMask(L->second | M->second)});
        ++L;
        ++M;
      }
    }
  }
  // Received on every path: on both sides.
  if (A.Received == B.Received)
    R.Received = A.Received;
  else
    std::set_intersection(A.Received.begin(), A.Received.end(), B.Received.begin(),
                          B.Received.end(), std::back_inserter(R.Received));
  if (A.Pending == B.Pending) {
    R.Pending = A.Pending;
  } else {
    R.Pending.reserve(std::max(A.Pending.size(), B.Pending.size()));
    std::set_union(A.Pending.begin(), A.Pending.end(), B.Pending.begin(), B.Pending.end(),
                   std::back_inserter(R.Pending));
  }
  return R;
}

} // namespace dmalint
