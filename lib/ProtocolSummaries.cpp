//===- ProtocolSummaries.cpp - What a helper starts and waits, for its callers ===//
//
// Three parts: names in a summary's terms and back (a helper's parameters
// and the arguments of a call); the analysis' side of a call of a helper
// with a summary (its copies become in flight in the caller, its waits are
// recorded with the copies in flight before it); and the summary of a
// function from its analysis.
//
//===----------------------------------------------------------------------===//
#include "Analyzer.h"
#include "RootMentions.h"
#include "dmalint/AnalysisCache.h"
#include "dmalint/Arguments.h"
#include "dmalint/AstUtil.h"
#include "dmalint/Formulas.h"
#include "dmalint/Protocol.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/ParentMap.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "llvm/ADT/SmallPtrSet.h"

using namespace clang;

namespace dmalint {

// ------------------------------------------------------------------ names ---

namespace {

/// \p E as a term of the function of \p Vars: a constant, or the value of
/// an integer parameter the function never writes (directly, or through
/// unwritten integer locals that copy it), or a formula of one.
SummaryTerm termOf(const Expr *E, const UnwrittenVariables &Vars, const ASTContext &Ctx) {
  SummaryTerm T;
  const Expr *B = bareArgument(E);
  for (unsigned Depth = 0; B && Depth < 4; ++Depth) {
    if (constantInt(B, Ctx)) {
      T.Constant = B;
      return T;
    }
    const auto *DRE = dyn_cast<DeclRefExpr>(B);
    const auto *V = DRE ? dyn_cast<VarDecl>(DRE->getDecl()) : nullptr;
    if (!DRE) {
      // Computed from one parameter: `buf.at(step % 2)`.
      const Expr *Formula = B->IgnoreParens();
      if (const ParmVarDecl *P = formulaParameter(Formula, Vars, Ctx, &Vars.function())) {
        T.Param = static_cast<int>(P->getFunctionScopeIndex());
        T.Formula = Formula;
      }
      return T;
    }
    if (!V || !V->getType()->isIntegralOrEnumerationType() || !Vars.unwritten(V))
      return T;
    if (const auto *P = dyn_cast<ParmVarDecl>(V)) {
      T.Param = static_cast<int>(P->getFunctionScopeIndex());
      return T;
    }
    if (!V->isLocalVarDecl() || !V->getInit())
      return T;
    B = bareArgument(V->getInit());
  }
  return T;
}

/// Whether \p S assigns, increments or decrements anything.
bool writes(const Stmt *S) {
  if (!S)
    return false;
  if (const auto *BO = dyn_cast<BinaryOperator>(S); BO && BO->isAssignmentOp())
    return true;
  if (const auto *UO = dyn_cast<UnaryOperator>(S); UO && UO->isIncrementDecrementOp())
    return true;
  if (const auto *OC = dyn_cast<CXXOperatorCallExpr>(S);
      OC && (OC->isAssignmentOp() || OC->getOperator() == OO_PlusPlus ||
             OC->getOperator() == OO_MinusMinus))
    return true;
  return llvm::any_of(S->children(), [](const Stmt *C) { return writes(C); });
}

/// Whether \p S mentions \p D.
bool mentions(const Stmt *S, const ValueDecl *D) {
  if (!S)
    return false;
  if (const auto *DRE = dyn_cast<DeclRefExpr>(S); DRE && DRE->getDecl() == D)
    return true;
  return llvm::any_of(S->children(), [&](const Stmt *C) { return mentions(C, D); });
}

/// The parameter of the function of \p Vars that \p Root is.
std::optional<unsigned> parameterOf(const ValueDecl *Root, const UnwrittenVariables &Vars) {
  const auto *P = dyn_cast_or_null<ParmVarDecl>(Root);
  if (!P || P->getDeclContext() != &Vars.function())
    return std::nullopt;
  return P->getFunctionScopeIndex();
}

/// The member of the object of the function of \p Vars (a member function)
/// that \p Root is, when only constructors set it: a name a call on an
/// object the caller constructs can translate (ObjectCopies.cpp).
const FieldDecl *memberOf(const ValueDecl *Root, const UnwrittenVariables &Vars) {
  const auto *F = dyn_cast_or_null<FieldDecl>(Root);
  const auto *MD = dyn_cast<CXXMethodDecl>(&Vars.function());
  if (!F || !MD || MD->isStatic() || MD->getParent()->isLambda() ||
      F->getParent()->getCanonicalDecl() != MD->getParent()->getCanonicalDecl() ||
      AnalysisCache::current().writtenOutsideConstructors(*F))
    return nullptr;
  return F;
}

/// The expression a caller passes for a term (null: unknown).
const Expr *termAtCall(const SummaryTerm &T, llvm::ArrayRef<const Expr *> Args,
                       const ASTContext &Ctx) {
  if (T.Constant)
    return T.Constant;
  if (T.Param < 0 || static_cast<size_t>(T.Param) >= Args.size())
    return nullptr;
  const Expr *Arg = Args[T.Param];
  if (const auto *DA = dyn_cast<CXXDefaultArgExpr>(Arg))
    Arg = DA->getExpr(); // The callee's: named only if it is a constant.
  if (!T.Formula)
    return Arg;
  // The formula with the argument in the parameter's place: the argument
  // as the call converts it, a value of the parameter's type.
  if (isa<CXXDefaultArgExpr>(Args[T.Param]) && !constantInt(Arg, Ctx))
    return nullptr;
  return substituted(T.Formula, Arg, Ctx);
}

/// \p E as the caller writes it: with \p Within, an expression of that
/// lambda's body whose parameters are spelled as the call's arguments
/// ("" when it also mentions a local of the lambda).
std::string spellArgument(const Expr *E, const ASTContext &Ctx, const LambdaCall *Within);

/// \p E's text with each of \p Reads (reads of parameters in it) replaced
/// by what \p Replace gives for it: the text and the expression it stands
/// for. Defined with spellArgument.
std::string withReadsReplaced(
    const Expr *E, std::vector<const DeclRefExpr *> Reads,
    llvm::function_ref<std::pair<std::string, const Expr *>(const DeclRefExpr &)> Replace,
    const ASTContext &Ctx);
/// The mentions of \p Owner's parameters in \p E. Defined with spellArgument.
std::vector<const DeclRefExpr *> parameterReads(const Expr *E, const DeclContext *Owner,
                                                bool *Locals = nullptr);

/// \p Formula's text with its parameter's reads spelled \p Arg, the text
/// of \p ArgExpr.
std::string spellFormula(const Expr *Formula, const Expr *ArgExpr, const std::string &Arg,
                         const ASTContext &Ctx) {
  // formulaParameter: the one parameter it reads is the one Arg is for.
  return withReadsReplaced(
      Formula, parameterReads(Formula, nullptr),
      [&](const DeclRefExpr &) { return std::make_pair(Arg, ArgExpr); }, Ctx);
}

std::string spellTerm(const SummaryTerm &T, llvm::ArrayRef<const Expr *> Args,
                      const ASTContext &Ctx, const LambdaCall *Within = nullptr) {
  const Expr *E = termAtCall(T, Args, Ctx);
  if (!E)
    return std::string();
  if (T.Formula) {
    const Expr *Arg = Args[T.Param];
    if (const auto *DA = dyn_cast<CXXDefaultArgExpr>(Arg))
      Arg = DA->getExpr();
    return spellFormula(T.Formula, Arg, spellArgument(Arg, Ctx, Within), Ctx);
  }
  return spellArgument(E, Ctx, Within);
}

} // namespace

std::optional<SummarySemaphore> summarySemaphore(const SemaphoreName &N,
                                                 const UnwrittenVariables &Vars,
                                                 const ASTContext &Ctx) {
  std::optional<unsigned> Param = parameterOf(N.Root, Vars);
  const FieldDecl *Member = Param ? nullptr : memberOf(N.Root, Vars);
  if (!Param && !Member)
    return std::nullopt;
  SummarySemaphore S;
  S.Param = Param.value_or(0);
  S.Member = Member;
  for (const Expr *Index : N.Indices)
    S.Indices.push_back(Index ? termOf(Index, Vars, Ctx) : SummaryTerm());
  return S;
}

std::optional<SummaryBuffer> summaryBuffer(const BufferName &N, const UnwrittenVariables &Vars,
                                           const ASTContext &Ctx) {
  std::optional<unsigned> Param = parameterOf(N.Root, Vars);
  const FieldDecl *Member = Param ? nullptr : memberOf(N.Root, Vars);
  if (!Param && !Member)
    return std::nullopt;
  SummaryBuffer B;
  B.Param = Param.value_or(0);
  B.Member = Member;
  B.Inexact = N.Inexact;
  for (const BufferStep &Step : N.Steps) {
    SummaryBuffer::Step S;
    S.Start = termOf(Step.Start, Vars, Ctx);
    S.Slice = Step.isSlice();
    if (S.Slice)
      S.Size = termOf(Step.Size, Vars, Ctx);
    // A sub-view the summary cannot name: the view is inside the ones before.
    if (!S.Start.known() || (S.Slice && !S.Size.known())) {
      B.Inexact = true;
      break;
    }
    B.Steps.push_back(S);
  }
  return B;
}

std::optional<SemaphoreName> semaphoreAtCall(const SummarySemaphore &S,
                                             llvm::ArrayRef<const Expr *> Args,
                                             const UnwrittenVariables &Vars,
                                             const ASTContext &Ctx, const LambdaCall *Within) {
  std::optional<SemaphoreName> N;
  if (S.Member) {
    // A call on the caller's own object (ObjectCopies.cpp names the others').
    N.emplace();
    N->Root = S.Member;
  } else if (S.Param < Args.size() && !isa<CXXDefaultArgExpr>(Args[S.Param])) {
    N = semaphoreName(Args[S.Param], Vars);
  }
  if (!N)
    return std::nullopt;
  for (const SummaryTerm &T : S.Indices)
    N->Indices.push_back(termAtCall(T, Args, Ctx));
  if (Within)
    return semaphoreAtLambdaCall(*N, *Within, Vars);
  return N;
}

std::optional<BufferName> bufferAtCall(const SummaryBuffer &B, llvm::ArrayRef<const Expr *> Args,
                                       const ApiIndex &Api, const UnwrittenVariables &Vars,
                                       const ASTContext &Ctx, const LambdaCall *Within) {
  std::optional<BufferName> N;
  if (B.Member) {
    N.emplace();
    N->Root = B.Member;
  } else if (B.Param < Args.size() && !isa<CXXDefaultArgExpr>(Args[B.Param])) {
    N = bufferName(Args[B.Param], Api, Vars);
  }
  if (!N)
    return std::nullopt;
  N->Inexact |= B.Inexact;
  for (const SummaryBuffer::Step &S : B.Steps) {
    BufferStep Step;
    Step.Start = termAtCall(S.Start, Args, Ctx);
    Step.Size = S.Slice ? termAtCall(S.Size, Args, Ctx) : nullptr;
    if (!Step.Start || (S.Slice && !Step.Size)) {
      N->Inexact = true;
      break;
    }
    N->Steps.push_back(Step);
  }
  if (Within)
    return bufferAtLambdaCall(*N, *Within, Api, Vars);
  return N;
}

bool placeholderAtCall(const HelperWait &W, llvm::ArrayRef<const Expr *> Args,
                       const ApiIndex &Api, const UnwrittenVariables &Vars,
                       const ASTContext &Ctx, const LambdaCall *Within) {
  if (W.Placeholder)
    return true;
  if (!W.Source || !W.Target)
    return false;
  std::optional<BufferName> Source = bufferAtCall(*W.Source, Args, Api, Vars, Ctx, Within);
  std::optional<BufferName> Target = bufferAtCall(*W.Target, Args, Api, Vars, Ctx, Within);
  return Source && Target &&
         compareBuffers(*Source, *Target, Vars, Ctx, Evaluation::SameIteration) ==
             BufferRelation::Same;
}

std::string spellAtCall(const SummarySemaphore &S, llvm::ArrayRef<const Expr *> Args,
                        const ASTContext &Ctx, const LambdaCall *Within) {
  if (!S.Member && S.Param >= Args.size())
    return "";
  std::string Text =
      S.Member ? S.Member->getNameAsString() : spellArgument(Args[S.Param], Ctx, Within);
  if (Text.empty())
    return "";
  if (S.Indices.empty())
    return Text;
  std::string List;
  for (const SummaryTerm &T : S.Indices) {
    std::string Index = spellTerm(T, Args, Ctx, Within);
    if (Index.empty())
      return "";
    List += (List.empty() ? "" : ", ") + Index;
  }
  return S.Indices.size() == 1 ? Text + "[" + List + "]" : Text + ".at(" + List + ")";
}

std::string spellAtCall(const SummaryBuffer &B, llvm::ArrayRef<const Expr *> Args,
                        const ASTContext &Ctx, const LambdaCall *Within) {
  if (!B.Member && B.Param >= Args.size())
    return "";
  std::string Text =
      B.Member ? B.Member->getNameAsString() : spellArgument(Args[B.Param], Ctx, Within);
  for (const SummaryBuffer::Step &S : B.Steps) {
    std::string Start = spellTerm(S.Start, Args, Ctx, Within);
    std::string Size = S.Slice ? spellTerm(S.Size, Args, Ctx, Within) : "";
    if (Text.empty() || Start.empty() || (S.Slice && Size.empty()))
      return "";
    Text += S.Slice ? ".slice(" + Start + ", " + Size + ")" : ".at(" + Start + ")";
  }
  return Text;
}

// --------------------------------------------------- names at a lambda call ---

std::optional<LambdaCall> lambdaCall(const Expr *E) {
  const auto *Call = dyn_cast_or_null<CXXOperatorCallExpr>(E ? stripWrappers(E) : nullptr);
  if (!Call || Call->getOperator() != OO_Call || Call->getNumArgs() == 0)
    return std::nullopt;
  const auto *Op = dyn_cast_or_null<CXXMethodDecl>(Call->getDirectCallee());
  if (!Op || !Op->getParent()->isLambda())
    return std::nullopt;
  // The lambda as the analysis finds it to inline the call (Analyzer::lambdaOf).
  const Expr *Callee = stripWrappers(Call->getArg(0));
  const auto *Lambda = dyn_cast<LambdaExpr>(Callee);
  if (const auto *DRE = dyn_cast<DeclRefExpr>(Callee->IgnoreParenImpCasts()))
    if (const auto *V = dyn_cast<VarDecl>(DRE->getDecl());
        V && V->getInit() && V->hasLocalStorage() && !V->getType()->isReferenceType())
      Lambda = dyn_cast<LambdaExpr>(stripWrappers(V->getInit()));
  if (!Lambda || !isCallOperatorOf(Op, *Lambda) || !Op->getBody())
    return std::nullopt;
  LambdaCall C;
  C.Call = Call;
  C.Lambda = Lambda;
  C.Operator = Op;
  C.Args = callArguments(Call);
  return C;
}

namespace {

/// The argument \p C passes for \p D when D is a parameter of the lambda it
/// calls (\p IsParameter); null when the call cannot name it (the lambda
/// writes it, or the argument is a default one).
const Expr *argumentFor(const ValueDecl *D, const LambdaCall &C, const UnwrittenVariables &Vars,
                        bool &IsParameter) {
  const auto *P = dyn_cast_or_null<ParmVarDecl>(D);
  IsParameter = P && P->getDeclContext() == C.Operator;
  if (!IsParameter || !Vars.unwrittenInLambda(P))
    return nullptr;
  unsigned I = P->getFunctionScopeIndex();
  if (I >= C.Args.size() || isa<CXXDefaultArgExpr>(C.Args[I]))
    return nullptr;
  return C.Args[I];
}

/// Whether every variable \p E mentions is one the function of \p Vars
/// never writes (then a capture of it holds that value at every call).
bool onlyUnwrittenOfFunction(const Stmt *E, const UnwrittenVariables &Vars) {
  if (const auto *DRE = dyn_cast<DeclRefExpr>(E))
    if (const auto *V = dyn_cast<VarDecl>(DRE->getDecl()))
      if (!(V->hasGlobalStorage() && V->getType().isConstQualified()) && !Vars.unwritten(V))
        return false;
  for (const Stmt *Child : E->children())
    if (Child && !onlyUnwrittenOfFunction(Child, Vars))
      return false;
  return true;
}

/// An index written in the lambda, as the caller names it (null: unknown):
/// through the lambda's unwritten locals to what initialises them.
const Expr *indexAtLambdaCall(const Expr *E, const LambdaCall &C, const UnwrittenVariables &Vars,
                              unsigned Depth = 0) {
  if (!E)
    return nullptr;
  if (const auto *DRE = dyn_cast<DeclRefExpr>(bareArgument(E))) {
    bool IsParameter = false;
    const Expr *Arg = argumentFor(DRE->getDecl(), C, Vars, IsParameter);
    if (IsParameter)
      return Arg;
    const auto *V = dyn_cast<VarDecl>(DRE->getDecl());
    if (V && V->isLocalVarDecl() && V->getInit() && Vars.unwrittenInLambda(V) &&
        V->getType()->isIntegralOrEnumerationType())
      return Depth < 4 ? indexAtLambdaCall(V->getInit(), C, Vars, Depth + 1) : nullptr;
  }
  // Computed from one of its parameters (`buf.at(step % 2)`): the formula
  // with the call's argument in the parameter's place.
  const ASTContext &Ctx = C.Operator->getASTContext();
  const Expr *Formula = bareArgument(E)->IgnoreParens();
  if (const ParmVarDecl *P = formulaParameter(Formula, Vars, Ctx, C.Operator)) {
    bool IsParameter = false;
    const Expr *Arg = argumentFor(P, C, Vars, IsParameter);
    return Arg ? substituted(Formula, Arg, Ctx) : nullptr;
  }
  return onlyUnwrittenOfFunction(E, Vars) ? E : nullptr;
}

/// A root written in the lambda that is not its parameter: the function's
/// own variable (captured), or a member or global.
bool rootOutsideLambda(const ValueDecl *Root, const LambdaCall &C) {
  const auto *V = dyn_cast_or_null<VarDecl>(Root);
  if (!V)
    return Root != nullptr;
  for (const DeclContext *DC = V->getDeclContext(); DC; DC = DC->getParent())
    if (DC == C.Operator)
      return false;
  return true;
}

/// The root of \p N (a name written in the lambda \p C calls) at the call:
/// the argument's name (\p NameOf) for a parameter, the root itself for one
/// outside the lambda; no indices or steps yet.
template <typename Name, typename NameOfArgument>
std::optional<Name> rootAtLambdaCall(const Name &N, const LambdaCall &C,
                                     const UnwrittenVariables &Vars, NameOfArgument NameOf) {
  bool IsParameter = false;
  const Expr *Arg = argumentFor(N.Root, C, Vars, IsParameter);
  if (IsParameter)
    return Arg ? NameOf(Arg) : std::nullopt;
  if (!rootOutsideLambda(N.Root, C))
    return std::nullopt;
  Name Out;
  Out.Root = N.Root;
  Out.Spelling = N.Spelling;
  return Out;
}

} // namespace

std::optional<SemaphoreName> semaphoreAtLambdaCall(const SemaphoreName &N, const LambdaCall &C,
                                                   const UnwrittenVariables &Vars) {
  std::optional<SemaphoreName> Out = rootAtLambdaCall(
      N, C, Vars, [&](const Expr *Arg) { return semaphoreName(Arg, Vars); });
  if (!Out)
    return std::nullopt;
  for (const Expr *Index : N.Indices)
    Out->Indices.push_back(indexAtLambdaCall(Index, C, Vars));
  return Out;
}

std::optional<BufferName> bufferAtLambdaCall(const BufferName &N, const LambdaCall &C,
                                             const ApiIndex &Api, const UnwrittenVariables &Vars) {
  std::optional<BufferName> Out = rootAtLambdaCall(
      N, C, Vars, [&](const Expr *Arg) { return bufferName(Arg, Api, Vars); });
  if (!Out)
    return std::nullopt;
  Out->Inexact |= N.Inexact;
  for (const BufferStep &Step : N.Steps) {
    BufferStep At;
    At.Start = indexAtLambdaCall(Step.Start, C, Vars);
    At.Size = Step.isSlice() ? indexAtLambdaCall(Step.Size, C, Vars) : nullptr;
    // A sub-view the caller cannot name: the view is inside the ones before.
    if (!At.Start || (Step.isSlice() && !At.Size)) {
      Out->Inexact = true;
      break;
    }
    Out->Steps.push_back(At);
  }
  return Out;
}

namespace {

std::string spellAtLambda(const Expr *E, const LambdaCall &C, const ASTContext &Ctx,
                          unsigned Depth = 0);

/// The text the caller would write for a root written in the lambda (named
/// at \p At): the argument for a parameter, a member of a variable with its
/// variable (`s.sem`), else its name.
std::string spellRoot(const ValueDecl *Root, const Expr *At, const LambdaCall &C,
                      const ASTContext &Ctx) {
  if (const auto *ME = dyn_cast_or_null<MemberExpr>(At); ME && isa_and_nonnull<FieldDecl>(Root))
    if (const Expr *Base = ME->getBase()->IgnoreParenImpCasts(); !isa<CXXThisExpr>(Base)) {
      std::string Object = spellAtLambda(Base, C, Ctx);
      return Object.empty() ? std::string() : Object + "." + Root->getName().str();
    }
  const auto *P = dyn_cast_or_null<ParmVarDecl>(Root);
  if (P && P->getDeclContext() == C.Operator) {
    unsigned I = P->getFunctionScopeIndex();
    return I < C.Args.size() ? spelling(C.Args[I], Ctx) : std::string();
  }
  return Root && Root->getIdentifier() ? Root->getName().str() : std::string();
}

/// \p E at the call: the argument for a bare parameter, what initialises a
/// local of the lambda, else as written.
std::string spellAtLambda(const Expr *E, const LambdaCall &C, const ASTContext &Ctx,
                          unsigned Depth) {
  if (!E)
    return "";
  if (const auto *DRE = dyn_cast<DeclRefExpr>(bareArgument(E))) {
    const auto *V = dyn_cast<VarDecl>(DRE->getDecl());
    if (V && V->getDeclContext() == C.Operator) {
      if (const auto *P = dyn_cast<ParmVarDecl>(V)) {
        unsigned I = P->getFunctionScopeIndex();
        return I < C.Args.size() ? spelling(C.Args[I], Ctx) : std::string();
      }
      // Only a const local holds its initial value (a loop's counter
      // does not): another has no spelling at the call.
      if (!V->getType().isConstQualified())
        return "";
      if (V->getInit() && Depth < 4)
        return spellAtLambda(V->getInit(), C, Ctx, Depth + 1);
    }
  }
  // Its parameters spelled as the call's arguments (`step % 2` given
  // `i + 1`: `(i + 1) % 2`).
  if (std::string Text = spellArgument(E, Ctx, &C); !Text.empty())
    return Text;
  return spelling(E, Ctx);
}

} // namespace

std::string spellAtLambdaCall(const SemaphoreName &N, const LambdaCall &C,
                              const ASTContext &Ctx) {
  std::string Text = spellRoot(N.Root, N.RootAt, C, Ctx);
  if (Text.empty() || N.Indices.empty())
    return Text;
  std::string List;
  for (const Expr *Index : N.Indices) {
    std::string I = spellAtLambda(Index, C, Ctx);
    if (I.empty())
      return "";
    List += (List.empty() ? "" : ", ") + I;
  }
  return N.Indices.size() == 1 ? Text + "[" + List + "]" : Text + ".at(" + List + ")";
}

std::string spellAtLambdaCall(const BufferName &N, const LambdaCall &C, const ASTContext &Ctx) {
  std::string Text = spellRoot(N.Root, N.RootAt, C, Ctx);
  for (const BufferStep &Step : N.Steps) {
    std::string Start = spellAtLambda(Step.Start, C, Ctx);
    std::string Size = Step.isSlice() ? spellAtLambda(Step.Size, C, Ctx) : "";
    if (Text.empty())
      return "";
    // A sub-view the call cannot name: the view is inside the ones before
    // (bufferAtLambdaCall).
    if (Start.empty() || (Step.isSlice() && Size.empty()))
      return Text;
    Text += Step.isSlice() ? ".slice(" + Start + ", " + Size + ")" : ".at(" + Start + ")";
  }
  return Text;
}

namespace {

/// Collects the mentions of \p Owner's parameters (any function's, with no
/// Owner) and whether \p E mentions its locals.
struct ParameterMentions : RecursiveASTVisitor<ParameterMentions> {
  const DeclContext *Owner;
  std::vector<const DeclRefExpr *> Params;
  bool Locals = false;
  explicit ParameterMentions(const DeclContext *Owner) : Owner(Owner) {}
  bool VisitDeclRefExpr(DeclRefExpr *DRE) {
    const auto *V = dyn_cast<VarDecl>(DRE->getDecl());
    if (!V || (Owner && V->getDeclContext() != Owner))
      return true;
    if (isa<ParmVarDecl>(V))
      Params.push_back(DRE);
    else if (Owner)
      Locals = true;
    return true;
  }
};

std::vector<const DeclRefExpr *> parameterReads(const Expr *E, const DeclContext *Owner,
                                                bool *Locals) {
  ParameterMentions M(Owner);
  M.TraverseStmt(const_cast<Expr *>(E));
  if (Locals)
    *Locals = M.Locals;
  return std::move(M.Params);
}

std::string withReadsReplaced(
    const Expr *E, std::vector<const DeclRefExpr *> Reads,
    llvm::function_ref<std::pair<std::string, const Expr *>(const DeclRefExpr &)> Replace,
    const ASTContext &Ctx) {
  std::string Text = spelling(E, Ctx);
  if (Text.empty())
    return Text;
  // From the last, so the offsets before stay valid.
  const SourceManager &SM = Ctx.getSourceManager();
  unsigned Begin = SM.getFileOffset(SM.getSpellingLoc(E->getBeginLoc()));
  llvm::sort(Reads, [&](const DeclRefExpr *A, const DeclRefExpr *B) {
    return SM.getFileOffset(SM.getSpellingLoc(A->getLocation())) >
           SM.getFileOffset(SM.getSpellingLoc(B->getLocation()));
  });
  for (const DeclRefExpr *DRE : Reads) {
    auto [Arg, ArgExpr] = Replace(*DRE);
    unsigned At = SM.getFileOffset(SM.getSpellingLoc(DRE->getLocation()));
    StringRef Name = DRE->getDecl()->getName();
    if (Arg.empty() || At < Begin || At - Begin + Name.size() > Text.size() ||
        Text.compare(At - Begin, Name.size(), Name) != 0)
      return "";
    // `step % 2` given `i + 1` is `(i + 1) % 2`; an operand of no operator
    // (the expression, an argument) is the argument as written.
    if (ArgExpr && !isa<DeclRefExpr, IntegerLiteral, CallExpr, ParenExpr, MemberExpr,
                        ArraySubscriptExpr>(bareArgument(ArgExpr))) {
      StringRef Before = StringRef(Text).take_front(At - Begin).rtrim();
      StringRef After = StringRef(Text).drop_front(At - Begin + Name.size()).ltrim();
      bool Alone = (Before.empty() || Before.back() == '(' || Before.back() == ',') &&
                   (After.empty() || After.front() == ')' || After.front() == ',');
      if (!Alone)
        Arg = "(" + Arg + ")";
    }
    Text.replace(At - Begin, Name.size(), Arg);
  }
  return Text;
}

std::string spellArgument(const Expr *E, const ASTContext &Ctx, const LambdaCall *Within) {
  if (!Within)
    return spelling(E, Ctx);
  bool Locals = false;
  std::vector<const DeclRefExpr *> Reads = parameterReads(E, Within->Operator, &Locals);
  if (Locals)
    return "";
  // Each parameter by the call's argument.
  return withReadsReplaced(
      E, std::move(Reads),
      [&](const DeclRefExpr &DRE) -> std::pair<std::string, const Expr *> {
        unsigned I = cast<ParmVarDecl>(DRE.getDecl())->getFunctionScopeIndex();
        if (I >= Within->Args.size())
          return {"", nullptr};
        return {spelling(Within->Args[I], Ctx), Within->Args[I]};
      },
      Ctx);
}

} // namespace

// --------------------------------------------------- a call of a helper ---

namespace {

/// What the conditions \p When of a helper's start or wait say at a call
/// with \p Args, in a caller whose bool parameters are known to be \p Here.
struct Decision {
  bool Applies = true;  ///< Some path may make it.
  bool Decided = true;  ///< Every path to the call makes it.
  bool Open = false;    ///< Conditions on values the caller's summary cannot name.
  ParamFacts Translated; ///< The undecided ones, as the caller's parameters.
};

Decision decide(const ParamFacts &When, llvm::ArrayRef<const Expr *> Args,
                const ParamFacts &Here, const FunctionDecl *Caller, const ASTContext &Ctx) {
  Decision D;
  for (const ParamFact &F : When) {
    if (F.Param >= Args.size()) {
      D.Decided = false;
      D.Open = true;
      continue;
    }
    BoolArgument A = factArgument(F, Args[F.Param], Ctx);
    if (A.Constant) {
      if (*A.Constant != F.Holds)
        D.Applies = false;
      continue;
    }
    // `wait` or `!wait` for a bool parameter of the caller.
    bool Holds = A.TestedHolds;
    const auto *DRE = dyn_cast_or_null<DeclRefExpr>(A.Tested);
    const auto *P = DRE ? dyn_cast<ParmVarDecl>(DRE->getDecl()) : nullptr;
    if (!P || P->getDeclContext() != Caller || !P->getType()->isBooleanType()) {
      D.Decided = false;
      D.Open = true;
      continue;
    }
    ParamFact Fact{P->getFunctionScopeIndex(), Holds};
    auto Known = llvm::find_if(Here, [&](const ParamFact &K) { return K.Param == Fact.Param; });
    if (Known != Here.end()) {
      if (Known->Holds != Holds)
        D.Applies = false;
      continue;
    }
    D.Decided = false;
    D.Translated.push_back(Fact);
  }
  return D;
}

/// Keeps the facts both lists have.
void intersect(ParamFacts &Into, const ParamFacts &Other) {
  llvm::erase_if(Into, [&](const ParamFact &F) { return !llvm::is_contained(Other, F); });
}

} // namespace

void Analyzer::protocolCall(const Expr *Call, const FunctionDecl *Callee,
                            llvm::ArrayRef<const Expr *> Args,
                            llvm::ArrayRef<OriginId> InFlightBefore, State &S, bool Report) {
  if (!Callee || !Summaries || !Limits.UseSummaries || Api.roleOf(Callee) != ApiRole::None)
    return;
  if (const auto *MD = dyn_cast<CXXMethodDecl>(Callee); MD && MD->isVirtual())
    return;
  const FunctionDecl *Definition = nullptr;
  if (!Callee->hasBody(Definition) || Definition->isDependentContext())
    return;
  const ProtocolSummary *Summary = Summaries->protocol(*Definition);
  // A member function's starts and waits of its object's copies, named here.
  ProtocolSummary AtObject;
  llvm::SmallVector<const Expr *, 8> ObjectArgs;
  std::optional<LambdaCall> Within;
  if (Summary && Summary->hasObjectEntries()) {
    ObjectArgs.assign(Args.begin(), Args.end());
    AtObject = atObject(Call, *Summary, ObjectArgs, Within);
    Summary = &AtObject;
    Args = ObjectArgs;
  }
  if (!Summary || (Summary->Starts.empty() && Summary->Waits.empty() &&
                   Summary->ReceiveOnly.empty() &&
                   llvm::none_of(Summary->Followed, [](bool F) { return F; })))
    return;
  ParamFacts Here = paramFacts(S);
  llvm::SmallVector<Decision, 4> Starts, Waits;
  for (const HelperStart &Start : Summary->Starts)
    Starts.push_back(decide(Start.When, Args, Here, Function, Ctx));
  for (const HelperWait &Wait : Summary->Waits)
    Waits.push_back(decide(Wait.When, Args, Here, Function, Ctx));
  llvm::SmallVector<Decision, 1> ReceiveOnly;
  for (const HelperReceiveOnly &R : Summary->ReceiveOnly)
    ReceiveOnly.push_back(decide(R.When, Args, Here, Function, Ctx));

  // The copies it may leave in flight: one origin each for this call.
  llvm::SmallVector<OriginId, 2> Origins(Summary->Starts.size(), 0);
  for (unsigned I = 0; I < Summary->Starts.size(); ++I) {
    if (!Starts[I].Applies)
      continue;
    auto [It, Inserted] = HelperOriginIds.try_emplace({Call, I}, 0);
    if (Inserted) {
      OriginInfo O;
      O.Site = Call;
      O.Kind = Summary->Starts[I].Kind;
      It->second = static_cast<OriginId>(Out.Origins.size());
      Out.Origins.push_back(O);
    }
    Origins[I] = It->second;
    S.setLife(It->second, S.lifeOf(It->second) | LifeState::InFlight);
  }
  if (!Report)
    return;

  auto [At, New] = ProtocolCallIndex.try_emplace(Call, Out.ProtocolCalls.size());
  if (New) {
    ProtocolCall PC;
    PC.Call = Call;
    PC.Callee = Definition;
    PC.Args.append(Args.begin(), Args.end());
    PC.Within = Within;
    PC.Summary = *Summary;
    PC.Here = Here;
    PC.InFlightBefore.append(InFlightBefore.begin(), InFlightBefore.end());
    for (unsigned I = 0; I < Starts.size(); ++I) {
      PC.StartDecided.push_back(Starts[I].Applies && Starts[I].Decided);
      PC.StartOpen.push_back(Starts[I].Open);
      PC.StartWhen.push_back(Starts[I].Translated);
    }
    for (unsigned I = 0; I < Waits.size(); ++I) {
      PC.WaitDecided.push_back(Waits[I].Applies && Waits[I].Decided);
      PC.WaitOpen.push_back(Waits[I].Open);
      PC.WaitWhen.push_back(Waits[I].Translated);
    }
    PC.StartOrigins = Origins;
    for (unsigned I = 0; I < Starts.size(); ++I)
      if (Origins[I]) {
        Out.Origins[Origins[I]].HelperCall = static_cast<unsigned>(At->second) + 1;
        Out.Origins[Origins[I]].HelperEntry = I;
      }
    // What no path here can make stays in the summary, marked by origin 0
    // (a start) or by an empty list of semaphores that is not Unknown (a wait).
    for (unsigned I = 0; I < Waits.size(); ++I)
      if (!Waits[I].Applies) {
        PC.Summary.Waits[I].Semaphores.clear();
        PC.Summary.Waits[I].Unknown = false;
        PC.Summary.Waits[I].Exact = false;
      }
    for (unsigned I = 0; I < ReceiveOnly.size(); ++I) {
      PC.ReceiveOnlyWhen.push_back(ReceiveOnly[I].Translated);
      if (!ReceiveOnly[I].Applies)
        PC.Summary.ReceiveOnly[I].Sends.clear();
    }
    Out.ProtocolCalls.push_back(std::move(PC));
    return;
  }
  // Reached again (an inlined lambda called twice): what holds on both.
  ProtocolCall &PC = Out.ProtocolCalls[At->second];
  intersect(PC.Here, Here);
  for (OriginId Id : InFlightBefore)
    if (!llvm::is_contained(PC.InFlightBefore, Id))
      PC.InFlightBefore.push_back(Id);
  for (unsigned I = 0; I < Starts.size() && I < PC.StartDecided.size(); ++I) {
    PC.StartDecided[I] = PC.StartDecided[I] && Starts[I].Applies && Starts[I].Decided;
    PC.StartOpen[I] = PC.StartOpen[I] || Starts[I].Open;
    intersect(PC.StartWhen[I], Starts[I].Translated);
    if (Origins[I] && !PC.StartOrigins[I]) {
      PC.StartOrigins[I] = Origins[I];
      Out.Origins[Origins[I]].HelperCall = static_cast<unsigned>(At->second) + 1;
      Out.Origins[Origins[I]].HelperEntry = I;
    }
  }
  for (unsigned I = 0; I < Waits.size() && I < PC.WaitDecided.size(); ++I) {
    PC.WaitDecided[I] = PC.WaitDecided[I] && Waits[I].Applies && Waits[I].Decided;
    PC.WaitOpen[I] = PC.WaitOpen[I] || Waits[I].Open;
    intersect(PC.WaitWhen[I], Waits[I].Translated);
    if (Waits[I].Applies && PC.Summary.Waits[I].Semaphores.empty() &&
        !PC.Summary.Waits[I].Unknown)
      PC.Summary.Waits[I] = Summary->Waits[I];
  }
  for (unsigned I = 0; I < ReceiveOnly.size() && I < PC.ReceiveOnlyWhen.size(); ++I) {
    intersect(PC.ReceiveOnlyWhen[I], ReceiveOnly[I].Translated);
    if (ReceiveOnly[I].Applies && PC.Summary.ReceiveOnly[I].Sends.empty())
      PC.Summary.ReceiveOnly[I] = Summary->ReceiveOnly[I];
  }
}

void Analyzer::recordStartedFactory(const Expr *Call, const State &S) {
  ParamFacts Here = paramFacts(S);
  for (auto &[Site, Facts] : Out.StartedFactories)
    if (Site == Call) {
      intersect(Facts, Here);
      return;
    }
  Out.StartedFactories.push_back({Call, std::move(Here)});
}

std::vector<const Expr *> followedArguments(const FunctionAnalysis &A) {
  std::vector<const Expr *> Followed;
  for (const ProtocolCall &PC : A.ProtocolCalls)
    for (unsigned I = 0; I < PC.Args.size(); ++I)
      if (PC.Summary.followed(I))
        Followed.push_back(PC.Args[I]);
  return Followed;
}

// ------------------------------------------------ a function's summary ---

namespace {

/// Facts no path can have both of: the same parameter, two values.
bool exclusive(const ParamFacts &A, const ParamFacts &B) {
  for (const ParamFact &F : A)
    for (const ParamFact &G : B)
      if (contradicts(F, G))
        return true;
  return false;
}

/// Drops the facts on parameters the function writes: they say what the
/// parameter holds where the fact was made, not what the caller passed.
/// False when one was dropped (then the conditions are not all stated).
bool keepUnwritten(ParamFacts &Facts, const FunctionDecl &FD, const UnwrittenVariables &Vars) {
  size_t Before = Facts.size();
  llvm::erase_if(Facts, [&](const ParamFact &F) {
    return F.Param >= FD.getNumParams() || !Vars.unwritten(FD.getParamDecl(F.Param));
  });
  return Facts.size() == Before;
}

/// The facts of both lists (a path to a call, and the callee's conditions).
ParamFacts withFacts(const ParamFacts &A, const ParamFacts &B) {
  ParamFacts All = A;
  for (const ParamFact &F : B)
    if (!llvm::is_contained(All, F))
      All.push_back(F);
  return All;
}

/// A start in the function's own names, before it becomes a summary's.
struct Named {
  SemaphoreName Semaphore;
  std::optional<BufferName> Target;
  /// Instead, the copies the object of a member function holds here.
  std::optional<AccessPath> ObjectPath;
};

/// A wait of the function, in its own names (for the coverage of its
/// starts) and in its parameters' (the summary's).
struct OwnWait {
  llvm::SmallVector<SemaphoreName, 2> Semaphores;
  bool Unknown = false, Placeholder = false;
  std::optional<BufferName> Source, Target;
  ParamFacts When;
  OriginId Origin = 0; ///< The one copy it waits, if it is one.
  std::optional<AccessPath> ObjectPath; ///< Of the copies of the object it waits.
  const Stmt *Here = nullptr; ///< The wait, or the call of the helper making it.
  HelperWait Summary;
};

/// Makes the ProtocolSummary of one function from its analysis.
class Summariser {
public:
  Summariser(const FunctionAnalysis &A, const FunctionDecl &FD, const ASTContext &Ctx,
             const ApiIndex &Api)
      : A(A), FD(FD), Ctx(Ctx), Api(Api),
        Vars(AnalysisCache::current().variables(FD, Api)) {}

