//===- TransferTest.cpp - One C++ construct at a time through the analysis ===//
//
// Each test is a transfer function of the analysis (lib/Transfer.cpp,
// Memory.cpp, Calls.cpp, DescriptorModel.cpp, Conditions.cpp) seen from the
// queries the checks ask: which copies reach a wait_send, which are unused,
// whether a receive wait follows, what is in flight.
//
//===----------------------------------------------------------------------===//
#include "TestAst.h"
#include "dmalint/AnalysisCache.h"
#include "dmalint/DescriptorAnalysis.h"
#include "clang/ASTMatchers/ASTMatchers.h"

using dmalint::test::builtinApi;
using namespace clang;
using namespace clang::ast_matchers;

namespace {

/// The analysis of function `k` (with the summaries of the others).
struct Analysed {
  std::unique_ptr<ASTUnit> AST;
  dmalint::AnalysisCache Cache;
  const dmalint::FunctionAnalysis *A = nullptr;

  explicit Analysed(const std::string &Code, const std::string &Name = "k") {
    AST = dmalint::test::parseKernel(Code);
    const auto *FD = dmalint::test::findOne<FunctionDecl>(
        *AST, functionDecl(hasName(Name), isDefinition()));
    A = &Cache.analysis(*FD, AST->getASTContext(), builtinApi(), Limits);
  }
  /// The wait_send number \p I: "definite", "maybe" or "clean".
  std::string waitSend(size_t I) const {
    if (I >= A->WaitSends.size())
      return "not reached";
    dmalint::KindVerdict V = A->localOriginsAt(A->WaitSends[I]);
    return V.Origins.empty() ? "clean" : V.All ? "definite" : "maybe";
  }
  size_t unused() const { return A->unusedConstructions().size(); }
  dmalint::AnalysisLimits Limits;
};

const char *Prelude = R"(
#include <array>
#include <memory>
#include <optional>
#include <tuple>
#include <utility>
#include <variant>
struct Half { AsyncCopyDescriptor stage; AsyncCopyDescriptor send; };
#define L make_async_copy(a, b, s)
#define R make_async_remote_copy(a, b, s, r, DeviceId(1))
)";
const char *KernelParams =
    "(Ref<float> a, Ref<float> b, DmaSemaphore s, DmaSemaphore r, bool c, int i)";

std::string kernel(const std::string &Body) {
  return std::string(Prelude) + "void k" + KernelParams + " {\n" + Body + "\n}\n";
}

// --------------------------------------------------------- initialisation ---

TEST(Transfer, AggregateInitialisationKeepsFieldsApart) {
  Analysed X(kernel("Half h{L, R}; h.send.wait_send(); h.stage.wait_send();"));
  EXPECT_EQ(X.waitSend(0), "clean");
  EXPECT_EQ(X.waitSend(1), "definite");
}

TEST(Transfer, ArrayOfStructsByConstantIndexAndByAnyIndex) {
  Analysed X(kernel("Half hs[2] = {{L, R}, {R, R}}; hs[1].stage.wait_send();"
                    " hs[i].stage.wait_send(); for (Half &h : hs) h.send.wait_send();"));
  EXPECT_EQ(X.waitSend(0), "clean");
  EXPECT_EQ(X.waitSend(1), "maybe");
  EXPECT_EQ(X.waitSend(2), "clean");
}

TEST(Transfer, StdArrayOfStdArrays) {
  Analysed X(kernel("std::array<std::array<AsyncCopyDescriptor, 2>, 2> g{{{R, R}, {R, L}}};"
                    " g[0][1].wait_send(); g[1][1].wait_send();"));
  EXPECT_EQ(X.waitSend(0), "clean");
  EXPECT_EQ(X.waitSend(1), "definite");
}

TEST(Transfer, ConstantTernaryIsFolded) {
  Analysed X(kernel("auto d = 1 ? R : L; if (1) d.wait_send(); auto e = false ? R : L;"
                    " e.wait_send();"));
  EXPECT_EQ(X.waitSend(0), "clean");
  EXPECT_EQ(X.waitSend(1), "definite");
}

TEST(Transfer, TernaryOnAnAtomIsCorrelated) {
  Analysed X(kernel("auto d = c ? R : L; if (c) d.wait_send(); d.wait_send();"));
  EXPECT_EQ(X.waitSend(0), "clean");
  EXPECT_EQ(X.waitSend(1), "maybe");
}

TEST(Transfer, PairTupleAndStructuredBindings) {
  Analysed X(kernel("std::pair<AsyncCopyDescriptor, AsyncCopyDescriptor> p{L, R};"
                    " p.second.wait_send(); std::get<0>(p).wait_send();"
                    " auto t = std::make_tuple(R, L); std::get<1>(t).wait_send();"
                    " auto &[x, y] = p; y.wait_send(); x.wait_send();"));
  EXPECT_EQ(X.waitSend(0), "clean");
  EXPECT_EQ(X.waitSend(1), "definite");
  EXPECT_EQ(X.waitSend(2), "definite");
  EXPECT_EQ(X.waitSend(3), "clean");
  EXPECT_EQ(X.waitSend(4), "definite");
}

TEST(Transfer, HeapObjectsThroughSmartPointers) {
  Analysed X(kernel("auto u = std::make_unique<AsyncCopyDescriptor>(L); u->wait_send();"
                    " std::shared_ptr<AsyncCopyDescriptor> p(new AsyncCopyDescriptor(R));"
                    " auto q = p; (*q).wait_send();"));
  EXPECT_EQ(X.waitSend(0), "definite");
  EXPECT_EQ(X.waitSend(1), "clean");
}

