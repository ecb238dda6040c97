//===- Paths.h - Absolute paths and the source root reports use -*- C++ -*-===//
//
// Every path a finding carries is made absolute and normalised once, when
// the findings are resolved (Findings.h); reports name files relative to
// the source root (SARIF's SRCROOT, baseline entries).
//
//===----------------------------------------------------------------------===//
#ifndef DMALINT_TOOL_PATHS_H
#define DMALINT_TOOL_PATHS_H

#include "llvm/ADT/StringRef.h"
#include <optional>
#include <string>

namespace dmalint::tool {

/// \p Path made absolute (against the working directory) with `.` and `..`
/// removed. A `..` is removed by name only when that names the same file:
/// after a symbolic link (Debian's /lib -> usr/lib, which GCC's include
/// paths go through) the link is resolved instead.
std::string normalisedPath(llvm::StringRef Path);

/// The absolute, normalised path of a file named in a diagnostic (relative
/// names are relative to the translation unit's build directory).
std::string absolutePath(llvm::StringRef FilePath, llvm::StringRef BuildDirectory);

/// True when \p Path (absolute, normalised) lies inside the directory
/// \p Tree (or is it).
bool insideTree(llvm::StringRef Path, llvm::StringRef Tree);

/// The top directory of the git work tree holding \p Dir (the nearest
/// directory at or above it with a `.git`, a directory or, for worktrees and
/// submodules, a file), or nothing.
std::optional<std::string> gitTopLevel(llvm::StringRef Dir);

/// The source root when --source-root is not given: the top of the git work
/// tree that holds the compilation database's directory, else the one that
/// holds the working directory, else the database's directory (with flags
/// after `--`, the working directory).
std::string defaultSourceRoot(llvm::StringRef DatabaseDirectory,
                              llvm::StringRef WorkingDirectory);

/// The directory report paths are relative to (SARIF's SRCROOT).
class SourceRoot {
public:
  /// \p Directory is made absolute and normalised.
  explicit SourceRoot(llvm::StringRef Directory);

  /// The absolute directory, without a trailing separator.
  const std::string &directory() const { return Directory; }

  /// \p AbsolutePath relative to the root with '/' separators, or nothing
  /// when it is outside the root.
  std::optional<std::string> relative(llvm::StringRef AbsolutePath) const;

  /// The relative path when inside the root, else the absolute path.
  std::string portable(llvm::StringRef AbsolutePath) const;

private:
  std::string Directory;
};

} // namespace dmalint::tool

#endif
