//===- BarriersTest.cpp - Barriers counted under SPMD symmetry ------------===//
#include "TestAst.h"
#include "dmalint/Barriers.h"

using namespace clang;
using namespace clang::ast_matchers;

using dmalint::test::builtinApi;

namespace {

/// The verdict on the barriers of `k` in \p Code: "none" when no semaphore
/// is judged, else per judged semaphore "over", "under" or "balanced" with
/// the totals, e.g. "over 4/2".
std::string barrierVerdict(const std::string &Code, bool CalledHere = false) {
  auto AST = dmalint::test::parseKernel(Code);
  if (!AST)
    return "parse error";
  ASTContext &Ctx = AST->getASTContext();
  const auto *K = dmalint::test::findOne<FunctionDecl>(
      *AST, functionDecl(hasName("k"), isDefinition()));
  if (!K)
    return "no k";
  auto Balances = dmalint::barrierBalances(*K, Ctx, builtinApi(),
                                           [&](const ParmVarDecl &) { return CalledHere; });
  if (Balances.empty())
    return "none";
  std::string Out;
  for (const dmalint::BarrierBalance &B : Balances) {
    const char *What = B.Difference == dmalint::CountSign::Positive   ? "over"
                       : B.Difference == dmalint::CountSign::Negative ? "under"
                                                                      : "balanced";
    Out += (Out.empty() ? "" : "; ") + std::string(What) + " " + B.Atoms->str(B.Received) +
           "/" + B.Atoms->str(B.Waited);
  }
  return Out;
}

/// A kernel on one axis "x" that signals `sem` with 2 at \p Target (an
/// expression of `me` and `n`) and waits 1: over-signalled when the target
/// is a bijection.
std::string signalledTo(const std::string &Target, const std::string &Prelude = "") {
  return barrierVerdict("void k(Semaphore sem) {\n"
                 "  const int me = axis_index(\"x\");\n"
                 "  const int n = axis_size(\"x\");\n" +
                 Prelude + "  semaphore_signal(sem, 2, " + Target +
                 ");\n"
                 "  semaphore_wait(sem, 1);\n"
                 "}\n");
}

TEST(Barriers, TheJaxAllGatherBarrier) {
  const char *Kernel = R"(
    void k(Semaphore sem) {
      const int me = axis_index("x");
      const int n = axis_size("x");
      semaphore_signal(sem, %d, DeviceId{(me - 1 + n) %% n});
      semaphore_signal(sem, %d, DeviceId{(me + 1) %% n});
      semaphore_wait(sem, 2);
    })";
  char Before[512], After[512];
  snprintf(Before, sizeof Before, Kernel, 2, 2);
  snprintf(After, sizeof After, Kernel, 1, 1);
  EXPECT_EQ(barrierVerdict(Before), "over 4/2");
  EXPECT_EQ(barrierVerdict(After), "balanced 2/2");
}

TEST(Barriers, RingShiftsModuloTheAxisAreBijections) {
  for (const char *Shift : {"(me + 1) % n", "(me - 1 + n) % n", "(me + n - 1) % n",
                            "(me + 3) % n", "(n + me - 2) % n", "(me + 1) % axis_size(\"x\")",
                            "(axis_index(\"x\") + 1) % n", "me"})
    EXPECT_EQ(signalledTo(std::string("DeviceId{") + Shift + "}"), "over 2/1") << Shift;
}

TEST(Barriers, WrapsByAComparisonAreBijections) {
  for (const char *Wrap : {"me == n - 1 ? 0 : me + 1", "me == 0 ? n - 1 : me - 1",
                           "me + 1 < n ? me + 1 : 0", "me != n - 1 ? me + 1 : 0",
                           "me > 0 ? me - 1 : n - 1", "me - 1 < 0 ? me - 1 + n : me - 1"})
    EXPECT_EQ(signalledTo(std::string("DeviceId{") + Wrap + "}"), "over 2/1") << Wrap;
  EXPECT_EQ(signalledTo("DeviceId{v}", "  const int v0 = me - 1;\n"
                                  "  const int v = v0 < 0 ? v0 + n : v0;\n"),
            "over 2/1");
  // The C++ spelling of the same: a variable corrected by an if.
  EXPECT_EQ(signalledTo("DeviceId{left}", "  int left = me - 1;\n"
                                     "  if (left < 0) left += n;\n"),
            "over 2/1");
  EXPECT_EQ(signalledTo("DeviceId{right}", "  int right = me + 1;\n"
                                      "  if (right == n) right = 0;\n"),
            "over 2/1");
}

