//===- Configuration.cpp - The options each file is checked with ---------===//
#include "Configuration.h"
#include "../checks/DmaCheck.h"
#include "clang-tidy/ClangTidy.h"
#include "clang-tidy/ClangTidyCheck.h"
#include "clang-tidy/ClangTidyDiagnosticConsumer.h"
#include "clang-tidy/ClangTidyModule.h"
#include "clang/Basic/Version.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"
#if CLANG_VERSION_MAJOR < 22 // Merged into ClangTidyModule.h (and deprecated) in 22.
#include "clang-tidy/ClangTidyModuleRegistry.h"
#endif

using namespace clang;
using namespace clang::tidy;

namespace dmalint::tool {

ClangTidyOptions defaultOptions() {
  ClangTidyOptions Defaults = ClangTidyOptions::getDefaults();
  Defaults.Checks = "-*,dma-*";
  Defaults.HeaderFilterRegex = "";
  Defaults.SystemHeaders = false;
  Defaults.WarningsAsErrors = "";
  return Defaults;
}

namespace {

/// A file system that hides a .clang-tidy that cannot be read: clang-tidy's
/// lookup then passes it by in silence instead of printing "Can't read" at
/// every lookup; the checks report it once per translation unit
/// (checks/ConfigurationErrors.h).
class UnreadableConfigHidingFileSystem : public llvm::vfs::ProxyFileSystem {
public:
  using ProxyFileSystem::ProxyFileSystem;
  llvm::ErrorOr<llvm::vfs::Status> status(const llvm::Twine &Path) override {
    llvm::SmallString<256> Name;
    Path.toVector(Name);
    if (llvm::sys::path::filename(Name) == ".clang-tidy" && !getBufferForFile(Name))
      return std::make_error_code(std::errc::no_such_file_or_directory);
    return ProxyFileSystem::status(Path);
  }
};

/// clang-tidy's FileOptionsProvider, except that a .clang-tidy that is not
/// valid YAML is not reported at every lookup (clang-tidy prints the YAML
/// error each time options are asked for): it counts as a file that sets
/// nothing, and the checks report it once as a configuration error.
class QuietFileOptionsProvider : public FileOptionsProvider {
public:
  QuietFileOptionsProvider(ClangTidyOptions Defaults, ClangTidyOptions Overrides,
                           llvm::IntrusiveRefCntPtr<llvm::vfs::FileSystem> Base)
      : FileOptionsProvider(ClangTidyGlobalOptions(), std::move(Defaults), std::move(Overrides),
                            quietHandlers()) {
    // The constructor with handlers leaves the file system unset.
    FS = llvm::makeIntrusiveRefCnt<UnreadableConfigHidingFileSystem>(std::move(Base));
  }

private:
  static ConfigFileHandlers quietHandlers() {
    ConfigFileHandlers Handlers;
    Handlers.emplace_back(".clang-tidy", [](llvm::MemoryBufferRef Config) {
      llvm::ErrorOr<ClangTidyOptions> Parsed =
          parseConfigurationWithDiags(Config, [](const llvm::SMDiagnostic &) {});
      return Parsed ? Parsed : llvm::ErrorOr<ClangTidyOptions>(ClangTidyOptions());
    });
    return Handlers;
  }
};

} // namespace

std::unique_ptr<ClangTidyOptionsProvider>
optionsProvider(const ClangTidyOptions &Overrides,
                llvm::IntrusiveRefCntPtr<llvm::vfs::FileSystem> FS) {
  // clang-tidy's library brings the static analyzer's checks along; a
  // project's .clang-tidy often enables them for clang-tidy, but dmalint runs
  // only the dma-* checks, so they are disabled after everything else.
  ClangTidyOptions Forced = Overrides;
  Forced.Checks = Overrides.Checks ? *Overrides.Checks + ",-clang-analyzer-*"
                                   : std::string("-clang-analyzer-*");
  return std::make_unique<QuietFileOptionsProvider>(defaultOptions(), Forced, std::move(FS));
}

ContextDiagnostics::ContextDiagnostics(ClangTidyContext &Context, DiagnosticConsumer &Consumer)
    : Options(std::make_unique<DiagnosticOptions>()) {
#if CLANG_VERSION_MAJOR >= 22
  Engine = std::make_unique<DiagnosticsEngine>(new DiagnosticIDs(), *Options, &Consumer,
                                               /*ShouldOwnClient=*/false);
  Context.setDiagnosticsEngine(std::make_unique<DiagnosticOptions>(*Options), Engine.get());
#else
  Engine = std::make_unique<DiagnosticsEngine>(new DiagnosticIDs(), Options.release(), &Consumer,
                                               /*ShouldOwnClient=*/false);
  Context.setDiagnosticsEngine(Engine.get());
#endif
}

ContextDiagnostics::~ContextDiagnostics() = default;

CheckedConfiguration checkConfiguration(const std::string &File, const ClangTidyOptions &Overrides,
                                        bool AllChecks) {
  CheckedConfiguration Result;
  ClangTidyContext Context(optionsProvider(Overrides, llvm::vfs::getRealFileSystem()));
  ClangTidyDiagnosticConsumer Consumer(Context);
  ContextDiagnostics Diagnostics(Context, Consumer);
  Context.setCurrentFile(File);
  Result.Effective = Context.getOptions();
  // As clang-tidy --dump-config: each check stores its options.
  ClangTidyCheckFactories Factories;
  for (const ClangTidyModuleRegistry::entry &Module : ClangTidyModuleRegistry::entries())
    Module.instantiate()->addCheckFactories(Factories);
  ClangTidyOptions Stored;
  for (const auto &Factory : Factories) {
    if (!AllChecks && !Context.isCheckEnabled(Factory.getKey()))
      continue;
    std::unique_ptr<ClangTidyCheck> Check = Factory.getValue()(Factory.getKey(), &Context);
    Check->storeOptions(Stored.CheckOptions);
  }
  // The API model once, as `dma.X`: the copies a check stores under its own
  // name (for clang-tidy 21 and later, which print only those) say the same.
  for (auto It = Stored.CheckOptions.begin(); It != Stored.CheckOptions.end();) {
    auto [Check, Option] = It->getKey().split('.');
    auto Next = std::next(It);
    if (Check.starts_with("dma-") && checks::isApiOptionName(Option))
      Stored.CheckOptions.erase(It);
    It = Next;
  }
  Result.Effective = Result.Effective.merge(Stored, 0);
  for (const ClangTidyError &E : Consumer.take())
    Result.Errors.push_back(E.Message.Message);
  return Result;
}

std::optional<std::string> checkOption(const std::string &File,
                                       const ClangTidyOptions &Overrides, StringRef Key) {
  auto Provider = optionsProvider(Overrides, llvm::vfs::getRealFileSystem());
  ClangTidyOptions Effective = Provider->getOptions(File);
  auto It = Effective.CheckOptions.find(Key);
  if (It == Effective.CheckOptions.end())
    return std::nullopt;
  return It->getValue().Value;
}

std::vector<std::string> registeredChecks() {
  // The registered modules' checks (clang-tidy's getCheckNames would also
  // match the static analyzer's few hundred names against the globs).
  ClangTidyCheckFactories Factories;
  for (const ClangTidyModuleRegistry::entry &Module : ClangTidyModuleRegistry::entries())
    Module.instantiate()->addCheckFactories(Factories);
  std::vector<std::string> Names;
  for (const auto &Factory : Factories)
    Names.push_back(Factory.getKey().str());
  llvm::sort(Names);
  return Names;
}

std::vector<std::string> enabledChecks(const std::string &File,
                                       const ClangTidyOptions &Overrides) {
  ClangTidyContext Context(optionsProvider(Overrides, llvm::vfs::getRealFileSystem()));
  Context.setCurrentFile(File);
  std::vector<std::string> Names = registeredChecks();
  llvm::erase_if(Names, [&](const std::string &Name) { return !Context.isCheckEnabled(Name); });
  return Names;
}

} // namespace dmalint::tool
