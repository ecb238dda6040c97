//===- InPlaceLambdas.cpp - Lambdas that run where they are written -------===//
#include "dmalint/InPlaceLambdas.h"
#include "dmalint/AnalysisCache.h"
#include "dmalint/Arguments.h"
#include "dmalint/AstUtil.h"
#include "clang/AST/ParentMap.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "llvm/ADT/DenseSet.h"

using namespace clang;

namespace dmalint {

namespace {

/// `std::forward<F>(f)` or `std::move(f)`: the argument, else null.
const Expr *forwarded(const Expr *E) {
  const auto *Call = dyn_cast<CallExpr>(E->IgnoreParenImpCasts());
  const FunctionDecl *Callee = Call ? Call->getDirectCallee() : nullptr;
  if (!Callee || Call->getNumArgs() != 1 || !Callee->isInStdNamespace() ||
      !Callee->getIdentifier() ||
      (Callee->getName() != "forward" && Callee->getName() != "move"))
    return nullptr;
  return Call->getArg(0);
}

/// One walk of a body: its mentions of the parameter, the calls of it, and
/// anything that makes "called once, in place, and nothing else" unprovable.
class ParameterCalls : public RecursiveASTVisitor<ParameterCalls> {
  using Base = RecursiveASTVisitor<ParameterCalls>;

public:
  explicit ParameterCalls(const ParmVarDecl &Param) : Param(Param) {}

  bool TraverseStmt(Stmt *S) {
    if (!S || Unprovable)
      return !Unprovable;
    bool Loop = isa<ForStmt, WhileStmt, DoStmt, CXXForRangeStmt>(S);
    LoopDepth += Loop;
    bool Result = Base::TraverseStmt(S);
    LoopDepth -= Loop;
    return Result;
  }
  bool VisitCallExpr(CallExpr *Call) {
    if (Accounted.contains(Call))
      return true;
    const auto *Op = dyn_cast<CXXOperatorCallExpr>(Call);
    if (Op && Op->getOperator() == OO_Call && Op->getNumArgs() == 1) {
      const Expr *Object = Op->getArg(0)->IgnoreParenImpCasts();
      if (const Expr *Inner = forwarded(stripWrappers(Object))) {
        Accounted.insert(stripWrappers(Object)->IgnoreParenImpCasts());
        Object = Inner->IgnoreParenImpCasts();
      }
      const auto *DRE = dyn_cast<DeclRefExpr>(Object);
      if (DRE && DRE->getDecl() == &Param) {
        Accounted.insert(DRE);
        ++Calls;
        TheCall = Op;
        Unprovable |= LoopDepth > 0 || Calls > 1;
        return !Unprovable;
      }
    }
    Unprovable = true; // Anything else it calls may act before or after.
    return false;
  }
  bool VisitCXXConstructExpr(CXXConstructExpr *CE) {
    if (!CE->getConstructor() || !CE->getConstructor()->isTrivial())
      Unprovable = true;
    return !Unprovable;
  }
  bool VisitDeclRefExpr(DeclRefExpr *DRE) {
    if (DRE->getDecl() == &Param && !Accounted.contains(DRE))
      Unprovable = true; // Kept, copied or handed on: it may run later.
    return !Unprovable;
  }
  bool VisitStmt(Stmt *S) {
    if (isa<LambdaExpr, LabelStmt, GotoStmt, IndirectGotoStmt, CXXNewExpr, CXXDeleteExpr,
            CoroutineBodyStmt, BlockExpr>(S))
      Unprovable = true;
    return !Unprovable;
  }

