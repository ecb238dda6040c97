//===- TestAst.h - Parse a kernel snippet against <tpu/dma.h> for a test ===//
#ifndef DMALINT_TEST_TESTAST_H
#define DMALINT_TEST_TESTAST_H

#include "dmalint/AnalysisCache.h"
#include "dmalint/ApiModel.h"
#include "clang/ASTMatchers/ASTMatchFinder.h"
#include "clang/Frontend/ASTUnit.h"
#include "clang/Tooling/Tooling.h"
#include <gtest/gtest.h>
#include <memory>
#include <string>

namespace dmalint::test {

/// The built-in model of <tpu/dma.h>, made once.
inline const ApiIndex &builtinApi() {
  static const ApiIndex Index(ApiModel::builtin());
  return Index;
}

/// Parses `#include <tpu/dma.h>`, `using namespace tpu;` and \p Body. A new
/// translation unit starts: the analysis cache, keyed by declarations of the
/// last one (whose addresses the new one may reuse), is emptied.
inline std::unique_ptr<clang::ASTUnit> parseKernel(const std::string &Body) {
  AnalysisCache::current().reset();
  std::string Code = "#include <tpu/dma.h>\n#include <vector>\nusing namespace tpu;\n" + Body;
  auto AST = clang::tooling::buildASTFromCodeWithArgs(
      Code,
      {"-std=c++17", "-I" DMALINT_SOURCE_INCLUDE_DIR,
       "-resource-dir=" DMALINT_CLANG_RESOURCE_DIR},
      "kernel.cc");
  EXPECT_TRUE(AST);
  EXPECT_FALSE(AST->getDiagnostics().hasErrorOccurred()) << Code;
  return AST;
}

/// The single node bound to "n" by \p Matcher (fails the test otherwise).
template <typename Node, typename MatcherT>
const Node *findOne(clang::ASTUnit &AST, MatcherT Matcher) {
  auto Results = clang::ast_matchers::match(Matcher.bind("n"), AST.getASTContext());
  EXPECT_EQ(Results.size(), 1u);
  if (Results.empty())
    return nullptr;
  return Results.front().template getNodeAs<Node>("n");
}

} // namespace dmalint::test

#endif
