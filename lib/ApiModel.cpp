//===- ApiModel.cpp - Which declarations are the DMA API ------------------===//
#include "dmalint/ApiModel.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/DeclTemplate.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "llvm/ADT/STLExtras.h"
#include <cctype>

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

std::string methodWithRole(const ApiModel &Model, ApiRole Role) {
  for (auto &[Name, R] : Model.Methods)
    if (R == Role)
      return Name;
  return "";
}

std::vector<std::string> namesWithRole(const std::vector<std::pair<std::string, ApiRole>> &All,
                                       ApiRole Role) {
  std::vector<std::string> Out;
  for (auto &[Name, R] : All)
    if (R == Role)
      Out.push_back(Name);
  return Out;
}

bool hasQualifiedName(const NamedDecl *D, llvm::StringRef Qualified) {
  // Compared one component at a time from the innermost, without printing
  // the name: a decl in plain namespaces (the API's case, and what most
  // lookups reach) costs a few string comparisons. Contexts whose printed
  // form is more than a name (classes, functions, anonymous or inline
  // namespaces) take the printed name.
  llvm::StringRef Rest = Qualified;
  auto PopComponent = [&Rest](llvm::StringRef Name) {
    if (!Rest.consume_back(Name))
      return false;
    return Rest.empty() || (Rest.consume_back("::") && !Rest.empty());
  };
  if (!D->getIdentifier())
    return D->getQualifiedNameAsString() == Qualified;
  if (!PopComponent(D->getName()))
    return false;
  for (const DeclContext *DC = D->getDeclContext(); DC; DC = DC->getParent()) {
    if (isa<TranslationUnitDecl>(DC))
      break;
    if (!isa<NamedDecl>(DC)) // extern "C++" { }, export { }: not printed.
      continue;
    const auto *NS = dyn_cast<NamespaceDecl>(DC);
    if (!NS || NS->isAnonymousNamespace() || NS->isInline() || !NS->getIdentifier())
      return D->getQualifiedNameAsString() == Qualified;
    if (!PopComponent(NS->getName()))
      return false;
  }
  return Rest.empty();
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
  M.CtorDeviceIdKindParam = 5;
  M.DeviceIdUses = {{"tpu::AsyncCopyDescriptor", 4, 5},
                    {"tpu::make_async_remote_copy", 4, 5},
                    {"tpu::async_remote_copy", 4, 5},
                    {"tpu::semaphore_signal", 2, 3}};
  M.BufferType = "tpu::Ref";
  M.SliceMethod = "slice";
  M.SliceSizeParam = 1;
  M.SyncCopyFunctions = {"tpu::sync_copy"};
  M.SignalFunctions = {{"tpu::semaphore_signal", 0, 1}};
  M.WaitFunctions = {{"tpu::semaphore_wait", 0, 1}};
  M.AxisIndexFunctions = {"tpu::axis_index"};
  M.AxisSizeFunctions = {"tpu::axis_size"};
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
  for (unsigned I = 0; I < Model.DeviceIdUses.size(); ++I)
    DeviceIdUsesByName[lastComponent(stripGlobal(Model.DeviceIdUses[I].Function).str())]
        .push_back(I);
  for (const std::string &Name : Model.SyncCopyFunctions) {
    std::string Q = stripGlobal(Name).str();
    SyncCopiesByName[lastComponent(Q)].push_back(Q);
  }
  for (unsigned I = 0; I < Model.SignalFunctions.size(); ++I)
    SignalsByName[lastComponent(stripGlobal(Model.SignalFunctions[I].Function))].push_back(I);
  for (unsigned I = 0; I < Model.WaitFunctions.size(); ++I)
    WaitsByName[lastComponent(stripGlobal(Model.WaitFunctions[I].Function))].push_back(I);
  for (auto [Names, Query] : {std::pair{&Model.AxisIndexFunctions, AxisQuery::Index},
                              std::pair{&Model.AxisSizeFunctions, AxisQuery::Size}})
    for (const std::string &Name : *Names) {
      std::string Q = stripGlobal(Name).str();
      AxisQueriesByName[lastComponent(Q)].push_back({Q, Query});
    }
  auto AddKeys = [this](const auto &Map) {
    for (const auto &Entry : Map)
      LastComponents.insert(Entry.getKey());
  };
  AddKeys(FunctionsByName);
  AddKeys(MethodsByName);
  AddKeys(DescriptorTypesByName);
  AddKeys(DeviceIdUsesByName);
  AddKeys(SyncCopiesByName);
  AddKeys(SignalsByName);
  AddKeys(WaitsByName);
  AddKeys(AxisQueriesByName);
  for (const std::string *Name :
       {&Model.DeviceIdType, &Model.DeviceIdKindEnum, &Model.LogicalEnumerator,
        &Model.MeshEnumerator, &Model.BufferType, &Model.SliceMethod})
    if (!Name->empty())
      LastComponents.insert(lastComponent(stripGlobal(*Name).str()));
}