TEST(Transfer, VariantAlternative) {
  Analysed X(kernel("std::variant<int, AsyncCopyDescriptor> v = L;"
                    " std::get<AsyncCopyDescriptor>(v).wait_send();"));
  EXPECT_EQ(X.waitSend(0), "definite");
}

// ---------------------------------------------------------------- writes ---

TEST(Transfer, AssignmentToOneFieldIsStrong) {
  Analysed X(kernel("Half h{L, L}; h.stage = R; h.stage.wait_send(); h.send.wait_send();"));
  EXPECT_EQ(X.waitSend(0), "clean");
  EXPECT_EQ(X.waitSend(1), "definite");
}

TEST(Transfer, AssignmentAtAnUnknownIndexIsWeak) {
  Analysed X(kernel("AsyncCopyDescriptor ds[2] = {R, R}; ds[i] = L; ds[0].wait_send();"));
  EXPECT_EQ(X.waitSend(0), "maybe");
}

TEST(Transfer, CopyOfAWholeAggregate) {
  Analysed X(kernel("Half h{R, L}; Half g = h; g.stage.wait_send(); g.send.wait_send();"));
  EXPECT_EQ(X.waitSend(0), "clean");
  EXPECT_EQ(X.waitSend(1), "definite");
}

TEST(Transfer, PushBackThenClear) {
  Analysed X(kernel("std::vector<AsyncCopyDescriptor> v; v.push_back(L); v.clear();"
                    " v.push_back(R); for (auto &d : v) d.wait_send();"));
  EXPECT_EQ(X.waitSend(0), "clean");
}

TEST(Transfer, OpaqueCallForgetsWhatItCanWrite) {
  Analysed X(std::string(Prelude) + "void opaque(AsyncCopyDescriptor &);\nvoid k" +
             KernelParams + " { auto d = L; opaque(d); d.wait_send(); }\n");
  EXPECT_EQ(X.waitSend(0), "clean"); // Unknown: never reported.
  EXPECT_EQ(X.unused(), 0u);         // Handed over: it escapes.
}

TEST(Transfer, CallThroughAPointerToAFunction) {
  // A call with no callee: what it is handed escapes, nothing is known of
  // what it returns, and the analysis goes on past it.
  Analysed X(std::string(Prelude) + "using Hook = void (*)(AsyncCopyDescriptor &);\n"
             "void k(Ref<float> a, Ref<float> b, DmaSemaphore s, DmaSemaphore r, int i,"
             " Hook h, int (*map)(int)) { auto d = L; h(d); auto e = L; e.start();"
             " (*map)(i); e.wait_send(); }\n");
  EXPECT_EQ(X.unused(), 0u);            // d is handed to the hook.
  EXPECT_EQ(X.waitSend(0), "definite"); // Reached past the calls.
}

TEST(Transfer, PushBackAppendsAtAKnownSize) {
  Analysed X(std::string(Prelude) + "#include <vector>\nvoid grow(std::vector<AsyncCopyDescriptor> &);\n"
             "void k" + KernelParams +
             " { std::vector<AsyncCopyDescriptor> v; v.push_back(R); v.push_back(L);"
             " v[0].wait_send(); v[1].wait_send(); v.back().wait_send();"
             " v.pop_back(); v.push_back(R); v[1].wait_send();"
             " v.clear(); v.push_back(L); v[0].wait_send();"
             " std::vector<AsyncCopyDescriptor> w; w.push_back(R); if (c) w.push_back(L);"
             " w.push_back(R); w[1].wait_send();"
             " std::vector<AsyncCopyDescriptor> h; h.push_back(L); grow(h); h.push_back(R);"
             " h[1].wait_send(); }\n");
  EXPECT_EQ(X.waitSend(0), "clean");
  EXPECT_EQ(X.waitSend(1), "definite");
  EXPECT_EQ(X.waitSend(2), "definite"); // back() is index 1.
  EXPECT_EQ(X.waitSend(3), "clean");    // The local copy was popped.
  EXPECT_EQ(X.waitSend(4), "definite"); // Cleared: index 0 again.
  EXPECT_EQ(X.waitSend(5), "maybe");    // Index 1 depends on the path.
  EXPECT_EQ(X.waitSend(6), "clean");    // Handed to a call: not followed, unknown.
}

TEST(Transfer, BackIsTheElementAppendedLast) {
  // A loop appends, so the size is not known; back() is still the element
  // this iteration appended, until something may change which one is last
  // or what it holds.
  Analysed X(std::string(Prelude) + "#include <vector>\n"
             "void k" + KernelParams +
             " { std::vector<AsyncCopyDescriptor> v;"
             " for (int j = 0; j < i; ++j) {"
             "   v.push_back(j == 0 ? L : R); if (j != 0) v.back().wait_send(); }"
             " v.back().wait_send();"
             " std::vector<AsyncCopyDescriptor> w;"
             " for (int j = 0; j < i; ++j) w.push_back(R);"
             " *w.begin() = L; w.back().wait_send();"
             " std::vector<AsyncCopyDescriptor> x;"
             " for (int j = 0; j < i; ++j) x.push_back(R);"
             " x.back() = L; for (auto &d : x) d.wait_send();"
             " std::vector<AsyncCopyDescriptor> y;"
             " for (int j = 0; j < i; ++j) y.push_back(R);"
             " AsyncCopyDescriptor &kept = y.back(); y.push_back(L); kept.wait_send(); }\n");
  EXPECT_EQ(X.waitSend(0), "clean");  // Appended remote where j != 0.
  EXPECT_EQ(X.waitSend(1), "maybe");  // After the loop: the first may be last.
  EXPECT_EQ(X.waitSend(2), "maybe");  // The iterator may have written the last.
  EXPECT_EQ(X.waitSend(3), "maybe");  // A write through back() is one into the elements.
  EXPECT_EQ(X.waitSend(4), "maybe");  // A reference to back() is any element.
}

