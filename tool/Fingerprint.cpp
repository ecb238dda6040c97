//===- Fingerprint.cpp - Identities of findings that survive edits --------===//
#include "Fingerprint.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/SHA256.h"
#include <algorithm>
#include <map>

namespace dmalint::tool {

namespace {

std::string hashOf(llvm::ArrayRef<llvm::StringRef> Fields) {
  llvm::SHA256 Hash;
  // NUL-separated: no field contains a NUL, so fields cannot run together.
  for (llvm::StringRef Field : Fields) {
    Hash.update(Field);
    Hash.update(llvm::StringRef("\0", 1));
  }
  std::array<uint8_t, 32> Digest = Hash.final();
  // 128 bits are plenty to tell findings apart.
  return llvm::toHex(llvm::ArrayRef<uint8_t>(Digest).take_front(16), /*LowerCase=*/true);
}

std::string collapsedLine(const Finding &F) {
  std::string Line;
  if (!F.Primary.At)
    return Line;
  llvm::SmallVector<llvm::StringRef, 8> Words;
  llvm::SplitString(F.Primary.At->LineText, Words);
  return llvm::join(Words, " ");
}

/// Appends ":N" to each finding's hash in \p Hashes: N numbers, from 1 in
/// file order, the findings of one file with the same hash.
void numberByFile(llvm::ArrayRef<Finding> Findings, std::vector<std::string> &Hashes) {
  std::map<std::pair<std::string, std::string>, std::vector<size_t>> Same;
  for (size_t I = 0; I < Findings.size(); ++I)
    if (!Hashes[I].empty())
      Same[{Findings[I].Primary.At ? Findings[I].Primary.At->Path : "", Hashes[I]}].push_back(I);
  auto Offset = [&](size_t I) {
    return Findings[I].Primary.At ? Findings[I].Primary.At->Offset : 0;
  };
  // By position in the file, whatever the order the translation units ran in.
  for (auto &[Key, Indices] : Same) {
    // Ties keep the findings' order (the indices ascend): a stable sort.
    llvm::sort(Indices, [&](size_t A, size_t B) {
      return Offset(A) != Offset(B) ? Offset(A) < Offset(B) : A < B;
    });
    for (size_t N = 0; N < Indices.size(); ++N)
      Hashes[Indices[N]] += ":" + std::to_string(N + 1);
  }
}

} // namespace

std::string identityHash(const Finding &F) {
  const FindingIdentity &Id = F.Identity;
  std::string Statement = Id.known() ? Id.Statement : collapsedLine(F);
  return hashOf({F.Check, Id.Function, Id.Descriptor, Statement});
}

void assignFingerprints(std::vector<Finding> &Findings) {
  std::vector<std::string> Hashes(Findings.size());
  for (size_t I = 0; I < Findings.size(); ++I)
    if (Findings[I].isFinding())
      Hashes[I] = identityHash(Findings[I]);
  numberByFile(Findings, Hashes);
  for (size_t I = 0; I < Findings.size(); ++I)
    Findings[I].Fingerprint = std::move(Hashes[I]);
}

std::vector<std::string> legacyFingerprints(llvm::ArrayRef<Finding> Findings,
                                            const SourceRoot &Root) {
  std::vector<std::string> Hashes(Findings.size());
  for (size_t I = 0; I < Findings.size(); ++I) {
    const Finding &F = Findings[I];
    if (!F.isFinding())
      continue;
    std::string Path = F.Primary.At ? Root.portable(F.Primary.At->Path) : "";
    llvm::StringRef Line = F.Primary.At ? llvm::StringRef(F.Primary.At->LineText) : "";
    Hashes[I] = hashOf({F.Check, Path, Line.trim(), F.Primary.Text});
  }
  numberByFile(Findings, Hashes);
  return Hashes;
}

} // namespace dmalint::tool