bool ApiIndex::mayName(const NamedDecl *D) const {
  return D && D->getIdentifier() && LastComponents.contains(D->getName());
}

bool ApiIndex::declaredIn(const ASTContext &Ctx) const {
  for (const auto &Entry : DescriptorTypesByName)
    if (Ctx.Idents.find(Entry.getKey()) != Ctx.Idents.end())
      return true;
  // A file that only synchronises through barriers names a wait function,
  // and may name no descriptor type at all: with its headers read from a
  // precompiled preamble, their names are not in the table until used.
  for (const auto &Entry : WaitsByName)
    if (Ctx.Idents.find(Entry.getKey()) != Ctx.Idents.end())
      return true;
  return false;
}

namespace {

/// Stops at the first use of the API in a function.
class ApiUseFinder : public RecursiveASTVisitor<ApiUseFinder> {
public:
  explicit ApiUseFinder(const ApiIndex &Api) : Api(Api) {}
  bool shouldVisitTemplateInstantiations() const { return true; }
  bool shouldVisitImplicitCode() const { return true; }

  bool VisitStmt(Stmt *S) { return !(Found = Api.isApiUse(*S)); }
  bool VisitVarDecl(VarDecl *Var) { return !(Found = Api.isApiUse(*Var)); }

  bool Found = false;

private:
  const ApiIndex &Api;
};

} // namespace

bool ApiIndex::isApiUse(const Stmt &S) const {
  if (const auto *Call = dyn_cast<CXXMemberCallExpr>(&S)) {
    const CXXMethodDecl *Method = Call->getMethodDecl();
    return Method && isDescriptorRecord(Method->getParent());
  }
  if (const auto *Call = dyn_cast<CallExpr>(&S)) {
    ApiRole Role = roleOf(Call->getDirectCallee());
    return Role != ApiRole::None && Role != ApiRole::DeviceQuery;
  }
  if (const auto *Construct = dyn_cast<CXXConstructExpr>(&S))
    return isDescriptorType(Construct->getType());
  return false;
}

bool ApiIndex::isApiUse(const VarDecl &Var) const {
  // std::vector<AsyncCopyDescriptor> and friends, filled with emplace_back.
  const auto *Spec = dyn_cast_or_null<ClassTemplateSpecializationDecl>(
      Var.getType().getNonReferenceType()->getAsCXXRecordDecl());
  if (!Spec || Spec->getTemplateArgs().size() == 0)
    return false;
  const TemplateArgument &First = Spec->getTemplateArgs()[0];
  return First.getKind() == TemplateArgument::Type && isDescriptorType(First.getAsType());
}

bool ApiIndex::usedBy(const FunctionDecl &FD) const {
  ApiUseFinder Finder(*this);
  Finder.TraverseDecl(const_cast<FunctionDecl *>(&FD));
  return Finder.Found;
}

