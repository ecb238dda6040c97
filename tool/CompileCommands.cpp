//===- CompileCommands.cpp - Where each file's compile command comes from -===//
#include "CompileCommands.h"
#include "Paths.h"
#include "clang/Tooling/ArgumentsAdjusters.h"
#include "clang/Tooling/CommonOptionsParser.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

using namespace clang;

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
    Loaded.Directory = normalisedPath(Source.BuildPath);
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
        Loaded.Directory = normalisedPath(Dir);
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

} // namespace dmalint::tool
