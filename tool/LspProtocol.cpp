//===- LspProtocol.cpp - LSP 3.17 basics: positions, encodings, URIs ------===//
#include "LspProtocol.h"
#include "clang/Basic/CharInfo.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/ConvertUTF.h"
#include "llvm/Support/Path.h"
#include <algorithm>

namespace json = llvm::json;

namespace dmalint::lsp {

llvm::StringRef encodingName(PositionEncoding Encoding) {
  switch (Encoding) {
  case PositionEncoding::UTF8:
    return "utf-8";
  case PositionEncoding::UTF16:
    return "utf-16";
  case PositionEncoding::UTF32:
    return "utf-32";
  }
  llvm_unreachable("every encoding is named");
}

std::optional<PositionEncoding> encodingNamed(llvm::StringRef Name) {
  if (Name == "utf-8")
    return PositionEncoding::UTF8;
  if (Name == "utf-16")
    return PositionEncoding::UTF16;
  if (Name == "utf-32")
    return PositionEncoding::UTF32;
  return std::nullopt;
}

/// The length in bytes of the code point starting at \p Text's first byte
/// (1 for a byte that does not start a valid sequence), and its units.
static std::pair<size_t, size_t> codePoint(llvm::StringRef Text, PositionEncoding Encoding) {
  unsigned Length = llvm::getNumBytesForUTF8(Text.front());
  if (Length < 1 || Length > Text.size() ||
      !llvm::isLegalUTF8Sequence(reinterpret_cast<const llvm::UTF8 *>(Text.data()),
                                 reinterpret_cast<const llvm::UTF8 *>(Text.data()) + Length))
    return {1, 1};
  switch (Encoding) {
  case PositionEncoding::UTF8:
    return {Length, Length};
  case PositionEncoding::UTF16:
    return {Length, Length == 4 ? 2 : 1}; // Outside the BMP: a surrogate pair.
  case PositionEncoding::UTF32:
    return {Length, 1};
  }
  llvm_unreachable("every encoding is handled");
}

size_t measureUnits(llvm::StringRef Text, PositionEncoding Encoding) {
  if (Encoding == PositionEncoding::UTF8)
    return Text.size();
  size_t Units = 0;
  while (!Text.empty()) {
    auto [Bytes, CodeUnits] = codePoint(Text, Encoding);
    Units += CodeUnits;
    Text = Text.drop_front(Bytes);
  }
  return Units;
}

size_t bytesForUnits(llvm::StringRef Text, size_t Units, PositionEncoding Encoding) {
  if (Encoding == PositionEncoding::UTF8)
    return std::min(Units, Text.size());
  size_t Offset = 0;
  while (Offset < Text.size()) {
    auto [Bytes, CodeUnits] = codePoint(Text.drop_front(Offset), Encoding);
    if (CodeUnits > Units)
      break;
    Units -= CodeUnits;
    Offset += Bytes;
  }
  return Offset;
}

bool fromJSON(const json::Value &Value, Position &Out, json::Path Path) {
  json::ObjectMapper O(Value, Path);
  if (!O || !O.map("line", Out.Line) || !O.map("character", Out.Character))
    return false;
  if (Out.Line < 0 || Out.Character < 0) {
    Path.report("a position's line and character must not be negative");
    return false;
  }
  return true;
}

bool fromJSON(const json::Value &Value, Range &Out, json::Path Path) {
  json::ObjectMapper O(Value, Path);
  return O && O.map("start", Out.Start) && O.map("end", Out.End);
}

json::Value toJSON(const Position &P) {
  return json::Object{{"line", P.Line}, {"character", P.Character}};
}

json::Value toJSON(const Range &R) { return json::Object{{"start", R.Start}, {"end", R.End}}; }

LineTable::LineTable(llvm::StringRef Text) : Text(Text) {
  Starts.push_back(0);
  for (size_t I = 0; I < Text.size(); ++I) {
    if (Text[I] == '\n' || (Text[I] == '\r' && (I + 1 == Text.size() || Text[I + 1] != '\n')))
      Starts.push_back(I + 1);
  }
}

llvm::StringRef LineTable::line(size_t Line) const {
  size_t Start = Starts[Line];
  size_t End = Line + 1 < Starts.size() ? Starts[Line + 1] : Text.size();
  llvm::StringRef Whole = Text.slice(Start, End);
  if (Whole.ends_with("\n"))
    Whole = Whole.drop_back();
  if (Whole.ends_with("\r"))
    Whole = Whole.drop_back();
  return Whole;
}

size_t LineTable::offset(const Position &P, PositionEncoding Encoding) const {
  if (P.Line < 0)
    return 0;
  if (static_cast<uint64_t>(P.Line) >= Starts.size())
    return Text.size();
  llvm::StringRef Line = line(P.Line);
  size_t Units = P.Character < 0 ? 0 : static_cast<size_t>(P.Character);
  return Starts[P.Line] + bytesForUnits(Line, Units, Encoding);
}

Position LineTable::position(size_t Offset, PositionEncoding Encoding) const {
  Offset = std::min(Offset, Text.size());
  auto It = std::upper_bound(Starts.begin(), Starts.end(), Offset);
  size_t Line = static_cast<size_t>(It - Starts.begin()) - 1;
  llvm::StringRef Content = line(Line);
  // An offset inside the line ending is the line's end.
  size_t Column = std::min(Offset - Starts[Line], Content.size());
  return Position{static_cast<int64_t>(Line),
                  static_cast<int64_t>(measureUnits(Content.take_front(Column), Encoding))};
}

static llvm::Error uriError(llvm::StringRef Uri, const llvm::Twine &Why) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                 "cannot use the URI '" + Uri + "': " + Why);
}