  ProtocolSummary run() {
    collectReturned();
    collectMemberInits();
    collectStored();
    followParameters();
    collectWaits();
    collectStarts();
    collectReceiveOnly();
    for (OwnWait &W : Waits) {
      // A wait only of the function's own semaphores is none of a caller's.
      if (!W.Summary.Unknown && W.Summary.Semaphores.empty() && !W.Summary.ObjectPath)
        continue;
      P.Waits.push_back(std::move(W.Summary));
    }
    P.ObjectFollowed = objectFollowed();
    if (isa<CXXConstructorDecl>(&FD))
      resolveOwnMembers(P);
    return std::move(P);
  }

private:
  /// The path below `*this` whose copies \p VS holds, in a member function
  /// (not a constructor, whose copies are its own): what the caller's object
  /// held there and what the class's member functions store there, nothing
  /// else.
  std::optional<AccessPath> objectPath(const ValueSet &VS) const {
    const auto *MD = dyn_cast<CXXMethodDecl>(&FD);
    if (!MD || MD->isStatic() || isa<CXXConstructorDecl, CXXDestructorDecl>(MD) ||
        MD->getParent()->isLambda())
      return std::nullopt;
    std::optional<AccessPath> Path;
    for (const Value &V : VS.values()) {
      const OriginInfo &O = A.origin(V.Origin);
      if (O.ImplicitObject) {
        if (Path && !(*Path == O.ParamPath))
          return std::nullopt;
        Path = O.ParamPath;
      } else if (!O.Imported || O.Folded || O.HelperCall) {
        return std::nullopt;
      }
    }
    return Path;
  }

