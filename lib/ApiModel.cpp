//===- ApiModel.cpp - Which declarations are the DMA API ------------------===//
#include "dmalint/ApiModel.h"
#include "clang/AST/DeclCXX.h"

using namespace clang;

namespace dmalint {

static llvm::StringRef stripGlobal(llvm::StringRef Name) {
  Name.consume_front("::");
  return Name;
}

static llvm::StringRef lastComponent(llvm::StringRef Qualified) {
  size_t Pos = Qualified.rfind("::");
  return Pos == llvm::StringRef::npos ? Qualified : Qualified.substr(Pos + 2);
}

std::string qualifiedName(const NamedDecl *D) {
  return D->getQualifiedNameAsString();
}

ApiModel ApiModel::builtin() {
  ApiModel M;
  M.DescriptorTypes = {"tpu::AsyncCopyDescriptor"};
  M.Functions = {
      {"tpu::make_async_copy", ApiRole::LocalFactory},
      {"tpu::make_async_remote_copy", ApiRole::RemoteFactory},
      {"tpu::async_copy", ApiRole::StartedLocalFactory},
      {"tpu::async_remote_copy", ApiRole::StartedRemoteFactory},
      {"tpu::program_id", ApiRole::DeviceQuery},
      {"tpu::num_programs", ApiRole::DeviceQuery},
      {"tpu::axis_index", ApiRole::DeviceQuery},
      {"tpu::axis_size", ApiRole::DeviceQuery},
  };
  M.Methods = {{"is_remote", ApiRole::IsRemote},
               {"start", ApiRole::Start},
               {"wait", ApiRole::Wait},
               {"wait_send", ApiRole::WaitSend},
               {"wait_recv", ApiRole::WaitRecv}};
  M.CtorSrcSemParam = 3;
  M.CtorDeviceIdParam = 4;
  M.StartPriorityParam = 0;
  M.DeviceIdType = "tpu::DeviceId";
  M.DeviceIdKindEnum = "tpu::DeviceIdType";
  M.LogicalEnumerator = "kLogical";
  M.MeshEnumerator = "kMesh";
  M.DeviceIdUses = {{"tpu::AsyncCopyDescriptor", 4, 5},
                    {"tpu::make_async_remote_copy", 4, 5},
                    {"tpu::async_remote_copy", 4, 5},
                    {"tpu::semaphore_signal", 2, 3}};
  return M;
}

ApiIndex::ApiIndex(ApiModel M) : Model(std::move(M)) {
  for (auto &[Name, Role] : Model.Functions) {
    std::string Q = stripGlobal(Name).str();
    FunctionsByName[lastComponent(Q)].push_back({Q, Role});
  }
  for (auto &[Name, Role] : Model.Methods)
    MethodsByName[Name] = Role;
  for (const std::string &Name : Model.DescriptorTypes) {
    std::string Q = stripGlobal(Name).str();
    DescriptorTypesByName[lastComponent(Q)].push_back(Q);
  }
}

bool ApiIndex::isNamed(const NamedDecl *D, llvm::StringRef Qualified) const {
  return qualifiedName(D) == stripGlobal(Qualified);
}

static const CXXRecordDecl *recordOf(QualType T) {
  if (T.isNull())
    return nullptr;
  T = T.getNonReferenceType();
  if (const auto *RD = T->getAsCXXRecordDecl())
    return RD;
  return nullptr;
}

bool ApiIndex::isDescriptorType(QualType T) const {
  return isDescriptorRecord(recordOf(T));
}

bool ApiIndex::isDescriptorRecord(const CXXRecordDecl *RD) const {
  if (!RD || !RD->getIdentifier())
    return false;
  auto It = DescriptorTypesByName.find(RD->getName());
  if (It == DescriptorTypesByName.end())
    return false;
  std::string Q = qualifiedName(RD);
  for (const std::string &Candidate : It->second)
    if (Q == Candidate)
      return true;
  return false;
}

ApiRole ApiIndex::roleOf(const FunctionDecl *FD) const {
  if (!FD || !FD->getIdentifier())
    return ApiRole::None;
  if (const auto *MD = dyn_cast<CXXMethodDecl>(FD)) {
    if (MD->isStatic() || !isDescriptorRecord(MD->getParent()))
      return ApiRole::None;
    auto It = MethodsByName.find(MD->getName());
    return It == MethodsByName.end() ? ApiRole::None : It->second;
  }
  auto It = FunctionsByName.find(FD->getName());
  if (It == FunctionsByName.end())
    return ApiRole::None;
  std::string Q = qualifiedName(FD);
  for (auto &[Candidate, Role] : It->second)
    if (Q == Candidate)
      return Role;
  return ApiRole::None;
}

bool ApiIndex::isDescriptorConstructor(const CXXConstructorDecl *Ctor) const {
  return Ctor && !Ctor->isCopyOrMoveConstructor() &&
         isDescriptorRecord(Ctor->getParent());
}

bool ApiIndex::isDeviceIdType(QualType T) const {
  const CXXRecordDecl *RD = recordOf(T);
  return RD && RD->getIdentifier() && isNamed(RD, Model.DeviceIdType);
}

const DeviceIdUse *ApiIndex::deviceIdUseOf(const FunctionDecl *FD) const {
  if (!FD)
    return nullptr;
  const NamedDecl *Named = FD;
  if (const auto *Ctor = dyn_cast<CXXConstructorDecl>(FD))
    Named = Ctor->getParent();
  if (!Named->getIdentifier())
    return nullptr;
  std::string Q = qualifiedName(Named);
  for (const DeviceIdUse &Use : Model.DeviceIdUses)
    if (Q == stripGlobal(Use.Function))
      return &Use;
  return nullptr;
}

bool ApiIndex::isLogicalEnumerator(const EnumConstantDecl *ECD) const {
  if (!ECD || ECD->getName() != Model.LogicalEnumerator)
    return false;
  const auto *ED = dyn_cast<EnumDecl>(ECD->getDeclContext());
  return ED && isNamed(ED, Model.DeviceIdKindEnum);
}

} // namespace dmalint
