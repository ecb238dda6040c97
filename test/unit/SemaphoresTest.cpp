//===- SemaphoresTest.cpp - Semaphore names and how two relate ------------===//
#include "TestAst.h"
#include "dmalint/Semaphores.h"
#include "clang/AST/ParentMap.h"

using dmalint::test::builtinApi;

using namespace clang;
using namespace clang::ast_matchers;
using dmalint::SemaphoreRelation;

namespace {

/// The `make_async_copy` calls in \p Ctx's function `k`, in source order.
std::vector<const CallExpr *> copiesInOrder(ASTContext &Ctx) {
  auto Copies = match(callExpr(callee(functionDecl(hasName("make_async_copy"))),
                               hasAncestor(functionDecl(hasName("k"))))
                          .bind("c"),
                      Ctx);
  std::vector<const CallExpr *> Calls;
  for (auto &N : Copies)
    Calls.push_back(N.getNodeAs<CallExpr>("c"));
  llvm::sort(Calls, [&](const CallExpr *A, const CallExpr *B) {
    return Ctx.getSourceManager().isBeforeInTranslationUnit(A->getBeginLoc(), B->getBeginLoc());
  });
  return Calls;
}

/// How the semaphores of the first two `make_async_copy` calls of \p Body
/// (inside `k`) relate.
struct Compared {
  std::unique_ptr<ASTUnit> AST;
  std::optional<dmalint::SemaphoreName> First, Second;
  SemaphoreRelation Relation = SemaphoreRelation::Unknown;
};
/// With \p InIteration, compared as evaluated in one iteration of the
/// function's first loop (its run, when it has none) up to the second copy:
/// UnwrittenVariables::steadyUntil.
Compared compare(const std::string &Body, bool InIteration = false) {
  Compared C;
  C.AST = dmalint::test::parseKernel(
      "void k(Ref<float> a, SemaphoreArray<DmaSemaphore> s, SemaphoreArray<DmaSemaphore> t, "
      "DmaSemaphore one, int slot, int n) {\n" +
      Body + "\n}");
  ASTContext &Ctx = C.AST->getASTContext();
  const auto *K = dmalint::test::findOne<FunctionDecl>(*C.AST, functionDecl(hasName("k")));
  std::vector<const CallExpr *> Calls = copiesInOrder(Ctx);
  EXPECT_GE(Calls.size(), 2u);
  if (!K || Calls.size() < 2)
    return C;
  dmalint::UnwrittenVariables Vars(*K, builtinApi());
  C.First = dmalint::semaphoreName(dmalint::copySemaphores(Calls[0], builtinApi()).Receive, Vars);
  C.Second = dmalint::semaphoreName(dmalint::copySemaphores(Calls[1], builtinApi()).Receive, Vars);
  EXPECT_TRUE(C.First && C.Second);
  if (!C.First || !C.Second)
    return C;
  if (!InIteration) {
    C.Relation = dmalint::compareSemaphores(*C.First, *C.Second, Vars, Ctx);
    return C;
  }
  auto Loops = match(
      stmt(anyOf(forStmt(), whileStmt(), doStmt()), hasAncestor(functionDecl(hasName("k"))))
          .bind("l"),
      Ctx);
  const Stmt *Loop = Loops.empty() ? nullptr : Loops.front().getNodeAs<Stmt>("l");
  ParentMap PM(K->getBody());
  C.Relation = dmalint::compareSemaphores(
      *C.First, *C.Second, Vars.steadyUntil(Loop, Calls[1], PM, Ctx.getSourceManager()), Ctx,
      dmalint::Evaluation::SameIteration);
  return C;
}

/// How the semaphores of a copy started and a copy waited after it relate
/// in one iteration of the loop \p Head `{ Start; Wait; End }` (after \p Before).
SemaphoreRelation inIteration(const std::string &Before, const std::string &Head,
                              const std::string &Start, const std::string &Wait,
                              const std::string &End = "") {
  return compare(Before + "\n" + Head + " {\n  make_async_copy(a, a, " + Start +
                     ").start();\n  make_async_copy(a, a, " + Wait + ").wait();\n  " + End +
                     "\n}",
                 /*InIteration=*/true)
      .Relation;
}

SemaphoreRelation relation(const std::string &A, const std::string &B) {
  return compare("make_async_copy(a, a, " + A + ").wait();\nmake_async_copy(a, a, " + B +
                 ").wait();")
      .Relation;
}

TEST(Semaphores, ConstantIndices) {
  EXPECT_EQ(relation("s[0]", "s[0]"), SemaphoreRelation::Same);
  EXPECT_EQ(relation("s[0]", "s[1]"), SemaphoreRelation::Disjoint);
  EXPECT_EQ(relation("s.at(1)", "s[1]"), SemaphoreRelation::Same);
  EXPECT_EQ(relation("s.at(0, 1)", "s.at(0, 2)"), SemaphoreRelation::Disjoint);
  EXPECT_EQ(relation("one", "one"), SemaphoreRelation::Same);
}

TEST(Semaphores, DifferentRootsAreNeitherSameNorDisjoint) {
  EXPECT_EQ(relation("s[0]", "t[0]"), SemaphoreRelation::OtherRoot);
  EXPECT_EQ(relation("s[0]", "one"), SemaphoreRelation::OtherRoot);
}

TEST(Semaphores, TheOtherSlotOfAnInvariantIndex) {
  for (const char *Other : {"s[1 - slot]", "s[slot ^ 1]", "s[1 ^ slot]", "s[(slot + 1) % 2]",
                            "s[slot == 0 ? 1 : 0]", "s[slot + 1]", "s[slot - 3]"})
    EXPECT_EQ(relation("s[slot]", Other), SemaphoreRelation::Disjoint) << Other;
  EXPECT_EQ(relation("s[slot]", "s[slot]"), SemaphoreRelation::Same);
  EXPECT_EQ(relation("s[slot + 1]", "s[1 + slot]"), SemaphoreRelation::Same);
  EXPECT_EQ(relation("s[program_id(0)]", "s[1 - program_id(0)]"), SemaphoreRelation::Disjoint);
  EXPECT_EQ(relation("s.at(0, slot)", "s.at(0, 1 - slot)"), SemaphoreRelation::Disjoint);
}

TEST(Semaphores, CastsThatKeepEveryValueNameTheSameIndex) {
  EXPECT_EQ(relation("s[static_cast<long>(slot)]", "s[1 - slot]"), SemaphoreRelation::Disjoint);
  EXPECT_EQ(relation("s[(long)slot]", "s[slot]"), SemaphoreRelation::Same);
  EXPECT_EQ(relation("s[static_cast<long>(1 - slot)]", "s[static_cast<long>(slot)]"),
            SemaphoreRelation::Disjoint);
  // A narrowing cast may give two indices one value.
  EXPECT_EQ(relation("s[static_cast<signed char>(slot)]", "s[slot + 256]"),
            SemaphoreRelation::Unknown);
  EXPECT_EQ(relation("s[static_cast<signed char>(slot)]", "s[slot]"), SemaphoreRelation::Unknown);
}

TEST(Semaphores, UnrelatedOrChangingIndicesAreUnknown) {
  EXPECT_EQ(relation("s[slot]", "s[n]"), SemaphoreRelation::Unknown);
  EXPECT_EQ(relation("s[slot]", "s[slot * 2]"), SemaphoreRelation::Unknown);
  EXPECT_EQ(relation("s.at(0)", "s.at(0, 0)"), SemaphoreRelation::Unknown);
  // A loop variable changes between the two.
  EXPECT_EQ(compare("for (int i = 0; i < n; ++i) {\n"
                    "  make_async_copy(a, a, s[i]).wait();\n"
                    "  make_async_copy(a, a, s[1 - i]).wait();\n}")
                .Relation,
            SemaphoreRelation::Unknown);
  // So does a constant declared in a loop, from one iteration to the next.
  EXPECT_EQ(compare("for (int i = 0; i < n; ++i) {\n  const int j = i % 2;\n"
                    "  make_async_copy(a, a, s[j]).wait();\n"
                    "  make_async_copy(a, a, s[1 - j]).wait();\n}")
                .Relation,
            SemaphoreRelation::Unknown);
  // A parameter the function writes.
  EXPECT_EQ(compare("make_async_copy(a, a, s[slot]).wait();\nslot += 1;\n"
                    "make_async_copy(a, a, s[1 - slot]).wait();")
                .Relation,
            SemaphoreRelation::Unknown);
}

TEST(Semaphores, RemaindersOfOneModulus) {
  EXPECT_EQ(relation("s[slot % 2]", "s[(slot + 1) % 2]"), SemaphoreRelation::Disjoint);
  EXPECT_EQ(relation("s[(slot + 1) % 3]", "s[(slot + 2) % 3]"), SemaphoreRelation::Disjoint);
  EXPECT_EQ(relation("s[(slot + 1) % 2]", "s[(1 + slot) % 2]"), SemaphoreRelation::Same);
  // A multiple of the modulus apart: equal for values of one sign only.
  EXPECT_EQ(relation("s[slot % 2]", "s[(slot + 2) % 2]"), SemaphoreRelation::Unknown);
  EXPECT_EQ(relation("s[slot % 2]", "s[(slot + 1) % 3]"), SemaphoreRelation::Unknown);
  EXPECT_EQ(relation("s[slot % 2]", "s[(n + 1) % 2]"), SemaphoreRelation::Unknown);
}

TEST(Semaphores, AnIndexComputedInALambdaCalledInPlaceIsItsFormulaOfTheArgument) {
  // `s % 2` of `[&](int s) { ... }(slot + 1)` is `(slot + 1) % 2`.
  EXPECT_EQ(compare("[&](int x) { make_async_copy(a, a, s[x % 2]).wait(); }(slot + 1);\n"
                    "make_async_copy(a, a, s[slot % 2]).wait();")
                .Relation,
            SemaphoreRelation::Disjoint);
  EXPECT_EQ(compare("[&](int x) { make_async_copy(a, a, s[1 - x]).wait(); }(slot);\n"
                    "make_async_copy(a, a, s[1 - slot]).wait();")
                .Relation,
            SemaphoreRelation::Same);
  // The lambda writes its parameter, or the argument changes.
  EXPECT_EQ(compare("[&](int x) { x += 0; make_async_copy(a, a, s[x % 2]).wait(); }(slot + 1);\n"
                    "make_async_copy(a, a, s[slot % 2]).wait();")
                .Relation,
            SemaphoreRelation::Unknown);
  EXPECT_EQ(compare("[&](int x) { make_async_copy(a, a, s[x % 2]).wait(); }(n++);\n"
                    "make_async_copy(a, a, s[(n + 1) % 2]).wait();")
                .Relation,
            SemaphoreRelation::Unknown);
}

TEST(Semaphores, VariablesALoopAssignsAfterTheWaitKeepTheirValueUpToIt) {
  const std::string For = "for (int i = 0; i < n; ++i)";
  // The counter, incremented after the body; a slot carried to the next
  // iteration at the body's end, or in the loop's header.
  EXPECT_EQ(inIteration("", For, "s[(i + 1) % 2]", "s[i % 2]"), SemaphoreRelation::Disjoint);
  EXPECT_EQ(inIteration("", For, "s[i + 1]", "s[i]"), SemaphoreRelation::Disjoint);
  EXPECT_EQ(inIteration("", For, "s[i]", "s[i]"), SemaphoreRelation::Same);
  EXPECT_EQ(inIteration("int c = 0;", For, "s[1 - c]", "s[c]", "c = 1 - c;"),
            SemaphoreRelation::Disjoint);
  EXPECT_EQ(inIteration("", "for (int c = 0; c < n; c = 1 - c)", "s[1 - c]", "s[c]"),
            SemaphoreRelation::Disjoint);
  EXPECT_EQ(inIteration("int c;", "while ((c = n) > 0)", "s[1 - c]", "s[c]", "--n;"),
            SemaphoreRelation::Disjoint);
  EXPECT_EQ(inIteration("", "for (int i = 0; i < n; ++i)", "s[1 - slot]", "s[slot]", "slot ^= 1;"),
            SemaphoreRelation::Disjoint);
  // Through a local of the iteration that stands for its initialiser.
  EXPECT_EQ(compare("int c = 0;\nfor (int i = 0; i < n; ++i) {\n  const int o = 1 - c;\n"
                    "  make_async_copy(a, a, s[o]).start();\n"
                    "  make_async_copy(a, a, s[c]).wait();\n  c = o;\n}",
                    /*InIteration=*/true)
                .Relation,
            SemaphoreRelation::Disjoint);
  // Not when the assignment is in the statement that holds the wait.
  EXPECT_EQ(compare("int c = 0;\nfor (int i = 0; i < n; ++i) {\n"
                    "  make_async_copy(a, a, s[1 - c]).start();\n"
                    "  { make_async_copy(a, a, s[c]).wait(); c = 1 - c; }\n}",
                    /*InIteration=*/true)
                .Relation,
            SemaphoreRelation::Unknown);
}

TEST(Semaphores, VariablesALoopAssignsBeforeTheWaitAreUnknown) {
  const std::string For = "for (int i = 0; i < n; ++i)";
  // Assigned before the start, between the two, in a lambda, through a
  // pointer; a local initialised before the loop from one.
  EXPECT_EQ(inIteration("int c = 0;", For + " { c = 1 - c;", "s[1 - c]", "s[c]", "}"),
            SemaphoreRelation::Unknown);
  EXPECT_EQ(compare("int c = 0;\nfor (int i = 0; i < n; ++i) {\n"
                    "  make_async_copy(a, a, s[1 - c]).start();\n  c = 1 - c;\n"
                    "  make_async_copy(a, a, s[c]).wait();\n}",
                    /*InIteration=*/true)
                .Relation,
            SemaphoreRelation::Unknown);
  EXPECT_EQ(inIteration("int c = 0; auto flip = [&] { c = 1 - c; };", For, "s[1 - c]", "s[c]",
                        "flip();"),
            SemaphoreRelation::Unknown);
  EXPECT_EQ(inIteration("int c = 0; int *p = &c;", For, "s[1 - c]", "s[c]", "*p = 1 - c;"),
            SemaphoreRelation::Unknown);
  EXPECT_EQ(inIteration("int c = 0; const int o = 1 - c;", For, "s[o]", "s[c]", "c = 1 - c;"),
            SemaphoreRelation::Unknown);
  // A goto may run the code before the wait again after the assignment.
  EXPECT_EQ(compare("int c = 0;\nagain:\n  make_async_copy(a, a, s[1 - c]).start();\n"
                    "  make_async_copy(a, a, s[c]).wait();\n  c = 1 - c;\n  goto again;",
                    /*InIteration=*/true)
                .Relation,
            SemaphoreRelation::Unknown);
  // Without the iteration's view, an assigned variable is unknown anywhere.
  EXPECT_EQ(compare("for (int i = 0; i < n; ++i) {\n  make_async_copy(a, a, s[i + 1]).start();\n"
                    "  make_async_copy(a, a, s[i]).wait();\n}")
                .Relation,
            SemaphoreRelation::Unknown);
}

TEST(Semaphores, IntegerLocalsStandForWhatInitialisedThem) {
  // jnp.where(buffer_index == 0, 1, 0) kept in a variable, as kernels write it.
  EXPECT_EQ(compare("const int next = slot == 0 ? 1 : 0;\n"
                    "make_async_copy(a, a, s[slot]).wait();\n"
                    "make_async_copy(a, a, s[next]).wait();")
                .Relation,
            SemaphoreRelation::Disjoint);
  EXPECT_EQ(compare("int step = program_id(0);\nint cur = step % 2;\nint other = 1 - cur;\n"
                    "make_async_copy(a, a, s[cur]).wait();\n"
                    "make_async_copy(a, a, s[other]).wait();")
                .Relation,
            SemaphoreRelation::Disjoint);
  // A copy of a variable written later keeps the value it copied: a name of
  // its own, not the variable.
  EXPECT_EQ(compare("int cur = n;\nn += 1;\n"
                    "make_async_copy(a, a, s[cur]).wait();\n"
                    "make_async_copy(a, a, s[1 - n]).wait();")
                .Relation,
            SemaphoreRelation::Unknown);
  EXPECT_EQ(compare("int cur = n;\nn += 1;\nconst int other = 1 - cur;\n"
                    "make_async_copy(a, a, s[cur]).wait();\n"
                    "make_async_copy(a, a, s[other]).wait();")
                .Relation,
            SemaphoreRelation::Disjoint);
}

TEST(Semaphores, LocalSemaphoreVariablesNameWhatInitialisedThem) {
  Compared C = compare("DmaSemaphore x = s[0];\nconst auto &y = s;\n"
                       "make_async_copy(a, a, x).wait();\nmake_async_copy(a, a, y[0]).wait();");
  EXPECT_EQ(C.Relation, SemaphoreRelation::Same);
  // One that is assigned is a root of its own.
  C = compare("DmaSemaphore x = s[0];\nx = s[1];\n"
              "make_async_copy(a, a, x).wait();\nmake_async_copy(a, a, s[0]).wait();");
  EXPECT_EQ(C.Relation, SemaphoreRelation::OtherRoot);
  ASSERT_TRUE(C.First);
  EXPECT_EQ(C.First->Root->getName(), "x");
}

TEST(Semaphores, ADefaultConstructedLocalIsItsOwnRootMadeHere) {
  for (const char *Made : {"DmaSemaphore x;", "DmaSemaphore x{};", "DmaSemaphore x = DmaSemaphore();"}) {
    Compared C = compare(std::string(Made) +
                         "\nmake_async_copy(a, a, x).wait();\nmake_async_copy(a, a, x).wait();");
    EXPECT_EQ(C.Relation, SemaphoreRelation::Same) << Made;
    ASSERT_TRUE(C.First) << Made;
    EXPECT_EQ(C.First->Root->getName(), "x") << Made;
    const auto *K = dmalint::test::findOne<FunctionDecl>(*C.AST, functionDecl(hasName("k")));
    dmalint::UnwrittenVariables Vars(*K, builtinApi());
    EXPECT_TRUE(dmalint::madeHere(C.First->Root, Vars)) << Made;
  }
  // A copy of another semaphore, or a parameter, is not made here.
  Compared C = compare("DmaSemaphore x = one; x = s[0];\n"
                       "make_async_copy(a, a, x).wait();\nmake_async_copy(a, a, one).wait();");
  ASSERT_TRUE(C.First && C.Second);
  const auto *K = dmalint::test::findOne<FunctionDecl>(*C.AST, functionDecl(hasName("k")));
  dmalint::UnwrittenVariables Vars(*K, builtinApi());
  EXPECT_FALSE(dmalint::madeHere(C.First->Root, Vars));
  EXPECT_FALSE(dmalint::madeHere(C.Second->Root, Vars));
}

TEST(Semaphores, OneMadeInALoopsBodyHasNoName) {
  auto AST = dmalint::test::parseKernel(
      "void k(Ref<float> a, int n) {\n"
      "  for (int i = 0; i < n; ++i) { DmaSemaphore x; make_async_copy(a, a, x).wait(); }\n"
      "}");
  const auto *K = dmalint::test::findOne<FunctionDecl>(*AST, functionDecl(hasName("k")));
  const auto *Copy = dmalint::test::findOne<CallExpr>(
      *AST, callExpr(callee(functionDecl(hasName("make_async_copy")))));
  ASSERT_TRUE(K && Copy);
  dmalint::UnwrittenVariables Vars(*K, builtinApi());
  EXPECT_FALSE(dmalint::semaphoreName(dmalint::copySemaphores(Copy, builtinApi()).Receive, Vars));
}

TEST(Semaphores, AVariableReadBareInABracedListIsUnwritten) {
  // The walk sees the list as written, where `y` has no load of its own.
  auto AST = dmalint::test::parseKernel("void k(int p) {\n"
                                        "  int x = axis_index(\"x\"), y = p;\n"
                                        "  DeviceId id{x, y};\n"
                                        "  int z = 0; int *w = &z;\n"
                                        "}");
  const auto *K = dmalint::test::findOne<FunctionDecl>(*AST, functionDecl(hasName("k")));
  ASSERT_TRUE(K);
  dmalint::UnwrittenVariables Vars(*K, builtinApi());
  auto Var = [&](const char *Name) {
    return dmalint::test::findOne<VarDecl>(*AST, varDecl(hasName(Name)));
  };
  EXPECT_TRUE(Vars.unwritten(Var("x")));
  EXPECT_TRUE(Vars.unwritten(Var("y")));
  EXPECT_FALSE(Vars.unwritten(Var("z"))); // Its address is taken.
}

TEST(Semaphores, CopySemaphoresFollowTheModelsPositions) {
  auto AST = dmalint::test::parseKernel(
      "void k(Ref<float> a, DmaSemaphore r, DmaSemaphore snd, int p) {\n"
      "  AsyncCopyDescriptor general(a, a, r, snd, DeviceId(p));\n"
      "  AsyncCopyDescriptor local(a, a, r);\n"
      "  make_async_remote_copy(a, a, snd, r, DeviceId(p)).start();\n}");
  dmalint::UnwrittenVariables Vars(
      *dmalint::test::findOne<FunctionDecl>(*AST, functionDecl(hasName("k"))), builtinApi());
  auto Name = [&](const Expr *E) {
    std::optional<dmalint::SemaphoreName> N = E ? dmalint::semaphoreName(E, Vars) : std::nullopt;
    return N && N->Indices.empty() ? N->Root->getName().str() : std::string("(other)");
  };
  const auto *General = dmalint::test::findOne<CXXConstructExpr>(
      *AST, cxxConstructExpr(argumentCountIs(6), hasAncestor(varDecl(hasName("general")))));
  ASSERT_TRUE(General);
  dmalint::CopySemaphores G = dmalint::copySemaphores(General, builtinApi());
  EXPECT_EQ(Name(G.Receive), "r");
  // Inside the std::optional it is passed as.
  EXPECT_EQ(Name(G.Send), "snd");
  const auto *Local = dmalint::test::findOne<CXXConstructExpr>(
      *AST, cxxConstructExpr(argumentCountIs(6), hasAncestor(varDecl(hasName("local")))));
  ASSERT_TRUE(Local);
  EXPECT_EQ(dmalint::copySemaphores(Local, builtinApi()).Send, nullptr); // Not engaged: local.
  const auto *Remote = dmalint::test::findOne<CallExpr>(
      *AST, callExpr(callee(functionDecl(hasName("make_async_remote_copy")))));
  ASSERT_TRUE(Remote);
  dmalint::CopySemaphores R = dmalint::copySemaphores(Remote, builtinApi());
  EXPECT_EQ(Name(R.Send), "snd");
  EXPECT_EQ(Name(R.Receive), "r");
}


/// The semaphore names of the `make_async_copy` calls of \p Code's function
/// `k`, in order (nullopt where a copy's semaphore has none).
std::vector<std::optional<dmalint::SemaphoreName>> copyNames(const std::string &Code,
                                                             std::unique_ptr<ASTUnit> &AST) {
  AST = dmalint::test::parseKernel(Code);
  const auto *K = dmalint::test::findOne<FunctionDecl>(*AST, functionDecl(hasName("k")));
  EXPECT_TRUE(K);
  std::vector<std::optional<dmalint::SemaphoreName>> Out;
  if (!K)
    return Out;
  dmalint::UnwrittenVariables Vars(*K, builtinApi());
  for (const CallExpr *Call : copiesInOrder(AST->getASTContext()))
    Out.push_back(
        dmalint::semaphoreName(dmalint::copySemaphores(Call, builtinApi()).Receive, Vars));
  return Out;
}

TEST(Semaphores, AnArrayOfCopiesNamesNoSemaphoreOfItsOwn) {
  // `DmaSemaphore ss[2] = {send[0], send[1]};`: its elements are send's,
  // so it is no root; one made fresh (`DmaSemaphore fresh[2];`) is.
  std::unique_ptr<ASTUnit> AST;
  auto Names = copyNames("void k(Ref<float> a, SemaphoreArray<DmaSemaphore> send) {\n"
                         "  DmaSemaphore ss[2] = {send[0], send[1]};\n"
                         "  DmaSemaphore fresh[2];\n"
                         "  make_async_copy(a, a, ss[1]).wait();\n"
                         "  make_async_copy(a, a, fresh[1]).wait();\n}",
                         AST);
  ASSERT_EQ(Names.size(), 2u);
  EXPECT_FALSE(Names[0]);
  ASSERT_TRUE(Names[1]);
  EXPECT_EQ(Names[1]->Root->getName(), "fresh");
}

TEST(Semaphores, AMemberOfOneVariableIsARoot) {
  const std::string Struct = "struct S { Ref<float> a; DmaSemaphore sem, other; "
                             "SemaphoreArray<DmaSemaphore> sems; };\n";
  std::unique_ptr<ASTUnit> AST;
  // Reached through one parameter: the member is the root; its other
  // members are other roots; indices compare as usual.
  auto Names = copyNames(Struct + "void k(const S &s, int slot) {\n"
                                  "  make_async_copy(s.a, s.a, s.sem).wait();\n"
                                  "  make_async_copy(s.a, s.a, s.sem).wait();\n"
                                  "  make_async_copy(s.a, s.a, s.other).wait();\n"
                                  "  make_async_copy(s.a, s.a, s.sems[slot]).wait();\n"
                                  "  make_async_copy(s.a, s.a, s.sems[1 - slot]).wait();\n}",
                         AST);
  ASSERT_EQ(Names.size(), 5u);
  for (const auto &N : Names)
    ASSERT_TRUE(N);
  ASTContext &Ctx = AST->getASTContext();
  const auto *K = dmalint::test::findOne<FunctionDecl>(*AST, functionDecl(hasName("k")));
  dmalint::UnwrittenVariables Vars(*K, builtinApi());
  EXPECT_EQ(Names[0]->Root->getName(), "sem");
  EXPECT_EQ(dmalint::compareSemaphores(*Names[0], *Names[1], Vars, Ctx), SemaphoreRelation::Same);
  EXPECT_EQ(dmalint::compareSemaphores(*Names[0], *Names[2], Vars, Ctx),
            SemaphoreRelation::OtherRoot);
  EXPECT_EQ(dmalint::compareSemaphores(*Names[3], *Names[4], Vars, Ctx),
            SemaphoreRelation::Disjoint);

  // Reached through two objects, through an expression, or written: no name
  // (two objects' members would be one root).
  Names = copyNames(Struct + "void k(const S &x, const S &y) {\n"
                             "  make_async_copy(x.a, x.a, x.sem).wait();\n"
                             "  make_async_copy(y.a, y.a, y.sem).wait();\n}",
                    AST);
  ASSERT_EQ(Names.size(), 2u);
  EXPECT_FALSE(Names[0]);
  EXPECT_FALSE(Names[1]);
  Names = copyNames(Struct + "void k(const S *all) {\n"
                             "  make_async_copy(all[0].a, all[0].a, all[0].sem).wait();\n}",
                    AST);
  ASSERT_EQ(Names.size(), 1u);
  EXPECT_FALSE(Names[0]);
  Names = copyNames(Struct + "void k(S s, DmaSemaphore spare) {\n"
                             "  s.sem = spare;\n"
                             "  make_async_copy(s.a, s.a, s.sem).wait();\n}",
                    AST);
  ASSERT_EQ(Names.size(), 1u);
  EXPECT_FALSE(Names[0]);
}

TEST(Semaphores, AMemberOfALocalStructNamesWhatInitialisedIt) {
  const std::string Struct = "struct S { Ref<float> a; DmaSemaphore sem; };\nS make();\n";
  std::unique_ptr<ASTUnit> AST;
  // Braced from a parameter: the parameter's name.
  auto Names = copyNames(Struct + "void k(Ref<float> a, DmaSemaphore p) {\n"
                                  "  const S s{a, p};\n"
                                  "  make_async_copy(s.a, s.a, s.sem).wait();\n}",
                         AST);
  ASSERT_EQ(Names.size(), 1u);
  ASSERT_TRUE(Names[0]);
  EXPECT_EQ(Names[0]->Root->getName(), "p");
  // Its semaphore default-constructed: the member, made here.
  Names = copyNames(Struct + "void k(Ref<float> a) {\n"
                             "  S s{a};\n"
                             "  make_async_copy(s.a, s.a, s.sem).wait();\n}",
                    AST);
  ASSERT_EQ(Names.size(), 1u);
  ASSERT_TRUE(Names[0]);
  EXPECT_EQ(Names[0]->Root->getName(), "sem");
  // A call's result, a copy of another struct, or one assigned: no name.
  for (const char *Made : {"const S s = make();", "S t{a, p}; const S s = t;",
                           "S s{a, p}; s = make();"}) {
    Names = copyNames(Struct + "void k(Ref<float> a, DmaSemaphore p) {\n  " + Made +
                          "\n  make_async_copy(s.a, s.a, s.sem).wait();\n}",
                      AST);
    ASSERT_EQ(Names.size(), 1u) << Made;
    EXPECT_FALSE(Names[0]) << Made;
  }
  // A member of a member of a struct of structs made with nested braces:
  // what initialised it; its inner struct built by a temporary: no name.
  const std::string Nested = Struct + "struct T { S inner; };\n";
  Names = copyNames(Nested + "void k(Ref<float> a, DmaSemaphore p) {\n"
                             "  const T t{{a, p}};\n"
                             "  make_async_copy(t.inner.a, t.inner.a, t.inner.sem).wait();\n}",
                    AST);
  ASSERT_EQ(Names.size(), 1u);
  ASSERT_TRUE(Names[0]);
  EXPECT_EQ(Names[0]->Root->getName(), "p");
  Names = copyNames(Nested + "void k(Ref<float> a, DmaSemaphore p) {\n"
                             "  const T t{S{a, p}};\n"
                             "  make_async_copy(t.inner.a, t.inner.a, t.inner.sem).wait();\n}",
                    AST);
  ASSERT_EQ(Names.size(), 1u);
  EXPECT_FALSE(Names[0]);
}

} // namespace

