//===- Baseline.cpp - Accepting the findings a code base already has ------===//
#include "Baseline.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

namespace dmalint::tool {

static constexpr int64_t BaselineVersion = 2;

bool Baseline::accept(llvm::StringRef Fingerprint) {
  auto It = Accepted.find(Fingerprint);
  if (It == Accepted.end() || It->getValue() == 0)
    return false;
  --It->getValue();
  return true;
}

static llvm::Error malformed(llvm::StringRef Path, const llvm::Twine &What) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                 "'" + Path + "' is not a dmalint baseline: " + What +
                                     " (write one with --write-baseline)");
}

llvm::Expected<Baseline> readBaseline(llvm::StringRef Path) {
  auto Buffer = llvm::MemoryBuffer::getFile(Path, /*IsText=*/true);
  if (!Buffer)
    return llvm::createStringError(Buffer.getError(), "cannot read the baseline '" + Path +
                                                          "': " + Buffer.getError().message());
  llvm::Expected<llvm::json::Value> Document = llvm::json::parse((*Buffer)->getBuffer());
  if (!Document)
    return malformed(Path, "invalid JSON: " + llvm::toString(Document.takeError()));
  const llvm::json::Object *Top = Document->getAsObject();
  if (!Top)
    return malformed(Path, "expected a JSON object");
  std::optional<int64_t> Version = Top->getInteger("version");
  if (!Version)
    return malformed(Path, "no integer \"version\"");
  if (*Version != BaselineVersion && *Version != 1)
    return malformed(Path, "version " + llvm::Twine(*Version) +
                               ", this dmalint reads versions 1 and " +
                               llvm::Twine(BaselineVersion));
  const llvm::json::Array *Findings = Top->getArray("findings");
  if (!Findings)
    return malformed(Path, "no \"findings\" array");
  Baseline Result;
  Result.Version = *Version;
  for (size_t I = 0; I < Findings->size(); ++I) {
    const llvm::json::Object *Entry = (*Findings)[I].getAsObject();
    std::optional<llvm::StringRef> Fingerprint =
        Entry ? Entry->getString("fingerprint") : std::nullopt;
    if (!Fingerprint || Fingerprint->empty())
      return malformed(Path, "findings[" + llvm::Twine(I) +
                                 "] is not an object with a \"fingerprint\" string");
    ++Result.Accepted[*Fingerprint];
  }
  return Result;
}

llvm::Error writeBaseline(llvm::StringRef Path, llvm::ArrayRef<Finding> Findings) {
  llvm::json::Array Entries;
  for (const Finding &F : Findings) {
    if (!F.isFinding())
      continue;
    llvm::json::Object Entry{
        {"fingerprint", F.Fingerprint}, {"check", F.Check}, {"message", F.Primary.Text}};
    if (!F.Identity.Function.empty())
      Entry["function"] = F.Identity.Function;
    if (F.Primary.At) {
      Entry["file"] = F.PortablePath;
      // For the reader only: matching never looks at the line.
      Entry["line"] = F.Primary.At->Line;
    }
    Entries.push_back(std::move(Entry));
  }
  llvm::json::Object Document{
      {"version", BaselineVersion}, {"tool", "dmalint"}, {"findings", std::move(Entries)}};
  return llvm::writeToOutput(Path, [&](llvm::raw_ostream &OS) {
    OS << llvm::formatv("{0:2}", llvm::json::Value(std::move(Document))) << "\n";
    return llvm::Error::success();
  });
}

} // namespace dmalint::tool
