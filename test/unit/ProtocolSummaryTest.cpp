//===- ProtocolSummaryTest.cpp - What a helper starts and waits, for its callers ===//
#include "TestAst.h"
#include "dmalint/AnalysisCache.h"
#include "dmalint/Arguments.h"
#include "dmalint/AstUtil.h"
#include "dmalint/Protocol.h"
#include "clang/AST/ExprCXX.h"

using namespace clang;
using namespace clang::ast_matchers;

namespace {

const dmalint::ApiIndex &api() {
  static dmalint::ApiIndex Index(dmalint::ApiModel::builtin());
  return Index;
}

/// The analysis and summary of the function \p Name of \p Code, analysed
/// through the cache (so the helpers it calls have summaries of their own).
struct Summarised {
  std::unique_ptr<ASTUnit> AST;
  const FunctionDecl *Function = nullptr;
  const dmalint::FunctionAnalysis *Analysis = nullptr;
  std::optional<dmalint::ProtocolSummary> Summary;
};
Summarised summarise(const std::string &Code, const std::string &Name) {
  static const dmalint::AnalysisLimits Limits;
  Summarised S;
  S.AST = dmalint::test::parseKernel(Code);
  ASTContext &Ctx = S.AST->getASTContext();
  S.Function = dmalint::test::findOne<FunctionDecl>(
      *S.AST, functionDecl(hasName(Name), isDefinition(), unless(isImplicit())));
  if (!S.Function)
    return S;
  dmalint::AnalysisCache &Cache = dmalint::AnalysisCache::current();
  Cache.reset();
  S.Analysis = &Cache.analysis(*S.Function, Ctx, api(), Limits);
  S.Summary = dmalint::summariseProtocol(*S.Analysis, *S.Function, Ctx, api());
  return S;
}

constexpr const char *StartOrWait =
    "void copy_or_wait(Ref<float> src, Ref<float> dst, SemaphoreArray<DmaSemaphore> s,\n"
    "                  int slot, bool wait) {\n"
    "  AsyncCopyDescriptor c = make_async_copy(src, dst.at(slot), s.at(0, slot));\n"
    "  if (wait)\n"
    "    c.wait();\n"
    "  else\n"
    "    c.start();\n"
    "}\n";

TEST(ProtocolSummary, StartsAndWaitsInTermsOfParameters) {
  Summarised S = summarise(StartOrWait, "copy_or_wait");
  ASSERT_TRUE(S.Summary);
  const dmalint::ProtocolSummary &P = *S.Summary;
  ASSERT_EQ(P.Starts.size(), 1u);
  const dmalint::HelperStart &Start = P.Starts[0];
  EXPECT_EQ(Start.Kind, dmalint::Remoteness::Local);
  EXPECT_EQ(Start.Receive.Param, 2u);
  ASSERT_EQ(Start.Receive.Indices.size(), 2u);
  EXPECT_TRUE(Start.Receive.Indices[0].Constant);
  EXPECT_EQ(Start.Receive.Indices[1].Param, 3);
  ASSERT_TRUE(Start.Target);
  EXPECT_EQ(Start.Target->Param, 1u);
  ASSERT_EQ(Start.Target->Steps.size(), 1u);
  EXPECT_EQ(Start.Target->Steps[0].Start.Param, 3);
  EXPECT_FALSE(Start.Target->Inexact);
  // Started only when `wait` is false, waited only when it is true.
  ASSERT_EQ(Start.When.size(), 1u);
  EXPECT_EQ(Start.When[0].Param, 4u);
  EXPECT_FALSE(Start.When[0].Holds);
  ASSERT_EQ(P.Waits.size(), 1u);
  EXPECT_TRUE(P.Waits[0].Exact);
  EXPECT_FALSE(P.Waits[0].Placeholder);
  ASSERT_EQ(P.Waits[0].When.size(), 1u);
  EXPECT_TRUE(P.Waits[0].When[0].Holds);
  EXPECT_TRUE(P.followed(2)); // The semaphore array: only in copies.
}

TEST(ProtocolSummary, AStartTheHelperItselfWaitsIsNotInFlightAfterIt) {
  Summarised S = summarise("void fetch_and_wait(Ref<float> a, Ref<float> b, DmaSemaphore s) {\n"
                           "  make_async_copy(a, b, s).start();\n"
                           "  make_async_copy(a, b, s).wait();\n"
                           "}\n",
                           "fetch_and_wait");
  ASSERT_TRUE(S.Summary);
  EXPECT_TRUE(S.Summary->Starts.empty());
  ASSERT_EQ(S.Summary->Waits.size(), 1u);
  EXPECT_TRUE(S.Summary->followed(2));
}

TEST(ProtocolSummary, AnIndexTheSummaryCannotNameTruncatesTheView) {
  Summarised S = summarise("void pages(Ref<float> a, Ref<float> b, DmaSemaphore s, int slot,\n"
                           "           const int *page) {\n"
                           "  make_async_copy(a, b.at(slot).at(*page), s).start();\n"
                           "}\n",
                           "pages");
  ASSERT_TRUE(S.Summary);
  ASSERT_EQ(S.Summary->Starts.size(), 1u);
  const std::optional<dmalint::SummaryBuffer> &Target = S.Summary->Starts[0].Target;
  ASSERT_TRUE(Target);
  EXPECT_EQ(Target->Steps.size(), 1u); // b.at(slot), and a view inside it.
  EXPECT_TRUE(Target->Inexact);
}

TEST(ProtocolSummary, ParametersHandedOnStoredOrCapturedAreNotFollowed) {
  const char *Code = "void elsewhere(DmaSemaphore s);\n"
                     "DmaSemaphore kept;\n"
                     "void helper(Ref<float> a, DmaSemaphore handed, DmaSemaphore stored,\n"
                     "            DmaSemaphore captured, DmaSemaphore copied,\n"
                     "            std::vector<AsyncCopyDescriptor> &out, DmaSemaphore plain) {\n"
                     "  elsewhere(handed);\n"
                     "  kept = stored;\n"
                     "  auto f = [&] { make_async_copy(a, a, captured).wait(); };\n"
                     "  f();\n"
                     "  out.push_back(make_async_copy(a, a, copied));\n"
                     "  make_async_copy(a, a, plain).wait();\n"
                     "}\n";
  Summarised S = summarise(Code, "helper");
  ASSERT_TRUE(S.Summary);
  EXPECT_FALSE(S.Summary->followed(1));
  EXPECT_FALSE(S.Summary->followed(2));
  EXPECT_FALSE(S.Summary->followed(3));
  EXPECT_FALSE(S.Summary->followed(4));
  EXPECT_TRUE(S.Summary->followed(6));
}

TEST(ProtocolSummary, TheCopyAWrapperOfTheFactoryReturns) {
  // Made in the return statement, on a semaphore and a view its parameters
  // name: the caller's own copy, and its semaphore parameter is followed.
  Summarised Wrapper = summarise(
      "AsyncCopyDescriptor block(Ref<float> hbm, Ref<float> buf,\n"
      "                          SemaphoreArray<DmaSemaphore> s, int slot) {\n"
      "  return make_async_copy(hbm, buf.at(slot), s.at(slot));\n}\n",
      "block");
  ASSERT_TRUE(Wrapper.Summary && Wrapper.Summary->Returned);
  const dmalint::ReturnedCopy &R = *Wrapper.Summary->Returned;
  EXPECT_EQ(R.Receive.Param, 2u);
  ASSERT_EQ(R.Receive.Indices.size(), 1u);
  EXPECT_EQ(R.Receive.Indices[0].Param, 3);
  ASSERT_TRUE(R.Target && R.Source);
  EXPECT_EQ(R.Target->Param, 1u);
  ASSERT_EQ(R.Target->Steps.size(), 1u);
  EXPECT_EQ(R.Target->Steps[0].Start.Param, 3);
  EXPECT_EQ(R.Source->Param, 0u);
  EXPECT_TRUE(Wrapper.Summary->followed(2));

  // Kept elsewhere too, one of two, or on a semaphore of its own: none.
  for (const char *Body :
       {"AsyncCopyDescriptor c = make_async_copy(a, a, s);\n  remember(c);\n  return c;",
        "if (b)\n    return make_async_copy(a, a, s);\n  return make_async_copy(a, a.at(0), s);",
        "remember_sem(s);\n  return make_async_copy(a, a, own);"}) {
    Summarised S = summarise(std::string("void remember(AsyncCopyDescriptor &c);\n"
                                         "void remember_sem(DmaSemaphore s);\n"
                                         "DmaSemaphore own;\n"
                                         "AsyncCopyDescriptor w(Ref<float> a, DmaSemaphore s, "
                                         "bool b) {\n  ") +
                                 Body + "\n}\n",
                             "w");
    ASSERT_TRUE(S.Summary) << Body;
    EXPECT_FALSE(S.Summary->Returned) << Body;
    EXPECT_FALSE(S.Summary->followed(1)) << Body;
  }
}

TEST(ProtocolSummary, TheRemoteCopyAWrapperReturnsNamesItsSendSemaphore) {
  // A remote copy: its send semaphore too, in the parameters; both semaphore
  // parameters followed. A local copy has none.
  Summarised Hop = summarise(
      "AsyncCopyDescriptor hop(Ref<float> a, SemaphoreArray<DmaSemaphore> send,\n"
      "                        DmaSemaphore recv, int slot, int peer) {\n"
      "  return make_async_remote_copy(a, a, send[slot], recv, DeviceId(peer));\n}\n",
      "hop");
  ASSERT_TRUE(Hop.Summary && Hop.Summary->Returned);
  const dmalint::ReturnedCopy &R = *Hop.Summary->Returned;
  EXPECT_EQ(R.Receive.Param, 2u);
  ASSERT_TRUE(R.Send);
  EXPECT_EQ(R.Send->Param, 1u);
  ASSERT_EQ(R.Send->Indices.size(), 1u);
  EXPECT_EQ(R.Send->Indices[0].Param, 3);
  EXPECT_TRUE(Hop.Summary->followed(1));
  EXPECT_TRUE(Hop.Summary->followed(2));
  Summarised Local = summarise(
      "AsyncCopyDescriptor stage(Ref<float> a, DmaSemaphore s) {\n"
      "  return make_async_copy(a, a, s);\n}\n",
      "stage");
  ASSERT_TRUE(Local.Summary && Local.Summary->Returned);
  EXPECT_FALSE(Local.Summary->Returned->Send);
  // A send semaphore the summary cannot name (a global): no returned copy.
  Summarised Global = summarise(
      "DmaSemaphore g_send;\n"
      "AsyncCopyDescriptor hop2(Ref<float> a, DmaSemaphore recv, int peer) {\n"
      "  return make_async_remote_copy(a, a, g_send, recv, DeviceId(peer));\n}\n",
      "hop2");
  ASSERT_TRUE(Global.Summary);
  EXPECT_FALSE(Global.Summary->Returned);
}

TEST(ProtocolSummary, NamesAtACall) {
  std::string Code = std::string(StartOrWait) +
                     "void caller(Ref<float> h, Ref<float> buf, SemaphoreArray<DmaSemaphore> "
                     "sems, int step) {\n"
                     "  const int next = 1 - step % 2;\n"
                     "  copy_or_wait(h, buf, sems, next, false);\n"
                     "}\n";
  Summarised S = summarise(Code, "caller");
  ASSERT_TRUE(S.Analysis);
  ASSERT_EQ(S.Analysis->ProtocolCalls.size(), 1u);
  const dmalint::ProtocolCall &PC = S.Analysis->ProtocolCalls[0];
  ASSERT_EQ(PC.Summary.Starts.size(), 1u);
  EXPECT_TRUE(PC.StartDecided[0]); // wait == false here.
  EXPECT_FALSE(PC.WaitDecided[0]);
  EXPECT_TRUE(PC.Summary.Waits[0].Semaphores.empty()); // Cannot happen here.
  const ASTContext &Ctx = S.AST->getASTContext();
  const dmalint::HelperStart &Start = PC.Summary.Starts[0];
  EXPECT_EQ(dmalint::spellAtCall(Start.Receive, PC.Args, Ctx), "sems.at(0, next)");
  EXPECT_EQ(dmalint::spellAtCall(*Start.Target, PC.Args, Ctx), "buf.at(next)");
  dmalint::UnwrittenVariables Vars(*S.Function, api());
  std::optional<dmalint::SemaphoreName> N =
      dmalint::semaphoreAtCall(Start.Receive, PC.Args, Vars, Ctx);
  ASSERT_TRUE(N);
  EXPECT_EQ(N->Root->getName(), "sems");
  EXPECT_EQ(N->Indices.size(), 2u);
  // The copy is in flight after the call, as an origin of the caller.
  ASSERT_EQ(PC.StartOrigins.size(), 1u);
  EXPECT_NE(PC.StartOrigins[0], 0u);
  EXPECT_TRUE(llvm::is_contained(S.Analysis->InFlightAtExit, PC.StartOrigins[0]));
}

TEST(ProtocolSummary, NamesAtALambdaCall) {
  // What the lambda returns, named at each call: parameters become the
  // call's arguments, captured variables the function never writes stay;
  // a local of the lambda, or a parameter it writes, cannot be named.
  std::unique_ptr<ASTUnit> AST = dmalint::test::parseKernel(
      "void kernel(Ref<float> hbm, Ref<float> buf, SemaphoreArray<DmaSemaphore> sems,\n"
      "            DmaSemaphore sem, int step) {\n"
      "  const int slot = step % 2;\n"
      "  auto fetch = [&](int s, int b) { return make_async_copy(hbm.at(b), buf.at(s), sem); };\n"
      "  auto other = [&](DmaSemaphore x, int s) {\n"
      "    const int p = s;\n"
      "    s = 0;\n"
      "    return make_async_copy(hbm, buf.at(p).at(s), x);\n"
      "  };\n"
      "  fetch(1 - slot, step + 1).start();\n"
      "  other(sems[1], slot).start();\n"
      "}\n");
  ASTContext &Ctx = AST->getASTContext();
  const auto *Kernel = dmalint::test::findOne<FunctionDecl>(*AST, functionDecl(hasName("kernel")));
  ASSERT_TRUE(Kernel);
  dmalint::UnwrittenVariables Vars(*Kernel, api());
  auto CallOf = [&](const char *Name) {
    const auto *Call = dmalint::test::findOne<CXXOperatorCallExpr>(
        *AST, cxxOperatorCallExpr(hasArgument(0, declRefExpr(to(varDecl(hasName(Name)))))));
    return Call ? dmalint::lambdaCall(Call) : std::nullopt;
  };
  auto Names = [&](const dmalint::LambdaCall &C) {
    const Expr *Copy = dmalint::returnedConstruction(*C.Lambda->getCallOperator());
    EXPECT_TRUE(Copy && api().isCopy(*Copy));
    const Expr *Sem = dmalint::copySemaphores(Copy, api()).Receive;
    const Expr *Target = dmalint::copyBuffers(Copy, api()).Target;
    return std::make_pair(*dmalint::semaphoreName(Sem, Vars),
                          *dmalint::bufferName(Target, api(), Vars));
  };

  std::optional<dmalint::LambdaCall> Fetch = CallOf("fetch");
  ASSERT_TRUE(Fetch);
  ASSERT_EQ(Fetch->Args.size(), 2u);
  auto [FetchSem, FetchTarget] = Names(*Fetch);
  std::optional<dmalint::SemaphoreName> S = dmalint::semaphoreAtLambdaCall(FetchSem, *Fetch, Vars);
  ASSERT_TRUE(S);
  EXPECT_EQ(S->Root->getName(), "sem");
  EXPECT_TRUE(S->Indices.empty());
  std::optional<dmalint::BufferName> T =
      dmalint::bufferAtLambdaCall(FetchTarget, *Fetch, api(), Vars);
  ASSERT_TRUE(T);
  EXPECT_EQ(T->Root->getName(), "buf");
  ASSERT_EQ(T->Steps.size(), 1u);
  EXPECT_EQ(T->Steps[0].Start, Fetch->Args[0]); // 1 - slot
  EXPECT_FALSE(T->Inexact);
  EXPECT_EQ(dmalint::spellAtLambdaCall(FetchTarget, *Fetch, Ctx), "buf.at(1 - slot)");
  EXPECT_EQ(dmalint::spellAtLambdaCall(FetchSem, *Fetch, Ctx), "sem");

  std::optional<dmalint::LambdaCall> Other = CallOf("other");
  ASSERT_TRUE(Other);
  auto [OtherSem, OtherTarget] = Names(*Other);
  S = dmalint::semaphoreAtLambdaCall(OtherSem, *Other, Vars);
  ASSERT_TRUE(S); // The argument's name: sems[1].
  EXPECT_EQ(S->Root->getName(), "sems");
  ASSERT_EQ(S->Indices.size(), 1u);
  EXPECT_EQ(dmalint::spellAtLambdaCall(OtherSem, *Other, Ctx), "sems[1]");
  T = dmalint::bufferAtLambdaCall(OtherTarget, *Other, api(), Vars);
  ASSERT_TRUE(T); // buf, inside a view it cannot name (p is the lambda's).
  EXPECT_EQ(T->Root->getName(), "buf");
  EXPECT_TRUE(T->Steps.empty());
  EXPECT_TRUE(T->Inexact);

  // Not a lambda's call: none.
  const auto *Factory = dmalint::test::findOne<CallExpr>(
      *AST, callExpr(callee(functionDecl(hasName("make_async_copy"))),
                     hasAncestor(varDecl(hasName("fetch")))));
  ASSERT_TRUE(Factory);
  EXPECT_FALSE(dmalint::lambdaCall(Factory));
}

} // namespace

