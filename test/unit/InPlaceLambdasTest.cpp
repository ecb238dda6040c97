//===- InPlaceLambdasTest.cpp - Lambdas that run where they are written ---===//
#include "TestAst.h"
#include "dmalint/AnalysisCache.h"
#include "dmalint/InPlaceLambdas.h"
#include "clang/AST/ParentMap.h"

using namespace clang;
using namespace clang::ast_matchers;

namespace {

/// The helpers a kernel may hand its step's code to, each instantiated with
/// a lambda by `use`.
constexpr const char *Helpers = R"cc(
#include <functional>
#include <utility>
template <class F> void when(bool c, F f) { if (c) f(); }
template <class F> void unless(bool c, F &&f) { if (c) return; std::forward<F>(f)(); }
template <class F> void otherwise(bool c, F f) { if (c) {} else { f(); } }
template <class F> void always(F f) { f(); }
template <class F> void returning(bool c, F f) { if (c == true) [[likely]] return (void)f(); }
template <class F> void above(int n, F f) { if (n > 0) f(); }
template <class F> void two_exits(bool c, bool d, F f) { if (c) return; if (d) return; f(); }
template <class F> void repeat(int n, F f) { for (int k = 0; k < n; ++k) f(); }
template <class F> void twice(F f) { f(); f(); }
template <class F> void flip_first(bool c, F f) { c = !c; if (c) f(); }
void log_step(int);
template <class F> void traced(int s, F f) { log_step(s); f(); }
std::function<void()> pending;
template <class F> void defer(F f) { pending = f; }
template <class F> void kept(F f) { F g = f; g(); }
template <class F> void nested(F f) { [&] { f(); }(); }
void use(bool c, int n) {
  when(c, [] {});
  unless(c, [] {});
  otherwise(c, [] {});
  always([] {});
  repeat(n, [] {});
  twice([] {});
  flip_first(c, [] {});
  returning(c, [] {});
  above(n, [] {});
  two_exits(c, c, [] {});
  traced(n, [] {});
  defer([] {});
  kept([] {});
  nested([] {});
}
)cc";

struct InPlace : ::testing::Test {
  void SetUp() override {
    AST = dmalint::test::parseKernel(Helpers);
    dmalint::AnalysisCache::current().reset();
  }
  /// The instantiation of the helper \p Name that `use` calls.
  const FunctionDecl *helper(const std::string &Name) {
    return dmalint::test::findOne<FunctionDecl>(
        *AST, functionDecl(hasName(Name), isTemplateInstantiation()));
  }
  std::unique_ptr<ASTUnit> AST;
};

TEST_F(InPlace, CalledOnceWhereTheCallIsUnderAKnownCondition) {
  for (const char *Name : {"when", "unless", "otherwise", "always", "returning"}) {
    const FunctionDecl *FD = helper(Name);
    ASSERT_TRUE(FD) << Name;
    EXPECT_TRUE(dmalint::inPlaceRun(*FD, FD->getNumParams() - 1)) << Name;
  }
}

TEST_F(InPlace, NotWhenItMayRunAgainLaterOrAfterOtherWork) {
  for (const char *Name : {"repeat", "twice", "traced", "defer", "kept", "nested"}) {
    const FunctionDecl *FD = helper(Name);
    ASSERT_TRUE(FD) << Name;
    EXPECT_FALSE(dmalint::inPlaceRun(*FD, FD->getNumParams() - 1)) << Name;
  }
}

TEST_F(InPlace, NotWhenWhatDecidesItIsUnknown) {
  // A flag the helper writes, an int's comparison, two early returns.
  for (const char *Name : {"flip_first", "above", "two_exits"}) {
    const FunctionDecl *FD = helper(Name);
    ASSERT_TRUE(FD) << Name;
    EXPECT_FALSE(dmalint::inPlaceRun(*FD, FD->getNumParams() - 1)) << Name;
  }
}

TEST_F(InPlace, TheConditionIsAFlagTheCallerPasses) {
  struct Expected {
    const char *Name;
    bool Positive;
  };
  for (Expected E : {Expected{"when", true}, Expected{"unless", false},
                     Expected{"otherwise", false}, Expected{"returning", true}}) {
    const FunctionDecl *FD = helper(E.Name);
    ASSERT_TRUE(FD) << E.Name;
    std::optional<dmalint::InPlaceRun> Run = dmalint::inPlaceRun(*FD, FD->getNumParams() - 1);
    ASSERT_TRUE(Run && Run->Flag) << E.Name;
    EXPECT_EQ(*Run->Flag, 0u) << E.Name;
    EXPECT_EQ(Run->Positive, E.Positive) << E.Name;
  }
  std::optional<dmalint::InPlaceRun> Always = dmalint::inPlaceRun(*helper("always"), 0);
  ASSERT_TRUE(Always);
  EXPECT_FALSE(Always->Flag); // Every call runs it.
}

TEST_F(InPlace, LambdasAtTheirCalls) {
  const FunctionDecl *Use = dmalint::test::findOne<FunctionDecl>(
      *AST, functionDecl(hasName("use"), isDefinition()));
  ASSERT_TRUE(Use);
  ParentMap PM(Use->getBody());
  unsigned InPlaceCalls = 0;
  for (const Stmt *S : cast<CompoundStmt>(Use->getBody())->body()) {
    const auto *Call = dyn_cast<CallExpr>(cast<Expr>(S)->IgnoreImplicit());
    ASSERT_TRUE(Call);
    const auto *Lambda =
        dyn_cast<LambdaExpr>(Call->getArg(Call->getNumArgs() - 1)->IgnoreImplicit());
    ASSERT_TRUE(Lambda);
    llvm::SmallPtrSet<const LambdaExpr *, 1> Found;
    dmalint::addInPlaceLambdas(*Call, Found);
    EXPECT_EQ(Found.contains(Lambda), dmalint::inPlaceCall(*Lambda, PM) == Call);
    InPlaceCalls += Found.contains(Lambda);
    bool Positive = true;
    const Expr *Cond = dmalint::inPlaceConditionAt(*Call, *Lambda, Positive);
    std::string Name = Call->getDirectCallee()->getName().str();
    EXPECT_EQ(Cond != nullptr, Name == "when" || Name == "otherwise" || Name == "unless" ||
                                   Name == "returning")
        << Name;
  }
  EXPECT_EQ(InPlaceCalls, 5u); // when, unless, otherwise, always, returning.
}

// A lambda called where it is written runs there once, with or without
// arguments; one held by a variable is not written at its call.
TEST(InPlaceWritten, CalledWhereWrittenWithOrWithoutArguments) {
  auto AST = dmalint::test::parseKernel("void k(int slot) {\n"
                                        "  [&] { (void)slot; }();\n"
                                        "  [&](int s) { (void)s; }(slot);\n"
                                        "  [&](auto s, int t) { (void)s; (void)t; }(slot, 1);\n"
                                        "  auto held = [&](int s) { (void)s; };\n"
                                        "  held(slot);\n"
                                        "}");
  ASSERT_TRUE(AST);
  auto Calls = match(cxxOperatorCallExpr(hasAncestor(functionDecl(hasName("k")))).bind("c"),
                     AST->getASTContext());
  ASSERT_EQ(Calls.size(), 4u);
  unsigned InPlace = 0;
  for (const BoundNodes &N : Calls) {
    llvm::SmallPtrSet<const LambdaExpr *, 1> Found;
    dmalint::addInPlaceLambdas(*N.getNodeAs<CXXOperatorCallExpr>("c"), Found);
    InPlace += Found.size();
  }
  EXPECT_EQ(InPlace, 3u);
}

} // namespace