bool ApiIndex::isNamed(const NamedDecl *D, llvm::StringRef Qualified) const {
  return hasQualifiedName(D, stripGlobal(Qualified));
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
  for (const std::string &Candidate : It->second)
    if (hasQualifiedName(RD, Candidate))
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
  for (auto &[Candidate, Role] : It->second)
    if (hasQualifiedName(FD, Candidate))
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
  // Most calls are not the API: one hash lookup, no string building.
  auto It = DeviceIdUsesByName.find(Named->getName());
  if (It == DeviceIdUsesByName.end())
    return nullptr;
  for (unsigned I : It->second)
    if (hasQualifiedName(Named, stripGlobal(Model.DeviceIdUses[I].Function)))
      return &Model.DeviceIdUses[I];
  return nullptr;
}

bool ApiIndex::isLogicalEnumerator(const EnumConstantDecl *ECD) const {
  if (!ECD || ECD->getName() != Model.LogicalEnumerator)
    return false;
  const auto *ED = dyn_cast<EnumDecl>(ECD->getDeclContext());
  return ED && isNamed(ED, Model.DeviceIdKindEnum);
}

bool ApiIndex::isMeshEnumerator(const EnumConstantDecl *ECD) const {
  if (!ECD || ECD->getName() != Model.MeshEnumerator)
    return false;
  const auto *ED = dyn_cast<EnumDecl>(ECD->getDeclContext());
  return ED && isNamed(ED, Model.DeviceIdKindEnum);
}

bool ApiIndex::isSyncCopy(const FunctionDecl *FD) const {
  if (!FD || !FD->getIdentifier() || isa<CXXMethodDecl>(FD))
    return false;
  auto It = SyncCopiesByName.find(FD->getName());
  if (It == SyncCopiesByName.end())
    return false;
  return llvm::any_of(It->second,
                      [&](const std::string &Name) { return hasQualifiedName(FD, Name); });
}

/// The entry of \p Uses that names \p FD, a free function, found through
/// \p ByName (keyed by the last component of each entry's name).
static const SemaphoreCallUse *
semaphoreCallOf(const FunctionDecl *FD, const std::vector<SemaphoreCallUse> &Uses,
                const llvm::StringMap<llvm::SmallVector<unsigned, 1>> &ByName) {
  if (!FD || !FD->getIdentifier() || isa<CXXMethodDecl>(FD))
    return nullptr;
  auto It = ByName.find(FD->getName());
  if (It == ByName.end())
    return nullptr;
  for (unsigned I : It->second)
    if (hasQualifiedName(FD, stripGlobal(Uses[I].Function)))
      return &Uses[I];
  return nullptr;
}

const SemaphoreCallUse *ApiIndex::semaphoreSignalOf(const FunctionDecl *FD) const {
  return semaphoreCallOf(FD, Model.SignalFunctions, SignalsByName);
}

const SemaphoreCallUse *ApiIndex::semaphoreWaitOf(const FunctionDecl *FD) const {
  return semaphoreCallOf(FD, Model.WaitFunctions, WaitsByName);
}

AxisQuery ApiIndex::axisQueryOf(const FunctionDecl *FD) const {
  if (!FD || !FD->getIdentifier() || isa<CXXMethodDecl>(FD))
    return AxisQuery::None;
  auto It = AxisQueriesByName.find(FD->getName());
  if (It == AxisQueriesByName.end())
    return AxisQuery::None;
  for (auto &[Name, Query] : It->second)
    if (hasQualifiedName(FD, Name))
      return Query;
  return AxisQuery::None;
}

bool ApiIndex::isBufferType(QualType T) const { return isBufferRecord(recordOf(T)); }

bool ApiIndex::isBufferRecord(const CXXRecordDecl *RD) const {
  if (!RD || !RD->getIdentifier() || Model.BufferType.empty() ||
      RD->getName() != lastComponent(stripGlobal(Model.BufferType)))
    return false;
  // A specialisation of the class template is named like the template.
  return isNamed(RD, Model.BufferType);
}

