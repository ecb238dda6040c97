//===- SemaphoreImbalanceCheck.cpp ----------------------------------------===//
#include "SemaphoreImbalanceCheck.h"
#include "dmalint/AnalysisCache.h"
#include "dmalint/AstUtil.h"
#include "dmalint/Barriers.h"
#include "clang/ASTMatchers/ASTMatchFinder.h"
#include "clang/Lex/Lexer.h"

using namespace clang;
using namespace clang::ast_matchers;

namespace dmalint::checks {

namespace {

/// A barrier's wait, outside system headers.
bool waitsSemaphoreInUserCode(const CallExpr &Call, ASTContext &Ctx, const ApiIndex &Api) {
  return Api.semaphoreWaitOf(Call.getDirectCallee()) && apiSeen(Ctx, Api) &&
         expandedInUserCode(Call.getBeginLoc(), Ctx.getSourceManager());
}

/// The functions whose locals or parameters \p Wait's arguments name.
///
/// A barrier is judged only when its semaphore is such a variable, of the
/// function whose own body (not a lambda's) waits it: so these are the
/// functions the wait can make judge anything, found without asking which
/// function holds the call (forCallable: the parent map of the whole
/// translation unit).
llvm::SmallVector<const FunctionDecl *, 2> functionsOfLocals(const CallExpr &Wait) {
  llvm::SmallVector<const FunctionDecl *, 2> Out;
  llvm::SmallVector<const Stmt *, 8> Pending(Wait.arg_begin(), Wait.arg_end());
  while (!Pending.empty()) {
    const Stmt *S = Pending.pop_back_val();
    if (!S)
      continue;
    if (const auto *Ref = dyn_cast<DeclRefExpr>(S))
      if (const auto *Var = dyn_cast<VarDecl>(Ref->getDecl());
          Var && Var->hasLocalStorage() && !Var->isStaticLocal())
        if (const auto *FD = dyn_cast<FunctionDecl>(Var->getDeclContext());
            FD && !llvm::is_contained(Out, FD))
          Out.push_back(FD);
    llvm::append_range(Pending, S->children());
  }
  return Out;
}

std::string signalCount(const std::string &Count) {
  return Count + (Count == "1" ? " signal" : " signals");
}

/// The devices a loop signals: "the n - 1 other devices", "n - 1 neighbours".
std::string sourceDevices(SignalSource Source, const std::string &Count) {
  switch (Source) {
  case SignalSource::EveryDevice:
    return "the " + Count + " devices";
  case SignalSource::EveryOtherDevice:
    return "the " + Count + " other devices";
  default:
    return Count + (Count == "1" ? " neighbour" : " neighbours");
  }
}

/// Where each device's signals come from: "2 from each of 2 neighbours, 1
/// from itself".
std::string signalSources(const BarrierBalance &B) {
  const AtomTable &Atoms = *B.Atoms;
  // Neighbours by what each gives; loops over the devices by how many
  // devices, adding what each gives; the device itself, added up.
  std::vector<std::pair<std::string, unsigned>> Neighbours;
  std::vector<std::pair<std::pair<SignalSource, std::string>, SymbolicCount>> Loops;
  SymbolicCount Itself;
  bool AnyItself = false;
  for (const BarrierSignal &S : B.Signals) {
    if (S.Source == SignalSource::Itself) {
      Itself = Itself + S.Received;
      AnyItself = true;
    } else if (S.Source == SignalSource::Neighbour) {
      // One neighbour, or each of a list's (`for (int peer : {left, right})`).
      std::string Each = Atoms.str(S.PerSource);
      unsigned Count = unsigned(S.Sources.asConstant().value_or(1));
      auto It = llvm::find_if(Neighbours, [&](const auto &N) { return N.first == Each; });
      if (It == Neighbours.end())
        Neighbours.push_back({Each, Count});
      else
        It->second += Count;
    } else {
      std::pair<SignalSource, std::string> Key{S.Source, Atoms.str(S.Sources)};
      auto It = llvm::find_if(Loops, [&](const auto &L) { return L.first == Key; });
      if (It == Loops.end())
        Loops.push_back({Key, S.PerSource});
      else
        It->second = It->second + S.PerSource;
    }
  }
  std::vector<std::string> Parts;
  for (auto &[Each, Count] : Neighbours)
    Parts.push_back(Count == 1 ? Each + " from a neighbour"
                               : Each + " from each of " + std::to_string(Count) +
                                     " neighbours");
  for (auto &[Key, Each] : Loops)
    Parts.push_back(Atoms.str(Each) + " from each of " + sourceDevices(Key.first, Key.second));
  if (AnyItself)
    Parts.push_back(Atoms.str(Itself) + " from itself");
  std::string Out;
  for (const std::string &Part : Parts)
    Out += (Out.empty() ? "" : ", ") + Part;
  return Out;
}

std::string signalNote(const BarrierSignal &S, const AtomTable &Atoms) {
  std::string From = Atoms.str(S.PerSource) + " from each of " +
                     sourceDevices(S.Source, Atoms.str(S.Sources));
  switch (S.Source) {
  case SignalSource::Itself:
    return "this signal to the device itself gives it " + Atoms.str(S.Received);
  case SignalSource::Neighbour:
    if (S.Sources != SymbolicCount::constant(1))
      return "this signal to each of " + Atoms.str(S.Sources) + " neighbours gives each device " +
             Atoms.str(S.Received) + " (" + Atoms.str(S.PerSource) + " from each)";
    return "this signal to a neighbour gives each device " + Atoms.str(S.Received);
  case SignalSource::NeighbourPerIteration:
    return "this signal to a different neighbour in each iteration gives each device " + From;
  case SignalSource::EveryDevice:
    return "this signal to every device gives each device " + From;
  case SignalSource::EveryOtherDevice:
    return "this signal to every other device gives each device " + From;
  }
  return "";
}

} // namespace

void SemaphoreImbalanceCheck::registerDmaMatchers(DmaMatchers &Matchers) {
  // Only functions that wait a semaphore pay anything.
  Matchers.add<CallExpr, waitsSemaphoreInUserCode>("wait");
}

void SemaphoreImbalanceCheck::onStartOfTranslationUnit() {
  AnalysisCache::current().reset();
  Judged.clear();
  Pending.clear();
  Order.clear();
}

void SemaphoreImbalanceCheck::check(const MatchFinder::MatchResult &Result) {
  if (validateApi(Result))
    return;
  const auto *Wait = Result.Nodes.getNodeAs<CallExpr>("wait");
  if (!Wait)
    return;
  for (const FunctionDecl *Function : functionsOfLocals(*Wait))
    // A template pattern is judged in its instantiations; a function once.
    if (Function->isThisDeclarationADefinition() && !Function->isDependentContext() &&
        Judged.insert(Function).second)
      judge(*Function, *Result.Context);
}

void SemaphoreImbalanceCheck::judge(const FunctionDecl &Function, ASTContext &Ctx) {
  this->Ctx = &Ctx;
  bool AssumedUncalled = false;
  for (const BarrierBalance &B :
       barrierBalances(Function, Ctx, *Api, callerMayUse(Function), &AssumedUncalled)) {
    const SourceManager &SM = Ctx.getSourceManager();
    SourceLocation Loc = userLocation(B.lastWait().Call->getExprLoc(), SM);
    auto [It, Inserted] = Pending.try_emplace(Loc.getRawEncoding());
    if (Inserted)
      Order.push_back(Loc.getRawEncoding());
    if (B.Difference == CountSign::Zero) {
      if (AssumedUncalled)
        It->second.BalancedIfUncalled.push_back(&Function);
      else
        It->second.Balanced = true;
      continue;
    }
    const AtomTable &Atoms = *B.Atoms;
    std::string Semaphore = nameInMessage(B.Semaphore, Ctx, "semaphore");
    bool Over = B.Difference == CountSign::Positive;
    std::string Left = Atoms.str(Over ? B.Received - B.Waited : B.Waited - B.Received);
    Finding F;
    F.Loc = Loc;
    F.Message = "barrier semaphore '" + Semaphore + "' is " +
                (Over ? "over-signalled" : "under-signalled") +
                ": each device receives " + signalCount(Atoms.str(B.Received)) +
                " in this region (" + signalSources(B) + ") but waits for " +
                Atoms.str(B.Waited) +
                (Over ? ", so " + signalCount(Left) + (Left == "1" ? " is" : " are") +
                            " left on it when the kernel exits"
                      : ", so the wait never completes");
    for (const BarrierSignal &S : B.Signals)
      F.Notes.push_back({userLocation(S.Call->getExprLoc(), SM), signalNote(S, Atoms)});
    for (const BarrierWait &W : B.Waits)
      if (&W != &B.lastWait())
        F.Notes.push_back({userLocation(W.Call->getExprLoc(), SM),
                           "'" + Semaphore + "' is also waited for " + Atoms.str(W.Total) +
                               " here"});
    It->second.Found.push_back(std::move(F));
  }
}

std::function<bool(const ParmVarDecl &)>
SemaphoreImbalanceCheck::callerMayUse(const FunctionDecl &Function) {
  return [this, &Function](const ParmVarDecl &Param) {
    return AnalysisCache::current().callerMayUseArgument(Function, Param, *Ctx);
  };
}

bool SemaphoreImbalanceCheck::provedBalanced(unsigned Key, const Votes &V) {
  // A balance that holds only if no function calls its function: asked
  // now, as a finding at the same spelling depends on it.
  for (const FunctionDecl *Function : V.BalancedIfUncalled)
    for (const BarrierBalance &B : barrierBalances(*Function, *Ctx, *Api, callerMayUse(*Function)))
      if (B.Difference == CountSign::Zero &&
          userLocation(B.lastWait().Call->getExprLoc(), Ctx->getSourceManager())
                  .getRawEncoding() == Key)
        return true;
  return false;
}

void SemaphoreImbalanceCheck::onEndOfTranslationUnit() {
  for (unsigned Key : Order) {
    const Votes &V = Pending[Key];
    if (V.Balanced || V.Found.empty() || provedBalanced(Key, V))
      continue;
    const Finding &F = V.Found.front();
    diag(F.Loc, "%0") << F.Message;
    for (const auto &[Loc, Text] : F.Notes)
      diag(Loc, "%0", DiagnosticIDs::Note) << Text;
  }
  Judged.clear();
  Pending.clear();
  Order.clear();
}

} // namespace dmalint::checks