// A class that keeps copies (a MultiPageAsyncCopyDescriptor port): the
// constructor's summary names what it stores and what it sets its members
// to, in its parameters; a member function's names what it starts and waits
// in terms of the object (its copies' path, its members).
constexpr const char *PageClass =
    "void elsewhere(DmaSemaphore s);\n"
    "class Pages {\n"
    " public:\n"
    "  Pages(Ref<float> hbm, Ref<float> buf, DmaSemaphore sem, int n)\n"
    "      : hbm_(hbm), buf_(buf.at(1)), sem_(sem) {\n"
    "    for (int i = 0; i < n; ++i)\n"
    "      copies_.push_back(make_async_copy(hbm.at(i), buf.at(i), sem));\n"
    "  }\n"
    "  void start() { for (AsyncCopyDescriptor &c : copies_) c.start(); }\n"
    "  void wait_members() { make_async_copy(hbm_, buf_.at(0), sem_).wait(); }\n"
    "  void hand_on() { elsewhere(sem_); }\n"
    " private:\n"
    "  Ref<float> hbm_, buf_;\n"
    "  DmaSemaphore sem_;\n"
    "  std::vector<AsyncCopyDescriptor> copies_;\n"
    "};\n";

TEST(ProtocolSummary, AConstructorNamesWhatItStoresAndSetsInItsParameters) {
  Summarised S = summarise(PageClass, "Pages");
  ASSERT_TRUE(S.Summary);
  const dmalint::ProtocolSummary &P = *S.Summary;
  ASSERT_EQ(P.Stored.size(), 1u);
  const dmalint::ReturnedCopy &Stored = P.Stored[0].Copy;
  EXPECT_EQ(Stored.Receive.Member, nullptr);
  EXPECT_EQ(Stored.Receive.Param, 2u);
  ASSERT_TRUE(Stored.Target);
  EXPECT_EQ(Stored.Target->Param, 1u);
  EXPECT_TRUE(Stored.Target->Inexact); // buf.at(i): i is the loop's.
  const dmalint::MemberInit *Sem = nullptr, *Buf = nullptr;
  for (const dmalint::MemberInit &I : P.MemberInits) {
    if (I.Field->getName() == "sem_")
      Sem = &I;
    if (I.Field->getName() == "buf_")
      Buf = &I;
  }
  ASSERT_TRUE(Sem && Sem->Semaphore);
  EXPECT_EQ(Sem->Semaphore->Param, 2u);
  ASSERT_TRUE(Buf && Buf->Buffer);
  EXPECT_EQ(Buf->Buffer->Param, 1u);
  EXPECT_EQ(Buf->Buffer->Steps.size(), 1u); // buf.at(1)
  // The semaphore is kept by the object: followed only where the object is.
  EXPECT_FALSE(P.followed(2));
  ASSERT_EQ(P.StoredFollowed.size(), 4u);
  EXPECT_TRUE(P.StoredFollowed[2]);
}

