//===- Driver.h - Compile commands in, clang-tidy findings out --*- C++ -*-===//
#ifndef DMALINT_TOOL_DRIVER_H
#define DMALINT_TOOL_DRIVER_H

#include "clang-tidy/ClangTidyDiagnosticConsumer.h"
#include "clang-tidy/ClangTidyOptions.h"
#include "clang/Frontend/CompilerInvocation.h"
#include "clang/Serialization/PCHContainerOperations.h"
#include "clang/Tooling/CompilationDatabase.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/VirtualFileSystem.h"
#include <functional>
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

struct LoadedCompilations {
  std::unique_ptr<clang::tooling::CompilationDatabase> Database;
  /// The absolute directory the database was found in; empty for flags
  /// after `--`.
  std::string Directory;
};

/// Loads the compile commands, with clang's builtin headers made findable.
/// Fails with a message a user can act on.
llvm::Expected<LoadedCompilations> loadCompilations(const CompilationSource &Source,
                                                    const std::vector<std::string> &Files);

/// \p Base with the adjustments every dmalint run makes to its commands
/// (clang's builtin headers made findable), for a database found otherwise
/// than by loadCompilations (the language server finds its own).
std::unique_ptr<clang::tooling::CompilationDatabase>
withDriverAdjustments(std::unique_ptr<clang::tooling::CompilationDatabase> Base);

/// The options dmalint runs with when no .clang-tidy says otherwise.
clang::tidy::ClangTidyOptions defaultOptions();

/// Runs the enabled checks over \p Files, \p Jobs translation units at a
/// time (0: one per core). The result is in input order and holds each
/// finding once, whatever the scheduling. \p Progress is called (serialised)
/// after each translation unit.
std::vector<clang::tidy::ClangTidyError>
runChecks(const clang::tooling::CompilationDatabase &Compilations,
          const std::vector<std::string> &Files,
          const clang::tidy::ClangTidyOptions &Overrides, unsigned Jobs,
          const std::function<void(size_t Done)> &Progress);

/// What the language server adds to the run of one translation unit.
struct RunHooks {
  /// Files layered over the real file system (the editor's unsaved buffers).
  llvm::IntrusiveRefCntPtr<llvm::vfs::FileSystem> Overlay;
  /// Called with the compiler invocation, built from the adjusted command,
  /// just before it runs (the language server adds its preamble there).
  std::function<void(clang::CompilerInvocation &, clang::FileManager &,
                     std::shared_ptr<clang::PCHContainerOperations>)>
      PrepareInvocation;
};

/// Runs the enabled checks over the one file \p File, as runChecks does for
/// each of its files, with \p Hooks.
std::vector<clang::tidy::ClangTidyError>
runChecksOnFile(const clang::tooling::CompilationDatabase &Compilations, const std::string &File,
                const clang::tidy::ClangTidyOptions &Overrides, const RunHooks &Hooks);

/// The effective configuration for \p File as .clang-tidy YAML: the merged
/// options, with every enabled check's options (the API model included).
std::string effectiveConfiguration(const std::string &File,
                                   const clang::tidy::ClangTidyOptions &Overrides);

/// The value of the check option \p Key (e.g.
/// "dma-wait-send-on-local-copy.WorkLimit") in the effective configuration of
/// \p File, or nothing when it is not set.
std::optional<std::string> checkOption(const std::string &File,
                                       const clang::tidy::ClangTidyOptions &Overrides,
                                       llvm::StringRef Key);

/// The names of the checks enabled for \p File under \p Overrides.
std::vector<std::string> enabledChecks(const std::string &File,
                                       const clang::tidy::ClangTidyOptions &Overrides);

} // namespace dmalint::tool

#endif
