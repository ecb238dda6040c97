//===- ConfigurationErrors.cpp - When a file's configuration is wrong -----===//
#include "ConfigurationErrors.h"
#include "clang-tidy/ClangTidyOptions.h"
#include "clang-tidy/GlobList.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/YAMLParser.h"
#include "llvm/Support/YAMLTraits.h"
#include <limits>

using namespace clang::tidy;

namespace dmalint::checks {

FileConfiguration &FileConfiguration::current() {
  thread_local FileConfiguration Current;
  return Current;
}

void FileConfiguration::startTranslationUnit() { current() = FileConfiguration(); }

FileConfiguration &FileConfiguration::of(const ClangTidyContext &Context) {
  FileConfiguration &Current = current();
  if (Current.Context != &Context || Current.File != Context.getCurrentFile()) {
    Current = FileConfiguration();
    Current.Context = &Context;
    Current.File = Context.getCurrentFile().str();
  }
  return Current;
}

bool FileConfiguration::fail(const std::string &Message) {
  Broken = true;
  return Said.insert(Message).second;
}

std::vector<ConfigurationFile> configurationFiles(llvm::StringRef File) {
  std::vector<ConfigurationFile> Files;
  llvm::SmallString<256> Absolute(File);
  llvm::sys::fs::make_absolute(Absolute);
  llvm::sys::path::remove_dots(Absolute, /*remove_dot_dot=*/false);
  for (llvm::StringRef Dir = llvm::sys::path::parent_path(Absolute); !Dir.empty();
       Dir = llvm::sys::path::parent_path(Dir)) {
    llvm::SmallString<256> Config(Dir);
    llvm::sys::path::append(Config, ".clang-tidy");
    // A symbolic link that leads nowhere is a file that cannot be read,
    // not a missing one; a directory or a device is no configuration.
    llvm::sys::fs::file_status Link, Status;
    if (llvm::sys::fs::status(Config, Link, /*Follow=*/false))
      continue;
    bool Dangling = llvm::sys::fs::is_symlink_file(Link) && llvm::sys::fs::status(Config, Status);
    if (!Dangling && !llvm::sys::fs::is_regular_file(Config))
      continue;
    ConfigurationFile &Found = Files.emplace_back();
    Found.Path = Config.str().str();
    auto Buffer = llvm::MemoryBuffer::getFile(Config, /*IsText=*/true);
    if (!Buffer) {
      Found.Problem =
          "cannot read the configuration file '" + Found.Path + "': " + Buffer.getError().message();
      return Files;
    }
    std::string FirstError;
    llvm::ErrorOr<ClangTidyOptions> Parsed = parseConfigurationWithDiags(
        (*Buffer)->getMemBufferRef(), [&](const llvm::SMDiagnostic &D) {
          if (D.getKind() == llvm::SourceMgr::DK_Error && FirstError.empty())
            FirstError = "line " + std::to_string(D.getLineNo()) + ", column " +
                         std::to_string(D.getColumnNo() + 1) + ": " + D.getMessage().str();
        });
    if (!Parsed) {
      Found.Problem = "cannot parse the configuration file '" + Found.Path + "': " +
                      (FirstError.empty() ? Parsed.getError().message() : FirstError);
      return Files;
    }
    Found.Options = std::move(*Parsed);
    if (!Found.Options->InheritParentConfig.value_or(false))
      return Files;
  }
  return Files;
}

std::vector<std::string> unknownDmaGlobs(llvm::StringRef Checks,
                                         llvm::ArrayRef<std::string> Known) {
  std::vector<std::string> Unknown;
  llvm::SmallVector<llvm::StringRef, 8> Globs;
  Checks.split(Globs, ',', /*MaxSplit=*/-1, /*KeepEmpty=*/false);
  for (llvm::StringRef Glob : Globs) {
    Glob = Glob.trim();
    llvm::StringRef Positive = Glob;
    Positive.consume_front("-");
    Positive = Positive.trim();
    if (!Positive.starts_with("dma-"))
      continue;
    GlobList Single(Positive);
    if (llvm::none_of(Known, [&](const std::string &Name) { return Single.contains(Name); }))
      Unknown.push_back(Glob.str());
  }
  return Unknown;
}

std::optional<std::string> closestName(llvm::StringRef Name, llvm::ArrayRef<std::string> Known) {
  std::optional<std::string> Best;
  unsigned BestDistance = std::numeric_limits<unsigned>::max();
  for (const std::string &Candidate : Known) {
    unsigned Distance = Name.edit_distance(Candidate, /*AllowReplacements=*/true,
                                           /*MaxEditDistance=*/BestDistance);
    if (Distance < BestDistance) {
      BestDistance = Distance;
      Best = Candidate;
    }
  }
  // A third of the name: a typo, not another word.
  if (!Best || BestDistance > std::max<size_t>(2, Name.size() / 3))
    return std::nullopt;
  return Best;
}

std::optional<bool> parseBooleanOption(llvm::StringRef Value) {
  Value = Value.trim();
  if (std::optional<bool> Parsed = llvm::yaml::parseBool(Value))
    return Parsed;
  if (Value == "1")
    return true;
  if (Value == "0")
    return false;
  return std::nullopt;
}

std::optional<unsigned> parsePositiveOption(llvm::StringRef Value) {
  unsigned Parsed;
  if (Value.trim().getAsInteger(10, Parsed) || Parsed == 0)
    return std::nullopt;
  return Parsed;
}

std::string optionOrigin(llvm::StringRef Key, llvm::StringRef File,
                         const ClangTidyOptions &Effective) {
  // The closest file that sets it wins, as clang-tidy merges them.
  for (const ConfigurationFile &Config : configurationFiles(File))
    if (Config.Options && Config.Options->CheckOptions.count(Key))
      return "in '" + Config.Path + "'";
  if (Effective.CheckOptions.count(Key))
    return "on the command line";
  return "(not set, so the built-in default)";
}

std::string checksOrigin(llvm::StringRef Glob, llvm::StringRef File) {
  for (const ConfigurationFile &Config : configurationFiles(File)) {
    if (!Config.Options || !Config.Options->Checks)
      continue;
    llvm::SmallVector<llvm::StringRef, 8> Globs;
    llvm::StringRef(*Config.Options->Checks).split(Globs, ',');
    if (llvm::any_of(Globs, [&](llvm::StringRef G) { return G.trim() == Glob; }))
      return "in the Checks of '" + Config.Path + "'";
  }
  return "in the checks given on the command line";
}

} // namespace dmalint::checks