TEST(ProtocolSummary, MemberFunctionsNameTheirObjectsCopiesAndMembers) {
  Summarised Start = summarise(PageClass, "start");
  ASSERT_TRUE(Start.Summary);
  ASSERT_EQ(Start.Summary->Starts.size(), 1u);
  EXPECT_TRUE(Start.Summary->Starts[0].ObjectPath.has_value());
  EXPECT_TRUE(Start.Summary->ObjectFollowed);

  Summarised Wait = summarise(PageClass, "wait_members");
  ASSERT_TRUE(Wait.Summary);
  ASSERT_EQ(Wait.Summary->Waits.size(), 1u);
  const dmalint::HelperWait &W = Wait.Summary->Waits[0];
  ASSERT_EQ(W.Semaphores.size(), 1u);
  ASSERT_NE(W.Semaphores[0].Member, nullptr);
  EXPECT_EQ(W.Semaphores[0].Member->getName(), "sem_");
  ASSERT_TRUE(W.Target);
  ASSERT_NE(W.Target->Member, nullptr);
  EXPECT_EQ(W.Target->Member->getName(), "buf_");
  EXPECT_TRUE(W.Exact);
  EXPECT_TRUE(Wait.Summary->ObjectFollowed);

  // Handing a semaphore member to a function it cannot see: not followed.
  Summarised Handed = summarise(PageClass, "hand_on");
  ASSERT_TRUE(Handed.Summary);
  EXPECT_FALSE(Handed.Summary->ObjectFollowed);
}

TEST(ProtocolSummary, AWaitOnAMemberOfAMemberIsUnknownToCallers) {
  // `kv_.sem` holds whatever the object's maker passed in `kv`, and no
  // summary names a member of a member: a wait on it may drain any
  // semaphore of a caller, so the summary says so instead of leaving it out.
  const std::string Code = "struct Slot { Ref<float> buf; DmaSemaphore sem; };\n"
                           "class K {\n"
                           "public:\n"
                           "  explicit K(Slot kv) : kv_(kv) {}\n"
                           "  void drain(int i) {\n"
                           "    make_async_copy(kv_.buf, kv_.buf.at(i), kv_.sem).wait();\n"
                           "  }\n"
                           "  Slot kv_;\n"
                           "};\n";
  Summarised Drain = summarise(Code, "drain");
  ASSERT_TRUE(Drain.Summary);
  ASSERT_EQ(Drain.Summary->Waits.size(), 1u);
  EXPECT_TRUE(Drain.Summary->Waits[0].Unknown);
}
