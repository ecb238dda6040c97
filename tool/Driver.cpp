//===- Driver.cpp - Compile commands in, clang-tidy findings out ----------===//
#include "Driver.h"
#include "clang-tidy/ClangTidy.h"
#include "clang/Basic/Version.h"
#include "clang/Tooling/ArgumentsAdjusters.h"
#include "clang/Tooling/CommonOptionsParser.h"
#include "clang/Tooling/JSONCompilationDatabase.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/VirtualFileSystem.h"

using namespace clang;
using namespace clang::tidy;

namespace dmalint::tool {

static llvm::Error inputError(const llvm::Twine &Message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), Message);
}

/// Adds -resource-dir (baked in at configure time) unless the command has one:
/// a LibTooling binary outside LLVM's bin/ does not find stddef.h and friends.
static tooling::ArgumentsAdjuster resourceDirAdjuster() {
  return [](const tooling::CommandLineArguments &Args, llvm::StringRef) {
    for (const std::string &Arg : Args)
      if (llvm::StringRef(Arg).starts_with("-resource-dir"))
        return Args;
    tooling::CommandLineArguments Adjusted = Args;
    Adjusted.insert(Adjusted.begin() + (Adjusted.empty() ? 0 : 1),
                    "-resource-dir=" DMALINT_CLANG_RESOURCE_DIR);
    return Adjusted;
  };
}

llvm::Expected<std::unique_ptr<tooling::CompilationDatabase>>
loadCompilations(const CompilationSource &Source,
                 const std::vector<std::string> &Files) {
  std::unique_ptr<tooling::CompilationDatabase> Base;
  if (Source.FixedFlags) {
    if (!Source.BuildPath.empty())
      return inputError("give either -p BUILD_DIR or compiler flags after '--', not both");
    llvm::SmallString<256> Here;
    llvm::sys::fs::current_path(Here);
    Base = std::make_unique<tooling::FixedCompilationDatabase>(Here, *Source.FixedFlags);
  } else if (!Source.BuildPath.empty()) {
    if (!llvm::sys::fs::exists(Source.BuildPath))
      return inputError("build directory '" + Source.BuildPath + "' does not exist");
    std::string Error;
    Base = tooling::CompilationDatabase::loadFromDirectory(Source.BuildPath, Error);
    if (!Base)
      return inputError("cannot load a compilation database from '" + Source.BuildPath +
                        "': " + Error);
    // Headers and new files get the command of the closest file in the
    // database, as in clang-tidy.
    Base = tooling::inferMissingCompileCommands(std::move(Base));
  } else {
    if (Files.empty())
      return inputError("no input files; give FILE... -- FLAGS or -p BUILD_DIR");
    std::string Error;
    Base = tooling::CompilationDatabase::autoDetectFromSource(Files.front(), Error);
    if (!Base)
      return inputError("no compilation database found for '" + Files.front() +
                        "' or any parent directory; pass -p BUILD_DIR, or the "
                        "compiler flags after '--' (e.g. dmalint " +
                        Files.front() + " -- -std=c++17 -Iinclude)");
    Base = tooling::inferMissingCompileCommands(std::move(Base));
  }
  auto Adjusted = std::make_unique<tooling::ArgumentsAdjustingCompilations>(std::move(Base));
  Adjusted->appendArgumentsAdjuster(resourceDirAdjuster());
  return std::unique_ptr<tooling::CompilationDatabase>(std::move(Adjusted));
}

ClangTidyOptions defaultOptions() {
  ClangTidyOptions Defaults = ClangTidyOptions::getDefaults();
  Defaults.Checks = "-*,dma-*";
  Defaults.HeaderFilterRegex = "";
  Defaults.SystemHeaders = false;
  Defaults.WarningsAsErrors = "";
  return Defaults;
}

static std::unique_ptr<ClangTidyOptionsProvider>
optionsProvider(const ClangTidyOptions &Overrides,
                llvm::IntrusiveRefCntPtr<llvm::vfs::FileSystem> FS) {
  return std::make_unique<FileOptionsProvider>(ClangTidyGlobalOptions(), defaultOptions(),
                                               Overrides, std::move(FS));
}

std::vector<ClangTidyError>
runChecks(const tooling::CompilationDatabase &Compilations,
          const std::vector<std::string> &Files, const ClangTidyOptions &Overrides) {
  // A physical file system of its own: ClangTool changes the working
  // directory per compile command, and this keeps that change to this run.
  llvm::IntrusiveRefCntPtr<llvm::vfs::FileSystem> FS(
      llvm::vfs::createPhysicalFileSystem().release());
  llvm::IntrusiveRefCntPtr<llvm::vfs::OverlayFileSystem> BaseFS(
      new llvm::vfs::OverlayFileSystem(FS));
  ClangTidyContext Context(optionsProvider(Overrides, FS));
  return runClangTidy(Context, Compilations, Files, BaseFS, /*ApplyAnyFix=*/false);
}

std::vector<std::string> enabledChecks(const std::string &File,
                                       const ClangTidyOptions &Overrides) {
  auto Provider = optionsProvider(Overrides, llvm::vfs::getRealFileSystem());
  ClangTidyOptions Effective = Provider->getOptions(File);
#if CLANG_VERSION_MAJOR >= 22
  return getCheckNames(Effective, /*AllowEnablingAnalyzerAlphaCheckers=*/false,
                       /*ExperimentalCustomChecks=*/false);
#else
  return getCheckNames(Effective, /*AllowEnablingAnalyzerAlphaCheckers=*/false);
#endif
}

} // namespace dmalint::tool
