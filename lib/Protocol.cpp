//===- Protocol.cpp - What the semaphore protocol checks ask --------------===//
#include "dmalint/Protocol.h"
#include "RootMentions.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/ParentMap.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Basic/SourceManager.h"
#include "dmalint/AnalysisCache.h"
#include "dmalint/Arguments.h"
#include "dmalint/AstUtil.h"
#include "dmalint/InPlaceLambdas.h"
#include "dmalint/Reachability.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallPtrSet.h"
#include <map>

using namespace clang;

namespace dmalint {

namespace {

/// The expression that builds the part \p Path of the value \p Built builds
/// where no code of the program runs on it (`return std::make_pair(k, v)`:
/// `.first` is k; `return KV{k, v}` of an aggregate: `.v` is v; a braced
/// list, std::make_tuple or a std::pair or std::tuple constructor), else
/// null. With no path, \p Built itself.
const Expr *elementBuilt(const Expr *Built, llvm::ArrayRef<PathStep> Path) {
  for (const PathStep &Step : Path) {
    if (!Built)
      return nullptr;
    if (Step.K == PathStep::Part && Step.Index >= 0) {
      Built = partBuilt(Built, static_cast<unsigned>(Step.Index));
      continue;
    }
    // An aggregate's initialisers are its fields in order (no bases);
    // std::pair's first and second are its two parts.
    const auto *RD = Step.K == PathStep::Field && Step.FieldD
                         ? dyn_cast<CXXRecordDecl>(Step.FieldD->getParent())
                         : nullptr;
    bool Pair = RD && RD->isInStdNamespace() && RD->getName() == "pair";
    if (!RD || (!Pair && (RD->getNumBases() != 0 ||
                          !isa<InitListExpr>(stripWrappers(Built)->IgnoreParenImpCasts()))))
      return nullptr;
    Built = partBuilt(Built, Step.FieldD->getFieldIndex());
  }
  return Built ? stripWrappers(Built) : nullptr;
}

/// The construction in the body of the lambda that made \p O at its call
/// (`auto hop = [&] { return make_async_remote_copy(...); }; auto c = hop();`,
/// a part of what the lambda's one return builds), and that call.
std::optional<std::pair<const Expr *, LambdaCall>> lambdaConstruction(const OriginInfo &O,
                                                                      const ApiIndex &Api) {
  std::optional<LambdaCall> C = O.Site && !O.HelperCall ? lambdaCall(O.Site) : std::nullopt;
  if (!C)
    return std::nullopt;
  const Expr *Made = elementBuilt(returnedConstruction(*C->Operator), O.ReturnPath.steps());
  if (!Made || !Api.isCopy(*Made))
    return std::nullopt;
  return std::make_pair(Made, std::move(*C));
}

/// The send (\p Send) or receive semaphore of the copy made at \p O's site:
/// by the factory there, or by a wrapper whose summary names it in its
/// parameters (`hop(x, y, send, recv, next)`), named at the call.
std::optional<SemaphoreName> copySemaphoreOf(const FunctionAnalysis &A, const OriginInfo &O,
                                             bool Send, const UnwrittenVariables &Vars,
                                             const ApiIndex &Api, const ASTContext &Ctx) {
  if (Api.isCopy(*O.Site)) {
    CopySemaphores Sems = copySemaphores(O.Site, Api);
    const Expr *E = Send ? Sems.Send : Sems.Receive;
    return E ? semaphoreName(E, Vars) : std::nullopt;
  }
  // Made by a lambda of the function: named with the call's arguments.
  if (auto Made = lambdaConstruction(O, Api)) {
    CopySemaphores Sems = copySemaphores(Made->first, Api);
    const Expr *E = Send ? Sems.Send : Sems.Receive;
    std::optional<SemaphoreName> InLambda = E ? semaphoreName(E, Vars) : std::nullopt;
    return InLambda ? semaphoreAtLambdaCall(*InLambda, Made->second, Vars) : std::nullopt;
  }
  const ReturnedCopy *Wrapped = A.returnedCopy(O);
  if (!Wrapped)
    return std::nullopt;
  const std::optional<SummarySemaphore> &Named =
      Send ? Wrapped->Send : std::optional<SummarySemaphore>(Wrapped->Receive);
  return Named ? semaphoreAtCall(*Named, A.returnedCopyArguments(O), Vars, Ctx) : std::nullopt;
}

} // namespace

bool waitedSemaphores(const FunctionAnalysis &A, const OriginInfo &O, ApiRole Role,
                      const UnwrittenVariables &Vars, const ApiIndex &Api, const ASTContext &Ctx,
                      llvm::SmallVectorImpl<SemaphoreName> &Out) {
  if (!O.Site || O.isParameter() || O.Imported || O.Folded || O.Engaged)
    return false;
  auto Add = [&](bool Send) {
    std::optional<SemaphoreName> N = copySemaphoreOf(A, O, Send, Vars, Api, Ctx);
    if (N)
      Out.push_back(*N);
    return N.has_value();
  };
  bool SendSide = Role == ApiRole::WaitSend || (Role == ApiRole::Wait && O.Kind != Remoteness::Local);
  bool ReceiveSide = Role != ApiRole::WaitSend;
  // wait_send() on a local copy built without a send semaphore is Pallas'
  // error (dma-wait-send-on-local-copy): it waits nothing.
  if (Role == ApiRole::WaitSend && O.Kind == Remoteness::Local &&
      !copySemaphoreOf(A, O, /*Send=*/true, Vars, Api, Ctx))
    return true;
  if (SendSide && !Add(/*Send=*/true))
    return false;
  if (ReceiveSide && !Add(/*Send=*/false))
    return false;
  return true;
}

bool sendMayBeDrained(
    const FunctionAnalysis &A, OriginId D, const SemaphoreName &Send,
    const UnwrittenVariables &Vars, const ASTContext &Ctx, const ApiIndex &Api,
    llvm::function_ref<std::vector<LambdaCall>(const CXXMethodDecl &)> LambdaCalls) {
  // Whether a wait on \p W, a semaphore of the function's own, may drain
  // \p Send.
  auto Drains = [&](const SemaphoreName &W) {
    SemaphoreRelation R = compareSemaphores(Send, W, Vars, Ctx);
    if (R != SemaphoreRelation::Disjoint)
      return R == SemaphoreRelation::Same || R == SemaphoreRelation::Unknown;
    // Disjoint in one run of the function. Another grid step runs it again
    // with other values of what the indices depend on (`send[1 - slot]`
    // drains the previous step's `send[slot]`): only an index pair of two
    // different constants keeps them apart in every run.
    for (size_t I = 0; I < Send.Indices.size() && I < W.Indices.size(); ++I) {
      std::optional<int64_t> A = constantInt(Send.Indices[I], Ctx);
      std::optional<int64_t> B = constantInt(W.Indices[I], Ctx);
      if (A && B && *A != *B)
        return false;
    }
    return true;
  };
  // The lambda whose parameter roots \p W (a lambda the function calls, not
  // one run where it is written).
  auto LambdaOfParameter = [&](const SemaphoreName &W) -> const DeclContext * {
    const auto *P = dyn_cast_or_null<ParmVarDecl>(W.Root);
    if (!P || P->getDeclContext() == &Vars.function() || Vars.ownVariable(P))
      return nullptr;
    return P->getDeclContext();
  };
  auto MayBe = [&](const SemaphoreName &W) {
    const DeclContext *Lambda = LambdaOfParameter(W);
    if (!Lambda)
      return Drains(W);
    // A lambda's parameter names what each call passes. What a call passes
    // that is again a lambda's parameter is not followed further.
    const auto *Op = dyn_cast<CXXMethodDecl>(Lambda);
    std::vector<LambdaCall> Calls = Op && LambdaCalls ? LambdaCalls(*Op) : std::vector<LambdaCall>();
    if (Calls.empty())
      return true;
    for (const LambdaCall &C : Calls) {
      std::optional<SemaphoreName> Passed = semaphoreAtLambdaCall(W, C, Vars);
      if (!Passed || LambdaOfParameter(*Passed) || Drains(*Passed))
        return true;
    }
    return false;
  };
  for (const std::vector<DescriptorUse> *Uses : {&A.ReceiveWaits, &A.WaitSends})
    for (const DescriptorUse &U : *Uses) {
      ApiRole Role = Api.roleOf(U.Call->getMethodDecl());
      if (D && Role != ApiRole::WaitRecv && U.Values.hasOrigin(D))
        return true;
      for (const Value &V : U.Values.values()) {
        const OriginInfo &O = A.origin(V.Origin);
        if (O.Covered)
          continue;
        llvm::SmallVector<SemaphoreName, 2> Waited;
        if (!waitedSemaphores(A, O, Role, Vars, Api, Ctx, Waited) || llvm::any_of(Waited, MayBe))
          return true;
      }
    }
  // The waits of the helpers it calls, on any path: what they wait, with
  // the arguments put in.
  for (const ProtocolCall &PC : A.ProtocolCalls)
    for (const HelperWait &H : PC.Summary.Waits) {
      if (H.Unknown)
        return true;
      for (const SummarySemaphore &Sem : H.Semaphores) {
        std::optional<SemaphoreName> W = semaphoreAtCall(Sem, PC.Args, Vars, Ctx, PC.within());
        if (!W || MayBe(*W))
          return true;
      }
    }
  return false;
}

std::vector<std::pair<const DescriptorUse *, llvm::SmallVector<OriginId, 1>>>
receiveWaitsOfRemoteCopies(const FunctionAnalysis &A, const ApiIndex &Api, bool SomePaths) {
  std::vector<std::pair<const DescriptorUse *, llvm::SmallVector<OriginId, 1>>> Out;
  for (const DescriptorUse &U : A.ReceiveWaits) {
    if (Api.roleOf(U.Call->getMethodDecl()) != ApiRole::WaitRecv)
      continue;
    KindVerdict Remote = A.verdict(U.Values, Remoteness::Remote);
    if ((Remote.All || SomePaths) && !Remote.AnyUnknown && !Remote.Origins.empty())
      Out.push_back({&U, llvm::SmallVector<OriginId, 1>(Remote.Origins.begin(),
                                                        Remote.Origins.end())});
  }
  return Out;
}

namespace {

/// Whether \p A ran every call of the lambda \p L (of each instantiation,
/// for a generic one).
bool ranEveryCall(const FunctionAnalysis &A, const LambdaExpr &L) {
  llvm::SmallVector<const CXXMethodDecl *, 2> Instances = genericLambdaInstantiations(L);
  if (Instances.empty())
    return A.ranEveryCallOf(*L.getCallOperator());
  return llvm::all_of(Instances, [&](const CXXMethodDecl *Op) { return A.ranEveryCallOf(*Op); });
}

/// The variable that holds \p Root: itself, or for a member the one
/// variable through which the function reaches it (`s` of `s.sem`). Null for
/// a member of `*this` and where the function reaches a member otherwise.
const VarDecl *holdingVariable(const ValueDecl *Root, const UnwrittenVariables &Vars) {
  if (const auto *F = dyn_cast_or_null<FieldDecl>(Root))
    return Vars.holdingVariable(F);
  return dyn_cast_or_null<VarDecl>(Root);
}

/// Whether every constructor of \p F's class that the file defines sets
/// \p F from one of its parameters or default-constructs it, and no
/// initialiser in the class gives it a value: then it holds what the
/// object's maker passed, as a parameter does (`sem_(g_sem)` would make it a
/// global's, which any function may wait).
bool setFromConstructorParameters(const FieldDecl &F) {
  const auto *RD = dyn_cast<CXXRecordDecl>(F.getParent());
  if (!RD || F.hasInClassInitializer())
    return false;
  for (const CXXConstructorDecl *Ctor : RD->ctors()) {
    const FunctionDecl *Definition = nullptr;
    if (Ctor->isCopyOrMoveConstructor() || !Ctor->hasBody(Definition))
      continue; // Another object's values; or one whose body is elsewhere,
                // which writtenOutsideConstructors already refuses.
    for (const CXXCtorInitializer *Init : cast<CXXConstructorDecl>(Definition)->inits()) {
      if (!Init->getMember() ||
          Init->getMember()->getCanonicalDecl() != F.getCanonicalDecl())
        continue;
      // Copies are stripped: a parameter, or a default construction.
      const Expr *Value = stripWrappers(Init->getInit());
      if (const auto *CE = dyn_cast<CXXConstructExpr>(Value); CE && CE->getNumArgs() == 0)
        continue;
      const auto *DRE = dyn_cast<DeclRefExpr>(Value);
      if (!DRE || !isa<ParmVarDecl>(DRE->getDecl()))
        return false;
    }
  }
  return true;
}

/// Whether \p Body calls a closure, a function object or a function pointer:
/// code that may reach what the lambda that made it captured without naming it.
static bool callsThroughObject(const Stmt *Body) {
  struct Finder : RecursiveASTVisitor<Finder> {
    bool Found = false;
    bool VisitCallExpr(CallExpr *Call) {
      if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(Call))
        Found |= Op->getOperator() == OO_Call;
      else if (!isa<CXXPseudoDestructorExpr>(Call->getCallee()->IgnoreParenImpCasts()))
        Found |= !Call->getDirectCallee();
      return !Found;
    }
  } F;
  F.TraverseStmt(const_cast<Stmt *>(Body));
  return F.Found;
}

/// For a lambda judged on its own (its enclosing function does not run it
/// at each of its calls: handed to an emitter, say), a parameter or local
/// \p V of the function it is written in, which it captures, is its own for
/// the length of one call: during a call only the lambda's code runs, and
/// nothing it calls can wait \p V without naming it when that function (its
/// lambdas included) names \p V only as the semaphore of copies and the
/// lambda calls no closure or function object.
static bool capturedForOneCall(const VarDecl &V, const FunctionDecl &FD, const ApiIndex &Api) {
  const auto *Op = dyn_cast<CXXMethodDecl>(&FD);
  if (!Op || !Op->getParent()->isLambda() || !FD.getBody())
    return false;
  const FunctionDecl *Enclosing = enclosingFunction(*Op);
  if (!Enclosing || V.getDeclContext() != Enclosing || !Enclosing->getBody() ||
      callsThroughObject(FD.getBody()))
    return false;
  RootMentions Outer(Api, AnalysisCache::current().variables(*Enclosing, Api));
  Outer.TraverseStmt(Enclosing->getBody());
  return Outer.onlyCopyArguments(V.getCanonicalDecl());
}

/// A root of the function's own: a parameter or a local, or a member of one
/// that the function hands nowhere whole (`s.sem` of `const Scratch &s`), or
/// a member of `*this` in a member function that hands `this` nowhere but to
/// member functions of the file. A global (or a member of another object)
/// may be waited by any function it calls.
bool ownRoot(const ValueDecl *Root, const FunctionDecl &FD, const UnwrittenVariables &Vars,
             const RootMentions &Roots) {
  if (const auto *F = dyn_cast_or_null<FieldDecl>(Root)) {
    // A member function called on `*this` that does nothing with the
    // object's handles (an accessor) needs no summary.
    auto LeavesObjectAlone = [&](const CXXMethodDecl *Callee) {
      return AnalysisCache::current().leavesObjectAlone(*Callee, FD.getASTContext(), Vars.api());
    };
    const Decl *Base = Vars.fieldBase(F);
    if (isa_and_nonnull<FieldDecl>(Base)) {
      // A member of a member of `*this` (`b_.sem`): as the member of
      // `*this`, in a function that calls no member function on `*this`
      // (their summaries name the object's members, not members of those),
      // with no member on the way written outside its class' constructors.
      if (const FieldDecl *Outer = Vars.thisMemberHolding(F)) {
        if (!llvm::all_of(Roots.thisCalls(), LeavesObjectAlone))
          return false;
        for (const FieldDecl *G = F; G && G != Outer;
             G = dyn_cast_or_null<FieldDecl>(Vars.fieldBase(G)))
          if (AnalysisCache::current().writtenOutsideConstructors(*G))
            return false;
        return ownRoot(Outer, FD, Vars, Roots);
      }
      // A member of a member of a parameter (`s.kv.sem`): as the parameter.
      const auto *P = dyn_cast_or_null<ParmVarDecl>(Vars.holdingVariable(F));
      return P && ownRoot(P, FD, Vars, Roots) && !Vars.mentionedWhole(P);
    }
    const auto *MD = dyn_cast<CXXMethodDecl>(&FD);
    // A member of the object that only the member functions it calls name.
    if (!Base && !Vars.namesField(F) && MD &&
        F->getParent()->getCanonicalDecl() == MD->getParent()->getCanonicalDecl())
      Base = FD.getCanonicalDecl();
    if (Base && Base == FD.getCanonicalDecl()) {
      // Only constructors set it (else the summaries of the member functions
      // cannot name it: ProtocolSummaries.cpp's memberOf).
      if (!MD || !MD->isInstance() || MD->getParent()->isLambda() || Roots.thisHandedOn() ||
          AnalysisCache::current().writtenOutsideConstructors(*F) ||
          !setFromConstructorParameters(*F))
        return false;
      // What the member functions it calls on `*this` do with the object's
      // semaphores is all in their summaries (made at those calls).
      return llvm::all_of(Roots.thisCalls(), [&](const CXXMethodDecl *Callee) {
        if (LeavesObjectAlone(Callee))
          return true;
        const FunctionDecl *Definition = nullptr;
        if (Callee->isVirtual() || !Callee->hasBody(Definition))
          return false;
        const ProtocolSummary *Summary = AnalysisCache::current().protocolIfMade(*Definition);
        return Summary && Summary->ObjectFollowed;
      });
    }
    const auto *V = dyn_cast_or_null<VarDecl>(Base);
    return V && ownRoot(V, FD, Vars, Roots) && !Vars.mentionedWhole(V);
  }
  const auto *V = dyn_cast_or_null<VarDecl>(Root);
  if (!V || !(isa<ParmVarDecl>(V) || V->isLocalVarDecl()))
    return false;
  return V->getDeclContext() == &FD || capturedForOneCall(*V, FD, Vars.api());
}

/// Whether \p FD makes a local object or a temporary whose destruction runs
/// code that reaches the API (a guard that waits in its destructor): the
/// analysis does not run destructors, so that code may drain a semaphore or
/// wait a copy when the object goes out of scope.
bool destroysWithApi(const FunctionDecl &FD, const ASTContext &Ctx, const ApiIndex &Api) {
  struct Walk : RecursiveASTVisitor<Walk> {
    const ASTContext &Ctx;
    const ApiIndex &Api;
    bool Found = false;
    Walk(const ASTContext &Ctx, const ApiIndex &Api) : Ctx(Ctx), Api(Api) {}
    bool check(QualType T) {
      if (!T.isNull() && !T->isReferenceType())
        Found |= AnalysisCache::current().destructionReachesApi(
            T->getBaseElementTypeUnsafe()->getAsCXXRecordDecl(), Ctx, Api);
      return !Found;
    }
    bool VisitVarDecl(VarDecl *V) { return check(V->getType()); }
    bool VisitCXXBindTemporaryExpr(CXXBindTemporaryExpr *E) { return check(E->getType()); }
  } W(Ctx, Api);
  W.TraverseStmt(FD.getBody());
  return W.Found;
}

} // namespace

