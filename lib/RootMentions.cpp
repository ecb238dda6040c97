//===- RootMentions.cpp - Where a function mentions semaphore roots -------===//
#include "RootMentions.h"
#include "dmalint/AstUtil.h"
#include "dmalint/InPlaceLambdas.h"
#include "dmalint/Semaphores.h"
#include "clang/AST/ExprCXX.h"

using namespace clang;

namespace dmalint {

RootMentions::RootMentions(const ApiIndex &Api, const UnwrittenVariables &Vars,
                           llvm::ArrayRef<const Expr *> Followed, bool CalledLambdas)
    : Api(Api), Vars(Vars), CalledLambdas(CalledLambdas) {
  for (const Expr *E : Followed)
    SemaphoreArguments.insert(E);
}

bool RootMentions::TraverseStmt(Stmt *S) {
  if (!S)
    return true;
  if (const FieldDecl *F = ElementFields.lookup(S)) {
    // The element itself names the root (`sem`, a copy of it), not a call
    // or anything else that takes it.
    const Expr *Named = stripWrappers(cast<Expr>(S));
    auto Outer = std::make_pair(InitialisingField, InitialisingElement);
    InitialisingField = F;
    InitialisingElement = Named;
    ElementFields.erase(S); // Walked once: its own subexpressions are not.
    bool Result = TraverseStmt(S);
    std::tie(InitialisingField, InitialisingElement) = Outer;
    return Result;
  }
  bool Allowed = SemaphoreArguments.contains(S);
  bool LambdaArgument = LambdaCopyArguments.contains(S);
  const LambdaExpr *OuterCallArgument = InCallArgument;
  if (const LambdaExpr *L = CallArguments.lookup(S))
    InCallArgument = L;
  Inside += Allowed;
  InLambdaArgument += LambdaArgument;
  bool Result = RecursiveASTVisitor::TraverseStmt(S);
  Inside -= Allowed;
  InLambdaArgument -= LambdaArgument;
  InCallArgument = OuterCallArgument;
  return Result;
}

bool RootMentions::TraverseLambdaExpr(LambdaExpr *L) {
  // A generic lambda's code is in the instantiations its calls make.
  bool Result = true;
  if (InPlace.contains(L))
    return traverseGenericLambda(*this, L, Result) ? Result
                                                   : RecursiveASTVisitor::TraverseLambdaExpr(L);
  ++InLambda;
  const LambdaExpr *Outer = Lambda;
  Lambda = L;
  if (!traverseGenericLambda(*this, L, Result))
    Result = RecursiveASTVisitor::TraverseLambdaExpr(L);
  Lambda = Outer;
  --InLambda;
  return Result;
}

bool RootMentions::TraverseLambdaCapture(LambdaExpr *L, const LambdaCapture *C, Expr *Init) {
  if (C->capturesVariable() && !cast<VarDecl>(C->getCapturedVar())->isInitCapture())
    return true;
  return RecursiveASTVisitor::TraverseLambdaCapture(L, C, Init);
}

void RootMentions::mapElements(const Expr *Init, QualType T, unsigned Depth) {
  const auto *List = dyn_cast<InitListExpr>(Init->IgnoreImplicit());
  const auto *RD = T->getAsRecordDecl();
  if (!List || !RD || RD->isUnion() || Depth >= MaxPathDepth)
    return;
  const InitListExpr *Semantic = List->isSemanticForm() ? List : List->getSemanticForm();
  unsigned I = 0;
  for (const FieldDecl *F : RD->fields()) {
    if (!Semantic || I >= Semantic->getNumInits())
      break;
    const Expr *Element = Semantic->getInit(I++);
    if (isa<InitListExpr>(Element->IgnoreImplicit()) && F->getType()->getAsRecordDecl()) {
      mapElements(Element, F->getType(), Depth + 1);
      continue;
    }
    // The walk sees the initialiser as written: the element, or what its
    // conversion (a copy construction) takes.
    ElementFields[Element] = F->getCanonicalDecl();
    ElementFields[stripWrappers(Element)] = F->getCanonicalDecl();
  }
}

bool RootMentions::TraverseVarDecl(VarDecl *V) {
  if (const Expr *Init = V->getInit()) {
    if (const auto *L = dyn_cast<LambdaExpr>(stripWrappers(Init)))
      Holders[L] = V->getCanonicalDecl();
    // A local struct's braced initialiser: which member each element sets
    // (of a member struct's own braces, which member of it).
    if (V->isLocalVarDecl() && !V->getType()->isReferenceType())
      mapElements(Init, V->getType(), 0);
  }
  Initialising.push_back(V);
  bool Result = RecursiveASTVisitor::TraverseVarDecl(V);
  Initialising.pop_back();
  return Result;
}

bool RootMentions::VisitCallExpr(CallExpr *Call) {
  addInPlaceLambdas(*Call, InPlace); // Met before its arguments.
  if (Api.isCopy(*Call))
    addArguments(Call);
  return true;
}

bool RootMentions::VisitCXXOperatorCallExpr(CXXOperatorCallExpr *Call) {
  // Visited before its callee, whose mention is then known as a call.
  if (Call->getOperator() == OO_Call && Call->getNumArgs() > 0)
    if (const auto *DRE = dyn_cast<DeclRefExpr>(Call->getArg(0)->IgnoreParenImpCasts()))
      Callees.insert(DRE);
  // The arguments for the lambda's semaphore parameters (its body, written
  // before the call, is walked).
  std::optional<LambdaCall> C = CalledLambdas ? lambdaCall(Call) : std::nullopt;
  if (!C)
    return true;
  if (auto It = SemaphoreParameters.find(C->Lambda); It != SemaphoreParameters.end())
    for (unsigned I : It->second)
      if (I < C->Args.size())
        CallArguments[C->Args[I]] = C->Lambda;
  if (InLambda > 0)
    CalledInLambdas.insert(C->Lambda);
  else
    Calls[C->Lambda].push_back(std::move(*C));
  return true;
}

bool RootMentions::VisitCXXConstructExpr(CXXConstructExpr *CE) {
  if (Api.isCopy(*CE)) {
    addArguments(CE);
    // The source semaphore may be an optional the analysis follows, or
    // not: either way it is a semaphore argument.
    if (Api.model().CtorSrcSemParam < CE->getNumArgs())
      SemaphoreArguments.insert(CE->getArg(Api.model().CtorSrcSemParam));
  }
  return true;
}

bool RootMentions::VisitExplicitCastExpr(ExplicitCastExpr *Cast) {
  // Visited before its operand. A name whose value is discarded can be
  // waited by nothing: only the name itself, not a call that takes it.
  if (Cast->getCastKind() == CK_ToVoid) {
    const Expr *Operand = Cast->getSubExpr()->IgnoreParenImpCasts();
    if (isa<DeclRefExpr, MemberExpr>(Operand))
      Discarded.insert(Operand);
  }
  return true;
}

bool RootMentions::VisitDeclRefExpr(DeclRefExpr *DRE) {
  if (Discarded.contains(DRE))
    return true;
  if (const auto *V = dyn_cast<VarDecl>(DRE->getDecl()))
    addMention(V->getCanonicalDecl(), DRE);
  return true;
}

bool RootMentions::VisitMemberExpr(MemberExpr *ME) {
  // Visited before its base: a member's mention, not the whole object's.
  const Expr *Base = ME->getBase()->IgnoreParenImpCasts();
  const auto *F = dyn_cast<FieldDecl>(ME->getMemberDecl());
  if (!F)
    return true;
  if (isa<CXXThisExpr>(Base)) {
    ThisAsBase.insert(Base);
    if (!Discarded.contains(ME))
      addMention(F, ME);
  } else if (Discarded.contains(ME)) {
    return true;
  } else if (isa<CXXThisExpr>(memberChainObject(*ME)) || memberChainVariable(*ME)) {
    // A member of a member of `*this` (`b_.sem`), of a variable (`s.sem`)
    // or of a member of one (`s.kv.sem`).
    addMention(F, ME);
  }
  return true;
}

bool RootMentions::VisitCXXMemberCallExpr(CXXMemberCallExpr *Call) {
  // A member function called on `*this` (visited before its object): what
  // it does with the object is its summary's to say (thisCalls).
  const CXXMethodDecl *MD = Call->getMethodDecl();
  const Expr *Object = Call->getImplicitObjectArgument();
  if (MD && Object && isa<CXXThisExpr>(Object->IgnoreParenImpCasts())) {
    ThisAsBase.insert(Object->IgnoreParenImpCasts());
    ThisCalls.insert(MD);
  }
  return true;
}

bool RootMentions::VisitCXXThisExpr(CXXThisExpr *This) {
  if (!ThisAsBase.contains(This))
    ThisHandedOn = true;
  return true;
}

void RootMentions::addMention(const ValueDecl *Root, const Expr *At) {
  const VarDecl *Init = Initialising.empty() ? nullptr : Initialising.back();
  Mention M{Root, Inside > 0 && InLambda == 0, Inside > 0, Init};
  M.InField = Init && At == InitialisingElement ? InitialisingField : nullptr;
  // A followed argument written in a lambda: the constructor arguments of
  // an object the lambda makes (ObjectCopies.cpp), followed where the
  // lambda only runs at its calls.
  if ((InLambdaArgument > 0 || (CalledLambdas && Inside > 0)) && InLambda == 1)
    M.InLambdaCopy = Lambda;
  else if (InCallArgument && InLambda == 0)
    M.InLambdaCopy = InCallArgument;
  const auto *DRE = dyn_cast<DeclRefExpr>(At);
  M.Called = DRE && Callees.contains(DRE);
  Mentions.push_back(M);
}

bool RootMentions::inCopy(const Mention &M, bool LambdaCopies) const {
  return M.InCopy || (LambdaCopies && M.InLambdaCopy && onlyCalled(M.InLambdaCopy));
}

bool RootMentions::onlyInCopies(const ValueDecl *Root, bool LambdaCopies) const {
  if (!isa_and_nonnull<VarDecl, FieldDecl>(Root))
    return false;
  for (const Mention &M : Mentions) {
    if (M.Var != Root || inCopy(M, LambdaCopies))
      continue;
    if (!M.InInitOf || M.InInitOf == Root)
      return false;
    // An element of a local struct's braced initialiser: followed where the
    // struct's member is (`Scratch s{hbm, buf, sem};`, then s.sem in copies).
    if (M.InField) {
      if (!isLocalStructMember(M.InInitOf, M.InField, LambdaCopies))
        return false;
      continue;
    }
    if (!isLocalSemaphoreCopy(M.InInitOf, LambdaCopies))
      return false;
  }
  return true;
}

bool RootMentions::onlyCopyArguments(const ValueDecl *Root) const {
  return llvm::all_of(Mentions, [&](const Mention &M) { return M.Var != Root || M.InAnyCopy; });
}

void RootMentions::addArguments(const Expr *Copy) {
  CopySemaphores Sems = copySemaphores(Copy, Api);
  bool InOneLambda = CalledLambdas && InLambda == 1;
  for (const Expr *E : {Sems.Send, Sems.Receive}) {
    if (!E)
      continue;
    SemaphoreArguments.insert(E);
    if (!InOneLambda)
      continue;
    LambdaCopyArguments.insert(E);
    // A parameter of the lambda: its calls' arguments are these semaphores.
    const Expr *Bare = bareArgument(E);
    if (const auto *CE = dyn_cast_or_null<CXXConstructExpr>(Bare);
        CE && CE->getNumArgs() == 1 && CE->getConstructor()->isCopyOrMoveConstructor())
      Bare = bareArgument(CE->getArg(0));
    const auto *DRE = dyn_cast_or_null<DeclRefExpr>(Bare);
    const auto *P = DRE ? dyn_cast<ParmVarDecl>(DRE->getDecl()) : nullptr;
    if (!P || !isCallOperatorOf(P->getDeclContext(), *Lambda))
      continue;
    llvm::SmallVector<unsigned, 2> &Params = SemaphoreParameters[Lambda];
    if (!llvm::is_contained(Params, P->getFunctionScopeIndex()))
      Params.push_back(P->getFunctionScopeIndex());
  }
}

llvm::SmallVector<const LambdaExpr *, 2> RootMentions::lambdasWithCopies() const {
  llvm::SmallVector<const LambdaExpr *, 2> Out;
  for (const Mention &M : Mentions)
    if (M.InLambdaCopy && !llvm::is_contained(Out, M.InLambdaCopy))
      Out.push_back(M.InLambdaCopy);
  return Out;
}

bool RootMentions::onlyCalled(const LambdaExpr *L) const {
  // The local it initialises; a lambda held anywhere else may be called
  // where the analysis does not look.
  const VarDecl *Holder = Holders.lookup(L);
  if (!Holder || !Holder->isLocalVarDecl() || Holder->isStaticLocal() ||
      Holder->getType()->isReferenceType())
    return false;
  return llvm::all_of(Mentions, [&](const Mention &M) { return M.Var != Holder || M.Called; });
}

bool RootMentions::isLocalStructMember(const VarDecl *V, const FieldDecl *F,
                                       bool LambdaCopies) const {
  if (!V->isLocalVarDecl() || isa<ParmVarDecl>(V) || Vars.mentionedWhole(V))
    return false;
  for (const Mention &M : Mentions)
    if (M.Var == F && !inCopy(M, LambdaCopies))
      return false;
  return true;
}

bool RootMentions::isLocalSemaphoreCopy(const VarDecl *V, bool LambdaCopies) const {
  if (!V->isLocalVarDecl() || isa<ParmVarDecl>(V))
    return false;
  const VarDecl *Canonical = V->getCanonicalDecl();
  for (const Mention &M : Mentions)
    if (M.Var == Canonical && !inCopy(M, LambdaCopies))
      return false;
  return true;
}

} // namespace dmalint
