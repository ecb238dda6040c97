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

#include "Diagnostics.h"
#include "llvm/ADT/StringRef.h"
#include <optional>
#include <string>
#include <vector>

namespace dmalint::tool {

/// The directory report paths are relative to (SARIF's SRCROOT): the
/// directory of compile_commands.json, the working directory, or
/// --source-root.
class SourceRoot {
public:
  /// \p Directory is made absolute and normalised.
  explicit SourceRoot(llvm::StringRef Directory);

  /// The absolute directory, without a trailing separator.
  const std::string &directory() const { return Directory; }

  /// \p AbsolutePath relative to the root with '/' separators, or nothing
  /// when it is outside the root.
  std::optional<std::string> relative(llvm::StringRef AbsolutePath) const;

  /// The relative path when inside the root, else the absolute path.
  std::string portable(llvm::StringRef AbsolutePath) const;

private:
  std::string Directory;
};

/// The key of dmalint's fingerprint in SARIF's partialFingerprints; the
/// version changes whenever the recipe does.
constexpr llvm::StringLiteral FingerprintKey = "dmalint/v1";

/// One fingerprint per error of \p Errors (same index), empty for what is
/// not a finding (compiler errors, remarks). A fingerprint is a hash of the
/// check, the file's portable path, the trimmed line and the message, then
/// ":N": the N-th finding (by position in the file) with that hash, so two
/// identical findings in one file (the same call on two lines with the same
/// text) stay distinct.
std::vector<std::string> fingerprintFindings(llvm::ArrayRef<clang::tidy::ClangTidyError> Errors,
                                             SourceCache &Sources, const SourceRoot &Root);

} // namespace dmalint::tool

#endif