TEST(Barriers, WhatIsNotProvablyABijectionIsNotJudged) {
  for (const char *Id :
       {"DeviceId{0}", "DeviceId{me + 1}", "DeviceId{me / 2}", "DeviceId{(2 * me) % n}",
        "DeviceId{(me + 1) % 4}", "DeviceId{(me - 1) % n}", "DeviceId{(me - 3 + n) % n}",
        "DeviceId{me == 0 ? n - 1 : me + 1}", "DeviceId{me == n - 2 ? 0 : me + 1}",
        "DeviceId{n - 1 - me}", "DeviceId{(me + 1) % n, 0}", "DeviceId{me, me}"})
    EXPECT_EQ(signalledTo(Id), "none") << Id;
  // A variable written after the use, or twice in a row inside a branch.
  EXPECT_EQ(barrierVerdict(R"(
    void k(Semaphore sem, bool b) {
      const int me = axis_index("x"), n = axis_size("x");
      int left = me - 1;
      if (b) left += n;
      semaphore_signal(sem, 2, DeviceId{left});
      semaphore_wait(sem, 1);
    })"),
            "none");
}

TEST(Barriers, MeshTuplesVaryOneCoordinate) {
  const char *Kernel = R"(
    void k(Semaphore sem) {
      const int x = axis_index("x"), nx = axis_size("x");
      const int y = axis_index("y");
      semaphore_signal(sem, 2, DeviceId{%s});
      semaphore_wait(sem, 1);
    })";
  auto With = [&](const char *Id) {
    char Code[512];
    snprintf(Code, sizeof Code, Kernel, Id);
    return barrierVerdict(Code);
  };
  EXPECT_EQ(With("(x + 1) % nx, y"), "over 2/1");
  EXPECT_EQ(With("y, (x + 1) % nx"), "over 2/1");
  EXPECT_EQ(With("x, y"), "over 2/1");
  EXPECT_EQ(With("(x + 1) % nx, 0"), "none");
  EXPECT_EQ(With("(x + 1) % nx, x"), "none");
  // The kernel uses axis y: one coordinate names a device of a larger mesh.
  EXPECT_EQ(With("(x + 1) % nx"), "none");
}

TEST(Barriers, LogicalIdsOfAOneAxisKernel) {
  EXPECT_EQ(signalledTo("DeviceId((me + 1) % n), DeviceIdType::kLogical"), "over 2/1");
  EXPECT_EQ(signalledTo("(me + 1) % n, DeviceIdType::kLogical"), "over 2/1");
  // A tuple with the logical kind is rejected by Pallas; not a barrier.
  EXPECT_EQ(signalledTo("DeviceId{(me + 1) % n}, DeviceIdType::kLogical"), "none");
  EXPECT_EQ(signalledTo("DeviceId((me + 1) % n), DeviceIdType::kLogical",
                   "  const int other = axis_index(\"y\");\n"),
            "none");
  // The kernel's helpers, however deep, count as the kernel.
  EXPECT_EQ(barrierVerdict(R"(
    int row() { return axis_index("y"); }
    int offset() { return row() * 4; }
    void k(Semaphore sem, Ref<float> buf) {
      const int me = axis_index("x"), n = axis_size("x");
      (void)buf.at(offset());
      semaphore_signal(sem, 2, DeviceId((me + 1) % n), DeviceIdType::kLogical);
      semaphore_wait(sem, 1);
    })"),
            "none");
}

