//===- Fixes.cpp - Which fixes a run makes; applying, exporting ----------===//
#include "Fixes.h"
#include "Diagnostics.h"
#include "clang-tidy/ClangTidy.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

using namespace clang;
using namespace clang::tidy;

namespace dmalint::tool {

const llvm::StringMap<tooling::Replacements> *chosenFix(const tooling::Diagnostic &Diagnostic) {
  // tooling::selectFirstFix, spelled out so that the choice is visible where
  // the plan depends on it.
  if (!Diagnostic.Message.Fix.empty())
    return &Diagnostic.Message.Fix;
  for (const tooling::DiagnosticMessage &Note : Diagnostic.Notes)
    if (!Note.Fix.empty())
      return &Note.Fix;
  return nullptr;
}

llvm::StringMap<tooling::Replacements> *chosenFix(tooling::Diagnostic &Diagnostic) {
  return const_cast<llvm::StringMap<tooling::Replacements> *>(
      chosenFix(static_cast<const tooling::Diagnostic &>(Diagnostic)));
}

bool insideTree(llvm::StringRef Path, llvm::StringRef Tree) {
  if (Tree.empty())
    return false;
  if (!Path.starts_with(Tree))
    return false;
  // /work/project-other is not inside /work/project.
  return Path.size() == Tree.size() || llvm::sys::path::is_separator(Path[Tree.size()]) ||
         llvm::sys::path::is_separator(Tree.back());
}

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

FixPlan planFixes(llvm::ArrayRef<ClangTidyError> Errors, llvm::StringRef EditableTree) {
  FixPlan Plan;
  Plan.PerDiagnostic.resize(Errors.size());
  for (size_t I = 0; I < Errors.size(); ++I) {
    const ClangTidyError &E = Errors[I];
    const llvm::StringMap<tooling::Replacements> *Fix = chosenFix(E);
    if (!Fix || !isFinding(E))
      continue;
    // Never a file outside the project (a system or vendored header).
    bool Outside = false;
    for (const auto &FileAndReplacements : *Fix) {
      std::string Path = normalisedPath(
          absolutePath(FileAndReplacements.getKey(), E.BuildDirectory));
      if (!insideTree(Path, EditableTree)) {
        Plan.OutsideTree.insert(Path);
        Outside = true;
      }
    }
    if (Outside)
      continue;
    // All of a finding's replacements go in, or none do.
    std::map<std::string, tooling::Replacements> Candidate = Plan.ByFile;
    llvm::StringMap<tooling::Replacements> Own;
    bool Conflict = false;
    for (const auto &FileAndReplacements : *Fix) {
      for (const tooling::Replacement &R : FileAndReplacements.getValue()) {
        std::string Path = absolutePath(R.getFilePath(), E.BuildDirectory);
        tooling::Replacement Normalized(Path, R.getOffset(), R.getLength(), R.getReplacementText());
        tooling::Replacements &Set = Candidate[Path];
        // The same edit twice (one finding per template instantiation, or a
        // header seen by several files) is one edit.
        bool Duplicate =
            llvm::any_of(Set, [&](const tooling::Replacement &Old) { return Old == Normalized; });
        if (Duplicate)
          continue;
        if (llvm::Error Err = Set.add(Normalized)) {
          llvm::consumeError(std::move(Err));
          Conflict = true;
          break;
        }
        // Cannot fail: Set accepted it, and Own is a subset of Set.
        llvm::cantFail(Own[Path].add(Normalized));
      }
      if (Conflict)
        break;
    }
    if (Conflict) {
      ++Plan.Conflicts;
      continue;
    }
    Plan.ByFile = std::move(Candidate);
    Plan.PerDiagnostic[I] = std::move(Own);
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
    if (Out.has_error()) {
      llvm::sys::fs::remove(Temp);
      return llvm::errorCodeToError(Out.error());
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
    auto Buffer = llvm::MemoryBuffer::getFile(Path);
    if (!Buffer) {
      Outcome.Failures.push_back(Path + ": " + Buffer.getError().message());
      continue;
    }
    auto NewCode = tooling::applyAllReplacements((*Buffer)->getBuffer(), Replacements);
    if (!NewCode) {
      Outcome.Failures.push_back(Path + ": " + llvm::toString(NewCode.takeError()));
      continue;
    }
    if (llvm::Error Err = writeAtomically(Path, *NewCode)) {
      Outcome.Failures.push_back(Path + ": " + llvm::toString(std::move(Err)));
      continue;
    }
    ++Outcome.FilesWritten;
  }
  return Outcome;
}

llvm::Error exportFixes(llvm::StringRef Path, llvm::ArrayRef<ClangTidyError> Errors,
                        const FixPlan &Plan) {
  std::vector<ClangTidyError> Exported;
  for (size_t I = 0; I < Errors.size(); ++I) {
    if (!isFinding(Errors[I]))
      continue;
    ClangTidyError E = Errors[I];
    // The planned edits replace the fix clang-apply-replacements would pick
    // (so that it picks exactly them); with none planned, no fix is left for
    // it to pick, in the message or in a later note.
    llvm::StringMap<tooling::Replacements> *Chosen = chosenFix(E);
    if (Chosen && !Plan.PerDiagnostic[I].empty()) {
      *Chosen = Plan.PerDiagnostic[I];
    } else {
      E.Message.Fix.clear();
      for (tooling::DiagnosticMessage &Note : E.Notes)
        Note.Fix.clear();
    }
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
