//===- Findings.h - The one finding type every writer reads -----*- C++ -*-===//
//
// The run (Run.h) yields clang-tidy's diagnostics per translation unit.
// resolveFindings turns them, once, into Findings: paths absolute and
// normalised, offsets resolved to lines and columns (bytes and UTF-16 code
// units), the line's text, the fix clang-tidy would apply, the path relative
// to the source root and the fingerprint. The text, SARIF, baseline and fix
// writers read only Findings; none of them reads a source file or resolves
// a path again.
//
//===----------------------------------------------------------------------===//
#ifndef DMALINT_TOOL_FINDINGS_H
#define DMALINT_TOOL_FINDINGS_H

#include "Paths.h"
#include "clang-tidy/ClangTidyDiagnosticConsumer.h"
#include "clang/Tooling/Core/Replacement.h"
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace dmalint::tool {

/// A byte offset of a file, resolved to its line and column.
struct SourcePosition {
  std::string Path;         ///< Absolute, normalised.
  unsigned Offset = 0;      ///< Bytes from the start of the file.
  unsigned Line = 0;        ///< 1-based; 0 when the file or offset could not be read.
  unsigned Column = 0;      ///< 1-based, in bytes (the text output's column).
  unsigned Utf16Column = 0; ///< 1-based, in UTF-16 code units (SARIF's columnKind).
  std::string LineText;     ///< The whole line, without its line end.
  bool resolved() const { return Line != 0; }
};

/// The message of a finding or of one of its notes.
struct FindingMessage {
  std::string Text;
  /// Where it points; none for a diagnostic without a file (a configuration
  /// error, a bad command-line flag).
  std::optional<SourcePosition> At;
  /// The UTF-16 column just past the token at At (identifier characters, or
  /// one character): SARIF's region end.
  unsigned EndUtf16Column = 0;
  /// The function whose body holds At (its qualified name and where it is
  /// declared), empty outside any function or when the AST said nothing.
  std::string EnclosingFunction;
};

/// One replacement of a fix, with both ends resolved.
struct FixEdit {
  clang::tooling::Replacement Replacement; ///< Absolute file path.
  SourcePosition Start, End;
};

/// What a diagnostic of a run is.
enum class FindingKind {
  Finding,            ///< A check's finding: reported, counted, baselined, fixed.
  Remark,             ///< Information (a function skipped at the work limit); never counted.
  CompilerError,      ///< The translation unit does not compile.
  ConfigurationError, ///< A bad .clang-tidy or option: no check judged the file.
  InputError,         ///< A bad compilation-database entry or input file.
};

/// What the AST says a finding is about, independent of where it is in the
/// file and of its wording (see Fingerprint.h).
struct FindingIdentity {
  std::string Function;   ///< The enclosing function's qualified name.
  std::string Descriptor; ///< The descriptor the finding is about, as spelled.
  std::string Statement;  ///< The primary statement's tokens, one space apart.
  bool known() const { return !Statement.empty(); }
};

struct Finding {
  FindingKind Kind = FindingKind::Finding;
  std::string Check; ///< The check (or clang's diagnostic name).
  bool WarningAsError = false;
  FindingMessage Primary;
  std::vector<FindingMessage> Notes;
  /// The fix clang-tidy would apply: the message's own, else the first
  /// note's that has one; by file, then offset.
  std::vector<FixEdit> Fix;
  std::string BuildDirectory;
  /// Primary's file relative to the source root, else absolute; empty
  /// without a file.
  std::string PortablePath;
  FindingIdentity Identity;
  /// partialFingerprints."dmalint/v1" and what baselines match; empty
  /// unless Kind is Finding.
  std::string Fingerprint;
  /// GitHub code scanning's primaryLocationLineHash of Primary's line
  /// (LineHash.h); empty unless Kind is Finding and hashLines set it.
  std::string LineHash;
  /// The translation unit the finding was first seen in.
  std::string TranslationUnit;

  bool isFinding() const { return Kind == FindingKind::Finding; }
  /// Errors that make the run fail (status 2).
  bool isError() const {
    return Kind == FindingKind::CompilerError || Kind == FindingKind::ConfigurationError ||
           Kind == FindingKind::InputError;
  }
};

/// The diagnostics of one translation unit, as the run produced them.
struct TranslationUnitResult {
  std::string File;
  std::vector<clang::tidy::ClangTidyError> Errors;
  /// Per error (same index): what the AST said about it and its notes.
  std::vector<FindingIdentity> Identities;
  std::vector<std::vector<std::string>> EnclosingFunctions;
};

/// Resolves file offsets to lines and columns, reading each file once. A
/// line ends at "\n", "\r\n" or a lone "\r", as clang counts lines.
class SourceCache {
public:
  /// \p Path absolute and normalised.
  SourcePosition resolve(const std::string &Path, unsigned Offset);
  /// The file's whole text; empty when it cannot be read.
  const std::string &text(const std::string &Path);
  /// Uses \p Text as the contents of \p Path: what the analysis read in
  /// its place (the language server's unsaved editor buffers).
  void setText(const std::string &Path, std::string Text);

private:
  struct File {
    std::string Text;
    std::vector<unsigned> LineStarts;
    bool Loaded = false;
  };
  File &load(const std::string &Path);
  static void index(File &F);
  std::map<std::string, File> Files;
};

/// The 1-based column, in UTF-16 code units, of the byte at 1-based
/// \p ByteColumn of \p LineText.
unsigned utf16Column(llvm::StringRef LineText, unsigned ByteColumn);

/// An input error about \p File (no line: the whole file, e.g. a
/// compilation database).
Finding inputError(const std::string &File, std::string Message);

/// Every diagnostic of \p Results as one list of findings, in input order,
/// each finding once (a header seen by several translation units gives its
/// findings once), resolved against \p Sources and \p Root, fingerprinted.
std::vector<Finding> resolveFindings(std::vector<TranslationUnitResult> Results,
                                     SourceCache &Sources, const SourceRoot &Root);

/// Sets the LineHash of each finding of \p Findings (GitHub's
/// primaryLocationLineHash of its line). Only a SARIF log carries it, and
/// hashing reads each file up to its last finding: the driver asks for it
/// only when it writes a log.
void hashLines(std::vector<Finding> &Findings, SourceCache &Sources);

} // namespace dmalint::tool

#endif