TEST(Barriers, NoDeviceIdIsTheDeviceItself) {
  EXPECT_EQ(barrierVerdict("void k(Semaphore sem) { semaphore_signal(sem); semaphore_wait(sem, 2); }"),
            "under 1/2");
  EXPECT_EQ(barrierVerdict("void k(Semaphore sem) { semaphore_signal(sem, 2, std::nullopt); "
                    "semaphore_wait(sem, 2); }"),
            "balanced 2/2");
}

TEST(Barriers, HelpersOfTheTranslationUnit) {
  EXPECT_EQ(barrierVerdict(R"(
    constexpr const char *kAxis = "x";
    DeviceId neighbour(int me, int n, bool right) {
      const int next = right ? (me + 1) % n : (me - 1 + n) % n;
      return DeviceId{next};
    }
    int ring_right(int me) { return (me + 1) % axis_size(kAxis); }
    void k(Semaphore sem) {
      const int me = axis_index(kAxis);
      const int n = axis_size(kAxis);
      const DeviceId left = neighbour(me, n, false);
      semaphore_signal(sem, 2, left);
      semaphore_signal(sem, 2, neighbour(me, n, true));
      semaphore_signal(sem, 1, DeviceId{ring_right(me)});
      semaphore_wait(sem, 2);
    })"),
            "over 5/2");
  // A helper that branches on the device and returns: `c ? a : b`, a
  // rotation here (the last device's right neighbour is 0).
  EXPECT_EQ(barrierVerdict(R"(
    int next(int me, int n) { if (me + 1 == n) return 0; return me + 1; }
    void k(Semaphore sem) {
      semaphore_signal(sem, 2, DeviceId{next(axis_index("x"), axis_size("x"))});
      semaphore_wait(sem, 1);
    })"),
            "over 2/1");
  // No rotation (two devices send to 1, none to the others), or a branch on
  // what the call does not decide: not a bijection, skipped.
  EXPECT_EQ(barrierVerdict(R"(
    int pick(int me) { if (me == 0) return 1; return 0; }
    void k(Semaphore sem) {
      semaphore_signal(sem, 2, DeviceId{pick(axis_index("x"))});
      semaphore_wait(sem, 1);
    })"),
            "none");
  EXPECT_EQ(barrierVerdict(R"(
    int hop(int me, int n, bool far) { if (far) return (me + 2) % n; return (me + 1) % n; }
    void k(Semaphore sem, bool far) {
      semaphore_signal(sem, 2, DeviceId{hop(axis_index("x"), axis_size("x"), far)});
      semaphore_wait(sem, 1);
    })"),
            "none");
}

TEST(Barriers, LoopsCountTheirIterations) {
  auto Loop = [](const std::string &Header, const std::string &Wait) {
    return barrierVerdict("void k(Semaphore sem, int n) {\n"
                   "  for (" + Header + ")\n"
                   "    semaphore_signal(sem, 1, DeviceId{(axis_index(\"x\") + 1) % "
                   "axis_size(\"x\")});\n"
                   "  semaphore_wait(sem, " + Wait + ");\n"
                   "}\n");
  };
  EXPECT_EQ(Loop("int i = 0; i < 3; ++i", "3"), "balanced 3/3");
  EXPECT_EQ(Loop("int i = 0; i <= 3; i++", "3"), "over 4/3");
  EXPECT_EQ(Loop("int i = 3; i > 0; --i", "2"), "over 3/2");
  EXPECT_EQ(Loop("int i = 1; i != 4; i += 1", "3"), "balanced 3/3");
  EXPECT_EQ(Loop("int i = 5; i < 3; ++i", "1"), "under 0/1");
  EXPECT_EQ(Loop("int i = 0; i < n; ++i", "n"), "balanced n/n");
  EXPECT_EQ(Loop("int i = 0; i < n - 1; ++i", "n"), "under n - 1/n");
  EXPECT_EQ(Loop("int i = 1; i < n; ++i", "n"), "under n - 1/n");
  EXPECT_EQ(Loop("int i = 0; i < n; ++i", "2"), "none");
  EXPECT_EQ(Loop("int i = 0; i < 2 * n; ++i", "n"), "over 2 * n/n");
  EXPECT_EQ(Loop("int i = 0; i < axis_size(\"x\") - 1; ++i", "axis_size(\"x\")"),
            "under axis_size(\"x\") - 1/axis_size(\"x\")");
  // Steps other than one, and loops the model cannot count.
  EXPECT_EQ(Loop("int i = 0; i < 4; i += 2", "2"), "none");
  EXPECT_EQ(Loop("int i = 0; i < n; ++i, ++n", "n"), "none");
  EXPECT_EQ(barrierVerdict(R"(
    void k(Semaphore sem, int n) {
      for (int i = 0; i < n; ++i)
        for (int j = 0; j < 2; ++j)
          semaphore_signal(sem);
      semaphore_wait(sem, 2 * n - 1);
    })"),
            "over 2 * n/2 * n - 1");
}

