//===- Configuration.h - The options each file is checked with --*- C++ -*-===//
//
// clang-tidy's own option machinery (.clang-tidy lookup, CheckOptions,
// InheritParentConfig), with dmalint's defaults: the dma-* checks, and never
// the static analyzer's checks that clang-tidy's library brings along.
//
//===----------------------------------------------------------------------===//
#ifndef DMALINT_TOOL_CONFIGURATION_H
#define DMALINT_TOOL_CONFIGURATION_H

#include "clang-tidy/ClangTidyOptions.h"
#include "llvm/Support/VirtualFileSystem.h"
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace dmalint::tool {

/// The options dmalint runs with when no .clang-tidy says otherwise.
clang::tidy::ClangTidyOptions defaultOptions();

/// The options of each file: defaults, then .clang-tidy files, then
/// \p Overrides (the command line), read through \p FS.
std::unique_ptr<clang::tidy::ClangTidyOptionsProvider>
optionsProvider(const clang::tidy::ClangTidyOptions &Overrides,
                llvm::IntrusiveRefCntPtr<llvm::vfs::FileSystem> FS);

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

/// Every check the registered modules provide, sorted.
std::vector<std::string> registeredChecks();

} // namespace dmalint::tool

#endif
