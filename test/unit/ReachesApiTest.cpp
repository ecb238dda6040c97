//===- ReachesApiTest.cpp - Which functions reach the API through calls ---===//
//
// AnalysisCache::reachesApi says which functions the protocol checks judge
// and which helpers get a protocol summary. Its answer for a function on a
// cycle of calls must not depend on which function of the cycle was asked
// about first, nor on the order of the calls in a body.
//
//===----------------------------------------------------------------------===//
#include "TestAst.h"
#include "dmalint/AnalysisCache.h"
#include "clang/ASTMatchers/ASTMatchers.h"

using namespace clang;
using namespace clang::ast_matchers;
using dmalint::test::builtinApi;
using dmalint::test::findOne;
using dmalint::test::parseKernel;

namespace dmalint {
namespace {

// first and second call each other; only first calls the helper that uses
// the API, and only after its call of second. spin and its pair are cycles
// that reach nothing; leaf reaches nothing either.
const char *Code = R"cc(
  void uses(Ref<float> x, Ref<float> y, DmaSemaphore s) { make_async_copy(x, y, s).start(); }
  void second(Ref<float> x, Ref<float> y, DmaSemaphore s, int n);
  void first(Ref<float> x, Ref<float> y, DmaSemaphore s, int n) {
    second(x, y, s, n);
    uses(x, y, s);
  }
  void second(Ref<float> x, Ref<float> y, DmaSemaphore s, int n) {
    if (n > 0)
      first(x, y, s, n - 1);
  }
  void leaf(int) {}
  void spin(int n);
  void spinBack(int n) { leaf(n); spin(n); }
  void spin(int n) { if (n > 0) spinBack(n - 1); }
  void caller(Ref<float> x, Ref<float> y, DmaSemaphore s) { spin(1); second(x, y, s, 2); }
)cc";

class ReachesApi : public ::testing::Test {
protected:
  void SetUp() override { AST = parseKernel(Code); }
  const FunctionDecl &fn(const char *Name) {
    return *findOne<FunctionDecl>(*AST, functionDecl(hasName(Name), isDefinition()));
  }
  /// The answers for \p Names, asked in that order of a fresh cache.
  std::vector<bool> ask(std::vector<const char *> Names) {
    AnalysisCache &Cache = AnalysisCache::current();
    Cache.reset();
    std::vector<bool> Answers;
    for (const char *Name : Names)
      Answers.push_back(Cache.reachesApi(fn(Name), AST->getASTContext(), builtinApi()));
    return Answers;
  }
  std::unique_ptr<ASTUnit> AST;
};

TEST_F(ReachesApi, ACycleIsAnsweredTheSameFromEitherEnd) {
  // Asked about first, the search reaches second while still in first:
  // second's "no" so far must not become its answer.
  EXPECT_EQ(ask({"first", "second"}), (std::vector<bool>{true, true}));
  EXPECT_EQ(ask({"second", "first"}), (std::vector<bool>{true, true}));
}

TEST_F(ReachesApi, CyclesThatReachNothingAreNo) {
  EXPECT_EQ(ask({"spin", "spinBack", "leaf"}), (std::vector<bool>{false, false, false}));
  EXPECT_EQ(ask({"spinBack", "spin"}), (std::vector<bool>{false, false}));
  EXPECT_EQ(ask({"leaf"}), (std::vector<bool>{false}));
}

TEST_F(ReachesApi, ThroughACycleThatReachesNothingAndOneThatDoes) {
  EXPECT_EQ(ask({"caller", "spin", "second", "first"}),
            (std::vector<bool>{true, false, true, true}));
  EXPECT_EQ(ask({"spin", "second", "caller"}), (std::vector<bool>{false, true, true}));
}

} // namespace
} // namespace dmalint
