//===- Protocol.cpp - What the semaphore protocol checks ask --------------===//
#include "dmalint/Protocol.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/ParentMap.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Basic/SourceManager.h"
#include "dmalint/Arguments.h"
#include "llvm/ADT/DenseMap.h"
#include <map>

using namespace clang;

namespace dmalint {

namespace {

/// Where a function mentions semaphore roots. A root mentioned only as a
/// semaphore argument of copies (directly, or through a local semaphore
/// variable that is used only there) is waited nowhere but by the copies'
/// descriptors; any other mention (a call of a helper, semaphore_wait, a
/// reference bound to it) may wait it where the analysis does not look, and
/// so may a copy in a lambda, which the analysis follows only where it sees
/// the lambda called.
class RootMentions : public RecursiveASTVisitor<RootMentions> {
public:
  RootMentions(const ApiIndex &Api) : Api(Api) {}

  bool TraverseStmt(Stmt *S) {
    if (!S)
      return true;
    bool Allowed = SemaphoreArguments.contains(S);
    Inside += Allowed;
    bool Result = RecursiveASTVisitor::TraverseStmt(S);
    Inside -= Allowed;
    return Result;
  }
  bool TraverseLambdaExpr(LambdaExpr *L) {
    ++InLambda;
    bool Result = RecursiveASTVisitor::TraverseLambdaExpr(L);
    --InLambda;
    return Result;
  }
  bool TraverseVarDecl(VarDecl *V) {
    Initialising.push_back(V);
    bool Result = RecursiveASTVisitor::TraverseVarDecl(V);
    Initialising.pop_back();
    return Result;
  }
  bool VisitCallExpr(CallExpr *Call) {
    if (Api.isCopy(*Call))
      addArguments(Call);
    return true;
  }
  bool VisitCXXConstructExpr(CXXConstructExpr *CE) {
    if (Api.isCopy(*CE)) {
      addArguments(CE);
      // The source semaphore may be an optional the analysis follows, or
      // not: either way it is a semaphore argument.
      if (Api.model().CtorSrcSemParam < CE->getNumArgs())
        SemaphoreArguments.insert(CE->getArg(Api.model().CtorSrcSemParam));
    }
    return true;
  }
  bool VisitDeclRefExpr(DeclRefExpr *DRE) {
    const auto *V = dyn_cast<VarDecl>(DRE->getDecl());
    if (!V)
      return true;
    const VarDecl *Init = Initialising.empty() ? nullptr : Initialising.back();
    Mentions.push_back({cast<VarDecl>(V->getCanonicalDecl()), Inside > 0 && InLambda == 0, Init});
    return true;
  }

  /// True when every mention of \p Root is a semaphore argument of a copy.
  bool onlyInCopies(const ValueDecl *Root) const {
    const auto *V = dyn_cast<VarDecl>(Root);
    if (!V)
      return false;
    for (const Mention &M : Mentions) {
      if (M.Var != V || M.InCopy)
        continue;
      if (!M.InInitOf || M.InInitOf == V || !isLocalSemaphoreCopy(M.InInitOf))
        return false;
    }
    return true;
  }

private:
  struct Mention {
    const VarDecl *Var;
    bool InCopy;
    const VarDecl *InInitOf;
  };

  void addArguments(const Expr *Copy) {
    CopySemaphores Sems = copySemaphores(Copy, Api);
    for (const Expr *E : {Sems.Send, Sems.Receive})
      if (E)
        SemaphoreArguments.insert(E);
  }
  /// A local variable mentioned only as a semaphore argument of copies.
  bool isLocalSemaphoreCopy(const VarDecl *V) const {
    if (!V->isLocalVarDecl() || isa<ParmVarDecl>(V))
      return false;
    const VarDecl *Canonical = V->getCanonicalDecl();
    for (const Mention &M : Mentions)
      if (M.Var == Canonical && !M.InCopy)
        return false;
    return true;
  }

