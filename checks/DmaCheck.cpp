//===- DmaCheck.cpp - Base of every dma-* check: the API model from options ===//
#include "DmaCheck.h"
#include "clang-tidy/ClangTidyOptions.h"
#include "llvm/Support/VirtualFileSystem.h"
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

/// The configuration file (or "the command line") that set \p Key for
/// \p File: the last source that mentions it wins, as in clang-tidy.
std::optional<std::string> optionSource(llvm::StringRef Key, llvm::StringRef File) {
  FileOptionsProvider Provider(ClangTidyGlobalOptions(), ClangTidyOptions(), ClangTidyOptions(),
                               llvm::vfs::getRealFileSystem());
  std::optional<std::string> Source;
  for (const auto &[Options, Name] : Provider.getRawOptions(File))
    if (Options.CheckOptions.count(Key))
      Source = Name;
  return Source;
}

} // namespace

DmaCheck::DmaCheck(StringRef Name, ClangTidyContext *Context)
    : ClangTidyCheck(Name, Context) {
  std::map<std::string, std::string> Options;
  for (const auto &Entry : Context->getOptions().CheckOptions)
    if (Entry.getKey().starts_with(ApiOptionPrefix))
      Options[Entry.getKey().str()] = Entry.getValue().Value;
  const LoadedApi &Loaded = loadApi(Options);
  Api = Loaded.Index;
  ApiValid = Loaded.Errors.empty();
  for (const ApiOptionError &Error : Loaded.Errors) {
    InvalidKeys.insert(Error.Key);
    reportConfigurationError(Error.Key, Error.Message);
  }
}

void DmaCheck::reportConfigurationError(const std::string &Key, const std::string &Problem) {
  std::optional<std::string> Where = optionSource(Key, getCurrentMainFile());
  std::string Message =
      "invalid API model option '" + Key + "' " +
      (Where ? (*Where == "command-line option" ? "on the command line"
                                                : "in '" + *Where + "'")
             : std::string("(not set, so the built-in default)")) +
      ": " + Problem;
  // Every dma-* check loads the same options: say each problem once per file.
  thread_local std::set<std::pair<std::string, std::string>> Reported;
  if (Reported.insert({getCurrentMainFile().str(), Message}).second)
    configurationDiag(Message, DiagnosticIDs::Error);
}

void DmaCheck::registerApiValidation(ast_matchers::MatchFinder *Finder) {
  using namespace ast_matchers;
  std::vector<StringRef> Types(Api->model().DescriptorTypes.begin(),
                               Api->model().DescriptorTypes.end());
  Finder->addMatcher(
      cxxRecordDecl(isDefinition(), apiInTranslationUnit(Api), hasAnyName(Types))
          .bind("dma-api-type"),
      this);
}

bool DmaCheck::validateApi(const ast_matchers::MatchFinder::MatchResult &Result) {
  if (!ApiValid)
    return true; // Judge nothing with a model that has errors.
  const auto *Type = Result.Nodes.getNodeAs<CXXRecordDecl>("dma-api-type");
  if (!Type)
    return false;
  const ApiModel &M = Api->model();
  std::string TypeName = Type->getQualifiedNameAsString();
  auto HasMethod = [&](StringRef Name) {
    bool Found = false;
    auto Look = [&](const CXXRecordDecl *RD) {
      for (const CXXMethodDecl *MD : RD->methods())
        if (MD->getIdentifier() && MD->getName() == Name)
          Found = true;
      return true;
    };
    Look(Type);
    Type->forallBases(Look);
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
  for (const CXXConstructorDecl *Ctor : Type->ctors())
    if (!Ctor->isCopyOrMoveConstructor())
      MostParams = std::max(MostParams, Ctor->getNumParams());
  for (const FunctionTemplateDecl *Template : [&] {
         std::vector<const FunctionTemplateDecl *> Templates;
         for (const Decl *D : Type->decls())
           if (const auto *FT = dyn_cast<FunctionTemplateDecl>(D))
             if (isa<CXXConstructorDecl>(FT->getTemplatedDecl()))
               Templates.push_back(FT);
         return Templates;
       }())
    MostParams = std::max(MostParams, Template->getTemplatedDecl()->getNumParams());
  auto CheckPosition = [&](const char *Key, unsigned Position) {
    if (Position >= MostParams)
      reportConfigurationError((ApiOptionPrefix + Key).str(),
                               "position " + std::to_string(Position) + " is out of range: " +
                                   "no constructor of '" + TypeName + "' has more than " +
                                   std::to_string(MostParams) + " parameters");
  };
  CheckPosition("ConstructorSrcSemParam", M.CtorSrcSemParam);
  CheckPosition("ConstructorDeviceIdParam", M.CtorDeviceIdParam);
  return true;
}

void DmaCheck::storeOptions(ClangTidyOptions::OptionMap &Opts) {
  for (auto &[Key, Value] : apiModelOptions(Api->model()))
    Opts[Key] = ClangTidyOptions::ClangTidyValue(Value);
}

} // namespace dmalint::checks
