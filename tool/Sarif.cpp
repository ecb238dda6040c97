//===- Sarif.cpp - Findings as a SARIF 2.1.0 log --------------------------===//
#include "Sarif.h"
#include "Fixes.h"
#include "Rules.h"
#include "clang/Basic/CharInfo.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"
#include <map>
#include <set>

using namespace clang;
using namespace clang::tidy;
namespace json = llvm::json;

namespace dmalint::tool {

namespace {

constexpr llvm::StringLiteral SchemaUri =
    "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json";
constexpr llvm::StringLiteral RootId = "SRCROOT";

/// The 1-based column, in UTF-16 code units (SARIF's default columnKind), of
/// the byte at 1-based \p ByteColumn of \p LineText.
unsigned utf16Column(llvm::StringRef LineText, unsigned ByteColumn) {
  unsigned Bytes = ByteColumn - 1, Units = 0;
  for (unsigned char C : LineText.take_front(Bytes)) {
    if ((C & 0xC0) != 0x80) // Not a continuation byte: a new code point.
      ++Units;
    if (C >= 0xF0) // Four bytes: outside the BMP, a surrogate pair.
      ++Units;
  }
  if (Bytes > LineText.size()) // The line's end (its newline).
    Units += Bytes - LineText.size();
  return Units + 1;
}

/// Percent-encodes what may not stand in a URI path as it is; ':' too, so a
/// relative reference never reads as a scheme.
std::string encodeUriPath(llvm::StringRef Path) {
  std::string Encoded;
  for (unsigned char C : Path) {
    if (isAlphanumeric(C) || llvm::StringRef("-._~/!$&'()*+,;=@").contains(C))
      Encoded += C;
    else
      Encoded += "%" + llvm::utohexstr(C, /*LowerCase=*/false, /*Width=*/2);
  }
  return Encoded;
}

std::string fileUri(llvm::StringRef AbsolutePath) {
  std::string Path = llvm::sys::path::convert_to_slash(AbsolutePath);
  return "file://" + encodeUriPath(Path);
}

// json::Value keeps a StringRef without copying: every string that does not
// outlive the log goes in as a std::string.
json::Object message(llvm::StringRef Text) { return json::Object{{"text", Text.str()}}; }

/// Builds the pieces of a log that point into source files.
class LocationBuilder {
public:
  LocationBuilder(SourceCache &Sources, const SourceRoot &Root) : Sources(Sources), Root(Root) {}

  json::Object artifactLocation(llvm::StringRef AbsolutePath) const {
    if (std::optional<std::string> Relative = Root.relative(AbsolutePath))
      return json::Object{{"uri", encodeUriPath(*Relative)}, {"uriBaseId", RootId}};
    return json::Object{{"uri", fileUri(AbsolutePath)}};
  }

  /// Where a diagnostic points: its line and the token starting there
  /// (identifier characters, or one character), with the whole line as
  /// context. Nothing for a diagnostic without a file.
  std::optional<json::Object> physicalLocation(const tooling::DiagnosticMessage &Message,
                                               const std::string &BuildDirectory) {
    if (Message.FilePath.empty())
      return std::nullopt;
    std::string Path = absolutePath(Message.FilePath, BuildDirectory);
    json::Object Physical{{"artifactLocation", artifactLocation(Path)}};
    ResolvedLocation L = Sources.resolve(Path, Message.FileOffset);
    if (L.Line == 0)
      return Physical;
    llvm::StringRef Rest = llvm::StringRef(L.LineText).drop_front(L.Column - 1);
    size_t Token = Rest.empty() ? 0 : 1;
    if (!Rest.empty() && isAsciiIdentifierContinue(Rest.front()))
      Token = std::min(Rest.find_if_not([](char C) { return isAsciiIdentifierContinue(C); }),
                       Rest.size());
    Physical["region"] = json::Object{{"startLine", L.Line},
                                      {"startColumn", utf16Column(L.LineText, L.Column)},
                                      {"endColumn", utf16Column(L.LineText, L.Column + Token)}};
    Physical["contextRegion"] =
        json::Object{{"startLine", L.Line}, {"snippet", json::Object{{"text", L.LineText}}}};
    return Physical;
  }

