//===- LspProtocol.h - LSP 3.17 basics: positions, encodings, URIs -*- C++ -*-===//
//
// What every part of the language server shares: LSP positions and ranges
// (a line and a character offset in the negotiated position encoding), their
// conversion to and from byte offsets in UTF-8 text, file URIs, and the
// JSON-RPC error codes. Nothing here knows about the analysis.
//
//===----------------------------------------------------------------------===//
#ifndef DMALINT_TOOL_LSPPROTOCOL_H
#define DMALINT_TOOL_LSPPROTOCOL_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace dmalint::lsp {

/// JSON-RPC 2.0 and LSP error codes.
enum ErrorCode : int {
  ParseError = -32700,
  InvalidRequest = -32600,
  MethodNotFound = -32601,
  InvalidParams = -32602,
  InternalError = -32603,
  ServerNotInitialized = -32002,
  RequestCancelled = -32800,
  ContentModified = -32801,
};

/// What a position's character offset counts (LSP 3.17 `positionEncoding`;
/// UTF-16 unless client and server agree on another).
enum class PositionEncoding { UTF8, UTF16, UTF32 };

llvm::StringRef encodingName(PositionEncoding Encoding);
std::optional<PositionEncoding> encodingNamed(llvm::StringRef Name);

/// The number of code units of \p Encoding in the UTF-8 text \p Text. A byte
/// that is not valid UTF-8 counts as one unit.
size_t measureUnits(llvm::StringRef Text, PositionEncoding Encoding);

/// The bytes of the longest prefix of \p Text that is at most \p Units code
/// units of \p Encoding long: a unit count inside a code point (half of a
/// surrogate pair) stops before it, a count past the end stops at the end.
size_t bytesForUnits(llvm::StringRef Text, size_t Units, PositionEncoding Encoding);

struct Position {
  int64_t Line = 0;
  int64_t Character = 0;
  friend bool operator==(const Position &A, const Position &B) {
    return A.Line == B.Line && A.Character == B.Character;
  }
  friend bool operator<(const Position &A, const Position &B) {
    return A.Line < B.Line || (A.Line == B.Line && A.Character < B.Character);
  }
  friend bool operator<=(const Position &A, const Position &B) { return !(B < A); }
};

struct Range {
  Position Start;
  Position End;
  /// True when the two ranges share a position (ends included: a cursor at
  /// the end of a diagnostic's range touches it).
  bool touches(const Range &Other) const { return Start <= Other.End && Other.Start <= End; }
};

bool fromJSON(const llvm::json::Value &Value, Position &Out, llvm::json::Path Path);
bool fromJSON(const llvm::json::Value &Value, Range &Out, llvm::json::Path Path);
llvm::json::Value toJSON(const Position &P);
llvm::json::Value toJSON(const Range &R);

/// The lines of a UTF-8 text, for converting between byte offsets and
/// positions. A line ends at "\n", "\r\n" or "\r", as LSP and clang count.
/// The text must outlive the table.
class LineTable {
public:
  explicit LineTable(llvm::StringRef Text);

  /// The byte offset of \p P. As LSP 3.17 says, a character past the end of
  /// its line means the line's end; a line past the last means the text's end.
  size_t offset(const Position &P, PositionEncoding Encoding) const;

  /// The position of the byte at \p Offset (at most the text's size).
  Position position(size_t Offset, PositionEncoding Encoding) const;

  /// The text of line \p Line (0-based) without its line ending.
  llvm::StringRef line(size_t Line) const;

  size_t lineCount() const { return Starts.size(); }

private:
  llvm::StringRef Text;
  std::vector<size_t> Starts; ///< The offset at which each line starts.
};

/// The absolute path a `file:` URI names (percent-decoded), or an error
/// naming what is wrong with it (another scheme, a bad escape, ...).
llvm::Expected<std::string> pathFromUri(llvm::StringRef Uri);

/// The `file:` URI of an absolute path: every byte but letters, digits,
/// "-._~" and '/' percent-encoded.
std::string uriFromPath(llvm::StringRef AbsolutePath);

/// \p Text as a JSON string: text from files on disk may hold bytes that
/// are not UTF-8, which JSON cannot carry; they become U+FFFD.
llvm::json::Value jsonText(llvm::StringRef Text);

} // namespace dmalint::lsp

#endif
