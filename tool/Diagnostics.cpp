//===- Diagnostics.cpp - Printing findings in clang's format -------------===//
#include "Diagnostics.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/WithColor.h"
#include <algorithm>
#include <map>

using namespace clang;
using namespace clang::tidy;

namespace dmalint::tool {

ResolvedLocation SourceCache::resolve(const std::string &Path, unsigned Offset) {
  File &F = Files[Path];
  if (!F.Loaded) {
    F.Loaded = true;
    if (auto Buffer = llvm::MemoryBuffer::getFile(Path))
      F.Text = (*Buffer)->getBuffer().str();
    F.LineStarts.push_back(0);
    for (unsigned I = 0; I < F.Text.size(); ++I)
      if (F.Text[I] == '\n')
        F.LineStarts.push_back(I + 1);
  }
  ResolvedLocation L;
  L.Path = Path;
  if (F.Text.empty() || Offset > F.Text.size())
    return L;
  auto It = std::upper_bound(F.LineStarts.begin(), F.LineStarts.end(), Offset);
  unsigned LineIndex = static_cast<unsigned>(It - F.LineStarts.begin()) - 1;
  unsigned Start = F.LineStarts[LineIndex];
  L.Line = LineIndex + 1;
  L.Column = Offset - Start + 1;
  size_t End = F.Text.find('\n', Start);
  L.LineText = F.Text.substr(Start, End == std::string::npos ? std::string::npos
                                                             : End - Start);
  if (!L.LineText.empty() && L.LineText.back() == '\r')
    L.LineText.pop_back();
  return L;
}

std::string normalisedPath(llvm::StringRef Path) {
  llvm::SmallString<256> Absolute(Path);
  llvm::sys::fs::make_absolute(Absolute);
  llvm::SmallString<256> Lexical(Absolute);
  llvm::sys::path::remove_dots(Lexical, /*remove_dot_dot=*/true);
  bool HasDotDot = llvm::is_contained(
      llvm::make_range(llvm::sys::path::begin(Absolute), llvm::sys::path::end(Absolute)), "..");
  if (HasDotDot && llvm::sys::fs::exists(Absolute)) {
    bool Same = false;
    if (llvm::sys::fs::equivalent(Absolute, Lexical, Same) || !Same) {
      llvm::SmallString<256> Real;
      if (!llvm::sys::fs::real_path(Absolute, Real))
        return std::string(Real);
    }
  }
  return std::string(Lexical);
}

std::string absolutePath(llvm::StringRef FilePath,
                         const std::string &BuildDirectory) {
  if (!FilePath.empty() && !llvm::sys::path::is_absolute(FilePath) && !BuildDirectory.empty())
    return normalisedPath((llvm::Twine(BuildDirectory) + "/" + FilePath).str());
  return normalisedPath(FilePath);
}

bool isCompilerError(const ClangTidyError &Error) {
  return Error.DiagLevel == ClangTidyError::Error && !Error.IsWarningAsError;
}

bool isFinding(const ClangTidyError &Error) {
  return !isCompilerError(Error) && Error.DiagLevel != ClangTidyError::Remark;
}

static void printOne(llvm::raw_ostream &OS, SourceCache &Sources,
                     const tooling::DiagnosticMessage &Message,
                     const std::string &BuildDirectory, llvm::StringRef Level,
                     llvm::raw_ostream::Colors LevelColor, llvm::StringRef Suffix,
                     bool UseColor) {
  if (Message.FilePath.empty()) {
    // Diagnostics without a location (e.g. a bad command-line flag).
    OS << Level << ": " << Message.Message << Suffix << "\n";
    return;
  }
  ResolvedLocation L = Sources.resolve(absolutePath(Message.FilePath, BuildDirectory),
                                       Message.FileOffset);
  llvm::StringRef Shown = L.Path;
  // Paths under the working directory read as the user would type them.
  static const std::string WorkingDirectory = [] {
    llvm::SmallString<256> Here;
    llvm::sys::fs::current_path(Here);
    return std::string(Here) + "/";
  }();
  Shown.consume_front(WorkingDirectory);
  if (UseColor)
    OS.changeColor(llvm::raw_ostream::SAVEDCOLOR, /*Bold=*/true);
  OS << Shown << ":" << L.Line << ":" << L.Column << ": ";
  if (UseColor)
    OS.changeColor(LevelColor, /*Bold=*/true);
  OS << Level << ":";
  if (UseColor)
    OS.changeColor(llvm::raw_ostream::SAVEDCOLOR, /*Bold=*/true);
  OS << " " << Message.Message << Suffix << "\n";
  if (UseColor)
    OS.resetColor();
  if (L.Line == 0)
    return;
  // Clang's snippet format: a line-number gutter, the line, a caret.
  std::string Number = std::to_string(L.Line);
  std::string Gutter(std::max<size_t>(Number.size(), 5), ' ');
  OS << Gutter.substr(Number.size()) << Number << " | " << L.LineText << "\n";
  std::string Caret;
  for (unsigned I = 0; I + 1 < L.Column && I < L.LineText.size(); ++I)
    Caret += L.LineText[I] == '\t' ? '\t' : ' ';
  OS << Gutter << " | " << Caret;
  if (UseColor)
    OS.changeColor(llvm::raw_ostream::GREEN, /*Bold=*/true);
  OS << "^\n";
  if (UseColor)
    OS.resetColor();
}

void printDiagnostics(llvm::ArrayRef<ClangTidyError> Errors, SourceCache &Sources,
                      llvm::raw_ostream &OS, bool UseColor) {
  for (const ClangTidyError &E : Errors) {
    bool IsError = E.DiagLevel == ClangTidyError::Error || E.IsWarningAsError;
    bool IsRemark = E.DiagLevel == ClangTidyError::Remark;
    std::string Suffix;
    if (!llvm::StringRef(E.DiagnosticName).starts_with("clang-diagnostic-error"))
      Suffix = " [" + E.DiagnosticName + (E.IsWarningAsError ? ",-warnings-as-errors" : "") + "]";
    printOne(OS, Sources, E.Message, E.BuildDirectory,
             IsError ? "error" : IsRemark ? "remark" : "warning",
             IsError    ? llvm::raw_ostream::RED
             : IsRemark ? llvm::raw_ostream::BLUE
                        : llvm::raw_ostream::MAGENTA,
             Suffix, UseColor);
    for (const tooling::DiagnosticMessage &Note : E.Notes)
      printOne(OS, Sources, Note, E.BuildDirectory, "note", llvm::raw_ostream::CYAN, "",
               UseColor);
  }
}

} // namespace dmalint::tool