TEST(Semaphores, AMemberOfAMemberIsHeldByTheParameterOnlyAlongOnePath) {
  auto AST = dmalint::test::parseKernel(
      "struct Slot { Ref<float> buf; DmaSemaphore sem; };\n"
      "struct Stages { Slot kv, q; };\n"
      "struct Other { Slot kv; };\n"
      "void use(const Slot &s);\n"
      "void k(const Stages &p, const Stages &r, const Other &o) {\n"
      "  make_async_copy(p.kv.buf, p.kv.buf, p.kv.sem).wait();\n"
      "  make_async_copy(r.q.buf, r.q.buf, r.q.sem).wait();\n"
      "  use(o.kv);\n"
      "}");
  const auto *K = dmalint::test::findOne<FunctionDecl>(*AST, functionDecl(hasName("k")));
  ASSERT_TRUE(K);
  dmalint::UnwrittenVariables Vars(*K, builtinApi());
  auto Field = [&](const char *Record, const char *Name) {
    return dmalint::test::findOne<FieldDecl>(
        *AST, fieldDecl(hasName(Name), hasParent(cxxRecordDecl(hasName(Record)))));
  };
  auto Param = [&](const char *Name) {
    return dmalint::test::findOne<ParmVarDecl>(*AST, parmVarDecl(hasName(Name)));
  };
  // Slot::sem is reached through Stages::kv (p.kv.sem) and Stages::q
  // (r.q.sem): two objects, no holder.
  EXPECT_EQ(Vars.fieldBase(Field("Slot", "sem")), nullptr);
  EXPECT_EQ(Vars.holdingVariable(Field("Slot", "sem")), nullptr);
  // Stages::kv only through p, only to read a member of it.
  EXPECT_EQ(Vars.fieldBase(Field("Stages", "kv")), Param("p"));
  EXPECT_FALSE(Vars.mentionedWhole(Field("Stages", "kv")));
  EXPECT_TRUE(Vars.readThroughMembers(Param("p")));
  // Other::kv is handed whole to use().
  EXPECT_TRUE(Vars.mentionedWhole(Field("Other", "kv")));
}