TEST(Barriers, LoopsOverABracedListRunOncePerElement) {
  auto ListLoop = [](const std::string &Header, const std::string &Body,
                     const std::string &Wait) {
    return barrierVerdict("void k(Semaphore sem, int other) {\n"
                          "  const int me = axis_index(\"x\");\n"
                          "  const int n = axis_size(\"x\");\n"
                          "  const int left = (me - 1 + n) % n, right = (me + 1) % n;\n"
                          "  for (" + Header + ") {\n" + Body + "  }\n"
                          "  semaphore_wait(sem, " + Wait + ");\n"
                          "}\n");
  };
  const std::string ToPeer = "    semaphore_signal(sem, 2, DeviceId(peer));\n";
  // Each element a neighbour: the jax a155c5a999 shape, and its fix.
  EXPECT_EQ(ListLoop("int peer : {left, right}", ToPeer, "2"), "over 4/2");
  EXPECT_EQ(ListLoop("const int &peer : {left, right}", ToPeer, "4"), "balanced 4/4");
  EXPECT_EQ(ListLoop("auto peer : {right, left, (me + 2) % n}", ToPeer, "4"), "over 6/4");
  // The body runs once per element, whatever it sends.
  EXPECT_EQ(ListLoop("int k : {0, 1, 2}", "    semaphore_signal(sem);\n", "2"), "over 3/2");
  // An element that is not a bijection, sources of two kinds, a variable
  // the body writes: not judged.
  EXPECT_EQ(ListLoop("int peer : {left, other}", ToPeer, "2"), "none");
  EXPECT_EQ(ListLoop("int peer : {left, me}", ToPeer, "2"), "none");
  EXPECT_EQ(ListLoop("int peer : {left, right}", "    peer = (peer + 1) % n;\n" + ToPeer, "2"),
            "none");
}

TEST(Barriers, LoopsOverEveryDevice) {
  const char *Kernel = R"(
    void k(Semaphore sem) {
      const int me = axis_index("x"), n = axis_size("x");
      for (int d = 0; d < n; ++d) {
        %s
      }
      semaphore_wait(sem, %s);
    })";
  auto With = [&](const char *Body, const char *Wait) {
    char Code[768];
    snprintf(Code, sizeof Code, Kernel, Body, Wait);
    return barrierVerdict(Code);
  };
  EXPECT_EQ(With("semaphore_signal(sem, 1, DeviceId{d});", "n"), "balanced n/n");
  EXPECT_EQ(With("if (d != me) semaphore_signal(sem, 1, DeviceId{d});", "n - 1"),
            "balanced n - 1/n - 1");
  EXPECT_EQ(With("if (d == me) continue; semaphore_signal(sem, 1, DeviceId{d});", "n"),
            "under n - 1/n");
  EXPECT_EQ(With("if (me != d) { semaphore_signal(sem, 2, DeviceId{d}); }", "n - 1"),
            "over 2 * n - 2/n - 1");
  EXPECT_EQ(With("if (d == me) semaphore_signal(sem, 3); else semaphore_signal(sem, 1, "
                 "DeviceId{d});",
                 "n + 2"),
            "balanced n + 2/n + 2");
  // Not every device: a loop from 1, a skip of another device.
  EXPECT_EQ(With("if (d > 0) semaphore_signal(sem, 1, DeviceId{d});", "n"), "none");
  EXPECT_EQ(With("if (d != 0) semaphore_signal(sem, 1, DeviceId{d});", "n"), "none");
  EXPECT_EQ(With("if (d == me) break; semaphore_signal(sem, 1, DeviceId{d});", "n"), "none");
  // Every other device, by a rotation that grows with the loop; skipping
  // the device itself there would skip a different rotation on each device.
  const char *Rotating = R"(
    void k(Semaphore sem) {
      const int me = axis_index("x"), n = axis_size("x");
      for (int i = %s; i < n; ++i)
        %s semaphore_signal(sem, 1, DeviceId{(me + i) %% n});
      semaphore_wait(sem, n);
    })";
  auto Rotate = [&](const char *From, const char *Guard) {
    char Code[512];
    snprintf(Code, sizeof Code, Rotating, From, Guard);
    return barrierVerdict(Code);
  };
  EXPECT_EQ(Rotate("1", ""), "under n - 1/n");
  EXPECT_EQ(Rotate("0", ""), "balanced n/n");
  EXPECT_EQ(Rotate("0", "if (i != me)"), "none");
  EXPECT_EQ(Rotate("-1", ""), "none");
}