TEST(Transfer, AnElementIsTheOneItsIterationAppended) {
  // A loop counting j from 0 appends once per iteration to an empty vector:
  // element k is the copy appended where j == k, so what was known of
  // `j == 0` there is known of `k == 0` at v[k]. A loop that may append
  // nothing, or one from 1, tells nothing of the index.
  Analysed X(std::string(Prelude) + "#include <vector>\n"
             "void k" + KernelParams +
             " { std::vector<AsyncCopyDescriptor> v;"
             " for (int j = 0; j < i; ++j) { if (j == 0) v.push_back(L); else v.push_back(R); }"
             " for (int k = 0; k < i; ++k) if (k != 0) v[k].wait_send();"
             " for (int k = 0; k < i; ++k) if (k == 0) v.at(k).wait_send();"
             " v[1].wait_send();"
             " std::vector<AsyncCopyDescriptor> w;"
             " for (int j = 0; j < i; ++j) if (j == 0) w.push_back(L); else if (c) w.push_back(R);"
             " for (int k = 0; k < i; ++k) if (k != 0) w[k].wait_send();"
             " std::vector<AsyncCopyDescriptor> x;"
             " for (int j = 1; j < i; ++j) x.push_back(j == 1 ? L : R);"
             " for (int k = 1; k < i; ++k) if (k != 1) x[k].wait_send(); }\n");
  EXPECT_EQ(X.waitSend(0), "clean");
  EXPECT_EQ(X.waitSend(1), "definite");
  EXPECT_EQ(X.waitSend(2), "clean");  // A constant index: 1 == 0 fails.
  EXPECT_EQ(X.waitSend(3), "maybe");  // Some iterations append nothing.
  EXPECT_EQ(X.waitSend(4), "maybe");  // x[k] was appended where j == k - 1.
}

TEST(Calls, AReturnChosenByTwoParametersIsChosenByTheArguments) {
  // The helper returns its local copy where `x == y`: at a call, that is
  // the caller's comparison of the two arguments, or a constant.
  Analysed X(std::string(Prelude) +
             "AsyncCopyDescriptor pick(Ref<float> a, Ref<float> b, DmaSemaphore s,"
             " DmaSemaphore r, int x, int y) { if (x == y) return L; return R; }\n"
             "void k" + KernelParams +
             " { int me = axis_index(\"x\"); auto d = pick(a, b, s, r, i, me);"
             " if (i != me) d.wait_send(); if (me == i) d.wait_send(); d.wait_send();"
             " auto e = pick(a, b, s, r, 2, 2); e.wait_send();"
             " auto f = pick(a, b, s, r, 1, 2); f.wait_send(); }\n");
  EXPECT_EQ(X.waitSend(0), "clean");
  EXPECT_EQ(X.waitSend(1), "definite"); // The same test, either way round.
  EXPECT_EQ(X.waitSend(2), "maybe");
  EXPECT_EQ(X.waitSend(3), "definite"); // Equal constants.
  EXPECT_EQ(X.waitSend(4), "clean");    // Different ones.
}

TEST(Calls, ALambdaPickingOnItsCapturesIsPickedByTheCallersCondition) {
  // The lambda's condition reads what it captures (and its parameter): at
  // the call it is the caller's condition, the argument in the parameter's
  // place.
  Analysed X(kernel("int me = axis_index(\"x\");"
                    " auto pick = [&](int peer) { if (peer == me) return L; return R; };"
                    " auto d = pick(i); if (i != me) d.wait_send(); if (me == i) d.wait_send();"
                    " auto e = [&] { return c ? R : L; }(); if (c) e.wait_send();"
                    " e.wait_send();"));
  EXPECT_EQ(X.waitSend(0), "clean");
  EXPECT_EQ(X.waitSend(1), "definite");
  EXPECT_EQ(X.waitSend(2), "clean");
  EXPECT_EQ(X.waitSend(3), "maybe");
}

TEST(Calls, ALambdasTestOfItsParameterIsTheCallersCondition) {
  // Run at a call that passes a condition (or a peer the body compares),
  // the lambda's test of its parameter is the caller's condition.
  Analysed X(kernel("int me = axis_index(\"x\");"
                    " auto fin = [&](AsyncCopyDescriptor &d, bool remote, int peer) {"
                    "   if (remote) d.wait_send(); if (peer != me) d.wait_send(); };"
                    " auto d = i == me ? L : R; fin(d, i != me, i);"));
  EXPECT_EQ(X.waitSend(0), "clean");
  EXPECT_EQ(X.waitSend(1), "clean");
  Analysed Y(kernel("int me = axis_index(\"x\");"
                    " auto fin = [&](AsyncCopyDescriptor &d, bool remote) {"
                    "   if (remote) d.wait_send(); };"
                    " auto d = i == me ? L : R; fin(d, i == me);"));
  EXPECT_EQ(Y.waitSend(0), "definite");
}

