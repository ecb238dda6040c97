//===- DiffTest.cpp - Reading the changed lines of a unified diff ---------===//
#include "../../tool/Diff.h"
#include "../../tool/Paths.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"
#include <gtest/gtest.h>

namespace dmalint::tool {
namespace {

class Diff : public ::testing::Test {
protected:
  void SetUp() override {
    llvm::SmallString<128> Dir;
    ASSERT_FALSE(llvm::sys::fs::createUniqueDirectory("dmalint-diff-test", Dir));
    Root = normalisedPath(Dir);
    for (const char *Name : {"a.cc", "sp ace.cc", "dir/b.h"})
      touch(Name);
  }
  void TearDown() override { llvm::sys::fs::remove_directories(Root); }
  void touch(llvm::StringRef Name) {
    llvm::SmallString<128> Path(Root);
    llvm::sys::path::append(Path, Name);
    llvm::sys::fs::create_directories(llvm::sys::path::parent_path(Path));
    std::error_code EC;
    llvm::raw_fd_ostream(Path, EC) << "x\n";
  }
  std::string path(llvm::StringRef Name) { return Root + "/" + Name.str(); }
  std::string Root;
};

TEST_F(Diff, CountsNewSideLinesAcrossHunksAndContext) {
  llvm::Expected<ChangedLines> Changed = parseUnifiedDiff(
      "diff --git a/a.cc b/a.cc\n"
      "index 1..2 100644\n"
      "--- a/a.cc\n+++ b/a.cc\n"
      "@@ -1,3 +1,4 @@\n context\n-old\n+new1\n+new2\n context\n"
      "@@ -10 +11,0 @@\n-only deleted\n"
      "@@ -20,2 +20,2 @@\n-x\n+y\n z\n\\ No newline at end of file\n",
      Root);
  ASSERT_TRUE(bool(Changed)) << llvm::toString(Changed.takeError());
  EXPECT_EQ(Changed->Files.at(path("a.cc")), (std::set<unsigned>{2, 3, 20}));
  EXPECT_TRUE(Changed->changed(path("a.cc"), 3));
  EXPECT_FALSE(Changed->changed(path("a.cc"), 4));
  EXPECT_EQ(Changed->changedFiles(), std::vector<std::string>{path("a.cc")});
}

TEST_F(Diff, ReadsQuotedAndPlainPathsAndSkipsDeletedFiles) {
  llvm::Expected<ChangedLines> Changed = parseUnifiedDiff(
      "--- \"a/sp ace.cc\"\n+++ \"b/sp ace.cc\"\n@@ -1 +1 @@\n-x\n+y\n"
      "--- dir/b.h\t2025-01-01 10:00:00\n+++ dir/b.h\t2025-01-02 10:00:00\n@@ -0,0 +1 @@\n+y\n"
      "--- a/gone.cc\n+++ /dev/null\n@@ -1 +0,0 @@\n-x\n",
      Root);
  ASSERT_TRUE(bool(Changed)) << llvm::toString(Changed.takeError());
  EXPECT_TRUE(Changed->changed(path("sp ace.cc"), 1));
  EXPECT_TRUE(Changed->changed(path("dir/b.h"), 1));
  EXPECT_EQ(Changed->Files.size(), 2u);
}

TEST_F(Diff, NamesWhatDoesNotFit) {
  llvm::Expected<ChangedLines> Other =
      parseUnifiedDiff("--- a/x/y.cc\n+++ b/x/y.cc\n@@ -1 +1 @@\n-x\n+y\n", Root);
  ASSERT_FALSE(bool(Other));
  EXPECT_NE(llvm::toString(Other.takeError()).find("the diff names 'x/y.cc', which is not a file"),
            std::string::npos);
  llvm::Expected<ChangedLines> Hunk = parseUnifiedDiff("@@ -1 +1 @@\n+y\n", Root);
  ASSERT_FALSE(bool(Hunk));
  EXPECT_NE(llvm::toString(Hunk.takeError()).find("line 1 of the diff"), std::string::npos);
}

} // namespace
} // namespace dmalint::tool
