//===- AstUtil.cpp - Small AST helpers shared by the analysis and checks ===//
#include "dmalint/AstUtil.h"
#include "dmalint/Arguments.h"
#include "clang/AST/DeclTemplate.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/ParentMap.h"
#include "clang/AST/StmtCXX.h"
#include "clang/AST/ParentMapContext.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Basic/Version.h"
#include "clang/Lex/Lexer.h"
#include "llvm/ADT/DenseSet.h"

using namespace clang;

namespace dmalint {

const Expr *bareArgument(const Expr *E) {
  if (const auto *DA = dyn_cast_or_null<CXXDefaultArgExpr>(E))
    E = DA->getExpr();
  return E ? E->IgnoreParenImpCasts() : nullptr;
}

unsigned mentionsOf(const ValueDecl *D, const Stmt *S) {
  struct Count : RecursiveASTVisitor<Count> {
    const ValueDecl *D;
    unsigned N = 0;
    bool VisitDeclRefExpr(DeclRefExpr *DRE) {
      N += DRE->getDecl() == D;
      return true;
    }
  } C;
  C.D = D;
  C.TraverseStmt(const_cast<Stmt *>(S));
  return C.N;
}

const Expr *stripWrappers(const Expr *E) {
  while (E) {
    const Expr *Next = E->IgnoreParenImpCasts();
    if (const auto *MTE = dyn_cast<MaterializeTemporaryExpr>(Next))
      Next = MTE->getSubExpr();
    else if (const auto *BTE = dyn_cast<CXXBindTemporaryExpr>(Next))
      Next = BTE->getSubExpr();
    else if (const auto *EWC = dyn_cast<ExprWithCleanups>(Next))
      Next = EWC->getSubExpr();
    else if (const auto *FCE = dyn_cast<CXXFunctionalCastExpr>(Next))
      Next = FCE->getSubExpr();
    else if (const auto *CE = dyn_cast<CXXConstructExpr>(Next);
             CE && CE->getNumArgs() == 1 && CE->getConstructor() &&
             CE->getConstructor()->isCopyOrMoveConstructor())
      Next = CE->getArg(0); // Elidable copies/moves of the same value.
    if (Next == E)
      return E;
    E = Next;
  }
  return E;
}

const Expr *bareCondition(const Expr *E, bool &Positive, bool ThroughCasts) {
  auto Bare = [ThroughCasts](const Expr *X) {
    return ThroughCasts ? X->IgnoreParenCasts() : X->IgnoreParenImpCasts();
  };
  E = Bare(E);
  while (const auto *UO = dyn_cast<UnaryOperator>(E)) {
    if (UO->getOpcode() != UO_LNot)
      break;
    Positive = !Positive;
    E = Bare(UO->getSubExpr());
  }
  return E;
}

const ParmVarDecl *testedBoolParameter(const Expr *Cond, bool &Positive) {
  const auto *DRE = Cond ? dyn_cast<DeclRefExpr>(bareCondition(Cond, Positive)) : nullptr;
  const auto *P = DRE ? dyn_cast<ParmVarDecl>(DRE->getDecl()) : nullptr;
  return P && P->getType()->isBooleanType() ? P : nullptr;
}

std::optional<std::pair<const ParmVarDecl *, int64_t>>
comparedParameter(const Expr *E, bool &Equal, const ASTContext &Ctx) {
  const auto *BO = dyn_cast_or_null<BinaryOperator>(E ? E->IgnoreParenImpCasts() : nullptr);
  if (!BO || (BO->getOpcode() != BO_EQ && BO->getOpcode() != BO_NE))
    return std::nullopt;
  Equal = BO->getOpcode() == BO_EQ;
  for (auto [Side, Other] : {std::pair(BO->getLHS(), BO->getRHS()),
                             std::pair(BO->getRHS(), BO->getLHS())}) {
    const auto *DRE = dyn_cast<DeclRefExpr>(Side->IgnoreParenImpCasts());
    const auto *P = DRE ? dyn_cast<ParmVarDecl>(DRE->getDecl()) : nullptr;
    if (!P)
      continue;
    if (std::optional<int64_t> Value = constantInt(Other, Ctx))
      return std::make_pair(P, *Value);
  }
  return std::nullopt;
}

const ParmVarDecl *switchedParameter(const SwitchStmt &Switch) {
  if (Switch.getInit() || Switch.getConditionVariable() || !Switch.getCond())
    return nullptr;
  const auto *DRE = dyn_cast<DeclRefExpr>(Switch.getCond()->IgnoreParenImpCasts());
  return DRE ? dyn_cast<ParmVarDecl>(DRE->getDecl()) : nullptr;
}

std::optional<int64_t> caseValue(const SwitchCase &SC, const ASTContext &Ctx) {
  const auto *Case = dyn_cast<CaseStmt>(&SC);
  if (!Case || Case->caseStmtIsGNURange())
    return std::nullopt;
  return constantInt(Case->getLHS(), Ctx);
}

bool isCallOnThis(const Expr *Call) {
  const auto *MC = dyn_cast_or_null<CXXMemberCallExpr>(Call);
  const Expr *Object = MC ? MC->getImplicitObjectArgument() : nullptr;
  return Object && isa<CXXThisExpr>(Object->IgnoreParenImpCasts());
}

const Expr *memberChainObject(const MemberExpr &ME) {
  const Expr *Object = ME.getBase()->IgnoreParenImpCasts();
  for (unsigned Depth = 0; isa<MemberExpr>(Object) && Depth < 4; ++Depth)
    Object = cast<MemberExpr>(Object)->getBase()->IgnoreParenImpCasts();
  return Object;
}

const VarDecl *memberChainVariable(const MemberExpr &ME) {
  const auto *DRE = dyn_cast<DeclRefExpr>(memberChainObject(ME));
  return DRE ? dyn_cast<VarDecl>(DRE->getDecl()) : nullptr;
}

const VarDecl *fieldPathVariable(const Expr *E, llvm::SmallVectorImpl<const FieldDecl *> &Path) {
  Path.clear();
  const Expr *At = E->IgnoreParenImpCasts();
  while (const auto *ME = dyn_cast<MemberExpr>(At)) {
    const auto *Field = dyn_cast<FieldDecl>(ME->getMemberDecl());
    if (!Field || ME->isArrow() || Path.size() == 5) {
      Path.clear();
      return nullptr;
    }
    Path.insert(Path.begin(), Field);
    At = ME->getBase()->IgnoreParenImpCasts();
  }
  const auto *DRE = dyn_cast<DeclRefExpr>(At);
  const auto *V = DRE ? dyn_cast<VarDecl>(DRE->getDecl()) : nullptr;
  if (!V)
    Path.clear();
  return V;
}

const Expr *onlyReadOperand(const Stmt *S) {
  if (const auto *ICE = dyn_cast<ImplicitCastExpr>(S))
    return ICE->getCastKind() == CK_LValueToRValue ? ICE->getSubExpr() : nullptr;
  if (const auto *CE = dyn_cast<CXXConstructExpr>(S)) {
    const CXXConstructorDecl *Ctor = CE->getConstructor();
    if (Ctor->isCopyConstructor() && CE->getNumArgs() >= 1 &&
        Ctor->getParamDecl(0)->getType().getNonReferenceType().isConstQualified())
      return CE->getArg(0);
    return nullptr;
  }
  if (const auto *MC = dyn_cast<CXXMemberCallExpr>(S)) {
    const CXXMethodDecl *MD = MC->getMethodDecl();
    return MD && MD->isConst() ? MC->getImplicitObjectArgument() : nullptr;
  }
  if (const auto *OC = dyn_cast<CXXOperatorCallExpr>(S)) {
    const auto *MD = dyn_cast_or_null<CXXMethodDecl>(OC->getDirectCallee());
    return MD && MD->isConst() && OC->getNumArgs() >= 1 ? OC->getArg(0) : nullptr;
  }
  return nullptr;
}

const Expr *arrayOfElement(const Expr *E) {
  while (const auto *ASE = dyn_cast<ArraySubscriptExpr>(E->IgnoreParens())) {
    const auto *Decay = dyn_cast<ImplicitCastExpr>(ASE->getBase()->IgnoreParens());
    if (!Decay || Decay->getCastKind() != CK_ArrayToPointerDecay)
      break;
    E = Decay->getSubExpr()->IgnoreParens();
  }
  return E;
}

const Expr *temporaryBuilt(const Expr *E) {
  // Not IgnoreParenImpCasts: it steps over the MaterializeTemporaryExpr.
  const Expr *Plain = E;
  for (const Expr *Previous = nullptr; Plain != Previous;) {
    Previous = Plain;
    Plain = Plain->IgnoreParens();
    if (const auto *EWC = dyn_cast<ExprWithCleanups>(Plain))
      Plain = EWC->getSubExpr();
    else if (const auto *ICE = dyn_cast<ImplicitCastExpr>(Plain);
             ICE && ICE->getCastKind() == CK_NoOp)
      Plain = ICE->getSubExpr();
  }
  if (const auto *MTE = dyn_cast<MaterializeTemporaryExpr>(Plain))
    return MTE->getSubExpr()->isGLValue() ? nullptr : MTE->getSubExpr();
  return E->isPRValue() ? E : nullptr;
}

const Expr *withoutWrappers(const Expr *E, bool Conversions) {
  auto SameObjectCast = [&](CastKind K) {
    return K == CK_NoOp || K == CK_DerivedToBase || K == CK_UncheckedDerivedToBase ||
           K == CK_BaseToDerived || K == CK_LValueToRValue ||
           (Conversions && (K == CK_ConstructorConversion || K == CK_UserDefinedConversion));
  };
  for (const Expr *Previous = nullptr; E && E != Previous;) {
    Previous = E;
    E = E->IgnoreParens();
    if (const auto *ICE = dyn_cast<ImplicitCastExpr>(E)) {
      if (SameObjectCast(ICE->getCastKind()))
        E = ICE->getSubExpr();
    } else if (const auto *Cast = dyn_cast<ExplicitCastExpr>(E)) {
      if (SameObjectCast(Cast->getCastKind()))
        E = Cast->getSubExpr();
    } else if (const auto *MTE = dyn_cast<MaterializeTemporaryExpr>(E)) {
      E = MTE->getSubExpr();
    } else if (const auto *BTE = dyn_cast<CXXBindTemporaryExpr>(E)) {
      E = BTE->getSubExpr();
    } else if (const auto *EWC = dyn_cast<ExprWithCleanups>(E)) {
      E = EWC->getSubExpr();
    } else if (const auto *Default = dyn_cast<CXXDefaultArgExpr>(E)) {
      E = Default->getExpr();
    } else if (const auto *Default = dyn_cast<CXXDefaultInitExpr>(E)) {
      E = Default->getExpr();
    }
  }
  return E;
}

namespace {

/// The answer of isInDependentContext for \p S in a function's body: the
/// context of the variable it initialises, of the lambda whose body holds
/// it, else of the function.
bool dependentInBody(const Stmt &S, BodyParents &Parents) {
  const Stmt *Current = &S;
  while (true) {
    if (const VarDecl *VD = Parents.initialised(*Current))
      return VD->getDeclContext() && VD->getDeclContext()->isDependentContext();
    const Stmt *Up = Parents.parent(*Current);
    if (!Up) // A body: the function's, or a generic lambda instantiation's.
      return Parents.owner(*Current)->isDependentContext();
    // A lambda's body is its call operator's (the translation unit's map
    // gives the operator as the body's parent).
    if (const auto *Lambda = dyn_cast<LambdaExpr>(Up); Lambda && Lambda->getBody() == Current)
      return Lambda->getCallOperator()->isDependentContext();
    Current = Up;
  }
}

/// isInDependentContext from the declarations whose text holds \p S: the
/// function (or the function template's pattern or instantiation) whose body
/// holds it, and that body's own parent map; nothing when it is elsewhere (a
/// class template's member, a default argument, a variable's initialiser):
/// then the translation unit's parent map says.
std::optional<bool> dependentByText(const Stmt &S, ASTContext &Ctx) {
  const SourceManager &SM = Ctx.getSourceManager();
  SourceLocation At = SM.getExpansionLoc(S.getBeginLoc());
  if (At.isInvalid())
    return std::nullopt;
  // The files whose text holds the location: its own, and each that
  // includes the one before.
  llvm::SmallDenseSet<FileID, 4> Holding;
  for (FileID F = SM.getFileID(At); F.isValid() && Holding.insert(F).second;) {
    SourceLocation IncludedAt = SM.getIncludeLoc(F);
    if (IncludedAt.isInvalid())
      break;
    F = SM.getFileID(SM.getExpansionLoc(IncludedAt));
  }
  auto Holds = [&](SourceRange Range) {
    if (Range.isInvalid())
      return false;
    SourceLocation Begin = SM.getExpansionLoc(Range.getBegin());
    SourceLocation End = SM.getExpansionRange(Range.getEnd()).getEnd();
    // One file the location is no part of (a standard header): no ordering.
    if (SM.getFileID(Begin) == SM.getFileID(End) && !Holding.contains(SM.getFileID(Begin)))
      return false;
    return !SM.isBeforeInTranslationUnit(At, Begin) && !SM.isBeforeInTranslationUnit(End, At);
  };
  const DeclContext *DC = Ctx.getTranslationUnitDecl();
  while (true) {
    const Decl *Around = nullptr;
    for (const Decl *D : DC->decls())
      if (!D->isImplicit() && Holds(D->getSourceRange())) {
        Around = D;
        break;
      }
    if (!Around)
      return std::nullopt;
    // The functions whose statements carry this text: a function, or a
    // function template's pattern and its instantiations.
    llvm::SmallVector<const FunctionDecl *, 4> Functions;
    if (const auto *Template = dyn_cast<FunctionTemplateDecl>(Around)) {
      Functions.push_back(Template->getTemplatedDecl());
      for (const FunctionDecl *Instance : Template->specializations())
        Functions.push_back(Instance);
    } else if (const auto *Function = dyn_cast<FunctionDecl>(Around)) {
      Functions.push_back(Function);
    } else if (isa<NamespaceDecl, LinkageSpecDecl, ExportDecl>(Around) ||
               (isa<CXXRecordDecl>(Around) && !cast<CXXRecordDecl>(Around)->isDependentContext())) {
      DC = cast<DeclContext>(Around);
      continue;
    } else {
      return std::nullopt;
    }
    for (const FunctionDecl *Function : Functions) {
      BodyParents Parents(*Function);
      if (Parents.contains(S))
        return dependentInBody(S, Parents);
    }
    return std::nullopt;
  }
}

} // namespace

const Stmt *loopBody(const Stmt *Loop) {
  if (const auto *F = dyn_cast_or_null<ForStmt>(Loop))
    return F->getBody();
  if (const auto *W = dyn_cast_or_null<WhileStmt>(Loop))
    return W->getBody();
  if (const auto *D = dyn_cast_or_null<DoStmt>(Loop))
    return D->getBody();
  if (const auto *R = dyn_cast_or_null<CXXForRangeStmt>(Loop))
    return R->getBody();
  return nullptr;
}

static void collectReturns(const Stmt *S, llvm::SmallVectorImpl<const ReturnStmt *> &Out) {
  if (!S || isa<LambdaExpr>(S) || Out.size() > 1)
    return;
  if (const auto *R = dyn_cast<ReturnStmt>(S))
    Out.push_back(R);
  for (const Stmt *Child : S->children())
    collectReturns(Child, Out);
}

const Expr *returnedConstruction(const FunctionDecl &FD) {
  llvm::SmallVector<const ReturnStmt *, 2> Returns;
  collectReturns(FD.getBody(), Returns);
  if (Returns.size() != 1 || !Returns.front()->getRetValue())
    return nullptr;
  return stripWrappers(Returns.front()->getRetValue());
}

BoolArgument boolArgument(const Expr *Arg, bool Holds, const ASTContext &Ctx) {
  BoolArgument Out;
  Arg = Arg ? bareArgument(Arg) : nullptr;
  if (!Arg || Arg->isValueDependent())
    return Out;
  if (bool Constant; Arg->EvaluateAsBooleanCondition(Constant, Ctx)) {
    Out.Constant = Constant;
    return Out;
  }
  while (const auto *Not = dyn_cast<UnaryOperator>(Arg)) {
    if (Not->getOpcode() != UO_LNot)
      break;
    Holds = !Holds;
    Arg = Not->getSubExpr()->IgnoreParenImpCasts();
  }
  Out.Tested = Arg;
  Out.TestedHolds = Holds;
  return Out;
}

BoolArgument factArgument(const ParamFact &F, const Expr *Arg, const ASTContext &Ctx) {
  if (!F.Equals)
    return boolArgument(Arg, F.Holds, Ctx);
  BoolArgument Out;
  if (const auto *Default = dyn_cast_or_null<CXXDefaultArgExpr>(Arg))
    Arg = Default->getExpr();
  if (!Arg || Arg->isValueDependent())
    return Out;
  if (std::optional<int64_t> Value = constantInt(Arg, Ctx))
    Out.Constant = *Value == *F.Equals;
  return Out;
}

const Expr *partBuilt(const Expr *E, unsigned Index) {
  if (!E)
    return nullptr;
  E = stripWrappers(E)->IgnoreParenImpCasts();
  llvm::SmallVector<const Expr *, 4> Parts;
  if (const auto *Call = dyn_cast<CallExpr>(E)) {
    const FunctionDecl *Callee = Call->getDirectCallee();
    if (!Callee || !Callee->isInStdNamespace() || !Callee->getIdentifier() ||
        (Callee->getName() != "make_pair" && Callee->getName() != "make_tuple"))
      return nullptr;
    Parts.append(Call->arg_begin(), Call->arg_end());
  } else if (const auto *Construct = dyn_cast<CXXConstructExpr>(E)) {
    const CXXRecordDecl *RD = Construct->getConstructor()->getParent();
    if (!RD->isInStdNamespace() || !RD->getIdentifier() ||
        (RD->getName() != "pair" && RD->getName() != "tuple") ||
        Construct->getConstructor()->isCopyOrMoveConstructor())
      return nullptr;
    Parts.append(Construct->arg_begin(), Construct->arg_end());
  } else if (const auto *List = dyn_cast<InitListExpr>(E)) {
    for (unsigned I = 0; I < List->getNumInits(); ++I)
      Parts.push_back(List->getInit(I));
  } else {
    return nullptr;
  }
  return Index < Parts.size() ? stripWrappers(Parts[Index]) : nullptr;
}

bool isInDependentContext(const Stmt &S, ASTContext &Ctx) {
  if (std::optional<bool> Answer = dependentByText(S, Ctx))
    return *Answer;
  DynTypedNodeList Parents = Ctx.getParents(S);
  // Walk up through statements to the nearest declaration.
  while (!Parents.empty()) {
    const DynTypedNode &P = Parents[0];
    if (const auto *D = P.get<Decl>()) {
      if (const auto *DC = dyn_cast<DeclContext>(D))
        return DC->isDependentContext();
      return D->getDeclContext() && D->getDeclContext()->isDependentContext();
    }
    Parents = Ctx.getParents(P);
  }
  return false;
}

struct BodyParents::Body {
  const FunctionDecl *Function;
  Stmt *Root;
  std::unique_ptr<ParentMap> Map;
};

llvm::SmallVector<const CXXMethodDecl *, 2> genericLambdaInstantiations(const LambdaExpr &L) {
  llvm::SmallVector<const CXXMethodDecl *, 2> Out;
  if (const CXXRecordDecl *Class = L.getLambdaClass(); Class && Class->isGenericLambda())
    if (const FunctionTemplateDecl *Template = Class->getDependentLambdaCallOperator())
      for (const FunctionDecl *Instance : Template->specializations())
        if (const auto *Op = dyn_cast<CXXMethodDecl>(Instance))
          Out.push_back(Op);
  return Out;
}

bool isCallOperatorOf(const DeclContext *DC, const LambdaExpr &L) {
  const auto *Op = dyn_cast_or_null<CXXMethodDecl>(DC);
  return Op && (Op == L.getCallOperator() ||
                (Op->getParent() == L.getLambdaClass() && Op->getPrimaryTemplate()));
}

const FunctionDecl *enclosingFunction(const CXXMethodDecl &Lambda) {
  const DeclContext *DC = Lambda.getParent()->getDeclContext();
  while (const auto *F = dyn_cast_or_null<FunctionDecl>(DC)) {
    const auto *M = dyn_cast<CXXMethodDecl>(F);
    if (!M || !M->getParent()->isLambda())
      return F;
    DC = M->getParent()->getDeclContext();
  }
  return nullptr;
}

BodyParents::BodyParents(const FunctionDecl &Function) {
  if (Stmt *Root = Function.getBody())
    Bodies.push_back({&Function, Root, nullptr});
}

BodyParents::~BodyParents() = default;

namespace {

} // namespace

void forEachGenericLambdaInstantiation(
    const Stmt *Root,
    llvm::function_ref<void(const LambdaExpr &, const CXXMethodDecl &)> Each) {
  llvm::DenseSet<const Stmt *> Seen;
  llvm::SmallVector<const Stmt *, 32> Pending{Root};
  while (!Pending.empty()) {
    const Stmt *S = Pending.pop_back_val();
    if (!S)
      continue;
    if (const auto *Lambda = dyn_cast<LambdaExpr>(S))
      for (const CXXMethodDecl *Instance : genericLambdaInstantiations(*Lambda))
        if (const Stmt *Body = Instance->getBody(); Body && Seen.insert(Body).second) {
          Each(*Lambda, *Instance);
          Pending.push_back(Body);
        }
    for (const Stmt *Child : S->children())
      Pending.push_back(Child);
  }
}

BodyParents::Body *BodyParents::bodyOf(const Stmt &S) {
  for (size_t I = 0;; ++I) {
    if (I == Bodies.size()) {
      // Not in the bodies so far: add the instantiations of the generic
      // lambdas, once (each instantiation's body may write more).
      if (InstantiationsAdded || Bodies.empty())
        return nullptr;
      InstantiationsAdded = true;
      forEachGenericLambdaInstantiation(
          Bodies.front().Root, [&](const LambdaExpr &, const CXXMethodDecl &Instance) {
            Bodies.push_back({&Instance, Instance.getBody(), nullptr});
          });
      if (I == Bodies.size())
        return nullptr;
    }
    Body &B = Bodies[I];
    if (&S == B.Root)
      return &B;
    if (!B.Map)
      B.Map = std::make_unique<ParentMap>(B.Root);
    if (B.Map->hasParent(&S))
      return &B;
  }
}

bool BodyParents::contains(const Stmt &S) { return bodyOf(S) != nullptr; }

const Stmt *BodyParents::parent(const Stmt &S) {
  Body *B = bodyOf(S);
  if (!B || &S == B->Root)
    return nullptr;
  return B->Map->getParent(&S);
}

const FunctionDecl *BodyParents::owner(const Stmt &S) {
  Body *B = bodyOf(S);
  return B ? B->Function : nullptr;
}

const VarDecl *BodyParents::initialised(const Stmt &S) {
  const Stmt *P = parent(S);
  if (const auto *DS = dyn_cast_or_null<DeclStmt>(P)) {
    for (const Decl *D : DS->decls())
      if (const auto *VD = dyn_cast<VarDecl>(D); VD && VD->getInit() == &S)
        return VD;
  } else if (const auto *Lambda = dyn_cast_or_null<LambdaExpr>(P)) {
    // `[d = make_async_copy(...)]`: the capture's own variable.
    for (const LambdaCapture &C : Lambda->captures())
      if (C.capturesVariable())
        if (const auto *VD = dyn_cast<VarDecl>(C.getCapturedVar());
            VD && VD->isInitCapture() && VD->getInit() == &S)
          return VD;
  }
  return nullptr;
}

std::string spelling(const Expr *E, const ASTContext &Ctx) {
  const SourceManager &SM = Ctx.getSourceManager();
  CharSourceRange Range = Lexer::makeFileCharRange(
      CharSourceRange::getTokenRange(E->getSourceRange()), SM, Ctx.getLangOpts());
  if (Range.isInvalid())
    return "";
  return Lexer::getSourceText(Range, SM, Ctx.getLangOpts()).str();
}

std::string nameInMessage(const Expr *E, const ASTContext &Ctx, StringRef Fallback) {
  // `(d)`, as a macro's body writes its parameter (`#define DRAIN(d)
  // (d).wait_send()`): the name is d.
  while (const auto *Paren = dyn_cast<ParenExpr>(E->IgnoreImplicit()))
    E = Paren->getSubExpr();
  std::string Text = spelling(E, Ctx);
  if (Text.empty()) {
    const SourceManager &SM = Ctx.getSourceManager();
    SourceLocation Begin = SM.getSpellingLoc(E->getBeginLoc());
    SourceLocation End = SM.getSpellingLoc(E->getEndLoc());
    if (SM.getFileID(Begin) == SM.getFileID(End) &&
        SM.getFileOffset(Begin) <= SM.getFileOffset(End))
      Text = Lexer::getSourceText(CharSourceRange::getTokenRange(Begin, End), SM,
                                  Ctx.getLangOpts())
                 .str();
  }
  if (Text.empty() || Text.size() > 60 || Text.find('\n') != std::string::npos)
    return Fallback.str();
  return Text;
}

SourceLocation constructionLoc(const Expr *Site) {
  if (const auto *MC = dyn_cast<CXXMemberCallExpr>(Site))
    if (const auto *ME = dyn_cast<MemberExpr>(MC->getCallee()->IgnoreParens()))
      return ME->getMemberLoc();
  if (const auto *CE = dyn_cast<CXXConstructExpr>(Site); CE && !isa<CXXTemporaryObjectExpr>(CE))
    return CE->getLocation();
  return Site->getBeginLoc();
}

QualType recordTypeOf(const ASTContext &Ctx, const CXXRecordDecl &RD) {
#if CLANG_VERSION_MAJOR >= 22
  return Ctx.getCanonicalTagType(&RD);
#else
  return Ctx.getRecordType(&RD);
#endif
}

} // namespace dmalint
