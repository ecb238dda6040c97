//===- MatchDispatch.cpp - One matcher per kind of node for every dma-* check ===//
#include "MatchDispatch.h"
#include "clang/ASTMatchers/ASTMatchers.h"

using namespace clang;
using namespace clang::ast_matchers;

namespace dmalint::checks {

namespace {
/// The one matcher of each root kind: asks the dispatch.
AST_POLYMORPHIC_MATCHER_P(selectedBy, AST_POLYMORPHIC_SUPPORTED_TYPES(Decl, Stmt),
                          MatchDispatch *, Dispatch) {
  return Dispatch->select(DynTypedNode::create(Node), Finder->getASTContext());
}

/// Hands each set of bound nodes (there is one) to a check.
class CallBack : public clang::ast_matchers::internal::BoundNodesTreeBuilder::Visitor {
public:
  CallBack(MatchFinder::MatchCallback &Check, ASTContext &Ctx) : Check(Check), Ctx(Ctx) {}
  void visitMatch(const BoundNodes &Nodes) override {
    Check.run(MatchFinder::MatchResult(Nodes, &Ctx));
  }

private:
  MatchFinder::MatchCallback &Check;
  ASTContext &Ctx;
};
} // namespace

MatchDispatch::Root *MatchDispatch::rootOf(ASTNodeKind Kind) {
  for (Root &R : Roots)
    if (R.Kind.isBaseOf(Kind))
      return &R;
  return nullptr;
}

void MatchDispatch::addEntry(MatchFinder::MatchCallback &Check, StringRef Id,
                             std::shared_ptr<const ApiIndex> Api, ASTNodeKind Kind,
                             ASTNodeKind RootKind, ErasedPredicate Holds) {
  Root *R = nullptr;
  for (Root &Existing : Roots)
    if (Existing.Kind.isSame(RootKind))
      R = &Existing;
  if (!R) {
    // The first entry of this kind: its matcher goes to the finder here, so
    // among other clang-tidy checks' matchers it runs where the first dma-*
    // check's would have.
    Roots.push_back({RootKind, {}});
    R = &Roots.back();
    if (RootKind.isSame(ASTNodeKind::getFromNodeKind<CallExpr>()))
      Finder.addMatcher(callExpr(selectedBy(this)), this);
    else if (RootKind.isSame(ASTNodeKind::getFromNodeKind<CXXConstructExpr>()))
      Finder.addMatcher(cxxConstructExpr(selectedBy(this)), this);
    else if (RootKind.isSame(ASTNodeKind::getFromNodeKind<FunctionDecl>()))
      Finder.addMatcher(functionDecl(selectedBy(this)), this);
    else
      Finder.addMatcher(cxxRecordDecl(selectedBy(this)), this);
  }
  R->Entries.push_back({&Check, Id.str(), std::move(Api), Kind, Holds});
  if (!llvm::is_contained(Checks, &Check))
    Checks.push_back(&Check);
}

std::vector<ASTNodeKind> MatchDispatch::kinds() const {
  std::vector<ASTNodeKind> Kinds;
  for (const Root &R : Roots)
    for (const Entry &E : R.Entries)
      if (llvm::none_of(Kinds, [&](ASTNodeKind K) { return K.isSame(E.Kind); }))
        Kinds.push_back(E.Kind);
  return Kinds;
}

bool MatchDispatch::select(const DynTypedNode &Node, ASTContext &Ctx) {
  Holding.clear();
  Root *R = rootOf(Node.getNodeKind());
  if (!R)
    return false;
  // Several checks ask the same question (whether a function uses the API,
  // whether a call takes a device id): asked once per node.
  struct Answer {
    ErasedPredicate Holds;
    const ApiIndex *Api;
    bool Value;
  };
  llvm::SmallVector<Answer, 8> Answers;
  for (const Entry &E : R->Entries) {
    if (!E.Kind.isBaseOf(Node.getNodeKind()))
      continue;
    const Answer *Known = llvm::find_if(
        Answers, [&](const Answer &A) { return A.Holds == E.Holds && A.Api == E.Api.get(); });
    bool Value;
    if (Known != Answers.end()) {
      Value = Known->Value;
    } else {
      Value = E.Holds(Node, Ctx, *E.Api);
      Answers.push_back({E.Holds, E.Api.get(), Value});
    }
    if (Value)
      Holding.push_back(&E);
  }
  Selected = Node;
  return !Holding.empty();
}

void MatchDispatch::runSelected(const DynTypedNode &Node, ASTContext &Ctx) {
  // A copy: a check's callback may match nodes of its own.
  llvm::SmallVector<const Entry *, 8> Run = Holding;
  for (const Entry *E : Run) {
    clang::ast_matchers::internal::BoundNodesTreeBuilder Builder;
    Builder.setBinding(E->Id, Node);
    CallBack Visitor(*E->Check, Ctx);
    Builder.visitMatches(&Visitor);
  }
}

void MatchDispatch::run(const MatchFinder::MatchResult &Result) {
  runSelected(Selected, *Result.Context);
}

void MatchDispatch::dispatch(const DynTypedNode &Node, ASTContext &Ctx) {
  if (select(Node, Ctx))
    runSelected(Node, Ctx);
}

void MatchDispatch::onStartOfTranslationUnit() {
  for (MatchFinder::MatchCallback *Check : Checks)
    Check->onStartOfTranslationUnit();
}

void MatchDispatch::onEndOfTranslationUnit() {
  for (MatchFinder::MatchCallback *Check : Checks)
    Check->onEndOfTranslationUnit();
}

} // namespace dmalint::checks