bool ApiIndex::isCopy(const Expr &E) const {
  if (const auto *Construct = dyn_cast<CXXConstructExpr>(&E))
    return isDescriptorConstructor(Construct->getConstructor());
  const auto *Call = dyn_cast<CallExpr>(&E);
  if (!Call || isa<CXXMemberCallExpr>(Call))
    return false;
  const FunctionDecl *Callee = Call->getDirectCallee();
  switch (roleOf(Callee)) {
  case ApiRole::LocalFactory:
  case ApiRole::RemoteFactory:
  case ApiRole::StartedLocalFactory:
  case ApiRole::StartedRemoteFactory:
    return true;
  default:
    return isSyncCopy(Callee);
  }
}

bool ApiIndex::isSliceMethod(const CXXMethodDecl *MD) const {
  return MD && MD->getIdentifier() && !Model.SliceMethod.empty() &&
         MD->getName() == Model.SliceMethod && !MD->isStatic() &&
         isBufferRecord(MD->getParent());
}

// ------------------------------------------------------------ options ---

namespace {

std::string joinList(const std::vector<std::string> &Items) {
  std::string Out;
  for (const std::string &Item : Items)
    Out += (Out.empty() ? "" : ";") + Item;
  return Out;
}

std::vector<std::string> splitList(llvm::StringRef Text) {
  llvm::SmallVector<llvm::StringRef, 8> Parts;
  Text.split(Parts, ';', -1, /*KeepEmpty=*/false);
  std::vector<std::string> Out;
  for (llvm::StringRef Part : Parts)
    if (!Part.trim().empty())
      Out.push_back(Part.trim().str());
  return Out;
}

/// A C++ (qualified) name: identifiers separated by "::".
bool isQualifiedName(llvm::StringRef Name) {
  Name.consume_front("::");
  if (Name.empty())
    return false;
  llvm::SmallVector<llvm::StringRef, 4> Parts;
  Name.split(Parts, "::");
  for (llvm::StringRef Part : Parts) {
    if (Part.empty() || !(isalpha(Part[0]) || Part[0] == '_'))
      return false;
    for (char C : Part)
      if (!(isalnum(C) || C == '_'))
        return false;
  }
  return true;
}

struct RoleKey {
  const char *Key;
  ApiRole Role;
};
constexpr RoleKey FunctionKeys[] = {
    {"LocalFactories", ApiRole::LocalFactory},
    {"RemoteFactories", ApiRole::RemoteFactory},
    {"StartedLocalFactories", ApiRole::StartedLocalFactory},
    {"StartedRemoteFactories", ApiRole::StartedRemoteFactory},
    {"DeviceQueries", ApiRole::DeviceQuery},
};
constexpr RoleKey MethodKeys[] = {
    {"IsRemoteMethod", ApiRole::IsRemote},   {"StartMethod", ApiRole::Start},
    {"WaitMethod", ApiRole::Wait},           {"WaitSendMethod", ApiRole::WaitSend},
    {"WaitRecvMethod", ApiRole::WaitRecv},
};
constexpr const char *PositionKeys[] = {"ConstructorSrcSemParam", "ConstructorDeviceIdParam",
                                        "ConstructorDeviceIdKindParam", "StartPriorityParam",
                                        "SliceSizeParam",         "RemoteFactorySendSemParam",
                                        "RemoteFactoryRecvSemParam", "LocalFactorySemParam",
                                        "ConstructorDstSemParam"};
constexpr const char *NameKeys[] = {"DeviceIdType", "DeviceIdKindEnum", "LogicalEnumerator",
                                    "MeshEnumerator", "BufferType", "SliceMethod"};

/// The positions of semaphores, which an API may not have ('-').
bool isSemaphorePositionKey(llvm::StringRef Key) {
  return Key == "RemoteFactorySendSemParam" || Key == "RemoteFactoryRecvSemParam" ||
         Key == "LocalFactorySemParam" || Key == "ConstructorDstSemParam";
}

unsigned *positionField(ApiModel &M, llvm::StringRef Key) {
  if (Key == "ConstructorSrcSemParam")
    return &M.CtorSrcSemParam;
  if (Key == "ConstructorDeviceIdParam")
    return &M.CtorDeviceIdParam;
  if (Key == "ConstructorDeviceIdKindParam")
    return &M.CtorDeviceIdKindParam;
  if (Key == "StartPriorityParam")
    return &M.StartPriorityParam;
  if (Key == "SliceSizeParam")
    return &M.SliceSizeParam;
  if (Key == "RemoteFactorySendSemParam")
    return &M.RemoteSendSemParam;
  if (Key == "RemoteFactoryRecvSemParam")
    return &M.RemoteRecvSemParam;
  if (Key == "LocalFactorySemParam")
    return &M.LocalSemParam;
  if (Key == "ConstructorDstSemParam")
    return &M.CtorDstSemParam;
  return nullptr;
}

std::string *nameField(ApiModel &M, llvm::StringRef Key) {
  if (Key == "DeviceIdType")
    return &M.DeviceIdType;
  if (Key == "DeviceIdKindEnum")
    return &M.DeviceIdKindEnum;
  if (Key == "LogicalEnumerator")
    return &M.LogicalEnumerator;
  if (Key == "MeshEnumerator")
    return &M.MeshEnumerator;
  if (Key == "BufferType")
    return &M.BufferType;
  if (Key == "SliceMethod")
    return &M.SliceMethod;
  return nullptr;
}

std::string semaphoreCallList(const std::vector<SemaphoreCallUse> &Uses) {
  std::vector<std::string> Entries;
  for (const SemaphoreCallUse &Use : Uses)
    Entries.push_back(Use.Function + ":" + std::to_string(Use.SemaphoreParam) + ":" +
                      (Use.AmountParam == NoPosition ? NoMethod.str()
                                                     : std::to_string(Use.AmountParam)));
  return joinList(Entries);
}

/// Parses `function:semaphore-position:amount-position` entries (the amount
/// may be '-': always 1); the error says what \p Amount is called.
std::optional<std::vector<SemaphoreCallUse>>
parseSemaphoreCalls(const std::string &Value, llvm::StringRef Amount, std::string &Error) {
  std::vector<SemaphoreCallUse> Uses;
  for (const std::string &Entry : splitList(Value)) {
    auto [Rest, AmountText] = llvm::StringRef(Entry).rsplit(':');
    auto [Function, SemText] = Rest.rsplit(':');
    unsigned Sem, AmountPos = NoPosition;
    bool Bad = Function.empty() || Function.ends_with(":") || !isQualifiedName(Function) ||
               SemText.getAsInteger(10, Sem) || Sem > 64 ||
               (AmountText.trim() != NoMethod &&
                (AmountText.getAsInteger(10, AmountPos) || AmountPos > 64));
    if (Bad) {
      Error = "'" + Entry + "' is not 'function:semaphore-position:" + Amount.str() +
              "-position' (positions from 0 to 64; '" + NoMethod.str() + "' for " +
              (Amount == "increment" ? "an " : "a ") + Amount.str() + " that is always 1)";
      return std::nullopt;
    }
    if (AmountPos == Sem) {
      Error = "'" + Entry + "': the semaphore and the " + Amount.str() +
              " cannot be one parameter";
      return std::nullopt;
    }
    Uses.push_back({Function.str(), Sem, AmountPos});
  }
  return Uses;
}

std::string bareName(llvm::StringRef Name) {
  Name.consume_front("::");
  return Name.str();
}

void setNamesWithRole(std::vector<std::pair<std::string, ApiRole>> &All, ApiRole Role,
                      const std::vector<std::string> &Names) {
  llvm::erase_if(All, [&](auto &Entry) { return Entry.second == Role; });
  for (const std::string &Name : Names)
    All.push_back({Name, Role});
}

} // namespace