  /// A location with the diagnostic's message (for notes and code flows).
  json::Object location(const tooling::DiagnosticMessage &Message,
                        const std::string &BuildDirectory) {
    json::Object Location{{"message", message(Message.Message)}};
    if (std::optional<json::Object> Physical = physicalLocation(Message, BuildDirectory))
      Location["physicalLocation"] = std::move(*Physical);
    return Location;
  }

  /// The region of bytes [Offset, Offset + Length) of a file, by line and
  /// column and by bytes.
  json::Object replacedRegion(llvm::StringRef Path, unsigned Offset, unsigned Length) {
    ResolvedLocation Start = Sources.resolve(std::string(Path), Offset);
    ResolvedLocation End = Sources.resolve(std::string(Path), Offset + Length);
    json::Object Region{{"byteOffset", Offset}, {"byteLength", Length}};
    if (Start.Line && End.Line) {
      Region["startLine"] = Start.Line;
      Region["startColumn"] = utf16Column(Start.LineText, Start.Column);
      Region["endLine"] = End.Line;
      Region["endColumn"] = utf16Column(End.LineText, End.Column);
    }
    return Region;
  }

private:
  SourceCache &Sources;
  const SourceRoot &Root;
};

/// The fix clang-tidy would apply for \p E, as one SARIF fix: one artifact
/// change per file, in path order.
std::optional<json::Object> sarifFix(const ClangTidyError &E, LocationBuilder &Locations) {
  const llvm::StringMap<tooling::Replacements> *Fix = chosenFix(E);
  if (!Fix)
    return std::nullopt;
  std::map<std::string, std::vector<const tooling::Replacement *>> ByFile;
  for (const auto &FileAndReplacements : *Fix)
    for (const tooling::Replacement &R : FileAndReplacements.getValue())
      ByFile[absolutePath(R.getFilePath(), E.BuildDirectory)].push_back(&R);
  json::Array Changes;
  for (auto &[Path, Replacements] : ByFile) {
    llvm::sort(Replacements, [](const tooling::Replacement *A, const tooling::Replacement *B) {
      return *A < *B;
    });
    json::Array Edits;
    for (const tooling::Replacement *R : Replacements) {
      json::Object Edit{
          {"deletedRegion", Locations.replacedRegion(Path, R->getOffset(), R->getLength())}};
      if (!R->getReplacementText().empty())
        Edit["insertedContent"] = json::Object{{"text", R->getReplacementText().str()}};
      Edits.push_back(std::move(Edit));
    }
    Changes.push_back(json::Object{{"artifactLocation", Locations.artifactLocation(Path)},
                                   {"replacements", std::move(Edits)}});
  }
  if (Changes.empty())
    return std::nullopt;
  return json::Object{{"artifactChanges", std::move(Changes)}};
}

json::Object rule(llvm::StringRef Name, const SarifOptions &Options) {
  CheckDescription Description = describeCheck(Name);
  std::string Url = checkDocUrl(Options.CheckDocUrl, Name);
  return json::Object{
      {"id", Name.str()},
      {"name", Name.str()},
      {"shortDescription", message(Description.Summary)},
      {"fullDescription", message(Description.Description)},
      {"help", json::Object{{"text", Description.Description + "\n\nDocumentation: " + Url},
                            {"markdown", Description.Description + "\n\n[Documentation of " +
                                             Name.str() + "](" + Url + ")"}}},
      {"helpUri", Url},
      {"defaultConfiguration", json::Object{{"level", "warning"}}}};
}

} // namespace

json::Value sarifLog(llvm::ArrayRef<ClangTidyError> Errors,
                     llvm::ArrayRef<std::string> Fingerprints, SourceCache &Sources,
                     const SarifOptions &Options) {
  LocationBuilder Locations(Sources, *Options.Root);

  // Rules: every enabled check, and any other a result names, by name.
  std::set<std::string> RuleNames(Options.EnabledChecks.begin(), Options.EnabledChecks.end());
  for (const ClangTidyError &E : Errors)
    if (!isCompilerError(E))
      RuleNames.insert(E.DiagnosticName);
  std::map<std::string, unsigned> RuleIndex;
  json::Array Rules;
  for (const std::string &Name : RuleNames) {
    RuleIndex[Name] = Rules.size();
    Rules.push_back(rule(Name, Options));
  }

  json::Array Results, Notifications;
  bool Compiled = true;
  for (size_t I = 0; I < Errors.size(); ++I) {
    const ClangTidyError &E = Errors[I];
    std::optional<json::Object> Primary = Locations.physicalLocation(E.Message, E.BuildDirectory);
    if (!isFinding(E)) {
      // A compiler error or a remark is about the run, not a result.
      bool IsError = isCompilerError(E);
      Compiled &= !IsError;
      // A function skipped at the work limit: the results may miss its
      // findings, which deserves more than a note.
      json::Object Notification{{"level", IsError ? "error" : "warning"},
                                {"message", message(E.Message.Message)}};
      if (Primary)
        Notification["locations"] =
            json::Array{json::Object{{"physicalLocation", std::move(*Primary)}}};
      if (!IsError)
        Notification["associatedRule"] =
            json::Object{{"id", E.DiagnosticName}, {"index", RuleIndex[E.DiagnosticName]}};
      Notifications.push_back(std::move(Notification));
      continue;
    }
    json::Object Result{{"ruleId", E.DiagnosticName},
                        {"ruleIndex", RuleIndex[E.DiagnosticName]},
                        {"level", E.IsWarningAsError ? "error" : "warning"},
                        {"message", message(E.Message.Message)},
                        {"partialFingerprints", json::Object{{FingerprintKey, Fingerprints[I]}}}};
    if (Primary)
      Result["locations"] = json::Array{json::Object{{"physicalLocation", std::move(*Primary)}}};
    if (!E.Notes.empty()) {
      json::Array Related, Flow;
      for (size_t N = 0; N < E.Notes.size(); ++N) {
        json::Object Note = Locations.location(E.Notes[N], E.BuildDirectory);
        Note["id"] = N + 1;
        Related.push_back(std::move(Note));
        Flow.push_back(
            json::Object{{"location", Locations.location(E.Notes[N], E.BuildDirectory)}});
      }
      // The path: how the descriptor got here (the notes, in order), then
      // the finding.
      Flow.push_back(json::Object{{"location", Locations.location(E.Message, E.BuildDirectory)}});
      Result["relatedLocations"] = std::move(Related);
      Result["codeFlows"] = json::Array{
          json::Object{{"threadFlows", json::Array{json::Object{{"locations", std::move(Flow)}}}}}};
    }
    if (std::optional<json::Object> Fix = sarifFix(E, Locations))
      Result["fixes"] = json::Array{std::move(*Fix)};
    if (Options.AgainstBaseline)
      Result["baselineState"] = "new";
    Results.push_back(std::move(Result));
  }

  json::Object Invocation{{"executionSuccessful", Compiled}};
  if (!Notifications.empty())
    Invocation["toolExecutionNotifications"] = std::move(Notifications);
  json::Object Driver{{"name", "dmalint"},
                      {"version", DMALINT_VERSION},
                      {"semanticVersion", DMALINT_VERSION},
                      {"informationUri", informationUrl()},
                      {"rules", std::move(Rules)}};
  std::string RootUri = fileUri(Options.Root->directory());
  if (!llvm::StringRef(RootUri).ends_with("/"))
    RootUri += "/";
  json::Object Run{{"tool", json::Object{{"driver", std::move(Driver)}}},
                   {"originalUriBaseIds", json::Object{{RootId, json::Object{{"uri", RootUri}}}}},
                   {"columnKind", "utf16CodeUnits"},
                   {"invocations", json::Array{std::move(Invocation)}},
                   {"results", std::move(Results)}};
  return json::Object{
      {"$schema", SchemaUri}, {"version", "2.1.0"}, {"runs", json::Array{std::move(Run)}}};
}

llvm::Error writeSarif(llvm::StringRef Path, const json::Value &Log) {
  return llvm::writeToOutput(Path, [&](llvm::raw_ostream &OS) {
    OS << llvm::formatv("{0:2}", Log) << "\n";
    return llvm::Error::success();
  });
}

} // namespace dmalint::tool
