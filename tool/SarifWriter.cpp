//===- SarifWriter.cpp - Findings as a SARIF 2.1.0 log --------------------===//
#include "SarifWriter.h"
#include "Fingerprint.h"
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
  explicit LocationBuilder(const SourceRoot &Root) : Root(Root) {}

  json::Object artifactLocation(llvm::StringRef AbsolutePath) const {
    if (std::optional<std::string> Relative = Root.relative(AbsolutePath))
      return json::Object{{"uri", encodeUriPath(*Relative)}, {"uriBaseId", RootId}};
    return json::Object{{"uri", fileUri(AbsolutePath)}};
  }

  /// Where a message points: its line and the token starting there, with
  /// the whole line as context. Nothing for a message without a file.
  std::optional<json::Object> physicalLocation(const FindingMessage &Message) const {
    if (!Message.At)
      return std::nullopt;
    const SourcePosition &At = *Message.At;
    json::Object Physical{{"artifactLocation", artifactLocation(At.Path)}};
    if (!At.resolved())
      return Physical;
    Physical["region"] = json::Object{{"startLine", At.Line},
                                      {"startColumn", At.Utf16Column},
                                      {"endLine", At.Line},
                                      {"endColumn", Message.EndUtf16Column}};
    Physical["contextRegion"] =
        json::Object{{"startLine", At.Line}, {"snippet", json::Object{{"text", At.LineText}}}};
    return Physical;
  }

  /// A location with the message (for notes and code flows).
  json::Object location(const FindingMessage &Message) const {
    json::Object Location{{"message", message(Message.Text)}};
    if (std::optional<json::Object> Physical = physicalLocation(Message))
      Location["physicalLocation"] = std::move(*Physical);
    return Location;
  }

  /// The region an edit replaces, by line and column and by bytes.
  static json::Object replacedRegion(const FixEdit &Edit) {
    json::Object Region{{"byteOffset", Edit.Replacement.getOffset()},
                        {"byteLength", Edit.Replacement.getLength()}};
    if (Edit.Start.resolved() && Edit.End.resolved()) {
      Region["startLine"] = Edit.Start.Line;
      Region["startColumn"] = Edit.Start.Utf16Column;
      Region["endLine"] = Edit.End.Line;
      Region["endColumn"] = Edit.End.Utf16Column;
    }
    return Region;
  }

private:
  const SourceRoot &Root;
};

/// The fix clang-tidy would apply for \p F, as one SARIF fix: one artifact
/// change per file, in path order.
std::optional<json::Object> sarifFix(const Finding &F, const LocationBuilder &Locations) {
  std::map<std::string, std::vector<const FixEdit *>> ByFile;
  for (const FixEdit &Edit : F.Fix)
    ByFile[Edit.Replacement.getFilePath().str()].push_back(&Edit);
  json::Array Changes;
  for (auto &[Path, Edits] : ByFile) {
    json::Array Replacements;
    for (const FixEdit *Edit : Edits) {
      json::Object Replacement{{"deletedRegion", LocationBuilder::replacedRegion(*Edit)}};
      if (!Edit->Replacement.getReplacementText().empty())
        Replacement["insertedContent"] =
            json::Object{{"text", Edit->Replacement.getReplacementText().str()}};
      Replacements.push_back(std::move(Replacement));
    }
    Changes.push_back(json::Object{{"artifactLocation", Locations.artifactLocation(Path)},
                                   {"replacements", std::move(Replacements)}});
  }
  if (Changes.empty())
    return std::nullopt;
  return json::Object{{"artifactChanges", std::move(Changes)}};
}

/// \p Text with SARIF's escapes for plain-text messages, where "[text](id)"
/// is a link: a literal backslash or bracket is preceded by a backslash.
std::string escapeMessage(llvm::StringRef Text) {
  std::string Escaped;
  for (char C : Text) {
    if (C == '\\' || C == '[' || C == ']')
      Escaped += '\\';
    Escaped += C;
  }
  return Escaped;
}

