//===- LineHashTest.cpp - GitHub's primaryLocationLineHash ----------------===//
//
// The vectors are those of github/codeql-action's own test of the
// algorithm (src/fingerprints.test.ts, "hash"), which publishes them with
// the algorithm; one more is derived by hand below.
//
//===----------------------------------------------------------------------===//
#include "../../tool/LineHash.h"
#include "llvm/ADT/StringExtras.h"
#include <gtest/gtest.h>

namespace dmalint::tool {
namespace {

using Hashes = std::vector<std::string>;

/// \p Value * 37^\p Power, wrapping at 2^64 as the action's Long does.
uint64_t times37(uint64_t Value, int Power) {
  for (int I = 0; I < Power; ++I)
    Value *= 37;
  return Value;
}

/// The hex of \p Value as the action prints it, first of its kind.
std::string first(uint64_t Value) { return llvm::utohexstr(Value, /*LowerCase=*/true) + ":1"; }

TEST(LineHash, EmptyFileDerivedByHand) {
  // An empty file is one line holding the end-of-file character 65535 and
  // 99 zeros: the hash is 65535 * 37^99, modulo 2^64.
  EXPECT_EQ(lineHashes(""), Hashes{first(times37(65535, 99))});
  // ... which is the action's published value for an empty file.
  EXPECT_EQ(lineHashes(""), Hashes{"c129715d7a2bc9a3:1"});
}

TEST(LineHash, OneCharacterDerivedByHand) {
  // "a": 'a' (97) then the end of the file: 97 * 37^99 + 65535 * 37^98.
  EXPECT_EQ(lineHashes("a"), Hashes{first(times37(97, 99) + times37(65535, 98))});
}

TEST(LineHash, PublishedVectorsForLineEndsAndBlanks) {
  EXPECT_EQ(lineHashes(" a\nb\n  \t\tc\n d"),
            (Hashes{"271789c17abda88f:1", "54703d4cd895b18:1", "180aee12dab6264:1",
                    "a23a3dc5e078b07b:1"}));
  EXPECT_EQ(lineHashes(" hello; \t\nworld!!!\n\n\n  \t\tGreetings\n End"),
            (Hashes{"8b7cf3e952e7aeb2:1", "b1ae1287ec4718d9:1", "bff680108adb0fcc:1",
                    "c6805c5e1288b612:1", "b86d3392aea1be30:1", "e6ceba753e1a442:1"}));
  // A final line end makes one more line; \n, \r and \r\n are the same.
  Hashes Ended{"e9496ae3ebfced30:1", "fb7c023a8b9ccb3f:1", "ce8ba1a563dcdaca:1",
               "e20e36e16fcb0cc8:1", "b3edc88f2938467e:1", "c8e28b0b4002a3a0:1",
               "c129715d7a2bc9a3:1"};
  EXPECT_EQ(lineHashes(" hello; \t\nworld!!!\n\n\n  \t\tGreetings\n End\n"), Ended);
  EXPECT_EQ(lineHashes(" hello; \t\nworld!!!\r\r\r  \t\tGreetings\r End\r"), Ended);
  EXPECT_EQ(lineHashes(" hello; \t\r\nworld!!!\r\n\r\n\r\n  \t\tGreetings\r\n End\r\n"), Ended);
  EXPECT_EQ(lineHashes(" hello; \t\nworld!!!\r\n\n\r  \t\tGreetings\r End\r\n"), Ended);
}

TEST(LineHash, PublishedVectorsForRepeatedLines) {
  std::string Text;
  for (int I = 0; I < 10; ++I)
    Text += "Lorem ipsum dolor sit amet.\n";
  // Lines whose next 100 characters are the same count up.
  EXPECT_EQ(lineHashes(Text),
            (Hashes{"a7f2ff13bc495cf2:1", "a7f2ff13bc495cf2:2", "a7f2ff13bc495cf2:3",
                    "a7f2ff13bc495cf2:4", "a7f2ff13bc495cf2:5", "a7f2ff13bc495cf2:6",
                    "a7f2ff1481e87703:1", "a9cf91f7bbf1862b:1", "55ec222b86bcae53:1",
                    "cc97dc7b1d7d8f7b:1", "c129715d7a2bc9a3:1"}));
}

TEST(LineHash, NonAsciiIsHashedAsUtf16CodeUnits) {
  // U+00FC is one code unit (0xFC); U+1F680 is the pair D83D DE80. So "\xC3\xBC"
  // hashes as 0xFC would, and the rocket as two units.
  EXPECT_EQ(lineHashes("\xC3\xBC"), Hashes{first(times37(0xFC, 99) + times37(65535, 98))});
  EXPECT_EQ(lineHashes("\xF0\x9F\x9A\x80"),
            Hashes{first(times37(0xD83D, 99) + times37(0xDE80, 98) + times37(65535, 97))});
  // Bytes that are not UTF-8 are U+FFFD each, as Node.js decodes them.
  EXPECT_EQ(lineHashes("\xFF"), lineHashes("\xEF\xBF\xBD"));
}

TEST(LineHash, HashingUpToALineGivesTheSameValuesAndReadsNoFurther) {
  // Repeated lines (their counts depend on the lines before), line ends of
  // every kind, blanks, non-ASCII and short lines near the end of the file.
  std::string Text;
  for (int I = 0; I < 40; ++I)
    Text += I % 3 ? "  d.wait_send();\r\n" : "\tfor (int i = 0; i < n; ++i) {}\n";
  Text += "\xC3\xBC\n\n\r x\ry\n";
  LineHashes All(Text);
  ASSERT_GT(All.lines(), 40u);
  for (size_t UpTo = 0; UpTo <= All.lines() + 1; ++UpTo) {
    LineHashes Some(Text, UpTo);
    EXPECT_GE(Some.lines(), std::min(UpTo, All.lines())) << UpTo;
    for (size_t Line = 1; Line <= std::min(UpTo, All.lines()); ++Line)
      EXPECT_EQ(Some.of(Line), All.of(Line)) << "line " << Line << " of " << UpTo;
  }
  // A line near the top is hashed without hashing the rest of the file.
  EXPECT_LT(LineHashes(Text, 3).lines(), 10u);
}

} // namespace
} // namespace dmalint::tool