  /// Whether the starts and waits of the object's copies the summary states
  /// are all the function does with them.
  bool objectFollowed() {
    if (!isa<CXXMethodDecl>(&FD) || ObjectUnstated || A.Summary.Object.MayWrite ||
        A.Summary.Object.Escapes || !MembersFollowed || !thisCallsFollowed())
      return false;
    for (OriginId Id = 1; Id < A.Origins.size(); ++Id) {
      const OriginInfo &O = A.origin(Id);
      if ((O.ImplicitObject || O.Imported) && A.handedOn(Id))
        return false;
    }
    return true;
  }

  bool builtHere(const OriginInfo &O) const {
    return O.Site && !O.HelperCall && !O.isParameter() && !O.Imported && !O.Folded &&
           !O.Engaged && Api.isCopy(*O.Site);
  }
  /// Whether the copy \p Id leaves the function: escaped, handed to a
  /// helper, left in the object (a constructor's member, waited by the
  /// destructor or another member function) or returned.
  bool leaves(OriginId Id) const {
    return A.handedOn(Id) || Kept.count(A.origin(Id).Site);
  }

  /// Followed: every mention is a copy's semaphore argument or a followed
  /// argument of a helper, and no copy built on it leaves the function
  /// (then it may be waited where no summary says).
  void followParameters() {
    P.Followed.assign(FD.getNumParams(), false);
    // What sets the members P.MemberInits names is followed where the
    // object is (its parameters are kept by the object, not lost).
    std::vector<const Expr *> Followed = followedArguments(A);
    Followed.insert(Followed.end(), MemberInitExprs.begin(), MemberInitExprs.end());
    RootMentions Roots(Api, Vars, Followed);
    Roots.TraverseStmt(FD.getBody());
    // A constructor's other member initialisers mention its parameters too
    // (a semaphore kept in a member is waited where the object is used).
    if (const auto *Ctor = dyn_cast<CXXConstructorDecl>(&FD))
      for (const CXXCtorInitializer *Init : Ctor->inits())
        if (Init->isWritten() && !llvm::is_contained(MemberInitExprs, Init->getInit()))
          Roots.TraverseStmt(Init->getInit());
    // The members that may hold semaphores are mentioned only as the
    // semaphores of copies (a member function's callers follow them).
    if (const auto *MD = dyn_cast<CXXMethodDecl>(&FD))
      for (const FieldDecl *F : MD->getParent()->fields())
        if (mayHoldSemaphore(*F, Api) && !Roots.onlyInCopies(F))
          MembersFollowed = false;
    llvm::SmallPtrSet<const Expr *, 4> Stored;
    for (const std::vector<PathValues> *Paths : {&A.Summary.ObjectStores, &A.Summary.Returns})
      for (const PathValues &PV : *Paths)
        for (const auto &[Site, Kind] : PV.Values.Built) {
          Kept.insert(Site);
          if (Paths == &A.Summary.ObjectStores)
            Stored.insert(Site);
        }
    // Lost: semaphores of copies that leave. Those of the copies stored in
    // the object that P.Stored names are followed where the object is.
    llvm::SmallPtrSet<const ValueDecl *, 4> Lost, LostToObject;
    for (OriginId Id = 1; Id < A.Origins.size(); ++Id) {
      const OriginInfo &O = A.origin(Id);
      if (!builtHere(O) || !leaves(Id))
        continue;
      // The copy the summary returns is the caller's, made at its call: the
      // caller's analysis sees what is done with it.
      if (ReturnedSites.count(O.Site) && !Stored.count(O.Site) && madeInReturn(O.Site))
        continue;
      bool ToObject = StoredSites.count(O.Site) && Id < A.HandedOnBesidesObject.size() &&
                      !A.HandedOnBesidesObject[Id];
      CopySemaphores Sems = copySemaphores(O.Site, Api);
      for (const Expr *E : {Sems.Send, Sems.Receive}) {
        if (!E)
          continue;
        std::optional<SemaphoreName> N = semaphoreName(E, Vars);
        if (!N)
          return; // It may be any parameter's.
        (ToObject ? LostToObject : Lost).insert(N->Root);
      }
    }
    bool KeepsAny = !P.Stored.empty() || !P.MemberInits.empty();
    bool ThisCalls = KeepsAny && thisCallsFollowed();
    if (KeepsAny)
      P.StoredFollowed.assign(FD.getNumParams(), false);
    for (unsigned I = 0; I < FD.getNumParams(); ++I) {
      const ParmVarDecl *Param = FD.getParamDecl(I);
      const auto *Root = cast<ValueDecl>(Param->getCanonicalDecl());
      bool Here = Roots.onlyInCopies(Param) && !Lost.count(Root);
      P.Followed[I] = Here && !LostToObject.count(Root) && !IntoMembers.count(Root);
      if (KeepsAny)
        P.StoredFollowed[I] = Here && MembersFollowed && ThisCalls;
    }
  }

