//===- LspCompileCommands.cpp - Compile commands found as clangd finds them ===//
#include "LspCompileCommands.h"
#include "CompileCommands.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

using namespace clang;

namespace dmalint::lsp {

namespace {

constexpr llvm::StringLiteral CompileCommandsJson = "compile_commands.json";
constexpr llvm::StringLiteral BuildCompileCommandsJson = "build/compile_commands.json";
constexpr llvm::StringLiteral CompileFlagsTxt = "compile_flags.txt";
constexpr llvm::StringLiteral DatabaseFiles[] = {CompileCommandsJson, BuildCompileCommandsJson,
                                                 CompileFlagsTxt};

/// The one command of a file that has no database.
class FallbackDatabase : public tooling::CompilationDatabase {
public:
  FallbackDatabase(std::string Directory, std::vector<std::string> Flags)
      : Directory(std::move(Directory)), Flags(std::move(Flags)) {}

  std::vector<tooling::CompileCommand> getCompileCommands(llvm::StringRef File) const override {
    // clang++, so that a header is parsed as C++ (clang alone takes .h for C).
    std::vector<std::string> CommandLine = {"clang++"};
    CommandLine.insert(CommandLine.end(), Flags.begin(), Flags.end());
    CommandLine.push_back(File.str());
    tooling::CompileCommand Command(Directory, File, std::move(CommandLine), "");
    Command.Heuristic = "dmalint fallback flags";
    return {std::move(Command)};
  }

private:
  std::string Directory;
  std::vector<std::string> Flags;
};

} // namespace

CompileCommandFinder::CompileCommandFinder(std::string CompileCommandsDir,
                                           std::vector<std::string> FallbackFlags)
    : CompileCommandsDir(std::move(CompileCommandsDir)),
      FallbackFlags(std::move(FallbackFlags)) {}

llvm::ArrayRef<llvm::StringLiteral> CompileCommandFinder::databaseFileNames() {
  return DatabaseFiles;
}

void CompileCommandFinder::setCompileCommandsDir(std::string Dir) {
  std::lock_guard<std::mutex> Lock(Mutex);
  CompileCommandsDir = std::move(Dir);
}

void CompileCommandFinder::setFallbackFlags(std::vector<std::string> Flags) {
  std::lock_guard<std::mutex> Lock(Mutex);
  FallbackFlags = std::move(Flags);
}

std::vector<std::string> CompileCommandFinder::fallbackFlags() const {
  std::lock_guard<std::mutex> Lock(Mutex);
  return FallbackFlags;
}

const CompileCommandFinder::CachedDatabase *CompileCommandFinder::load(const std::string &File) {
  llvm::sys::fs::file_status Status;
  if (llvm::sys::fs::status(File, Status) || !llvm::sys::fs::is_regular_file(Status)) {
    Cache.erase(File);
    return nullptr;
  }
  auto It = Cache.find(File);
  if (It != Cache.end() && It->second.Modified == Status.getLastModificationTime() &&
      It->second.Size == Status.getSize())
    return &It->second;
  CachedDatabase &Entry = Cache[File];
  Entry.Modified = Status.getLastModificationTime();
  Entry.Size = Status.getSize();
  Entry.Error.clear();
  Entry.Database.reset();
  Entry.Rejected.clear();
  Entry.RejectedFiles.clear();
  llvm::Expected<tool::LoadedCompilations> Loaded = tool::loadDatabaseFile(File);
  if (!Loaded) {
    Entry.Error = llvm::toString(Loaded.takeError());
    return &Entry;
  }
  Entry.Database = std::move(Loaded->Database);
  for (tool::RejectedEntry &Rejected : Loaded->Rejected)
    Entry.Rejected.push_back(Rejected.DatabaseFile + ": " + Rejected.Problem);
  Entry.RejectedFiles = std::move(Loaded->RejectedFiles);
  return &Entry;
}

FoundCommand CompileCommandFinder::fallback(llvm::StringRef File, std::string Problem) {
  // The directory of the nearest .clang-tidy: where a project's relative
  // include paths are meant from.
  std::string Directory = llvm::sys::path::parent_path(File).str();
  for (llvm::StringRef Dir = Directory; !Dir.empty(); Dir = llvm::sys::path::parent_path(Dir)) {
    llvm::SmallString<256> Config(Dir);
    llvm::sys::path::append(Config, ".clang-tidy");
    if (llvm::sys::fs::is_regular_file(Config)) {
      Directory = Dir.str();
      break;
    }
  }
  FoundCommand Found;
  Found.Database = tool::withDriverAdjustments(
      std::make_unique<FallbackDatabase>(std::move(Directory), FallbackFlags));
  Found.Source.How = CommandSource::Fallback;
  Found.Source.Problem = std::move(Problem);
  return Found;
}

FoundCommand CompileCommandFinder::commandFor(llvm::StringRef File) {
  std::lock_guard<std::mutex> Lock(Mutex);
  std::vector<std::string> Candidates;
  std::string Where;
  if (!CompileCommandsDir.empty()) {
    for (llvm::StringRef Name : {CompileCommandsJson, CompileFlagsTxt}) {
      llvm::SmallString<256> Path(CompileCommandsDir);
      llvm::sys::path::append(Path, Name);
      Candidates.push_back(std::string(Path));
    }
    Where = "the --compile-commands-dir " + CompileCommandsDir;
  } else {
    for (llvm::StringRef Dir = llvm::sys::path::parent_path(File); !Dir.empty();
         Dir = llvm::sys::path::parent_path(Dir)) {
      for (llvm::StringRef Name : DatabaseFiles) {
        llvm::SmallString<256> Path(Dir);
        llvm::sys::path::append(Path, Name);
        Candidates.push_back(std::string(Path));
      }
    }
    Where = llvm::sys::path::parent_path(File).str() + " or any parent directory";
  }
  for (const std::string &Candidate : Candidates) {
    const CachedDatabase *Entry = load(Candidate);
    if (!Entry)
      continue;
    // The nearest database is the project's, even when it is broken.
    if (!Entry->Database)
      return fallback(File, Entry->Error);
    FoundCommand Found;
    Found.Source.DatabaseFile = Candidate;
    Found.RejectedEntries = Entry->Rejected;
    if (Entry->RejectedFiles.contains(File)) {
      // As the standalone: never analysed with another file's command.
      Found.Source.How = CommandSource::Rejected;
      Found.Source.Problem = "its entry in " + Candidate + " is unusable";
      return Found;
    }
    std::vector<tooling::CompileCommand> Commands = Entry->Database->getCompileCommands(File);
    if (Commands.empty()) {
      FoundCommand Fallback =
          fallback(File, "the compilation database " + Candidate + " lists no usable files");
      Fallback.RejectedEntries = std::move(Found.RejectedEntries);
      return Fallback;
    }
    Found.Database = Entry->Database;
    Found.Source.How =
        Commands.front().Heuristic.empty() ? CommandSource::Database : CommandSource::Interpolated;
    return Found;
  }
  return fallback(File, "no compile_commands.json, build/compile_commands.json or "
                        "compile_flags.txt in " +
                            Where);
}

} // namespace dmalint::lsp
