//===- LspDocuments.h - The editor's open documents, as it sees them -*- C++ -*-===//
//
// The text of every document the client opened, kept in step with its
// didChange notifications (whole-text and incremental changes), with the
// version the client gave it. Its contents, saved or not, are what the
// analysis reads in place of the files on disk.
//
//===----------------------------------------------------------------------===//
#ifndef DMALINT_TOOL_LSPDOCUMENTS_H
#define DMALINT_TOOL_LSPDOCUMENTS_H

#include "LspProtocol.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/Error.h"
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace dmalint::lsp {

/// One entry of didChange's contentChanges: a range and its new text, or
/// (without a range) the document's whole new text.
struct TextChange {
  std::optional<Range> Replaced;
  std::string Text;
};
bool fromJSON(const llvm::json::Value &Value, TextChange &Out, llvm::json::Path Path);

struct Document {
  std::string Uri;  ///< As the client spelled it.
  std::string Path; ///< The file it names.
  std::string LanguageId;
  int64_t Version = 0;
  std::string Text;
};

class DocumentStore {
public:
  /// Opens (or, opened again, replaces) the document \p Uri.
  llvm::Error open(llvm::StringRef Uri, llvm::StringRef LanguageId, int64_t Version,
                   std::string Text);

  /// Applies \p Changes in order, then takes \p Version. A range is read in
  /// \p Encoding against the text as the changes before it left it; a
  /// position past a line's end or the text's end is clamped (LSP 3.17). A
  /// range whose end is before its start is an error, and then no change of
  /// the notification is applied.
  llvm::Error change(llvm::StringRef Uri, int64_t Version, llvm::ArrayRef<TextChange> Changes,
                     PositionEncoding Encoding);

  /// Forgets \p Uri; false when it was not open.
  bool close(llvm::StringRef Uri);

  const Document *find(llvm::StringRef Uri) const;
  /// The open document of the file \p Path, if any.
  const Document *findByPath(llvm::StringRef Path) const;

  /// Every open document's URI.
  std::vector<std::string> uris() const;

  /// The path and text of every open document: what the analysis overlays
  /// on the file system.
  std::vector<std::pair<std::string, std::string>> contents() const;

private:
  llvm::StringMap<Document> ByUri;
  std::map<std::string, std::string> UriByPath;
};

} // namespace dmalint::lsp

#endif
