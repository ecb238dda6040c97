//===- Diagnostics.h - Printing findings in clang's format ------*- C++ -*-===//
//
// The standalone driver renders clang-tidy's findings itself, in clang's
// format (location, level, message, [check], source line, caret), so that its
// output reads exactly like the plugin's inside clang-tidy. Fixes are in
// Fixes.h, machine-readable reports in Sarif.h and Baseline.h.
//
//===----------------------------------------------------------------------===//
#ifndef DMALINT_TOOL_DIAGNOSTICS_H
#define DMALINT_TOOL_DIAGNOSTICS_H

#include "clang-tidy/ClangTidyDiagnosticConsumer.h"
#include "llvm/Support/raw_ostream.h"
#include <map>
#include <string>
#include <vector>

namespace dmalint::tool {

/// A location resolved to a file, line and column (1-based, bytes).
struct ResolvedLocation {
  std::string Path;
  unsigned Line = 0;
  unsigned Column = 0;
  std::string LineText;
};

/// Resolves file offsets to lines and columns, reading each file once.
class SourceCache {
public:
  ResolvedLocation resolve(const std::string &Path, unsigned Offset);

private:
  struct File {
    std::string Text;
    std::vector<unsigned> LineStarts;
    bool Loaded = false;
  };
  std::map<std::string, File> Files;
};

/// \p Path made absolute (against the working directory) with `.` and `..`
/// removed. A `..` is removed by name only when that names the same file:
/// after a symbolic link (Debian's /lib -> usr/lib, which GCC's include
/// paths go through) the link is resolved instead.
std::string normalisedPath(llvm::StringRef Path);

/// The absolute, normalised path of a file named in a diagnostic (relative
/// names are relative to the translation unit's build directory).
std::string absolutePath(llvm::StringRef FilePath, const std::string &BuildDirectory);

/// True for a compiler error (as opposed to a check's finding).
bool isCompilerError(const clang::tidy::ClangTidyError &Error);

/// True for a check's finding: not a compiler error, and not a remark (which
/// informs, e.g. of a function skipped at the work limit, and is never
/// counted, baselined or fixed).
bool isFinding(const clang::tidy::ClangTidyError &Error);

/// Prints every error in clang's format.
void printDiagnostics(llvm::ArrayRef<clang::tidy::ClangTidyError> Errors,
                      SourceCache &Sources, llvm::raw_ostream &OS,
                      bool UseColor);

} // namespace dmalint::tool

#endif
