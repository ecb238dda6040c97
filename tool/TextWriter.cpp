//===- TextWriter.cpp - Findings in clang's diagnostic format -------------===//
#include "TextWriter.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include <algorithm>

namespace dmalint::tool {

static void printOne(llvm::raw_ostream &OS, const FindingMessage &Message, llvm::StringRef Level,
                     llvm::raw_ostream::Colors LevelColor, llvm::StringRef Suffix,
                     bool UseColor) {
  if (!Message.At) {
    // Diagnostics without a location (e.g. a bad command-line flag).
    OS << Level << ": " << Message.Text << Suffix << "\n";
    return;
  }
  const SourcePosition &At = *Message.At;
  llvm::StringRef Shown = At.Path;
  // Paths under the working directory read as the user would type them.
  static const std::string WorkingDirectory = [] {
    llvm::SmallString<256> Here;
    llvm::sys::fs::current_path(Here);
    return std::string(Here) + "/";
  }();
  Shown.consume_front(WorkingDirectory);
  if (UseColor)
    OS.changeColor(llvm::raw_ostream::SAVEDCOLOR, /*Bold=*/true);
  OS << Shown << ":";
  if (At.resolved()) // A problem of the whole file (a compilation database's) has no line.
    OS << At.Line << ":" << At.Column << ":";
  OS << " ";
  if (UseColor)
    OS.changeColor(LevelColor, /*Bold=*/true);
  OS << Level << ":";
  if (UseColor)
    OS.changeColor(llvm::raw_ostream::SAVEDCOLOR, /*Bold=*/true);
  OS << " " << Message.Text << Suffix << "\n";
  if (UseColor)
    OS.resetColor();
  if (!At.resolved())
    return;
  // Clang's snippet format: a line-number gutter, the line, a caret.
  std::string Number = std::to_string(At.Line);
  std::string Gutter(std::max<size_t>(Number.size(), 5), ' ');
  OS << Gutter.substr(Number.size()) << Number << " | " << At.LineText << "\n";
  std::string Caret;
  for (unsigned I = 0; I + 1 < At.Column && I < At.LineText.size(); ++I)
    Caret += At.LineText[I] == '\t' ? '\t' : ' ';
  OS << Gutter << " | " << Caret;
  if (UseColor)
    OS.changeColor(llvm::raw_ostream::GREEN, /*Bold=*/true);
  OS << "^\n";
  if (UseColor)
    OS.resetColor();
}

void printFindings(llvm::ArrayRef<const Finding *> Findings, llvm::raw_ostream &OS,
                   bool UseColor) {
  for (const Finding *F : Findings) {
    bool IsError = F->isError() || F->WarningAsError;
    bool IsRemark = F->Kind == FindingKind::Remark;
    std::string Suffix;
    if (!llvm::StringRef(F->Check).starts_with("clang-diagnostic-error") && !F->Check.empty())
      Suffix = " [" + F->Check + (F->WarningAsError ? ",-warnings-as-errors" : "") + "]";
    printOne(OS, F->Primary, IsError ? "error" : IsRemark ? "remark" : "warning",
             IsError    ? llvm::raw_ostream::RED
             : IsRemark ? llvm::raw_ostream::BLUE
                        : llvm::raw_ostream::MAGENTA,
             Suffix, UseColor);
    for (const FindingMessage &Note : F->Notes)
      printOne(OS, Note, "note", llvm::raw_ostream::CYAN, "", UseColor);
  }
}

} // namespace dmalint::tool
