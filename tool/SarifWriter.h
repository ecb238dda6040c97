//===- SarifWriter.h - Findings as a SARIF 2.1.0 log ------------*- C++ -*-===//
//
// Built from the findings (never from the text output) with llvm::json:
// clang's SarifDocumentWriter has no relatedLocations, fixes,
// partialFingerprints or originalUriBaseIds. What GitHub code scanning reads
// is always there: tool.driver.name, rules with ids, results with a ruleId,
// a physical location with a URI relative to SRCROOT and a start line, and
// partialFingerprints.
//
//===----------------------------------------------------------------------===//
#ifndef DMALINT_TOOL_SARIFWRITER_H
#define DMALINT_TOOL_SARIFWRITER_H

#include "Findings.h"
#include "llvm/Support/JSON.h"
#include <string>
#include <vector>

namespace dmalint::tool {

struct SarifOptions {
  /// SRCROOT, which artifact URIs are relative to.
  const SourceRoot *Root = nullptr;
  /// The checks the run enabled: one rule each (plus any check a result
  /// names that is not among them).
  std::vector<std::string> EnabledChecks;
  /// The documentation URL of a check, "{check}" standing for its name.
  std::string CheckDocUrl;
  /// The findings were filtered through a baseline: results say they are new.
  bool AgainstBaseline = false;
  /// runs[].automationDetails.id: GitHub code scanning's category (up to the
  /// last '/') and run.
  std::string AutomationId = "dmalint/";
};

/// The SARIF log of \p Findings: findings become results; compiler errors,
/// configuration and input errors, and remarks become tool execution
/// notifications (an error also makes the run unsuccessful).
llvm::json::Value sarifLog(llvm::ArrayRef<const Finding *> Findings, const SarifOptions &Options);

/// Writes \p Log, pretty-printed, to \p Path ("-" is stdout).
llvm::Error writeSarif(llvm::StringRef Path, const llvm::json::Value &Log);

} // namespace dmalint::tool

#endif
