//===- Run.h - Running the checks over translation units --------*- C++ -*-===//
//
// Each translation unit runs with its own clang-tidy context and file
// system, in parallel, and yields its diagnostics (Findings.h resolves them).
//
//===----------------------------------------------------------------------===//
#ifndef DMALINT_TOOL_RUN_H
#define DMALINT_TOOL_RUN_H

#include "Findings.h"
#include "clang-tidy/ClangTidyOptions.h"
#include "clang/Frontend/CompilerInvocation.h"
#include "clang/Serialization/PCHContainerOperations.h"
#include "clang/Tooling/CompilationDatabase.h"
#include "llvm/Support/VirtualFileSystem.h"
#include <functional>
#include <string>
#include <vector>

namespace dmalint::tool {

/// Calls \p Work(I) for each I below \p Count, \p Jobs at a time (0: one per
/// core), each on a thread of its own.
void runInParallel(size_t Count, unsigned Jobs, const std::function<void(size_t)> &Work);

/// Runs the enabled checks over \p Files, \p Jobs translation units at a
/// time (0: one per core). The result is one entry per file, in input order,
/// whatever the scheduling. \p Progress is called (serialised) after each
/// translation unit. With \p Identities, what each finding is about is
/// recorded (TranslationUnitResult::Identities), which its fingerprint is
/// made of: a SARIF log and a baseline need it, the text output does not.
std::vector<TranslationUnitResult>
runChecks(const clang::tooling::CompilationDatabase &Compilations,
          const std::vector<std::string> &Files,
          const clang::tidy::ClangTidyOptions &Overrides, unsigned Jobs,
          const std::function<void(size_t Done)> &Progress, bool Identities);

/// What the language server adds to the run of one translation unit.
struct RunHooks {
  /// Files layered over the real file system (the editor's unsaved buffers).
  llvm::IntrusiveRefCntPtr<llvm::vfs::FileSystem> Overlay;
  /// Called with the compiler invocation, built from the adjusted command,
  /// just before it runs (the language server adds its preamble there).
  std::function<void(clang::CompilerInvocation &, clang::FileManager &,
                     std::shared_ptr<clang::PCHContainerOperations>)>
      PrepareInvocation;
  /// Whether what each finding is about is recorded (runChecks).
  bool Identities = true;
};

/// Runs the enabled checks over the one file \p File, as runChecks does for
/// each of its files, with \p Hooks.
TranslationUnitResult runChecksOnFile(const clang::tooling::CompilationDatabase &Compilations,
                                      const std::string &File,
                                      const clang::tidy::ClangTidyOptions &Overrides,
                                      const RunHooks &Hooks);

} // namespace dmalint::tool

#endif
