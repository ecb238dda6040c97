//===- LspFindings.cpp - Findings as LSP diagnostics and quick fixes ------===//
#include "LspFindings.h"
#include "Rules.h"
#include "clang/Basic/CharInfo.h"
#include "llvm/ADT/StringExtras.h"

namespace json = llvm::json;
using dmalint::tool::Finding;
using dmalint::tool::FindingKind;
using dmalint::tool::FindingMessage;
using dmalint::tool::SourcePosition;

namespace dmalint::lsp {

namespace {

/// The LSP position of a resolved position, \p ByteColumn (1-based) on its
/// line.
Position positionOf(const SourcePosition &At, unsigned ByteColumn, PositionEncoding Encoding) {
  llvm::StringRef Before = llvm::StringRef(At.LineText).take_front(ByteColumn - 1);
  return Position{static_cast<int64_t>(At.Line) - 1,
                  static_cast<int64_t>(measureUnits(Before, Encoding))};
}

/// Renders one analysis' findings.
class Renderer {
public:
  Renderer(const Snapshot &Open, tool::SourceCache &Sources, const RenderOptions &Options)
      : Open(Open), Sources(Sources), Options(Options) {}

  std::string uri(const std::string &Path) const {
    auto It = Open.find(Path);
    return It == Open.end() ? uriFromPath(Path) : It->second.Uri;
  }

  /// The token a message points at, as the SARIF writer's region.
  std::optional<Range> tokenRange(const FindingMessage &M) const {
    if (!M.At || !M.At->resolved())
      return std::nullopt;
    size_t EndBytes = bytesForUnits(M.At->LineText, M.EndUtf16Column - 1, PositionEncoding::UTF16);
    return Range{positionOf(*M.At, M.At->Column, Options.Encoding),
                 positionOf(*M.At, EndBytes + 1, Options.Encoding)};
  }

  /// A note as relatedInformation; a note without a place of its own points
  /// at the finding.
  json::Object related(const FindingMessage &Note, const json::Object &Fallback) const {
    json::Object Location = Fallback;
    if (std::optional<Range> R = tokenRange(Note))
      Location = json::Object{{"uri", uri(Note.At->Path)}, {"range", *R}};
    return json::Object{{"location", std::move(Location)}, {"message", jsonText(Note.Text)}};
  }

  /// The fix-it of \p F as a WorkspaceEdit, or nothing when it has none (or
  /// an edit in a file that could not be read).
  std::optional<QuickFix> quickFix(const Finding &F) const {
    if (F.Fix.empty())
      return std::nullopt;
    std::map<std::string, json::Array> EditsByPath;
    std::vector<std::string> Parts;
    for (const tool::FixEdit &E : F.Fix) {
      if (!E.Start.resolved() || !E.End.resolved())
        return std::nullopt;
      const std::string &Path = E.Start.Path;
      Range Replaced{positionOf(E.Start, E.Start.Column, Options.Encoding),
                     positionOf(E.End, E.End.Column, Options.Encoding)};
      llvm::StringRef New = E.Replacement.getReplacementText();
      EditsByPath[Path].push_back(json::Object{{"range", Replaced}, {"newText", jsonText(New)}});
      llvm::StringRef Old = llvm::StringRef(Sources.text(Path))
                                .substr(E.Replacement.getOffset(), E.Replacement.getLength());
      if (Old.empty())
        Parts.push_back("insert '" + shown(New) + "'");
      else if (New.empty())
        Parts.push_back("remove '" + shown(Old) + "'");
      else
        Parts.push_back("change '" + shown(Old) + "' to '" + shown(New) + "'");
    }
    QuickFix Fix;
    Fix.Title = "dmalint: " + llvm::join(Parts, ", ");
    if (Options.DocumentChanges) {
      json::Array Changes;
      for (auto &[Path, Edits] : EditsByPath) {
        auto It = Open.find(Path);
        json::Value Version = It == Open.end() ? json::Value(nullptr) : It->second.Version;
        Changes.push_back(json::Object{
            {"textDocument", json::Object{{"uri", uri(Path)}, {"version", std::move(Version)}}},
            {"edits", std::move(Edits)}});
      }
      Fix.Edit = json::Object{{"documentChanges", std::move(Changes)}};
    } else {
      json::Object Changes;
      for (auto &[Path, Edits] : EditsByPath)
        Changes[uri(Path)] = std::move(Edits);
      Fix.Edit = json::Object{{"changes", std::move(Changes)}};
    }
    return Fix;
  }

private:
  /// \p Text as a title shows it: whitespace runs as one space, at most 40
  /// characters.
  static std::string shown(llvm::StringRef Text) {
    std::string Out;
    for (char C : Text) {
      if (!clang::isWhitespace(C))
        Out += C;
      else if (!Out.empty() && Out.back() != ' ')
        Out += ' ';
    }
    llvm::StringRef Trimmed = llvm::StringRef(Out).trim();
    return Trimmed.size() > 40 ? Trimmed.take_front(37).str() + "..." : Trimmed.str();
  }

