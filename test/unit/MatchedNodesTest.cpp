//===- MatchedNodesTest.cpp - Which nodes the standalone's walk hands over -===//
#include "../../tool/MatchedNodes.h"
#include "TestAst.h"
#include "clang/ASTMatchers/ASTMatchers.h"

using dmalint::test::builtinApi;

using namespace clang;
using namespace clang::ast_matchers;
using dmalint::test::findOne;
using dmalint::test::parseKernel;

namespace dmalint {
namespace {

const char *Kernel = R"cc(
  void helper(int);
  void kernel(Ref<float> a, Ref<float> b, DmaSemaphore s) {
    int n = 1;
    helper(n);
    auto d = make_async_copy(a, b, s);
    d.start();
  }
  struct Other {};
)cc";

using Kinds = std::vector<ASTNodeKind>;
template <typename T> ASTNodeKind kind() { return ASTNodeKind::getFromNodeKind<T>(); }

TEST(MatchedNodes, TheKindsAreTheOnesTheChecksAskAbout) {
  auto AST = parseKernel(Kernel);
  const auto *Local = findOne<VarDecl>(*AST, varDecl(hasName("n")));
  const auto *Start = findOne<CXXMemberCallExpr>(
      *AST, cxxMemberCallExpr(isExpansionInMainFile(), callee(cxxMethodDecl(hasName("start")))));
  const auto *Factory =
      findOne<CallExpr>(*AST, callExpr(callee(functionDecl(hasName("make_async_copy")))));
  ASSERT_TRUE(Local && Start && Factory);

  // Only member calls: a free call of a factory is not one.
  MatchedNodes MemberCalls(Kinds{kind<CXXMemberCallExpr>()}, &builtinApi());
  EXPECT_EQ(MemberCalls.candidate(*Start), MatchCandidate::Yes);
  EXPECT_EQ(MemberCalls.candidate(*Factory), MatchCandidate::No);
  EXPECT_EQ(MemberCalls.candidate(*Local, AST->getASTContext()), MatchCandidate::No);

  // A kind nobody listed before (variables) gets its nodes, with no second
  // list to update.
  MatchedNodes Variables(Kinds{kind<VarDecl>()}, &builtinApi());
  EXPECT_EQ(Variables.candidate(*Local, AST->getASTContext()), MatchCandidate::Yes);
  EXPECT_EQ(Variables.candidate(*Start), MatchCandidate::No);
}

TEST(MatchedNodes, TheModelRulesOutCallsAndClassesItDoesNotName) {
  auto AST = parseKernel(Kernel);
  ASTContext &Ctx = AST->getASTContext();
  const auto *Helper = findOne<CallExpr>(*AST, callExpr(callee(functionDecl(hasName("helper")))));
  const auto *Factory =
      findOne<CallExpr>(*AST, callExpr(callee(functionDecl(hasName("make_async_copy")))));
  const auto *Other = findOne<CXXRecordDecl>(*AST, cxxRecordDecl(hasName("Other"), isDefinition()));
  const auto *Kernel = findOne<FunctionDecl>(*AST, functionDecl(hasName("kernel")));
  ASSERT_TRUE(Helper && Factory && Other && Kernel);

  MatchedNodes Matched(Kinds{kind<CallExpr>(), kind<CXXRecordDecl>(), kind<FunctionDecl>()}, &builtinApi());
  EXPECT_EQ(Matched.candidate(*Factory), MatchCandidate::Yes);
  EXPECT_EQ(Matched.candidate(*Helper), MatchCandidate::No);
  EXPECT_EQ(Matched.candidate(*Other, Ctx), MatchCandidate::No);
  EXPECT_EQ(Matched.candidate(*Kernel, Ctx), MatchCandidate::IfFunctionUsesApi);

  // Without a model (the options are in error) nothing is ruled out by name.
  MatchedNodes Unfiltered(Kinds{kind<CallExpr>(), kind<CXXRecordDecl>(), kind<FunctionDecl>()}, nullptr);
  EXPECT_EQ(Unfiltered.candidate(*Helper), MatchCandidate::Yes);
  EXPECT_EQ(Unfiltered.candidate(*Other, Ctx), MatchCandidate::Yes);
  EXPECT_EQ(Unfiltered.candidate(*Kernel, Ctx), MatchCandidate::Yes);
}

} // namespace
} // namespace dmalint
