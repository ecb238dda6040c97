//===- ConfigurationErrors.h - When a file's configuration is wrong -*- C++ -*-===//
//
// A configuration error (a .clang-tidy that cannot be read or parsed, an
// unknown dma-* check or option, a value an option cannot take, an API model
// that does not fit the code) means that no dma-* check judges the files it
// governs, in either front end: the findings would come from a
// configuration the user did not write. The checks of one translation unit
// share what has been found wrong with it, so that each problem is said once
// and every check stops.
//
//===----------------------------------------------------------------------===//
#ifndef DMALINT_CHECKS_CONFIGURATIONERRORS_H
#define DMALINT_CHECKS_CONFIGURATIONERRORS_H

#include "clang-tidy/ClangTidyDiagnosticConsumer.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace dmalint::checks {

/// What the dma-* checks of the translation unit being checked know about
/// its configuration. Both front ends make all the checks of a translation
/// unit before running any, and one translation unit at a time per thread.
class FileConfiguration {
public:
  /// The state of the translation unit \p Context is at: a fresh one when
  /// \p Context moved on to another file.
  static FileConfiguration &of(const clang::tidy::ClangTidyContext &Context);

  /// The state for a check being made for \p Context's translation unit.
  /// Both front ends make every check of a translation unit before any of
  /// them registers its matchers, so a check made after that belongs to the
  /// next translation unit, even of the same file with the same context:
  /// clang-tidy and dmalint run every compile command of a file (a file the
  /// database lists twice, with other flags) with one context, and nothing
  /// tells the checks of the plugin that a translation unit starts.
  static FileConfiguration &forNewCheck(const clang::tidy::ClangTidyContext &Context);
  /// Said by every check as it registers its matchers; true for the first
  /// check of the translation unit.
  bool matchersRegistered() { return !std::exchange(MatchersRegistered, true); }

  /// Starts a new translation unit on this thread, even of the file the
  /// last one was of, with a context at the same address (the language
  /// server analyses one file again and again, a context on the stack each
  /// time): what was found wrong before is forgotten.
  static void startTranslationUnit();

  /// True once any configuration error was found: nothing is judged.
  bool broken() const { return Broken; }
  /// Marks the configuration broken; true when \p Message is new for this
  /// translation unit (say it), false when it was said already.
  bool fail(const std::string &Message);

  /// Whether the checks that concern the whole file (its .clang-tidy files,
  /// check names, keys of unknown checks) ran; set by the first check made.
  bool FileChecked = false;
  /// The API model options the first check made read (`dma.X` -> value),
  /// the key each came from, and that check: every other check must read
  /// the same model.
  std::optional<std::map<std::string, std::string>> Model;
  std::map<std::string, std::string> ModelGiven;
  std::string ModelCheck;

private:
  static FileConfiguration &current();
  /// Forgets everything: the state of a new translation unit of \p Context.
  void restart(const clang::tidy::ClangTidyContext &Context);

  const clang::tidy::ClangTidyContext *Context = nullptr;
  std::string File;
  bool Broken = false;
  bool MatchersRegistered = false;
  std::set<std::string> Said;
};

/// A .clang-tidy file that governs a source file.
struct ConfigurationFile {
  std::string Path;
  /// What it says; none when it cannot be read or parsed (then Problem
  /// says why, naming the file).
  std::optional<clang::tidy::ClangTidyOptions> Options;
  std::string Problem;
};

/// The .clang-tidy files that govern \p File, closest first, looked up as
/// clang-tidy does: the closest one above it, then its parents while
/// InheritParentConfig is true. A file that cannot be read or is not valid
/// YAML for clang-tidy ends the list (clang-tidy itself skips such a file
/// and carries on with its parent's configuration or the defaults).
std::vector<ConfigurationFile> configurationFiles(llvm::StringRef File);

/// The globs of \p Checks (a comma-separated glob list, as in Checks:)
/// that name dma-* checks but match none of \p Known: `dma-typo` and
/// `-dma-typo` (a check meant to be disabled but left on). Globs outside
/// dma-* are for other clang-tidy modules, and are not judged.
std::vector<std::string> unknownDmaGlobs(llvm::StringRef Checks,
                                         llvm::ArrayRef<std::string> Known);

/// The name of \p Known closest to \p Name, if close enough to be a typo.
std::optional<std::string> closestName(llvm::StringRef Name, llvm::ArrayRef<std::string> Known);

/// A boolean option's value as clang-tidy reads booleans (YAML's true and
/// false spellings, and 0 or 1); nothing for anything else.
std::optional<bool> parseBooleanOption(llvm::StringRef Value);

/// A positive integer that fits an unsigned; nothing for anything else.
std::optional<unsigned> parsePositiveOption(llvm::StringRef Value);

/// Where the option \p Key of \p File's configuration was set: "in 'FILE'",
/// "on the command line", or "(not set, so the built-in default)".
std::string optionOrigin(llvm::StringRef Key, llvm::StringRef File,
                         const clang::tidy::ClangTidyOptions &Effective);

/// Where the glob \p Glob of the effective Checks of \p File comes from:
/// "in the Checks of 'FILE'" or "in the checks given on the command line".
std::string checksOrigin(llvm::StringRef Glob, llvm::StringRef File);

} // namespace dmalint::checks

#endif