  bool Unprovable = false;
  unsigned Calls = 0;
  const CXXOperatorCallExpr *TheCall = nullptr;

private:
  const ParmVarDecl &Param;
  unsigned LoopDepth = 0;
  llvm::DenseSet<const Stmt *> Accounted;
};

} // namespace

/// The call of \p FD's parameter \p Param when FD calls it in place.
static const CXXOperatorCallExpr *callInPlace(const FunctionDecl &FD, unsigned Param,
                                              const FunctionDecl *&Definition) {
  Definition = nullptr;
  if (Param >= FD.getNumParams() || !FD.hasBody(Definition) || !Definition->getBody() ||
      Definition->isDependentContext() || Param >= Definition->getNumParams())
    return nullptr;
  ParameterCalls Walk(*Definition->getParamDecl(Param));
  Walk.TraverseStmt(Definition->getBody());
  return !Walk.Unprovable && Walk.Calls == 1 ? Walk.TheCall : nullptr;
}

/// The flag \p Cond tests (`c`, `!c`, `c == true`, `c != false`, ...): a bool
/// parameter of \p FD, with \p Holds whether the test holds when it does.
static const ParmVarDecl *testedFlag(const Expr *Cond, const FunctionDecl &FD, bool &Holds) {
  Holds = true;
  const Expr *E = bareCondition(Cond, Holds);
  if (const auto *BO = dyn_cast<BinaryOperator>(E);
      BO && (BO->getOpcode() == BO_EQ || BO->getOpcode() == BO_NE)) {
    const auto *Literal = dyn_cast<CXXBoolLiteralExpr>(BO->getRHS()->IgnoreParenImpCasts());
    E = BO->getLHS()->IgnoreParenImpCasts();
    if (!Literal || !isa<DeclRefExpr>(E))
      return nullptr;
    Holds = Holds == (Literal->getValue() == (BO->getOpcode() == BO_EQ));
  }
  // E has no `!` left to flip Holds.
  const ParmVarDecl *Flag = testedBoolParameter(E, Holds);
  return Flag && Flag->getDeclContext() == &FD ? Flag : nullptr;
}

std::optional<InPlaceRun> inPlaceRun(const FunctionDecl &FD, unsigned Param) {
  const FunctionDecl *Definition;
  const CXXOperatorCallExpr *Call = callInPlace(FD, Param, Definition);
  if (!Call)
    return std::nullopt;
  // What decides whether the call is reached: at most one if around it
  // (through blocks, a return of its value, a cast to void, attributes), or
  // one `if (cond) return;` before it.
  ParentMap PM(Definition->getBody());
  llvm::SmallPtrSet<const Stmt *, 8> Around;
  const Stmt *Child = Call;
  const IfStmt *Guard = nullptr;
  bool InThen = true;
  for (const Stmt *P = PM.getParent(Call); P; Child = P, P = PM.getParent(P)) {
    Around.insert(P);
    if (isa<CompoundStmt, ExprWithCleanups, ParenExpr, ImplicitCastExpr, ReturnStmt,
            AttributedStmt>(P))
      continue;
    if (const auto *Cast = dyn_cast<ExplicitCastExpr>(P); Cast && Cast->getType()->isVoidType())
      continue;
    const auto *If = dyn_cast<IfStmt>(P);
    if (Guard || !If || If->getInit() || If->getConditionVariable() || Child == If->getCond())
      return std::nullopt;
    Guard = If;
    InThen = Child == If->getThen();
  }
  // Every way out before the call: none, or one early return.
  struct Exits : RecursiveASTVisitor<Exits> {
    llvm::SmallVector<const Stmt *, 2> Found;
    bool VisitReturnStmt(ReturnStmt *R) {
      Found.push_back(R);
      return true;
    }
    bool VisitCXXThrowExpr(CXXThrowExpr *T) {
      Found.push_back(T);
      return true;
    }
  } Walk;
  Walk.TraverseStmt(Definition->getBody());
  const SourceManager &SM = Definition->getASTContext().getSourceManager();
  const IfStmt *EarlyReturn = nullptr;
  for (const Stmt *Exit : Walk.Found) {
    if (Around.contains(Exit) ||
        !SM.isBeforeInTranslationUnit(Exit->getBeginLoc(), Call->getBeginLoc()))
      continue; // `return f();`, or after the call.
    // `if (cond) return;` (or `{ return; }`), a statement of the body.
    const Stmt *Branch = PM.getParent(Exit);
    if (const auto *Block = dyn_cast_or_null<CompoundStmt>(Branch); Block && Block->size() == 1)
      Branch = PM.getParent(Block);
    const auto *If = dyn_cast_or_null<IfStmt>(Branch);
    if (EarlyReturn || Guard || !isa<ReturnStmt>(Exit) || cast<ReturnStmt>(Exit)->getRetValue() ||
        !If || If->getElse() || If->getInit() || If->getConditionVariable() ||
        PM.getParent(If) != Definition->getBody())
      return std::nullopt;
    EarlyReturn = If;
  }
  InPlaceRun Run;
  const IfStmt *Decides = Guard ? Guard : EarlyReturn;
  if (!Decides)
    return Run; // Every call of FD runs it.
  bool Holds = true;
  const ParmVarDecl *Flag = testedFlag(Decides->getCond(), *Definition, Holds);
  if (!Flag)
    return std::nullopt;
  // The flag keeps the value it was passed: no mention of it but the test.
  if (mentionsOf(Flag, Definition->getBody()) != 1)
    return std::nullopt;
  Run.Flag = Flag->getFunctionScopeIndex();
  // Runs where the test holds in its then-branch, or fails before it.
  Run.Positive = Guard ? InThen == Holds : !Holds;
  return Run;
}

/// A lambda written at \p E with no parameters (any number, with
/// \p AnyParameters: one called where it is written is given its arguments
/// there).
static const LambdaExpr *writtenLambda(const Expr *E, bool AnyParameters = false) {
  // Its type first: the walks ask at every argument of every call.
  const CXXRecordDecl *Closure = E->getType()->getAsCXXRecordDecl();
  if (!Closure || !Closure->isLambda())
    return nullptr;
  const auto *Lambda = dyn_cast_or_null<LambdaExpr>(stripWrappers(E));
  if (!Lambda || (!AnyParameters && Lambda->getCallOperator()->getNumParams() != 0))
    return nullptr;
  return Lambda;
}

const LambdaExpr *inPlaceLambdaArgument(const FunctionDecl *Callee,
                                        llvm::ArrayRef<const Expr *> Args, unsigned Arg) {
  // Arguments that are not the parameters one for one (an operator call's
  // object, a variadic call's extras) are not asked about.
  if (!Callee || Arg >= Args.size() || Args.size() != Callee->getNumParams() ||
      Callee->isVariadic())
    return nullptr;
  const LambdaExpr *Lambda = writtenLambda(Args[Arg]);
  if (!Lambda)
    return nullptr;
  return AnalysisCache::current().inPlaceRun(*Callee, Arg) ? Lambda : nullptr;
}

/// The call operator \p Op calls when it calls a lambda held in a local
/// (`auto run = [](auto body) { body(); }; run([&] { ... });`), else null.
static const CXXMethodDecl *heldLambdaOperator(const CXXOperatorCallExpr &Op) {
  const auto *Method = dyn_cast_or_null<CXXMethodDecl>(Op.getDirectCallee());
  return Method && Method->getParent()->isLambda() ? Method : nullptr;
}

void addInPlaceLambdas(const CallExpr &Call, llvm::SmallPtrSetImpl<const LambdaExpr *> &Into) {
  const FunctionDecl *Callee = Call.getDirectCallee();
  if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(&Call)) {
    if (Op->getOperator() != OO_Call || Op->getNumArgs() < 1)
      return;
    if (const LambdaExpr *Lambda = writtenLambda(Op->getArg(0), /*AnyParameters=*/true)) {
      Into.insert(Lambda); // [&] { ... }(), [&](int s) { ... }(slot)
      return;
    }
    // A runner held in a local: its call operator is a function of the
    // translation unit like any other, its arguments after the object.
    Callee = heldLambdaOperator(*Op);
  }
  // A lambda's own type is a template's argument: every other call (most
  // of them, for the walks that ask at each call) stops here.
  if (!Callee || !Callee->isTemplateInstantiation())
    return;
  llvm::ArrayRef<const Expr *> Args = parameterArguments(Call);
  for (unsigned I = 0; I < Args.size(); ++I)
    if (const LambdaExpr *Lambda = inPlaceLambdaArgument(Callee, Args, I))
      Into.insert(Lambda);
}

