//===- Fingerprint.cpp - Identities of findings that survive edits --------===//
#include "Fingerprint.h"
#include "Diagnostics.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SHA256.h"
#include <algorithm>

using namespace clang::tidy;

namespace dmalint::tool {

SourceRoot::SourceRoot(llvm::StringRef Dir) {
  std::string Path = normalisedPath(Dir);
  while (Path.size() > 1 && llvm::sys::path::is_separator(Path.back()))
    Path.pop_back();
  Directory = std::string(Path);
}

std::optional<std::string> SourceRoot::relative(llvm::StringRef AbsolutePath) const {
  llvm::StringRef Rest = AbsolutePath;
  if (!Rest.consume_front(Directory))
    return std::nullopt;
  // "/src/a.cc" is not inside "/src/a".
  if (Directory != "/" && !Rest.consume_front("/"))
    return std::nullopt;
  if (Rest.empty())
    return std::nullopt;
  return llvm::sys::path::convert_to_slash(Rest);
}

std::string SourceRoot::portable(llvm::StringRef AbsolutePath) const {
  if (std::optional<std::string> Relative = relative(AbsolutePath))
    return *Relative;
  return llvm::sys::path::convert_to_slash(AbsolutePath);
}

static std::string contentHash(const ClangTidyError &E, SourceCache &Sources,
                               const SourceRoot &Root) {
  std::string Path, LineText;
  if (!E.Message.FilePath.empty()) {
    std::string Absolute = absolutePath(E.Message.FilePath, E.BuildDirectory);
    Path = Root.portable(Absolute);
    LineText = Sources.resolve(Absolute, E.Message.FileOffset).LineText;
  }
  llvm::SHA256 Hash;
  // NUL-separated: no field contains a NUL, so fields cannot run together.
  for (llvm::StringRef Field :
       {llvm::StringRef(E.DiagnosticName), llvm::StringRef(Path), llvm::StringRef(LineText).trim(),
        llvm::StringRef(E.Message.Message)}) {
    Hash.update(Field);
    Hash.update(llvm::StringRef("\0", 1));
  }
  std::array<uint8_t, 32> Digest = Hash.final();
  // 128 bits are plenty to tell findings apart.
  return llvm::toHex(llvm::ArrayRef<uint8_t>(Digest).take_front(16), /*LowerCase=*/true);
}

std::vector<std::string> fingerprintFindings(llvm::ArrayRef<ClangTidyError> Errors,
                                             SourceCache &Sources, const SourceRoot &Root) {
  std::vector<std::string> Fingerprints(Errors.size());
  llvm::StringMap<std::vector<size_t>> ByHash;
  for (size_t I = 0; I < Errors.size(); ++I) {
    if (!isFinding(Errors[I]))
      continue;
    Fingerprints[I] = contentHash(Errors[I], Sources, Root);
    ByHash[Fingerprints[I]].push_back(I);
  }
  // Same hash means same check, file, line text and message: number them by
  // position in the file, whatever the order the translation units ran in.
  for (auto &Entry : ByHash) {
    std::vector<size_t> &Same = Entry.getValue();
    std::stable_sort(Same.begin(), Same.end(), [&](size_t A, size_t B) {
      return Errors[A].Message.FileOffset < Errors[B].Message.FileOffset;
    });
    for (size_t N = 0; N < Same.size(); ++N)
      Fingerprints[Same[N]] += ":" + std::to_string(N + 1);
  }
  return Fingerprints;
}

} // namespace dmalint::tool
