//===- Arguments.h - What an API call's arguments say, without dataflow -*- C++ -*-===//
//
// Facts read off one call's arguments: whether an optional argument is set,
// the value of a constant priority, how many mesh coordinates a device id has.
// The dataflow analysis refines the "Unknown" answers along paths.
//
//===----------------------------------------------------------------------===//
#ifndef DMALINT_ARGUMENTS_H
#define DMALINT_ARGUMENTS_H

#include "dmalint/ApiModel.h"
#include "dmalint/AstUtil.h"
#include "clang/AST/Expr.h"
#include "clang/AST/ExprCXX.h"
#include <cstdint>
#include <optional>

namespace dmalint {

/// Whether an optional-like argument holds a value.
enum class Engagement {
  Omitted,    ///< Not written: the parameter's default (std::nullopt) applies.
  Disengaged, ///< Written as std::nullopt, {} or a default-constructed optional.
  Engaged,    ///< Written as a value (or an optional built from one).
  Unknown,    ///< Anything else, e.g. an optional variable.
};

/// True for std::optional<T> (through references).
bool isStdOptional(clang::QualType T);

/// The engagement of argument \p Index of a call or construction.
Engagement argumentEngagement(llvm::ArrayRef<const clang::Expr *> Args,
                              unsigned Index);
/// The engagement of one argument expression.
Engagement engagementOf(const clang::Expr *Arg);

/// The value of \p E when it is a constant expression (not dependent).
std::optional<int64_t> constantInt(const clang::Expr *E,
                                   const clang::ASTContext &Ctx);

/// The device id an argument builds, looking through std::optional wrapping
/// and (for local variables initialised once and never assigned) through the
/// variable: the number of mesh coordinates and the expression that built it.
struct DeviceIdShape {
  unsigned MeshCoordinates = 0;
  const clang::Expr *Construction = nullptr;
  /// The braced list of the mesh coordinates (null for a logical id).
  const clang::InitListExpr *Coordinates = nullptr;
  /// Built in the initialiser of a local variable, not at the argument.
  bool ThroughVariable = false;
};
std::optional<DeviceIdShape> deviceIdShape(const clang::Expr *Arg,
                                           const ApiIndex &Api,
                                           clang::ASTContext &Ctx);

/// The device id and device-id kind arguments of a call or construction
/// that takes them (ApiIndex::deviceIdUseOf); null when it takes none or has
/// fewer arguments. Default arguments are included, as CXXDefaultArgExpr.
struct DeviceIdArguments {
  const clang::Expr *Id = nullptr;
  const clang::Expr *Kind = nullptr;
};
DeviceIdArguments deviceIdArguments(const clang::Expr *Call, const ApiIndex &Api);

/// The kind of device id that an argument (a default one included) names,
/// when it is a constant: the model's logical or mesh enumerator.
enum class DeviceIdKind { Logical, Mesh };
std::optional<DeviceIdKind> deviceIdKind(const clang::Expr *Arg, const ApiIndex &Api,
                                         const clang::ASTContext &Ctx);

/// The source and target of a copy (ApiIndex::isCopy): its first and second
/// arguments of the buffer type; null when it has fewer.
struct CopyBuffers {
  const clang::Expr *Source = nullptr;
  const clang::Expr *Target = nullptr;
};
CopyBuffers copyBuffers(const clang::Expr *Copy, const ApiIndex &Api);

/// A buffer expression that ends in `.slice(start, n)` with a constant `n`:
/// the size and the argument that says it.
struct ConstantSlice {
  int64_t Size = 0;
  const clang::Expr *SizeArg = nullptr;
};
std::optional<ConstantSlice> constantSlice(const clang::Expr *Buffer, const ApiIndex &Api,
                                           const clang::ASTContext &Ctx);

/// The element type of a buffer type (its first template argument, sugar
/// removed), or a null type when \p T is not one.
clang::QualType bufferElementType(clang::QualType T, const ApiIndex &Api);

/// Arguments as written (default arguments included, as CXXDefaultArgExpr).
llvm::SmallVector<const clang::Expr *, 8> callArguments(const clang::Expr *Call);

/// The arguments of \p Call one per parameter of its callee, as they stand in
/// the call: all of them, or those after the object of a member operator
/// (`run(body)` of a lambda `run` held in a local).
llvm::ArrayRef<const clang::Expr *> parameterArguments(const clang::CallExpr &Call);

/// A standard function that builds a descriptor from the arguments it
/// forwards: `std::make_unique<D>(...)`, `std::make_shared<D>(...)`, and
/// `emplace_back`, `emplace_front`, `emplace` of a container or an optional
/// of descriptors. The general constructor of D the arguments go to (the
/// API's argument positions: the one with the most parameters), and those
/// arguments (a container's emplace position left out).
struct ForwardedConstruction {
  const clang::CXXConstructorDecl *Constructor = nullptr;
  llvm::SmallVector<const clang::Expr *, 8> Arguments;
};
/// The names alone (no type looked at): what a walk of every call asks first.
bool mayForwardConstruction(const clang::FunctionDecl *FD);
std::optional<ForwardedConstruction> forwardedConstruction(const clang::CallExpr &Call,
                                                           const ApiIndex &Api);
/// The engagement of forwarded argument \p Index: a value of another type
/// than the optional parameter is engaged by the conversion the
/// constructor makes of it.
Engagement forwardedEngagement(llvm::ArrayRef<const clang::Expr *> Args, unsigned Index);

} // namespace dmalint

#endif // DMALINT_ARGUMENTS_H
