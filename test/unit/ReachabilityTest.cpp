//===- ReachabilityTest.cpp - Whether one statement may run after another -===//
#include "TestAst.h"
#include "dmalint/Reachability.h"
#include "clang/Analysis/CFG.h"

using namespace clang;
using namespace clang::ast_matchers;

namespace {

/// The `wait()` calls of `k` in \p Body, in source order, and whether
/// the \p From-th may be followed by the \p To-th (in one iteration of k's
/// first loop with \p InLoop).
bool mayReach(const std::string &Body, unsigned From, unsigned To, bool InLoop = false) {
  auto AST = dmalint::test::parseKernel(
      "void k(Ref<float> a, DmaSemaphore s, int n) {\n" + Body + "\n}");
  ASTContext &Ctx = AST->getASTContext();
  const auto *K = dmalint::test::findOne<FunctionDecl>(*AST, functionDecl(hasName("k")));
  auto Found = match(cxxMemberCallExpr(callee(cxxMethodDecl(hasName("wait"))),
                                       hasAncestor(functionDecl(hasName("k"))))
                         .bind("w"),
                     Ctx);
  std::vector<const Stmt *> Waits;
  for (auto &N : Found)
    Waits.push_back(N.getNodeAs<Stmt>("w"));
  llvm::sort(Waits, [&](const Stmt *A, const Stmt *B) {
    return Ctx.getSourceManager().isBeforeInTranslationUnit(A->getBeginLoc(), B->getBeginLoc());
  });
  EXPECT_GT(Waits.size(), std::max(From, To));
  const Stmt *Loop = nullptr;
  if (InLoop) {
    auto Loops = match(stmt(anyOf(forStmt(), whileStmt(), doStmt()),
                            hasAncestor(functionDecl(hasName("k"))))
                           .bind("l"),
                       Ctx);
    Loop = Loops.empty() ? nullptr : Loops.front().getNodeAs<Stmt>("l");
    EXPECT_TRUE(Loop);
  }
  std::unique_ptr<CFG> Graph = CFG::buildCFG(K, K->getBody(), &Ctx, CFG::BuildOptions());
  dmalint::BodyReachability Reach(Graph.get());
  return Reach.mayReach(Waits[From], Waits[To], Loop);
}

const char *const W = "make_async_copy(a, a, s).wait();\n";

TEST(Reachability, StatementsInSequenceAndAfterABranch) {
  EXPECT_TRUE(mayReach(std::string(W) + W, 0, 1));
  EXPECT_FALSE(mayReach(std::string(W) + W, 1, 0));
  EXPECT_TRUE(mayReach(std::string("if (n) {\n") + W + "}\n" + W, 0, 1));
}

TEST(Reachability, TheOtherBranchAndCodeAfterAReturnNeverFollow) {
  EXPECT_FALSE(mayReach(std::string("if (n) {\n") + W + "} else {\n" + W + "}", 0, 1));
  EXPECT_FALSE(mayReach(std::string("if (n) {\n") + W + "return;\n}\n" + W, 0, 1));
  EXPECT_FALSE(mayReach(std::string("switch (n) {\ncase 0:\n") + W + "break;\ncase 1:\n" + W +
                            "break;\n}",
                        0, 1));
  // A case that falls through runs the next one's code.
  EXPECT_TRUE(mayReach(std::string("switch (n) {\ncase 0:\n") + W + "case 1:\n" + W + "}", 0, 1));
}

TEST(Reachability, OneIterationOfALoopTakesNoBackEdge) {
  std::string Body = std::string("for (int i = 0; i < n; ++i) {\nif (i == n - 1) {\n") + W +
                     "continue;\n}\n" + W + "}";
  EXPECT_FALSE(mayReach(Body, 0, 1, /*InLoop=*/true));
  EXPECT_FALSE(mayReach(Body, 1, 0, /*InLoop=*/true));
  // In the function's run, the next iteration follows.
  EXPECT_TRUE(mayReach(Body, 1, 0));
  std::string While = std::string("int i = 0;\nwhile (i < n) {\n") + W + "++i;\n}\n";
  EXPECT_FALSE(mayReach(While + "", 0, 0, /*InLoop=*/true));
  EXPECT_TRUE(mayReach(While, 0, 0));
}

TEST(Reachability, WithoutAGraphEverythingMayFollow) {
  dmalint::BodyReachability Reach(nullptr);
  EXPECT_TRUE(Reach.mayReach(nullptr, nullptr));
}

} // namespace
