//===- LspDocuments.cpp - The editor's open documents, as it sees them ----===//
#include "LspDocuments.h"

namespace json = llvm::json;

namespace dmalint::lsp {

static llvm::Error documentError(const llvm::Twine &Message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), Message);
}

bool fromJSON(const json::Value &Value, TextChange &Out, json::Path Path) {
  json::ObjectMapper O(Value, Path);
  return O && O.map("text", Out.Text) && O.mapOptional("range", Out.Replaced);
}

llvm::Error DocumentStore::open(llvm::StringRef Uri, llvm::StringRef LanguageId,
                                int64_t Version, std::string Text) {
  llvm::Expected<std::string> Path = pathFromUri(Uri);
  if (!Path)
    return Path.takeError();
  close(Uri);
  Document &D = ByUri[Uri];
  D.Uri = Uri.str();
  D.Path = *Path;
  D.LanguageId = LanguageId.str();
  D.Version = Version;
  D.Text = std::move(Text);
  UriByPath[D.Path] = D.Uri;
  return llvm::Error::success();
}

llvm::Error DocumentStore::change(llvm::StringRef Uri, int64_t Version,
                                  llvm::ArrayRef<TextChange> Changes,
                                  PositionEncoding Encoding) {
  auto It = ByUri.find(Uri);
  if (It == ByUri.end())
    return documentError("didChange for '" + Uri + "', which is not open");
  Document &D = It->second;
  std::string Text = D.Text;
  for (size_t I = 0; I < Changes.size(); ++I) {
    const TextChange &C = Changes[I];
    if (!C.Replaced) {
      Text = C.Text;
      continue;
    }
    if (C.Replaced->End < C.Replaced->Start)
      return documentError("change " + llvm::Twine(I) + " of version " + llvm::Twine(Version) +
                           " of '" + Uri + "' has a range that ends before it starts; the " +
                           "document stays at version " + llvm::Twine(D.Version));
    LineTable Lines(Text);
    size_t Start = Lines.offset(C.Replaced->Start, Encoding);
    size_t End = Lines.offset(C.Replaced->End, Encoding);
    Text.replace(Start, End - Start, C.Text);
  }
  D.Text = std::move(Text);
  D.Version = Version;
  return llvm::Error::success();
}

bool DocumentStore::close(llvm::StringRef Uri) {
  auto It = ByUri.find(Uri);
  if (It == ByUri.end())
    return false;
  UriByPath.erase(It->second.Path);
  ByUri.erase(It);
  return true;
}

const Document *DocumentStore::find(llvm::StringRef Uri) const {
  auto It = ByUri.find(Uri);
  return It == ByUri.end() ? nullptr : &It->second;
}

const Document *DocumentStore::findByPath(llvm::StringRef Path) const {
  auto It = UriByPath.find(Path.str());
  return It == UriByPath.end() ? nullptr : find(It->second);
}

std::vector<std::string> DocumentStore::uris() const {
  std::vector<std::string> Uris;
  for (const auto &Entry : ByUri)
    Uris.push_back(Entry.getValue().Uri);
  llvm::sort(Uris);
  return Uris;
}

std::vector<std::pair<std::string, std::string>> DocumentStore::contents() const {
  std::vector<std::pair<std::string, std::string>> All;
  for (const auto &Entry : ByUri)
    All.emplace_back(Entry.getValue().Path, Entry.getValue().Text);
  return All;
}

} // namespace dmalint::lsp