std::map<std::string, std::string> apiModelOptions(const ApiModel &M) {
  std::map<std::string, std::string> Out;
  auto Key = [](llvm::StringRef Name) { return (ApiOptionPrefix + Name).str(); };
  Out[Key("DescriptorTypes")] = joinList(M.DescriptorTypes);
  for (const RoleKey &R : FunctionKeys)
    Out[Key(R.Key)] = joinList(namesWithRole(M.Functions, R.Role));
  for (const RoleKey &R : MethodKeys) {
    std::vector<std::string> Names = namesWithRole(M.Methods, R.Role);
    Out[Key(R.Key)] = Names.empty() ? NoMethod.str() : joinList(Names);
  }
  ApiModel Copy = M;
  for (const char *P : PositionKeys) {
    unsigned Position = *positionField(Copy, P);
    Out[Key(P)] = Position == NoPosition ? NoMethod.str() : std::to_string(Position);
  }
  for (const char *N : NameKeys)
    Out[Key(N)] = *nameField(Copy, N);
  std::vector<std::string> Uses;
  for (const DeviceIdUse &Use : M.DeviceIdUses)
    if (!llvm::is_contained(M.DescriptorTypes, Use.Function))
      Uses.push_back(Use.Function + ":" + std::to_string(Use.DeviceIdParam) + ":" +
                     std::to_string(Use.DeviceIdTypeParam));
  Out[Key("DeviceIdFunctions")] = joinList(Uses);
  Out[Key("SyncCopyFunctions")] = joinList(M.SyncCopyFunctions);
  Out[Key("SemaphoreSignalFunctions")] = semaphoreCallList(M.SignalFunctions);
  Out[Key("SemaphoreWaitFunctions")] = semaphoreCallList(M.WaitFunctions);
  Out[Key("AxisIndexFunctions")] = joinList(M.AxisIndexFunctions);
  Out[Key("AxisSizeFunctions")] = joinList(M.AxisSizeFunctions);
  return Out;
}

