//===- IdentityTest.cpp - What a finding is about, from the AST -----------===//
#include "../../tool/Identity.h"
#include "TestAst.h"

using dmalint::test::builtinApi;

using namespace clang;
using dmalint::test::parseKernel;

namespace dmalint::tool {
namespace {

/// The start of the first occurrence of \p Needle in the main file.
SourceLocation locationOf(ASTUnit &AST, llvm::StringRef Needle) {
  SourceManager &SM = AST.getSourceManager();
  size_t At = SM.getBufferData(SM.getMainFileID()).find(Needle);
  EXPECT_NE(At, llvm::StringRef::npos) << Needle.str();
  return SM.getLocForStartOfFile(SM.getMainFileID()).getLocWithOffset(At);
}

FindingIdentity identityAt(ASTUnit &AST, llvm::StringRef Needle) {
  return identify(AST.getASTContext(), locationOf(AST, Needle), &builtinApi());
}

TEST(Identity, NamesTheFunctionTheDescriptorAndTheStatementTokens) {
  auto AST = parseKernel(R"cc(
    namespace ns { struct K {
    void run(Ref<float> a, Ref<float> b, DmaSemaphore s, bool c) {
      auto d = make_async_copy(a, b, s);   // a comment
      d.start(/* inline */   -1);
      if (c) d.wait_send();
    }
    }; }
  )cc");
  FindingIdentity Priority = identityAt(*AST, "-1");
  EXPECT_EQ(Priority.Function, "ns::K::run");
  EXPECT_EQ(Priority.Descriptor, "d");
  // Comments and layout are not tokens.
  EXPECT_EQ(Priority.Statement, "d . start ( - 1 )");
  FindingIdentity WaitSend = identityAt(*AST, "wait_send");
  // The branch of the if is the statement, not the if.
  EXPECT_EQ(WaitSend.Statement, "d . wait_send ( )");
  EXPECT_EQ(WaitSend.Descriptor, "d");
  FindingIdentity Construction = identityAt(*AST, "make_async_copy");
  EXPECT_EQ(Construction.Statement, "auto d = make_async_copy ( a , b , s ) ;");
  EXPECT_EQ(Construction.Descriptor, "d");
}

TEST(Identity, ConditionOfAnIfLeavesItsBodiesOut) {
  auto AST = parseKernel(R"cc(
    bool f(AsyncCopyDescriptor &d);
    void k(AsyncCopyDescriptor &d, int n) {
      if (f(d)) {
        n++;
        n--;
      } else { n = 0; }
    }
  )cc");
  FindingIdentity In = identityAt(*AST, "f(d)");
  // The tokens outside the branches: an edit inside them is not an edit of
  // this statement.
  EXPECT_EQ(In.Statement, "if ( f ( d ) ) else");
  EXPECT_EQ(In.Function, "k");
  EXPECT_EQ(In.Descriptor, "d"); // Handed to f.
}

TEST(Identity, LambdaBodiesAreStatementsOfTheEnclosingFunction) {
  auto AST = parseKernel(R"cc(
    template <typename F> void when(bool c, F f) { if (c) f(); }
    void k(AsyncCopyDescriptor &d, bool c) {
      when(c, [&] { d.wait_send(); });
    }
  )cc");
  FindingIdentity In = identityAt(*AST, "wait_send");
  EXPECT_EQ(In.Function, "k");
  EXPECT_EQ(In.Statement, "d . wait_send ( )");
}

TEST(Identity, ElementsAndMembersAreSpeltAsWritten) {
  auto AST = parseKernel(R"cc(
    struct Pair { AsyncCopyDescriptor first; };
    void k(std::vector<AsyncCopyDescriptor> &v, Pair &p) {
      v[0].wait_send();
      p.first.wait_send();
    }
  )cc");
  EXPECT_EQ(identityAt(*AST, "wait_send").Descriptor, "v [ 0 ]");
  EXPECT_EQ(identityAt(*AST, "first.wait_send").Descriptor, "p . first");
}

TEST(Identity, NamespaceScopeHasNoFunction) {
  auto AST = parseKernel(R"cc(
    DeviceId g{0, 1};
  )cc");
  FindingIdentity In = identityAt(*AST, "g{");
  EXPECT_EQ(In.Function, "");
  EXPECT_EQ(In.Statement, "DeviceId g { 0 , 1 }");
}

TEST(Identity, TheEnclosingFunctionSaysWhichFunctionANoteIsIn) {
  auto AST = parseKernel(R"cc(
    void helper(AsyncCopyDescriptor &q) { q.wait_send(); }
    void caller(AsyncCopyDescriptor &d) { helper(d); }
  )cc");
  std::string Helper = enclosingFunction(AST->getASTContext(), locationOf(*AST, "q.wait_send"));
  std::string Caller = enclosingFunction(AST->getASTContext(), locationOf(*AST, "helper(d)"));
  EXPECT_NE(Helper, Caller);
  EXPECT_TRUE(llvm::StringRef(Caller).starts_with("caller@")) << Caller;
  EXPECT_TRUE(llvm::StringRef(Helper).starts_with("helper@")) << Helper;
}

} // namespace
} // namespace dmalint::tool
