//===- FuzzConfig.cpp - libFuzzer target: the API model's configuration ---===//
//
// Each input is read twice:
//   1. as a .clang-tidy file (clang-tidy's own parser, parseConfiguration);
//      its dma.* CheckOptions go to applyApiOptions, as DmaCheck does;
//   2. as `key: value` (or `key=value`) lines, one option each, quotes
//      around the value dropped: the same seeds reach applyApiOptions without
//      YAML in the way, and any key or value can be spelled.
// applyApiOptions must return errors for bad options, never crash; every
// error names a dma.* key and says something. A model that parses without
// errors must survive the round trip: apiModelOptions (what --dump-config
// shows), parsed again, directly and through clang-tidy's YAML writer and
// reader, gives the same model.
//
//===----------------------------------------------------------------------===//
#include "dmalint/ApiModel.h"
#include "clang-tidy/ClangTidyOptions.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"
#include <cstdlib>
#include <map>
#include <string>

using namespace dmalint;
using Options = std::map<std::string, std::string>;

namespace {

std::string show(const Options &O) {
  std::string Text;
  for (auto &[Key, Value] : O)
    Text += "  " + Key + ": '" + Value + "'\n";
  return Text;
}

[[noreturn]] void fail(const std::string &What, const Options &Input) {
  llvm::errs() << "fuzz-config: " << What << "\noptions:\n" << show(Input);
  abort();
}

/// Equal as models: the same names in each role (the order of the roles in
/// Functions and Methods is not part of the model), positions, names and
/// device-id uses.
bool sameModel(const ApiModel &A, const ApiModel &B) {
  static const ApiRole Roles[] = {
      ApiRole::LocalFactory, ApiRole::RemoteFactory, ApiRole::StartedLocalFactory,
      ApiRole::StartedRemoteFactory, ApiRole::IsRemote, ApiRole::Start, ApiRole::Wait,
      ApiRole::WaitSend, ApiRole::WaitRecv, ApiRole::DeviceQuery, ApiRole::None};
  for (ApiRole R : Roles)
    if (namesWithRole(A.Functions, R) != namesWithRole(B.Functions, R) ||
        namesWithRole(A.Methods, R) != namesWithRole(B.Methods, R))
      return false;
  if (A.Functions.size() != B.Functions.size() || A.Methods.size() != B.Methods.size())
    return false;
  auto Uses = [](const ApiModel &M) {
    std::vector<std::tuple<std::string, unsigned, unsigned>> Out;
    for (const DeviceIdUse &U : M.DeviceIdUses)
      Out.emplace_back(U.Function, U.DeviceIdParam, U.DeviceIdTypeParam);
    return Out;
  };
  return A.DescriptorTypes == B.DescriptorTypes && A.CtorSrcSemParam == B.CtorSrcSemParam &&
         A.CtorDeviceIdParam == B.CtorDeviceIdParam &&
         A.CtorDeviceIdKindParam == B.CtorDeviceIdKindParam &&
         A.StartPriorityParam == B.StartPriorityParam && A.DeviceIdType == B.DeviceIdType &&
         A.DeviceIdKindEnum == B.DeviceIdKindEnum &&
         A.LogicalEnumerator == B.LogicalEnumerator && A.MeshEnumerator == B.MeshEnumerator &&
         Uses(A) == Uses(B);
}

/// The dma.* options of a clang-tidy configuration.
Options apiOptionsOf(const clang::tidy::ClangTidyOptions &Config) {
  Options Out;
  for (const auto &Entry : Config.CheckOptions)
    if (Entry.getKey().starts_with(ApiOptionPrefix))
      Out[Entry.getKey().str()] = Entry.getValue().Value;
  return Out;
}

llvm::ErrorOr<clang::tidy::ClangTidyOptions> parseYaml(llvm::StringRef Text) {
  return clang::tidy::parseConfigurationWithDiags(
      llvm::MemoryBufferRef(Text, "fuzz.clang-tidy"), [](const llvm::SMDiagnostic &) {});
}

void roundTrip(const ApiModel &Model, const Options &Input) {
  Options Dumped = apiModelOptions(Model);
  ApiModel Again = ApiModel::builtin();
  std::vector<ApiOptionError> Errors = applyApiOptions(Again, Dumped);
  if (!Errors.empty())
    fail("the options of a valid model do not parse: " + Errors.front().Key + ": " +
             Errors.front().Message + "\ndumped:\n" + show(Dumped),
         Input);
  if (!sameModel(Model, Again))
    fail("the options of a valid model parse to another model\ndumped:\n" + show(Dumped),
         Input);
  if (apiModelOptions(Again) != Dumped)
    fail("dumping the re-parsed model gives other options\ndumped:\n" + show(Dumped) +
             "then:\n" + show(apiModelOptions(Again)),
         Input);

  // Through clang-tidy's YAML, as a --dump-config pasted into .clang-tidy.
  clang::tidy::ClangTidyOptions Config;
  Config.Checks = "-*,dma-*";
  for (auto &[Key, Value] : Dumped)
    Config.CheckOptions[Key] = clang::tidy::ClangTidyOptions::ClangTidyValue(Value);
  std::string Yaml = clang::tidy::configurationAsText(Config);
  llvm::ErrorOr<clang::tidy::ClangTidyOptions> Read = parseYaml(Yaml);
  if (!Read)
    fail("clang-tidy cannot read the configuration it wrote:\n" + Yaml, Input);
  if (apiOptionsOf(*Read) != Dumped)
    fail("the model's options change through clang-tidy's YAML:\n" + Yaml, Input);
}

void check(const Options &Input) {
  ApiModel Model = ApiModel::builtin();
  std::vector<ApiOptionError> Errors = applyApiOptions(Model, Input);
  for (const ApiOptionError &E : Errors) {
    if (!llvm::StringRef(E.Key).starts_with(ApiOptionPrefix))
      fail("an error names key '" + E.Key + "', not a dma.* option", Input);
    if (E.Message.empty())
      fail("an error about '" + E.Key + "' says nothing", Input);
  }
  // Whatever the errors, the model stays usable (DmaCheck builds the index of
  // a model with errors too).
  ApiIndex Index(Model);
  for (ApiRole R : {ApiRole::IsRemote, ApiRole::Start, ApiRole::Wait, ApiRole::WaitSend,
                    ApiRole::WaitRecv})
    (void)methodWithRole(Index.model(), R);
  if (Errors.empty())
    roundTrip(Model, Input);
}

/// `key: value` or `key=value` per line; one pair of quotes around the value
/// is dropped.
Options linesAsOptions(llvm::StringRef Text) {
  Options Out;
  llvm::SmallVector<llvm::StringRef, 32> Lines;
  Text.split(Lines, '\n');
  for (llvm::StringRef Line : Lines) {
    size_t Colon = Line.find(": ");
    size_t Equals = Line.find('=');
    size_t At = std::min(Colon, Equals);
    if (At == llvm::StringRef::npos)
      continue;
    llvm::StringRef Key = Line.substr(0, At).trim();
    llvm::StringRef Value = Line.substr(At + (At == Colon ? 2 : 1)).trim();
    if (Value.size() >= 2 && (Value.front() == '\'' || Value.front() == '"') &&
        Value.back() == Value.front())
      Value = Value.drop_front().drop_back();
    Out[Key.str()] = Value.str();
  }
  return Out;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  llvm::StringRef Text(reinterpret_cast<const char *>(Data), Size);
  if (llvm::ErrorOr<clang::tidy::ClangTidyOptions> Config = parseYaml(Text))
    check(apiOptionsOf(*Config));
  check(linesAsOptions(Text));
  return 0;
}