std::vector<ApiOptionError>
applyApiOptions(ApiModel &M, const std::map<std::string, std::string> &Options) {
  std::vector<ApiOptionError> Errors;
  auto Fail = [&](const std::string &Key, const llvm::Twine &Message) {
    Errors.push_back({Key, Message.str()});
  };
  auto CheckNames = [&](const std::string &Key, const std::vector<std::string> &Names,
                        bool Qualified) {
    for (const std::string &Name : Names) {
      // A method is named without its class: a plain identifier.
      bool Valid = isQualifiedName(Name) && (Qualified || Name.find(':') == std::string::npos);
      if (!Valid) {
        Fail(Key, "'" + Name + "' is not a " + (Qualified ? "C++ name" : "method name"));
        return false;
      }
    }
    return true;
  };
  for (auto &[Key, Value] : Options) {
    llvm::StringRef Name(Key);
    if (!Name.consume_front(ApiOptionPrefix))
      continue;
    if (Name == "DescriptorTypes") {
      std::vector<std::string> Types = splitList(Value);
      if (Types.empty())
        Fail(Key, "needs at least one descriptor type");
      else if (CheckNames(Key, Types, true))
        M.DescriptorTypes = Types;
      continue;
    }
    if (const RoleKey *R = llvm::find_if(FunctionKeys, [&](auto &K) { return Name == K.Key; });
        R != std::end(FunctionKeys)) {
      std::vector<std::string> Names = splitList(Value);
      if (CheckNames(Key, Names, true))
        setNamesWithRole(M.Functions, R->Role, Names);
      continue;
    }
    if (const RoleKey *R = llvm::find_if(MethodKeys, [&](auto &K) { return Name == K.Key; });
        R != std::end(MethodKeys)) {
      // An empty value is more often a mistake (a template variable left
      // unset) than a statement; an API without the role says so.
      if (llvm::StringRef(Value).trim() == NoMethod) {
        setNamesWithRole(M.Methods, R->Role, {});
        continue;
      }
      std::vector<std::string> Names = splitList(Value);
      if (Names.empty())
        Fail(Key, "is empty; name the descriptor's method for this role, or write '" +
                      NoMethod + "' if the API has none");
      else if (CheckNames(Key, Names, false))
        setNamesWithRole(M.Methods, R->Role, Names);
      continue;
    }
    if (unsigned *Field = positionField(M, Name)) {
      unsigned Position;
      if (isSemaphorePositionKey(Name) && llvm::StringRef(Value).trim() == NoMethod)
        *Field = NoPosition;
      else if (llvm::StringRef(Value).trim().getAsInteger(10, Position) || Position > 64)
        Fail(Key, "must be a 0-based parameter position" +
                      std::string(isSemaphorePositionKey(Name) ? " (or '-' for none)" : "") +
                      ", got '" + Value + "'");
      else
        *Field = Position;
      continue;
    }
    if (std::string *Field = nameField(M, Name)) {
      // A method is named without its class.
      bool Method = Name == "SliceMethod";
      if (!Value.empty() &&
          (!isQualifiedName(Value) || (Method && Value.find(':') != std::string::npos)))
        Fail(Key, "'" + Value + "' is not a " + (Method ? "method name" : "C++ name"));
      else
        *Field = Value;
      continue;
    }
    if (Name == "SyncCopyFunctions") {
      std::vector<std::string> Names = splitList(Value);
      if (CheckNames(Key, Names, true))
        M.SyncCopyFunctions = Names;
      continue;
    }
    if (Name == "DeviceIdFunctions") {
      std::vector<DeviceIdUse> Uses;
      bool Ok = true;
      for (const std::string &Entry : splitList(Value)) {
        // function:deviceIdParam:kindParam, where the function may contain "::".
        auto [Rest, Kind] = llvm::StringRef(Entry).rsplit(':');
        auto [Function, Id] = Rest.rsplit(':');
        unsigned IdPos, KindPos;
        if (Function.empty() || Function.ends_with(":") || !isQualifiedName(Function) ||
            Id.getAsInteger(10, IdPos) || Kind.getAsInteger(10, KindPos)) {
          Fail(Key, "'" + Entry + "' is not 'function:device-id-position:kind-position'");
          Ok = false;
          break;
        }
        Uses.push_back({Function.str(), IdPos, KindPos});
      }
      if (Ok)
        M.DeviceIdUses = Uses;
      continue;
    }
    if (Name == "SemaphoreSignalFunctions" || Name == "SemaphoreWaitFunctions") {
      bool Signal = Name == "SemaphoreSignalFunctions";
      std::string Error;
      if (auto Uses = parseSemaphoreCalls(Value, Signal ? "increment" : "value", Error))
        (Signal ? M.SignalFunctions : M.WaitFunctions) = std::move(*Uses);
      else
        Fail(Key, Error);
      continue;
    }
    if (Name == "AxisIndexFunctions" || Name == "AxisSizeFunctions") {
      std::vector<std::string> Names = splitList(Value);
      if (CheckNames(Key, Names, true))
        (Name == "AxisIndexFunctions" ? M.AxisIndexFunctions : M.AxisSizeFunctions) = Names;
      continue;
    }
    Fail(Key, "unknown option; the API model's options are " +
                  [] {
                    std::string Known;
                    for (auto &[K, V] : apiModelOptions(ApiModel::builtin()))
                      Known += (Known.empty() ? "" : ", ") + K;
                    return Known;
                  }());
  }
  // The constructor's own device-id use follows the constructor positions.
  llvm::erase_if(M.DeviceIdUses,
                 [&](const DeviceIdUse &U) { return llvm::is_contained(M.DescriptorTypes, U.Function); });
  for (const std::string &Type : M.DescriptorTypes)
    M.DeviceIdUses.push_back({Type, M.CtorDeviceIdParam, M.CtorDeviceIdKindParam});
  // One name, one role.
  std::map<std::string, std::string> Seen;
  for (const RoleKey &R : MethodKeys)
    for (const std::string &Method : namesWithRole(M.Methods, R.Role)) {
      auto [It, Inserted] = Seen.emplace(Method, R.Key);
      if (!Inserted)
        Fail((ApiOptionPrefix + R.Key).str(),
             "'" + Method + "' is already the " + It->second + "; a method has one role");
    }
  Seen.clear();
  for (const RoleKey &R : FunctionKeys)
    for (const std::string &Function : namesWithRole(M.Functions, R.Role)) {
      llvm::StringRef Bare = llvm::StringRef(Function);
      Bare.consume_front("::");
      auto [It, Inserted] = Seen.emplace(Bare.str(), R.Key);
      if (!Inserted)
        Fail((ApiOptionPrefix + R.Key).str(),
             "'" + Function + "' is already in " + ApiOptionPrefix.str() + It->second +
                 "; a function has one role");
    }
  // A barrier function signals or waits, and an axis function asks one thing.
  for (const SemaphoreCallUse &Wait : M.WaitFunctions)
    for (const SemaphoreCallUse &Signal : M.SignalFunctions)
      if (bareName(Wait.Function) == bareName(Signal.Function))
        Fail((ApiOptionPrefix + "SemaphoreWaitFunctions").str(),
             "'" + Wait.Function + "' is already in " + ApiOptionPrefix.str() +
                 "SemaphoreSignalFunctions; a function has one role");
  for (const std::string &Size : M.AxisSizeFunctions)
    for (const std::string &Index : M.AxisIndexFunctions)
      if (bareName(Size) == bareName(Index))
        Fail((ApiOptionPrefix + "AxisSizeFunctions").str(),
             "'" + Size + "' is already in " + ApiOptionPrefix.str() +
                 "AxisIndexFunctions; a function has one role");
  // A signal's semaphore and increment are not its device id or its kind.
  // (Only when the signals are configured: a configuration older than the
  // key may have moved the device id of the built-in signal function.)
  bool SignalsConfigured = Options.count((ApiOptionPrefix + "SemaphoreSignalFunctions").str());
  for (const SemaphoreCallUse &Signal : M.SignalFunctions)
    for (const DeviceIdUse &Use : M.DeviceIdUses) {
      if (!SignalsConfigured || bareName(Use.Function) != bareName(Signal.Function))
        continue;
      for (unsigned Position : {Signal.SemaphoreParam, Signal.AmountParam})
        if (Position == Use.DeviceIdParam || Position == Use.DeviceIdTypeParam)
          Fail((ApiOptionPrefix + "SemaphoreSignalFunctions").str(),
               "'" + Signal.Function + "': position " + std::to_string(Position) +
                   " is its device id" + (Position == Use.DeviceIdParam ? "" : " kind") +
                   " in " + ApiOptionPrefix.str() + "DeviceIdFunctions");
    }
  if (M.CtorSrcSemParam == M.CtorDeviceIdParam)
    Fail((ApiOptionPrefix + "ConstructorDeviceIdParam").str(),
         "is the same position as " + ApiOptionPrefix.str() + "ConstructorSrcSemParam");
  if (M.CtorDstSemParam != NoPosition && M.CtorDstSemParam == M.CtorSrcSemParam)
    Fail((ApiOptionPrefix + "ConstructorDstSemParam").str(),
         "is the same position as " + ApiOptionPrefix.str() + "ConstructorSrcSemParam");
  if (M.RemoteSendSemParam != NoPosition && M.RemoteSendSemParam == M.RemoteRecvSemParam)
    Fail((ApiOptionPrefix + "RemoteFactoryRecvSemParam").str(),
         "is the same position as " + ApiOptionPrefix.str() + "RemoteFactorySendSemParam");
  return Errors;
}

} // namespace dmalint
