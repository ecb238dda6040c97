//===- Rules.h - What each check is, for reports that describe rules -*- C++ -*-===//
//
// SARIF describes every rule a run used (shortDescription, fullDescription,
// help and a link to its documentation). The words are those of
// docs/checks/<check>.md and the README's table of checks; a check missing
// here (a new one) still gets a rule entry, with generic words and its link.
//
//===----------------------------------------------------------------------===//
#ifndef DMALINT_TOOL_RULES_H
#define DMALINT_TOOL_RULES_H

#include "llvm/ADT/StringRef.h"
#include <string>

namespace dmalint::tool {

struct CheckDescription {
  std::string Summary;     ///< One line: what the check finds.
  std::string Description; ///< A paragraph: what it finds and why it matters.
};

/// The description of the check \p Name.
CheckDescription describeCheck(llvm::StringRef Name);

/// The documentation URL of \p Name: \p Template with every "{check}"
/// replaced by the check's name.
std::string checkDocUrl(llvm::StringRef Template, llvm::StringRef Name);

/// The default of --check-doc-url, set at configure time
/// (-DDMALINT_CHECK_DOC_URL=...).
llvm::StringRef defaultCheckDocUrl();

/// Where dmalint itself is described (SARIF's tool.driver.informationUri).
llvm::StringRef informationUrl();

} // namespace dmalint::tool

#endif
