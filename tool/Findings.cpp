//===- Findings.cpp - The one finding type every writer reads -------------===//
#include "Findings.h"
#include "Fingerprint.h"
#include "LineHash.h"
#include "clang/Basic/CharInfo.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/MemoryBuffer.h"
#include <algorithm>

using namespace clang;
using namespace clang::tidy;

namespace dmalint::tool {

SourceCache::File &SourceCache::load(const std::string &Path) {
  File &F = Files[Path];
  if (F.Loaded)
    return F;
  if (auto Buffer = llvm::MemoryBuffer::getFile(Path, /*IsText=*/false,
                                                /*RequiresNullTerminator=*/false))
    F.Text = (*Buffer)->getBuffer().str();
  index(F);
  return F;
}

void SourceCache::setText(const std::string &Path, std::string Text) {
  File &F = Files[Path];
  F.Text = std::move(Text);
  F.LineStarts.clear();
  index(F);
}

void SourceCache::index(File &F) {
  F.Loaded = true;
  F.LineStarts.push_back(0);
  for (unsigned I = 0; I < F.Text.size(); ++I) {
    if (F.Text[I] == '\r' && I + 1 < F.Text.size() && F.Text[I + 1] == '\n')
      ++I; // "\r\n" is one line end.
    if (F.Text[I] == '\n' || F.Text[I] == '\r')
      F.LineStarts.push_back(I + 1);
  }
}

const std::string &SourceCache::text(const std::string &Path) { return load(Path).Text; }

SourcePosition SourceCache::resolve(const std::string &Path, unsigned Offset) {
  File &F = load(Path);
  SourcePosition P;
  P.Path = Path;
  P.Offset = Offset;
  if (F.Text.empty() || Offset > F.Text.size())
    return P;
  auto It = std::upper_bound(F.LineStarts.begin(), F.LineStarts.end(), Offset);
  unsigned LineIndex = static_cast<unsigned>(It - F.LineStarts.begin()) - 1;
  unsigned Start = F.LineStarts[LineIndex];
  size_t End = F.Text.find_first_of("\r\n", Start);
  P.Line = LineIndex + 1;
  P.Column = Offset - Start + 1;
  P.LineText = F.Text.substr(Start, End == std::string::npos ? std::string::npos : End - Start);
  P.Utf16Column = utf16Column(P.LineText, P.Column);
  return P;
}

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

namespace {

FindingKind kindOf(const ClangTidyError &E) {
  if (E.DiagnosticName == "clang-tidy-config")
    return FindingKind::ConfigurationError;
  if (E.DiagLevel == ClangTidyError::Remark)
    return FindingKind::Remark;
  if (E.DiagLevel == ClangTidyError::Error && !E.IsWarningAsError)
    return FindingKind::CompilerError;
  return FindingKind::Finding;
}

FindingMessage resolveMessage(const tooling::DiagnosticMessage &Message,
                              llvm::StringRef BuildDirectory, SourceCache &Sources) {
  FindingMessage Resolved;
  Resolved.Text = Message.Message;
  if (Message.FilePath.empty())
    return Resolved;
  SourcePosition At =
      Sources.resolve(absolutePath(Message.FilePath, BuildDirectory), Message.FileOffset);
  if (At.resolved()) {
    // The token there: identifier characters, or one character.
    llvm::StringRef Rest = llvm::StringRef(At.LineText).drop_front(At.Column - 1);
    size_t Token = Rest.empty() ? 0 : 1;
    if (!Rest.empty() && isAsciiIdentifierContinue(Rest.front()))
      Token = std::min(Rest.find_if_not([](char C) { return isAsciiIdentifierContinue(C); }),
                       Rest.size());
    Resolved.EndUtf16Column = utf16Column(At.LineText, At.Column + Token);
  }
  Resolved.At = std::move(At);
  return Resolved;
}

/// The fix of a diagnostic that clang-tidy and clang-apply-replacements
/// apply: the message's own, or else the first note's that has one
/// (tooling::selectFirstFix, spelled out so the choice is visible).
const llvm::StringMap<tooling::Replacements> *chosenFix(const tooling::Diagnostic &D) {
  if (!D.Message.Fix.empty())
    return &D.Message.Fix;
  for (const tooling::DiagnosticMessage &Note : D.Notes)
    if (!Note.Fix.empty())
      return &Note.Fix;
  return nullptr;
}

std::vector<FixEdit> resolveFix(const ClangTidyError &E, SourceCache &Sources) {
  std::vector<FixEdit> Edits;
  const llvm::StringMap<tooling::Replacements> *Fix = chosenFix(E);
  if (!Fix)
    return Edits;
  for (const auto &FileAndReplacements : *Fix) {
    for (const tooling::Replacement &R : FileAndReplacements.getValue()) {
      std::string Path = absolutePath(R.getFilePath(), E.BuildDirectory);
      FixEdit Edit{tooling::Replacement(Path, R.getOffset(), R.getLength(),
                                        R.getReplacementText()),
                   Sources.resolve(Path, R.getOffset()),
                   Sources.resolve(Path, R.getOffset() + R.getLength())};
      Edits.push_back(std::move(Edit));
    }
  }
  llvm::sort(Edits, [](const FixEdit &A, const FixEdit &B) {
    return A.Replacement < B.Replacement;
  });
  return Edits;
}

/// What makes two diagnostics the same one, seen through two translation
/// units.
std::string diagnosticKey(const ClangTidyError &E) {
  return E.DiagnosticName + '\0' + absolutePath(E.Message.FilePath, E.BuildDirectory) + '\0' +
         std::to_string(E.Message.FileOffset) + '\0' + E.Message.Message;
}

} // namespace

Finding inputError(const std::string &File, std::string Message) {
  Finding F;
  F.Kind = FindingKind::InputError;
  F.Primary.Text = std::move(Message);
  F.Primary.At = SourcePosition{File};
  F.PortablePath = File;
  return F;
}

std::vector<Finding> resolveFindings(std::vector<TranslationUnitResult> Results,
                                     SourceCache &Sources, const SourceRoot &Root) {
  std::vector<Finding> Findings;
  llvm::StringSet<> Seen;
  for (TranslationUnitResult &TU : Results) {
    for (size_t I = 0; I < TU.Errors.size(); ++I) {
      const ClangTidyError &E = TU.Errors[I];
      // Input order, whatever the scheduling; a header's finding seen by
      // several translation units once.
      if (!Seen.insert(diagnosticKey(E)).second)
        continue;
      Finding F;
      F.Kind = kindOf(E);
      F.Check = E.DiagnosticName;
      F.WarningAsError = E.IsWarningAsError;
      F.BuildDirectory = E.BuildDirectory;
      F.TranslationUnit = TU.File;
      F.Primary = resolveMessage(E.Message, E.BuildDirectory, Sources);
      for (const tooling::DiagnosticMessage &Note : E.Notes)
        F.Notes.push_back(resolveMessage(Note, E.BuildDirectory, Sources));
      if (I < TU.Identities.size())
        F.Identity = TU.Identities[I];
      if (I < TU.EnclosingFunctions.size()) {
        const std::vector<std::string> &Functions = TU.EnclosingFunctions[I];
        if (!Functions.empty())
          F.Primary.EnclosingFunction = Functions[0];
        for (size_t N = 0; N < F.Notes.size() && N + 1 < Functions.size(); ++N)
          F.Notes[N].EnclosingFunction = Functions[N + 1];
      }
      if (F.isFinding())
        F.Fix = resolveFix(E, Sources);
      if (F.Primary.At)
        F.PortablePath = Root.portable(F.Primary.At->Path);
      Findings.push_back(std::move(F));
    }
  }
  assignFingerprints(Findings);
  return Findings;
}

void hashLines(std::vector<Finding> &Findings, SourceCache &Sources) {
  // Per file, once, up to the last line a finding is at.
  auto Hashed = [](const Finding &F) {
    return F.isFinding() && F.Primary.At && F.Primary.At->resolved();
  };
  std::map<std::string, size_t> LastLine;
  for (const Finding &F : Findings)
    if (Hashed(F)) {
      size_t &Last = LastLine[F.Primary.At->Path];
      Last = std::max<size_t>(Last, F.Primary.At->Line);
    }
  std::map<std::string, LineHashes> Hashes;
  for (Finding &F : Findings) {
    if (!Hashed(F))
      continue;
    auto It = Hashes.find(F.Primary.At->Path);
    if (It == Hashes.end())
      It = Hashes
               .emplace(F.Primary.At->Path, LineHashes(Sources.text(F.Primary.At->Path),
                                                       LastLine[F.Primary.At->Path]))
               .first;
    if (F.Primary.At->Line <= It->second.lines())
      F.LineHash = It->second.of(F.Primary.At->Line);
  }
}

} // namespace dmalint::tool
