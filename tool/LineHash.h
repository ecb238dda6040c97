//===- LineHash.h - GitHub code scanning's primaryLocationLineHash -*- C++ -*-===//
//
// GitHub code scanning tracks an alert across commits by
// partialFingerprints.primaryLocationLineHash. The upload action
// (github/codeql-action, src/fingerprints.ts) computes it only when a result
// lacks it, and a SARIF upload through the API never does, so dmalint writes
// it itself, computed the way the action does (our own implementation of
// the algorithm that file describes; docs/reports.md):
//
// - the file is read as UTF-16 code units (JavaScript's charCodeAt of the
//   UTF-8 decoded text); spaces and tabs are skipped; "\r\n", "\r" and "\n"
//   are one line end, counted as "\n";
// - a rolling hash over a window of the 100 following characters, h = 37*h
//   + c - 37^100*c_out in wrapping 64-bit arithmetic, taken at the first
//   character of each line: the hash of that line's (non-blank) characters
//   and those of the lines after it, up to 100;
// - the end of the file is the character 65535 followed by 100 zeros, so the
//   last lines have a full window (and a file ending in a line end has one
//   more line, whose hash starts with 65535);
// - the value is the hash in lowercase hexadecimal without leading zeros,
//   then ":N", N counting the lines so far with the same hash.
//
//===----------------------------------------------------------------------===//
#ifndef DMALINT_TOOL_LINEHASH_H
#define DMALINT_TOOL_LINEHASH_H

#include "llvm/ADT/StringRef.h"
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace dmalint::tool {

/// The primaryLocationLineHashes of the lines of a text (UTF-8), spelled one
/// at a time: those of lines 1 to \p UpTo (each counts the lines before it
/// with the same hash), or of every line. The text past line \p UpTo's
/// window is not read (a file with one finding near its top is not hashed
/// to its end).
class LineHashes {
public:
  explicit LineHashes(llvm::StringRef Text, size_t UpTo = SIZE_MAX);
  /// The lines hashed: every line of the text, or at least \p UpTo.
  size_t lines() const { return Values.size(); }
  /// Line \p Line's (1-based), or "" when there is no such line.
  std::string of(size_t Line) const;

private:
  std::vector<std::pair<uint64_t, unsigned>> Values; ///< By line: the hash, its count so far.
};

/// The primaryLocationLineHash of every line of \p Text (UTF-8): element
/// I is line I + 1's.
std::vector<std::string> lineHashes(llvm::StringRef Text);

} // namespace dmalint::tool

#endif
