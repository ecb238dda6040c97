//===- DmaCheck.cpp - Base of every dma-* check: the API model from options ===//
#include "DmaCheck.h"
#include "ConfigurationErrors.h"
#include "clang-tidy/ClangTidyOptions.h"
#include "clang/AST/DeclCXX.h"
#include <map>
#include <optional>
#include <set>

using namespace clang;
using namespace clang::tidy;

namespace dmalint::checks {

namespace {

struct LoadedApi {
  std::shared_ptr<const ApiIndex> Index;
  std::vector<ApiOptionError> Errors;
};

/// The model for one set of dma.* options, built once per thread.
const LoadedApi &loadApi(const std::map<std::string, std::string> &Options) {
  thread_local std::map<std::map<std::string, std::string>, LoadedApi> Cache;
  auto It = Cache.find(Options);
  if (It != Cache.end())
    return It->second;
  ApiModel Model = ApiModel::builtin();
  LoadedApi Loaded;
  Loaded.Errors = applyApiOptions(Model, Options);
  Loaded.Index = std::make_shared<const ApiIndex>(std::move(Model));
  return Cache.emplace(Options, std::move(Loaded)).first->second;
}

} // namespace

DmaCheck::DmaCheck(StringRef Name, ClangTidyContext *Context, ArrayRef<StringRef> OwnOptions)
    : ClangTidyCheck(Name, Context), Tidy(*Context) {
  FileConfiguration &Config = FileConfiguration::forNewCheck(*Context);
  if (!Config.FileChecked) {
    Config.FileChecked = true;
    checkFileConfiguration();
  }
  // Keys under this check's name that it does not read are typos.
  std::string Prefix = (Name + ".").str();
  std::vector<std::string> Own(OwnOptions.begin(), OwnOptions.end());
  for (const auto &Entry : Context->getOptions().CheckOptions) {
    StringRef Option = Entry.getKey();
    if (!Option.consume_front(Prefix) || llvm::is_contained(OwnOptions, Option))
      continue;
    std::optional<std::string> Meant = closestName(Option, Own);
    reportConfigurationError(
        Entry.getKey().str(),
        "unknown option" +
            (Meant ? "; did you mean '" + Prefix + *Meant + "'?"
                   : Own.empty() ? "; " + Name.str() + " has no options"
                                 : "; " + Name.str() + " has the options " +
                                       llvm::join(Own, ", ")));
  }
  std::map<std::string, std::string> Options;
  for (const auto &Entry : Context->getOptions().CheckOptions)
    if (Entry.getKey().starts_with(ApiOptionPrefix))
      Options[Entry.getKey().str()] = Entry.getValue().Value;
  const LoadedApi &Loaded = loadApi(Options);
  Api = Loaded.Index;
  ApiValid = Loaded.Errors.empty();
  for (const ApiOptionError &Error : Loaded.Errors)
    reportConfigurationError(Error.Key, Error.Message);
}

void DmaCheck::checkFileConfiguration() {
  for (const ConfigurationFile &Config : configurationFiles(getCurrentMainFile()))
    if (!Config.Problem.empty())
      configurationError(Config.Problem + "; no dma-* check runs on the files it governs");
  std::vector<std::string> Known = dmaCheckNames();
  const ClangTidyOptions &Options = Tidy.getOptions();
  for (const std::string &Glob : unknownDmaGlobs(Options.Checks.value_or(""), Known)) {
    llvm::StringRef Name = llvm::StringRef(Glob).ltrim("-");
    std::optional<std::string> Meant = closestName(Name, Known);
    configurationError("unknown check '" + Name.str() + "' " +
                       checksOrigin(Glob, getCurrentMainFile()) +
                       (Meant ? "; did you mean '" + *Meant + "'?"
                              : "; the dma-* checks are " + llvm::join(Known, ", ")));
  }
  for (const auto &Entry : Options.CheckOptions) {
    auto [Check, Option] = Entry.getKey().split('.');
    if (!Check.starts_with("dma-") || Option.empty() || llvm::is_contained(Known, Check))
      continue;
    std::optional<std::string> Meant = closestName(Check, Known);
    reportConfigurationError(Entry.getKey().str(),
                             "there is no check '" + Check.str() + "'" +
                                 (Meant ? "; did you mean '" + *Meant + "." + Option.str() + "'?"
                                        : std::string()));
  }
}

void DmaCheck::configurationError(const std::string &Message) {
  if (FileConfiguration::of(Tidy).fail(Message))
    configurationDiag(Message, DiagnosticIDs::Error);
}

void DmaCheck::reportConfigurationError(const std::string &Key, const std::string &Problem) {
  ApiValid = false;
  std::string What = StringRef(Key).starts_with(ApiOptionPrefix) ? "API model option" : "option";
  configurationError("invalid " + What + " '" + Key + "' " +
                     optionOrigin(Key, getCurrentMainFile(), Tidy.getOptions()) + ": " +
                     Problem);
}

void DmaCheck::registerApiValidation(ast_matchers::MatchFinder *Finder) {
  using namespace ast_matchers;
  FileConfiguration::of(Tidy).matchersRegistered();
  std::vector<StringRef> Types(Api->model().DescriptorTypes.begin(),
                               Api->model().DescriptorTypes.end());
  Finder->addMatcher(
      cxxRecordDecl(isDefinition(), apiInTranslationUnit(Api), hasAnyName(Types))
          .bind("dma-api-type"),
      this);
}

/// The definitions of descriptor types at namespace scope in \p DC, and the
/// declarations of the factories there.
static void descriptorDefinitions(const DeclContext &DC, const ApiIndex &Api,
                                  std::vector<const CXXRecordDecl *> &Found,
                                  std::vector<const FunctionDecl *> &Factories) {
  for (const Decl *D : DC.decls()) {
    if (const auto *RD = dyn_cast<CXXRecordDecl>(D)) {
      if (RD->isThisDeclarationADefinition() && Api.isDescriptorRecord(RD))
        Found.push_back(RD);
    } else if (isa<NamespaceDecl, LinkageSpecDecl, ExportDecl>(D)) {
      descriptorDefinitions(*cast<DeclContext>(D), Api, Found, Factories);
    } else if (const FunctionDecl *FD = D->getAsFunction()) {
      if (Api.mayName(FD) && (Api.roleOf(FD) != ApiRole::None || Api.semaphoreSignalOf(FD) ||
                              Api.semaphoreWaitOf(FD)))
        Factories.push_back(FD);
    }
  }
}

bool DmaCheck::validateApi(const ast_matchers::MatchFinder::MatchResult &Result) {
  // No check judges code that does not compile: what it says about the
  // code around an error would be about what clang guessed there.
  if (Result.Context->getDiagnostics().hasUncompilableErrorOccurred())
    return true;
  if (!Validated) {
    // Before anything is judged (a template instantiated ahead of the
    // descriptor type's definition is matched before it).
    Validated = true;
    validateAgainst(*Result.Context);
  }
  if (FileConfiguration::of(Tidy).broken())
    return true; // Judge nothing with a configuration that has errors.
  return Result.Nodes.getNodeAs<CXXRecordDecl>("dma-api-type") != nullptr;
}

void DmaCheck::validateAgainst(const ASTContext &Ctx) {
  if (!ApiValid || !Api->declaredIn(Ctx))
    return;
  std::vector<const CXXRecordDecl *> Types;
  std::vector<const FunctionDecl *> Functions;
  descriptorDefinitions(*Ctx.getTranslationUnitDecl(), *Api, Types, Functions);
  for (const CXXRecordDecl *Type : Types)
    validateRecord(*Type);
  validateFactories(Functions);
}

void DmaCheck::validateFactories(ArrayRef<const FunctionDecl *> Functions) {
  // The semaphore positions, against the factories the translation unit
  // declares (an overload set counts by its longest member).
  const ApiModel &M = Api->model();
  struct Position {
    const char *Key;
    unsigned Value;
    ApiRole Roles[2];
  };
  const Position Positions[] = {
      {"RemoteFactorySendSemParam", M.RemoteSendSemParam,
       {ApiRole::RemoteFactory, ApiRole::StartedRemoteFactory}},
      {"RemoteFactoryRecvSemParam", M.RemoteRecvSemParam,
       {ApiRole::RemoteFactory, ApiRole::StartedRemoteFactory}},
      {"LocalFactorySemParam", M.LocalSemParam,
       {ApiRole::LocalFactory, ApiRole::StartedLocalFactory}}};
  for (const Position &P : Positions) {
    std::map<std::string, unsigned> MostParams;
    for (const FunctionDecl *FD : Functions)
      if (llvm::is_contained(P.Roles, Api->roleOf(FD))) {
        unsigned &Most = MostParams[FD->getQualifiedNameAsString()];
        Most = std::max(Most, FD->getNumParams());
      }
    for (auto &[Name, Most] : MostParams)
      if (P.Value != NoPosition && P.Value >= Most)
        reportConfigurationError((ApiOptionPrefix + P.Key).str(),
                                 "position " + std::to_string(P.Value) +
                                     " is out of range: '" + Name + "' has " +
                                     std::to_string(Most) + " parameters");
  }
  // The barrier functions' semaphore and amount positions, the same way.
  for (bool Signal : {true, false}) {
    std::map<std::string, std::pair<unsigned, const SemaphoreCallUse *>> MostParams;
    for (const FunctionDecl *FD : Functions)
      if (const SemaphoreCallUse *Use =
              Signal ? Api->semaphoreSignalOf(FD) : Api->semaphoreWaitOf(FD)) {
        auto &[Most, Entry] = MostParams[FD->getQualifiedNameAsString()];
        Most = std::max(Most, FD->getNumParams());
        Entry = Use;
      }
    for (auto &[Name, Found] : MostParams) {
      auto [Most, Use] = Found;
      for (unsigned Position : {Use->SemaphoreParam, Use->AmountParam})
        if (Position != NoPosition && Position >= Most) {
          reportConfigurationError(
              (ApiOptionPrefix +
               (Signal ? "SemaphoreSignalFunctions" : "SemaphoreWaitFunctions"))
                  .str(),
              "position " + std::to_string(Position) + " is out of range: '" + Name +
                  "' has " + std::to_string(Most) + " parameters");
          break;
        }
    }
  }
}

void DmaCheck::validateRecord(const CXXRecordDecl &Type) {
  const ApiModel &M = Api->model();
  std::string TypeName = Type.getQualifiedNameAsString();
  auto HasMethod = [&](StringRef Name) {
    bool Found = false;
    auto Look = [&](const CXXRecordDecl *RD) {
      for (const CXXMethodDecl *MD : RD->methods())
        if (MD->getIdentifier() && MD->getName() == Name)
          Found = true;
      return true;
    };
    Look(&Type);
    Type.forallBases(Look);
    return Found;
  };
  static constexpr std::pair<ApiRole, const char *> MethodKeys[] = {
      {ApiRole::IsRemote, "IsRemoteMethod"}, {ApiRole::Start, "StartMethod"},
      {ApiRole::Wait, "WaitMethod"},         {ApiRole::WaitSend, "WaitSendMethod"},
      {ApiRole::WaitRecv, "WaitRecvMethod"}};
  for (auto &[Name, Role] : M.Methods) {
    if (HasMethod(Name))
      continue;
    for (auto &[KeyRole, Key] : MethodKeys)
      if (KeyRole == Role)
        reportConfigurationError((ApiOptionPrefix + Key).str(),
                                 "'" + TypeName + "' has no method '" + Name + "'");
  }
  unsigned MostParams = 0;
  for (const CXXConstructorDecl *Ctor : Type.ctors())
    if (!Ctor->isCopyOrMoveConstructor())
      MostParams = std::max(MostParams, Ctor->getNumParams());
  for (const Decl *D : Type.decls())
    if (const auto *FT = dyn_cast<FunctionTemplateDecl>(D))
      if (isa<CXXConstructorDecl>(FT->getTemplatedDecl()))
        MostParams = std::max(MostParams, FT->getTemplatedDecl()->getNumParams());
  auto CheckPosition = [&](const char *Key, unsigned Position) {
    if (Position != NoPosition && Position >= MostParams)
      reportConfigurationError((ApiOptionPrefix + Key).str(),
                               "position " + std::to_string(Position) + " is out of range: " +
                                   "no constructor of '" + TypeName + "' has more than " +
                                   std::to_string(MostParams) + " parameters");
  };
  CheckPosition("ConstructorSrcSemParam", M.CtorSrcSemParam);
  CheckPosition("ConstructorDeviceIdParam", M.CtorDeviceIdParam);
  CheckPosition("ConstructorDstSemParam", M.CtorDstSemParam);
}

SourceLocation userLocation(SourceLocation Loc, const SourceManager &SM) {
  return SM.isInSystemMacro(Loc) ? SM.getExpansionLoc(Loc) : Loc;
}

void DmaCheck::storeOptions(ClangTidyOptions::OptionMap &Opts) {
  for (auto &[Key, Value] : apiModelOptions(Api->model()))
    Opts[Key] = ClangTidyOptions::ClangTidyValue(Value);
}

} // namespace dmalint::checks