  /// The summary's names of \p W's semaphores (those on parameters) and views.
  void stateInParameters(OwnWait &W) {
    HelperWait &H = W.Summary;
    H.Unknown = W.Unknown;
    H.Placeholder = W.Placeholder;
    H.When = W.When;
    H.Conditional |= !keepUnwritten(H.When, FD, Vars) || conditional(W.Here, H.When);
    for (const SemaphoreName &N : W.Semaphores) {
      if (std::optional<SummarySemaphore> S = summarySemaphore(N, Vars, Ctx))
        H.Semaphores.push_back(*S);
      else if (const auto *F = dyn_cast_or_null<FieldDecl>(N.Root);
               F && Vars.thisMemberHolding(F))
        // A member of a member of the object (`b_.sem`), which no summary
        // names: the object's maker may have passed any semaphore there.
        H.Unknown = true;
    }
    if (W.Target)
      H.Target = summaryBuffer(*W.Target, Vars, Ctx);
    if (W.Source && !W.Placeholder)
      H.Source = summaryBuffer(*W.Source, Vars, Ctx);
    H.Exact = H.Exact && H.Target && H.Semaphores.size() == W.Semaphores.size();
  }

  /// The function's own waits, and the waits of the helpers it calls.
  void collectWaits() {
    for (const std::vector<DescriptorUse> *Uses : {&A.ReceiveWaits, &A.WaitSends})
      for (const DescriptorUse &U : *Uses)
        collectWait(U);
    for (const ProtocolCall &PC : A.ProtocolCalls)
      for (unsigned I = 0; I < PC.Summary.Waits.size(); ++I)
        collectHelperWait(PC, I);
  }