TEST(Conditions, AMemberHoldingItsCopysTestIsThatTest) {
  // Every constructor sets remote_ to copy_.is_remote() and nothing changes
  // either after: in a member function, `if (remote_)` tests copy_.
  const std::string Class =
      std::string(Prelude) +
      "class P { public: P(Ref<float> a, Ref<float> b, DmaSemaphore s, DmaSemaphore r, bool c)"
      " : copy_(c ? R : L), remote_(copy_.is_remote()) {}\n"
      " void finish() { if (remote_) copy_.wait_send(); if (!remote_) copy_.wait_send(); }\n";
  Analysed X(Class + " private: AsyncCopyDescriptor copy_; const bool remote_; };\n"
             "void k" + KernelParams + " { P p(a, b, s, r, c); p.finish(); }\n",
             "finish");
  EXPECT_EQ(X.waitSend(0), "clean");
  EXPECT_EQ(X.waitSend(1), "definite");
  // A member function that replaces the copy: the bool is no test of it.
  Analysed Y(Class + " void local(Ref<float> a, Ref<float> b, DmaSemaphore s) {"
             " copy_ = make_async_copy(a, b, s); }\n"
             " private: AsyncCopyDescriptor copy_; const bool remote_; };\n"
             "void k" + KernelParams + " { P p(a, b, s, r, c); p.local(a, b, s); p.finish(); }\n",
             "finish");
  EXPECT_EQ(Y.waitSend(0), "maybe");
}

TEST(Conditions, BoolMemberAssignedATestIsThatTest) {
  Analysed X(std::string(Prelude) + "struct Slot { AsyncCopyDescriptor d; bool remote; };\n"
             "void k" + KernelParams +
             " { Slot t{c ? R : L, false}; t.remote = t.d.is_remote();"
             " if (t.remote) t.d.wait_send();"
             " t.remote = !t.d.is_remote(); if (t.remote) t.d.wait_send();"
             " t.remote = t.d.is_remote(); t.d = L; if (t.remote) t.d.wait_send(); }\n");
  EXPECT_EQ(X.waitSend(0), "clean");
  EXPECT_EQ(X.waitSend(1), "definite");
  EXPECT_EQ(X.waitSend(2), "definite"); // The copy it tested was replaced.
}

TEST(Conditions, AComparisonIsOneAtomHoweverItIsSpelled) {
  // `p != m` is the negation of `p == m` (and of `m == p`), `p >= m` of
  // `p < m`, `m > p` is `p < m`; floating-point comparisons are not
  // negations of each other (NaN).
  Analysed X(kernel("int m = axis_index(\"x\"); float f = i;"
                    " auto e = i == m ? L : R; e.start();"
                    " if (m != i) e.wait_send(); if (i != m) e.wait_send(); if (m == i) e.wait_send();"
                    " auto l = i < m ? L : R; l.start();"
                    " if (i >= m) l.wait_send(); if (m <= i) l.wait_send(); if (m > i) l.wait_send();"
                    " auto x = f < 1.0f ? L : R; x.start(); if (f >= 1.0f) x.wait_send();"));
  EXPECT_EQ(X.waitSend(0), "clean");
  EXPECT_EQ(X.waitSend(1), "clean");
  EXPECT_EQ(X.waitSend(2), "definite");
  EXPECT_EQ(X.waitSend(3), "clean");
  EXPECT_EQ(X.waitSend(4), "clean");
  EXPECT_EQ(X.waitSend(5), "definite");
  EXPECT_EQ(X.waitSend(6), "maybe");
}

TEST(Conditions, EqualToOneConstantIsNotEqualToAnother) {
  // Where `x == 1` holds, `x == 0` does not: for an expression, a local and
  // a parameter alike.
  Analysed X(kernel("const int sl = i % 2; auto e = sl == 0 ? L : R; e.start();"
                    " if (sl == 1) e.wait_send(); if (sl == 0) e.wait_send();"
                    " auto f = i % 2 == 0 ? L : R; f.start(); if (i % 2 == 1) f.wait_send();"
                    " auto g = i == 0 ? L : R; g.start(); if (i == 3) g.wait_send();"
                    " if (i != 3) g.wait_send();"));
  EXPECT_EQ(X.waitSend(0), "clean");
  EXPECT_EQ(X.waitSend(1), "definite");
  EXPECT_EQ(X.waitSend(2), "clean");
  EXPECT_EQ(X.waitSend(3), "clean");
  EXPECT_EQ(X.waitSend(4), "maybe");
}

TEST(Flags, FlagReadThroughTheLoopReferenceKeepsItsElements) {
  // `{copy, true}` beside each copy, and a branch on the flag through the
  // loop's reference: only the elements whose flag has the branch's value.
  Analysed X(std::string(Prelude) + "#include <vector>\n"
             "struct Issued { AsyncCopyDescriptor copy; bool remote; };\n"
             "void mark(Issued &x) { x.remote = true; }\n"
             "void k" + KernelParams +
             " { std::vector<Issued> v; v.push_back({R, true}); v.push_back({L, false});"
             " for (auto &e : v) { if (e.remote) e.copy.wait_send(); }"
             " for (auto &e : v) { if (!e.remote) e.copy.wait_send(); }"
             " for (auto &e : v) { e.copy.wait_send(); }"
             " v[1].remote = true; for (auto &e : v) { if (e.remote) e.copy.wait_send(); }"
             " std::vector<Issued> w; w.push_back({R, true}); w.push_back({L, false}); mark(w[1]);"
             " for (auto &e : w) { if (e.remote) e.copy.wait_send(); } }\n");
  EXPECT_EQ(X.waitSend(0), "clean");
  EXPECT_EQ(X.waitSend(1), "definite"); // Only the local copy is flagged false.
  EXPECT_EQ(X.waitSend(2), "maybe");
  EXPECT_EQ(X.waitSend(3), "maybe");    // Reassigned: both are flagged true.
  EXPECT_EQ(X.waitSend(4), "maybe");    // The helper changed w[1]'s flag.
}

TEST(Flags, ALocalsOwnFlagDecidesTheBranch) {
  Analysed X(std::string(Prelude) + "struct Issued { AsyncCopyDescriptor copy; bool remote; };\n"
             "void k" + KernelParams +
             " { Issued x{L, false}; if (x.remote) x.copy.wait_send();"
             " Issued y{L, true}; if (y.remote) y.copy.wait_send(); }\n");
  EXPECT_EQ(X.waitSend(0), "definite"); // x's branch never runs: y's is the only one.
  EXPECT_EQ(X.waitSend(1), "not reached");
}

