//===- LspFindings.h - Findings as LSP diagnostics and quick fixes -*- C++ -*-===//
//
// The language server's writer, beside the text and SARIF writers: the same
// findings, each as a Diagnostic (check name as `code`, its documentation as
// `codeDescription`, severity from WarningsAsErrors, the notes (the bug's
// path) as `relatedInformation`) and its fix-its as `quickfix` code actions.
// Positions are computed against the texts the analysis read (the editor's
// buffers as they were when it started), so they match the version the
// diagnostics are published for.
//
//===----------------------------------------------------------------------===//
#ifndef DMALINT_TOOL_LSPFINDINGS_H
#define DMALINT_TOOL_LSPFINDINGS_H

#include "LspProtocol.h"
#include "clang-tidy/ClangTidyDiagnosticConsumer.h"
#include "llvm/Support/JSON.h"
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace dmalint::lsp {

/// An open document as an analysis saw it.
struct DocumentSnapshot {
  std::string Uri;
  int64_t Version = 0;
  std::string Text;
};

/// The texts an analysis read: open documents (by path) as they were when it
/// started, any other file from disk.
class SnapshotTexts {
public:
  explicit SnapshotTexts(std::map<std::string, DocumentSnapshot> Open);

  /// The lines of \p Path, or null when it cannot be read.
  const LineTable *lines(const std::string &Path);
  /// The text of \p Path (empty when it cannot be read).
  llvm::StringRef text(const std::string &Path);
  /// The open document of \p Path, or null.
  const DocumentSnapshot *document(const std::string &Path) const;
  /// The URI of \p Path: the client's own when it has it open.
  std::string uri(const std::string &Path) const;

  const std::map<std::string, DocumentSnapshot> &open() const { return Open; }

private:
  struct Loaded {
    std::string Text; ///< Files read from disk (open ones live in Open).
    std::unique_ptr<LineTable> Lines;
  };
  std::map<std::string, DocumentSnapshot> Open;
  std::map<std::string, Loaded> Files;
};

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
  /// The fix clang-tidy applies first (the one `dmalint --fix` makes), then
  /// any alternative a note carries.
  std::vector<QuickFix> Fixes;
};

/// The findings of \p Errors in the file \p MainPath (compiler errors have
/// none; findings in other files are the concern of those files' own
/// analyses, as in clangd).
std::vector<RenderedFinding> renderFindings(llvm::ArrayRef<clang::tidy::ClangTidyError> Errors,
                                            const std::string &MainPath, SnapshotTexts &Texts,
                                            const RenderOptions &Options);

/// "path:line:column: " of \p Message as the text writer prints it (byte
/// columns), or nothing for a message without a file.
std::string textLocation(const clang::tooling::DiagnosticMessage &Message,
                         const std::string &BuildDirectory, SnapshotTexts &Texts);

/// The code actions of \p Findings that touch \p Where, as LSP CodeActions.
llvm::json::Array codeActions(llvm::ArrayRef<RenderedFinding> Findings, const Range &Where);

} // namespace dmalint::lsp

#endif
