//===- Fixes.h - Which fixes a run makes; applying, exporting -*- C++ -*-===//
//
// One plan decides which edits the findings make; `--fix` writes it to the
// files and `--export-fixes` writes it as the YAML that
// clang-apply-replacements reads, so both give the same files.
//
//===----------------------------------------------------------------------===//
#ifndef DMALINT_TOOL_FIXES_H
#define DMALINT_TOOL_FIXES_H

#include "Findings.h"
#include "clang/Tooling/Core/Replacement.h"
#include "llvm/Support/Error.h"
#include <map>
#include <set>
#include <string>
#include <vector>

namespace dmalint::tool {

/// The edits of a run. Findings are taken in order; a finding's edits go in
/// all together or not at all (when one overlaps an edit already taken), and
/// an edit already taken (the same finding seen through two translation
/// units, or two findings asking for the same change) is made once.
struct FixPlan {
  /// Per finding (same index as the input): the edits it contributes;
  /// empty when it has no fix, only repeats edits already taken, or
  /// conflicts.
  std::vector<std::vector<clang::tooling::Replacement>> PerFinding;
  /// Every edit, by absolute file path.
  std::map<std::string, clang::tooling::Replacements> ByFile;
  /// Per file of ByFile: the findings (indices) whose edits it holds.
  std::map<std::string, std::set<size_t>> FindingsByFile;
  unsigned Applied = 0;   ///< Findings whose fixes are taken.
  unsigned Conflicts = 0; ///< Findings whose fixes overlapped another's.
  /// Files outside the editable tree that findings wanted to edit (absolute
  /// paths); those findings' fixes are not taken.
  std::set<std::string> OutsideTree;
};

/// The directory tree `--fix` may edit: the deepest directory holding
/// \p DatabaseDirectory and every file in \p SourceFiles (the compilation
/// database and what it compiles). A header reached through an include path
/// outside it (a system or vendored library) is never edited.
std::string editableTree(llvm::StringRef DatabaseDirectory,
                         llvm::ArrayRef<std::string> SourceFiles);

/// Plans the fixes of the findings of \p Findings (errors and remarks have
/// none). A finding with an edit outside \p EditableTree contributes none of
/// its edits.
FixPlan planFixes(llvm::ArrayRef<const Finding *> Findings, llvm::StringRef EditableTree);

struct FixOutcome {
  unsigned FilesWritten = 0;
  std::vector<std::string> Failures; ///< Files that could not be written, and why.
  std::set<size_t> FindingsNotApplied; ///< Findings with an edit in a file not written.
};

/// Writes the planned edits. Each file is replaced atomically and keeps its
/// permissions.
FixOutcome applyFixes(const FixPlan &Plan);

/// Writes the findings of \p Findings, with their notes, in the YAML of
/// `clang-tidy --export-fixes` (clang's own serialisation), each carrying the
/// edits the plan gives it, so that clang-apply-replacements makes exactly the
/// edits `--fix` makes. \p Path "-" is stdout.
llvm::Error exportFixes(llvm::StringRef Path, llvm::ArrayRef<const Finding *> Findings,
                        const FixPlan &Plan);

} // namespace dmalint::tool

#endif