  void collectWait(const DescriptorUse &U) {
    ApiRole Role = Api.roleOf(U.Call->getMethodDecl());
    if (std::optional<AccessPath> Path = objectPath(U.Values)) {
      OwnWait W;
      W.When = U.Params;
      W.ObjectPath = Path;
      HelperWait &H = W.Summary;
      H.At = U.Call;
      H.In = &FD;
      H.When = W.When;
      H.Conditional = !keepUnwritten(H.When, FD, Vars) || conditional(U.Call, H.When);
      H.ObjectPath = Path;
      H.Exact = Role != ApiRole::WaitSend;
      Waits.push_back(std::move(W));
      return;
    }
    ObjectUnstated |= mentionsObject(U.Values);
    llvm::SmallVector<OriginId, 2> Origins;
    for (const Value &V : U.Values.values())
      if (!A.origin(V.Origin).Covered && !llvm::is_contained(Origins, V.Origin))
        Origins.push_back(V.Origin);
    for (OriginId Id : Origins) {
      const OriginInfo &O = A.origin(Id);
      OwnWait W;
      W.When = U.Params;
      W.Here = U.Call;
      W.Summary.At = U.Call;
      W.Summary.In = &FD;
      llvm::SmallVector<SemaphoreName, 2> Names;
      if (!builtHere(O) || !waitedSemaphores(A, O, Role, Vars, Api, Ctx, Names)) {
        W.Unknown = true;
      } else {
        W.Semaphores = Names;
        W.Origin = Id;
        CopyBuffers Buffers = copyBuffers(O.Site, Api);
        W.Target = Buffers.Target ? bufferName(Buffers.Target, Api, Vars) : std::nullopt;
        W.Source = Buffers.Source ? bufferName(Buffers.Source, Api, Vars) : std::nullopt;
        W.Placeholder = W.Target && W.Source &&
                        compareBuffers(*W.Source, *W.Target, Vars, Ctx,
                                       Evaluation::SameIteration) == BufferRelation::Same;
        W.Summary.Exact = Origins.size() == 1 && O.Kind == Remoteness::Local &&
                          Role != ApiRole::WaitSend && !W.Placeholder;
      }
      stateInParameters(W);
      bool Unknown = W.Unknown;
      Waits.push_back(std::move(W));
      if (Unknown)
        return; // One unknown wait says all there is to say of this use.
    }
  }