  const ApiIndex &Api;
  unsigned Inside = 0, InLambda = 0;
  std::vector<VarDecl *> Initialising;
  llvm::DenseSet<const Stmt *> SemaphoreArguments;
  std::vector<Mention> Mentions;
};

/// The semaphores a wait of role \p Role on a copy of origin \p O waits:
/// false when they cannot be named (then the wait may wait anything).
bool waitedSemaphores(const OriginInfo &O, ApiRole Role, const UnwrittenVariables &Vars,
                      const ApiIndex &Api, llvm::SmallVectorImpl<SemaphoreName> &Out) {
  if (!O.Site || O.isParameter() || O.Imported || O.Folded || O.Engaged || !Api.isCopy(*O.Site))
    return false;
  CopySemaphores Sems = copySemaphores(O.Site, Api);
  auto Add = [&](const Expr *E) {
    std::optional<SemaphoreName> N = E ? semaphoreName(E, Vars) : std::nullopt;
    if (N)
      Out.push_back(*N);
    return N.has_value();
  };
  bool SendSide = Role == ApiRole::WaitSend || (Role == ApiRole::Wait && O.Kind != Remoteness::Local);
  bool ReceiveSide = Role != ApiRole::WaitSend;
  if (SendSide && !Add(Sems.Send))
    return false;
  if (ReceiveSide && !Add(Sems.Receive))
    return false;
  return true;
}

} // namespace

std::vector<SendNeverWaited> sendsNeverWaited(const FunctionAnalysis &A, const FunctionDecl &FD,
                                              const ASTContext &Ctx, const ApiIndex &Api,
                                              bool CalledHere) {
  std::vector<SendNeverWaited> Found;
  if (A.HitWorkLimit || !FD.hasBody())
    return Found;
  // A lambda's waits are judged in the function that calls it.
  if (const auto *MD = dyn_cast<CXXMethodDecl>(&FD); MD && MD->getParent()->isLambda())
    return Found;
  std::optional<UnwrittenVariables> Vars;
  std::optional<RootMentions> Roots;

  // Whether some wait of the function may take what \p D's copies signal on
  // their send semaphore \p Send.
  auto MayBeDrained = [&](OriginId D, const SemaphoreName &Send) {
    for (const std::vector<DescriptorUse> *Uses : {&A.ReceiveWaits, &A.WaitSends})
      for (const DescriptorUse &U : *Uses) {
        ApiRole Role = Api.roleOf(U.Call->getMethodDecl());
        if (Role != ApiRole::WaitRecv && U.Values.hasOrigin(D))
          return true;
        for (const Value &V : U.Values.values()) {
          const OriginInfo &O = A.origin(V.Origin);
          if (O.Covered)
            continue;
          llvm::SmallVector<SemaphoreName, 2> Waited;
          if (!waitedSemaphores(O, Role, *Vars, Api, Waited))
            return true;
          for (const SemaphoreName &W : Waited) {
            SemaphoreRelation R = compareSemaphores(Send, W, *Vars, Ctx);
            if (R == SemaphoreRelation::Same || R == SemaphoreRelation::Unknown)
              return true;
          }
        }
      }
    return false;
  };

  for (const DescriptorUse &U : A.ReceiveWaits) {
    if (Api.roleOf(U.Call->getMethodDecl()) != ApiRole::WaitRecv)
      continue;
    KindVerdict Remote = A.verdict(U.Values, Remoteness::Remote);
    if (!Remote.All || Remote.AnyUnknown || Remote.Origins.empty())
      continue;
    if (!Vars) {
      Vars.emplace(FD, Api);
      Roots.emplace(Api);
      Roots->TraverseStmt(FD.getBody());
    }
    SendNeverWaited Finding;
    Finding.WaitRecv = &U;
    bool Provable = true;
    for (OriginId D : Remote.Origins) {
      const OriginInfo &O = A.origin(D);
      if (!O.Site || O.isParameter() || O.Imported || O.Folded || A.handedOn(D) ||
          !Api.isCopy(*O.Site)) {
        Provable = false;
        break;
      }
      const Expr *SendArg = copySemaphores(O.Site, Api).Send;
      std::optional<SemaphoreName> Send = SendArg ? semaphoreName(SendArg, *Vars) : std::nullopt;
      const auto *Root = Send ? dyn_cast<VarDecl>(Send->Root) : nullptr;
      // A parameter's semaphores may be waited by a caller; a member's or a
      // global's by other functions.
      bool OwnRoot = Root && (isa<ParmVarDecl>(Root) ? !CalledHere : Root->isLocalVarDecl()) &&
                     Root->getDeclContext() == &FD;
      if (!OwnRoot || !Roots->onlyInCopies(Root) || MayBeDrained(D, *Send)) {
        Provable = false;
        break;
      }
      if (!Finding.SendSemaphore)
        Finding.SendSemaphore = Send->Spelling;
      Finding.Origins.push_back(D);
    }
    if (Provable)
      Found.push_back(std::move(Finding));
  }
  return Found;
}

namespace {

/// What the race check knows of one local copy built in the function.
struct LocalCopy {
  SemaphoreName Semaphore;
  BufferName Target;
  bool Placeholder = false; ///< Source and target are one view: stands for any copy.
};

std::optional<LocalCopy> localCopy(const OriginInfo &O, const ApiIndex &Api,
                                   const UnwrittenVariables &Vars, const ASTContext &Ctx) {
  if (O.Kind != Remoteness::Local || !O.Site || O.isParameter() || O.Imported || O.Folded ||
      O.Engaged || !Api.isCopy(*O.Site))
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
  return C;
}

bool isLoop(const Stmt *S) { return isa<ForStmt, WhileStmt, DoStmt, CXXForRangeStmt>(S); }

/// Where a statement sits: its innermost loop, whether a lambda holds it,
/// and the branches of the ifs around it (inside that loop).
struct Placement {
  const Stmt *Loop = nullptr;
  bool InLambda = false;
  llvm::SmallVector<std::pair<const IfStmt *, bool>, 4> Branches; ///< (if, then-branch)
};

Placement placementOf(const Stmt *S, const ParentMap &PM) {
  Placement P;
  const Stmt *Child = S;
  for (const Stmt *Parent = PM.getParent(S); Parent; Child = Parent, Parent = PM.getParent(Parent)) {
    if (isa<LambdaExpr>(Parent))
      P.InLambda = true;
    if (!P.Loop && isLoop(Parent))
      P.Loop = Parent;
    if (const auto *If = dyn_cast<IfStmt>(Parent); If && !P.Loop) {
      if (Child == If->getThen())
        P.Branches.push_back({If, true});
      else if (Child == If->getElse())
        P.Branches.push_back({If, false});
    }
  }
  return P;
}

bool contains(const Stmt *Outer, const Stmt *S, const ParentMap &PM) {
  for (; S; S = PM.getParent(S))
    if (S == Outer)
      return true;
  return false;
}

const Expr *bareCondition(const Expr *E, bool &Positive) {
  E = E->IgnoreParenImpCasts();
  while (const auto *UO = dyn_cast<UnaryOperator>(E)) {
    if (UO->getOpcode() != UO_LNot)
      break;
    Positive = !Positive;
    E = UO->getSubExpr()->IgnoreParenImpCasts();
  }
  return E;
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
  if (!BA || !BB || !PA || !PB || !sameExpression(BA->getLHS(), BB->getLHS(), Ctx))
    return false;
  if (BA->getOpcode() == BO_EQ && BB->getOpcode() == BO_EQ) {
    std::optional<int64_t> CA = constantInt(BA->getRHS(), Ctx), CB = constantInt(BB->getRHS(), Ctx);
    return CA && CB && *CA != *CB;
  }
  if (!sameExpression(BA->getRHS(), BB->getRHS(), Ctx))
    return false;
  auto Opposite = [](BinaryOperatorKind X, BinaryOperatorKind Y) {
    return (X == BO_LT && Y == BO_GE) || (X == BO_GE && Y == BO_LT) ||
           (X == BO_GT && Y == BO_LE) || (X == BO_LE && Y == BO_GT) ||
           (X == BO_EQ && Y == BO_NE) || (X == BO_NE && Y == BO_EQ);
  };
  return Opposite(BA->getOpcode(), BB->getOpcode());
}

/// True when no run of the function reaches both placements: the two
/// branches of one if, or ifs whose conditions are complementary.
bool exclusive(const Placement &A, const Placement &B, const ASTContext &Ctx) {
  for (auto &[IfA, ThenA] : A.Branches)
    for (auto &[IfB, ThenB] : B.Branches) {
      if (IfA == IfB) {
        if (ThenA != ThenB)
          return true;
        continue;
      }
      if (!IfA->getConditionVariable() && !IfB->getConditionVariable() &&
          complementary(IfA->getCond(), ThenA, IfB->getCond(), ThenB, Ctx))
        return true;
    }
  return false;
}

} // namespace

std::vector<SemaphoreRace> semaphoreRaces(const FunctionAnalysis &A, const FunctionDecl &FD,
                                          const ASTContext &Ctx, const ApiIndex &Api) {
  std::vector<SemaphoreRace> Found;
  if (A.HitWorkLimit || !FD.hasBody() || A.ReceiveWaits.empty() || A.Starts.empty())
    return Found;
  if (const auto *MD = dyn_cast<CXXMethodDecl>(&FD); MD && MD->getParent()->isLambda())
    return Found;
  // Only a wait of local copies alone, with another copy in flight before
  // it (not one it waits, not one handed on), can race: most functions stop
  // here, before any model is built (the loop below asks the same first).
  auto MayRace = [&](const DescriptorUse &U) {
    if (llvm::none_of(U.InFlightBefore, [&](OriginId D) {
          return !U.Values.hasOrigin(D) && !A.handedOn(D);
        }))
      return false;
    KindVerdict Local = A.verdict(U.Values, Remoteness::Local);
    return Local.All && !Local.AnyUnknown && !Local.Origins.empty();
  };
  if (llvm::none_of(A.ReceiveWaits, MayRace))
    return Found;
  const SourceManager &SM = Ctx.getSourceManager();
  UnwrittenVariables Vars(FD, Api);
  RootMentions Roots(Api);
  Roots.TraverseStmt(FD.getBody());
  ParentMap PM(FD.getBody());
  auto Before = [&](const Stmt *X, const Stmt *Y) {
    return SM.isBeforeInTranslationUnit(X->getBeginLoc(), Y->getBeginLoc());
  };
  std::map<OriginId, std::optional<LocalCopy>> Copies;
  auto CopyOf = [&](OriginId Id) -> const std::optional<LocalCopy> & {
    auto [It, Inserted] = Copies.try_emplace(Id);
    if (Inserted && !A.origin(Id).Covered)
      It->second = localCopy(A.origin(Id), Api, Vars, Ctx);
    return It->second;
  };
  // Where each copy is started: its start calls, or its started factory.
  auto StartsOf = [&](OriginId Id) {
    llvm::SmallVector<const Expr *, 2> Out;
    for (const DescriptorUse &U : A.Starts)
      if (U.Values.hasOrigin(Id))
        Out.push_back(U.Call);
    const Expr *Site = A.origin(Id).Site;
    if (Site && Api.roleOf(isa<CallExpr>(Site) ? cast<CallExpr>(Site)->getDirectCallee()
                                                : nullptr) == ApiRole::StartedLocalFactory)
      Out.push_back(Site);
    return Out;
  };
  // Whether a wait after \p Start (in its iteration) may take D's bytes.
  auto Covered = [&](OriginId D, const LocalCopy &DC, const Expr *Start, const Stmt *Loop,
                     const DescriptorUse &Except) {
    for (const DescriptorUse &U : A.ReceiveWaits) {
      if (&U == &Except || !Before(Start, U.Call) || (Loop && !contains(Loop, U.Call, PM)))
        continue;
      if (U.Values.hasOrigin(D))
        return true;
      for (const Value &V : U.Values.values()) {
        if (A.origin(V.Origin).Covered)
          continue;
        const std::optional<LocalCopy> &O = CopyOf(V.Origin);
        if (!O)
          return true; // It may wait anything.
        SemaphoreRelation S =
            compareSemaphores(DC.Semaphore, O->Semaphore, Vars, Ctx, Evaluation::SameIteration);
        if (S == SemaphoreRelation::Disjoint || S == SemaphoreRelation::OtherRoot)
          continue;
        if (O->Placeholder)
          return true;
        BufferRelation B = compareBuffers(DC.Target, O->Target, Vars, Ctx, Evaluation::SameIteration);
        if (B != BufferRelation::Disjoint && B != BufferRelation::OtherRoot)
          return true;
      }
    }
    return false;
  };

  for (const DescriptorUse &W : A.ReceiveWaits) {
    if (W.InFlightBefore.empty())
      continue;
    KindVerdict Local = A.verdict(W.Values, Remoteness::Local);
    if (!Local.All || Local.AnyUnknown || Local.Origins.empty())
      continue;
    llvm::SmallVector<const LocalCopy *, 2> Waited;
    for (OriginId Id : Local.Origins) {
      const std::optional<LocalCopy> &C = CopyOf(Id);
      if (!C || C->Placeholder)
        break;
      Waited.push_back(&*C);
    }
    if (Waited.size() != Local.Origins.size())
      continue;
    Placement AtWait = placementOf(W.Call, PM);
    if (AtWait.InLambda)
      continue;
    for (OriginId D : W.InFlightBefore) {
      if (W.Values.hasOrigin(D) || A.handedOn(D))
        continue;
      const std::optional<LocalCopy> &DC = CopyOf(D);
      if (!DC || DC->Placeholder || !Roots.onlyInCopies(DC->Semaphore.Root))
        continue;
      bool Races = llvm::all_of(Waited, [&](const LocalCopy *C) {
        return compareSemaphores(DC->Semaphore, C->Semaphore, Vars, Ctx,
                                 Evaluation::SameIteration) == SemaphoreRelation::Same &&
               compareBuffers(DC->Target, C->Target, Vars, Ctx, Evaluation::SameIteration) ==
                   BufferRelation::Disjoint;
      });
      if (!Races)
        continue;
      for (const Expr *Start : StartsOf(D)) {
        Placement AtStart = placementOf(Start, PM);
        if (AtStart.InLambda || AtStart.Loop != AtWait.Loop || !Before(Start, W.Call) ||
            exclusive(AtStart, AtWait, Ctx) || Covered(D, *DC, Start, AtStart.Loop, W))
          continue;
        SemaphoreRace R;
        R.Wait = &W;
        R.InFlight = D;
        R.Start = Start;
        R.Semaphore = Waited.front()->Semaphore.Spelling;
        R.WaitBuffer = Waited.front()->Target.Spelling;
        R.InFlightBuffer = DC->Target.Spelling;
        R.InLoop = AtStart.Loop != nullptr;
        Found.push_back(R);
        break;
      }
      if (!Found.empty() && Found.back().Wait == &W)
        break; // One finding per wait.
    }
  }
  return Found;
}

} // namespace dmalint