const CallExpr *inPlaceCall(const LambdaExpr &L, const ParentMap &PM) {
  const Stmt *P = PM.getParent(&L);
  while (P && isa<Expr>(P) && !isa<CallExpr>(P))
    P = PM.getParent(P); // The temporaries and casts around the argument.
  const auto *Call = dyn_cast_or_null<CallExpr>(P);
  if (!Call)
    return nullptr;
  llvm::SmallPtrSet<const LambdaExpr *, 2> InPlace;
  addInPlaceLambdas(*Call, InPlace);
  return InPlace.contains(&L) ? Call : nullptr;
}

const Expr *inPlaceConditionAt(const CallExpr &Call, const LambdaExpr &L, bool &Positive) {
  const FunctionDecl *Callee = Call.getDirectCallee();
  const auto *Op = dyn_cast<CXXOperatorCallExpr>(&Call);
  if (!Callee || (Op && !heldLambdaOperator(*Op)))
    return nullptr;
  llvm::ArrayRef<const Expr *> Args = parameterArguments(Call);
  for (unsigned I = 0; I < Args.size(); ++I)
    if (stripWrappers(Args[I]) == &L) {
      const std::optional<InPlaceRun> &Run = AnalysisCache::current().inPlaceRun(*Callee, I);
      if (!Run || !Run->Flag || *Run->Flag >= Args.size())
        return nullptr;
      Positive = Run->Positive;
      return Args[*Run->Flag];
    }
  return nullptr;
}

std::optional<bool> runsInPlace(const FunctionDecl *Callee, llvm::ArrayRef<const Expr *> Args,
                                unsigned Arg, const ASTContext &Ctx) {
  if (!inPlaceLambdaArgument(Callee, Args, Arg))
    return std::nullopt;
  return runDecided(*AnalysisCache::current().inPlaceRun(*Callee, Arg), Args, Ctx);
}

std::optional<bool> runDecided(const InPlaceRun &Run, llvm::ArrayRef<const Expr *> Args,
                               const ASTContext &Ctx) {
  if (!Run.Flag)
    return true;
  const Expr *Cond = *Run.Flag < Args.size() ? Args[*Run.Flag] : nullptr;
  bool Value = false;
  if (!Cond || Cond->isValueDependent() || !Cond->EvaluateAsBooleanCondition(Value, Ctx))
    return std::nullopt;
  return Value == Run.Positive;
}

} // namespace dmalint
