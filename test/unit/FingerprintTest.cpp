//===- FingerprintTest.cpp - Fingerprints survive what does not change a finding ===//
#include "../../tool/Fingerprint.h"
#include <gtest/gtest.h>

namespace dmalint::tool {
namespace {

Finding finding(std::string Path, unsigned Offset, std::string Message) {
  Finding F;
  F.Check = "dma-start-priority";
  F.Primary.Text = std::move(Message);
  F.Primary.At = SourcePosition{std::move(Path), Offset, 10, 3, 3, "  d.start(2);"};
  F.Identity = {"kernels::ring", "d", "d . start ( 2 )"};
  return F;
}

std::string fingerprintOf(Finding F) {
  std::vector<Finding> One{std::move(F)};
  assignFingerprints(One);
  return One[0].Fingerprint;
}

TEST(Fingerprint, IsNotMadeOfTheMessageThePathOrThePlace) {
  std::string Base = fingerprintOf(finding("/src/ring.cc", 100, "DMA start priority must be 0 or 1, got 2"));
  EXPECT_EQ(Base.size(), 34u) << Base; // 32 hex digits, ":1".
  // A message reworded in a release.
  EXPECT_EQ(fingerprintOf(finding("/src/ring.cc", 100, "start priority 2 is not 0 or 1")), Base);
  // The file renamed, or checked out elsewhere.
  EXPECT_EQ(fingerprintOf(finding("/elsewhere/all_gather.cc", 100, "x")), Base);
  // Lines inserted above.
  Finding Moved = finding("/src/ring.cc", 900, "x");
  Moved.Primary.At->Line = 42;
  EXPECT_EQ(fingerprintOf(Moved), Base);
}

TEST(Fingerprint, IsMadeOfTheCheckTheFunctionTheDescriptorAndTheStatement) {
  std::string Base = fingerprintOf(finding("/src/ring.cc", 100, "m"));
  Finding Other = finding("/src/ring.cc", 100, "m");
  Other.Check = "dma-unused-descriptor";
  EXPECT_NE(fingerprintOf(Other), Base);
  Other = finding("/src/ring.cc", 100, "m");
  Other.Identity.Function = "kernels::ring2";
  EXPECT_NE(fingerprintOf(Other), Base);
  Other = finding("/src/ring.cc", 100, "m");
  Other.Identity.Descriptor = "e";
  EXPECT_NE(fingerprintOf(Other), Base);
  Other = finding("/src/ring.cc", 100, "m");
  Other.Identity.Statement = "d . start ( 3 )";
  EXPECT_NE(fingerprintOf(Other), Base);
}

TEST(Fingerprint, NumbersIdenticalFindingsOfAFileInFileOrder) {
  std::vector<Finding> All{finding("/src/a.cc", 300, "m"), finding("/src/a.cc", 100, "m"),
                           finding("/src/b.cc", 100, "m")};
  assignFingerprints(All);
  llvm::StringRef Hash = llvm::StringRef(All[0].Fingerprint).rsplit(':').first;
  EXPECT_EQ(All[1].Fingerprint, (Hash + ":1").str());
  EXPECT_EQ(All[0].Fingerprint, (Hash + ":2").str());
  // Numbered per file: a copy in another file is its own first one.
  EXPECT_EQ(All[2].Fingerprint, (Hash + ":1").str());
}

TEST(Fingerprint, OnlyFindingsHaveOne) {
  std::vector<Finding> All{finding("/src/a.cc", 1, "m")};
  All[0].Kind = FindingKind::CompilerError;
  assignFingerprints(All);
  EXPECT_EQ(All[0].Fingerprint, "");
}

} // namespace
} // namespace dmalint::tool