  void collectHelperWait(const ProtocolCall &PC, unsigned I) {
    const HelperWait &Inner = PC.Summary.Waits[I];
    if (!Inner.Unknown && Inner.Semaphores.empty())
      return; // It cannot happen at this call.
    OwnWait W;
    W.When = withFacts(PC.Here, PC.WaitWhen[I]);
    W.Here = PC.Call;
    W.Summary.At = Inner.At;
    W.Summary.In = Inner.In;
    W.Summary.Conditional = Inner.Conditional || PC.WaitOpen[I];
    W.Unknown = Inner.Unknown;
    for (const SummarySemaphore &S : Inner.Semaphores) {
      if (W.Unknown)
        break;
      if (std::optional<SemaphoreName> N = semaphoreAtCall(S, PC.Args, Vars, Ctx, PC.within()))
        W.Semaphores.push_back(*N);
      else
        W.Unknown = true; // It may be any semaphore the caller can reach.
    }
    if (!W.Unknown) {
      W.Placeholder = placeholderAtCall(Inner, PC.Args, Api, Vars, Ctx, PC.within());
      if (Inner.Target)
        W.Target = bufferAtCall(*Inner.Target, PC.Args, Api, Vars, Ctx, PC.within());
      if (Inner.Source && !W.Placeholder)
        W.Source = bufferAtCall(*Inner.Source, PC.Args, Api, Vars, Ctx, PC.within());
      W.Summary.Exact = Inner.Exact && !W.Placeholder && W.Target && W.Semaphores.size() == 1;
    }
    stateInParameters(W);
    Waits.push_back(std::move(W));
  }

  /// Whether a wait of the function may take the bytes of the copy \p Id it
  /// starts, on some path that makes both.
  bool covered(OriginId Id, const Named &Copy, const ParamFacts &When) const {
    for (const OwnWait &W : Waits) {
      if (exclusive(When, W.When))
        continue;
      if (W.Unknown || (Id && W.Origin == Id))
        return true;
      // The object's copies have no names here: any wait may take them.
      if (Copy.ObjectPath || W.ObjectPath)
        return true;
      for (const SemaphoreName &S : W.Semaphores) {
        SemaphoreRelation R = compareSemaphores(Copy.Semaphore, S, Vars, Ctx);
        if (R == SemaphoreRelation::Disjoint || R == SemaphoreRelation::OtherRoot)
          continue;
        if (W.Placeholder || !W.Target || !Copy.Target)
          return true;
        BufferRelation B =
            compareBuffers(*Copy.Target, *W.Target, Vars, Ctx, Evaluation::Anywhere);
        if (B != BufferRelation::Disjoint && B != BufferRelation::OtherRoot)
          return true;
      }
    }
    return false;
  }

  /// A start the summary can state: in flight at the exit on some path,
  /// taken by no wait of the function, its receive semaphore a parameter's.
  void addStart(OriginId Id, const Named &Copy, Remoteness Kind, const Expr *At,
                const FunctionDecl *In, ParamFacts When, bool Conditional,
                const Stmt *Here) {
    if (!llvm::is_contained(A.InFlightAtExit, Id) || covered(Id, Copy, When))
      return;
    std::optional<SummarySemaphore> Receive = summarySemaphore(Copy.Semaphore, Vars, Ctx);
    if (!Receive)
      return; // A semaphore of the function's own: no caller names it.
    HelperStart H;
    H.At = At;
    H.In = In;
    H.Kind = Kind;
    H.Receive = *Receive;
    if (Copy.Target)
      H.Target = summaryBuffer(*Copy.Target, Vars, Ctx);
    H.When = std::move(When);
    H.Conditional = Conditional || !keepUnwritten(H.When, FD, Vars) || conditional(Here, H.When);
    P.Starts.push_back(std::move(H));
  }

  /// A start of the object's copies at \p Path that may be in flight at the
  /// exit: named at each call by the object's constructor.
  void addObjectStart(const DescriptorUse &U, const AccessPath &Path) {
    if (llvm::none_of(U.Values.values(), [&](const Value &V) {
          return llvm::is_contained(A.InFlightAtExit, V.Origin);
        }))
      return;
    Named Copy;
    Copy.ObjectPath = Path;
    if (covered(0, Copy, U.Params))
      return;
    HelperStart H;
    H.At = U.Call;
    H.In = &FD;
    H.ObjectPath = Path;
    H.When = U.Params;
    H.Conditional = !keepUnwritten(H.When, FD, Vars) || conditional(U.Call, H.When);
    P.Starts.push_back(std::move(H));
  }

  /// Whether the object goes nowhere but to member functions called on it
  /// whose summaries state all they do with its copies and members.
  bool thisCallsFollowed() {
    if (!ThisFollowed)
      ThisFollowed = findThisCallsFollowed();
    return *ThisFollowed;
  }
  bool findThisCallsFollowed() const {
    bool Escapes = false;
    membersWritten(FD.getBody(), Escapes);
    if (Escapes)
      return false;
    struct Calls : RecursiveASTVisitor<Calls> {
      std::vector<const CXXMethodDecl *> Methods;
      bool VisitCXXMemberCallExpr(CXXMemberCallExpr *MC) {
        if (isCallOnThis(MC))
          Methods.push_back(MC->getMethodDecl());
        return true;
      }
    } Walk;
    Walk.TraverseStmt(FD.getBody());
    for (const CXXMethodDecl *MD : Walk.Methods) {
      if (MD && AnalysisCache::current().leavesObjectAlone(*MD, Ctx, Api))
        continue;
      const FunctionDecl *Body = nullptr;
      if (!MD || MD->isVirtual() || !MD->hasBody(Body))
        return false;
      const ProtocolSummary *S = AnalysisCache::current().protocol(*Body);
      if (!S || !S->ObjectFollowed)
        return false;
    }
    return true;
  }

  /// Whether \p At (a start or wait of the function, or its call of a
  /// helper that makes one, reached with the facts \p When) may not happen
  /// on a run of the function for a reason its conditions (When: bool
  /// parameters tested alone, integer or enum parameters compared with a
  /// constant) cannot state: under another condition (`if (enabled_)`, `if
  /// (blk < nblk)`), in a lambda, in a switch on anything but a parameter or
  /// in a case another falls into, or after an exit a condition decides (`if
  /// (!active_) return;`). Loops may run zero times: a start in one counts.
  bool conditional(const Stmt *At, const ParamFacts &When) {
    if (!At || !FD.getBody())
      return false;
    if (!ExitFound) {
      findConditionalExit();
      ExitFound = true;
    }
    auto BoolParameter = [&](const Expr *Cond) {
      bool Positive = true;
      if (const ParmVarDecl *P = testedBoolParameter(Cond, Positive))
        return P->getDeclContext() == &FD;
      bool Equal = true;
      auto Compared = comparedParameter(bareCondition(Cond, Positive), Equal, Ctx);
      return Compared && Compared->first->getDeclContext() == &FD &&
             !Compared->first->getType()->isBooleanType();
    };
    // A switch on a parameter: stated when the facts say which case (only
    // that case's edge reaches At), or that it is none of them (only the
    // default edge does).
    auto StatedSwitch = [&](const SwitchStmt &Switch) {
      const ParmVarDecl *P = switchedParameter(Switch);
      if (!P || P->getDeclContext() != &FD || P->getType()->isBooleanType())
        return false;
      unsigned Index = P->getFunctionScopeIndex();
      auto Has = [&](bool Holds, int64_t Value) {
        return llvm::is_contained(When, ParamFact{Index, Holds, Value});
      };
      for (const ParamFact &F : When)
        if (F.Param == Index && F.Equals && F.Holds)
          return true;
      bool AllCases = true;
      for (const SwitchCase *SC = Switch.getSwitchCaseList(); SC; SC = SC->getNextSwitchCase()) {
        if (!isa<CaseStmt>(SC))
          continue;
        std::optional<int64_t> Value = caseValue(*SC, Ctx);
        AllCases = AllCases && Value && Has(false, *Value);
      }
      return AllCases;
    };
    const Stmt *Child = At;
    for (const Stmt *P = parents().getParent(At); P; Child = P, P = parents().getParent(P)) {
      if (const auto *If = dyn_cast<IfStmt>(P)) {
        if ((Child == If->getThen() || Child == If->getElse()) &&
            (If->getInit() || If->getConditionVariable() || !BoolParameter(If->getCond())))
          return true;
      } else if (const auto *CO = dyn_cast<AbstractConditionalOperator>(P)) {
        if (Child != CO->getCond() && !BoolParameter(CO->getCond()))
          return true;
      } else if (const auto *BO = dyn_cast<BinaryOperator>(P)) {
        if (BO->isLogicalOp() && Child == BO->getRHS() && !BoolParameter(BO->getLHS()))
          return true;
      } else if (const auto *Switch = dyn_cast<SwitchStmt>(P)) {
        if (!StatedSwitch(*Switch))
          return true;
      } else if (isa<LambdaExpr>(P)) {
        return true;
      }
    }
    return ConditionalExit &&
           Ctx.getSourceManager().isBeforeInTranslationUnit(ConditionalExit->getBeginLoc(),
                                                            At->getBeginLoc());
  }

  /// The first return, goto or throw of the body (outside its lambdas) that
  /// is not one of the body's own statements: one a condition decides.
  void findConditionalExit() {
    struct Exits : RecursiveASTVisitor<Exits> {
      std::vector<const Stmt *> Found;
      bool TraverseLambdaExpr(LambdaExpr *) { return true; }
      bool VisitReturnStmt(ReturnStmt *S) { return Found.push_back(S), true; }
      bool VisitGotoStmt(GotoStmt *S) { return Found.push_back(S), true; }
      bool VisitIndirectGotoStmt(IndirectGotoStmt *S) { return Found.push_back(S), true; }
      bool VisitCXXThrowExpr(CXXThrowExpr *S) { return Found.push_back(S), true; }
    } Walk;
    Walk.TraverseStmt(FD.getBody());
    const SourceManager &SM = Ctx.getSourceManager();
    for (const Stmt *S : Walk.Found) {
      if (parents().getParent(S) == FD.getBody())
        continue; // `return x;` at the end: every run reaches it.
      if (!ConditionalExit ||
          SM.isBeforeInTranslationUnit(S->getBeginLoc(), ConditionalExit->getBeginLoc()))
        ConditionalExit = S;
    }
  }

