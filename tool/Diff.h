//===- Diff.h - Pull-request mode: the lines a change touches ---*- C++ -*-===//
//
// --diff=REV and --diff-file=PATCH report only the findings whose primary
// location is on a line the change adds or modifies, and analyse only the
// translation units that changed or include a changed file, as
// clang-tidy-diff does for clang-tidy.
//
//===----------------------------------------------------------------------===//
#ifndef DMALINT_TOOL_DIFF_H
#define DMALINT_TOOL_DIFF_H

#include "clang/Tooling/CompilationDatabase.h"
#include "llvm/Support/Error.h"
#include <map>
#include <set>
#include <string>
#include <vector>

namespace dmalint::tool {

/// The new side's added or modified lines of each file a patch changes.
class ChangedLines {
public:
  /// By absolute path; a file whose change only deletes lines (or renames
  /// it) has an empty set.
  std::map<std::string, std::set<unsigned>> Files;

  bool changed(const std::string &Path, unsigned Line) const;
  /// The files with at least one added or modified line.
  std::vector<std::string> changedFiles() const;
};

/// Parses a unified diff (`diff -u`, `git diff`, any context size): the
/// '+' lines of each hunk, numbered on the new side. Paths are relative to
/// \p Root (git's `a/` and `b/` prefixes are dropped when both sides have
/// them); a path that does not name a file under \p Root is an error, so a
/// diff of another tree never passes as "nothing changed".
llvm::Expected<ChangedLines> parseUnifiedDiff(llvm::StringRef Patch, llvm::StringRef Root);

/// The output of `git diff -U0 REV --` run in \p Directory (the change from
/// REV to the working tree), with paths relative to \p Directory.
llvm::Expected<std::string> gitDiff(llvm::StringRef Revision, llvm::StringRef Directory);

/// The files of \p Files that are, or include (directly or not), a file of
/// \p Changed: each translation unit that is not itself changed is
/// preprocessed (not parsed) to learn what it includes, \p Jobs at a time.
std::vector<std::string> affectedFiles(const clang::tooling::CompilationDatabase &Compilations,
                                       const std::vector<std::string> &Files,
                                       const std::vector<std::string> &Changed, unsigned Jobs);

} // namespace dmalint::tool

#endif
