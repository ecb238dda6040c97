//===- LspFindings.cpp - Findings as LSP diagnostics and quick fixes ------===//
#include "LspFindings.h"
#include "Diagnostics.h"
#include "Fixes.h"
#include "Rules.h"
#include "clang/Basic/CharInfo.h"
#include "llvm/Support/MemoryBuffer.h"
#include <set>

using namespace clang;
using namespace clang::tidy;
namespace json = llvm::json;

namespace dmalint::lsp {

SnapshotTexts::SnapshotTexts(std::map<std::string, DocumentSnapshot> Open)
    : Open(std::move(Open)) {}

const LineTable *SnapshotTexts::lines(const std::string &Path) {
  auto It = Files.find(Path);
  if (It != Files.end())
    return It->second.Lines.get();
  Loaded &L = Files[Path];
  if (const DocumentSnapshot *D = document(Path)) {
    L.Lines = std::make_unique<LineTable>(D->Text);
  } else if (auto Buffer = llvm::MemoryBuffer::getFile(Path)) {
    L.Text = (*Buffer)->getBuffer().str();
    L.Lines = std::make_unique<LineTable>(L.Text);
  }
  return L.Lines.get();
}

llvm::StringRef SnapshotTexts::text(const std::string &Path) {
  if (const DocumentSnapshot *D = document(Path))
    return D->Text;
  lines(Path); // Loads it.
  return Files[Path].Text;
}

const DocumentSnapshot *SnapshotTexts::document(const std::string &Path) const {
  auto It = Open.find(Path);
  return It == Open.end() ? nullptr : &It->second;
}

std::string SnapshotTexts::uri(const std::string &Path) const {
  if (const DocumentSnapshot *D = document(Path))
    return D->Uri;
  return uriFromPath(Path);
}

namespace {

/// Renders the locations of one translation unit's findings.
class Renderer {
public:
  Renderer(SnapshotTexts &Texts, const RenderOptions &Options) : Texts(Texts), Options(Options) {}

  /// The range of the token a diagnostic points at: identifier characters,
  /// or one character (as the SARIF writer's region).
  std::optional<Range> tokenRange(const std::string &Path, unsigned Offset) {
    const LineTable *Lines = Texts.lines(Path);
    if (!Lines)
      return std::nullopt;
    Position Start = Lines->position(Offset, Options.Encoding);
    llvm::StringRef Line = Lines->line(Start.Line);
    size_t Column = bytesForUnits(Line, Start.Character, Options.Encoding);
    llvm::StringRef Rest = Line.drop_front(Column);
    size_t Token = Rest.empty() ? 0 : 1;
    if (!Rest.empty() && isAsciiIdentifierContinue(Rest.front()))
      Token = std::min(Rest.find_if_not([](char C) { return isAsciiIdentifierContinue(C); }),
                       Rest.size());
    return Range{Start, Lines->position(Offset + Token, Options.Encoding)};
  }

  std::optional<Range> byteRange(const std::string &Path, unsigned Offset, unsigned Length) {
    const LineTable *Lines = Texts.lines(Path);
    if (!Lines)
      return std::nullopt;
    return Range{Lines->position(Offset, Options.Encoding),
                 Lines->position(Offset + Length, Options.Encoding)};
  }

  /// A note as relatedInformation; a note without a place of its own points
  /// at the diagnostic.
  json::Object related(const tooling::DiagnosticMessage &Note, const std::string &BuildDirectory,
                       const json::Object &Fallback) {
    json::Object Location = Fallback;
    if (!Note.FilePath.empty()) {
      std::string Path = tool::absolutePath(Note.FilePath, BuildDirectory);
      if (std::optional<Range> R = tokenRange(Path, Note.FileOffset))
        Location = json::Object{{"uri", Texts.uri(Path)}, {"range", *R}};
    }
    return json::Object{{"location", std::move(Location)}, {"message", jsonText(Note.Message)}};
  }

