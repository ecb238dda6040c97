//===- Location.h - Abstract locations: bounded access paths ----*- C++ -*-===//
//
// Where a descriptor can live, as the analysis names it: a root (a variable,
// the object a `new` or `make_unique` built, or the object a member function
// or a pointer parameter works on) and a path of at most MaxPathDepth steps
// below it: a field, an element of an array or container (by constant index
// where the index is a constant, else the one summary of the elements whose
// index is not known), or a part of a tuple or variant. `halves[1].stage` is
// Variable(halves) / Element(1) / Field(stage).
//
// Locations sort by root, then step by step with a prefix before its
// extensions, so everything below one location is one contiguous range of
// a state's map.
//
//===----------------------------------------------------------------------===//
#ifndef DMALINT_LOCATION_H
#define DMALINT_LOCATION_H

#include "clang/AST/Decl.h"
#include "llvm/ADT/SmallVector.h"
#include <array>
#include <cstdint>
#include <string>
#include <tuple>

namespace dmalint {

/// The deepest access path the model follows; a deeper one is unknown.
constexpr unsigned MaxPathDepth = 4;
/// Constant indices up to this are locations of their own; beyond, the summary.
constexpr int32_t MaxTrackedIndex = 16;

struct PathStep {
  /// Size: not a place where a descriptor lives but a mark below a local
  /// std::vector or std::deque whose number of elements is known (Index),
  /// so push_back knows the index it appends at (Analyzer::knownSize).
  enum Kind : uint8_t { Field, Element, Part, Size };
  /// Element indices that are not constants.
  static constexpr int32_t Summary = -1; ///< The elements written at unknown indices.
  static constexpr int32_t Any = -2;     ///< In a query or a pointer: every element.
  /// The element push_back or emplace_back added last to a local sequence
  /// whose size is not known (SequenceSizes.cpp): a second view of an
  /// element the summary holds too, read only by back(). No query of every
  /// element (Any) sees it, and no pointer or reference designates it.
  static constexpr int32_t Last = -3;

  Kind K = Field;
  int32_t Index = 0; ///< Element: a constant, Summary or Any. Part: the part's index.
  const clang::FieldDecl *FieldD = nullptr;

  static PathStep field(const clang::FieldDecl *FD) { return {Field, 0, FD}; }
  static PathStep element(int32_t Index) { return {Element, Index, nullptr}; }
  static PathStep part(unsigned Index) { return {Part, int32_t(Index), nullptr}; }
  static PathStep size(unsigned Count) { return {Size, int32_t(Count), nullptr}; }

  bool isAnyElement() const { return K == Element && Index == Any; }
  bool isConstantElement() const { return K == Element && Index >= 0; }
  bool isLastElement() const { return K == Element && Index == Last; }

  friend bool operator==(const PathStep &A, const PathStep &B) {
    return A.K == B.K && A.Index == B.Index && A.FieldD == B.FieldD;
  }
  friend bool operator!=(const PathStep &A, const PathStep &B) { return !(A == B); }
  friend bool operator<(const PathStep &A, const PathStep &B) {
    return std::tie(A.K, A.Index, A.FieldD) < std::tie(B.K, B.Index, B.FieldD);
  }
};

/// A path of steps below a root (also used alone, relative to a parameter
/// or a returned value, in summaries).
struct AccessPath {
  uint8_t Depth = 0;
  std::array<PathStep, MaxPathDepth> Steps{};

  llvm::ArrayRef<PathStep> steps() const { return llvm::ArrayRef(Steps.data(), Depth); }
  bool empty() const { return Depth == 0; }
  /// This path followed by \p Tail; false when it would be too deep.
  bool append(llvm::ArrayRef<PathStep> Tail);

