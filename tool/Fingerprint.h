//===- Fingerprint.h - Identities of findings that survive edits -*- C++ -*-===//
//
// A finding's fingerprint is what SARIF's partialFingerprints and baselines
// match on. It is made of what the finding is about (Identity.h): the check,
// the enclosing function's qualified name, the descriptor's name and the
// tokens of the statement. Not the file's path (a rename, or the tree
// checked out elsewhere, keeps it), not the message (a reworded message
// keeps it), not the line or column (lines inserted above keep it), not
// comments or layout (editing a comment on the line keeps it).
//
//===----------------------------------------------------------------------===//
#ifndef DMALINT_TOOL_FINGERPRINT_H
#define DMALINT_TOOL_FINGERPRINT_H

#include "Findings.h"
#include "llvm/ADT/StringRef.h"
#include <vector>

namespace dmalint::tool {

/// The key of dmalint's fingerprint in SARIF's partialFingerprints; the
/// version changes whenever the recipe does.
constexpr llvm::StringLiteral FingerprintKey = "dmalint/v2";

/// The hash part of a finding's fingerprint: the first 128 bits of
/// SHA-256(check, function, descriptor, statement), NUL-separated, in hex.
/// A finding the AST said nothing about (none so far) uses its line's text,
/// whitespace collapsed, as the statement.
std::string identityHash(const Finding &F);

/// Sets the Fingerprint of every finding of \p Findings: its identityHash,
/// then ":N": the N-th finding (by position in its file) with that hash in
/// that file, so that the same statement twice in one function stays two
/// findings.
void assignFingerprints(std::vector<Finding> &Findings);

/// The fingerprints of version 1 (dmalint 0.1's baselines), one per finding
/// (empty for what is not a finding): SHA-256(check, path relative to
/// \p Root, trimmed line text, message), then ":N" per file. Only to read
/// old baselines.
std::vector<std::string> legacyFingerprints(llvm::ArrayRef<Finding> Findings,
                                            const SourceRoot &Root);

} // namespace dmalint::tool

#endif