std::vector<SendNeverWaited> sendsNeverWaited(const FunctionAnalysis &A, const FunctionDecl &FD,
                                              const ASTContext &Ctx, const ApiIndex &Api,
                                              llvm::function_ref<bool()> CalledHere) {
  std::vector<SendNeverWaited> Found;
  if (A.HitWorkLimit || !FD.hasBody())
    return Found;
  // A lambda's waits are judged in the function that calls it.
  if (const auto *MD = dyn_cast<CXXMethodDecl>(&FD); MD && MD->getParent()->isLambda())
    return Found;
  const UnwrittenVariables *Vars = nullptr;
  std::optional<RootMentions> Roots;
  bool LambdaCopies = false;
  auto Prepare = [&] {
    if (Vars)
      return;
    Vars = &AnalysisCache::current().variables(FD, Api);
    Roots.emplace(Api, *Vars, followedArguments(A), /*CalledLambdas=*/true);
    Roots->TraverseStmt(FD.getBody());
    // A copy in a lambda the function only calls is followed where the
    // analysis ran every call of it: a drain there is among its waits.
    LambdaCopies = llvm::all_of(Roots->lambdasWithCopies(),
                                [&](const LambdaExpr *L) { return ranEveryCall(A, *L); });
  };
  // Whether the send semaphore \p Send is the function's to judge: a local
  // of it, or a parameter of a function no other function calls (else a
  // caller may drain it; a member's or a global's, other functions), that
  // it mentions only where the analysis follows.
  auto Judged = [&](const SemaphoreName &Send) {
    // Not a member of `*this`: another member function may drain it.
    return holdingVariable(Send.Root, *Vars) && ownRoot(Send.Root, FD, *Vars, *Roots) &&
           Roots->onlyInCopies(Send.Root, LambdaCopies);
  };
  // The calls of a lambda's call operator, when the function's own code
  // makes every call of it and the analysis ran each.
  auto CallsOf = [&](const CXXMethodDecl &Op) {
    std::vector<LambdaCall> Out;
    for (const LambdaExpr *L : Roots->lambdasCalled())
      if (isCallOperatorOf(&Op, *L) && Roots->onlyCalled(L) && !Roots->calledInLambda(L) &&
          ranEveryCall(A, *L))
        for (const LambdaCall &C : Roots->callsOf(L))
          if (C.Operator == &Op)
            Out.push_back(C);
    return Out;
  };
  // Whether a caller may drain a parameter's semaphore: whether a function
  // calls this one is a walk of the whole translation unit, asked last, once.
  std::optional<bool> Called;
  auto CallerMayDrain = [&](const SemaphoreName &Send) {
    if (!isa_and_nonnull<ParmVarDecl>(holdingVariable(Send.Root, *Vars)))
      return false;
    if (!Called)
      Called = CalledHere();
    return *Called;
  };

  std::optional<bool> Destroys;
  auto DestroysWithApi = [&] {
    if (!Destroys)
      Destroys = destroysWithApi(FD, Ctx, Api);
    return *Destroys;
  };
  // A wait of copies of both kinds (generic code waiting every copy it
  // issued with wait_recv(), the hasty fix of the seed error) leaves the
  // remote ones' send semaphores as signalled as a wait of one remote copy.
  for (const auto &[U, Origins] : receiveWaitsOfRemoteCopies(A, Api, /*SomePaths=*/true)) {
    if (DestroysWithApi())
      return Found; // A destructor may drain any of them.
    Prepare();
    SendNeverWaited Finding;
    Finding.WaitRecv = U;
    Finding.SomePaths = !A.verdict(U->Values, Remoteness::Remote).All;
    bool Provable = true;
    for (OriginId D : Origins) {
      const OriginInfo &O = A.origin(D);
      if (!O.Site || O.isParameter() || O.Imported || O.Folded || A.handedOn(D)) {
        Provable = false;
        break;
      }
      // Made here by the factory, or by a wrapper that names it.
      std::optional<SemaphoreName> Send = copySemaphoreOf(A, O, /*Send=*/true, *Vars, Api, Ctx);
      if (!Send || !Judged(*Send) || sendMayBeDrained(A, D, *Send, *Vars, Ctx, Api, CallsOf) ||
          CallerMayDrain(*Send)) {
        Provable = false;
        break;
      }
      if (Finding.Origins.empty()) {
        if (Api.isCopy(*O.Site)) {
          Finding.SendSemaphore = Send->Spelling;
        } else if (auto Made = lambdaConstruction(O, Api)) {
          // As the lambda's call names it.
          const Expr *InLambda = copySemaphores(Made->first, Api).Send;
          if (std::optional<SemaphoreName> N = InLambda ? semaphoreName(InLambda, *Vars)
                                                        : std::nullopt)
            Finding.SendText = spellAtLambdaCall(*N, Made->second, Ctx);
        } else { // As the wrapper's call names it.
          Finding.SendText =
              spellAtCall(*A.returnedCopy(O)->Send, A.returnedCopyArguments(O), Ctx);
        }
      }
      Finding.Origins.push_back(D);
    }
    if (Provable)
      Found.push_back(std::move(Finding));
  }

  // The receive-only waits of the helpers it calls, on semaphores it owns.
  for (const ProtocolCall &PC : A.ProtocolCalls)
    for (const HelperReceiveOnly &H : PC.Summary.ReceiveOnly) {
      if (H.Sends.empty())
        continue; // Not made at this call.
      if (DestroysWithApi())
        return Found;
      Prepare();
      bool Provable = true;
      for (const SummarySemaphore &Sem : H.Sends) {
        std::optional<SemaphoreName> Send = semaphoreAtCall(Sem, PC.Args, *Vars, Ctx, PC.within());
        if (!Send || !Judged(*Send) || sendMayBeDrained(A, 0, *Send, *Vars, Ctx, Api, CallsOf) ||
            CallerMayDrain(*Send)) {
          Provable = false;
          break;
        }
      }
      if (!Provable)
        continue;
      SendNeverWaited Finding;
      Finding.Call = PC.Call;
      Finding.Helper = PC.Callee;
      Finding.HelperWaitRecv = H.WaitRecv;
      Finding.HelperConstruction = H.Construction;
      Finding.HelperWaitRecvIn = H.In;
      Finding.SendText = spellAtCall(H.Sends.front(), PC.Args, Ctx, PC.within());
      Found.push_back(std::move(Finding));
    }
  return Found;
}

