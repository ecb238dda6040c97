//===- Baseline.h - Accepting the findings a code base already has -*- C++ -*-===//
//
// `--write-baseline FILE` records the current findings; `--baseline FILE`
// then reports only findings that are not in it. Findings are matched by
// fingerprint (Fingerprint.h), not by line, so editing unrelated lines does
// not bring an accepted finding back. The file is JSON (docs/reports.md):
//
//   {"version": 1, "tool": "dmalint",
//    "findings": [{"fingerprint": "...", "check": "...", "file": "...",
//                  "line": 5, "message": "..."}]}
//
// Only "fingerprint" is matched; the other fields are for the reader.
//
//===----------------------------------------------------------------------===//
#ifndef DMALINT_TOOL_BASELINE_H
#define DMALINT_TOOL_BASELINE_H

#include "Fingerprint.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/Error.h"

namespace dmalint::tool {

/// The fingerprints of the accepted findings.
struct Baseline {
  llvm::StringSet<> Fingerprints;
};

/// Reads a baseline file; fails with a message naming the file and what is
/// wrong with it when it cannot be read or is not a dmalint baseline.
llvm::Expected<Baseline> readBaseline(llvm::StringRef Path);

/// Writes the findings of \p Findings as a baseline file. \p Path "-" is
/// stdout.
llvm::Error writeBaseline(llvm::StringRef Path, llvm::ArrayRef<Finding> Findings);

} // namespace dmalint::tool

#endif
