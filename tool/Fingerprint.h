//===- Fingerprint.h - Identities of findings that survive edits -*- C++ -*-===//
//
// A finding's fingerprint is what SARIF's partialFingerprints and the
// baseline file match on. It is made of what the finding *is* (the check,
// the file relative to the source root, the trimmed text of its line and its
// message), never of where it is (no line or column), so inserting or
// deleting unrelated lines leaves it unchanged.
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
constexpr llvm::StringLiteral FingerprintKey = "dmalint/v1";

/// Sets the Fingerprint of every finding of \p Findings: a hash of the
/// check, the file's portable path, the trimmed line and the message, then
/// ":N": the N-th finding (by position in the file) with that hash, so two
/// identical findings in one file (the same call on two lines with the same
/// text) stay distinct.
void assignFingerprints(std::vector<Finding> &Findings);

} // namespace dmalint::tool

#endif