namespace {

/// What the race check knows of one local copy: built in the function, or
/// started by a helper it calls.
struct LocalCopy {
  SemaphoreName Semaphore;
  BufferName Target;
  bool Placeholder = false; ///< Source and target are one view: stands for any copy.
  std::string SemaphoreText, TargetText; ///< As the function would write them.
};

/// A wait of the function: its own (Use), or one a helper it calls makes
/// (the wait Entry of Call's summary), with the copies in flight before it.
struct LambdaEvent;

struct WaitSite {
  const Expr *At = nullptr;
  const DescriptorUse *Use = nullptr;
  const ProtocolCall *Call = nullptr;
  unsigned Entry = 0;
  llvm::ArrayRef<OriginId> InFlightBefore;
  const LambdaEvent *Event = nullptr; ///< A wait a lambda makes at this call.
};


/// Whether \p O is a local copy made at its site in the function (by a
/// construction, a wrapper's call or a lambda's call), not one a parameter,
/// a summary or a helper brings, nor a fold of several.
bool madeLocalCopy(const OriginInfo &O) {
  return O.Site && !O.HelperCall && O.Kind == Remoteness::Local && !O.isParameter() &&
         !O.Imported && !O.Folded && !O.Engaged;
}

std::optional<LocalCopy> localCopy(const OriginInfo &O, const ApiIndex &Api,
                                   const UnwrittenVariables &Vars, const ASTContext &Ctx) {
  if (!madeLocalCopy(O) || !Api.isCopy(*O.Site))
    return std::nullopt;
  const Expr *Sem = copySemaphores(O.Site, Api).Receive;
  CopyBuffers Buffers = copyBuffers(O.Site, Api);
  std::optional<SemaphoreName> S = Sem ? semaphoreName(Sem, Vars) : std::nullopt;
  std::optional<BufferName> T =
      Buffers.Target ? bufferName(Buffers.Target, Api, Vars) : std::nullopt;
  if (!S || !T)
    return std::nullopt;
  LocalCopy C{*S, *T};
  if (std::optional<BufferName> Src = bufferName(Buffers.Source, Api, Vars))
    C.Placeholder = compareBuffers(*Src, *T, Vars, Ctx, Evaluation::SameIteration) ==
                    BufferRelation::Same;
  C.SemaphoreText = spelling(S->Spelling, Ctx);
  C.TargetText = spelling(T->Spelling, Ctx);
  return C;
}

/// The copy a summary names by its helper's parameters (\p Sem into
/// \p Target), named with the arguments \p Args of a call.
std::optional<LocalCopy> copyAtCall(const SummarySemaphore &Sem,
                                    const std::optional<SummaryBuffer> &Target,
                                    llvm::ArrayRef<const Expr *> Args, const ApiIndex &Api,
                                    const UnwrittenVariables &Vars, const ASTContext &Ctx,
                                    const LambdaCall *Within = nullptr) {
  if (!Target)
    return std::nullopt;
  std::optional<SemaphoreName> S = semaphoreAtCall(Sem, Args, Vars, Ctx, Within);
  std::optional<BufferName> T = bufferAtCall(*Target, Args, Api, Vars, Ctx, Within);
  if (!S || !T)
    return std::nullopt;
  LocalCopy C{*S, *T};
  C.SemaphoreText = spellAtCall(Sem, Args, Ctx, Within);
  C.TargetText = spellAtCall(*Target, Args, Ctx, Within);
  return C;
}

/// The copy \p O when it is the one a helper of the translation unit
/// returns (FunctionAnalysis::returnedCopy), named with the call's
/// arguments.
std::optional<LocalCopy> returnedCopy(const FunctionAnalysis &A, const OriginInfo &O,
                                      const ApiIndex &Api, const UnwrittenVariables &Vars,
                                      const ASTContext &Ctx) {
  const ReturnedCopy *Returned = madeLocalCopy(O) ? A.returnedCopy(O) : nullptr;
  if (!Returned)
    return std::nullopt;
  const ReturnedCopy &R = *Returned;
  llvm::SmallVector<const Expr *, 8> Args = A.returnedCopyArguments(O);
  std::optional<LocalCopy> C = copyAtCall(R.Receive, R.Target, Args, Api, Vars, Ctx);
  if (C && R.Source)
    if (std::optional<BufferName> Src = bufferAtCall(*R.Source, Args, Api, Vars, Ctx))
      C->Placeholder = compareBuffers(*Src, C->Target, Vars, Ctx, Evaluation::SameIteration) ==
                       BufferRelation::Same;
  return C;
}

/// The local copy \p Site (a copy construction in the body of the lambda
/// \p C calls) makes at that call, named with the call's arguments.
std::optional<LocalCopy> copyAtLambdaCall(const Expr *Site, const LambdaCall &C,
                                          const ApiIndex &Api, const UnwrittenVariables &Vars,
                                          const ASTContext &Ctx) {
  if (!Site || !Api.isCopy(*Site))
    return std::nullopt;
  const Expr *Sem = copySemaphores(Site, Api).Receive;
  CopyBuffers Buffers = copyBuffers(Site, Api);
  std::optional<SemaphoreName> InLambdaSem = Sem ? semaphoreName(Sem, Vars) : std::nullopt;
  std::optional<BufferName> InLambdaTarget =
      Buffers.Target ? bufferName(Buffers.Target, Api, Vars) : std::nullopt;
  if (!InLambdaSem || !InLambdaTarget)
    return std::nullopt;
  std::optional<SemaphoreName> S = semaphoreAtLambdaCall(*InLambdaSem, C, Vars);
  std::optional<BufferName> T = bufferAtLambdaCall(*InLambdaTarget, C, Api, Vars);
  if (!S || !T)
    return std::nullopt;
  LocalCopy Out{*S, *T};
  if (std::optional<BufferName> Src = bufferName(Buffers.Source, Api, Vars))
    if (std::optional<BufferName> SrcAt = bufferAtLambdaCall(*Src, C, Api, Vars))
      Out.Placeholder = compareBuffers(*SrcAt, *T, Vars, Ctx, Evaluation::SameIteration) ==
                        BufferRelation::Same;
  Out.SemaphoreText = spellAtLambdaCall(*InLambdaSem, C, Ctx);
  Out.TargetText = spellAtLambdaCall(*InLambdaTarget, C, Ctx);
  return Out;
}

/// The copy \p O when it is the one a lambda of the function returns at the
/// call O was made by (`auto fetch = [&](int slot) { return
/// make_async_copy(...); }; fetch(next).start();`): the lambda's one return
/// statement makes it, and it is named with the call's arguments.
std::optional<LocalCopy> lambdaCopy(const OriginInfo &O, const ApiIndex &Api,
                                    const UnwrittenVariables &Vars, const ASTContext &Ctx) {
  std::optional<LambdaCall> C = madeLocalCopy(O) ? lambdaCall(O.Site) : std::nullopt;
  if (!C)
    return std::nullopt;
  return copyAtLambdaCall(elementBuilt(returnedConstruction(*C->Operator), O.ReturnPath.steps()),
                          *C, Api, Vars, Ctx);
}

/// A start or a receive wait a lambda of the function makes on a local copy
/// it makes itself, at one call the function's own code makes of the lambda
/// (`auto start_fetch = [&](int slot) { make_async_copy(...).start(); };`):
/// the analysis inlines each call with one origin for the copies of all of
/// them, so the call is what names the copy.
struct LambdaEvent {
  const Expr *Call = nullptr;         ///< Of the lambda, in the function's code.
  const Expr *At = nullptr;           ///< The start or wait, in the lambda.
  const DescriptorUse *Use = nullptr; ///< Its use (none for a started factory).
  /// A loop of the lambda holds it: it may run again after what follows it
  /// in the same call.
  bool InLoop = false;
  const VarDecl *Holder = nullptr;    ///< The local that holds the lambda.
  OriginId Origin = 0;
  std::optional<LocalCopy> Copy; ///< Named at the call.
  /// The call's arguments decide that it happens (a bool parameter the use
  /// depends on is a constant there).
  bool Decided = true;
};

struct LambdaEvents {
  std::vector<LambdaEvent> Starts, Waits;
  /// The receive waits in lambdas whose calls Waits tells apart (it holds
  /// one event per call that makes the wait, none when no call does).
  llvm::SmallPtrSet<const DescriptorUse *, 4> WaitsAtCalls;
  /// The semaphores of the receive waits in lambdas that are not Waits,
  /// whose calls cannot be told (named in the lambda's terms, so an index of
  /// its parameters is unknown); with Any, those waits may take any.
  std::vector<SemaphoreName> UnknownWaits;
  bool AnyUnknownWait = false;
};

/// Whether the member call \p Use is made on the copy the construction
/// \p Made makes: on it as made (`make_async_copy(...).start()`), or on a
/// local it initialises that keeps the object (UnwrittenVariables::keepsObject).
bool actsOnMade(const CXXMemberCallExpr *Use, const Expr *Made, const UnwrittenVariables &Vars) {
  const Expr *Object = Use ? stripWrappers(Use->getImplicitObjectArgument()) : nullptr;
  if (!Object || Object == Made)
    return Object != nullptr;
  const auto *DRE = dyn_cast<DeclRefExpr>(Object);
  const auto *V = DRE ? dyn_cast<VarDecl>(DRE->getDecl()) : nullptr;
  return V && V->isLocalVarDecl() && !V->isStaticLocal() && !V->getType()->isReferenceType() &&
         V->getInit() && stripWrappers(V->getInit()) == Made && Vars.keepsObject(V);
}

bool contains(const Stmt *Outer, const Stmt *S, const ParentMap &PM) {
  for (; S; S = PM.getParent(S))
    if (S == Outer)
      return true;
  return false;
}

/// The innermost loop around both \p A and \p B; null when none is (the
/// function's one run holds both).
const Stmt *commonLoop(const Stmt *A, const Stmt *B, const ParentMap &PM) {
  for (const Stmt *Parent = PM.getParent(A); Parent; Parent = PM.getParent(Parent))
    if (isLoop(Parent) && contains(Parent, B, PM))
      return Parent;
  return nullptr;
}

/// Where a statement sits: whether a lambda holds it (one that runs in
/// place is the function's own code, InPlaceLambdas.h), and the branches
/// around it inside one iteration of a loop (or, with no loop, in the
/// function): of ifs, and of calls that run a lambda when a condition holds
/// (`when(c, [&] { ... })`).
struct Placement {
  bool InLambda = false;
  struct Branch {
    const Stmt *At;   ///< The if, or the call.
    const Expr *Cond; ///< Null: not compared with other conditions.
    bool Taken;       ///< Where it holds (an if's then-branch).
  };
  llvm::SmallVector<Branch, 4> Branches;
};

Placement placementOf(const Stmt *S, const Stmt *Loop, const ParentMap &PM) {
  Placement P;
  const Stmt *Child = S;
  bool Inside = true;
  for (const Stmt *Parent = PM.getParent(S); Parent; Child = Parent, Parent = PM.getParent(Parent)) {
    if (const auto *L = dyn_cast<LambdaExpr>(Parent)) {
      const CallExpr *Call = inPlaceCall(*L, PM);
      if (!Call)
        P.InLambda = true;
      else if (Inside) {
        bool Positive = true;
        if (const Expr *Cond = inPlaceConditionAt(*Call, *L, Positive))
          P.Branches.push_back({Call, Cond, Positive});
      }
    }
    if (Parent == Loop)
      Inside = false;
    if (const auto *If = dyn_cast<IfStmt>(Parent); If && Inside) {
      const Expr *Cond = If->getConditionVariable() ? nullptr : If->getCond();
      if (Child == If->getThen())
        P.Branches.push_back({If, Cond, true});
      else if (Child == If->getElse())
        P.Branches.push_back({If, Cond, false});
    }
  }
  return P;
}

/// True when the conditions \p A (taken when \p PA) and \p B (when \p PB)
/// cannot both hold: `c` and `!c`, `e == c1` and `e == c2` (c1 != c2),
/// `x < y` and `x >= y`.
bool complementary(const Expr *A, bool PA, const Expr *B, bool PB, const ASTContext &Ctx) {
  A = bareCondition(A, PA);
  B = bareCondition(B, PB);
  if (sameExpression(A, B, Ctx))
    return PA != PB;
  const auto *BA = dyn_cast<BinaryOperator>(A), *BB = dyn_cast<BinaryOperator>(B);
  if (!BA || !BB || !PA || !PB || !BA->isComparisonOp() || !BB->isComparisonOp())
    return false;
  // A comparison as `L op R`, and the same read the other way round
  // (`1 == k % 2` is `k % 2 == 1`, `n - 1 <= i` is `i >= n - 1`).
  struct Comparison {
    const Expr *L, *R;
    BinaryOperatorKind Op;
    Comparison mirrored() const {
      BinaryOperatorKind M = Op == BO_LT   ? BO_GT
                             : Op == BO_GT ? BO_LT
                             : Op == BO_LE ? BO_GE
                             : Op == BO_GE ? BO_LE
                                           : Op;
      return {R, L, M};
    }
  };
  auto Constant = [&](const Expr *E) { return constantInt(E, Ctx).has_value(); };
  auto Normal = [&](const BinaryOperator *BO) {
    Comparison C{BO->getLHS(), BO->getRHS(), BO->getOpcode()};
    return Constant(C.L) && !Constant(C.R) ? C.mirrored() : C; // The constant on the right.
  };
  auto Opposite = [](BinaryOperatorKind X, BinaryOperatorKind Y) {
    return (X == BO_LT && Y == BO_GE) || (X == BO_GE && Y == BO_LT) ||
           (X == BO_GT && Y == BO_LE) || (X == BO_LE && Y == BO_GT) ||
           (X == BO_EQ && Y == BO_NE) || (X == BO_NE && Y == BO_EQ);
  };
  auto Exclusive = [&](const Comparison &X, const Comparison &Y) {
    if (!sameExpression(X.L, Y.L, Ctx))
      return false;
    if (X.Op == BO_EQ && Y.Op == BO_EQ) {
      std::optional<int64_t> CX = constantInt(X.R, Ctx), CY = constantInt(Y.R, Ctx);
      return CX && CY && *CX != *CY;
    }
    return sameExpression(X.R, Y.R, Ctx) && Opposite(X.Op, Y.Op);
  };
  Comparison CA = Normal(BA), CB = Normal(BB);
  return Exclusive(CA, CB) || Exclusive(CA, CB.mirrored());
}

/// True when no run of the function reaches both placements: the two
/// branches of one if, or ifs whose conditions are complementary.
bool exclusive(const Placement &A, const Placement &B, const ASTContext &Ctx) {
  for (const Placement::Branch &BA : A.Branches)
    for (const Placement::Branch &BB : B.Branches) {
      if (BA.At == BB.At) {
        if (BA.Taken != BB.Taken)
          return true;
        continue;
      }
      if (BA.Cond && BB.Cond && complementary(BA.Cond, BA.Taken, BB.Cond, BB.Taken, Ctx))
        return true;
    }
  return false;
}

} // namespace