TEST(Semaphores, AMemberOfAMemberOfAParameterIsNamed) {
  auto AST = dmalint::test::parseKernel(
      "struct Slot { Ref<float> buf; DmaSemaphore sem; };\n"
      "struct Stages { Slot kv, q; };\n"
      "void k(const Stages &p, int slot) {\n"
      "  make_async_copy(p.kv.buf, p.kv.buf.at(slot), p.kv.sem).wait();\n"
      "  make_async_copy(p.kv.buf, p.kv.buf.at(1 - slot), p.kv.sem).wait();\n"
      "}");
  ASTContext &Ctx = AST->getASTContext();
  const auto *K = dmalint::test::findOne<FunctionDecl>(*AST, functionDecl(hasName("k")));
  std::vector<const CallExpr *> Calls = copiesInOrder(Ctx);
  ASSERT_TRUE(K);
  ASSERT_EQ(Calls.size(), 2u);
  dmalint::UnwrittenVariables Vars(*K, builtinApi());
  std::optional<dmalint::SemaphoreName> A =
      dmalint::semaphoreName(dmalint::copySemaphores(Calls[0], builtinApi()).Receive, Vars);
  std::optional<dmalint::SemaphoreName> B =
      dmalint::semaphoreName(dmalint::copySemaphores(Calls[1], builtinApi()).Receive, Vars);
  ASSERT_TRUE(A && B);
  EXPECT_EQ(A->Root, dmalint::test::findOne<FieldDecl>(*AST, fieldDecl(hasName("sem"))));
  EXPECT_EQ(dmalint::compareSemaphores(*A, *B, Vars, Ctx), SemaphoreRelation::Same);
  EXPECT_EQ(Vars.holdingVariable(cast<FieldDecl>(A->Root)),
            dmalint::test::findOne<ParmVarDecl>(*AST, parmVarDecl(hasName("p"))));
}