/// The result's message: the finding's, then a link to each related
/// location (GitHub shows a related location only when the message links
/// it), one line each, the note's own words as the link's text.
std::string resultText(const Finding &F) {
  std::string Text = escapeMessage(F.Primary.Text);
  for (size_t N = 0; N < F.Notes.size(); ++N)
    Text += "\n[" + escapeMessage(F.Notes[N].Text) + "](" + std::to_string(N + 1) + ")";
  return Text;
}

/// The path to the finding in the order it runs: the notes in the
/// finding's own function (where the descriptor was built and handed on),
/// the finding, then the notes in other functions (the helpers it calls, down
/// to the statement that needs a remote copy), each group in the notes'
/// order.
std::vector<const FindingMessage *> executionOrder(const Finding &F) {
  auto Here = [&](const FindingMessage &Note) {
    return Note.EnclosingFunction.empty() || F.Primary.EnclosingFunction.empty() ||
           Note.EnclosingFunction == F.Primary.EnclosingFunction;
  };
  std::vector<const FindingMessage *> Order;
  for (const FindingMessage &Note : F.Notes)
    if (Here(Note))
      Order.push_back(&Note);
  Order.push_back(&F.Primary);
  for (const FindingMessage &Note : F.Notes)
    if (!Here(Note))
      Order.push_back(&Note);
  return Order;
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

json::Value sarifLog(llvm::ArrayRef<const Finding *> Findings, const SarifOptions &Options) {
  LocationBuilder Locations(*Options.Root);

  // Rules: every enabled check, and any other a result names, by name.
  std::set<std::string> RuleNames(Options.EnabledChecks.begin(), Options.EnabledChecks.end());
  for (const Finding *F : Findings)
    if (F->isFinding() || F->Kind == FindingKind::Remark)
      RuleNames.insert(F->Check);
  std::map<std::string, unsigned> RuleIndex;
  json::Array Rules;
  for (const std::string &Name : RuleNames) {
    RuleIndex[Name] = Rules.size();
    Rules.push_back(rule(Name, Options));
  }

  json::Array Results, Notifications;
  bool Compiled = true;
  for (const Finding *F : Findings) {
    std::optional<json::Object> Primary = Locations.physicalLocation(F->Primary);
    if (!F->isFinding()) {
      // An error or a remark is about the run, not a result.
      bool IsError = F->isError();
      Compiled &= !IsError;
      // A function skipped at the work limit: the results may miss its
      // findings, which deserves more than a note.
      json::Object Notification{{"level", IsError ? "error" : "warning"},
                                {"message", message(F->Primary.Text)}};
      if (Primary)
        Notification["locations"] =
            json::Array{json::Object{{"physicalLocation", std::move(*Primary)}}};
      if (!IsError)
        Notification["associatedRule"] =
            json::Object{{"id", F->Check}, {"index", RuleIndex[F->Check]}};
      Notifications.push_back(std::move(Notification));
      continue;
    }
    json::Object Fingerprints{{FingerprintKey, F->Fingerprint}};
    if (!F->LineHash.empty())
      Fingerprints["primaryLocationLineHash"] = F->LineHash;
    json::Object Result{{"ruleId", F->Check},
                        {"ruleIndex", RuleIndex[F->Check]},
                        {"level", F->WarningAsError ? "error" : "warning"},
                        {"message", message(resultText(*F))},
                        {"partialFingerprints", std::move(Fingerprints)}};
    if (Primary)
      Result["locations"] = json::Array{json::Object{{"physicalLocation", std::move(*Primary)}}};
    if (!F->Notes.empty()) {
      json::Array Related;
      for (size_t N = 0; N < F->Notes.size(); ++N) {
        json::Object Note = Locations.location(F->Notes[N]);
        Note["id"] = N + 1;
        Related.push_back(std::move(Note));
      }
      json::Array Flow;
      for (const FindingMessage *Step : executionOrder(*F))
        Flow.push_back(json::Object{{"location", Locations.location(*Step)}});
      Result["relatedLocations"] = std::move(Related);
      Result["codeFlows"] = json::Array{
          json::Object{{"threadFlows", json::Array{json::Object{{"locations", std::move(Flow)}}}}}};
    }
    if (std::optional<json::Object> Fix = sarifFix(*F, Locations))
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
                   {"automationDetails", json::Object{{"id", Options.AutomationId}}},
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