TEST(Flags, FlagReadAtAnIndexVariableNarrowsTheIndex) {
  // `if (a[k].remote)`: k is one of the indices whose flag allows the
  // branch, for every container it indexes, until k is written.
  Analysed X(std::string(Prelude) + "struct Issued { AsyncCopyDescriptor copy; bool remote; };\n"
             "void k" + KernelParams +
             " { Issued sl[2] = {{L, false}, {R, true}};"
             " AsyncCopyDescriptor same[2] = {L, R};"
             " for (int k = 0; k < 2; ++k) { if (sl[k].remote) sl[k].copy.wait_send(); }"
             " for (int k = 0; k < 2; ++k) { if (sl[k].remote) same[k].wait_send(); }"
             " for (int k = 0; k < 2; ++k) { if (!sl[k].remote) sl[k].copy.wait_send(); }"
             " for (int k = 0; k < 2; ++k) { if (sl[k].remote) { k = 0; sl[k].copy.wait_send(); } } }\n");
  EXPECT_EQ(X.waitSend(0), "clean");
  EXPECT_EQ(X.waitSend(1), "clean");    // k is 1 there: same[1] is remote.
  EXPECT_EQ(X.waitSend(2), "definite");
  EXPECT_EQ(X.waitSend(3), "maybe");    // k written after the test.
}

TEST(Flags, AFlagThatIsTheCopysTestIsThatTest) {
  // Filled in a loop, each element a copy of either kind: a flag that is
  // the condition that chose the copy, or is_remote() of it, or a constant
  // of its kind, is the copy's is_remote() wherever the element goes.
  Analysed X(std::string(Prelude) + "#include <vector>\n"
             "struct Issued { AsyncCopyDescriptor copy; bool remote; };\n"
             "void k" + KernelParams +
             " { std::vector<Issued> v, w, x;"
             " for (int d = 0; d < i; ++d) { const bool far = d != i / 2; auto e = far ? R : L;"
             " v.push_back({e, far}); w.push_back({e, e.is_remote()});"
             " if (far) x.push_back({R, true}); else x.push_back({L, false}); }"
             " for (auto &e : v) { if (e.remote) e.copy.wait_send(); }"
             " for (auto &e : w) { if (!e.remote) e.copy.wait_send(); }"
             " for (Issued e : x) { if (e.remote) e.copy.wait_send(); }"
             " w[0].copy = L; for (auto &e : w) { if (e.remote) e.copy.wait_send(); }"
             // The condition compares the counter with its first value: the
             // first iteration knows it (learnConstantValue) and stores
             // `{L, false}` beside the others' `{e, far}`; the relation of
             // that element's flag to its copy is lost where they meet. A
             // known limitation (a false "maybe"), kept visible here.
             " std::vector<Issued> y; for (int d = 0; d < i; ++d) { const bool far = d != 0;"
             " y.push_back({far ? R : L, far}); }"
             " for (auto &e : y) { if (e.remote) e.copy.wait_send(); } }\n");
  EXPECT_EQ(X.waitSend(0), "clean");
  EXPECT_EQ(X.waitSend(1), "definite");
  EXPECT_EQ(X.waitSend(2), "clean");
  EXPECT_EQ(X.waitSend(3), "maybe"); // The copy beside the flag was replaced.
  EXPECT_EQ(X.waitSend(4), "maybe"); // Should be clean: see above.
}

TEST(Flags, ABoolKeptFromAFlagIsTheFlagUntilAFlagChanges) {
  Analysed X(std::string(Prelude) + "#include <vector>\n"
             "struct Issued { AsyncCopyDescriptor copy; bool remote; };\n"
             "void k" + KernelParams +
             " { std::vector<Issued> v; v.push_back({R, true}); v.push_back({L, false});"
             " for (auto &e : v) { const bool far = e.remote; if (far) e.copy.wait_send(); }"
             " for (auto &e : v) { const bool far = e.remote; e.remote = true;"
             " if (far) e.copy.wait_send(); }"
             " for (auto it = v.begin(); it != v.end(); ++it) { const bool far = it->remote;"
             " if (far) it->copy.wait_send(); } }\n");
  EXPECT_EQ(X.waitSend(0), "clean");
  EXPECT_EQ(X.waitSend(1), "maybe"); // The flag changed after it was kept.
  EXPECT_EQ(X.waitSend(2), "maybe"); // An iterator may move: not kept.
}

TEST(Flags, AReferenceOrPointerToTheMemberMakesItUntrusted) {
  // A bool reference bound to the member may write it anywhere: no flag of
  // that member is used, in any function.
  Analysed X(std::string(Prelude) + "#include <vector>\n"
             "struct Issued { AsyncCopyDescriptor copy; bool remote; };\n"
             "void set(bool &);\n"
             "void k" + KernelParams +
             " { std::vector<Issued> v; v.push_back({R, true}); v.push_back({L, false});"
             " for (auto &e : v) { if (e.remote) e.copy.wait_send(); } }\n"
             "void elsewhere(Issued &x) { set(x.remote); }\n");
  EXPECT_EQ(X.waitSend(0), "maybe");
}

