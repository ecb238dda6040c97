//===- DescriptorAnalysisTest.cpp - The dataflow model's work bounds -------===//
#include "TestAst.h"
#include "dmalint/AnalysisCache.h"
#include "dmalint/DescriptorAnalysis.h"
#include "clang/Analysis/CFG.h"

using dmalint::test::builtinApi;

using namespace clang;
using namespace clang::ast_matchers;

namespace {

/// One function of \p Nests sequential loop nests, each filling its own
/// vector of copies (remote and local), starting them and waiting on each
/// the side it has: the shape of a pipelined kernel's steps.
std::string sequentialLoopNests(unsigned Nests) {
  std::string Code = "void steps(Ref<float> a, Ref<float> b, DmaSemaphore s, "
                     "DmaSemaphore r, int k, int n) {\n";
  for (unsigned I = 0; I < Nests; ++I) {
    std::string Q = "q" + std::to_string(I);
    Code += "  for (int step = 0; step < n; ++step) {\n"
            "    std::vector<AsyncCopyDescriptor> " + Q + ";\n"
            "    for (int x = 0; x < k; ++x)\n"
            "      for (int y = 0; y < k; ++y)\n"
            "        if ((x + y) % 2)\n"
            "          " + Q + ".push_back(make_async_remote_copy(a, b, s, r, DeviceId(0)));\n"
            "        else\n"
            "          " + Q + ".push_back(make_async_copy(a, b, s));\n"
            "    for (AsyncCopyDescriptor &d : " + Q + ") d.start();\n"
            "    for (AsyncCopyDescriptor &d : " + Q + ") {\n"
            "      if (d.is_remote()) d.wait_send();\n"
            "      d.wait_recv();\n"
            "    }\n"
            "  }\n";
  }
  return Code + "}\n";
}

/// One function of \p Steps steps, each building a copy in the function's
/// scope, starting it and waiting on it: all still in scope at the end.
std::string sequentialSteps(unsigned Steps) {
  std::string Code = "void steps(Ref<float> a, Ref<float> b, DmaSemaphore s, DmaSemaphore r, "
                     "bool c) {\n";
  for (unsigned I = 0; I < Steps; ++I) {
    std::string D = "d" + std::to_string(I);
    Code += "  AsyncCopyDescriptor " + D + " = c ? make_async_remote_copy(a, b, s, r, "
            "DeviceId(1)) : make_async_copy(a, b, s);\n"
            "  " + D + ".start();\n"
            "  if (" + D + ".is_remote()) " + D + ".wait_send();\n"
            "  " + D + ".wait_recv();\n";
  }
  return Code + "}\n";
}

dmalint::FunctionAnalysis analyse(clang::ASTUnit &AST) {
  const auto *FD = dmalint::test::findOne<FunctionDecl>(
      AST, functionDecl(hasName("steps"), isDefinition()));
  return dmalint::analyzeFunction(*FD, AST.getASTContext(), builtinApi(),
                                  dmalint::AnalysisLimits());
}

// The work limit is there for functions whose paths explode, not for long
// ones: a local's locations leave the state where its scope ends, so each
// loop nest costs the same wherever it is in the function.
TEST(DescriptorAnalysis, WorkGrowsLinearlyWithSequentialLoopNests) {
  auto Small = dmalint::test::parseKernel(sequentialLoopNests(10));
  auto Large = dmalint::test::parseKernel(sequentialLoopNests(100));
  dmalint::FunctionAnalysis Ten = analyse(*Small), Hundred = analyse(*Large);
  ASSERT_FALSE(Ten.HitWorkLimit);
  ASSERT_FALSE(Hundred.HitWorkLimit);
  EXPECT_LE(Hundred.BlockVisits, 11 * Ten.BlockVisits);
  // Every wait_send is reached, each under its is_remote() guard.
  EXPECT_EQ(Hundred.WaitSends.size(), 100u);
  for (const dmalint::DescriptorUse &Use : Hundred.WaitSends)
    EXPECT_FALSE(Hundred.localOriginsAt(Use).Origins.size())
        << "a local copy reaches a guarded wait_send";
}

// A function with more reachable blocks than the work limit cannot finish:
// it is skipped before the fixed point stores a state for each block.
TEST(DescriptorAnalysis, FunctionLargerThanTheWorkLimitIsSkippedAtOnce) {
  auto AST = dmalint::test::parseKernel(sequentialLoopNests(100));
  const auto *FD = dmalint::test::findOne<FunctionDecl>(
      *AST, functionDecl(hasName("steps"), isDefinition()));
  dmalint::AnalysisLimits Limits;
  Limits.MaxBlockVisits = 100; // Each nest has more than one block.
  dmalint::FunctionAnalysis Result =
      dmalint::analyzeFunction(*FD, AST->getASTContext(), builtinApi(), Limits);
  EXPECT_TRUE(Result.HitWorkLimit);
  EXPECT_EQ(Result.BlockVisits, 0u);
  EXPECT_TRUE(Result.WaitSends.empty());
}

// The same when the body's text is too short to be counted (macros): the
// CFG is built, and the fixed point gives up before its first visit.
TEST(DescriptorAnalysis, FunctionWrittenWithMacrosIsSkippedAtOnceToo) {
  auto AST = dmalint::test::parseKernel(
      "#define NEST for (int i = 0; i < n; ++i) if (i % 2) d.start();\n"
      "#define X4(a) a a a a\n"
      "void steps(AsyncCopyDescriptor d, int n) { X4(X4(X4(NEST))) }\n");
  const auto *FD = dmalint::test::findOne<FunctionDecl>(
      *AST, functionDecl(hasName("steps"), isDefinition()));
  dmalint::AnalysisLimits Limits;
  Limits.MaxBlockVisits = 100; // 64 nests of 3 blocks or more; 60 characters.
  dmalint::FunctionAnalysis Result =
      dmalint::analyzeFunction(*FD, AST->getASTContext(), builtinApi(), Limits);
  EXPECT_TRUE(Result.HitWorkLimit);
  EXPECT_EQ(Result.BlockVisits, 0u);
}

// The AST's count is a lower bound of the CFG's reachable blocks: a function
// it calls too large always is. Checked against clang's CFG on every kind of
// branch, nested, with empty bodies, jumps out of loops, fallthrough, and a
// lambda whose branches belong to its own CFG.
TEST(DescriptorAnalysis, BlockLowerBoundNeverExceedsTheCfg) {
  // Each body, and the count the bound gives it.
  std::pair<const char *, uint64_t> Bodies[] = {
      {"if (c) k++;", 1},
      {"if (c) k++; else k--; if (k) {} if (c) ; else ;", 3},
      {"if constexpr (sizeof(int) == 4) k++; else k--;", 0},
      {"for (int i = 0; i < k; ++i) k--;", 2},
      {"for (;;) { if (c) break; }", 3},
      {"for (;;) {}", 2},
      {"while (c) {}", 2},
      {"while (k) { if (c) continue; k--; }", 3},
      {"do { k--; } while (k);", 1},
      {"do {} while (0);", 1},
      {"while (0) { k++; }", 1},
      {"while (1) {}", 2},
      {"for (; false;) {}", 1},
      {"for (int x : v) if (x) k += x;", 3},
      {"for (int x : v) {}", 2},
      {"switch (k) { case 0: k++; case 1: break; default: k--; }", 3},
      {"switch (k) { case 0: case 1: case 2: return; }", 3},
      {"k = c ? 1 : 2; k = k ?: 3;", 2},
      {"c = c && k; c = c || (k && c);", 3},
      {"if (c && k) { while (k || c) k--; }", 5},
      {"auto f = [&] { if (c) k++; for (;;) {} }; f();", 0},
      {"for (int i = 0; i < k; ++i) for (int j = 0; j < k; ++j) if (c) k++; else k--;", 5},
      {"if (c) return; for (int i = 0; i < k; ++i) { if (i) return; }", 4},
  };
  for (auto [Body, Expected] : Bodies) {
    auto AST = dmalint::test::parseKernel(
        std::string("void steps(int k, bool c, std::vector<int> v) { ") + Body + " }");
    const auto *FD = dmalint::test::findOne<FunctionDecl>(
        *AST, functionDecl(hasName("steps"), isDefinition()));
    auto G = CFG::buildCFG(FD, FD->getBody(), &AST->getASTContext(), CFG::BuildOptions());
    ASSERT_TRUE(G) << Body;
    unsigned Reachable = 0;
    std::vector<bool> Seen(G->getNumBlockIDs(), false);
    std::vector<const CFGBlock *> Pending{&G->getEntry()};
    Seen[G->getEntry().getBlockID()] = true;
    while (!Pending.empty()) {
      const CFGBlock *B = Pending.back();
      Pending.pop_back();
      ++Reachable;
      for (const CFGBlock::AdjacentBlock &Succ : B->succs())
        if (const CFGBlock *Next = Succ.getReachableBlock(); Next && !Seen[Next->getBlockID()]) {
          Seen[Next->getBlockID()] = true;
          Pending.push_back(Next);
        }
    }
    uint64_t AtLeast = dmalint::reachableBlocksAtLeast(*FD->getBody());
    EXPECT_EQ(AtLeast, Expected) << Body;
    EXPECT_LE(AtLeast, Reachable - 1) << Body; // Not counting the entry.
  }
}

// A descriptor leaves the state after the last statement that names it, so
// the state a block visit copies does not grow with the steps before it; and
// each step's states are freed once the analysis has moved past it, so the
// number of states held does not grow either.
TEST(DescriptorAnalysis, StateHoldsOnlyDescriptorsStillNamed) {
  auto Small = dmalint::test::parseKernel(sequentialSteps(10));
  auto Large = dmalint::test::parseKernel(sequentialSteps(200));
  dmalint::FunctionAnalysis Ten = analyse(*Small), TwoHundred = analyse(*Large);
  ASSERT_FALSE(TwoHundred.HitWorkLimit);
  EXPECT_EQ(TwoHundred.WaitSends.size(), 200u);
  EXPECT_GT(Ten.PeakLocations, 0u);
  EXPECT_EQ(TwoHundred.PeakLocations, Ten.PeakLocations);
  EXPECT_GT(Ten.PeakStoredStates, 1u);
  EXPECT_EQ(TwoHundred.PeakStoredStates, Ten.PeakStoredStates);
}

// A loop's states are final once the analysis has moved past it: its uses
// are recorded then and its states freed, so a long function holds the
// states of one loop nest at a time, not one per block.
TEST(DescriptorAnalysis, StoredStatesDoNotGrowWithSequentialLoopNests) {
  auto Small = dmalint::test::parseKernel(sequentialLoopNests(10));
  auto Large = dmalint::test::parseKernel(sequentialLoopNests(100));
  dmalint::FunctionAnalysis Ten = analyse(*Small), Hundred = analyse(*Large);
  ASSERT_FALSE(Hundred.HitWorkLimit);
  EXPECT_EQ(Hundred.WaitSends.size(), 100u);
  EXPECT_GT(Ten.PeakStoredStates, 1u);
  EXPECT_EQ(Hundred.PeakStoredStates, Ten.PeakStoredStates);
}

// Found by fuzz-snippet (docs/fuzzing.md): relay_a's call holds relay_b's
// summary while its argument `pending.at(n)` is evaluated; that analyses
// vector::at, and finishing it dropped relay_b's result (stale: relay_b saw
// relay_a still in progress) from under the call. Under AddressSanitizer (the
// sanitized suite) this was a heap-use-after-free.
TEST(AnalysisCache, SummaryStaysValidWhileArgumentsAnalyseOtherFunctions) {
  auto AST = dmalint::test::parseKernel(R"(
extern std::vector<AsyncCopyDescriptor> pending;
void relay_b(AsyncCopyDescriptor &d, int n);
void relay_a(AsyncCopyDescriptor &d, int n) {
  d.start();
  relay_b(pending.at(n), n);
}
void relay_b(AsyncCopyDescriptor &d, int n) { relay_a(d, n); }
)");
  const auto *RelayA = dmalint::test::findOne<FunctionDecl>(
      *AST, functionDecl(hasName("relay_a"), isDefinition()));
  const auto *RelayB = dmalint::test::findOne<FunctionDecl>(
      *AST, functionDecl(hasName("relay_b"), isDefinition()));
  dmalint::AnalysisCache Cache;
  dmalint::AnalysisLimits Limits;
  const dmalint::FunctionAnalysis &A =
      Cache.analysis(*RelayA, AST->getASTContext(), builtinApi(), Limits);
  ASSERT_FALSE(A.HitWorkLimit);
  EXPECT_TRUE(A.Summary.Params[0].MayUse);
  // relay_b passes its d on to relay_a, which starts it.
  const dmalint::FunctionAnalysis &B =
      Cache.analysis(*RelayB, AST->getASTContext(), builtinApi(), Limits);
  EXPECT_TRUE(B.Summary.Params[0].MayUse);
}

// A private member is unread only when nothing but initialisers names it,
// and only in a class whose code is all here.
TEST(AnalysisCache, UnreadMembersAreNamedOnlyByInitialisers) {
  auto AST = dmalint::test::parseKernel(R"(
struct Kv { AsyncCopyDescriptor k, v; };
class Fetcher {
 public:
  Fetcher(Ref<float> a, Ref<float> b, DmaSemaphore s)
      : k_(make_async_copy(a, b, s)), v_(make_async_copy(b, a, s)),
        kv_{make_async_copy(a, b, s), make_async_copy(b, a, s)}, w_(k_),
        open_(make_async_copy(a, b, s)) {}
  void run() { k_.start(); kv_.k.start(); }
  AsyncCopyDescriptor open_;
 private:
  AsyncCopyDescriptor k_, v_;
  Kv kv_;
  AsyncCopyDescriptor w_;
};
class Elsewhere {
  void run();
  AsyncCopyDescriptor v_;
};
)");
  dmalint::AnalysisCache Cache;
  auto Field = [&](const char *Class, const char *Name) {
    return dmalint::test::findOne<FieldDecl>(
        *AST, fieldDecl(hasName(Name), hasParent(cxxRecordDecl(hasName(Class)))));
  };
  auto Unread = [&](const char *Class, const char *Name, const char *Inner = nullptr) {
    const FieldDecl *F = Field(Class, Name);
    dmalint::AccessPath Path;
    Path.append({dmalint::PathStep::field(F)});
    if (Inner)
      Path.append({dmalint::PathStep::field(Field("Kv", Inner))});
    return Cache.unreadMember(*cast<CXXRecordDecl>(F->getParent()), Path);
  };
  EXPECT_TRUE(Unread("Fetcher", "v_"));
  EXPECT_TRUE(Unread("Fetcher", "kv_", "v"));
  EXPECT_FALSE(Unread("Fetcher", "k_"));        // run() starts it; w_'s initialiser copies it.
  EXPECT_FALSE(Unread("Fetcher", "kv_", "k"));  // run() names kv_.k.
  EXPECT_FALSE(Unread("Fetcher", "kv_"));       // Something below it is named.
  EXPECT_TRUE(Unread("Fetcher", "w_"));
  EXPECT_FALSE(Unread("Fetcher", "open_"));     // Public.
  EXPECT_FALSE(Unread("Elsewhere", "v_"));      // run()'s body is not here.
}

} // namespace
