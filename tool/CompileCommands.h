//===- CompileCommands.h - Where each file's compile command comes from -*- C++ -*-===//
#ifndef DMALINT_TOOL_COMPILECOMMANDS_H
#define DMALINT_TOOL_COMPILECOMMANDS_H

#include "clang/Tooling/CompilationDatabase.h"
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

} // namespace dmalint::tool

#endif