TEST(Flags, AnEnumComparedWithAnEnumeratorIsAFlag) {
  // `{copy, Kind::kRemote}`: a branch on `kind == Kind::kRemote` (or `!=`,
  // or a switch's case) keeps the elements whose kind may have that value;
  // converted to bool, the enum is tested for non-zero, no enumerator's test.
  Analysed X(std::string(Prelude) + "#include <vector>\n"
             "enum class Kind { kLocal, kRemote, kSkipped };\n"
             "enum Mode { LOCAL, REMOTE, SKIPPED };\n"
             "struct Slot { AsyncCopyDescriptor copy; Kind kind; };\n"
             "struct Op { AsyncCopyDescriptor copy; Mode mode; };\n"
             "void k" + KernelParams +
             " { std::vector<Slot> v; v.push_back({L, Kind::kLocal}); v.push_back({R, Kind::kRemote});"
             " for (auto &e : v) { if (e.kind == Kind::kRemote) e.copy.wait_send(); }"
             " for (auto &e : v) { if (e.kind != Kind::kLocal) e.copy.wait_send(); }"
             " for (auto &e : v) { if (e.kind != Kind::kRemote) e.copy.wait_send(); }"
             " for (auto &e : v) { if (e.kind != Kind::kSkipped) e.copy.wait_send(); }"
             " for (auto &e : v) { switch (e.kind) { case Kind::kLocal: break;"
             " default: e.copy.wait_send(); } }"
             " std::vector<Op> w; w.push_back({L, SKIPPED}); w.push_back({R, REMOTE});"
             " for (auto &e : w) { if (e.mode) e.copy.wait_send(); }"
             " for (auto &e : w) { if (e.mode == REMOTE) e.copy.wait_send(); } }\n");
  EXPECT_EQ(X.waitSend(0), "clean");
  EXPECT_EQ(X.waitSend(1), "clean");
  EXPECT_EQ(X.waitSend(2), "definite");
  EXPECT_EQ(X.waitSend(3), "maybe");
  EXPECT_EQ(X.waitSend(4), "clean");
  EXPECT_EQ(X.waitSend(5), "maybe"); // SKIPPED is non-zero.
  EXPECT_EQ(X.waitSend(6), "clean");
}

TEST(Flags, ABoolKeptFromAFlagAtAnIndexIsTheFlagUntilTheIndexChanges) {
  Analysed X(std::string(Prelude) + "#include <vector>\n"
             "struct Issued { AsyncCopyDescriptor copy; bool remote; };\n"
             "void k" + KernelParams +
             " { std::vector<Issued> v; v.push_back({L, false}); v.push_back({R, true});"
             " for (unsigned n = 0; n < v.size(); ++n) { const bool far = v[n].remote;"
             " if (far) v[n].copy.wait_send(); }"
             " for (unsigned n = 0; n < v.size(); ++n) { const bool far = v[n].remote;"
             " n = 0; if (far) v[n].copy.wait_send(); } }\n");
  EXPECT_EQ(X.waitSend(0), "clean");
  EXPECT_EQ(X.waitSend(1), "maybe"); // n changed after the bool was kept.
}

TEST(Flags, AMemberFunctionsTestOfItsObjectIsDecidedAtTheCall) {
  // `if (remote_) d_.wait_send();` in a member function that leaves remote_
  // alone needs a remote copy only where the caller's object may have
  // remote_ true: known from the constructor (a parameter, is_remote() of
  // one) or a braced list; a setter makes it unknown.
  Analysed X(std::string(Prelude) +
             "struct St { St(AsyncCopyDescriptor d, bool r) : d_(d), r_(r) {}"
             " explicit St(AsyncCopyDescriptor d) : d_(d), r_(d.is_remote()) {}"
             " void set(bool r) { r_ = r; }"
             " void fin() { if (r_) d_.wait_send(); } AsyncCopyDescriptor d_; bool r_; };\n"
             "void k" + KernelParams +
             " { St m(L, false); m.fin(); St n(L); n.fin(); St e(c ? R : L, c); e.fin();"
             " St f(L, true); f.fin(); St g(L, false); g.set(c); g.fin(); }\n");
  // The objects whose call may wait_send a local copy.
  std::vector<std::string> Local;
  for (const dmalint::HelperWaitSend &H : X.A->HelperWaitSends) {
    bool AnyLocal = llvm::any_of(H.Values.values(), [&](const dmalint::Value &V) {
      return X.A->Origins[V.Origin].Kind == dmalint::Remoteness::Local;
    });
    const auto *Object = dyn_cast<DeclRefExpr>(H.Argument->IgnoreParenImpCasts());
    if (AnyLocal && Object)
      Local.push_back(Object->getDecl()->getNameAsString());
  }
  EXPECT_EQ(Local, (std::vector<std::string>{"f", "g"}));
}

TEST(Transfer, ALoopCounterThatStartsAboveAnIndexNeverReadsIt) {
  // `for (int k = 1; ...; ++k) v[k]` reads the elements from 1 on (and any
  // written at an unknown index); a counter the loop writes, or one that
  // starts at 0, reads every element.
  Analysed X(kernel("std::array<AsyncCopyDescriptor, 3> v{L, R, R};"
                    " for (int k = 1; k < 3; ++k) v[k].wait_send();"
                    " for (int k = 1; k < 3; k += 2) v[k].wait_send();"
                    " for (int k = 0; k < 3; ++k) v[k].wait_send();"
                    " for (int k = 1; k < 3; ++k) { v[k].wait_send(); k -= 1; k += 1; }"
                    " for (int k = 1; k < 3; --k) v[k].wait_send();"));
  EXPECT_EQ(X.waitSend(0), "clean");
  EXPECT_EQ(X.waitSend(1), "clean");
  EXPECT_EQ(X.waitSend(2), "maybe");
  EXPECT_EQ(X.waitSend(3), "maybe");
  EXPECT_EQ(X.waitSend(4), "maybe");
}

