//===- Location.cpp - Abstract locations: bounded access paths ------------===//
#include "dmalint/Location.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/Expr.h"
#include "llvm/ADT/STLExtras.h"

namespace dmalint {

bool AccessPath::append(llvm::ArrayRef<PathStep> Tail) {
  if (Depth + Tail.size() > MaxPathDepth)
    return false;
  for (const PathStep &S : Tail)
    Steps[Depth++] = S;
  return true;
}

Location Location::child(PathStep Step) const { return child(llvm::ArrayRef(Step)); }

Location Location::child(llvm::ArrayRef<PathStep> Tail) const {
  if (isUnknown())
    return *this;
  Location L = *this;
  if (!L.Path.append(Tail))
    return unknown();
  return L;
}

bool Location::isPrefixOf(const Location &Other) const {
  return Kind == Other.Kind && Root == Other.Root && Path.Depth <= Other.Path.Depth &&
         std::equal(Path.steps().begin(), Path.steps().end(), Other.Path.steps().begin());
}

bool Location::isSingle() const {
  return !isUnknown() && llvm::none_of(Path.steps(), [](const PathStep &S) {
    return S.K == PathStep::Element && S.Index < 0;
  });
}

unsigned Location::anyElementSteps(unsigned *Last) const {
  unsigned Count = 0;
  for (unsigned I = 0; I < Path.Depth; ++I)
    if (Path.Steps[I].isAnyElement()) {
      ++Count;
      if (Last)
        *Last = I;
    }
  return Count;
}

Location Location::weakTarget() const {
  Location L = *this;
  for (unsigned I = 0; I < L.Path.Depth; ++I)
    if (L.Path.Steps[I].isAnyElement())
      L.Path.Steps[I].Index = PathStep::Summary;
  return L;
}

bool Location::hasAnyElement() const {
  return llvm::any_of(Path.steps(), [](const PathStep &S) { return S.isAnyElement(); });
}

/// One step of a query against one step of a stored location.
static bool compatible(const PathStep &Query, const PathStep &Stored) {
  if (Query == Stored)
    return true;
  if (Query.K != PathStep::Element || Stored.K != PathStep::Element)
    return false;
  // Every element (but the second view of the last, which back() alone
  // reads); or element n, which an unknown-index write may have set.
  return (Query.Index == PathStep::Any && Stored.Index != PathStep::Last) ||
         (Query.Index >= 0 && Stored.Index == PathStep::Summary);
}

bool Location::mayAlias(const Location &Stored) const {
  if (Kind != Stored.Kind || Root != Stored.Root || Stored.Path.Depth < Path.Depth)
    return false;
  for (unsigned I = 0; I < Path.Depth; ++I)
    if (!compatible(Path.Steps[I], Stored.Path.Steps[I]))
      return false;
  return true;
}

AccessPath Location::suffixOf(const Location &Other) const {
  AccessPath Tail;
  Tail.append(Other.Path.steps().drop_front(std::min<size_t>(Path.Depth, Other.Path.Depth)));
  return Tail;
}

std::string Location::str() const {
  std::string S;
  switch (Kind) {
  case Variable:
    S = static_cast<const clang::NamedDecl *>(Root)->getNameAsString();
    break;
  case Heap:
    S = "new@" + std::to_string(reinterpret_cast<uintptr_t>(Root) % 100000);
    break;
  case Object:
    S = "*object";
    break;
  case Scratch:
    S = "scratch" + std::to_string(reinterpret_cast<uintptr_t>(Root));
    break;
  case Unknown:
    return "?";
  }
  for (const PathStep &Step : Path.steps()) {
    switch (Step.K) {
    case PathStep::Field:
      S += "." + Step.FieldD->getNameAsString();
      break;
    case PathStep::Element:
      S += Step.Index == PathStep::Any       ? "[*]"
           : Step.Index == PathStep::Summary ? "[?]"
           : Step.Index == PathStep::Last    ? "[last]"
                                             : "[" + std::to_string(Step.Index) + "]";
      break;
    case PathStep::Part:
      S += "<" + std::to_string(Step.Index) + ">";
      break;
    case PathStep::Size:
      S += "#" + std::to_string(Step.Index);
      break;
    }
  }
  return S;
}

void addLocation(LocationList &List, const Location &L) {
  if (!llvm::is_contained(List, L))
    List.push_back(L);
}

bool hasUnknown(const LocationList &List) {
  return llvm::any_of(List, [](const Location &L) { return L.isUnknown(); });
}

} // namespace dmalint
