//===- Paths.cpp - Absolute paths and the source root reports use ---------===//
#include "Paths.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

namespace dmalint::tool {

std::string normalisedPath(llvm::StringRef Path) {
  llvm::SmallString<256> Absolute(Path);
  llvm::sys::fs::make_absolute(Absolute);
  llvm::SmallString<256> Lexical(Absolute);
  llvm::sys::path::remove_dots(Lexical, /*remove_dot_dot=*/true);
  bool HasDotDot = llvm::is_contained(
      llvm::make_range(llvm::sys::path::begin(Absolute), llvm::sys::path::end(Absolute)), "..");
  if (HasDotDot && llvm::sys::fs::exists(Absolute)) {
    bool Same = false;
    if (llvm::sys::fs::equivalent(Absolute, Lexical, Same) || !Same) {
      llvm::SmallString<256> Real;
      if (!llvm::sys::fs::real_path(Absolute, Real))
        return std::string(Real);
    }
  }
  return std::string(Lexical);
}

std::string absolutePath(llvm::StringRef FilePath, llvm::StringRef BuildDirectory) {
  if (!FilePath.empty() && !llvm::sys::path::is_absolute(FilePath) && !BuildDirectory.empty())
    return normalisedPath((llvm::Twine(BuildDirectory) + "/" + FilePath).str());
  return normalisedPath(FilePath);
}

bool insideTree(llvm::StringRef Path, llvm::StringRef Tree) {
  if (Tree.empty() || !Path.starts_with(Tree))
    return false;
  // /work/project-other is not inside /work/project.
  return Path.size() == Tree.size() || llvm::sys::path::is_separator(Path[Tree.size()]) ||
         llvm::sys::path::is_separator(Tree.back());
}

std::optional<std::string> gitTopLevel(llvm::StringRef Dir) {
  for (std::string Here = normalisedPath(Dir); !Here.empty();) {
    llvm::SmallString<256> Git(Here);
    llvm::sys::path::append(Git, ".git");
    if (llvm::sys::fs::exists(Git))
      return Here;
    llvm::StringRef Parent = llvm::sys::path::parent_path(Here);
    if (Parent == Here)
      break;
    Here = Parent.str();
  }
  return std::nullopt;
}

std::string defaultSourceRoot(llvm::StringRef DatabaseDirectory,
                              llvm::StringRef WorkingDirectory) {
  if (!DatabaseDirectory.empty())
    if (std::optional<std::string> Top = gitTopLevel(DatabaseDirectory))
      return *Top;
  if (std::optional<std::string> Top = gitTopLevel(WorkingDirectory))
    return *Top;
  return normalisedPath(DatabaseDirectory.empty() ? WorkingDirectory : DatabaseDirectory);
}

SourceRoot::SourceRoot(llvm::StringRef Dir) {
  std::string Path = normalisedPath(Dir);
  while (Path.size() > 1 && llvm::sys::path::is_separator(Path.back()))
    Path.pop_back();
  Directory = std::move(Path);
}

std::optional<std::string> SourceRoot::relative(llvm::StringRef AbsolutePath) const {
  llvm::StringRef Rest = AbsolutePath;
  if (!Rest.consume_front(Directory))
    return std::nullopt;
  // "/src/a.cc" is not inside "/src/a".
  if (Directory != "/" && !Rest.consume_front("/"))
    return std::nullopt;
  if (Rest.empty())
    return std::nullopt;
  return llvm::sys::path::convert_to_slash(Rest);
}

std::string SourceRoot::portable(llvm::StringRef AbsolutePath) const {
  if (std::optional<std::string> Relative = relative(AbsolutePath))
    return *Relative;
  return llvm::sys::path::convert_to_slash(AbsolutePath);
}

} // namespace dmalint::tool