TEST(Semaphores, AMemberOfAMemberOfThisIsNamed) {
  // `kv_.sem` in a member function: named by the inner member, reached
  // through `kv_`; not where the function hands `kv_` on whole.
  auto AST = dmalint::test::parseKernel(
      "struct Slot { Ref<float> buf; DmaSemaphore sem; };\n"
      "void use(const Slot &s);\n"
      "class K {\n"
      "  Slot kv_;\n"
      "  void k(int slot) {\n"
      "    make_async_copy(kv_.buf, kv_.buf.at(slot), kv_.sem).wait();\n"
      "    make_async_copy(kv_.buf, kv_.buf.at(1 - slot), kv_.sem).wait();\n"
      "  }\n"
      "  void handed(int slot) {\n"
      "    use(kv_);\n"
      "    make_async_copy(kv_.buf, kv_.buf.at(slot), kv_.sem).wait();\n"
      "  }\n"
      "};");
  ASTContext &Ctx = AST->getASTContext();
  const auto *K = dmalint::test::findOne<FunctionDecl>(*AST, functionDecl(hasName("k")));
  const auto *Handed = dmalint::test::findOne<FunctionDecl>(*AST, functionDecl(hasName("handed")));
  const auto *Sem = dmalint::test::findOne<FieldDecl>(*AST, fieldDecl(hasName("sem")));
  const auto *Kv = dmalint::test::findOne<FieldDecl>(*AST, fieldDecl(hasName("kv_")));
  std::vector<const CallExpr *> Calls = copiesInOrder(Ctx);
  const auto *HandedCopy = dmalint::test::findOne<CallExpr>(
      *AST, callExpr(callee(functionDecl(hasName("make_async_copy"))),
                     hasAncestor(functionDecl(hasName("handed")))));
  ASSERT_TRUE(K && Handed && Sem && Kv && HandedCopy);
  ASSERT_EQ(Calls.size(), 2u);
  dmalint::UnwrittenVariables Vars(*K, builtinApi());
  std::optional<dmalint::SemaphoreName> A =
      dmalint::semaphoreName(dmalint::copySemaphores(Calls[0], builtinApi()).Receive, Vars);
  std::optional<dmalint::SemaphoreName> B =
      dmalint::semaphoreName(dmalint::copySemaphores(Calls[1], builtinApi()).Receive, Vars);
  ASSERT_TRUE(A && B);
  EXPECT_EQ(A->Root, Sem);
  EXPECT_EQ(dmalint::compareSemaphores(*A, *B, Vars, Ctx), SemaphoreRelation::Same);
  EXPECT_EQ(Vars.thisMemberHolding(Sem), Kv);
  EXPECT_EQ(Vars.holdingVariable(Sem), nullptr);

  dmalint::UnwrittenVariables HandedVars(*Handed, builtinApi());
  EXPECT_EQ(HandedVars.thisMemberHolding(Sem), nullptr);
  EXPECT_FALSE(dmalint::semaphoreName(dmalint::copySemaphores(HandedCopy, builtinApi()).Receive,
                                      HandedVars));
}

