//===- CompileCommands.h - Where each file's compile command comes from -*- C++ -*-===//
//
// The commands come from flags after `--`, from `-p BUILD_DIR`, or from a
// compilation database found above the first file. A compile_commands.json
// is read strictly (llvm::json) before LibTooling sees it: an entry that
// would make LibTooling abort or guess (a directory that does not exist, a
// missing file, a malformed field) is left out and reported by its index,
// and the other entries are used. LibTooling then parses the commands and
// interpolates one for a file that has none, as in clang-tidy.
//
//===----------------------------------------------------------------------===//
#ifndef DMALINT_TOOL_COMPILECOMMANDS_H
#define DMALINT_TOOL_COMPILECOMMANDS_H

#include "clang/Tooling/CompilationDatabase.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/Error.h"
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace dmalint::tool {

/// Where the compile commands come from: flags after `--`, or a database.
struct CompilationSource {
  std::optional<std::vector<std::string>> FixedFlags; ///< After `--`.
  std::string BuildPath;                              ///< -p
};

/// An entry of the database that was left out, and why.
struct RejectedEntry {
  std::string DatabaseFile; ///< The compile_commands.json (absolute).
  std::string File;         ///< The file it compiles (absolute), when known.
  std::string Problem;      ///< "entry 3 ('src/a.cc'): directory ... does not exist"
};

struct LoadedCompilations {
  std::unique_ptr<clang::tooling::CompilationDatabase> Database;
  /// The absolute directory the database was found in; empty for flags
  /// after `--`.
  std::string Directory;
  /// Entries left out; their files are not analysed (never with a command
  /// borrowed from another file).
  std::vector<RejectedEntry> Rejected;
  llvm::StringSet<> RejectedFiles;
};

/// Loads the compile commands, with clang's builtin headers made findable.
/// Fails, with a message a user can act on, when there is no usable
/// database at all (none found, unreadable, not JSON, not an array).
llvm::Expected<LoadedCompilations> loadCompilations(const CompilationSource &Source,
                                                    const std::vector<std::string> &Files);

/// Shard K of N (1-based) of a run: the files whose path relative to the
/// source root (\p Portable gives it) hashes (SHA-256) to K - 1 modulo N. A
/// file's shard depends on its path alone, so adding or removing files
/// never moves the others.
unsigned shardOf(llvm::StringRef PortablePath, unsigned Shards);

/// Loads the one database file \p Path (a compile_commands.json, read as
/// strictly as loadCompilations reads it, or a compile_flags.txt), with the
/// same adjustments. The language server finds its databases itself.
llvm::Expected<LoadedCompilations> loadDatabaseFile(llvm::StringRef Path);

/// \p Base with the adjustments every dmalint run makes to its commands
/// (clang's builtin headers made findable).
std::unique_ptr<clang::tooling::CompilationDatabase>
withDriverAdjustments(std::unique_ptr<clang::tooling::CompilationDatabase> Base);

} // namespace dmalint::tool

#endif
