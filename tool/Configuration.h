//===- Configuration.h - The options each file is checked with --*- C++ -*-===//
//
// clang-tidy's own option machinery (.clang-tidy lookup, CheckOptions,
// InheritParentConfig), with dmalint's defaults: the dma-* checks, and never
// the static analyzer's checks that clang-tidy's library brings along.
//
//===----------------------------------------------------------------------===//
#ifndef DMALINT_TOOL_CONFIGURATION_H
#define DMALINT_TOOL_CONFIGURATION_H

#include "clang-tidy/ClangTidyDiagnosticConsumer.h"
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

/// The DiagnosticsEngine a context's checks report through, here to
/// \p Consumer (the engine's constructor differs between LLVM releases).
class ContextDiagnostics {
public:
  ContextDiagnostics(clang::tidy::ClangTidyContext &Context, clang::DiagnosticConsumer &Consumer);
  ~ContextDiagnostics();

private:
  std::unique_ptr<clang::DiagnosticOptions> Options; ///< Until 22 the engine owns them.
  std::unique_ptr<clang::DiagnosticsEngine> Engine;
};

/// The configuration of \p File as the checks see it.
struct CheckedConfiguration {
  /// The merged options, with every enabled check's options (the API
  /// model included), as --dump-config shows them.
  clang::tidy::ClangTidyOptions Effective;
  /// The configuration errors the checks found (without compiling the file:
  /// the API model's names are checked against the code only in a run).
  std::vector<std::string> Errors;
};

/// Makes the checks for \p File (every dma-* check when \p AllChecks, else
/// the enabled ones), as a run would, and collects what they say about the
/// configuration.
CheckedConfiguration checkConfiguration(const std::string &File,
                                        const clang::tidy::ClangTidyOptions &Overrides,
                                        bool AllChecks);

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
