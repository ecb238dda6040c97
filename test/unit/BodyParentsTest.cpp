//===- BodyParentsTest.cpp - One function's statement parents -------------===//
#include "TestAst.h"
#include "dmalint/AstUtil.h"

using namespace clang;
using namespace clang::ast_matchers;

namespace {

/// A kernel whose waits sit in a plain lambda, in a generic lambda (its code
/// is in the instantiations of its call operator, not in the kernel's body)
/// and in a generic lambda inside another.
constexpr const char *Kernel = R"cc(
void kernel(Ref<float> a, Ref<float> b, DmaSemaphore s, bool c) {
  auto plain = [&] {
    if (c)
      make_async_copy(a, b, s).wait_recv();
  };
  auto generic = [&](auto src, auto dst) {
    if (c)
      make_async_copy(src, dst, s).wait_send();
  };
  auto outer = [&](auto src) {
    auto inner = [&](auto dst) {
      while (c)
        make_async_copy(src, dst, s).start();
    };
    inner(b);
  };
  plain();
  generic(a, b);
  outer(a);
}
void other(Ref<float> a, Ref<float> b, DmaSemaphore s) { make_async_copy(a, b, s).wait(); }
)cc";

/// The statement around \p S, past the full-expression's cleanups.
const Stmt *statementAround(dmalint::BodyParents &Parents, const Stmt &S) {
  const Stmt *P = Parents.parent(S);
  while (isa_and_nonnull<ExprWithCleanups>(P))
    P = Parents.parent(*P);
  return P;
}

struct BodyParentsTest : ::testing::Test {
  void SetUp() override { AST = dmalint::test::parseKernel(Kernel); }
  const FunctionDecl *function(const std::string &Name) {
    return dmalint::test::findOne<FunctionDecl>(*AST, functionDecl(hasName(Name), isDefinition()));
  }
  /// The call of \p Method (in a generic lambda, the instantiation's: the
  /// pattern's is dependent, not a member call).
  const CXXMemberCallExpr *call(const std::string &Method) {
    return dmalint::test::findOne<CXXMemberCallExpr>(
        *AST, cxxMemberCallExpr(callee(cxxMethodDecl(hasName(Method)))));
  }
  std::unique_ptr<ASTUnit> AST;
};

TEST_F(BodyParentsTest, PlainLambdaIsInTheFunctionsOwnBody) {
  const FunctionDecl *Kernel = function("kernel");
  const auto *Wait = call("wait_recv");
  ASSERT_TRUE(Kernel && Wait);
  dmalint::BodyParents Parents(*Kernel);
  EXPECT_TRUE(Parents.contains(*Wait));
  EXPECT_EQ(Parents.owner(*Wait), Kernel);
  EXPECT_TRUE(isa_and_nonnull<IfStmt>(statementAround(Parents, *Wait)));
}

TEST_F(BodyParentsTest, GenericLambdaInstantiationIsTheFunctionsToo) {
  const FunctionDecl *Kernel = function("kernel");
  const auto *Wait = call("wait_send");
  ASSERT_TRUE(Kernel && Wait);
  dmalint::BodyParents Parents(*Kernel);
  ASSERT_TRUE(Parents.contains(*Wait));
  const FunctionDecl *Owner = Parents.owner(*Wait);
  ASSERT_TRUE(Owner);
  EXPECT_NE(Owner, Kernel);
  EXPECT_TRUE(isa<CXXMethodDecl>(Owner));
  EXPECT_TRUE(Owner->isTemplateInstantiation());
  EXPECT_TRUE(cast<CXXMethodDecl>(Owner)->getParent()->isLambda());
  // The statement that holds it is the instantiation's if, whose parent is
  // the instantiated body; that body has none.
  const Stmt *If = statementAround(Parents, *Wait);
  ASSERT_TRUE(isa_and_nonnull<IfStmt>(If));
  EXPECT_EQ(Parents.parent(*If), Owner->getBody());
  EXPECT_EQ(Parents.parent(*Owner->getBody()), nullptr);
}

TEST_F(BodyParentsTest, NestedGenericLambdas) {
  const FunctionDecl *Kernel = function("kernel");
  const auto *Start = call("start");
  ASSERT_TRUE(Kernel && Start);
  dmalint::BodyParents Parents(*Kernel);
  ASSERT_TRUE(Parents.contains(*Start));
  EXPECT_TRUE(isa_and_nonnull<WhileStmt>(statementAround(Parents, *Start)));
  const FunctionDecl *Owner = Parents.owner(*Start);
  ASSERT_TRUE(Owner);
  EXPECT_EQ(Owner->getNameAsString(), "operator()");
  EXPECT_TRUE(Owner->isTemplateInstantiation());
}

TEST_F(BodyParentsTest, AnotherFunctionsStatementIsNotContained) {
  const FunctionDecl *Kernel = function("kernel");
  const auto *Wait = call("wait");
  ASSERT_TRUE(Kernel && Wait);
  dmalint::BodyParents Parents(*Kernel);
  EXPECT_FALSE(Parents.contains(*Wait));
  EXPECT_EQ(Parents.owner(*Wait), nullptr);
  EXPECT_EQ(Parents.parent(*Wait), nullptr);
  // Still false when asked again (the instantiations are added once).
  EXPECT_FALSE(Parents.contains(*Wait));
  dmalint::BodyParents OtherParents(*function("other"));
  EXPECT_TRUE(OtherParents.contains(*Wait));
  EXPECT_EQ(OtherParents.owner(*Wait), function("other"));
}

} // namespace