  const Snapshot &Open;
  tool::SourceCache &Sources;
  const RenderOptions &Options;
};

} // namespace

std::string textLocation(const FindingMessage &Message) {
  if (!Message.At)
    return "";
  std::string Where = Message.At->Path + ":";
  if (Message.At->resolved())
    Where += std::to_string(Message.At->Line) + ":" + std::to_string(Message.At->Column) + ":";
  return Where + " ";
}

std::vector<RenderedFinding> renderFindings(llvm::ArrayRef<Finding> Findings,
                                            const std::string &MainPath, const Snapshot &Open,
                                            tool::SourceCache &Sources,
                                            const RenderOptions &Options) {
  Renderer R(Open, Sources, Options);
  std::vector<RenderedFinding> Rendered;
  for (const Finding &F : Findings) {
    if ((F.Kind != FindingKind::Finding && F.Kind != FindingKind::Remark) || !F.Primary.At ||
        F.Primary.At->Path != MainPath)
      continue;
    std::optional<Range> Where = R.tokenRange(F.Primary);
    if (!Where)
      continue;
    json::Object Location{{"uri", R.uri(MainPath)}, {"range", *Where}};
    std::string Message = F.Primary.Text;
    json::Array Related;
    for (const FindingMessage &Note : F.Notes) {
      if (Options.RelatedInformation)
        Related.push_back(R.related(Note, Location));
      else // The notes as the text writer prints them.
        Message += "\n\n" + textLocation(Note) + "note: " + Note.Text;
    }
    bool IsRemark = F.Kind == FindingKind::Remark;
    json::Object Diagnostic{
        {"range", *Where},
        {"severity", F.WarningAsError ? 1 : IsRemark ? 3 : 2},
        {"code", F.Check},
        {"source", "dmalint"},
        {"message", jsonText(Message)},
    };
    if (llvm::StringRef(F.Check).starts_with("dma-"))
      Diagnostic["codeDescription"] =
          json::Object{{"href", tool::checkDocUrl(Options.CheckDocUrl, F.Check)}};
    if (!Related.empty())
      Diagnostic["relatedInformation"] = std::move(Related);
    Rendered.push_back(
        {*Where, std::move(Diagnostic), IsRemark ? std::nullopt : R.quickFix(F)});
  }
  return Rendered;
}

json::Array codeActions(llvm::ArrayRef<RenderedFinding> Findings, const Range &Where) {
  json::Array Actions;
  for (const RenderedFinding &F : Findings) {
    if (!F.Fix || !F.Where.touches(Where))
      continue;
    // One fix per finding: the preferred one, which an editor may apply with
    // a single key ("fix all" and the like).
    Actions.push_back(json::Object{
        {"title", F.Fix->Title},
        {"kind", "quickfix"},
        {"diagnostics", json::Array{json::Value(json::Object(F.Diagnostic))}},
        {"isPreferred", true},
        {"edit", json::Object(F.Fix->Edit)},
    });
  }
  return Actions;
}

} // namespace dmalint::lsp
