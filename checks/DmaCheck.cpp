//===- DmaCheck.cpp - Base of every dma-* check: the API model from options ===//
#include "DmaCheck.h"
#include "dmalint/Arguments.h"
#include "ConfigurationErrors.h"
#include "clang-tidy/ClangTidyOptions.h"
#include "clang/AST/DeclCXX.h"
#include "clang/Basic/Version.h"
#include "llvm/ADT/DenseMap.h"
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
    if (!Option.consume_front(Prefix) || llvm::is_contained(OwnOptions, Option) ||
        isApiOptionName(Option))
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
  // clang-tidy's --verify-config learns the valid keys from what checks read
  // (OptionsView records each key it looks up); the model is read here.
  if (llvm::StringSet<> *Collector = Context->getOptionsCollector())
    for (auto &[Key, Value] : apiModelOptions(ApiModel::builtin())) {
      Collector->insert(Key);
      Collector->insert(Prefix + Key.substr(ApiOptionPrefix.size()));
    }
  // The model's keys are read as clang-tidy reads an option that checks
  // share (getLocalOrGlobal): `<check>.X` first, then `dma.X`. The local
  // spelling is what clang-tidy 21 and later show in --dump-config (they
  // print only keys named after an enabled check), so a dumped configuration
  // reads back as it was.
  std::map<std::string, std::string> Options; // dma.X -> value
  std::map<std::string, std::string> Given;   // dma.X -> the key it came from
  for (const auto &Entry : Context->getOptions().CheckOptions) {
    StringRef Key = Entry.getKey();
    if (Key.starts_with(ApiOptionPrefix)) {
      if (Given.try_emplace(Key.str(), Key.str()).second)
        Options[Key.str()] = Entry.getValue().Value;
    } else if (StringRef Option = Key; Option.consume_front(Prefix) && isApiOptionName(Option)) {
      std::string Shared = (ApiOptionPrefix + Option).str();
      Options[Shared] = Entry.getValue().Value;
      Given[Shared] = Key.str();
    }
  }
  const LoadedApi &Loaded = loadApi(Options);
  Api = Loaded.Index;
  ApiValid = Loaded.Errors.empty();
  for (const ApiOptionError &Error : Loaded.Errors) {
    auto It = Given.find(Error.Key);
    reportConfigurationError(It == Given.end() ? Error.Key : It->second, Error.Message);
  }
  // One model for every check of a file: the analysis they share is of one
  // API. A local key that makes one check's model differ is an error.
  if (!ApiValid)
    return;
  std::map<std::string, std::string> Effective = apiModelOptions(Api->model());
  FileConfiguration &File = Config;
  if (!File.Model) {
    File.Model = Effective;
    File.ModelGiven = Given;
    File.ModelCheck = Name.str();
    return;
  }
  for (const auto &[Key, Mine] : Effective) {
    const std::string &Theirs = (*File.Model)[Key];
    if (Mine == Theirs)
      continue;
    auto Spelled = [&, &Key = Key](const std::map<std::string, std::string> &From) {
      auto It = From.find(Key);
      return It == From.end() ? std::string("the built-in model") : It->second;
    };
    std::string MineKey = Spelled(Given), TheirsKey = Spelled(File.ModelGiven);
    reportConfigurationError(Given.count(Key) ? MineKey : TheirsKey,
                             "the dma-* checks share one API model, but " + Name.str() +
                                 " reads '" + Mine + "' (" + MineKey + ") and " +
                                 File.ModelCheck + " reads '" + Theirs + "' (" + TheirsKey +
                                 ")");
    break;
  }
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
  auto [Check, Option] = StringRef(Key).split('.');
  std::string What = StringRef(Key).starts_with(ApiOptionPrefix) ||
                             (Check.starts_with("dma-") && isApiOptionName(Option))
                         ? "API model option"
                         : "option";
  configurationError("invalid " + What + " '" + Key + "' " +
                     optionOrigin(Key, getCurrentMainFile(), Tidy.getOptions()) + ": " +
                     Problem);
}

namespace {
struct Registered {
  /// Owned by the checks: gone with them (the plugin never takes it).
  std::weak_ptr<MatchDispatch> Dispatch;
  unsigned Checks = 0;
};
/// Per thread: the standalone runs translation units in threads, each
/// registering with its own finder and walking on the same thread.
thread_local llvm::DenseMap<const ast_matchers::MatchFinder *, Registered> RegisteredWith;

/// The definition of a descriptor type (the model's validation reads it):
/// its name as hasAnyName would match it, a suffix of the qualified name.
bool definesDescriptorType(const CXXRecordDecl &RD, ASTContext &Ctx, const ApiIndex &Api) {
  if (!RD.isThisDeclarationADefinition() || !Api.mayName(&RD) || !apiSeen(Ctx, Api))
    return false;
  const auto &Types = Api.model().DescriptorTypes;
  return !Types.empty() &&
         ast_matchers::internal::HasNameMatcher({Types.begin(), Types.end()}).matchesNode(RD);
}
} // namespace

