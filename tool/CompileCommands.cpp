//===- CompileCommands.cpp - Where each file's compile command comes from -===//
#include "CompileCommands.h"
#include "Paths.h"
#include "clang/Tooling/ArgumentsAdjusters.h"
#include "clang/Tooling/CommonOptionsParser.h"
#include "clang/Tooling/JSONCompilationDatabase.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/SHA256.h"
#include "llvm/Support/VirtualFileSystem.h"

using namespace clang;

namespace dmalint::tool {

namespace {

llvm::Error inputError(const llvm::Twine &Message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), Message);
}

/// Adds -resource-dir (baked in at configure time) unless the command has one:
/// a LibTooling binary outside LLVM's bin/ does not find stddef.h and friends.
/// Also turns off clang's "N warnings generated." line: dmalint reports what
/// it found itself, and those counts include compiler warnings it filtered.
tooling::ArgumentsAdjuster driverAdjuster() {
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

/// What LibTooling's JSON plugin wraps a database in.
std::unique_ptr<tooling::CompilationDatabase>
asLibToolingDoes(std::unique_ptr<tooling::CompilationDatabase> Base) {
  return tooling::inferTargetAndDriverMode(tooling::inferMissingCompileCommands(
      tooling::expandResponseFiles(std::move(Base), llvm::vfs::getRealFileSystem())));
}

/// Reads \p Path (a compile_commands.json in \p Directory) strictly: the
/// entries LibTooling can use, with absolute directories, are handed to it;
/// the others are recorded in \p Loaded.
llvm::Error loadJsonDatabase(llvm::StringRef Path, llvm::StringRef Directory,
                             LoadedCompilations &Loaded) {
  auto Buffer = llvm::MemoryBuffer::getFile(Path, /*IsText=*/true);
  if (!Buffer)
    return inputError("cannot read the compilation database '" + Path +
                      "': " + Buffer.getError().message());
  llvm::Expected<llvm::json::Value> Document = llvm::json::parse((*Buffer)->getBuffer());
  if (!Document)
    return inputError("the compilation database '" + Path + "' is not valid JSON: " +
                      llvm::toString(Document.takeError()));
  const llvm::json::Array *Entries = Document->getAsArray();
  if (!Entries)
    return inputError("the compilation database '" + Path +
                      "' is not a JSON array of compile commands");
  llvm::json::Array Usable;
  llvm::StringSet<> UsableFiles;
  std::vector<RejectedEntry> Rejected;
  for (size_t I = 0; I < Entries->size(); ++I) {
    std::string Problem, File;
    const llvm::json::Object *Entry = (*Entries)[I].getAsObject();
    std::optional<llvm::StringRef> Dir = Entry ? Entry->getString("directory") : std::nullopt;
    std::optional<llvm::StringRef> Name = Entry ? Entry->getString("file") : std::nullopt;
    const llvm::json::Value *Command = Entry ? Entry->get("command") : nullptr;
    const llvm::json::Value *Arguments = Entry ? Entry->get("arguments") : nullptr;
    // The directory is the compilation's working directory; a relative one
    // is read as relative to the database's own directory.
    std::string AbsoluteDir =
        Dir ? absolutePath(*Dir, Directory) : std::string();
    if (Name && !Name->empty())
      File = absolutePath(*Name, AbsoluteDir.empty() ? Directory : llvm::StringRef(AbsoluteDir));
    auto AllStrings = [](const llvm::json::Array &A) {
      return !A.empty() && llvm::all_of(A, [](const llvm::json::Value &V) {
        return V.getAsString().has_value();
      });
    };
    if (!Entry)
      Problem = "is not an object";
    else if (!Dir)
      Problem = "has no \"directory\" string";
    else if (!Name || Name->empty())
      Problem = "has no \"file\" string";
    else if (!Command && !Arguments)
      Problem = "has neither \"command\" nor \"arguments\"";
    else if (Command && !Command->getAsString())
      Problem = "has a \"command\" that is not a string";
    else if (Command && Command->getAsString()->trim().empty())
      Problem = "has an empty \"command\"";
    else if (Arguments && !(Arguments->getAsArray() && AllStrings(*Arguments->getAsArray())))
      Problem = "has \"arguments\" that are not a list of strings";
    else if (!llvm::sys::fs::is_directory(AbsoluteDir))
      Problem = "has the directory '" + AbsoluteDir + "', which does not exist";
    else if (!llvm::sys::fs::exists(File))
      Problem = "has the file '" + File + "', which does not exist";
    if (Problem.empty()) {
      llvm::json::Object Fixed = *Entry;
      Fixed["directory"] = AbsoluteDir;
      Fixed["file"] = File;
      Usable.push_back(std::move(Fixed));
      UsableFiles.insert(File);
      continue;
    }
    bool NamesFile = Problem.find("has the file") == 0;
    std::string What = "entry " + std::to_string(I + 1);
    if (Name && !Name->empty() && !NamesFile)
      What += " ('" + Name->str() + "')";
    Rejected.push_back({Path.str(), File, What + " " + Problem});
  }
  // A file with another, usable entry is analysed with that one.
  for (RejectedEntry &Entry : Rejected) {
    if (Entry.File.empty() || UsableFiles.contains(Entry.File)) {
      Entry.Problem += "; the entry is ignored";
    } else {
      Entry.Problem += "; the file is not analysed";
      Loaded.RejectedFiles.insert(Entry.File);
    }
    Loaded.Rejected.push_back(std::move(Entry));
  }
  std::string Error;
  std::string Text;
  llvm::raw_string_ostream(Text) << llvm::json::Value(std::move(Usable));
  std::unique_ptr<tooling::CompilationDatabase> Base =
      tooling::JSONCompilationDatabase::loadFromBuffer(Text, Error,
                                                       tooling::JSONCommandLineSyntax::AutoDetect);
  if (!Base)
    return inputError("cannot load the compilation database '" + Path + "': " + Error);
  Loaded.Database = asLibToolingDoes(std::move(Base));
  Loaded.Directory = Directory.str();
  return llvm::Error::success();
}

/// Loads the database file \p Path: a compile_commands.json (read
/// strictly) or a compile_flags.txt, in \p Directory.
llvm::Error loadDatabaseFileInto(llvm::StringRef Path, llvm::StringRef Directory,
                                 LoadedCompilations &Loaded) {
  if (llvm::sys::path::filename(Path) != "compile_flags.txt")
    return loadJsonDatabase(Path, Directory, Loaded);
  std::string Error;
  std::unique_ptr<tooling::CompilationDatabase> Base =
      tooling::FixedCompilationDatabase::loadFromFile(Path, Error);
  if (!Base)
    return inputError("cannot load '" + Path + "': " + Error);
  Loaded.Database = tooling::inferTargetAndDriverMode(std::move(Base));
  Loaded.Directory = Directory.str();
  return llvm::Error::success();
}

/// Loads the database in \p Directory: compile_commands.json, else
/// compile_flags.txt (as LibTooling). False, with nothing loaded, when
/// neither is there.
llvm::Expected<bool> loadFromDirectory(llvm::StringRef Dir, LoadedCompilations &Loaded) {
  std::string Directory = normalisedPath(Dir);
  for (llvm::StringRef Name : {"compile_commands.json", "compile_flags.txt"}) {
    llvm::SmallString<256> Path(Directory);
    llvm::sys::path::append(Path, Name);
    if (!llvm::sys::fs::exists(Path))
      continue;
    if (llvm::Error Err = loadDatabaseFileInto(Path, Directory, Loaded))
      return std::move(Err);
    return true;
  }
  return false;
}

} // namespace

