//===- TypeModel.h - Which types hold descriptors, and how ------*- C++ -*-===//
//
// The memory model asks of every type: can a value of it hold a descriptor,
// and where? A descriptor (or a class derived from one) holds it at its own
// location; a container at its elements; a pair, a tuple, a variant, a
// struct, class or union at some of its parts; a pointer, reference,
// iterator or smart pointer designates locations that do. The standard
// library's part of the answer is the table in lib/StdLibrary.def.
//
//===----------------------------------------------------------------------===//
#ifndef DMALINT_TYPEMODEL_H
#define DMALINT_TYPEMODEL_H

#include "dmalint/ApiModel.h"
#include "dmalint/Location.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/Type.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringMap.h"
#include <memory>

namespace dmalint {

enum class Shape : uint8_t {
  None,       ///< Holds no descriptor.
  Descriptor, ///< A descriptor type, or a class derived from one.
  Sequence,   ///< vector, deque, list, initializer_list: elements, one summary.
  FixedArray, ///< A C array or std::array: elements, by constant index where known.
  Optional,   ///< std::optional of something that holds descriptors: one element.
  Pair,       ///< std::pair: its fields first and second.
  Tuple,      ///< std::tuple: parts by index.
  Variant,    ///< std::variant: parts by alternative index.
  Record,     ///< A class, struct or union with fields that hold descriptors.
  Pointer,    ///< A pointer, iterator, smart pointer, span or reference_wrapper:
              ///< designates locations that hold descriptors.
  Engagement, ///< std::optional of anything else: followed as engaged or not (the
              ///< general constructor's source semaphore and device id).
};

/// A part of a value that holds descriptors: the step to it and its type.
struct TypePart {
  PathStep Step;
  clang::QualType Type;
};

struct TypeShape {
  Shape Kind = Shape::None;
  clang::QualType Element;             ///< Containers: elements; Pointer: what it designates.
  uint64_t Extent = 0;                 ///< FixedArray: the number of elements.
  llvm::SmallVector<TypePart, 2> Parts; ///< Pair, Tuple, Variant, Record.

  bool holdsDescriptors() const { return Kind != Shape::None && Kind != Shape::Engagement; }
  bool isContainer() const {
    return Kind == Shape::Sequence || Kind == Shape::FixedArray || Kind == Shape::Optional;
  }
  bool isAggregate() const {
    return Kind == Shape::Pair || Kind == Shape::Tuple || Kind == Shape::Variant ||
           Kind == Shape::Record;
  }
};

/// What a member function of a standard container or wrapper does.
enum class MethodEffect : uint8_t {
  Unlisted,          ///< Not in the table.
  Insert,            ///< Adds the descriptor(s) of its arguments.
  Assign,            ///< Replaces what it holds with its arguments.
  Clear,             ///< Holds nothing afterwards.
  Element,           ///< Returns (a reference to) an element.
  ElementAddress,    ///< Returns a pointer to the elements (data(), optional's ->).
  Iterator,          ///< Returns an iterator over the elements.
  Designated,        ///< A smart pointer's *: what it designates.
  DesignatedAddress, ///< A smart pointer's -> and get(): a pointer to it.
  Nothing,           ///< Changes nothing the model follows.
};

/// What a free function of std does with its arguments.
enum class FunctionEffect : uint8_t {
  Unlisted,
  Identity,       ///< Returns its first argument (move, forward, next).
  GetPart,        ///< std::get<I>: a part of a pair, tuple or variant.
  GetPartAddress, ///< std::get_if<I>: a pointer to it.
  Visit,          ///< std::visit(f, v...): calls f with each alternative.
  ForEach,        ///< std::for_each(first, last, f): calls f with each element.
  MakeHeap,       ///< make_unique / make_shared: a new object built from the arguments.
  MakeAggregate,  ///< make_pair / make_tuple / make_optional: a value built from them.
  AddressOf,      ///< std::ref, std::addressof: designates the argument.
  Iterator,       ///< std::begin(c): an iterator over c's elements.
  Swap,           ///< std::swap(a, b), std::iter_swap(i, j): exchanges what they hold.
  Nothing,
};

class TypeModel {
public:
  explicit TypeModel(const ApiIndex &Api) : Api(Api) {}

  /// The shape of \p T, references and cv-qualifiers aside.
  const TypeShape &shapeOf(clang::QualType T);
  bool holdsDescriptors(clang::QualType T) { return shapeOf(T).holdsDescriptors(); }
  bool isDescriptor(clang::QualType T) { return shapeOf(T).Kind == Shape::Descriptor; }
  /// A container (C array, std container, optional) of things that hold descriptors.
  bool isContainer(clang::QualType T) { return shapeOf(T).isContainer(); }
  bool isPointer(clang::QualType T) { return shapeOf(T).Kind == Shape::Pointer; }

  /// The step to the part of \p T that \p Index (a std::get index, or the
  /// index of the alternative) names: a member of a pair or a tuple, an
  /// alternative of a variant, an element of a std::array; nullopt when it
  /// holds no descriptor.
  std::optional<PathStep> partStep(clang::QualType T, unsigned Index);

  /// Every access path below a value of type \p T at which a descriptor (or
  /// a pointer that may designate one) lives, at most \p MaxDepth deep: where
  /// a parameter's or `*this`'s initial values are.
  struct Leaf {
    AccessPath Path;
    Shape Kind; ///< Descriptor, Pointer or Engagement.
  };
  void leafPaths(clang::QualType T, llvm::SmallVectorImpl<Leaf> &Out,
                 unsigned MaxDepth = MaxPathDepth);

  static MethodEffect methodEffect(Shape Kind, llvm::StringRef Name);
  /// The same for a method: by its identifier (the listed methods are all
  /// named ones; an operator is Unlisted), without building its name. A
  /// pointer's accessor that returns a reference designates the object
  /// (std::reference_wrapper's get() and its conversion to `T &`).
  static MethodEffect methodEffect(Shape Kind, const clang::CXXMethodDecl *MD);
  static FunctionEffect functionEffect(const clang::FunctionDecl *FD);
  /// The kind of standard type \p T is by the table (std::array is a
  /// FixedArray), whatever its elements are; Shape::None for any other type.
  /// shapeOf() gives a container a shape only when it holds descriptors.
  static Shape stdTypeKind(clang::QualType T);

  const ApiIndex &api() const { return Api; }

private:
  TypeShape compute(clang::QualType T);
  void leafPathsFrom(clang::QualType T, AccessPath &Prefix, llvm::SmallVectorImpl<Leaf> &Out,
                     unsigned MaxDepth);

  const ApiIndex &Api;
  llvm::DenseMap<const clang::Type *, std::unique_ptr<TypeShape>> Shapes;
};

} // namespace dmalint

#endif // DMALINT_TYPEMODEL_H