  /// The WorkspaceEdit of one fix-it (replacements by file).
  std::optional<json::Object> workspaceEdit(const llvm::StringMap<tooling::Replacements> &Fix,
                                            const std::string &BuildDirectory) {
    std::map<std::string, json::Array> EditsByPath;
    for (const auto &FileAndReplacements : Fix) {
      for (const tooling::Replacement &R : FileAndReplacements.getValue()) {
        std::string Path = tool::absolutePath(R.getFilePath(), BuildDirectory);
        std::optional<Range> Replaced = byteRange(Path, R.getOffset(), R.getLength());
        if (!Replaced)
          return std::nullopt; // A file that cannot be read: no half fix.
        EditsByPath[Path].push_back(
            json::Object{{"range", *Replaced}, {"newText", jsonText(R.getReplacementText())}});
      }
    }
    if (Options.DocumentChanges) {
      json::Array Changes;
      for (auto &[Path, Edits] : EditsByPath) {
        const DocumentSnapshot *D = Texts.document(Path);
        json::Value Version = D ? json::Value(D->Version) : json::Value(nullptr);
        Changes.push_back(json::Object{
            {"textDocument", json::Object{{"uri", Texts.uri(Path)}, {"version", Version}}},
            {"edits", std::move(Edits)}});
      }
      return json::Object{{"documentChanges", std::move(Changes)}};
    }
    json::Object Changes;
    for (auto &[Path, Edits] : EditsByPath)
      Changes[Texts.uri(Path)] = std::move(Edits);
    return json::Object{{"changes", std::move(Changes)}};
  }

private:
  SnapshotTexts &Texts;
  const RenderOptions &Options;
};

/// \p Text as a title shows it: whitespace runs as one space, at most 40
/// characters.
std::string shown(llvm::StringRef Text) {
  std::string Out;
  for (char C : Text) {
    if (isWhitespace(C)) {
      if (!Out.empty() && Out.back() != ' ')
        Out += ' ';
    } else {
      Out += C;
    }
  }
  llvm::StringRef Trimmed = llvm::StringRef(Out).trim();
  if (Trimmed.size() > 40)
    return Trimmed.take_front(37).str() + "...";
  return Trimmed.str();
}

/// A title that says what a fix-it does: "change 'a' to 'b'", "insert
/// 'x'", "remove 'y'", each edit of the fix in order.
std::string fixTitle(const llvm::StringMap<tooling::Replacements> &Fix, SnapshotTexts &Texts,
                     const std::string &BuildDirectory) {
  std::vector<std::string> Parts;
  for (const auto &FileAndReplacements : Fix) {
    for (const tooling::Replacement &R : FileAndReplacements.getValue()) {
      std::string Path = tool::absolutePath(R.getFilePath(), BuildDirectory);
      llvm::StringRef Old = Texts.text(Path).substr(R.getOffset(), R.getLength());
      llvm::StringRef New = R.getReplacementText();
      if (!R.getLength())
        Parts.push_back("insert '" + shown(New) + "'");
      else if (New.empty())
        Parts.push_back("remove '" + shown(Old) + "'");
      else
        Parts.push_back("change '" + shown(Old) + "' to '" + shown(New) + "'");
    }
  }
  std::string Title = "dmalint: ";
  for (size_t I = 0; I < Parts.size(); ++I)
    Title += (I ? ", " : "") + Parts[I];
  return Title;
}

} // namespace

std::string textLocation(const tooling::DiagnosticMessage &Message,
                         const std::string &BuildDirectory, SnapshotTexts &Texts) {
  if (Message.FilePath.empty())
    return "";
  std::string Path = tool::absolutePath(Message.FilePath, BuildDirectory);
  std::string Where = Path + ":";
  if (const LineTable *Lines = Texts.lines(Path)) {
    Position At = Lines->position(Message.FileOffset, PositionEncoding::UTF8);
    Where += std::to_string(At.Line + 1) + ":" + std::to_string(At.Character + 1) + ":";
  }
  return Where + " ";
}

std::vector<RenderedFinding> renderFindings(llvm::ArrayRef<ClangTidyError> Errors,
                                            const std::string &MainPath, SnapshotTexts &Texts,
                                            const RenderOptions &Options) {
  Renderer R(Texts, Options);
  std::vector<RenderedFinding> Rendered;
  for (const ClangTidyError &E : Errors) {
    if (tool::isCompilerError(E) || E.Message.FilePath.empty() ||
        tool::absolutePath(E.Message.FilePath, E.BuildDirectory) != MainPath)
      continue;
    std::optional<Range> Where = R.tokenRange(MainPath, E.Message.FileOffset);
    if (!Where)
      continue;
    json::Object Location{{"uri", Texts.uri(MainPath)}, {"range", *Where}};
    bool IsRemark = E.DiagLevel == ClangTidyError::Remark;
    std::string Message = E.Message.Message;
    json::Array Related;
    for (const tooling::DiagnosticMessage &Note : E.Notes) {
      json::Object Info = R.related(Note, E.BuildDirectory, Location);
      if (Options.RelatedInformation) {
        Related.push_back(std::move(Info));
        continue;
      }
      // Without relatedInformation, the notes read as the text writer prints them.
      Message += "\n\n" + textLocation(Note, E.BuildDirectory, Texts) + "note: " + Note.Message;
    }
    json::Object Diagnostic{
        {"range", *Where},
        {"severity", E.IsWarningAsError ? 1 : IsRemark ? 3 : 2},
        {"code", E.DiagnosticName},
        {"source", "dmalint"},
        {"message", jsonText(Message)},
    };
    if (llvm::StringRef(E.DiagnosticName).starts_with("dma-"))
      Diagnostic["codeDescription"] =
          json::Object{{"href", tool::checkDocUrl(Options.CheckDocUrl, E.DiagnosticName)}};
    if (!Related.empty())
      Diagnostic["relatedInformation"] = std::move(Related);

    RenderedFinding Finding;
    Finding.Where = *Where;
    Finding.Diagnostic = std::move(Diagnostic);
    // The fix clang-tidy applies first, then the other notes' fixes.
    std::vector<const llvm::StringMap<tooling::Replacements> *> Fixes;
    if (const auto *Chosen = tool::chosenFix(E))
      Fixes.push_back(Chosen);
    for (const tooling::DiagnosticMessage &Note : E.Notes)
      if (!Note.Fix.empty() && !llvm::is_contained(Fixes, &Note.Fix))
        Fixes.push_back(&Note.Fix);
    if (!IsRemark) {
      for (const auto *Fix : Fixes)
        if (std::optional<json::Object> Edit = R.workspaceEdit(*Fix, E.BuildDirectory))
          Finding.Fixes.push_back({fixTitle(*Fix, Texts, E.BuildDirectory), std::move(*Edit)});
    }
    Rendered.push_back(std::move(Finding));
  }
  return Rendered;
}

json::Array codeActions(llvm::ArrayRef<RenderedFinding> Findings, const Range &Where) {
  json::Array Actions;
  for (const RenderedFinding &F : Findings) {
    if (!F.Where.touches(Where))
      continue;
    for (const QuickFix &Fix : F.Fixes) {
      Actions.push_back(json::Object{
          {"title", Fix.Title},
          {"kind", "quickfix"},
          {"diagnostics", json::Array{json::Value(json::Object(F.Diagnostic))}},
          {"isPreferred", F.Fixes.size() == 1},
          {"edit", json::Object(Fix.Edit)},
      });
    }
  }
  return Actions;
}

} // namespace dmalint::lsp
