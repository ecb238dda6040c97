//===- Configuration.cpp - The options each file is checked with ---------===//
#include "Configuration.h"
#include "clang-tidy/ClangTidy.h"
#include "clang-tidy/ClangTidyDiagnosticConsumer.h"
#include "clang-tidy/ClangTidyModule.h"
#include "clang/Basic/Version.h"
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

std::unique_ptr<ClangTidyOptionsProvider>
optionsProvider(const ClangTidyOptions &Overrides,
                llvm::IntrusiveRefCntPtr<llvm::vfs::FileSystem> FS) {
  // clang-tidy's library brings the static analyzer's checks along; a
  // project's .clang-tidy often enables them for clang-tidy, but dmalint runs
  // only the dma-* checks, so they are disabled after everything else.
  ClangTidyOptions Forced = Overrides;
  Forced.Checks = Overrides.Checks ? *Overrides.Checks + ",-clang-analyzer-*"
                                   : std::string("-clang-analyzer-*");
  return std::make_unique<FileOptionsProvider>(ClangTidyGlobalOptions(), defaultOptions(),
                                               Forced, std::move(FS));
}

std::string effectiveConfiguration(const std::string &File, const ClangTidyOptions &Overrides) {
  auto Provider = optionsProvider(Overrides, llvm::vfs::getRealFileSystem());
  ClangTidyOptions Effective = Provider->getOptions(File);
  // As clang-tidy --dump-config: each enabled check stores its options.
  ClangTidyContext Context(optionsProvider(Overrides, llvm::vfs::getRealFileSystem()));
  Context.setCurrentFile(File);
  ClangTidyASTConsumerFactory Factory(Context);
  ClangTidyOptions Stored;
  Stored.CheckOptions = Factory.getCheckOptions();
  Effective = Effective.merge(Stored, 0);
  return configurationAsText(Effective);
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