TEST(Barriers, SkipsWhatCannotBeCounted) {
  auto Body = [](const std::string &Code) {
    return barrierVerdict("void helper(Semaphore s);\n"
                   "void k(Semaphore sem, int n, bool flag) {\n"
                   "  const int me = axis_index(\"x\");\n"
                   "  const DeviceId right{(me + 1) % axis_size(\"x\")};\n" +
                   Code + "\n}\n");
  };
  // Signals under a condition, in a loop without a count, in a lambda.
  EXPECT_EQ(Body("if (me == 0) semaphore_signal(sem, 2, right);\nsemaphore_wait(sem, 1);"),
            "none");
  EXPECT_EQ(Body("if (flag) semaphore_signal(sem, 2, right);\nsemaphore_wait(sem, 1);"), "none");
  EXPECT_EQ(Body("while (n-- > 0) semaphore_signal(sem, 1, right);\nsemaphore_wait(sem, 1);"),
            "none");
  EXPECT_EQ(Body("auto go = [&] { semaphore_signal(sem, 2, right); };\ngo();\n"
                 "semaphore_wait(sem, 1);"),
            "none");
  // Only signalled, or only waited: a handshake with another function.
  EXPECT_EQ(Body("semaphore_signal(sem, 2, right);"), "none");
  EXPECT_EQ(Body("semaphore_wait(sem, 2);"), "none");
  // Handed to a function that may signal or wait it.
  EXPECT_EQ(Body("semaphore_signal(sem, 2, right);\nhelper(sem);\nsemaphore_wait(sem, 1);"),
            "none");
  // An early exit between the signals and the wait.
  EXPECT_EQ(Body("semaphore_signal(sem, 2, right);\nif (flag) return;\nsemaphore_wait(sem, 1);"),
            "none");
  EXPECT_EQ(Body("for (int i = 0; i < 2; ++i) {\n  if (flag) break;\n"
                 "  semaphore_signal(sem, 1, right);\n}\nsemaphore_wait(sem, 1);"),
            "none");
  EXPECT_EQ(Body("semaphore_signal(sem, 2, right);\nif (flag) goto done;\n"
                 "semaphore_wait(sem, 1);\ndone:;"),
            "none");
  // After the last wait, an exit changes nothing.
  EXPECT_EQ(Body("semaphore_signal(sem, 2, right);\nsemaphore_wait(sem, 1);\nif (flag) return;"),
            "over 2/1");
  // A region inside a branch is counted within it.
  EXPECT_EQ(Body("if (program_id(0) == 0) {\n  semaphore_signal(sem, 2, right);\n"
                 "  semaphore_wait(sem, 1);\n}"),
            "over 2/1");
}

