//===- Fixes.cpp - Which fixes a run makes; applying, exporting ----------===//
#include "Fixes.h"
#include "clang-tidy/ClangTidy.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

using namespace clang;
using namespace clang::tidy;

namespace dmalint::tool {

std::string editableTree(llvm::StringRef DatabaseDirectory,
                         llvm::ArrayRef<std::string> SourceFiles) {
  std::string Tree = normalisedPath(DatabaseDirectory);
  for (const std::string &File : SourceFiles) {
    std::string Path = normalisedPath(File);
    while (!insideTree(Path, Tree)) {
      llvm::StringRef Parent = llvm::sys::path::parent_path(Tree);
      if (Parent.empty() || Parent == Tree)
        break;
      Tree = Parent.str();
    }
  }
  return Tree;
}

FixPlan planFixes(llvm::ArrayRef<const Finding *> Findings, llvm::StringRef EditableTree) {
  FixPlan Plan;
  Plan.PerFinding.resize(Findings.size());
  for (size_t I = 0; I < Findings.size(); ++I) {
    const Finding &F = *Findings[I];
    if (F.Fix.empty() || !F.isFinding())
      continue;
    // Never a file outside the project (a system or vendored header).
    bool Outside = false;
    for (const FixEdit &Edit : F.Fix) {
      std::string Path = Edit.Replacement.getFilePath().str();
      if (!insideTree(Path, EditableTree)) {
        Plan.OutsideTree.insert(Path);
        Outside = true;
      }
    }
    if (Outside)
      continue;
    // All of a finding's replacements go in, or none do.
    std::map<std::string, tooling::Replacements> Candidate = Plan.ByFile;
    std::vector<tooling::Replacement> Own;
    bool Conflict = false;
    for (const FixEdit &Edit : F.Fix) {
      const tooling::Replacement &R = Edit.Replacement;
      tooling::Replacements &Set = Candidate[R.getFilePath().str()];
      // The same edit twice (one finding per template instantiation, or a
      // header seen by several files) is one edit.
      if (llvm::any_of(Set, [&](const tooling::Replacement &Old) { return Old == R; }))
        continue;
      if (llvm::Error Err = Set.add(R)) {
        llvm::consumeError(std::move(Err));
        Conflict = true;
        break;
      }
      Own.push_back(R);
    }
    if (Conflict) {
      ++Plan.Conflicts;
      continue;
    }
    Plan.ByFile = std::move(Candidate);
    for (const FixEdit &Edit : F.Fix)
      Plan.FindingsByFile[Edit.Replacement.getFilePath().str()].insert(I);
    Plan.PerFinding[I] = std::move(Own);
    ++Plan.Applied;
  }
  // A finding whose only edits were duplicates may have left empty sets.
  for (auto It = Plan.ByFile.begin(); It != Plan.ByFile.end();)
    It = It->second.empty() ? Plan.ByFile.erase(It) : std::next(It);
  return Plan;
}

/// Writes \p Content to \p Path through a temporary file in the same
/// directory and a rename, so an interrupted run leaves the old or the new
/// file, never half of one; the file keeps its permissions.
static llvm::Error writeAtomically(llvm::StringRef Path, llvm::StringRef Content) {
  auto Perms = llvm::sys::fs::getPermissions(Path);
  if (!Perms)
    return llvm::errorCodeToError(Perms.getError());
  llvm::SmallString<256> Temp;
  int FD;
  if (auto EC = llvm::sys::fs::createUniqueFile(Path + ".dmalint-%%%%%%", FD, Temp))
    return llvm::errorCodeToError(EC);
  {
    llvm::raw_fd_ostream Out(FD, /*shouldClose=*/true);
    Out << Content;
    Out.close();
    if (std::error_code EC = Out.error()) {
      Out.clear_error(); // Handled here: the stream would abort on it.
      llvm::sys::fs::remove(Temp);
      return llvm::errorCodeToError(EC);
    }
  }
  if (auto EC = llvm::sys::fs::setPermissions(Temp, *Perms)) {
    llvm::sys::fs::remove(Temp);
    return llvm::errorCodeToError(EC);
  }
  if (auto EC = llvm::sys::fs::rename(Temp, Path)) {
    llvm::sys::fs::remove(Temp);
    return llvm::errorCodeToError(EC);
  }
  return llvm::Error::success();
}

FixOutcome applyFixes(const FixPlan &Plan) {
  FixOutcome Outcome;
  for (const auto &[Path, Replacements] : Plan.ByFile) {
    std::string Failure;
    if (auto Buffer = llvm::MemoryBuffer::getFile(Path)) {
      auto NewCode = tooling::applyAllReplacements((*Buffer)->getBuffer(), Replacements);
      if (!NewCode)
        Failure = llvm::toString(NewCode.takeError());
      else if (llvm::Error Err = writeAtomically(Path, *NewCode))
        Failure = llvm::toString(std::move(Err));
    } else {
      Failure = Buffer.getError().message();
    }
    if (Failure.empty()) {
      ++Outcome.FilesWritten;
      continue;
    }
    Outcome.Failures.push_back(Path + ": " + Failure);
    auto Affected = Plan.FindingsByFile.find(Path);
    if (Affected != Plan.FindingsByFile.end())
      Outcome.FindingsNotApplied.insert(Affected->second.begin(), Affected->second.end());
  }
  return Outcome;
}

llvm::Error exportFixes(llvm::StringRef Path, llvm::ArrayRef<const Finding *> Findings,
                        const FixPlan &Plan) {
  auto Message = [](const FindingMessage &M) {
    tooling::DiagnosticMessage D(M.Text);
    if (M.At) {
      D.FilePath = M.At->Path;
      D.FileOffset = M.At->Offset;
    }
    return D;
  };
  std::vector<ClangTidyError> Exported;
  for (size_t I = 0; I < Findings.size(); ++I) {
    const Finding &F = *Findings[I];
    if (!F.isFinding())
      continue;
    ClangTidyError E(F.Check, ClangTidyError::Warning, F.BuildDirectory, F.WarningAsError);
    E.Message = Message(F.Primary);
    for (const FindingMessage &Note : F.Notes)
      E.Notes.push_back(Message(Note));
    // Exactly the planned edits, on the message (where
    // clang-apply-replacements looks first); with none planned, no fix is
    // left for it to pick.
    for (const tooling::Replacement &R : Plan.PerFinding[I])
      llvm::cantFail(E.Message.Fix[R.getFilePath()].add(R));
    Exported.push_back(std::move(E));
  }
  return llvm::writeToOutput(Path, [&](llvm::raw_ostream &OS) {
    // One document for the whole run, as run-clang-tidy merges them: the
    // diagnostics come from several translation units.
    exportReplacements(/*MainFilePath=*/"", Exported, OS);
    return llvm::Error::success();
  });
}

} // namespace dmalint::tool