bool definitionUsingApi(const FunctionDecl &FD, ASTContext &Ctx, const ApiIndex &Api) {
  return userDefinitionWithApi(FD, Ctx, Api) && AnalysisCache::current().usesApi(FD, Api);
}

bool callsDescriptorMethod(const CXXMemberCallExpr &Call, ASTContext &Ctx, const ApiIndex &Api) {
  const CXXMethodDecl *Method = Call.getMethodDecl();
  return Method && Api.isDescriptorRecord(Method->getParent()) && apiSeen(Ctx, Api);
}

bool constructsDescriptor(const CXXConstructExpr &Construct, ASTContext &Ctx,
                          const ApiIndex &Api) {
  return Api.isDescriptorRecord(Construct.getConstructor()->getParent()) && apiSeen(Ctx, Api);
}

bool forwardsDescriptorConstruction(const CallExpr &Call, ASTContext &Ctx,
                                    const ApiIndex &Api) {
  // The name first: every call of the translation unit is asked.
  return mayForwardConstruction(Call.getDirectCallee()) && apiSeen(Ctx, Api) &&
         forwardedConstruction(Call, Api).has_value();
}

bool makesCopy(const CallExpr &Call, ASTContext &Ctx, const ApiIndex &Api) {
  return Api.isCopy(Call) && apiSeen(Ctx, Api);
}

bool makesCopy(const CXXConstructExpr &Construct, ASTContext &Ctx, const ApiIndex &Api) {
  return Api.isCopy(Construct) && apiSeen(Ctx, Api);
}

bool takesDeviceId(const CallExpr &Call, ASTContext &Ctx, const ApiIndex &Api) {
  return Api.deviceIdUseOf(Call.getDirectCallee()) != nullptr && apiSeen(Ctx, Api);
}

bool takesDeviceId(const CXXConstructExpr &Construct, ASTContext &Ctx, const ApiIndex &Api) {
  return Api.deviceIdUseOf(Construct.getConstructor()) != nullptr && apiSeen(Ctx, Api);
}

std::shared_ptr<MatchDispatch> takeMatchDispatch(const ast_matchers::MatchFinder &Finder,
                                                 unsigned &Checks) {
  Registered R = RegisteredWith.lookup(&Finder);
  RegisteredWith.erase(&Finder);
  Checks = R.Checks;
  return R.Dispatch.lock();
}

void DmaCheck::registerMatchers(ast_matchers::MatchFinder *Finder) {
  bool First = FileConfiguration::of(Tidy).matchersRegistered();
  Registered &Record = RegisteredWith[Finder];
  // The first check of a translation unit makes its dispatch; a record left
  // by a finder of an earlier translation unit at the same address is not
  // this one's.
  Dispatch = First ? nullptr : Record.Dispatch.lock();
  if (!Dispatch) {
    Dispatch = std::make_shared<MatchDispatch>(*Finder);
    Record = Registered{Dispatch, 0};
  }
  ++Record.Checks;
  DmaMatchers Matchers(*Dispatch, *this, Api);
  // The validation needs a descriptor type's definition matched once per
  // translation unit, not once per check: every check validates at its
  // first match anyway, and the errors are the file's (FileConfiguration),
  // so the first check's match reports them whichever checks run.
  if (First)
    Matchers.add<CXXRecordDecl, definesDescriptorType>("dma-api-type");
  registerDmaMatchers(Matchers);
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
  for (auto &[Key, Value] : apiModelOptions(Api->model())) {
    Opts[Key] = ClangTidyOptions::ClangTidyValue(Value);
#if CLANG_VERSION_MAJOR >= 21
    // clang-tidy 21 and later print only the keys of enabled checks: the
    // model under this check's name too, where it reads it first.
    Opts[(getID() + "." + StringRef(Key).drop_front(ApiOptionPrefix.size())).str()] =
        ClangTidyOptions::ClangTidyValue(Value);
#endif
  }
}

bool isApiOptionName(StringRef Option) {
  static const std::set<std::string> Names = [] {
    std::set<std::string> All;
    for (auto &[Key, Value] : apiModelOptions(ApiModel::builtin()))
      All.insert(Key.substr(ApiOptionPrefix.size()));
    return All;
  }();
  return Names.count(Option.str()) != 0;
}

} // namespace dmalint::checks
