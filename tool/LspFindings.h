//===- LspFindings.h - Findings as LSP diagnostics and quick fixes -*- C++ -*-===//
//
// The language server's writer, beside the text and SARIF writers, over the
// same resolved findings (Findings.h): each finding a Diagnostic (check name
// as `code`, its documentation as `codeDescription`, severity from
// WarningsAsErrors, the notes (the bug's path) as `relatedInformation`) and
// its fix-it a `quickfix` code action. The findings are resolved against the
// texts the analysis read (the editor's buffers as they were when it
// started), so their positions are those of the version they are published
// for.
//
//===----------------------------------------------------------------------===//
#ifndef DMALINT_TOOL_LSPFINDINGS_H
#define DMALINT_TOOL_LSPFINDINGS_H

#include "Findings.h"
#include "LspProtocol.h"
#include "llvm/Support/JSON.h"
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace dmalint::lsp {

/// An open document as an analysis saw it.
struct DocumentSnapshot {
  std::string Uri;
  int64_t Version = 0;
  std::string Text;
};

/// The open documents an analysis read, by path.
using Snapshot = std::map<std::string, DocumentSnapshot>;

/// What the client can take, and how positions are counted.
struct RenderOptions {
  PositionEncoding Encoding = PositionEncoding::UTF16;
  /// The client shows relatedInformation; otherwise notes are appended to
  /// the message, as clangd does.
  bool RelatedInformation = true;
  /// The client takes versioned documentChanges in a WorkspaceEdit, which it
  /// refuses to apply to a document that has changed since.
  bool DocumentChanges = false;
  /// A check's documentation URL, "{check}" standing for its name.
  std::string CheckDocUrl;
};

struct QuickFix {
  std::string Title;
  llvm::json::Object Edit; ///< A WorkspaceEdit.
};

struct RenderedFinding {
  Range Where;
  llvm::json::Object Diagnostic;
  /// The fix-it: the edits `dmalint --fix` makes for this finding.
  std::optional<QuickFix> Fix;
};

/// The findings and remarks of \p Findings in the file \p MainPath (those
/// in other files are the concern of those files' own analyses, as in
/// clangd). \p Sources holds the texts the findings were resolved against.
std::vector<RenderedFinding> renderFindings(llvm::ArrayRef<tool::Finding> Findings,
                                            const std::string &MainPath, const Snapshot &Open,
                                            tool::SourceCache &Sources,
                                            const RenderOptions &Options);

/// "path:line:column: " of \p Message as the text writer prints it (byte
/// columns), or nothing for a message without a place.
std::string textLocation(const tool::FindingMessage &Message);

/// The code actions of \p Findings that touch \p Where, as LSP CodeActions.
llvm::json::Array codeActions(llvm::ArrayRef<RenderedFinding> Findings, const Range &Where);

} // namespace dmalint::lsp

#endif