TEST(Barriers, SemaphoresThatMayBeAnotherAreNotJudged) {
  // The caller may signal or wait the semaphore it passes.
  const char *Kernel = R"(
    void k(Semaphore sem) {
      semaphore_signal(sem, 2);
      semaphore_wait(sem, 1);
    })";
  EXPECT_EQ(barrierVerdict(Kernel), "over 2/1");
  EXPECT_EQ(barrierVerdict(Kernel, /*CalledHere=*/true), "none");
  // Two parameters may be one semaphore: a difference the other may cancel
  // is not provable; one it can only add to is.
  EXPECT_EQ(barrierVerdict(R"(
    void k(Semaphore a, Semaphore b) {
      semaphore_signal(a, 2);
      semaphore_wait(a, 1);
      semaphore_wait(b, 1);
    })"),
            "none");
  EXPECT_EQ(barrierVerdict(R"(
    void k(Semaphore a, Semaphore b) {
      semaphore_signal(a, 2);
      semaphore_wait(a, 1);
      semaphore_signal(b, 1);
    })"),
            "over 2/1");
  // Elements of one array with different constant indices are different.
  EXPECT_EQ(barrierVerdict(R"(
    void k(SemaphoreArray<Semaphore> sems) {
      semaphore_signal(sems[0], 2);
      semaphore_wait(sems[0], 1);
      semaphore_wait(sems[1], 1);
      semaphore_signal(sems.at(1));
    })"),
            "over 2/1; balanced 1/1");
  // Elements that may or may not be one: neither is judged.
  EXPECT_EQ(barrierVerdict(R"(
    void k(SemaphoreArray<Semaphore> sems, int i) {
      semaphore_signal(sems[0], 2);
      semaphore_wait(sems[i], 1);
    })"),
            "none");
}

TEST(Barriers, LocalSemaphoreVariablesAreTheirInitialisers) {
  EXPECT_EQ(barrierVerdict(R"(
    void k(SemaphoreArray<Semaphore> sems) {
      Semaphore barrier = sems[0];
      semaphore_signal(barrier, 2);
      semaphore_wait(sems[0], 1);
    })"),
            "over 2/1");
}

TEST(Barriers, SymbolicCounts) {
  dmalint::AtomTable Atoms;
  unsigned N = Atoms.intern("n", "n"), M = Atoms.intern("m", "m");
  using dmalint::SymbolicCount;
  SymbolicCount One = SymbolicCount::constant(1), Two = SymbolicCount::constant(2);
  SymbolicCount NC = SymbolicCount::atom(N), MC = SymbolicCount::atom(M);
  EXPECT_EQ(Atoms.str(NC - One), "n - 1");
  EXPECT_EQ(Atoms.str(Two * NC * MC - NC + One), "2 * n * m - n + 1");
  EXPECT_EQ(Atoms.str(One - NC), "-n + 1");
  EXPECT_EQ(Atoms.str(NC - NC), "0");
  // n - 1 against n differs by one whatever n is; n against 2 is unknown.
  EXPECT_EQ(dmalint::signOf((NC - One) - NC, Atoms), dmalint::CountSign::Negative);
  EXPECT_EQ(dmalint::signOf(NC - Two, Atoms), dmalint::CountSign::Unknown);
  EXPECT_EQ(dmalint::signOf(Two * NC - NC, Atoms), dmalint::CountSign::Unknown);
  // With n >= 1 (an axis size), 2n - n is positive; n * m - 1 needs m too.
  Atoms.boundBelow(N, 1);
  EXPECT_EQ(dmalint::signOf(Two * NC - NC, Atoms), dmalint::CountSign::Positive);
  EXPECT_EQ(dmalint::signOf(NC * MC - One, Atoms), dmalint::CountSign::Unknown);
  Atoms.boundBelow(M, 2);
  EXPECT_EQ(dmalint::signOf(NC * MC - One, Atoms), dmalint::CountSign::Positive);
  EXPECT_EQ(dmalint::signOf(One - NC * MC, Atoms), dmalint::CountSign::Negative);
  EXPECT_EQ(dmalint::signOf(NC - MC, Atoms), dmalint::CountSign::Unknown);
}

} // namespace
