//===- Fingerprint.cpp - Identities of findings that survive edits --------===//
#include "Fingerprint.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/SHA256.h"
#include <algorithm>

namespace dmalint::tool {

static std::string contentHash(const Finding &F) {
  llvm::StringRef LineText = F.Primary.At ? llvm::StringRef(F.Primary.At->LineText) : "";
  llvm::SHA256 Hash;
  // NUL-separated: no field contains a NUL, so fields cannot run together.
  for (llvm::StringRef Field : {llvm::StringRef(F.Check), llvm::StringRef(F.PortablePath),
                                LineText.trim(), llvm::StringRef(F.Primary.Text)}) {
    Hash.update(Field);
    Hash.update(llvm::StringRef("\0", 1));
  }
  std::array<uint8_t, 32> Digest = Hash.final();
  // 128 bits are plenty to tell findings apart.
  return llvm::toHex(llvm::ArrayRef<uint8_t>(Digest).take_front(16), /*LowerCase=*/true);
}

void assignFingerprints(std::vector<Finding> &Findings) {
  llvm::StringMap<std::vector<size_t>> ByHash;
  for (size_t I = 0; I < Findings.size(); ++I) {
    if (!Findings[I].isFinding())
      continue;
    Findings[I].Fingerprint = contentHash(Findings[I]);
    ByHash[Findings[I].Fingerprint].push_back(I);
  }
  // Same hash means same check, file, line text and message: number them by
  // position in the file, whatever the order the translation units ran in.
  auto Offset = [&](size_t I) { return Findings[I].Primary.At ? Findings[I].Primary.At->Offset : 0; };
  for (auto &Entry : ByHash) {
    std::vector<size_t> &Same = Entry.getValue();
    std::stable_sort(Same.begin(), Same.end(),
                     [&](size_t A, size_t B) { return Offset(A) < Offset(B); });
    for (size_t N = 0; N < Same.size(); ++N)
      Findings[Same[N]].Fingerprint += ":" + std::to_string(N + 1);
  }
}

} // namespace dmalint::tool