  /// Whether \p VS may hold copies of the object of a member function.
  bool mentionsObject(const ValueSet &VS) const {
    return llvm::any_of(VS.values(), [&](const Value &V) {
      const OriginInfo &O = A.origin(V.Origin);
      return O.ImplicitObject || O.Imported;
    });
  }

  /// A constructor's: the copies it stores at each path below its object,
  /// when one local construction makes them all, named in its parameters.
  void collectStored() {
    if (!isa<CXXConstructorDecl>(&FD))
      return;
    for (const PathValues &PV : A.Summary.ObjectStores) {
      const SummaryValues &V = PV.Values;
      if (V.Unknown || V.FromObject || !V.FromParams.empty() || V.Built.size() != 1 ||
          V.Built.front().second != Remoteness::Local)
        continue;
      const Expr *Site = V.Built.front().first;
      std::optional<ReturnedCopy> Named = Api.isCopy(*Site) ? namedInParameters(Site)
                                                            : returnedInParameters(Site);
      if (!Named)
        continue;
      P.Stored.push_back(StoredCopy{PV.Path, std::move(*Named)});
      StoredSites.insert(V.Built.front().first);
    }
  }

  /// The copy a helper returns at the call \p Site (a member function
  /// making it from the object's members, `make_copy(i)`), in the
  /// function's parameters (and members).
  std::optional<ReturnedCopy> returnedInParameters(const Expr *Site) const {
    auto It = A.ReturnedCopies.find(Site);
    if (It == A.ReturnedCopies.end())
      return std::nullopt;
    llvm::SmallVector<const Expr *, 8> Args = callArguments(Site);
    std::optional<SemaphoreName> S = semaphoreAtCall(It->second.Receive, Args, Vars, Ctx);
    std::optional<SummarySemaphore> Named = S ? summarySemaphore(*S, Vars, Ctx) : std::nullopt;
    if (!Named)
      return std::nullopt;
    ReturnedCopy R;
    R.Receive = std::move(*Named);
    auto InParameters = [&](const std::optional<SummaryBuffer> &B) -> std::optional<SummaryBuffer> {
      std::optional<BufferName> N = B ? bufferAtCall(*B, Args, Api, Vars, Ctx) : std::nullopt;
      return N ? summaryBuffer(*N, Vars, Ctx) : std::nullopt;
    };
    R.Source = InParameters(It->second.Source);
    R.Target = InParameters(It->second.Target);
    return R;
  }

  /// A constructor's: the members it sets from its parameters, in its
  /// member initialisers or in the assignments its body starts with, and
  /// writes nowhere else.
  void collectMemberInits() {
    const auto *Ctor = dyn_cast<CXXConstructorDecl>(&FD);
    const auto *Body = Ctor ? dyn_cast_or_null<CompoundStmt>(FD.getBody()) : nullptr;
    if (!Body)
      return;
    llvm::DenseMap<const FieldDecl *, const Expr *> Sets;
    llvm::DenseMap<const FieldDecl *, const Expr *> Assignments;
    for (const CXXCtorInitializer *Init : Ctor->inits()) {
      // An initialiser that writes (`slot_(slot = 1 - slot)`): the
      // parameters the names stand for may not hold what the caller passed.
      if (Init->isWritten() && writes(Init->getInit()))
        return;
      if (Init->isWritten() && Init->isMemberInitializer())
        Sets[Init->getMember()] = Init->getInit();
    }
    // `sem_ = sem;` before anything else; what the rest of the body writes.
    llvm::DenseSet<const FieldDecl *> Written;
    bool Any = false, Leading = true;
    for (const Stmt *S : Body->body()) {
      // `member = value;`: a built-in or a class's copy assignment.
      const Expr *LHS = nullptr, *RHS = nullptr;
      if (const auto *BO = dyn_cast<BinaryOperator>(S); BO && BO->getOpcode() == BO_Assign) {
        LHS = BO->getLHS();
        RHS = BO->getRHS();
      } else if (const auto *OC = dyn_cast<CXXOperatorCallExpr>(S);
                 OC && OC->getOperator() == OO_Equal && OC->getNumArgs() == 2) {
        LHS = OC->getArg(0);
        RHS = OC->getArg(1);
      }
      const auto *ME = LHS ? dyn_cast<MemberExpr>(LHS->IgnoreParenImpCasts()) : nullptr;
      const auto *F = ME && isa<CXXThisExpr>(ME->getBase()->IgnoreParenImpCasts())
                          ? dyn_cast<FieldDecl>(ME->getMemberDecl())
                          : nullptr;
      if (Leading && F && !Sets.count(F)) {
        Sets[F] = RHS;
        Assignments[F] = cast<Expr>(S);
        continue;
      }
      Leading = false;
      bool AnyHere = false;
      for (const FieldDecl *W : membersWritten(S, AnyHere))
        Written.insert(W);
      Any |= AnyHere;
    }
    if (Any)
      return;
    for (const auto &[F, E] : Sets) {
      if (Written.contains(F))
        continue;
      MemberInit M;
      M.Field = F;
      if (std::optional<SemaphoreName> S = semaphoreName(E, Vars))
        if (std::optional<SummarySemaphore> Named = summarySemaphore(*S, Vars, Ctx);
            Named && !Named->Member)
          M.Semaphore = std::move(*Named);
      if (std::optional<BufferName> B = bufferName(E, Api, Vars))
        if (std::optional<SummaryBuffer> Named = summaryBuffer(*B, Vars, Ctx);
            Named && !Named->Member)
          M.Buffer = std::move(*Named);
      if (!M.Semaphore && !M.Buffer)
        continue;
      P.MemberInits.push_back(std::move(M));
      MemberInitExprs.push_back(Assignments.lookup(F) ? Assignments.lookup(F) : E);
      for (const ParmVarDecl *Param : FD.parameters())
        if (mentions(E, Param))
          IntoMembers.insert(cast<ValueDecl>(Param->getCanonicalDecl()));
    }
  }

  /// The copy \p Site makes, in the function's parameters.
  std::optional<ReturnedCopy> namedInParameters(const Expr *Site) const {
    const Expr *Receive = copySemaphores(Site, Api).Receive;
    std::optional<SemaphoreName> S = Receive ? semaphoreName(Receive, Vars) : std::nullopt;
    std::optional<SummarySemaphore> Named = S ? summarySemaphore(*S, Vars, Ctx) : std::nullopt;
    if (!Named)
      return std::nullopt;
    ReturnedCopy R;
    R.Receive = std::move(*Named);
    if (const Expr *Send = copySemaphores(Site, Api).Send) {
      std::optional<SemaphoreName> SN = semaphoreName(Send, Vars);
      R.Send = SN ? summarySemaphore(*SN, Vars, Ctx) : std::nullopt;
      if (!R.Send)
        return std::nullopt;
    }
    CopyBuffers Buffers = copyBuffers(Site, Api);
    auto InParameters = [&](const Expr *E) -> std::optional<SummaryBuffer> {
      std::optional<BufferName> B = E ? bufferName(E, Api, Vars) : std::nullopt;
      return B ? summaryBuffer(*B, Vars, Ctx) : std::nullopt;
    };
    R.Source = InParameters(Buffers.Source);
    R.Target = InParameters(Buffers.Target);
    return R;
  }

  /// The one local copy every return hands back, made here at one
  /// construction with semaphore and buffers its parameters name.
  void collectReturned() {
    const std::vector<PathValues> &Returns = A.Summary.Returns;
    // The copy one place below the returned value holds, made here at one
    // construction that no other place holds.
    auto Named = [&](const SummaryValues &V) -> std::optional<ReturnedCopy> {
      if (V.Unknown || V.FromObject || !V.FromParams.empty() || V.Built.size() != 1 ||
          V.Built.front().second == Remoteness::Unknown || !Api.isCopy(*V.Built.front().first))
        return std::nullopt;
      std::optional<ReturnedCopy> R = namedInParameters(V.Built.front().first);
      // A remote copy is named only with its send semaphore.
      if (R && V.Built.front().second == Remoteness::Remote && !R->Send)
        return std::nullopt;
      return R;
    };
    if (Returns.size() == 1 && Returns.front().Path.empty()) {
      const SummaryValues &V = Returns.front().Values;
      std::optional<ReturnedCopy> R = Named(V);
      if (!R && !V.Unknown && !V.FromObject && V.FromParams.empty() && V.Built.size() == 2 &&
          V.Built[0].second != V.Built[1].second) {
        // One local and one remote construction: each named on its own.
        for (const auto &[Site, Kind] : V.Built) {
          SummaryValues One;
          One.Built.push_back({Site, Kind});
          std::optional<ReturnedCopy> Picked = Named(One);
          if (!Picked) {
            P.ReturnedPicked.clear();
            return;
          }
          P.ReturnedPicked.push_back({Kind, std::move(*Picked)});
        }
        ReturnedSites.insert(V.Built[0].first);
        ReturnedSites.insert(V.Built[1].first);
        return;
      }
      if (!R)
        return;
      P.Returned = std::move(*R);
      ReturnedSites.insert(Returns.front().Values.Built.front().first);
      return;
    }
    // Below the value (`return std::make_pair(make_async_copy(...), ...)`):
    // each place its own construction.
    llvm::SmallPtrSet<const Expr *, 4> Sites;
    for (const PathValues &PV : Returns) {
      if (PV.Path.empty())
        return;
      std::optional<ReturnedCopy> R = Named(PV.Values);
      if (!R)
        continue;
      const Expr *Site = PV.Values.Built.front().first;
      if (!Sites.insert(Site).second)
        return; // One construction at two places: copies of one another.
      P.ReturnedAt.push_back(StoredCopy{PV.Path, std::move(*R)});
    }
    ReturnedSites.insert(Sites.begin(), Sites.end());
  }

