//===- ApiModel.h - Which declarations are the DMA API ----------*- C++ -*-===//
//
// The analysis and the checks speak of roles (descriptor type, remote factory,
// wait-send method); this is the one place that maps roles to declarations.
// The default is the reference API of <tpu/dma.h>.
//
//===----------------------------------------------------------------------===//
#ifndef DMALINT_APIMODEL_H
#define DMALINT_APIMODEL_H

#include "clang/AST/Decl.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/Type.h"
#include "clang/AST/ASTContext.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/ADT/StringRef.h"
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace dmalint {

/// What a function or method of the API does to, or says about, a descriptor.
enum class ApiRole {
  None,
  LocalFactory,         ///< make_async_copy: returns a local, unstarted copy.
  RemoteFactory,        ///< make_async_remote_copy: remote, unstarted.
  StartedLocalFactory,  ///< async_copy: local, already started.
  StartedRemoteFactory, ///< async_remote_copy: remote, already started.
  IsRemote,             ///< d.is_remote()
  Start,                ///< d.start(priority)
  Wait,                 ///< d.wait(): both sides of a remote copy.
  WaitSend,             ///< d.wait_send(): remote only.
  WaitRecv,             ///< d.wait_recv()
  DeviceQuery,          ///< program_id() and friends: same value everywhere in one call.
};

/// A function (or the descriptor constructor) that takes a device id and the
/// kind of that id, by parameter position.
struct DeviceIdUse {
  std::string Function; ///< Qualified name, or the descriptor type for its constructor.
  unsigned DeviceIdParam;
  unsigned DeviceIdTypeParam;
};

/// A semaphore position the API does not have (the option's value '-').
constexpr unsigned NoPosition = ~0u;

/// A function that signals or waits a regular (barrier) semaphore, by
/// parameter position: the semaphore, and the amount (a signal's increment,
/// the value a wait takes from the semaphore; NoPosition: always 1).
struct SemaphoreCallUse {
  std::string Function; ///< Qualified name.
  unsigned SemaphoreParam;
  unsigned AmountParam;
};

/// What a device query says about the device mesh (read by the barrier model).
enum class AxisQuery {
  None,
  Index, ///< This device's position on an axis (axis_index("x"), a flat rank()).
  Size,  ///< The extent of an axis (axis_size("x"), a flat world_size()).
};

/// The mapping from the API's spelling to roles.
struct ApiModel {
  std::vector<std::string> DescriptorTypes;
  std::vector<std::pair<std::string, ApiRole>> Functions; ///< Free functions.
  std::vector<std::pair<std::string, ApiRole>> Methods;   ///< Descriptor methods.
  /// Positions of the general constructor's source-semaphore and device-id
  /// parameters (std::optional-like: "engaged" means set).
  unsigned CtorSrcSemParam = 3;
  unsigned CtorDeviceIdParam = 4;
  unsigned StartPriorityParam = 0;
  std::string DeviceIdType;      ///< Qualified name of the device id class.
  std::string DeviceIdKindEnum;  ///< Qualified name of the enum of id kinds.
  std::string LogicalEnumerator; ///< The enumerator that takes one logical id.
  std::string MeshEnumerator;    ///< The enumerator that takes mesh coordinates.
  std::vector<DeviceIdUse> DeviceIdUses;

  /// Position of the constructor's device-id kind parameter.
  unsigned CtorDeviceIdKindParam = 5;

  /// The buffer view class (template) that copies move data between: the
  /// first argument of a copy of this type is its source, the second its
  /// target; its first template argument is the element type.
  std::string BufferType;
  /// The buffer method that takes a sub-view along the majormost dimension
  /// (pl.ds), and the position of its size parameter.
  std::string SliceMethod;
  unsigned SliceSizeParam = 1;
  /// Free functions that copy from a source buffer to a target buffer and
  /// wait for it (start + wait, no descriptor).
  std::vector<std::string> SyncCopyFunctions;

  /// Where a copy names its semaphores (read by the protocol checks): the
  /// send and receive semaphores among the remote factories' parameters,
  /// the one semaphore among the local factories', and the destination
  /// (receive) semaphore among the general constructor's (whose source
  /// semaphore is at CtorSrcSemParam). NoPosition: the API names none there,
  /// and the protocol checks judge no copy that needs it.
  unsigned RemoteSendSemParam = 2;
  unsigned RemoteRecvSemParam = 3;
  unsigned LocalSemParam = 2;
  unsigned CtorDstSemParam = 2;

  /// The functions that signal a regular semaphore (their device id, if
  /// any, is the DeviceIdUses entry of the same function; without one a
  /// signal is to the device itself), and those that wait one (read by
  /// dma-semaphore-imbalance).
  std::vector<SemaphoreCallUse> SignalFunctions;
  std::vector<SemaphoreCallUse> WaitFunctions;
  /// The device's position on a mesh axis and the extent of that axis; the
  /// axis is the first argument, and a function without parameters speaks
  /// of the one flat axis (a rank and a world size).
  std::vector<std::string> AxisIndexFunctions;
  std::vector<std::string> AxisSizeFunctions;

  /// The model of the reference API in <tpu/dma.h>.
  static ApiModel builtin();
};

/// The configuration keys of the API model (CheckOptions in .clang-tidy), all
/// under this prefix, shared by every dma-* check.
constexpr llvm::StringLiteral ApiOptionPrefix = "dma.";
/// The value of a method key that says the API has no method in that role
/// (an empty value is an error).
constexpr llvm::StringLiteral NoMethod = "-";

/// A problem with one configuration key.
struct ApiOptionError {
  std::string Key;
  std::string Message;
};

/// Applies the options (full keys, prefix included; other keys are ignored)
/// to \p Model. Every unknown key, malformed value or contradiction is an
/// error; the model keeps its earlier value for that key.
std::vector<ApiOptionError>
applyApiOptions(ApiModel &Model, const std::map<std::string, std::string> &Options);

/// The options that describe \p Model (what --dump-config shows).
std::map<std::string, std::string> apiModelOptions(const ApiModel &Model);

/// An ApiModel prepared for fast queries against AST declarations.
class ApiIndex {
public:
  explicit ApiIndex(ApiModel Model);

  const ApiModel &model() const { return Model; }

  /// False when the translation unit of \p Ctx has never seen the name of a
  /// descriptor type or of a semaphore wait function: then no code in it
  /// can use the API, and the checks stop before looking at a single
  /// function (a lookup in the identifier table: cheap enough to ask per
  /// node).
  bool declaredIn(const clang::ASTContext &Ctx) const;
  /// True when \p FD (its parameters and body, lambdas included) calls a
  /// descriptor method or an API function, builds a descriptor, or declares
  /// a container of descriptors: the functions worth analysing.
  bool usedBy(const clang::FunctionDecl &FD) const;
  /// What usedBy looks for, at one node (not its children): \p S calls a
  /// descriptor method or an API function other than a device query, or
  /// builds a descriptor; \p Var is a container of descriptors.
  bool isApiUse(const clang::Stmt &S) const;
  bool isApiUse(const clang::VarDecl &Var) const;

  /// True for a (possibly cv-qualified) descriptor class type.
  bool isDescriptorType(clang::QualType T) const;
  bool isDescriptorRecord(const clang::CXXRecordDecl *RD) const;
  /// The role of a called function or method; None when it is not the API.
  ApiRole roleOf(const clang::FunctionDecl *FD) const;
  /// True for a constructor of a descriptor type (the general form).
  bool isDescriptorConstructor(const clang::CXXConstructorDecl *Ctor) const;
  bool isDeviceIdType(clang::QualType T) const;
  /// The device-id use that \p FD (a function or the descriptor constructor)
  /// makes, if any.
  const DeviceIdUse *deviceIdUseOf(const clang::FunctionDecl *FD) const;
  /// True when \p ECD is the enumerator for logical device ids.
  bool isLogicalEnumerator(const clang::EnumConstantDecl *ECD) const;
  /// True when \p ECD is the enumerator for mesh coordinates.
  bool isMeshEnumerator(const clang::EnumConstantDecl *ECD) const;
  /// True for a function that copies and waits (ApiModel::SyncCopyFunctions).
  bool isSyncCopy(const clang::FunctionDecl *FD) const;
  /// True for a (possibly cv-qualified) buffer type, or a specialisation of
  /// the buffer class template.
  bool isBufferType(clang::QualType T) const;
  /// True for an expression that makes a copy: a call of a factory or of a
  /// sync copy function, or the general constructor.
  bool isCopy(const clang::Expr &E) const;
  /// True for the slice method of the buffer type.
  bool isSliceMethod(const clang::CXXMethodDecl *MD) const;
  /// The semaphore signal or wait that \p FD is, if any.
  const SemaphoreCallUse *semaphoreSignalOf(const clang::FunctionDecl *FD) const;
  const SemaphoreCallUse *semaphoreWaitOf(const clang::FunctionDecl *FD) const;
  /// What \p FD says about the device mesh, if anything.
  AxisQuery axisQueryOf(const clang::FunctionDecl *FD) const;
  /// False when \p D's own name is not the last component of any name in
  /// the model: then \p D is none of the API's types, functions, methods or
  /// enumerators, and every query above answers no. One hash lookup.
  bool mayName(const clang::NamedDecl *D) const;

private:
  bool isNamed(const clang::NamedDecl *D, llvm::StringRef Qualified) const;
  bool isBufferRecord(const clang::CXXRecordDecl *RD) const;

  ApiModel Model;
  // Keyed by unqualified name first: the common case (not the API) is then one
  // hash lookup with no string building.
  llvm::StringMap<std::vector<std::pair<std::string, ApiRole>>> FunctionsByName;
  llvm::StringMap<ApiRole> MethodsByName;
  llvm::StringMap<std::vector<std::string>> DescriptorTypesByName;
  llvm::StringMap<llvm::SmallVector<unsigned, 1>> DeviceIdUsesByName; ///< Into DeviceIdUses.
  llvm::StringMap<std::vector<std::string>> SyncCopiesByName;
  /// Into SignalFunctions, WaitFunctions.
  llvm::StringMap<llvm::SmallVector<unsigned, 1>> SignalsByName, WaitsByName;
  llvm::StringMap<std::vector<std::pair<std::string, AxisQuery>>> AxisQueriesByName;
  llvm::StringSet<> LastComponents; ///< Of every name in the model.
};

/// The (first) method the model gives \p Role, or "" when none.
std::string methodWithRole(const ApiModel &Model, ApiRole Role);

/// The names \p All (ApiModel::Functions or ::Methods) gives \p Role, in order.
std::vector<std::string> namesWithRole(const std::vector<std::pair<std::string, ApiRole>> &All,
                                       ApiRole Role);

/// Whether \p D's qualified name, as NamedDecl::getQualifiedNameAsString()
/// prints it, is \p Qualified (written without a leading "::").
bool hasQualifiedName(const clang::NamedDecl *D, llvm::StringRef Qualified);

} // namespace dmalint

#endif // DMALINT_APIMODEL_H
