//===- Driver.h - Compile commands in, clang-tidy findings out --*- C++ -*-===//
#ifndef DMALINT_TOOL_DRIVER_H
#define DMALINT_TOOL_DRIVER_H

#include "clang-tidy/ClangTidyDiagnosticConsumer.h"
#include "clang-tidy/ClangTidyOptions.h"
#include "clang/Tooling/CompilationDatabase.h"
#include "llvm/Support/Error.h"
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