llvm::Expected<std::string> pathFromUri(llvm::StringRef Uri) {
  llvm::StringRef Rest = Uri;
  size_t Colon = Rest.find(':');
  if (Colon == llvm::StringRef::npos || Colon == 0)
    return uriError(Uri, "it has no scheme");
  llvm::StringRef Scheme = Rest.take_front(Colon);
  if (!Scheme.equals_insensitive("file"))
    return uriError(Uri, "only file: URIs name files dmalint can analyse, not '" + Scheme +
                             ":'");
  Rest = Rest.drop_front(Colon + 1);
  if (Rest.consume_front("//")) {
    // The authority: empty or "localhost" for a local file.
    size_t Slash = Rest.find('/');
    llvm::StringRef Authority = Rest.take_front(Slash);
    if (!Authority.empty() && !Authority.equals_insensitive("localhost"))
      return uriError(Uri, "it names a file on another host ('" + Authority + "')");
    Rest = Slash == llvm::StringRef::npos ? llvm::StringRef() : Rest.drop_front(Slash);
  }
  // A query or fragment is not part of the path.
  Rest = Rest.take_until([](char C) { return C == '?' || C == '#'; });
  std::string Path;
  for (size_t I = 0; I < Rest.size(); ++I) {
    if (Rest[I] != '%') {
      Path += Rest[I];
      continue;
    }
    if (I + 2 >= Rest.size() || !llvm::isHexDigit(Rest[I + 1]) || !llvm::isHexDigit(Rest[I + 2]))
      return uriError(Uri, "'%' is not followed by two hexadecimal digits");
    Path += static_cast<char>(llvm::hexFromNibbles(Rest[I + 1], Rest[I + 2]));
    I += 2;
  }
  if (!llvm::sys::path::is_absolute(Path, llvm::sys::path::Style::posix))
    return uriError(Uri, "its path is not absolute");
  if (Path.find('\0') != std::string::npos)
    return uriError(Uri, "its path holds a NUL byte");
  return Path;
}

std::string uriFromPath(llvm::StringRef AbsolutePath) {
  std::string Uri = "file://";
  for (unsigned char C : AbsolutePath) {
    if (clang::isAsciiIdentifierContinue(C) || llvm::StringRef("-.~/").contains(C))
      Uri += C;
    else
      Uri += "%" + llvm::utohexstr(C, /*LowerCase=*/false, /*Width=*/2);
  }
  return Uri;
}

json::Value jsonText(llvm::StringRef Text) {
  if (json::isUTF8(Text))
    return Text.str();
  return json::fixUTF8(Text);
}

} // namespace dmalint::lsp
