//===- MeshArityCheck.cpp -------------------------------------------------===//
#include "MeshArityCheck.h"
#include "dmalint/AnalysisCache.h"
#include "dmalint/Arguments.h"
#include "clang/AST/ParentMapContext.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/ASTMatchers/ASTMatchFinder.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SmallPtrSet.h"

using namespace clang;
using namespace clang::ast_matchers;

namespace dmalint::checks {

void MeshArityCheck::registerDmaMatchers(DmaMatchers &Matchers) {
  // Which function a call is in is found at the end of the translation
  // unit, from the bodies of the functions below: forCallable would build
  // the parent map of the whole translation unit at the first call.
  Matchers.add<CallExpr, takesDeviceId>("call");
  Matchers.add<CXXConstructExpr, takesDeviceId>("call");
  // The functions whose bodies may hold the calls: those that use the API.
  Matchers.add<FunctionDecl, definitionUsingApi>("function");
}

void MeshArityCheck::onStartOfTranslationUnit() {
  Ids.clear();
  Functions.clear();
  Found.clear();
  Bodies.clear();
}

void MeshArityCheck::check(const MatchFinder::MatchResult &Result) {
  if (validateApi(Result))
    return;
  if (const auto *Function = Result.Nodes.getNodeAs<FunctionDecl>("function")) {
    Bodies.push_back(Function);
    return;
  }
  const auto *Call = Result.Nodes.getNodeAs<Expr>("call");
  if (!Call)
    return;
  // No device id written: a local signal or copy.
  DeviceIdArguments Args = deviceIdArguments(Call, *Api);
  if (!Args.Id || isa<CXXDefaultArgExpr>(Args.Id))
    return;
  // The kind as written or by default: the mesh kind is the usual default.
  std::optional<DeviceIdKind> Kind = deviceIdKind(Args.Kind, *Api, *Result.Context);
  std::optional<DeviceIdShape> Shape =
      Kind ? deviceIdShape(Args.Id, *Api, *Result.Context) : std::nullopt;
  // A tuple of coordinates with the logical kind is a mesh id the kind
  // misnames: dma-device-id-type-mismatch reports it, and its fix makes it one.
  if (!Shape || (*Kind != DeviceIdKind::Mesh && Shape->MeshCoordinates < 2))
    return;
  SM = Result.SourceManager;
  Ctx = Result.Context;
  // `DeviceId(x)` (the logical-id constructor) is one coordinate.
  Found.push_back({Call, MeshId{userLocation(Shape->Construction->getBeginLoc(), *SM),
                                std::max(1u, Shape->MeshCoordinates)}});
}

namespace {

/// The innermost function or lambda around each of the statements asked
/// for, in a walk of declarations (as clang's traversal walks them:
/// template instantiations and implicit code included). A statement met
/// under two of them is ambiguous.
class CallableFinder : public RecursiveASTVisitor<CallableFinder> {
  using Base = RecursiveASTVisitor<CallableFinder>;

public:
  CallableFinder(llvm::DenseMap<const Stmt *, const FunctionDecl *> &Place,
                 llvm::DenseSet<const Stmt *> &Ambiguous)
      : Place(Place), Ambiguous(Ambiguous) {}
  bool shouldVisitTemplateInstantiations() const { return true; }
  bool shouldVisitImplicitCode() const { return true; }

  bool TraverseDecl(Decl *D) {
    auto *Function = dyn_cast_or_null<FunctionDecl>(D);
    if (Function)
      Callables.push_back(Function);
    bool Continue = Base::TraverseDecl(D);
    if (Function)
      Callables.pop_back();
    return Continue;
  }
  bool TraverseLambdaExpr(LambdaExpr *Lambda) {
    Callables.push_back(Lambda->getCallOperator());
    bool Continue = Base::TraverseLambdaExpr(Lambda);
    Callables.pop_back();
    return Continue;
  }
  // A default argument or member initialiser is also reached from each
  // call or constructor that uses it: which function it is in is for the
  // parent map to say.
  bool TraverseParmVarDecl(ParmVarDecl *P) {
    Shared Here(*this);
    return Base::TraverseParmVarDecl(P);
  }
  bool TraverseFieldDecl(FieldDecl *F) {
    Shared Here(*this);
    return Base::TraverseFieldDecl(F);
  }
  bool TraverseCXXDefaultArgExpr(CXXDefaultArgExpr *E, DataRecursionQueue *Queue = nullptr) {
    Shared Here(*this);
    return Base::TraverseCXXDefaultArgExpr(E, Queue);
  }
  bool TraverseCXXDefaultInitExpr(CXXDefaultInitExpr *E, DataRecursionQueue *Queue = nullptr) {
    Shared Here(*this);
    return Base::TraverseCXXDefaultInitExpr(E, Queue);
  }
  bool VisitStmt(Stmt *S) {
    auto It = Place.find(S);
    if (It == Place.end())
      return true;
    if (InShared) {
      Ambiguous.insert(S);
      return true;
    }
    const FunctionDecl *Callable = Callables.empty() ? nullptr : Callables.back();
    if (It->second != Callable && (It->second || Met.contains(S)))
      Ambiguous.insert(S);
    It->second = Callable;
    Met.insert(S);
    return true;
  }

private:
  /// While it lives, the walk is in a node shared with other places.
  struct Shared {
    explicit Shared(CallableFinder &F) : F(F) { ++F.InShared; }
    ~Shared() { --F.InShared; }
    CallableFinder &F;
  };