bool lambdaRacesJudgedAlone(const CXXMethodDecl &Op, const ApiIndex &Api) {
  if (!Op.getParent()->isLambda() || !Op.getBody())
    return false;
  // It starts a copy and then waits one, in the order written (the race
  // check asks no more of a start and a wait): most lambdas of a kernel
  // only start, only wait, or wait before they start (a flag's branches).
  struct Events : RecursiveASTVisitor<Events> {
    const ApiIndex &Api;
    bool Started = false, WaitAfterStart = false;
    explicit Events(const ApiIndex &Api) : Api(Api) {}
    bool VisitCallExpr(CallExpr *Call) {
      switch (Api.roleOf(Call->getDirectCallee())) {
      case ApiRole::Start:
      case ApiRole::StartedLocalFactory:
      case ApiRole::StartedRemoteFactory:
        Started = true;
        break;
      case ApiRole::Wait:
      case ApiRole::WaitRecv:
        WaitAfterStart = Started;
        break;
      default:
        break;
      }
      return !WaitAfterStart;
    }
  } Made(Api);
  Made.TraverseStmt(Op.getBody());
  const FunctionDecl *Enclosing = enclosingFunction(Op);
  if (!Made.WaitAfterStart || !Enclosing || !Enclosing->getBody())
    return false;
  // Not one that runs where it is written: that is the function's own code,
  // judged with it.
  struct Written : RecursiveASTVisitor<Written> {
    const CXXMethodDecl &Op;
    const LambdaExpr *Found = nullptr;
    llvm::SmallPtrSet<const LambdaExpr *, 4> InPlace;
    explicit Written(const CXXMethodDecl &Op) : Op(Op) {}
    bool VisitCallExpr(CallExpr *Call) {
      addInPlaceLambdas(*Call, InPlace); // Met before its arguments.
      return true;
    }
    bool VisitLambdaExpr(LambdaExpr *L) {
      if (isCallOperatorOf(&Op, *L))
        Found = L;
      return !Found;
    }
  } Expression(Op);
  Expression.TraverseStmt(Enclosing->getBody());
  return Expression.Found && !Expression.InPlace.contains(Expression.Found);
}