TEST(Transfer, AnIndexThePathComparedWithAConstantSkipsTheElementsItExcludes) {
  // The facts of the path on the index, however the comparison is written:
  // `k > 0`, `0 < k`, `k != 0`, `continue` on `k == 0` leave out element
  // 0; `k < 1` keeps only it; a parameter compared with a constant too. A
  // comparison of another expression, or a write of the index after the
  // test, says nothing of it.
  Analysed X(kernel("std::array<AsyncCopyDescriptor, 3> v{L, R, R};"
                    " for (int k = 0; k < 3; ++k) if (k > 0) v[k].wait_send();"
                    " for (int k = 0; k < 3; ++k) if (0 < k) v[k].wait_send();"
                    " for (int k = 0; k < 3; ++k) { if (k == 0) continue; v[k].wait_send(); }"
                    " for (int k = 0; k < 3; ++k) if (k < 1) v[k].wait_send();"
                    " for (int k = 0; k < 3; ++k) if (k >= 1) v[k].wait_send();"
                    " for (int k = 0; k < 3; ++k) if (k + 1 > 1) v[k].wait_send();"
                    " for (int k = 0; k < 3; ++k) if (k > 0) { k = 0; v[k].wait_send(); }"
                    " if (i != 0) v[i].wait_send();"));
  EXPECT_EQ(X.waitSend(0), "clean");
  EXPECT_EQ(X.waitSend(1), "clean");
  EXPECT_EQ(X.waitSend(2), "clean");
  EXPECT_EQ(X.waitSend(3), "definite");
  EXPECT_EQ(X.waitSend(4), "clean");
  EXPECT_EQ(X.waitSend(5), "maybe");
  EXPECT_EQ(X.waitSend(6), "maybe");
  EXPECT_EQ(X.waitSend(7), "clean");
}

TEST(Conditions, ComparisonsOfOneExpressionWithConstantsImplyEachOther) {
  // `k > 1` holding means `k > 0` held: the local copy made where it
  // failed is not on the path. `k != 0` and `k > -1` leave it (k < 0, k
  // == 0), and another expression's comparison says nothing of k.
  Analysed X(kernel("int k = axis_index(\"x\"); int j = axis_index(\"y\"); auto d = L;"
                    " if (k > 0) d = R;"
                    " if (k > 1) d.wait_send(); if (k >= 2) d.wait_send();"
                    " if (k == 3) d.wait_send(); if (!(k <= 0)) d.wait_send();"
                    " if (k != 0) d.wait_send(); if (k > -1) d.wait_send();"
                    " if (j > 1) d.wait_send();"));
  EXPECT_EQ(X.waitSend(0), "clean");
  EXPECT_EQ(X.waitSend(1), "clean");
  EXPECT_EQ(X.waitSend(2), "clean");
  EXPECT_EQ(X.waitSend(3), "clean");
  EXPECT_EQ(X.waitSend(4), "maybe");
  EXPECT_EQ(X.waitSend(5), "maybe");
  EXPECT_EQ(X.waitSend(6), "maybe");
}

TEST(Conditions, AnIntegerTestedForTruthIsNotEqualToZero) {
  // `if (i)` is `i != 0`, for a parameter (its `== value` atoms) and for
  // a local; `if (i % 2)` is `i % 2 != 0`.
  Analysed X(kernel("auto d = i == 0 ? L : R; if (i) d.wait_send();"
                    " int k = axis_index(\"x\"); auto e = k == 0 ? L : R; if (k) e.wait_send();"
                    " auto f = i % 2 == 0 ? L : R; if (i % 2) f.wait_send();"
                    " if (!i) d.wait_send();"));
  EXPECT_EQ(X.waitSend(0), "clean");
  EXPECT_EQ(X.waitSend(1), "clean");
  EXPECT_EQ(X.waitSend(2), "clean");
  EXPECT_EQ(X.waitSend(3), "definite");
}

TEST(Conditions, ALocalsTestKeepsItsValuesCorrelatedPastItsLastMention) {
  // `k` is last named in the second test, on one branch of it only; the
  // two descriptors, both made under `k > 0`, stay both remote or both
  // local: `e` is remote wherever `d` is. Written between the tests, `k`
  // is another value, and the second test another condition.
  Analysed X(kernel("int k = axis_index(\"x\"); auto d = L; auto e = L;"
                    " if (k > 0) d = R; if (k > 0) e = R;"
                    " if (d.is_remote()) e.wait_send();"
                    " int m = axis_index(\"x\"); auto f = L; auto g = L;"
                    " if (m > 0) f = R; m = axis_index(\"y\"); if (m > 0) g = R;"
                    " if (f.is_remote()) g.wait_send();"));
  EXPECT_EQ(X.waitSend(0), "clean");
  EXPECT_EQ(X.waitSend(1), "maybe");
}

TEST(Transfer, SwapExchangesWhatTwoObjectsHold) {
  Analysed X(kernel("auto x = L; auto y = R; std::swap(x, y); x.wait_send(); y.wait_send();"
                    " std::array<AsyncCopyDescriptor, 2> p{L, L}, q{R, R}; p.swap(q);"
                    " p[0].wait_send(); q[1].wait_send();"));
  EXPECT_EQ(X.waitSend(0), "clean");
  EXPECT_EQ(X.waitSend(1), "definite");
  EXPECT_EQ(X.waitSend(2), "clean");
  EXPECT_EQ(X.waitSend(3), "definite");
}

