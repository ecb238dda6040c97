//===- Diagnostics.h - Printing findings and applying their fixes -*- C++ -*-===//
//
// The standalone driver renders clang-tidy's findings itself, in clang's
// format (location, level, message, [check], source line, caret), so that its
// output reads exactly like the plugin's inside clang-tidy, and applies fixes
// itself so the tool can say what it did in its own words.
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

/// The absolute, normalised path of a file named in a diagnostic (relative
/// names are relative to the translation unit's build directory).
std::string absolutePath(llvm::StringRef FilePath, const std::string &BuildDirectory);

/// True for a compiler error (as opposed to a check's finding).
bool isCompilerError(const clang::tidy::ClangTidyError &Error);

/// Prints every error in clang's format.
void printDiagnostics(llvm::ArrayRef<clang::tidy::ClangTidyError> Errors,
                      SourceCache &Sources, llvm::raw_ostream &OS,
                      bool UseColor);

struct FixOutcome {
  unsigned Applied = 0;    ///< Findings whose fixes were written.
  unsigned Conflicts = 0;  ///< Findings whose fixes overlapped another's.
  unsigned FilesWritten = 0;
  std::vector<std::string> Failures; ///< Files that could not be written.
};

/// Applies the fixes of the findings (not of notes), once per location, and
/// skipping a finding whose fix overlaps one already taken. Each file is
/// replaced atomically and keeps its permissions.
FixOutcome applyFixes(llvm::ArrayRef<clang::tidy::ClangTidyError> Errors);

} // namespace dmalint::tool

#endif
