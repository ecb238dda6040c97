//===- LspCompileCommands.h - Compile commands found as clangd finds them -*- C++ -*-===//
//
// For a file the editor opens: the compilation database (read as strictly as
// the standalone reads it, CompileCommands.h) of the nearest
// directory, going up from the file's, that holds compile_commands.json,
// build/compile_commands.json or compile_flags.txt (clangd's search), or the
// one of --compile-commands-dir. A file the database does not list (a header,
// a new kernel) gets the command of the closest file it does list (LibTooling's
// interpolating database). A file with no database at all gets the fallback
// flags, compiled from the directory of the nearest .clang-tidy (so its
// relative -I flags and ExtraArgs mean what they mean there). A database is
// read again when its file changes on disk.
//
//===----------------------------------------------------------------------===//
#ifndef DMALINT_TOOL_LSPCOMPILECOMMANDS_H
#define DMALINT_TOOL_LSPCOMPILECOMMANDS_H

#include "clang/Tooling/CompilationDatabase.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/Chrono.h"
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace dmalint::lsp {

/// How a file's command was found.
struct CommandSource {
  enum Kind {
    Database,     ///< Listed in a compilation database.
    Interpolated, ///< Borrowed from the closest file of a database.
    Fallback,     ///< No database: the fallback flags.
    Rejected,     ///< The database's entries for the file are unusable: no command.
  } How = Fallback;
  /// The database file (empty for a fallback).
  std::string DatabaseFile;
  /// Why there is no database or no command (a fallback, a rejected file).
  std::string Problem;
};

/// A file's command, ready to run (dmalint's adjustments applied).
struct FoundCommand {
  /// Null for a rejected file, which is not analysed.
  std::shared_ptr<const clang::tooling::CompilationDatabase> Database;
  CommandSource Source;
  /// The database's entries that were left out, and why (as the standalone
  /// reports them).
  std::vector<std::string> RejectedEntries;
};

class CompileCommandFinder {
public:
  /// \p CompileCommandsDir: where compile_commands.json is for every file
  /// (empty: search as clangd does). \p FallbackFlags: the flags of a file
  /// with no database.
  CompileCommandFinder(std::string CompileCommandsDir, std::vector<std::string> FallbackFlags);

  /// The command of \p File (absolute). Thread-safe.
  FoundCommand commandFor(llvm::StringRef File);

  void setCompileCommandsDir(std::string Dir);
  void setFallbackFlags(std::vector<std::string> Flags);
  std::vector<std::string> fallbackFlags() const;

  /// The files, relative to a directory, that hold a database (in the order
  /// clangd looks at them).
  static llvm::ArrayRef<llvm::StringLiteral> databaseFileNames();

private:
  /// One database file as last read.
  struct CachedDatabase {
    llvm::sys::TimePoint<> Modified;
    uint64_t Size = 0;
    std::shared_ptr<const clang::tooling::CompilationDatabase> Database;
    std::string Error; ///< Why it could not be read.
    std::vector<std::string> Rejected;
    llvm::StringSet<> RejectedFiles;
  };
  /// The database in \p File, read again if it changed; null when \p File
  /// does not exist.
  const CachedDatabase *load(const std::string &File);
  FoundCommand fallback(llvm::StringRef File, std::string Problem);

  mutable std::mutex Mutex;
  std::string CompileCommandsDir;
  std::vector<std::string> FallbackFlags;
  std::map<std::string, CachedDatabase> Cache;
};

} // namespace dmalint::lsp

#endif