  /// Whether \p Site is made by a return statement (`return
  /// make_async_copy(...);`): nothing else in the function can touch it.
  /// Or an element of the value a return statement builds, where no code
  /// of the program runs on it: a braced list, a std::pair or std::tuple
  /// (`return {make_async_copy(...), make_async_copy(...)};`,
  /// `return std::make_pair(...)`).
  bool madeInReturn(const Expr *Site) {
    const Stmt *Parent = parents().getParent(Site);
    auto Aggregate = [](const Stmt *S) {
      // A branch of `return far ? make_async_remote_copy(...) : ...;`
      // counts too: nothing runs on it between the two.
      if (isa<InitListExpr, MaterializeTemporaryExpr, CXXBindTemporaryExpr,
              ConditionalOperator>(S))
        return true;
      if (const auto *CE = dyn_cast<CXXConstructExpr>(S))
        return CE->getConstructor()->getParent()->isInStdNamespace();
      if (const auto *Call = dyn_cast<CallExpr>(S)) {
        const FunctionDecl *Callee = Call->getDirectCallee();
        return Callee && Callee->isInStdNamespace() && Callee->getIdentifier() &&
               (Callee->getName() == "make_pair" || Callee->getName() == "make_tuple");
      }
      return false;
    };
    while (Parent && isa<Expr>(Parent) &&
           (stripWrappers(cast<Expr>(Parent)) == stripWrappers(Site) || Aggregate(Parent) ||
            isa<ImplicitCastExpr, CXXFunctionalCastExpr, ExprWithCleanups, ParenExpr>(Parent)))
      Parent = parents().getParent(Parent);
    if (Parent && isa<ReturnStmt>(Parent))
      return true;
    // `auto copy = make_async_copy(...); return copy;`: a local built from
    // it that is named only where it is returned (nothing runs on it
    // between the two either).
    const auto *DS = dyn_cast_or_null<DeclStmt>(Parent);
    if (!DS || !DS->isSingleDecl())
      return false;
    const auto *V = dyn_cast<VarDecl>(DS->getSingleDecl());
    return V && V->hasLocalStorage() && !V->getType()->isReferenceType() && V->getInit() &&
           stripWrappers(V->getInit()) == stripWrappers(Site) && onlyReturned(*V);
  }

  /// Whether every mention of the local \p V is the value a return gives
  /// (as it is, copied or moved), and one is.
  bool onlyReturned(const VarDecl &V) {
    bool Any = false;
    llvm::SmallVector<const Stmt *, 32> Work{FD.getBody()};
    while (!Work.empty()) {
      const Stmt *S = Work.pop_back_val();
      if (!S)
        continue;
      if (const auto *DRE = dyn_cast<DeclRefExpr>(S); DRE && DRE->getDecl() == &V) {
        const Stmt *Parent = parents().getParent(DRE);
        while (Parent && (isa<ImplicitCastExpr, ParenExpr, ExprWithCleanups,
                              MaterializeTemporaryExpr, CXXBindTemporaryExpr>(Parent) ||
                          (isa<CXXConstructExpr>(Parent) &&
                           cast<CXXConstructExpr>(Parent)
                               ->getConstructor()
                               ->isCopyOrMoveConstructor())))
          Parent = parents().getParent(Parent);
        if (!Parent || !isa<ReturnStmt>(Parent))
          return false;
        Any = true;
      }
      for (const Stmt *Child : S->children())
        Work.push_back(Child);
    }
    return Any;
  }

  std::optional<Named> namedCopy(const OriginInfo &O) const {
    const Expr *Receive = copySemaphores(O.Site, Api).Receive;
    std::optional<SemaphoreName> S = Receive ? semaphoreName(Receive, Vars) : std::nullopt;
    if (!S)
      return std::nullopt;
    CopyBuffers Buffers = copyBuffers(O.Site, Api);
    return Named{*S, Buffers.Target ? bufferName(Buffers.Target, Api, Vars) : std::nullopt};
  }

  /// The copies it starts (start calls, started factories) and those the
  /// helpers it calls start.
  void collectStarts() {
    for (const DescriptorUse &U : A.Starts) {
      if (std::optional<AccessPath> Path = objectPath(U.Values)) {
        addObjectStart(U, *Path);
        continue;
      }
      ObjectUnstated |= mentionsObject(U.Values);
      for (const Value &V : U.Values.values()) {
        const OriginInfo &O = A.origin(V.Origin);
        if (O.Kind == Remoteness::Unknown || !builtHere(O))
          continue;
        if (std::optional<Named> Copy = namedCopy(O))
          addStart(V.Origin, *Copy, O.Kind, U.Call, &FD, U.Params, false, U.Call);
      }
    }
    for (const auto &[Site, Facts] : A.StartedFactories)
      for (OriginId Id = 1; Id < A.Origins.size(); ++Id) {
        const OriginInfo &O = A.origin(Id);
        if (O.Site != Site || O.Kind == Remoteness::Unknown || !builtHere(O))
          continue;
        if (std::optional<Named> Copy = namedCopy(O))
          addStart(Id, *Copy, O.Kind, Site, &FD, Facts, false, Site);
      }
    for (const ProtocolCall &PC : A.ProtocolCalls)
      for (unsigned I = 0; I < PC.Summary.Starts.size(); ++I) {
        const HelperStart &Inner = PC.Summary.Starts[I];
        OriginId Id = PC.StartOrigins[I];
        if (!Id)
          continue;
        std::optional<SemaphoreName> S = semaphoreAtCall(Inner.Receive, PC.Args, Vars, Ctx, PC.within());
        if (!S)
          continue;
        Named Copy{*S, Inner.Target ? bufferAtCall(*Inner.Target, PC.Args, Api, Vars, Ctx, PC.within())
                                    : std::nullopt};
        addStart(Id, Copy, Inner.Kind, Inner.At, Inner.In, withFacts(PC.Here, PC.StartWhen[I]),
                 Inner.Conditional || PC.StartOpen[I], PC.Call);
      }
  }

  /// The summary's name of \p Send when it is a followed parameter's and
  /// nothing here drains it (\p D: the copy, when it is one of this function).
  std::optional<SummarySemaphore> undrainedParameter(const std::optional<SemaphoreName> &Send,
                                                     OriginId D) const {
    if (!Send)
      return std::nullopt;
    std::optional<unsigned> Param = parameterOf(Send->Root, Vars);
    if (!Param || !P.followed(*Param) || sendMayBeDrained(A, D, *Send, Vars, Ctx, Api))
      return std::nullopt;
    return summarySemaphore(*Send, Vars, Ctx);
  }

  /// Receive-only waits of remote copies on a followed parameter's send
  /// semaphore that nothing here drains: the caller judges them.
  void collectReceiveOnly() {
    for (const auto &[U, Origins] : receiveWaitsOfRemoteCopies(A, Api)) {
      HelperReceiveOnly R;
      R.WaitRecv = U->Call;
      R.In = &FD;
      R.When = U->Params;
      bool Stated = keepUnwritten(R.When, FD, Vars);
      for (OriginId D : Origins) {
        const OriginInfo &O = A.origin(D);
        const Expr *SendArg =
            builtHere(O) && !leaves(D) ? copySemaphores(O.Site, Api).Send : nullptr;
        std::optional<SummarySemaphore> S =
            undrainedParameter(SendArg ? semaphoreName(SendArg, Vars) : std::nullopt, D);
        if (!S) {
          Stated = false;
          break;
        }
        if (!R.Construction)
          R.Construction = O.Site;
        R.Sends.push_back(*S);
      }
      if (Stated)
        P.ReceiveOnly.push_back(std::move(R));
    }
    for (const ProtocolCall &PC : A.ProtocolCalls)
      for (unsigned I = 0; I < PC.Summary.ReceiveOnly.size(); ++I) {
        const HelperReceiveOnly &Inner = PC.Summary.ReceiveOnly[I];
        if (Inner.Sends.empty())
          continue; // Not made at this call.
        HelperReceiveOnly R;
        R.WaitRecv = Inner.WaitRecv;
        R.Construction = Inner.Construction;
        R.In = Inner.In;
        R.When = withFacts(PC.Here, PC.ReceiveOnlyWhen[I]);
        bool Stated = keepUnwritten(R.When, FD, Vars);
        for (const SummarySemaphore &Sem : Inner.Sends) {
          std::optional<SummarySemaphore> S =
              undrainedParameter(semaphoreAtCall(Sem, PC.Args, Vars, Ctx, PC.within()), 0);
          if (!S) {
            Stated = false;
            break;
          }
          R.Sends.push_back(*S);
        }
        if (Stated)
          P.ReceiveOnly.push_back(std::move(R));
      }
  }

  const FunctionAnalysis &A;
  const FunctionDecl &FD;
  const ASTContext &Ctx;
  const ApiIndex &Api;
  const UnwrittenVariables &Vars;
  ProtocolSummary P;
  llvm::SmallPtrSet<const Expr *, 4> Kept;
  llvm::SmallPtrSet<const Expr *, 2> StoredSites; ///< Of P.Stored.
  /// What sets the members of P.MemberInits (an initialiser, or the
  /// assignment in the body), and the parameters it mentions.
  std::vector<const Expr *> MemberInitExprs;
  llvm::SmallPtrSet<const ValueDecl *, 4> IntoMembers;
  /// The members that may hold semaphores are mentioned only in copies.
  bool MembersFollowed = true;
  /// The body's parents (made at the first question), and its first exit a
  /// condition decides (conditional()).
  std::optional<ParentMap> Parents;
  const ParentMap &parents() {
    if (!Parents)
      Parents.emplace(FD.getBody());
    return *Parents;
  }
  bool ExitFound = false;
  const Stmt *ConditionalExit = nullptr;
  std::optional<bool> ThisFollowed; ///< thisCallsFollowed(), once.
  /// A start or wait may act on the object's copies and is not stated as one.
  bool ObjectUnstated = false;
  /// The constructions of P.Returned and P.ReturnedAt.
  llvm::SmallPtrSet<const Expr *, 4> ReturnedSites;
  std::vector<OwnWait> Waits;
};

} // namespace

ProtocolSummary summariseProtocol(const FunctionAnalysis &A, const FunctionDecl &FD,
                                  const ASTContext &Ctx, const ApiIndex &Api) {
  // Past the work limit nothing is known; copies folded together past the
  // bound have no semaphores to name.
  if (A.HitWorkLimit || !FD.hasBody() ||
      llvm::any_of(A.Origins, [](const OriginInfo &O) { return O.Folded; })) {
    ProtocolSummary Nothing;
    Nothing.Followed.assign(FD.getNumParams(), false);
    return Nothing;
  }
  return Summariser(A, FD, Ctx, Api).run();
}

} // namespace dmalint