  llvm::DenseMap<const Stmt *, const FunctionDecl *> &Place;
  llvm::DenseSet<const Stmt *> &Ambiguous;
  llvm::DenseSet<const Stmt *> Met;
  unsigned InShared = 0;
  std::vector<const FunctionDecl *> Callables;
};

/// The declaration of the traversal scope (a namespace's member, at any
/// depth of namespaces) whose source holds \p Loc, or null.
Decl *declarationAround(SourceLocation Loc, ASTContext &Ctx) {
  const SourceManager &SM = Ctx.getSourceManager();
  Loc = SM.getExpansionLoc(Loc);
  auto Holds = [&](const Decl *D) {
    SourceRange R = D->getSourceRange();
    if (R.isInvalid())
      return false;
    SourceLocation Begin = SM.getExpansionLoc(R.getBegin());
    SourceLocation End = SM.getExpansionLoc(R.getEnd());
    return !SM.isBeforeInTranslationUnit(Loc, Begin) && !SM.isBeforeInTranslationUnit(End, Loc);
  };
  std::vector<Decl *> Candidates = Ctx.getTraversalScope();
  while (true) {
    Decl *Around = nullptr;
    for (Decl *D : Candidates) {
      if (isa<TranslationUnitDecl>(D)) {
        Candidates.assign(cast<DeclContext>(D)->decls_begin(), cast<DeclContext>(D)->decls_end());
        Around = D;
        break;
      }
      if (!D->isImplicit() && Holds(D)) {
        Around = D;
        break;
      }
    }
    if (!Around)
      return nullptr;
    if (isa<TranslationUnitDecl>(Around))
      continue;
    if (!isa<NamespaceDecl, LinkageSpecDecl>(Around))
      return Around;
    const auto *DC = cast<DeclContext>(Around);
    Candidates.assign(DC->decls_begin(), DC->decls_end());
  }
}

} // namespace

const FunctionDecl *MeshArityCheck::callableOf(const Expr *Call) {
  // What forCallable finds: the nearest function or lambda among the
  // parents. Only for calls no body walk placed (none, in most files): the
  // parent map is built for the whole translation unit.
  DynTypedNodeList Parents = Ctx->getParents(*Call);
  llvm::SmallVector<DynTypedNode, 8> Stack(Parents.begin(), Parents.end());
  while (!Stack.empty()) {
    DynTypedNode Node = Stack.pop_back_val();
    if (const auto *Function = Node.get<FunctionDecl>())
      return Function;
    if (const auto *Lambda = Node.get<LambdaExpr>())
      return Lambda->getCallOperator();
    llvm::append_range(Stack, Ctx->getParents(Node));
  }
  return nullptr;
}

void MeshArityCheck::placeCalls() {
  // Ids of one count everywhere: no function has one that differs.
  if (llvm::all_of(Found, [&](const auto &F) {
        return F.second.Coordinates == Found.front().second.Coordinates;
      }))
    return;
  // The function (or lambda) of each call, from one walk of each body that
  // may hold one: the innermost function whose body holds it. A call met
  // in two bodies (a node two places share) is left to callableOf.
  llvm::DenseMap<const Stmt *, const FunctionDecl *> Place;
  for (const auto &[Call, Id] : Found)
    Place.try_emplace(Call, nullptr);
  llvm::DenseSet<const Stmt *> Ambiguous;
  // Where the calls are written (their expansions), in order: a body whose
  // source holds none of them holds none of the calls, and is not walked.
  std::vector<SourceLocation> Written;
  bool AllWritten = true;
  for (const auto &[Call, Id] : Found) {
    SourceLocation Loc = SM->getExpansionLoc(Call->getBeginLoc());
    AllWritten &= Loc.isValid();
    Written.push_back(Loc);
  }
  auto Before = [&](SourceLocation A, SourceLocation B) {
    return SM->isBeforeInTranslationUnit(A, B);
  };
  // Only valid locations are ordered (isBeforeInTranslationUnit's
  // precondition); with one invalid, every body is walked.
  if (AllWritten)
    llvm::sort(Written, Before);
  auto MayHold = [&](const FunctionDecl *Function) {
    SourceRange R = Function->getSourceRange();
    if (!AllWritten || R.isInvalid())
      return true;
    SourceLocation Begin = SM->getExpansionLoc(R.getBegin());
    SourceLocation End = SM->getExpansionRange(R.getEnd()).getEnd();
    if (Begin.isInvalid() || End.isInvalid())
      return true;
    // The first call written at or after Begin, if it is not after End.
    auto First = std::lower_bound(Written.begin(), Written.end(), Begin, Before);
    return First != Written.end() && !Before(End, *First);
  };
  llvm::SmallVector<std::pair<const Stmt *, const FunctionDecl *>, 32> Pending;
  for (const FunctionDecl *Function : Bodies) {
    if (!MayHold(Function))
      continue;
    Pending.push_back({Function->getBody(), Function});
    // A constructor's member initialisers as written.
    if (const auto *Ctor = dyn_cast<CXXConstructorDecl>(Function))
      for (const CXXCtorInitializer *Init : Ctor->inits())
        if (Init->isWritten())
          Pending.push_back({Init->getInit(), Function});
    while (!Pending.empty()) {
      auto [S, Callable] = Pending.pop_back_val();
      if (!S)
        continue;
      if (auto It = Place.find(S); It != Place.end()) {
        if (It->second && It->second != Callable)
          Ambiguous.insert(S);
        It->second = Callable;
      }
      if (const auto *Lambda = dyn_cast<LambdaExpr>(S))
        Callable = Lambda->getCallOperator();
      for (const Stmt *Child : S->children())
        Pending.push_back({Child, Callable});
    }
  }
  // Calls in no such body (a helper that only signals, a member
  // initialiser): a walk of the declaration around each, with what it holds.
  llvm::SmallPtrSet<Decl *, 4> Walked;
  for (auto &[Call, Id] : Found) {
    if (Place.lookup(Call) || Ambiguous.contains(Call))
      continue;
    Decl *Around = declarationAround(Call->getBeginLoc(), *Ctx);
    if (Around && Walked.insert(Around).second)
      CallableFinder(Place, Ambiguous).TraverseDecl(Around);
  }
  for (auto &[Call, Id] : Found) {
    const FunctionDecl *Function = Place.lookup(Call);
    if (!Function || Ambiguous.contains(Call))
      Function = callableOf(Call);
    // A template pattern is judged in its instantiations.
    if (!Function || Function->isDependentContext())
      continue;
    auto [It, Inserted] = Ids.try_emplace(Function);
    if (Inserted)
      Functions.push_back(Function);
    It->second.push_back(Id);
  }
}

void MeshArityCheck::onEndOfTranslationUnit() {
  placeCalls();
  // Instantiations of one template report at the same spellings: once.
  std::set<unsigned> Reported;
  for (const FunctionDecl *Function : Functions) {
    std::vector<MeshId> &Found = Ids[Function];
    // Ids at one spelling (instantiations of one template) are alike but for
    // their count; ordering by it too makes the order total without
    // stable_sort, whose libstdc++ 12 buffer clang flags as deprecated.
    llvm::sort(Found, [&](const MeshId &A, const MeshId &B) {
      if (A.At != B.At)
        return SM->isBeforeInTranslationUnit(A.At, B.At);
      return A.Coordinates < B.Coordinates;
    });
    // Coordinates -> how many ids have them. An id is a construction: one
    // built once and passed to several calls (`Peer p{DeviceId{x, y}, ...}`,
    // then `p.id` to a copy and a signal) is one vote, not one per call.
    std::map<unsigned, unsigned> Uses;
    for (size_t I = 0; I < Found.size(); ++I)
      if (I == 0 || Found[I].At != Found[I - 1].At ||
          Found[I].Coordinates != Found[I - 1].Coordinates)
        ++Uses[Found[I].Coordinates];
    if (Uses.size() < 2)
      continue;
    // The most common count; on a tie, the first one's.
    unsigned Most = 0;
    for (const MeshId &Id : Found)
      if (Uses[Id.Coordinates] > Uses[Most])
        Most = Id.Coordinates;
    const MeshId &Majority =
        *llvm::find_if(Found, [&](const MeshId &Id) { return Id.Coordinates == Most; });
    for (const MeshId &Id : Found) {
      if (Id.Coordinates == Most || !Reported.insert(Id.At.getRawEncoding()).second)
        continue;
      diag(Id.At, "mesh device id has %0 coordinate%s0, but the other mesh device ids of this "
                  "function have %1; one kernel runs on one mesh, so each needs one coordinate "
                  "per mesh axis")
          << Id.Coordinates << Most;
      diag(Majority.At, "mesh device id with %0 coordinate%s0 here", DiagnosticIDs::Note)
          << Most;
    }
  }
  Ids.clear();
  Functions.clear();
  Found.clear();
  Bodies.clear();
}

} // namespace dmalint::checks
