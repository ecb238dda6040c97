//===- ApiModelTest.cpp - Roles of the built-in model of <tpu/dma.h> -------===//
#include "TestAst.h"
#include "dmalint/ApiModel.h"

using dmalint::test::builtinApi;

using namespace clang;
using namespace clang::ast_matchers;
using dmalint::ApiIndex;
using dmalint::ApiModel;
using dmalint::ApiRole;

namespace {

ApiRole roleOfCall(const std::string &Body) {
  auto AST = dmalint::test::parseKernel(Body);
  const auto *Call = dmalint::test::findOne<CallExpr>(
      *AST, callExpr(hasAncestor(functionDecl(hasName("k")))));
  return Call ? builtinApi().roleOf(Call->getDirectCallee()) : ApiRole::None;
}

const char *Params = "Ref<float> a, Ref<float> b, DmaSemaphore s, DmaSemaphore r, "
                     "AsyncCopyDescriptor d";

TEST(ApiModel, FactoriesHaveTheirRoles) {
  EXPECT_EQ(roleOfCall(std::string("void k(") + Params + ") { make_async_copy(a, b, s); }"),
            ApiRole::LocalFactory);
  EXPECT_EQ(roleOfCall(std::string("void k(") + Params +
                       ") { make_async_remote_copy(a, b, s, r, 1); }"),
            ApiRole::RemoteFactory);
  EXPECT_EQ(roleOfCall(std::string("void k(") + Params + ") { async_copy(a, b, s); }"),
            ApiRole::StartedLocalFactory);
  EXPECT_EQ(roleOfCall(std::string("void k(") + Params +
                       ") { async_remote_copy(a, b, s, r, 1); }"),
            ApiRole::StartedRemoteFactory);
}

TEST(ApiModel, MethodsHaveTheirRoles) {
  EXPECT_EQ(roleOfCall(std::string("void k(") + Params + ") { d.wait_send(); }"),
            ApiRole::WaitSend);
  EXPECT_EQ(roleOfCall(std::string("void k(") + Params + ") { d.wait_recv(); }"),
            ApiRole::WaitRecv);
  EXPECT_EQ(roleOfCall(std::string("void k(") + Params + ") { d.wait(); }"), ApiRole::Wait);
  EXPECT_EQ(roleOfCall(std::string("void k(") + Params + ") { d.start(); }"), ApiRole::Start);
  EXPECT_EQ(roleOfCall(std::string("void k(") + Params + ") { (void)d.is_remote(); }"),
            ApiRole::IsRemote);
}

TEST(ApiModel, SameNamesOutsideTheApiHaveNoRole) {
  // A user's own wait_send on another type, and a free function of the same
  // name in another namespace, are not the API.
  EXPECT_EQ(roleOfCall("struct Other { void wait_send(); };\n"
                       "void k(Other o) { o.wait_send(); }"),
            ApiRole::None);
  EXPECT_EQ(roleOfCall("namespace mine { int make_async_copy(int); }\n"
                       "void k() { mine::make_async_copy(1); }"),
            ApiRole::None);
}

TEST(ApiModel, DescriptorTypeIsRecognisedThroughReferencesAndQualifiers) {
  auto AST = dmalint::test::parseKernel(
      "void k(const AsyncCopyDescriptor &d, AsyncCopyDescriptor *p, DeviceId id) {}");
  const auto *Fn = dmalint::test::findOne<FunctionDecl>(*AST, functionDecl(hasName("k")));
  ASSERT_TRUE(Fn);
  EXPECT_TRUE(builtinApi().isDescriptorType(Fn->getParamDecl(0)->getType()));
  EXPECT_FALSE(builtinApi().isDescriptorType(Fn->getParamDecl(1)->getType())); // a pointer
  EXPECT_FALSE(builtinApi().isDescriptorType(Fn->getParamDecl(2)->getType()));
  EXPECT_TRUE(builtinApi().isDeviceIdType(Fn->getParamDecl(2)->getType()));
}

TEST(ApiModel, CopiesBuffersAndSlices) {
  auto AST = dmalint::test::parseKernel(
      "namespace other { template <typename T> struct Ref { Ref slice(index_t, index_t) const; }; }\n"
      "void k(Ref<float> a, other::Ref<float> o, DmaSemaphore s) {\n"
      "  sync_copy(a.slice(0, 1), a); (void)o.slice(0, 1); make_async_copy(a, a, s);\n}");
  const auto *Sync = dmalint::test::findOne<CallExpr>(
      *AST, callExpr(callee(functionDecl(hasName("sync_copy")))));
  ASSERT_TRUE(Sync);
  EXPECT_TRUE(builtinApi().isSyncCopy(Sync->getDirectCallee()));
  EXPECT_TRUE(builtinApi().isCopy(*Sync));
  EXPECT_TRUE(builtinApi().isBufferType(Sync->getArg(1)->getType()));
  const auto *Factory = dmalint::test::findOne<CallExpr>(
      *AST, callExpr(callee(functionDecl(hasName("make_async_copy")))));
  ASSERT_TRUE(Factory);
  EXPECT_TRUE(builtinApi().isCopy(*Factory));
  auto Slices = match(cxxMemberCallExpr(callee(cxxMethodDecl(hasName("slice")))).bind("s"),
                      AST->getASTContext());
  ASSERT_EQ(Slices.size(), 2u);
  std::vector<bool> Api;
  for (auto &Node : Slices)
    Api.push_back(
        builtinApi().isSliceMethod(Node.getNodeAs<CXXMemberCallExpr>("s")->getMethodDecl()));
  // tpu::Ref's slice is the API's, other::Ref's is not.
  EXPECT_EQ(Api, (std::vector<bool>{true, false}));
}

TEST(ApiModel, BufferOptionsAreValidatedAndRoundTrip) {
  ApiModel Model = ApiModel::builtin();
  auto Errors = dmalint::applyApiOptions(Model, {{"dma.SliceMethod", "Ref::slice"},
                                                 {"dma.BufferType", "not a name"},
                                                 {"dma.SliceSizeParam", "first"}});
  ASSERT_EQ(Errors.size(), 3u);
  EXPECT_EQ(Model.SliceMethod, "slice"); // Each bad key keeps its earlier value.
  EXPECT_EQ(Model.BufferType, "tpu::Ref");
  ApiModel Mine = ApiModel::builtin();
  EXPECT_TRUE(dmalint::applyApiOptions(Mine, {{"dma.BufferType", "::acme::Buffer"},
                                              {"dma.SliceMethod", "rows"},
                                              {"dma.SliceSizeParam", "0"},
                                              {"dma.SyncCopyFunctions", "acme::copy;acme::put"}})
                  .empty());
  auto Options = dmalint::apiModelOptions(Mine);
  EXPECT_EQ(Options["dma.BufferType"], "::acme::Buffer");
  EXPECT_EQ(Options["dma.SliceMethod"], "rows");
  EXPECT_EQ(Options["dma.SliceSizeParam"], "0");
  EXPECT_EQ(Options["dma.SyncCopyFunctions"], "acme::copy;acme::put");
}

TEST(ApiModel, SemaphorePositionsAreValidatedAndRoundTrip) {
  ApiModel Model = ApiModel::builtin();
  auto Errors = dmalint::applyApiOptions(Model, {{"dma.RemoteFactorySendSemParam", "3"}});
  ASSERT_EQ(Errors.size(), 1u); // The receive semaphore is at 3 too.
  EXPECT_EQ(Errors[0].Key, "dma.RemoteFactoryRecvSemParam");
  EXPECT_EQ(Errors[0].Message, "is the same position as dma.RemoteFactorySendSemParam");
  Model = ApiModel::builtin();
  Errors = dmalint::applyApiOptions(Model, {{"dma.LocalFactorySemParam", "last"}});
  ASSERT_EQ(Errors.size(), 1u);
  EXPECT_EQ(Errors[0].Message,
            "must be a 0-based parameter position (or '-' for none), got 'last'");
  EXPECT_EQ(Model.LocalSemParam, 2u);
  // '-' is only for semaphores: every copy has a start priority position.
  EXPECT_EQ(dmalint::applyApiOptions(Model, {{"dma.StartPriorityParam", "-"}}).size(), 1u);
  ApiModel Mine = ApiModel::builtin();
  EXPECT_TRUE(dmalint::applyApiOptions(Mine, {{"dma.ConstructorDstSemParam", "-"},
                                              {"dma.RemoteFactorySendSemParam", "5"},
                                              {"dma.RemoteFactoryRecvSemParam", "4"}})
                  .empty());
  EXPECT_EQ(Mine.CtorDstSemParam, dmalint::NoPosition);
  auto Options = dmalint::apiModelOptions(Mine);
  EXPECT_EQ(Options["dma.ConstructorDstSemParam"], "-");
  EXPECT_EQ(Options["dma.RemoteFactorySendSemParam"], "5");
  EXPECT_EQ(Options["dma.RemoteFactoryRecvSemParam"], "4");
  EXPECT_EQ(Options["dma.LocalFactorySemParam"], "2");
}

TEST(ApiModel, BarrierOptionsAreValidatedAndRoundTrip) {
  auto ErrorsOf = [](std::map<std::string, std::string> Options) {
    ApiModel Model = ApiModel::builtin();
    std::vector<std::string> Out;
    for (const dmalint::ApiOptionError &E : dmalint::applyApiOptions(Model, Options))
      Out.push_back(E.Key + ": " + E.Message);
    return Out;
  };
  using Errors = std::vector<std::string>;
  EXPECT_EQ(ErrorsOf({{"dma.SemaphoreWaitFunctions", "acme::await:0"}}),
            Errors{"dma.SemaphoreWaitFunctions: 'acme::await:0' is not "
                   "'function:semaphore-position:value-position' (positions from 0 to 64; "
                   "'-' for a value that is always 1)"});
  EXPECT_EQ(ErrorsOf({{"dma.SemaphoreSignalFunctions", "acme::bump:1:1"}}),
            Errors{"dma.SemaphoreSignalFunctions: 'acme::bump:1:1': the semaphore and the "
                   "increment cannot be one parameter"});
  EXPECT_EQ(ErrorsOf({{"dma.SemaphoreWaitFunctions", "tpu::semaphore_signal:0:1"}}),
            Errors{"dma.SemaphoreWaitFunctions: 'tpu::semaphore_signal' is already in "
                   "dma.SemaphoreSignalFunctions; a function has one role"});
  EXPECT_EQ(ErrorsOf({{"dma.AxisSizeFunctions", "::tpu::axis_index"}}),
            Errors{"dma.AxisSizeFunctions: '::tpu::axis_index' is already in "
                   "dma.AxisIndexFunctions; a function has one role"});
  EXPECT_EQ(ErrorsOf({{"dma.SemaphoreSignalFunctions", "tpu::semaphore_signal:2:1"}}),
            Errors{"dma.SemaphoreSignalFunctions: 'tpu::semaphore_signal': position 2 is its "
                   "device id in dma.DeviceIdFunctions"});
  // A configuration older than the signal key may move the built-in signal's
  // device id anywhere.
  EXPECT_EQ(ErrorsOf({{"dma.DeviceIdFunctions", "tpu::semaphore_signal:0:1"}}), Errors{});

  ApiModel Mine = ApiModel::builtin();
  EXPECT_TRUE(dmalint::applyApiOptions(
                  Mine, {{"dma.SemaphoreSignalFunctions", "::acme::signal_peer:0:-;acme::bump:1:0"},
                         {"dma.SemaphoreWaitFunctions", "acme::await_signals:1:0"},
                         {"dma.AxisIndexFunctions", "acme::my_rank"},
                         {"dma.AxisSizeFunctions", ""}})
                  .empty());
  ASSERT_EQ(Mine.SignalFunctions.size(), 2u);
  EXPECT_EQ(Mine.SignalFunctions[0].AmountParam, dmalint::NoPosition);
  auto Options = dmalint::apiModelOptions(Mine);
  EXPECT_EQ(Options["dma.SemaphoreSignalFunctions"], "::acme::signal_peer:0:-;acme::bump:1:0");
  EXPECT_EQ(Options["dma.SemaphoreWaitFunctions"], "acme::await_signals:1:0");
  EXPECT_EQ(Options["dma.AxisIndexFunctions"], "acme::my_rank");
  EXPECT_EQ(Options["dma.AxisSizeFunctions"], "");
  auto Builtin = dmalint::apiModelOptions(ApiModel::builtin());
  EXPECT_EQ(Builtin["dma.SemaphoreSignalFunctions"], "tpu::semaphore_signal:0:1");
  EXPECT_EQ(Builtin["dma.SemaphoreWaitFunctions"], "tpu::semaphore_wait:0:1");
}

TEST(ApiModel, BarrierFunctionsHaveTheirRoles) {
  auto AST = dmalint::test::parseKernel(
      "void k(Semaphore s) { semaphore_signal(s); semaphore_wait(s); axis_index(\"x\"); "
      "axis_size(\"x\"); program_id(0); }");
  ApiIndex Index(ApiModel::builtin());
  auto Called = [&](const char *Name) {
    return dmalint::test::findOne<FunctionDecl>(
        *AST, functionDecl(hasName(Name), hasAncestor(namespaceDecl(hasName("tpu")))));
  };
  EXPECT_TRUE(Index.semaphoreSignalOf(Called("semaphore_signal")));
  EXPECT_FALSE(Index.semaphoreWaitOf(Called("semaphore_signal")));
  ASSERT_TRUE(Index.semaphoreWaitOf(Called("semaphore_wait")));
  EXPECT_EQ(Index.semaphoreWaitOf(Called("semaphore_wait"))->AmountParam, 1u);
  EXPECT_EQ(Index.axisQueryOf(Called("axis_index")), dmalint::AxisQuery::Index);
  EXPECT_EQ(Index.axisQueryOf(Called("axis_size")), dmalint::AxisQuery::Size);
  EXPECT_EQ(Index.axisQueryOf(Called("program_id")), dmalint::AxisQuery::None);
  // A file that only waits a barrier uses the API.
  EXPECT_TRUE(Index.declaredIn(AST->getASTContext()));
}

// The API is matched by qualified name without printing it; the comparison
// must agree with clang's printed name in every kind of context, and reject
// a name that differs in any component.
TEST(ApiModel, QualifiedNamesAgreeWithClangsPrintedNames) {
  auto AST = dmalint::test::parseKernel(R"(
struct Top {};
namespace outer { struct Plain {}; namespace inner { void f(); } }
namespace outer::inner { struct Nested {}; }
namespace { struct Hidden {}; }
namespace lib { inline namespace v1 { struct Versioned {}; } }
namespace lib { struct Holder { struct Member {}; void method(); }; }
extern "C++" { namespace linked { struct InBlock {}; } }
template <typename T> struct Box { struct Inside {}; };
template struct Box<int>;
void local() { struct Local {}; }
)");
  ASSERT_TRUE(AST);
  auto Decls = match(namedDecl(isExpansionInMainFile()).bind("n"), AST->getASTContext());
  unsigned Checked = 0;
  for (const auto &Bound : Decls) {
    const auto *D = Bound.getNodeAs<NamedDecl>("n");
    if (!D->getIdentifier())
      continue;
    std::string Printed = D->getQualifiedNameAsString();
    EXPECT_TRUE(dmalint::hasQualifiedName(D, Printed)) << Printed;
    EXPECT_FALSE(dmalint::hasQualifiedName(D, "x" + Printed)) << Printed;
    EXPECT_FALSE(dmalint::hasQualifiedName(D, "x::" + Printed)) << Printed;
    EXPECT_FALSE(dmalint::hasQualifiedName(D, Printed + "x")) << Printed;
    auto Separator = Printed.find("::");
    if (Separator != std::string::npos) {
      EXPECT_FALSE(dmalint::hasQualifiedName(D, Printed.substr(Separator + 2))) << Printed;
      EXPECT_FALSE(dmalint::hasQualifiedName(D, Printed.substr(1))) << Printed;
    }
    ++Checked;
  }
  EXPECT_GE(Checked, 12u);
  // What the API model's names rely on.
  auto Named = [&](const char *Name) {
    // Not the class's own injected name, an implicit member of it.
    return dmalint::test::findOne<NamedDecl>(
        *AST, namedDecl(hasName(Name), isExpansionInMainFile(), unless(isImplicit())));
  };
  EXPECT_TRUE(dmalint::hasQualifiedName(Named("Nested"), "outer::inner::Nested"));
  EXPECT_TRUE(dmalint::hasQualifiedName(Named("Versioned"), "lib::Versioned"));
  EXPECT_TRUE(dmalint::hasQualifiedName(Named("InBlock"), "linked::InBlock"));
  EXPECT_TRUE(dmalint::hasQualifiedName(Named("Member"), "lib::Holder::Member"));
  EXPECT_FALSE(dmalint::hasQualifiedName(Named("Plain"), "Plain"));
}

} // namespace
