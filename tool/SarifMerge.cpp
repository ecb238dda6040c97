//===- SarifMerge.cpp - One log from the logs of several shards -----------===//
#include "SarifMerge.h"
#include "SarifWriter.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include <map>
#include <set>

namespace json = llvm::json;

namespace dmalint::tool {

namespace {

llvm::Error notALog(llvm::StringRef Path, const llvm::Twine &Why) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                 "'" + Path + "' cannot be merged: " + Why);
}

/// What makes a result the same one in two shards' logs.
std::string resultKey(const json::Object &Result) {
  json::Object Key;
  for (llvm::StringRef Field : {"ruleId", "message", "locations", "partialFingerprints"})
    if (const json::Value *V = Result.get(Field))
      Key[Field] = *V;
  return llvm::formatv("{0}", json::Value(std::move(Key))).str();
}

std::string text(const json::Value &V) { return llvm::formatv("{0}", V).str(); }

} // namespace

llvm::Expected<MergedLog> mergeSarifLogs(const std::vector<std::string> &Paths) {
  MergedLog Merged;
  std::optional<json::Object> First; // The first log, the frame of the result.
  std::string Version, Root;
  std::map<std::string, json::Object> Rules; // By id: sorted, as dmalint writes them.
  json::Array Results, Notifications;
  std::set<std::string> SeenResults, SeenNotifications;
  for (const std::string &Path : Paths) {
    auto Buffer = llvm::MemoryBuffer::getFileOrSTDIN(Path, /*IsText=*/true);
    if (!Buffer)
      return notALog(Path, "cannot read it: " + Buffer.getError().message());
    llvm::Expected<json::Value> Parsed = json::parse((*Buffer)->getBuffer());
    if (!Parsed)
      return notALog(Path, "not JSON: " + llvm::toString(Parsed.takeError()));
    json::Object *Log = Parsed->getAsObject();
    json::Array *Runs = Log ? Log->getArray("runs") : nullptr;
    if (!Log || Log->getString("version") != llvm::StringRef("2.1.0") || !Runs ||
        Runs->size() != 1 || !(*Runs)[0].getAsObject())
      return notALog(Path, "not a SARIF 2.1.0 log with one run");
    json::Object &Run = *(*Runs)[0].getAsObject();
    const json::Object *Tool = Run.getObject("tool");
    const json::Object *Driver = Tool ? Tool->getObject("driver") : nullptr;
    if (!Driver || Driver->getString("name") != llvm::StringRef("dmalint"))
      return notALog(Path, "not a log of dmalint");
    std::string ThisVersion = Driver->getString("version").value_or("").str();
    const json::Object *Bases = Run.getObject("originalUriBaseIds");
    std::string ThisRoot = Bases && Bases->get("SRCROOT") ? text(*Bases->get("SRCROOT")) : "";
    if (!First) {
      Version = ThisVersion;
      Root = ThisRoot;
    } else if (ThisVersion != Version) {
      return notALog(Path, "it is of dmalint " + ThisVersion + ", '" + Paths.front() +
                               "' of dmalint " + Version);
    } else if (ThisRoot != Root) {
      return notALog(Path, "its SRCROOT " + ThisRoot + " is not that of '" + Paths.front() +
                               "', " + Root + ": its URIs would mean other files");
    }
    // Rules, and each result's ruleIndex into the merged list (set below).
    if (const json::Array *Own = Driver->getArray("rules"))
      for (const json::Value &Rule : *Own)
        if (const json::Object *R = Rule.getAsObject())
          if (std::optional<llvm::StringRef> Id = R->getString("id"))
            Rules.emplace(Id->str(), *R);
    if (json::Array *Own = Run.getArray("results"))
      for (json::Value &Result : *Own)
        if (json::Object *R = Result.getAsObject(); R && SeenResults.insert(resultKey(*R)).second)
          Results.push_back(std::move(Result));
    if (json::Array *Invocations = Run.getArray("invocations")) {
      for (json::Value &Invocation : *Invocations) {
        json::Object *I = Invocation.getAsObject();
        if (!I)
          continue;
        Merged.Successful &= I->getBoolean("executionSuccessful").value_or(false);
        if (json::Array *Own = I->getArray("toolExecutionNotifications"))
          for (json::Value &Note : *Own)
            if (SeenNotifications.insert(text(Note)).second)
              Notifications.push_back(std::move(Note));
      }
    }
    if (!First)
      First = std::move(Run);
  }
  if (!First)
    return llvm::createStringError(llvm::inconvertibleErrorCode(), "no log to merge");
  std::map<std::string, unsigned> Index;
  json::Array RuleList;
  for (auto &[Id, Rule] : Rules) {
    Index[Id] = RuleList.size();
    RuleList.push_back(std::move(Rule));
  }
  for (json::Value &Result : Results) {
    json::Object &R = *Result.getAsObject();
    std::string Id = R.getString("ruleId").value_or("").str();
    if (Index.count(Id))
      R["ruleIndex"] = Index[Id];
  }
  json::Object Run = std::move(*First);
  json::Object *Driver = Run.getObject("tool")->getObject("driver");
  (*Driver)["rules"] = std::move(RuleList);
  json::Object Invocation{{"executionSuccessful", Merged.Successful}};
  if (!Notifications.empty())
    Invocation["toolExecutionNotifications"] = std::move(Notifications);
  Run["invocations"] = json::Array{std::move(Invocation)};
  Run["automationDetails"] = json::Object{{"id", "dmalint/"}};
  Merged.Results = Results.size();
  Run["results"] = std::move(Results);
  Merged.Log = json::Object{
      {"$schema", SarifSchemaUri}, {"version", "2.1.0"}, {"runs", json::Array{std::move(Run)}}};
  return std::move(Merged);
}

} // namespace dmalint::tool
