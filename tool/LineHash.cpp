//===- LineHash.cpp - GitHub code scanning's primaryLocationLineHash ------===//
#include "LineHash.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringExtras.h"
#include <array>
#include <cstdint>

namespace dmalint::tool {

namespace {

constexpr unsigned WindowSize = 100;
constexpr uint64_t Multiplier = 37;
constexpr uint16_t EndOfFile = 65535;

/// The rolling hash, fed one UTF-16 code unit at a time.
class RollingLineHash {
public:
  RollingLineHash() {
    LineAt.fill(-1);
    for (unsigned I = 0; I < WindowSize; ++I)
      FirstMultiplier *= Multiplier;
  }

  void add(uint16_t C) {
    if (C == ' ' || C == '\t' || (AfterCarriageReturn && C == '\n')) {
      AfterCarriageReturn = false;
      return;
    }
    AfterCarriageReturn = C == '\r';
    if (C == '\r')
      C = '\n';
    // The window came round: the character that left it began a line.
    if (LineAt[Index] != -1)
      emit();
    if (AtLineStart) {
      AtLineStart = false;
      LineAt[Index] = ++Lines;
    }
    if (C == '\n')
      AtLineStart = true;
    roll(C);
  }

  std::vector<std::pair<uint64_t, unsigned>> finish() {
    add(EndOfFile);
    for (unsigned I = 0; I < WindowSize; ++I) {
      if (LineAt[Index] != -1)
        emit();
      roll(0);
    }
    return std::move(Hashes);
  }
  /// The lines hashed so far (each line is hashed once its window is full,
  /// in order), and their hashes.
  size_t emitted() const { return Hashes.size(); }
  std::vector<std::pair<uint64_t, unsigned>> take() { return std::move(Hashes); }

private:
  void roll(uint16_t C) {
    uint64_t Leaving = Window[Index];
    Window[Index] = C;
    Hash = Multiplier * Hash + C - FirstMultiplier * Leaving; // Wraps, as Long does.
    Index = (Index + 1) % WindowSize;
  }

  // Every line's hash is counted, but spelled only when asked for (a file
  // with one finding asks for one line of thousands).
  void emit() {
    unsigned Seen = ++Counts[Hash];
    size_t Line = static_cast<size_t>(LineAt[Index]);
    if (Hashes.size() < Line)
      Hashes.resize(Line);
    Hashes[Line - 1] = {Hash, Seen};
    LineAt[Index] = -1;
  }

  std::array<uint64_t, WindowSize> Window{};
  std::array<int64_t, WindowSize> LineAt; ///< The line that starts there, or -1.
  uint64_t Hash = 0;
  uint64_t FirstMultiplier = 1;
  unsigned Index = 0;
  int64_t Lines = 0;
  bool AtLineStart = true;
  bool AfterCarriageReturn = false;
  llvm::DenseMap<uint64_t, unsigned> Counts;
  std::vector<std::pair<uint64_t, unsigned>> Hashes; ///< By line: the hash, its count so far.
};

/// Feeds \p Text, decoded from UTF-8 as Node.js decodes it (a sequence that
/// is not UTF-8 is U+FFFD, one per maximal invalid subpart), as UTF-16,
/// until line \p UpTo is hashed.
void feedUtf16(llvm::StringRef Text, RollingLineHash &Hasher, size_t UpTo) {
  const auto *P = reinterpret_cast<const unsigned char *>(Text.data());
  const unsigned char *End = P + Text.size();
  while (P < End && Hasher.emitted() < UpTo) {
    unsigned char Lead = *P;
    if (Lead < 0x80) {
      Hasher.add(Lead);
      ++P;
      continue;
    }
    unsigned Length = Lead >= 0xC2 && Lead <= 0xDF   ? 2
                      : Lead >= 0xE0 && Lead <= 0xEF ? 3
                      : Lead >= 0xF0 && Lead <= 0xF4 ? 4
                                                     : 0;
    uint32_t Code = Length == 2 ? Lead & 0x1F : Length == 3 ? Lead & 0x0F : Lead & 0x07;
    unsigned Taken = 1;
    for (; Length && Taken < Length && P + Taken < End; ++Taken) {
      unsigned char Next = P[Taken];
      // The second byte's range narrows for E0, ED, F0 and F4 (no overlong
      // forms, surrogates or code points past U+10FFFF).
      unsigned char Low = 0x80, High = 0xBF;
      if (Taken == 1) {
        if (Lead == 0xE0)
          Low = 0xA0;
        else if (Lead == 0xED)
          High = 0x9F;
        else if (Lead == 0xF0)
          Low = 0x90;
        else if (Lead == 0xF4)
          High = 0x8F;
      }
      if (Next < Low || Next > High)
        break;
      Code = (Code << 6) | (Next & 0x3F);
    }
    if (!Length || Taken < Length) {
      Hasher.add(0xFFFD);
      P += Length ? Taken : 1;
      continue;
    }
    P += Length;
    if (Code >= 0x10000) {
      Code -= 0x10000;
      Hasher.add(static_cast<uint16_t>(0xD800 + (Code >> 10)));
      Hasher.add(static_cast<uint16_t>(0xDC00 + (Code & 0x3FF)));
    } else {
      Hasher.add(static_cast<uint16_t>(Code));
    }
  }
}

} // namespace

LineHashes::LineHashes(llvm::StringRef Text, size_t UpTo) {
  RollingLineHash Hasher;
  feedUtf16(Text, Hasher, UpTo);
  // A line's hash and count depend only on the text up to its window's end.
  Values = Hasher.emitted() >= UpTo ? Hasher.take() : Hasher.finish();
}

std::string LineHashes::of(size_t Line) const {
  if (Line == 0 || Line > Values.size())
    return "";
  const auto &[Hash, Seen] = Values[Line - 1];
  return llvm::utohexstr(Hash, /*LowerCase=*/true) + ":" + std::to_string(Seen);
}

std::vector<std::string> lineHashes(llvm::StringRef Text) {
  LineHashes Hashes(Text);
  std::vector<std::string> All;
  for (size_t Line = 1; Line <= Hashes.lines(); ++Line)
    All.push_back(Hashes.of(Line));
  return All;
}

} // namespace dmalint::tool
