//===- MatchDispatchTest.cpp - One matcher per kind for every dma-* check -===//
//
// The dispatch must call the checks as clang's own dispatch of one matcher
// per check did: each check once per node its predicate holds for, in the
// order the checks registered, a member call offered once (it is also a
// call), the checks told when the translation unit starts and ends; through
// clang's finder (the plugin) and through dispatch() (the standalone's walk).
//
//===----------------------------------------------------------------------===//
#include "../../checks/MatchDispatch.h"
#include "TestAst.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/ASTMatchers/ASTMatchers.h"
#include <string>
#include <vector>

using namespace clang;
using namespace clang::ast_matchers;
using dmalint::test::builtinApi;
using dmalint::test::parseKernel;

namespace dmalint::checks {
namespace {

const char *Kernel = R"cc(
  void helper(int);
  void kernel(Ref<float> a, Ref<float> b, DmaSemaphore s) {
    helper(1);
    make_async_copy(a, b, s).start();
  }
)cc";

std::shared_ptr<const ApiIndex> api() {
  return std::shared_ptr<const ApiIndex>(&builtinApi(), [](const ApiIndex *) {});
}

/// What the checks below were called with, in order.
std::vector<std::string> Log;
/// How often the shared predicate was asked.
unsigned NamedCallsAsked = 0;

std::string nameOf(const DynTypedNode &Node) {
  if (const auto *Call = Node.get<CallExpr>())
    if (const FunctionDecl *Callee = Call->getDirectCallee())
      return Callee->getNameAsString() + "()";
  if (const auto *FD = Node.get<FunctionDecl>())
    return FD->getNameAsString();
  return "?";
}

/// Only what the kernel above writes, not the API header's own code.
bool inMainFile(const Stmt &S, ASTContext &Ctx) {
  const SourceManager &SM = Ctx.getSourceManager();
  return SM.isInMainFile(SM.getExpansionLoc(S.getBeginLoc()));
}

bool namedCall(const CallExpr &Call, ASTContext &Ctx, const ApiIndex &) {
  ++NamedCallsAsked;
  const FunctionDecl *Callee = Call.getDirectCallee();
  return Callee && Callee->getIdentifier() && inMainFile(Call, Ctx);
}

bool anyMemberCall(const CXXMemberCallExpr &Call, ASTContext &Ctx, const ApiIndex &) {
  return inMainFile(Call, Ctx);
}

bool namedKernel(const FunctionDecl &FD, ASTContext &, const ApiIndex &) {
  return FD.getIdentifier() && FD.getName() == "kernel" && FD.isThisDeclarationADefinition();
}

/// A check that logs each call back.
class Recorder : public MatchFinder::MatchCallback {
public:
  explicit Recorder(std::string Name) : Name(std::move(Name)) {}
  void run(const MatchFinder::MatchResult &Result) override {
    for (auto &[Id, Node] : Result.Nodes.getMap())
      Log.push_back(Name + ":" + Id + ":" + nameOf(Node));
  }
  void onStartOfTranslationUnit() override { Log.push_back(Name + ":start"); }
  void onEndOfTranslationUnit() override { Log.push_back(Name + ":end"); }

private:
  std::string Name;
};

/// Hands every node to dispatch(), as the standalone's walk does (it hands
/// fewer: MatchedNodes; the dispatch must not care).
class EveryNode : public RecursiveASTVisitor<EveryNode> {
public:
  EveryNode(MatchDispatch &Dispatch, ASTContext &Ctx) : Dispatch(Dispatch), Ctx(Ctx) {}
  bool VisitStmt(Stmt *S) {
    Dispatch.dispatch(DynTypedNode::create(*S), Ctx);
    return true;
  }
  bool VisitDecl(Decl *D) {
    Dispatch.dispatch(DynTypedNode::create(*D), Ctx);
    return true;
  }

private:
  MatchDispatch &Dispatch;
  ASTContext &Ctx;
};

class MatchDispatchTest : public ::testing::Test {
protected:
  void SetUp() override {
    Log.clear();
    NamedCallsAsked = 0;
    AST = parseKernel(Kernel);
    // A registers calls, then functions; B member calls, then the same
    // question about calls as A.
    Dispatch.add<CallExpr, namedCall>(A, "call", api());
    Dispatch.add<FunctionDecl, namedKernel>(A, "function", api());
    Dispatch.add<CXXMemberCallExpr, anyMemberCall>(B, "member", api());
    Dispatch.add<CallExpr, namedCall>(B, "call", api());
  }

  std::unique_ptr<ASTUnit> AST;
  MatchFinder Finder;
  MatchDispatch Dispatch{Finder};
  Recorder A{"A"}, B{"B"};
};

// Nodes in the order of the walk (each walks a statement before its
// children); at each node, the checks in the order they registered: A's
// question about calls, then B's about member calls and its own about calls.
const std::vector<std::string> Expected = {
    "A:function:kernel",
    "A:call:helper()",
    "B:call:helper()",
    "A:call:start()",
    "B:member:start()",
    "B:call:start()",
    "A:call:make_async_copy()",
    "B:call:make_async_copy()"};

TEST_F(MatchDispatchTest, ThroughTheFinderChecksAreCalledInRegistrationOrder) {
  Finder.matchAST(AST->getASTContext());
  std::vector<std::string> WithUnit = {"A:start", "B:start"};
  WithUnit.insert(WithUnit.end(), Expected.begin(), Expected.end());
  WithUnit.push_back("A:end");
  WithUnit.push_back("B:end");
  EXPECT_EQ(Log, WithUnit);
}

TEST_F(MatchDispatchTest, ThroughDispatchTheSameCalls) {
  EveryNode(Dispatch, AST->getASTContext()).TraverseAST(AST->getASTContext());
  EXPECT_EQ(Log, Expected);
}

TEST_F(MatchDispatchTest, AQuestionTwoChecksAskIsAskedOncePerNode) {
  // A and B both ask namedCall: once per call of the translation unit.
  struct CountCalls : RecursiveASTVisitor<CountCalls> {
    unsigned N = 0;
    bool VisitCallExpr(CallExpr *) { return ++N, true; }
  } Calls;
  Calls.TraverseAST(AST->getASTContext());
  EveryNode(Dispatch, AST->getASTContext()).TraverseAST(AST->getASTContext());
  EXPECT_GT(Calls.N, 3u);
  EXPECT_EQ(NamedCallsAsked, Calls.N);
}

TEST_F(MatchDispatchTest, KindsAreWhatTheChecksAskedAbout) {
  std::vector<ASTNodeKind> Kinds = Dispatch.kinds();
  auto Has = [&](ASTNodeKind K) {
    return llvm::any_of(Kinds, [&](ASTNodeKind Asked) { return Asked.isSame(K); });
  };
  EXPECT_EQ(Kinds.size(), 3u); // Each once, though two checks ask about calls.
  EXPECT_TRUE(Has(ASTNodeKind::getFromNodeKind<CallExpr>()));
  EXPECT_TRUE(Has(ASTNodeKind::getFromNodeKind<FunctionDecl>()));
  EXPECT_TRUE(Has(ASTNodeKind::getFromNodeKind<CXXMemberCallExpr>()));
}

} // namespace
} // namespace dmalint::checks