llvm::Expected<LoadedCompilations> loadCompilations(const CompilationSource &Source,
                                                    const std::vector<std::string> &Files) {
  LoadedCompilations Loaded;
  if (Source.FixedFlags) {
    if (!Source.BuildPath.empty())
      return inputError("give either -p BUILD_DIR or compiler flags after '--', not both");
    if (Files.empty())
      return inputError("no input files: give the files to check before '--' "
                        "(dmalint FILE... -- FLAGS)");
    llvm::SmallString<256> Here;
    llvm::sys::fs::current_path(Here);
    Loaded.Database = std::make_unique<tooling::FixedCompilationDatabase>(Here, *Source.FixedFlags);
  } else if (!Source.BuildPath.empty()) {
    if (!llvm::sys::fs::exists(Source.BuildPath))
      return inputError("build directory '" + Source.BuildPath + "' does not exist");
    if (!llvm::sys::fs::is_directory(Source.BuildPath))
      return inputError("'" + Source.BuildPath +
                        "' is not a directory; -p takes the build directory that holds "
                        "compile_commands.json");
    llvm::Expected<bool> Found = loadFromDirectory(Source.BuildPath, Loaded);
    if (!Found)
      return Found.takeError();
    if (!*Found)
      return inputError("no compilation database in '" + Source.BuildPath +
                        "': it holds no compile_commands.json (CMake writes one with "
                        "-DCMAKE_EXPORT_COMPILE_COMMANDS=ON) and no compile_flags.txt");
  } else {
    if (Files.empty())
      return inputError("no input files; give FILE... -- FLAGS or -p BUILD_DIR");
    // CompilationDatabase::autoDetectFromSource, spelled out to learn where
    // the database is (reports' paths are relative to it).
    bool Found = false;
    for (llvm::StringRef Dir = llvm::sys::path::parent_path(Files.front()); !Dir.empty();
         Dir = llvm::sys::path::parent_path(Dir)) {
      llvm::Expected<bool> Here = loadFromDirectory(Dir, Loaded);
      if (!Here)
        return Here.takeError();
      if ((Found = *Here))
        break;
    }
    if (!Found)
      return inputError("no compilation database found for '" + Files.front() +
                        "' or any parent directory; pass -p BUILD_DIR, or the "
                        "compiler flags after '--' (e.g. dmalint " +
                        Files.front() + " -- -std=c++17 -Iinclude)");
  }
  Loaded.Database = withDriverAdjustments(std::move(Loaded.Database));
  return std::move(Loaded);
}

std::unique_ptr<tooling::CompilationDatabase>
withDriverAdjustments(std::unique_ptr<tooling::CompilationDatabase> Base) {
  auto Adjusted = std::make_unique<tooling::ArgumentsAdjustingCompilations>(std::move(Base));
  Adjusted->appendArgumentsAdjuster(driverAdjuster());
  return Adjusted;
}

llvm::Expected<LoadedCompilations> loadDatabaseFile(llvm::StringRef Path) {
  LoadedCompilations Loaded;
  std::string File = normalisedPath(Path);
  if (llvm::Error Err =
          loadDatabaseFileInto(File, llvm::sys::path::parent_path(File), Loaded))
    return std::move(Err);
  Loaded.Database = withDriverAdjustments(std::move(Loaded.Database));
  return std::move(Loaded);
}

unsigned shardOf(llvm::StringRef PortablePath, unsigned Shards) {
  std::array<uint8_t, 32> Digest = llvm::SHA256::hash(llvm::arrayRefFromStringRef(PortablePath));
  uint64_t Value = 0;
  for (unsigned I = 0; I < 8; ++I)
    Value = Value << 8 | Digest[I];
  return static_cast<unsigned>(Value % Shards) + 1;
}

} // namespace dmalint::tool