TEST(Transfer, AlgorithmFromAnotherRangeLeavesItsTargetUnknown) {
  // std::move with three arguments is the algorithm, not the cast.
  Analysed X(std::string(Prelude) + "#include <algorithm>\nvoid k" + KernelParams +
             " { std::array<AsyncCopyDescriptor, 2> p{L, L}, q{R, R};"
             " std::move(q.begin(), q.end(), p.begin()); p[0].wait_send();"
             " std::array<AsyncCopyDescriptor, 2> v{L, R}; std::reverse(v.begin(), v.end());"
             " v[0].wait_send(); }\n");
  EXPECT_EQ(X.waitSend(0), "clean"); // Unknown: never reported.
  EXPECT_EQ(X.unused(), 0u);         // q's copies went into p, and p's left unknown.
  EXPECT_EQ(X.waitSend(1), "maybe"); // Within one array: any of its elements.
}

TEST(Transfer, ByCopyCaptureIsTheVariableWhereTheLambdaIsWritten) {
  Analysed X(kernel("auto d = R; auto f = [d]() mutable { d.wait_send(); }; d = L; f();"
                    " auto e = L; auto g = [e]() mutable { e.wait_send(); }; e = R; g();"
                    " auto h = R; auto j = [&h] { h.wait_send(); }; h = L; j();"));
  EXPECT_EQ(X.waitSend(0), "clean");
  EXPECT_EQ(X.waitSend(1), "definite");
  EXPECT_EQ(X.waitSend(2), "definite"); // By reference: as it is at the call.
}

// ------------------------------------------------------------- lifecycle ---

TEST(Lifecycle, StartedCopyIsInFlightUntilWaited) {
  Analysed X(kernel("auto d = L; d.start(); auto e = L; e.start(); e.wait(); d.wait();"));
  ASSERT_EQ(X.A->ReceiveWaits.size(), 2u);
  // Before e.wait(): d and e in flight; before d.wait(): d only.
  EXPECT_EQ(X.A->inFlightAt(X.A->ReceiveWaits[0]).size(), 2u);
  EXPECT_EQ(X.A->inFlightAt(X.A->ReceiveWaits[1]).size(), 1u);
}

TEST(Lifecycle, UnusedOnEveryPathOnly) {
  Analysed X(kernel("auto d = L; if (c) d.start(); auto e = L; (void)e.is_remote();"));
  EXPECT_EQ(X.unused(), 1u); // e; d is started on one path.
}

TEST(Lifecycle, ReceiveWaitAfterWaitSend) {
  Analysed X(kernel("auto d = L; d.wait_send(); d.wait_recv();"
                    " auto e = L; e.wait_send(); if (c) e.wait_recv();"
                    " auto f = L; f.wait_send();"));
  ASSERT_EQ(X.A->WaitSends.size(), 3u);
  EXPECT_EQ(X.A->receiveWaitAfter(X.A->WaitSends[0]), dmalint::ReceiveWaitAfter::Always);
  EXPECT_EQ(X.A->receiveWaitAfter(X.A->WaitSends[1]), dmalint::ReceiveWaitAfter::Sometimes);
  EXPECT_EQ(X.A->receiveWaitAfter(X.A->WaitSends[2]), dmalint::ReceiveWaitAfter::Never);
}

// ----------------------------------------------------------------- calls ---

TEST(Calls, GenericLambdaSeesItsArgument) {
  Analysed X(kernel("auto d = L; auto use = [](auto &x) { x.start(); x.wait(); }; use(d);"));
  EXPECT_EQ(X.unused(), 0u);
}

TEST(Calls, ConstructorInitialiserListFillsTheMembers) {
  Analysed X(std::string(Prelude) +
             "struct Stage { AsyncCopyDescriptor in, out;\n"
             "  Stage(AsyncCopyDescriptor i, AsyncCopyDescriptor o) : in(i), out(o) {} };\n"
             "void k" + KernelParams +
                 " { Stage st(L, R); st.out.wait_send(); st.in.wait_send(); }\n");
  EXPECT_EQ(X.waitSend(0), "clean");
  EXPECT_EQ(X.waitSend(1), "definite");
}

TEST(Calls, HelperRequirementIsPerPath) {
  // drain() waits the send side of `.send` only: a local `.stage` is fine.
  Analysed X(std::string(Prelude) + "void drain(Half &h) { h.send.wait_send(); }\n"
             "void k" + KernelParams + " { Half h{L, R}; drain(h); Half g{R, L}; drain(g); }\n");
  ASSERT_EQ(X.A->HelperWaitSends.size(), 2u);
  EXPECT_TRUE(X.A->localOriginsAt(dmalint::DescriptorUse{nullptr, nullptr,
                                                         X.A->HelperWaitSends[0].Values})
                  .Origins.empty());
  EXPECT_FALSE(X.A->verdict(X.A->HelperWaitSends[1].Values, dmalint::Remoteness::Local)
                   .Origins.empty());
}

TEST(Calls, ClassMembersThroughTheClassSummary) {
  Analysed X(std::string(Prelude) +
                 "class P { public:\n"
                 "  void issue(Ref<float> a, Ref<float> b, DmaSemaphore s, DmaSemaphore r) {\n"
                 "    q_.push_back(L); q_.push_back(R); }\n"
                 "  void drain() { for (auto &d : q_) d.wait_send(); }\n"
                 " private: std::vector<AsyncCopyDescriptor> q_; };\n",
             "drain");
  EXPECT_EQ(X.waitSend(0), "maybe");
}

// ---------------------------------------------------------------- bounds ---

TEST(Bounds, ManyOriginsFoldAndTheKindStays) {
  std::string Body = "std::vector<AsyncCopyDescriptor> v{";
  for (int I = 0; I < 200; ++I)
    Body += "L, ";
  Body += "L}; for (auto &d : v) d.wait_send();";
  Analysed X(kernel(Body));
  EXPECT_EQ(X.waitSend(0), "definite");
  EXPECT_GT(X.A->OriginsFolded, 0u);
  EXPECT_EQ(X.unused(), 0u); // A folded origin is never reported as unused.
}

} // namespace
