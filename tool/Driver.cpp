//===- Driver.cpp - Compile commands in, clang-tidy findings out ----------===//
#include "Driver.h"
#include "clang-tidy/ClangTidy.h"
#include "clang-tidy/ClangTidyModule.h"
#include "clang/Basic/Version.h"
#include "clang/Tooling/ArgumentsAdjusters.h"
#include "clang/Tooling/CommonOptionsParser.h"
#include "clang/Tooling/JSONCompilationDatabase.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/ThreadPool.h"
#include <mutex>
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
/// Also turns off clang's "N warnings generated." line: dmalint reports what
/// it found itself, and those counts include compiler warnings it filtered.
static tooling::ArgumentsAdjuster driverAdjuster() {
  return [](const tooling::CommandLineArguments &Args, llvm::StringRef) {
    tooling::CommandLineArguments Adjusted = Args;
    auto At = Adjusted.begin() + (Adjusted.empty() ? 0 : 1);
    At = Adjusted.insert(At, "-fno-caret-diagnostics") + 1;
    bool HasResourceDir = llvm::any_of(Args, [](const std::string &Arg) {
      return llvm::StringRef(Arg).starts_with("-resource-dir");
    });
    if (!HasResourceDir)
      Adjusted.insert(At, "-resource-dir=" DMALINT_CLANG_RESOURCE_DIR);
    return Adjusted;
  };
}

static std::string absoluteDirectory(llvm::StringRef Directory) {
  llvm::SmallString<256> Path(Directory);
  llvm::sys::fs::make_absolute(Path);
  llvm::sys::path::remove_dots(Path, /*remove_dot_dot=*/true);
  return std::string(Path);
}

llvm::Expected<LoadedCompilations> loadCompilations(const CompilationSource &Source,
                                                    const std::vector<std::string> &Files) {
  LoadedCompilations Loaded;
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
    Loaded.Directory = absoluteDirectory(Source.BuildPath);
    // Headers and new files get the command of the closest file in the
    // database, as in clang-tidy.
    Base = tooling::inferMissingCompileCommands(std::move(Base));
  } else {
    if (Files.empty())
      return inputError("no input files; give FILE... -- FLAGS or -p BUILD_DIR");
    // CompilationDatabase::autoDetectFromSource, spelled out to learn where
    // the database is (reports' paths are relative to it).
    std::string Error;
    for (llvm::StringRef Dir = llvm::sys::path::parent_path(Files.front()); !Dir.empty();
         Dir = llvm::sys::path::parent_path(Dir)) {
      if ((Base = tooling::CompilationDatabase::loadFromDirectory(Dir, Error))) {
        Loaded.Directory = absoluteDirectory(Dir);
        break;
      }
    }
    if (!Base)
      return inputError("no compilation database found for '" + Files.front() +
                        "' or any parent directory; pass -p BUILD_DIR, or the "
                        "compiler flags after '--' (e.g. dmalint " +
                        Files.front() + " -- -std=c++17 -Iinclude)");
    Base = tooling::inferMissingCompileCommands(std::move(Base));
  }
  auto Adjusted = std::make_unique<tooling::ArgumentsAdjustingCompilations>(std::move(Base));
  Adjusted->appendArgumentsAdjuster(driverAdjuster());
  Loaded.Database = std::move(Adjusted);
  return std::move(Loaded);
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

/// One translation unit, with its own context and file system so that runs
/// can share nothing: ClangTool changes the working directory per compile
/// command, and a physical file system of its own keeps that to this run.
static std::vector<ClangTidyError> runOne(const tooling::CompilationDatabase &Compilations,
                                          const std::string &File,
                                          const ClangTidyOptions &Overrides) {
  llvm::IntrusiveRefCntPtr<llvm::vfs::FileSystem> FS(
      llvm::vfs::createPhysicalFileSystem().release());
  llvm::IntrusiveRefCntPtr<llvm::vfs::OverlayFileSystem> BaseFS(
      new llvm::vfs::OverlayFileSystem(FS));
  ClangTidyContext Context(optionsProvider(Overrides, FS));
  return runClangTidy(Context, Compilations, {File}, BaseFS, /*ApplyAnyFix=*/false);
}

static bool sameFinding(const ClangTidyError &A, const ClangTidyError &B) {
  return A.DiagnosticName == B.DiagnosticName && A.Message.Message == B.Message.Message &&
         A.Message.FilePath == B.Message.FilePath &&
         A.Message.FileOffset == B.Message.FileOffset;
}

std::vector<ClangTidyError>
runChecks(const tooling::CompilationDatabase &Compilations,
          const std::vector<std::string> &Files, const ClangTidyOptions &Overrides,
          unsigned Jobs, const std::function<void(size_t Done)> &Progress) {
  std::vector<std::vector<ClangTidyError>> PerFile(Files.size());
  std::mutex ProgressMutex;
  size_t Done = 0;
  auto Run = [&](size_t I) {
    PerFile[I] = runOne(Compilations, Files[I], Overrides);
    std::lock_guard<std::mutex> Lock(ProgressMutex);
    if (Progress)
      Progress(++Done);
  };
  if (Jobs == 1 || Files.size() == 1) {
    for (size_t I = 0; I < Files.size(); ++I)
      Run(I);
  } else {
    llvm::DefaultThreadPool Pool(llvm::hardware_concurrency(Jobs));
    for (size_t I = 0; I < Files.size(); ++I)
      Pool.async([&Run, I] { Run(I); });
    Pool.wait();
  }
  // Input order, whatever the scheduling; a header's finding seen by several
  // translation units once.
  std::vector<ClangTidyError> All;
  for (std::vector<ClangTidyError> &Errors : PerFile)
    for (ClangTidyError &E : Errors)
      if (llvm::none_of(All, [&](const ClangTidyError &Seen) { return sameFinding(Seen, E); }))
        All.push_back(std::move(E));
  return All;
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