std::vector<SemaphoreRace> semaphoreRaces(const FunctionAnalysis &A, const FunctionDecl &FD,
                                          const ASTContext &Ctx, const ApiIndex &Api) {
  std::vector<SemaphoreRace> Found;
  if (A.HitWorkLimit || !FD.hasBody())
    return Found;
  // Only a wait of local copies alone with another copy in flight before it
  // (not one it waits, not one handed on), or a helper's wait with a copy in
  // flight before the call, can race: most functions stop here, before any
  // model is built (the loop below asks the same first).
  auto MayRace = [&](const DescriptorUse &U) {
    // In a lambda, its own origin may be another call's copy.
    if (llvm::none_of(U.InFlightBefore, [&](OriginId D) {
          return (U.InLambda || !U.Values.hasOrigin(D)) && !A.handedOn(D);
        }))
      return false;
    KindVerdict Local = A.verdict(U.Values, Remoteness::Local);
    return Local.All && !Local.AnyUnknown && !Local.Origins.empty();
  };
  if (llvm::none_of(A.ReceiveWaits, MayRace) &&
      llvm::none_of(A.ProtocolCalls, [](const ProtocolCall &PC) {
        return !PC.InFlightBefore.empty() && !PC.Summary.Waits.empty();
      }))
    return Found;
  // A lambda's waits are judged in the function that makes its calls, and
  // on its own within one call.
  if (const auto *MD = dyn_cast<CXXMethodDecl>(&FD);
      MD && MD->getParent()->isLambda() && !lambdaRacesJudgedAlone(*MD, Api))
    return Found;
  const SourceManager &SM = Ctx.getSourceManager();
  const UnwrittenVariables &Vars = AnalysisCache::current().variables(FD, Api);
  // Who mentions each root, and the statements' parents: walks of the body
  // that most functions never need (made at the first question).
  std::optional<RootMentions> RootsMade;
  auto Roots = [&]() -> const RootMentions & {
    if (!RootsMade) {
      RootsMade.emplace(Api, Vars, followedArguments(A), /*CalledLambdas=*/true);
      RootsMade->TraverseStmt(FD.getBody());
    }
    return *RootsMade;
  };
  // The parents of the body's statements, and of those of the generic
  // lambdas' instantiations, whose bodies hang below the lambda written here.
  std::optional<ParentMap> PMMade;
  llvm::DenseMap<const Stmt *, const CXXMethodDecl *> InstanceBodies;
  auto Parents = [&]() -> const ParentMap & {
    if (!PMMade) {
      PMMade.emplace(FD.getBody());
      forEachGenericLambdaInstantiation(
          FD.getBody(), [&](const LambdaExpr &L, const CXXMethodDecl &Op) {
            InstanceBodies[Op.getBody()] = &Op;
            PMMade->addStmt(Op.getBody());
            PMMade->setParent(Op.getBody(), &L);
          });
    }
    return *PMMade;
  };
  auto Before = [&](const Stmt *X, const Stmt *Y) {
    return SM.isBeforeInTranslationUnit(X->getBeginLoc(), Y->getBeginLoc());
  };
  // Whether \p To may run after \p From (in one iteration of \p Loop):
  // a wait in the other branch, or before an early return or continue,
  // never follows a start.
  std::optional<BodyReachability> ReachMade;
  auto MayFollow = [&](const Stmt *From, const Stmt *To, const Stmt *Loop) {
    if (!ReachMade)
      ReachMade.emplace(AnalysisCache::current().cfg(FD, Ctx));
    return ReachMade->mayReach(From, To, Loop);
  };
  // The copy a helper's start or exact wait stands for at a call, when the
  // call makes it on every path (its conditions are decided there).
  auto AtCall = [&](const ProtocolCall &PC, const SummarySemaphore &Sem,
                    const std::optional<SummaryBuffer> &Target) {
    return copyAtCall(Sem, Target, PC.Args, Api, Vars, Ctx, PC.within());
  };
  std::map<OriginId, std::optional<LocalCopy>> Copies;
  auto CopyOf = [&](OriginId Id) -> const std::optional<LocalCopy> & {
    auto [It, Inserted] = Copies.try_emplace(Id);
    if (!Inserted)
      return It->second;
    const OriginInfo &O = A.origin(Id);
    if (O.HelperCall) {
      const ProtocolCall &PC = A.ProtocolCalls[O.HelperCall - 1];
      const HelperStart &H = PC.Summary.Starts[O.HelperEntry];
      if (H.Kind == Remoteness::Local && !H.Conditional && PC.StartDecided[O.HelperEntry])
        It->second = AtCall(PC, H.Receive, H.Target);
    } else if (!O.Covered) {
      It->second = localCopy(O, Api, Vars, Ctx);
      if (!It->second)
        It->second = returnedCopy(A, O, Api, Vars, Ctx);
      if (!It->second)
        It->second = lambdaCopy(O, Api, Vars, Ctx);
    }
    return It->second;
  };
  // Where each copy is started: its start calls, its started factory, or
  // the call of the helper that starts it.
  auto StartsOf = [&](OriginId Id) {
    llvm::SmallVector<const Expr *, 2> Out;
    const OriginInfo &O = A.origin(Id);
    if (O.HelperCall) {
      Out.push_back(A.ProtocolCalls[O.HelperCall - 1].Call);
      return Out;
    }
    for (const DescriptorUse &U : A.Starts)
      if (U.Values.hasOrigin(Id))
        Out.push_back(U.Call);
    const Expr *Site = O.Site;
    if (Site && Api.roleOf(isa<CallExpr>(Site) ? cast<CallExpr>(Site)->getDirectCallee()
                                                : nullptr) == ApiRole::StartedLocalFactory)
      Out.push_back(Site);
    return Out;
  };
  // The starts and waits lambdas of the function make, at each call of
  // them (LambdaEvent), when some start or wait is in a lambda.
  auto InLambda = [](const DescriptorUse &U) { return U.InLambda; };
  // A copy made and started by one call (`async_copy(...)`), maybe in a lambda.
  auto StartedFactory = [&](const OriginInfo &O) {
    const auto *Call = dyn_cast_or_null<CallExpr>(O.Site);
    return Call && Api.roleOf(Call->getDirectCallee()) == ApiRole::StartedLocalFactory;
  };
  LambdaEvents Events;
  bool HasEvents = llvm::any_of(A.Starts, InLambda) || llvm::any_of(A.ReceiveWaits, InLambda) ||
                   llvm::any_of(llvm::drop_begin(A.Origins), StartedFactory);
  if (HasEvents) {
    // The events of \p At (a start or wait, or a started factory, in a
    // lambda of the function; \p U its use, if any) on the copy \p Id, at
    // each call of the lambda. A start may be in loops of the lambda (a
    // block fetched page by page); a wait may not (it might run again after
    // a start that follows it).
    auto Collect = [&](const Expr *At, const DescriptorUse *U, OriginId Id, bool LoopsAllowed,
                       std::vector<LambdaEvent> &Out) {
      // In one lambda of the function, at most under `if (flag)` on a bool
      // parameter of it: nothing else decides whether a call makes it.
      const LambdaExpr *L = nullptr;
      const Stmt *BodyOf = nullptr; // The body of L that holds it.
      const ParmVarDecl *Flag = nullptr;
      bool FlagValue = true, InLoop = false;
      const Stmt *Child = At;
      for (const Stmt *P = Parents().getParent(Child); P;
           Child = P, P = Parents().getParent(P)) {
        if (const auto *LE = dyn_cast<LambdaExpr>(P)) {
          if (L)
            return false; // In a lambda in a lambda.
          L = LE;
          BodyOf = Child;
          continue;
        }
        if (L || isa<CompoundStmt, ExprWithCleanups, ParenExpr, ImplicitCastExpr>(P))
          continue;
        if (LoopsAllowed && isLoop(P) && Child == loopBody(P)) {
          InLoop = true;
          continue;
        }
        const auto *If = dyn_cast<IfStmt>(P);
        bool Positive = true;
        Flag = If && !Flag && !If->getInit() && !If->getConditionVariable() &&
                       Child != If->getCond()
                   ? testedBoolParameter(If->getCond(), Positive)
                   : nullptr;
        if (!Flag)
          return false;
        FlagValue = Child == If->getThen() ? Positive : !Positive;
      }
      if (!L || !Parents().getParent(At))
        return false;
      // The operator whose body holds it: a generic lambda's instantiation.
      const CXXMethodDecl *Op = InstanceBodies.lookup(BodyOf);
      if (!Op)
        Op = L->getCallOperator();
      // Every call of it is one the function's own code makes.
      llvm::ArrayRef<LambdaCall> Calls = Roots().callsOf(L);
      if (Calls.empty() || Roots().calledInLambda(L) || !Roots().onlyCalled(L) ||
          (Flag && (Flag->getDeclContext() != Op || !Vars.unwrittenInLambda(Flag))))
        return false;
      // On a copy the lambda makes: the construction itself, or a local of
      // the lambda it initialises that is never assigned.
      const OriginInfo &O = A.origin(Id);
      if (!madeLocalCopy(O))
        return false;
      const Expr *Site = stripWrappers(O.Site);
      if (U) {
        if (!actsOnMade(U->Call, Site, Vars))
          return false;
        // Made in the lambda: not a copy the function made and it captures.
        if (const auto *Local =
                dyn_cast<DeclRefExpr>(stripWrappers(U->Call->getImplicitObjectArgument()));
            Local && Local->getDecl()->getDeclContext() != Op)
          return false;
      } else if (Site != stripWrappers(At)) {
        return false;
      }
      for (const LambdaCall &C : Calls) {
        if (C.Operator != Op)
          continue; // Another instantiation's call: its own body's events.
        LambdaEvent E;
        E.Call = C.Call;
        E.At = At;
        E.Use = U;
        E.InLoop = InLoop;
        E.Holder = Roots().holderOf(L);
        E.Origin = Id;
        if (Flag) {
          unsigned I = Flag->getFunctionScopeIndex();
          std::optional<int64_t> Given =
              I < C.Args.size() ? constantInt(C.Args[I], Ctx) : std::nullopt;
          if (Given && (*Given != 0) != FlagValue)
            continue; // Not made at this call.
          E.Decided = Given.has_value();
        }
        E.Copy = copyAtLambdaCall(Site, C, Api, Vars, Ctx);
        Out.push_back(std::move(E));
      }
      return true;
    };
    auto CollectUse = [&](const DescriptorUse &U, bool LoopsAllowed,
                          std::vector<LambdaEvent> &Out) {
      llvm::ArrayRef<Value> Values = U.Values.values();
      return Values.size() == 1 &&
             Collect(U.Call, &U, Values.front().Origin, LoopsAllowed, Out);
    };
    for (const DescriptorUse &U : A.Starts)
      if (InLambda(U))
        CollectUse(U, /*LoopsAllowed=*/true, Events.Starts);
    for (OriginId Id = 1; Id < A.Origins.size(); ++Id)
      if (StartedFactory(A.origin(Id)))
        Collect(A.origin(Id).Site, nullptr, Id, /*LoopsAllowed=*/true, Events.Starts);
    for (const DescriptorUse &U : A.ReceiveWaits) {
      if (!InLambda(U))
        continue;
      if (CollectUse(U, /*LoopsAllowed=*/false, Events.Waits)) {
        Events.WaitsAtCalls.insert(&U);
        continue;
      }
      // The semaphores it may take: those its copies name outside the
      // lambda (a captured array), else any.
      for (const Value &V : U.Values.values()) {
        const OriginInfo &O = A.origin(V.Origin);
        const Expr *Sem = O.Site && !O.HelperCall && !O.isParameter()
                              ? copySemaphores(O.Site, Api).Receive
                              : nullptr;
        std::optional<SemaphoreName> N = Sem ? semaphoreName(Sem, Vars) : std::nullopt;
        if (!N && !O.HelperCall) // A copy another lambda returns to this one.
          if (std::optional<LocalCopy> Returned = lambdaCopy(O, Api, Vars, Ctx))
            N = Returned->Semaphore;
        if (N && ownRoot(N->Root, FD, Vars, Roots()))
          Events.UnknownWaits.push_back(std::move(*N));
        else
          Events.AnyUnknownWait = true;
      }
      if (U.Values.empty())
        Events.AnyUnknownWait = true;
    }
  }
  // Semaphores the copies of lambdas name are followed where no wait a
  // lambda makes that is not known at its calls may take them; else none
  // (such a wait may follow any start).
  auto LambdaCopiesFollowed = [&](const SemaphoreName &Sem) {
    bool Unknown = Events.AnyUnknownWait ||
                   llvm::any_of(Events.UnknownWaits, [&](const SemaphoreName &N) {
                     SemaphoreRelation R =
                         compareSemaphores(Sem, N, Vars, Ctx, Evaluation::SameIteration);
                     return R != SemaphoreRelation::Disjoint &&
                            R != SemaphoreRelation::OtherRoot;
                   });
    return !Unknown;
  };

  // Whether the semaphore and destination of a wait may take D's bytes.
  auto MayTake = [&](const LocalCopy &DC, const SemaphoreName &Sem, bool Placeholder,
                     const BufferName *Target) {
    SemaphoreRelation S =
        compareSemaphores(DC.Semaphore, Sem, Vars, Ctx, Evaluation::SameIteration);
    if (S == SemaphoreRelation::Disjoint || S == SemaphoreRelation::OtherRoot)
      return false;
    if (Placeholder || !Target)
      return true;
    BufferRelation B = compareBuffers(DC.Target, *Target, Vars, Ctx, Evaluation::SameIteration);
    return B != BufferRelation::Disjoint && B != BufferRelation::OtherRoot;
  };
  // Whether a start between \p From and \p To (by position; anywhere in
  // \p Loop instead when it is given) may put bytes in \p C's view on its
  // semaphore. A start whose copy the model cannot name may.
  auto StartsInto = [&](const LocalCopy &C, const Expr *From, const Expr *To,
                        const Stmt *Loop) {
    auto InRange = [&](const Expr *At) {
      return Loop ? contains(Loop, At, Parents()) : Before(From, At) && Before(At, To);
    };
    auto Into = [&](const std::optional<LocalCopy> &S) {
      return !S || MayTake(C, S->Semaphore, /*Placeholder=*/false, &S->Target);
    };
    for (const DescriptorUse &U : A.Starts)
      if (InRange(U.Call))
        for (const Value &V : U.Values.values())
          if (Into(CopyOf(V.Origin)))
            return true;
    for (OriginId Id = 1; Id < A.Origins.size(); ++Id) {
      const OriginInfo &O = A.origin(Id);
      const auto *Call = dyn_cast_or_null<CallExpr>(O.Site);
      if (Call && InRange(Call) &&
          Api.roleOf(Call->getDirectCallee()) == ApiRole::StartedLocalFactory && Into(CopyOf(Id)))
        return true;
    }
    for (const ProtocolCall &PC : A.ProtocolCalls)
      if (InRange(PC.Call) && !PC.Summary.Starts.empty())
        return true;
    return false;
  };
  // A wait that only counts bytes on its semaphore: its view is waited
  // again on the same semaphore with no start into it between, or it is
  // waited in a loop that starts nothing into it and does not move it. All
  // but one of those waits return on other copies' bytes (ragged_scatter
  // waits each row's copy through a descriptor rebuilt on row 0), so each
  // stands for any copy on its semaphore, as a placeholder does.
  auto Counting = [&](const DescriptorUse &U, const LocalCopy &C) {
    for (const DescriptorUse &Other : A.ReceiveWaits) {
      if (&Other == &U || Other.Values.size() != 1)
        continue;
      const std::optional<LocalCopy> &OC = CopyOf(Other.Values.values().front().Origin);
      if (!OC || OC->Placeholder ||
          compareSemaphores(C.Semaphore, OC->Semaphore, Vars, Ctx, Evaluation::SameIteration) !=
              SemaphoreRelation::Same ||
          compareBuffers(C.Target, OC->Target, Vars, Ctx, Evaluation::SameIteration) !=
              BufferRelation::Same)
        continue;
      bool UFirst = Before(U.Call, Other.Call);
      const Expr *First = UFirst ? U.Call : Other.Call, *Second = UFirst ? Other.Call : U.Call;
      // Waited again only where one runs after the other, in one iteration
      // (the names compare as in one): not in two branches of an `if`.
      if (MayFollow(First, Second, commonLoop(First, Second, Parents())) &&
          !StartsInto(C, First, Second, nullptr))
        return true;
    }
    const Stmt *Loop = nullptr;
    for (const Stmt *P = Parents().getParent(U.Call); P && !Loop; P = Parents().getParent(P))
      if (isLoop(P))
        Loop = P;
    return Loop &&
           compareSemaphores(C.Semaphore, C.Semaphore, Vars, Ctx, Evaluation::Anywhere) ==
               SemaphoreRelation::Same &&
           compareBuffers(C.Target, C.Target, Vars, Ctx, Evaluation::Anywhere) ==
               BufferRelation::Same &&
           !StartsInto(C, nullptr, nullptr, Loop);
  };
  // The one copy a receive wait waits, when the model names it.
  auto WaitedCopy = [&](const DescriptorUse &U) -> const std::optional<LocalCopy> * {
    if (U.Values.size() != 1)
      return nullptr;
    const std::optional<LocalCopy> &C = CopyOf(U.Values.values().front().Origin);
    return C && !C->Placeholder ? &C : nullptr;
  };
  // Whether the receive wait \p U of the remote copy \p Id may take the
  // bytes of \p DC: on its receive semaphore, for its destination (the
  // bytes its peer sends land there), or, for wait(), on its send semaphore
  // whatever the view. A remote copy the model cannot name may take any.
  auto RemoteMayTake = [&](OriginId Id, const DescriptorUse &U, const LocalCopy &DC) {
    const OriginInfo &O = A.origin(Id);
    if (!O.Site || O.HelperCall || O.Kind != Remoteness::Remote || O.isParameter() ||
        O.Imported || O.Folded || O.Engaged || !Api.isCopy(*O.Site))
      return true;
    CopySemaphores Sems = copySemaphores(O.Site, Api);
    std::optional<SemaphoreName> Receive =
        Sems.Receive ? semaphoreName(Sems.Receive, Vars) : std::nullopt;
    const Expr *TargetExpr = copyBuffers(O.Site, Api).Target;
    std::optional<BufferName> Target =
        TargetExpr ? bufferName(TargetExpr, Api, Vars) : std::nullopt;
    if (!Receive || !Target || MayTake(DC, *Receive, /*Placeholder=*/false, &*Target))
      return true;
    if (Api.roleOf(U.Call->getMethodDecl()) != ApiRole::Wait)
      return false;
    std::optional<SemaphoreName> Send = Sems.Send ? semaphoreName(Sems.Send, Vars) : std::nullopt;
    return !Send || MayTake(DC, *Send, /*Placeholder=*/true, nullptr);
  };
  // Whether a wait after \p Start (in its iteration) may take D's bytes:
  // one of the function's own, or one a helper it calls makes.
  auto Covered = [&](OriginId D, const LocalCopy &DC, const Expr *Start, const Stmt *Loop,
                     const WaitSite &Except, const LambdaEvent *StartEvent) {
    auto After = [&](const Expr *At) {
      return Before(Start, At) && (!Loop || contains(Loop, At, Parents())) &&
             MayFollow(Start, At, Loop);
    };
    auto CountsOnD = [&](const DescriptorUse &U) {
      // On a semaphore that may be D's, whatever the view.
      const std::optional<LocalCopy> *C = WaitedCopy(U);
      return C && MayTake(DC, (*C)->Semaphore, /*Placeholder=*/true, nullptr) &&
             Counting(U, **C);
    };
    for (const DescriptorUse &U : A.ReceiveWaits) {
      if (&U == Except.Use) {
        // The wait itself, run again by its loop or repeated: it counts.
        if (CountsOnD(U))
          return true;
        continue;
      }
      // A wait in a lambda whose calls are not told apart (Events.Waits
      // are) runs where the lambda is called, wherever it is written: it
      // may follow the start.
      bool AnyTime = U.InLambda && !Events.WaitsAtCalls.contains(&U);
      if (!AnyTime && !After(U.Call))
        continue;
      if (U.Values.hasOrigin(D) || CountsOnD(U))
        return true;
      for (const Value &V : U.Values.values()) {
        if (A.origin(V.Origin).Covered)
          continue;
        const std::optional<LocalCopy> &O = CopyOf(V.Origin);
        if (O ? MayTake(DC, O->Semaphore, O->Placeholder, &O->Target)
              : RemoteMayTake(V.Origin, U, DC))
          return true; // Unnamed: it may wait anything.
      }
    }
    for (const LambdaEvent &E : Events.Waits) {
      // After the start: at a later call, or later in the same call of the
      // lambda that starts it.
      bool LaterInCall = StartEvent && E.Call == StartEvent->Call &&
                         (StartEvent->InLoop || Before(StartEvent->At, E.At));
      if (&E == Except.Event || (!After(E.Call) && !LaterInCall))
        continue;
      if (!E.Decided || !E.Copy ||
          MayTake(DC, E.Copy->Semaphore, E.Copy->Placeholder, &E.Copy->Target))
        return true; // It may happen there, and take D's bytes.
    }
    for (const ProtocolCall &PC : A.ProtocolCalls) {
      if (!After(PC.Call))
        continue;
      for (unsigned I = 0; I < PC.Summary.Waits.size(); ++I) {
        const HelperWait &H = PC.Summary.Waits[I];
        if (Except.Call == &PC && Except.Entry == I)
          continue;
        if (H.Unknown)
          return true;
        std::optional<BufferName> Target =
            H.Target ? bufferAtCall(*H.Target, PC.Args, Api, Vars, Ctx, PC.within()) : std::nullopt;
        bool Placeholder = placeholderAtCall(H, PC.Args, Api, Vars, Ctx, PC.within());
        for (const SummarySemaphore &Sem : H.Semaphores) {
          std::optional<SemaphoreName> S = semaphoreAtCall(Sem, PC.Args, Vars, Ctx, PC.within());
          if (!S || MayTake(DC, *S, Placeholder, Target ? &*Target : nullptr))
            return true;
        }
      }
    }
    return false;
  };

  // Whether the copy \p Id that \p Use (its start or wait, or its started
  // factory) acts on was made in the iteration of \p Loop that reaches
  // \p Use (the function's run when null): \p Use is the call that makes
  // it, or is called on it as made (`make_async_copy(...).start()`) or on a
  // local of the loop's body it initialises, which is never assigned. A
  // copy kept from an earlier iteration was made with that iteration's
  // values.
  auto MadeInIteration = [&](OriginId Id, const Expr *Use, const Stmt *Loop) {
    const OriginInfo &O = A.origin(Id);
    if (O.HelperCall)
      return A.ProtocolCalls[O.HelperCall - 1].Call == Use;
    if (!O.Site)
      return false;
    const Expr *Made = stripWrappers(O.Site);
    if (stripWrappers(Use) == Made)
      return true;
    const auto *MC = dyn_cast<CXXMemberCallExpr>(Use);
    if (MC && stripWrappers(MC->getImplicitObjectArgument()) == Made)
      return true;
    if (!actsOnMade(MC, Made, Vars))
      return false;
    return !Loop || contains(loopBody(Loop), Made, Parents());
  };

  // The waits that may race: the function's own receive waits of local
  // copies it can name, the exact waits of the helpers it calls, and those
  // of lambdas at their calls.
  std::vector<WaitSite> Sites;
  for (const DescriptorUse &U : A.ReceiveWaits)
    if (!U.InFlightBefore.empty())
      Sites.push_back(WaitSite{U.Call, &U, nullptr, 0, U.InFlightBefore});
  for (const ProtocolCall &PC : A.ProtocolCalls)
    for (unsigned I = 0; I < PC.Summary.Waits.size(); ++I) {
      const HelperWait &H = PC.Summary.Waits[I];
      if (!PC.InFlightBefore.empty() && H.Exact && !H.Conditional && PC.WaitDecided[I] &&
          H.Semaphores.size() == 1 && !placeholderAtCall(H, PC.Args, Api, Vars, Ctx, PC.within()))
        Sites.push_back(WaitSite{PC.Call, nullptr, &PC, I, PC.InFlightBefore});
    }
  for (const LambdaEvent &E : Events.Waits)
    if (!E.Use->InFlightBefore.empty() && E.Decided && E.Copy && !E.Copy->Placeholder)
      Sites.push_back(WaitSite{E.Call, nullptr, nullptr, 0, E.Use->InFlightBefore, &E});

  for (const WaitSite &W : Sites) {
    llvm::SmallVector<LocalCopy, 2> Waited;
    if (W.Use) {
      KindVerdict Local = A.verdict(W.Use->Values, Remoteness::Local);
      if (!Local.All || Local.AnyUnknown || Local.Origins.empty())
        continue;
      for (OriginId Id : Local.Origins) {
        const std::optional<LocalCopy> &C = CopyOf(Id);
        if (!C || C->Placeholder)
          break;
        Waited.push_back(*C);
      }
      if (Waited.size() != Local.Origins.size())
        continue;
    } else if (W.Event) {
      Waited.push_back(*W.Event->Copy);
    } else {
      const HelperWait &H = W.Call->Summary.Waits[W.Entry];
      std::optional<LocalCopy> C = AtCall(*W.Call, H.Semaphores.front(), H.Target);
      if (!C)
        continue;
      Waited.push_back(std::move(*C));
    }
    if (placementOf(W.At, nullptr, Parents()).InLambda)
      continue;
    bool Reported = false;
    for (OriginId D : W.InFlightBefore) {
      if ((W.Use && W.Use->Values.hasOrigin(D)) || A.handedOn(D))
        continue;
      auto Usable = [&](const std::optional<LocalCopy> &DC) {
        return DC && !DC->Placeholder && ownRoot(DC->Semaphore.Root, FD, Vars, Roots()) &&
               Roots().onlyInCopies(DC->Semaphore.Root, LambdaCopiesFollowed(DC->Semaphore));
      };
      // Whether D races with every copy W waits: yes, no, or not provably
      // (an index unknown), when more variables are taken to keep their
      // values; the answers known stay known then.
      enum class Verdict { Races, Never, Unknown };
      auto RacesUnder = [&](const LocalCopy &DC, const UnwrittenVariables &Values) {
        Verdict V = Verdict::Races;
        for (const LocalCopy &C : Waited) {
          SemaphoreRelation S = compareSemaphores(DC.Semaphore, C.Semaphore, Values, Ctx,
                                                  Evaluation::SameIteration);
          if (S == SemaphoreRelation::Disjoint || S == SemaphoreRelation::OtherRoot)
            return Verdict::Never;
          BufferRelation B =
              compareBuffers(DC.Target, C.Target, Values, Ctx, Evaluation::SameIteration);
          if (B == BufferRelation::Same || B == BufferRelation::OtherRoot)
            return Verdict::Never;
          if (S == SemaphoreRelation::Unknown || B != BufferRelation::Disjoint)
            V = Verdict::Unknown;
        }
        return V;
      };
      auto Hopeless = [&](Verdict V) {
        return V == Verdict::Never || (V == Verdict::Unknown && !Vars.mayBeSteady());
      };
      // D's starts: its own (named once), and a lambda's at each call.
      struct StartOfD {
        const Expr *At;
        const std::optional<LocalCopy> *Copy;
        const LambdaEvent *Event;
      };
      llvm::SmallVector<StartOfD, 4> Starts;
      const std::optional<LocalCopy> &Whole = CopyOf(D);
      Verdict WholePlain = Verdict::Never;
      if (Usable(Whole)) {
        WholePlain = RacesUnder(*Whole, Vars);
        if (!Hopeless(WholePlain))
          for (const Expr *Start : StartsOf(D))
            Starts.push_back({Start, &Whole, nullptr});
      }
      for (const LambdaEvent &E : Events.Starts)
        if (E.Origin == D && E.Decided && E.Call != W.At)
          Starts.push_back({E.Call, &E.Copy, &E});
      for (const StartOfD &S : Starts) {
        const Expr *Start = S.At;
        // Started earlier in the iteration of the innermost loop around both
        // (a prefetch loop before a loop of waits: the function's run).
        if (!Before(Start, W.At))
          continue;
        const std::optional<LocalCopy> &DC = *S.Copy;
        Verdict Plain = WholePlain;
        if (S.Event) {
          if (!Usable(DC))
            continue;
          Plain = RacesUnder(*DC, Vars);
          if (Hopeless(Plain))
            continue;
        }
        bool Races = Plain == Verdict::Races;
        const Stmt *Loop = commonLoop(Start, W.At, Parents());
        // A lambda's copy is made at its call.
        auto Made = [&](OriginId Id, const Expr *Use, const LambdaEvent *Event) {
          if (Event)
            return !Loop || contains(loopBody(Loop), Event->Call, Parents());
          return MadeInIteration(Id, Use, Loop);
        };
        // Names of variables the loop assigns (the slot carried to the next
        // iteration, the loop counter) compare as the values they hold in
        // this iteration up to the wait, for copies made in it.
        if (!Races && !(Made(D, Start, S.Event) &&
                        (W.Call || (W.Event && Made(0, W.At, W.Event)) ||
                         (W.Use && llvm::all_of(W.Use->Values.values(),
                                                [&](const Value &V) {
                                                  return MadeInIteration(V.Origin, W.At, Loop);
                                                }))) &&
                        RacesUnder(*DC, Vars.steadyUntil(Loop, W.At, Parents(), SM)) ==
                            Verdict::Races))
          continue;
        Placement AtStart = placementOf(Start, Loop, Parents());
        if (AtStart.InLambda || exclusive(AtStart, placementOf(W.At, Loop, Parents()), Ctx) ||
            Covered(D, *DC, Start, Loop, W, S.Event))
          continue;
        SemaphoreRace R;
        R.Wait = W.Use;
        R.WaitAt = W.At;
        R.InFlight = D;
        R.Start = Start;
        R.Semaphore = Waited.front().SemaphoreText;
        R.WaitBuffer = Waited.front().TargetText;
        R.InFlightBuffer = DC->TargetText;
        R.InLoop = Loop != nullptr;
        if (W.Call) {
          R.WaitHelper = W.Call->Callee;
          R.WaitInHelper = W.Call->Summary.Waits[W.Entry].At;
          R.WaitIn = W.Call->Summary.Waits[W.Entry].In;
        }
        if (W.Event) {
          R.WaitLambda = W.Event->Holder;
          R.WaitInHelper = W.Event->At;
        }
        if (S.Event) {
          R.StartLambda = S.Event->Holder;
          R.StartInHelper = S.Event->At;
        } else if (const OriginInfo &O = A.origin(D); O.HelperCall) {
          const ProtocolCall &PC = A.ProtocolCalls[O.HelperCall - 1];
          R.StartHelper = PC.Callee;
          R.StartInHelper = PC.Summary.Starts[O.HelperEntry].At;
          R.StartIn = PC.Summary.Starts[O.HelperEntry].In;
        }
        Found.push_back(R);
        Reported = true;
        break;
      }
      if (Reported)
        break; // One finding per wait.
    }
  }
  // A destructor that reaches the API may wait the copy in flight before the
  // iteration or the function ends.
  if (!Found.empty() && destroysWithApi(FD, Ctx, Api))
    Found.clear();
  return Found;
}

} // namespace dmalint