  /// The same path read from outside: the callee's summary of a container's
  /// elements is any of the caller's elements.
  AccessPath anyElement() const {
    AccessPath P = *this;
    for (unsigned I = 0; I < P.Depth; ++I)
      if (P.Steps[I].K == PathStep::Element && P.Steps[I].Index == PathStep::Summary)
        P.Steps[I].Index = PathStep::Any;
    return P;
  }

  friend bool operator==(const AccessPath &A, const AccessPath &B) {
    return A.steps() == B.steps();
  }
  friend bool operator!=(const AccessPath &A, const AccessPath &B) { return !(A == B); }
  friend bool operator<(const AccessPath &A, const AccessPath &B) {
    return std::lexicographical_compare(A.steps().begin(), A.steps().end(),
                                        B.steps().begin(), B.steps().end());
  }
};

struct Location {
  enum RootKind : uint8_t {
    Variable, ///< A local, a parameter, a static local (Root: the VarDecl).
    Heap,     ///< What one `new`/`make_unique`/`make_shared` builds (Root: the call).
    Object,   ///< What `this` (Root: the record) or a pointer parameter (Root: the
              ///< ParmVarDecl) designates on entry.
    Scratch,  ///< A temporary object the analysis builds a value in (Root: a
              ///< number unique in one analysis), gone before the next statement.
    Unknown,  ///< Somewhere the model does not follow: never read precisely, and
              ///< what is written there escapes.
  };
  RootKind Kind = Unknown;
  const void *Root = nullptr;
  AccessPath Path;

  static Location variable(const clang::ValueDecl *VD) { return {Variable, VD, {}}; }
  static Location heap(const clang::Expr *Site) { return {Heap, Site, {}}; }
  static Location object(const void *Owner) { return {Object, Owner, {}}; }
  static Location unknown() { return {}; }
  static Location scratch(uintptr_t Id) {
    return {Scratch, reinterpret_cast<const void *>(Id), {}};
  }

  bool isUnknown() const { return Kind == Unknown; }
  /// This location and then \p Step (unknown when too deep).
  Location child(PathStep Step) const;
  Location child(llvm::ArrayRef<PathStep> Steps) const;
  /// True when \p Other is this location or below it.
  bool isPrefixOf(const Location &Other) const;
  /// True when the location stands for one object at a time: no element
  /// summary or wildcard on the way, not a heap allocation site.
  bool isSingle() const;
  bool hasAnyElement() const;
  /// How many steps are every element (Any); \p Last: where the last is.
  unsigned anyElementSteps(unsigned *Last = nullptr) const;
  /// Where a weak write through this location lands: every element (Any)
  /// is the summary of the elements.
  Location weakTarget() const;
  /// True when \p Stored (a location a state holds) is one that reading or
  /// writing this location (which may hold Any and constant indices) may touch.
  bool mayAlias(const Location &Stored) const;
  /// Either may touch what the other names (one may be below the other).
  bool overlaps(const Location &Other) const {
    return mayAlias(Other) || Other.mayAlias(*this);
  }
  /// The steps of \p Other below this location (which must be its prefix).
  AccessPath suffixOf(const Location &Other) const;
  const clang::VarDecl *variable() const {
    return Kind == Variable ? static_cast<const clang::VarDecl *>(Root) : nullptr;
  }
  /// For debugging and tests: `halves[1].stage`, `*this.pending_[*]`.
  std::string str() const;

  friend bool operator==(const Location &A, const Location &B) {
    return A.Kind == B.Kind && A.Root == B.Root && A.Path == B.Path;
  }
  friend bool operator!=(const Location &A, const Location &B) { return !(A == B); }
  friend bool operator<(const Location &A, const Location &B) {
    return std::tie(A.Kind, A.Root, A.Path) < std::tie(B.Kind, B.Root, B.Path);
  }
};

using LocationList = llvm::SmallVector<Location, 2>;

/// Adds \p L to \p List unless it is there.
void addLocation(LocationList &List, const Location &L);
bool hasUnknown(const LocationList &List);

} // namespace dmalint

#endif // DMALINT_LOCATION_H