TEST(Semaphores, BuiltValueIsTheInitialiserAVariableOrAMemberKeeps) {
  auto AST = dmalint::test::parseKernel(
      // One struct type per variable: a member is followed only where the
      // function reaches it through one object (fieldBase).
      "struct Flags { bool remote; int depth; };\n"
      "struct Slot { AsyncCopyDescriptor copy; Flags flags; };\n"
      "struct Written { bool remote; int depth; };\n"
      "struct Handed { bool remote; int depth; };\n"
      "void update(Handed &h);\n"
      "void k(Ref<float> a, DmaSemaphore r, bool far, bool other) {\n"
      "  bool kept = far;\n"
      "  bool changed = far; changed = other;\n"
      "  Slot s{make_async_copy(a, a, r), {far, 2}};\n"
      "  s.copy.start();\n"
      "  Written written{far, 1}; written.remote = other;\n"
      "  Handed handed{far, 1}; update(handed);\n"
      "  bool uses = kept && changed && s.flags.remote && s.flags.depth > 0 &&\n"
      "              written.remote && handed.remote && written.depth > 0;\n"
      "}");
  const auto *K = dmalint::test::findOne<FunctionDecl>(*AST, functionDecl(hasName("k")));
  ASSERT_TRUE(K);
  dmalint::UnwrittenVariables Vars(*K, builtinApi());
  auto InUses = hasAncestor(varDecl(hasName("uses")));
  auto Variable = [&](const char *Name) {
    return dmalint::test::findOne<DeclRefExpr>(
        *AST, declRefExpr(to(varDecl(hasName(Name))), InUses, unless(hasParent(memberExpr()))));
  };
  auto Member = [&](const char *Object, const char *Field) {
    return dmalint::test::findOne<MemberExpr>(
        *AST, memberExpr(member(hasName(Field)), InUses,
                         hasObjectExpression(anyOf(
                             ignoringImpCasts(declRefExpr(to(varDecl(hasName(Object))))),
                             memberExpr(member(hasName(Object)))))));
  };
  auto Names = [](const Expr *E, const char *Name) {
    const auto *DRE = E ? dyn_cast<DeclRefExpr>(E->IgnoreParenImpCasts()) : nullptr;
    return DRE && DRE->getDecl()->getName() == Name;
  };
  // A bool that keeps its initialiser, and members of a struct only read
  // (the copy's own member functions do not write its flags).
  EXPECT_TRUE(Names(Vars.builtValue(Variable("kept")), "far"));
  EXPECT_TRUE(Names(Vars.builtValue(Member("flags", "remote")), "far"));
  const Expr *Depth = Vars.builtValue(Member("flags", "depth"));
  ASSERT_TRUE(Depth);
  EXPECT_TRUE(isa<IntegerLiteral>(Depth->IgnoreParenImpCasts()));
  // Assigned after the initialiser, or handed whole to a function that may
  // write it: none. A member not assigned keeps its element even when another
  // member of its variable is.
  EXPECT_FALSE(Vars.builtValue(Variable("changed")));
  EXPECT_FALSE(Vars.builtValue(Member("written", "remote")));
  EXPECT_FALSE(Vars.builtValue(Member("handed", "remote")));
  const Expr *WrittenDepth = Vars.builtValue(Member("written", "depth"));
  ASSERT_TRUE(WrittenDepth);
  EXPECT_TRUE(isa<IntegerLiteral>(WrittenDepth->IgnoreParenImpCasts()));
}
