//===- ApiModelTest.cpp - Roles of the built-in model of <tpu/dma.h> -------===//
#include "TestAst.h"
#include "dmalint/ApiModel.h"

using namespace clang;
using namespace clang::ast_matchers;
using dmalint::ApiIndex;
using dmalint::ApiModel;
using dmalint::ApiRole;

namespace {

const ApiIndex &api() {
  static ApiIndex Index(ApiModel::builtin());
  return Index;
}

ApiRole roleOfCall(const std::string &Body) {
  auto AST = dmalint::test::parseKernel(Body);
  const auto *Call = dmalint::test::findOne<CallExpr>(
      *AST, callExpr(hasAncestor(functionDecl(hasName("k")))));
  return Call ? api().roleOf(Call->getDirectCallee()) : ApiRole::None;
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
  EXPECT_TRUE(api().isDescriptorType(Fn->getParamDecl(0)->getType()));
  EXPECT_FALSE(api().isDescriptorType(Fn->getParamDecl(1)->getType())); // a pointer
  EXPECT_FALSE(api().isDescriptorType(Fn->getParamDecl(2)->getType()));
  EXPECT_TRUE(api().isDeviceIdType(Fn->getParamDecl(2)->getType()));
}

} // namespace
