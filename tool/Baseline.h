//===- Baseline.h - Accepting the findings a code base already has -*- C++ -*-===//
//
// `--write-baseline FILE` records the current findings; `--baseline FILE`
// then reports only findings that are not in it. Findings are matched by
// fingerprint (Fingerprint.h), not by line or path, so unrelated edits, a
// rename or another checkout do not bring an accepted finding back. The
// file is JSON (docs/reports.md):
//
//   {"version": 2, "tool": "dmalint",
//    "findings": [{"fingerprint": "...", "check": "...", "file": "...",
//                  "function": "...", "line": 5, "message": "..."}]}
//
// Only "fingerprint" is matched; the other fields are for the reader. A
// version 1 file (dmalint 0.1) is read too, and matched by its own recipe.
//
//===----------------------------------------------------------------------===//
#ifndef DMALINT_TOOL_BASELINE_H
#define DMALINT_TOOL_BASELINE_H

#include "Fingerprint.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/Error.h"

namespace dmalint::tool {

/// The accepted findings.
class Baseline {
public:
  /// The file's version: 2, or 1 for a file written by dmalint 0.1 (whose
  /// fingerprints are legacyFingerprints).
  int64_t Version = 2;
  /// How many accepted findings have each fingerprint.
  llvm::StringMap<unsigned> Accepted;

  /// True, and one fewer left, when a finding with \p Fingerprint is
  /// accepted: each entry accepts one finding, so a second copy of an
  /// accepted finding is new.
  bool accept(llvm::StringRef Fingerprint);
};

/// Reads a baseline file; fails with a message naming the file and what is
/// wrong with it when it cannot be read or is not a dmalint baseline.
llvm::Expected<Baseline> readBaseline(llvm::StringRef Path);

/// Writes the findings of \p Findings as a (version 2) baseline file.
/// \p Path "-" is stdout.
llvm::Error writeBaseline(llvm::StringRef Path, llvm::ArrayRef<Finding> Findings);

} // namespace dmalint::tool

#endif
