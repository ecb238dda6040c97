//===- Semaphores.cpp - Semaphore names and how two relate ----------------===//
#include "dmalint/Semaphores.h"
#include "dmalint/Arguments.h"
#include "dmalint/AstUtil.h"
#include "dmalint/Formulas.h"
#include "dmalint/InPlaceLambdas.h"
#include "dmalint/ProtocolSummary.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "llvm/ADT/FoldingSet.h"

using namespace clang;

namespace dmalint {

namespace {

/// Finds the variables of a body that may change after their
/// initialisation: every mention of a variable that is not a plain read
/// (a load, a copy construction, a const member call on it) may write it.
class WriteFinder : public RecursiveASTVisitor<WriteFinder> {
public:
  llvm::DenseSet<const VarDecl *> Written, InLoop;
  /// Variables written other than by calling a non-const member function.
  llvm::DenseSet<const VarDecl *> Rebound;
  /// Variables written only by plain assignments and increments outside
  /// lambdas, and those writes.
  llvm::DenseMap<const VarDecl *, llvm::SmallVector<const Expr *, 2>> Assigned;
  bool HasGoto = false;
  /// The call operators of the lambdas that run in place in the function's
  /// own code (not in another lambda).
  llvm::DenseSet<const DeclContext *> OwnLambdas;

  bool TraverseStmt(Stmt *S) {
    if (!S)
      return true;
    bool Loop = isa<ForStmt, WhileStmt, DoStmt, CXXForRangeStmt>(S);
    LoopDepth += Loop;
    bool Result = RecursiveASTVisitor::TraverseStmt(S);
    LoopDepth -= Loop;
    return Result;
  }
  bool TraverseLambdaExpr(LambdaExpr *L) {
    // One that runs where it is written is the function's own code.
    bool Lambda = !InPlace.contains(L);
    if (!Lambda && LambdaDepth == 0) {
      OwnLambdas.insert(L->getCallOperator());
      for (const CXXMethodDecl *Op : genericLambdaInstantiations(*L))
        OwnLambdas.insert(Op);
    }
    LambdaDepth += Lambda;
    bool Result = true;
    if (!traverseGenericLambda(*this, L, Result))
      Result = RecursiveASTVisitor::TraverseLambdaExpr(L);
    LambdaDepth -= Lambda;
    return Result;
  }
  bool VisitCallExpr(CallExpr *Call) {
    addInPlaceLambdas(*Call, InPlace); // Met before its arguments.
    // `[&](int s) { ... }(slot)`: each parameter holds its argument (kept
    // for the lambdas that run in place, OwnLambdas).
    if (std::optional<LambdaCall> C = lambdaCall(Call)) {
      const CXXMethodDecl *CallOp = C->Operator;
      for (unsigned I = 0; I < CallOp->getNumParams() && I < C->Args.size(); ++I)
        ParameterArguments[CallOp->getParamDecl(I)] = C->Args[I];
    }
    return true;
  }
  llvm::DenseMap<const ParmVarDecl *, const Expr *> ParameterArguments;
  bool VisitGotoStmt(GotoStmt *) { return HasGoto = true; }
  bool VisitIndirectGotoStmt(IndirectGotoStmt *) { return HasGoto = true; }
  bool VisitBinaryOperator(BinaryOperator *BO) {
    if (BO->isAssignmentOp())
      markAssigned(BO->getLHS());
    return true;
  }
  bool VisitUnaryOperator(UnaryOperator *UO) {
    if (UO->isIncrementDecrementOp())
      markAssigned(UO->getSubExpr());
    return true;
  }
  bool VisitVarDecl(VarDecl *V) {
    if (LoopDepth > 0)
      InLoop.insert(V);
    // A reference bound to it may write through the reference.
    if (V->getType()->isReferenceType() && !V->getType().getNonReferenceType().isConstQualified())
      if (const Expr *Init = V->getInit())
        if (const auto *DRE = dyn_cast<DeclRefExpr>(Init->IgnoreParens()))
          if (const auto *Target = dyn_cast<VarDecl>(DRE->getDecl()))
            Written.insert(Target);
    return true;
  }
  bool VisitStmt(Stmt *S) {
    if (const Expr *Read = onlyReadOperand(S))
      markRead(Read);
    return true;
  }
  bool VisitCXXMemberCallExpr(CXXMemberCallExpr *MC) {
    const CXXMethodDecl *MD = MC->getMethodDecl();
    if (!(MD && MD->isConst()))
      if (const auto *DRE = dyn_cast_or_null<DeclRefExpr>(
              MC->getImplicitObjectArgument()->IgnoreParenImpCasts()))
        MemberCalled.insert(DRE);
    return true;
  }
  // This walk sees the syntactic form of a braced list, where an element is
  // the expression as written (`DeviceId{x, y}`: y with no load); the
  // semantic form, which the walk does not visit, says how each element
  // initialises its slot: a load is a read.
  bool VisitInitListExpr(InitListExpr *ILE) {
    if (InitListExpr *Semantic = ILE->isSemanticForm() ? nullptr : ILE->getSemanticForm())
      markLoadsRead(Semantic);
    return true;
  }
  /// A member of `*this`, of a variable (`s.buf`) or of a member of one
  /// (`s.kv.buf`): which object, and whether the mention reads it.
  bool VisitMemberExpr(MemberExpr *ME) {
    const auto *F = dyn_cast<FieldDecl>(ME->getMemberDecl());
    if (!F)
      return true;
    const Expr *Base = ME->getBase()->IgnoreParenImpCasts();
    const Decl *Of = nullptr;
    if (isa<CXXThisExpr>(Base))
      Of = This;
    else if (const auto *DRE = dyn_cast<DeclRefExpr>(Base))
      Of = dyn_cast<VarDecl>(DRE->getDecl());
    else if (const auto *Outer = dyn_cast<MemberExpr>(Base);
             Outer && isa<FieldDecl>(Outer->getMemberDecl())) {
      Of = Outer->getMemberDecl();
      ChainBases[ME] = Outer;
    }
    FieldMentions.push_back({ME, F->getCanonicalDecl(), Of ? Of->getCanonicalDecl() : nullptr});
    if (const auto *DRE = dyn_cast<DeclRefExpr>(Base))
      MemberBases[DRE] = ME;
    return true;
  }
  bool VisitDeclRefExpr(DeclRefExpr *DRE) {
    if (const auto *V = dyn_cast<VarDecl>(DRE->getDecl())) {
      Mentions.push_back({DRE, V});
      if (LambdaDepth > 0)
        InLambda.insert(DRE);
    }
    return true;
  }

  void finish() {
    llvm::DenseSet<const VarDecl *> Escaped;
    for (auto &[DRE, V] : Mentions) {
      if (Reads.contains(DRE))
        continue;
      Written.insert(V);
      if (!MemberCalled.contains(DRE))
        Rebound.insert(V);
      if (PlainWrites.contains(DRE) && !InLambda.contains(DRE))
        Assigned[V].push_back(DRE);
      else
        Escaped.insert(V);
    }
    for (const VarDecl *V : Escaped)
      Assigned.erase(V);
    // A member reached to read a member of it (`s.kv` of `s.kv.sem`) is
    // read. Outer members come first (the walk visits a member before its
    // base).
    for (const auto &[ME, F, Of] : FieldMentions)
      if (const MemberExpr *Inner = ChainBases.lookup(ME)) {
        ChainInner.insert(Inner);
        if (Reads.contains(ME))
          Reads.insert(Inner);
      }
    // A variable named only to read its members (`s.sem`, `s.buf.at(i)`),
    // and one named other than to reach a member.
    llvm::DenseSet<const VarDecl *> Other;
    for (auto &[DRE, V] : Mentions) {
      const MemberExpr *Member = MemberBases.lookup(DRE);
      if (!Member)
        NamedWhole.insert(V->getCanonicalDecl());
      if (!Reads.contains(DRE) && !(Member && Reads.contains(Member)))
        Other.insert(V);
    }
    for (auto &[DRE, V] : Mentions)
      if (!Other.contains(V))
        ReadThroughMembers.insert(V);
    // A member named other than to reach a member of it (`helper(s.kv)`).
    for (const auto &[ME, F, Of] : FieldMentions)
      if (!ChainInner.contains(ME))
        FieldsNamedWhole.insert(F);
    // A member names one object when the function reaches it through one
    // base only and never writes it.
    for (const auto &[ME, F, Of] : FieldMentions) {
      auto [It, Inserted] = FieldBases.try_emplace(F, Of);
      if (!Of || !Reads.contains(ME) || (!Inserted && It->second != Of))
        It->second = nullptr;
    }
  }

  /// Stands for `*this` in FieldBases: the function itself.
  const Decl *This = nullptr;
  llvm::DenseSet<const VarDecl *> ReadThroughMembers, NamedWhole;
  llvm::DenseMap<const DeclRefExpr *, const MemberExpr *> MemberBases;
  llvm::DenseMap<const FieldDecl *, const Decl *> FieldBases;
  /// Members named other than to reach a member of theirs.
  llvm::DenseSet<const FieldDecl *> FieldsNamedWhole;
  /// The member each member of a member is reached through (`s.kv` of
  /// `s.kv.sem`), and those reached so.
  llvm::DenseMap<const MemberExpr *, const MemberExpr *> ChainBases;
  llvm::DenseSet<const MemberExpr *> ChainInner;

private:
  void markAssigned(const Expr *E) {
    if (const auto *DRE = dyn_cast<DeclRefExpr>(E->IgnoreParens()))
      PlainWrites.insert(DRE);
  }

  void markLoadsRead(const InitListExpr *Semantic) {
    for (const Expr *Init : Semantic->inits()) {
      if (const auto *Nested = dyn_cast_or_null<InitListExpr>(Init)) {
        markLoadsRead(Nested);
        continue;
      }
      while (const auto *ICE = dyn_cast_or_null<ImplicitCastExpr>(Init)) {
        if (ICE->getCastKind() == CK_LValueToRValue) {
          markRead(ICE->getSubExpr());
          break;
        }
        Init = ICE->getSubExpr();
      }
    }
  }
  void markRead(const Expr *E) {
    E = E->IgnoreParens();
    while (const auto *ICE = dyn_cast<ImplicitCastExpr>(E)) {
      if (ICE->getCastKind() != CK_NoOp)
        break;
      E = ICE->getSubExpr()->IgnoreParens();
    }
    // `s.sems[slot]` of `struct Scratch { DmaSemaphore sems[2]; }` reads s.sems.
    E = arrayOfElement(E);
    if (isa<DeclRefExpr, MemberExpr>(E))
      Reads.insert(E);
  }

  unsigned LoopDepth = 0, LambdaDepth = 0;
  llvm::DenseSet<const Expr *> Reads;
  llvm::DenseSet<const DeclRefExpr *> PlainWrites, InLambda, MemberCalled;
  struct FieldMention {
    const MemberExpr *At;
    const FieldDecl *Field;
    const Decl *Of; ///< The variable, This, or null (another expression).
  };
  std::vector<FieldMention> FieldMentions;
  llvm::SmallPtrSet<const LambdaExpr *, 4> InPlace;
  std::vector<std::pair<const DeclRefExpr *, const VarDecl *>> Mentions;
};

/// \p E without parentheses, implicit casts and explicit casts between
/// integer types that keep every value (`static_cast<index_t>(slot)` of an
/// int): the index it names.
const Expr *widened(const Expr *E, const ASTContext &Ctx) {
  for (E = bareArgument(E); E;) {
    const auto *Cast = dyn_cast<ExplicitCastExpr>(E);
    if (!Cast)
      return E;
    // (The operand as written: a static_cast holds its conversion as an
    // implicit cast of the target type.)
    const Expr *Operand = Cast->getSubExprAsWritten();
    QualType To = Cast->getType(), From = Operand->getType();
    if (!To->isIntegerType() || !From->isIntegerType() || To->isBooleanType() ||
        From->isBooleanType())
      return E;
    uint64_t ToWidth = Ctx.getIntWidth(To), FromWidth = Ctx.getIntWidth(From);
    // Wider, or as wide with the same signedness: one value for each.
    bool Keeps = ToWidth > FromWidth ||
                 (ToWidth == FromWidth && To->isSignedIntegerOrEnumerationType() ==
                                              From->isSignedIntegerOrEnumerationType());
    if (!Keeps)
      return E;
    E = bareArgument(Operand);
  }
  return E;
}

/// \p E as `base + offset` with a constant offset (`i`, `i + 2`, `i - 1`,
/// `1 + i`); the base is null for a constant.
struct Affine {
  const Expr *Base = nullptr;
  int64_t Offset = 0;
};
std::optional<Affine> affine(const Expr *E, const ASTContext &Ctx) {
  E = widened(E, Ctx);
  if (std::optional<int64_t> C = constantInt(E, Ctx))
    return Affine{nullptr, *C};
  if (const auto *BO = dyn_cast<BinaryOperator>(E);
      BO && (BO->getOpcode() == BO_Add || BO->getOpcode() == BO_Sub)) {
    std::optional<int64_t> R = constantInt(BO->getRHS(), Ctx);
    if (R && *R > INT32_MIN && *R < INT32_MAX)
      return Affine{widened(BO->getLHS(), Ctx), BO->getOpcode() == BO_Add ? *R : -*R};
    std::optional<int64_t> L = constantInt(BO->getLHS(), Ctx);
    if (L && *L > INT32_MIN && *L < INT32_MAX && BO->getOpcode() == BO_Add)
      return Affine{widened(BO->getRHS(), Ctx), *L};
  }
  return Affine{E, 0};
}

bool isConstant(const Expr *E, int64_t Value, const ASTContext &Ctx) {
  std::optional<int64_t> C = constantInt(E, Ctx);
  return C && *C == Value;
}

/// True when \p F is one of the spellings of "the other slot" of \p E:
/// `1 - e`, `e ^ 1`, `1 ^ e`, `(e + 1) % 2`, `e == 0 ? 1 : 0`.
bool isOtherSlot(const Expr *E, const Expr *F, const ASTContext &Ctx) {
  F = bareArgument(F);
  auto Same = [&](const Expr *X) { return sameExpression(E, X, Ctx); };
  if (const auto *BO = dyn_cast<BinaryOperator>(F)) {
    switch (BO->getOpcode()) {
    case BO_Sub:
      return isConstant(BO->getLHS(), 1, Ctx) && Same(BO->getRHS());
    case BO_Xor:
      return (isConstant(BO->getRHS(), 1, Ctx) && Same(BO->getLHS())) ||
             (isConstant(BO->getLHS(), 1, Ctx) && Same(BO->getRHS()));
    case BO_Rem: {
      if (!isConstant(BO->getRHS(), 2, Ctx))
        return false;
      std::optional<Affine> Sum = affine(BO->getLHS(), Ctx);
      return Sum && Sum->Base && Sum->Offset == 1 && Same(Sum->Base);
    }
    default:
      return false;
    }
  }
  if (const auto *CO = dyn_cast<ConditionalOperator>(F)) {
    const auto *Cond = dyn_cast<BinaryOperator>(bareArgument(CO->getCond()));
    if (!Cond || Cond->getOpcode() != BO_EQ || !isConstant(CO->getTrueExpr(), 1, Ctx) ||
        !isConstant(CO->getFalseExpr(), 0, Ctx))
      return false;
    return (isConstant(Cond->getRHS(), 0, Ctx) && Same(Cond->getLHS())) ||
           (isConstant(Cond->getLHS(), 0, Ctx) && Same(Cond->getRHS()));
  }
  return false;
}

/// True when \p V is initialised by default construction (`T v;`, `T v{};`,
/// `T v = T();`): a new object that copies nothing.
/// Whether \p E reads a variable, a member or a call's result anywhere in
/// it: what it builds may be a copy of something with another name.
static bool copiesNamedValues(const Stmt *E) {
  if (!E)
    return false;
  if (isa<DeclRefExpr, MemberExpr>(E))
    return !isa<DeclRefExpr>(E) || isa<VarDecl>(cast<DeclRefExpr>(E)->getDecl());
  if (const auto *Call = dyn_cast<CallExpr>(E); Call && !isa<CXXOperatorCallExpr>(Call))
    return true;
  for (const Stmt *Child : E->children())
    if (copiesNamedValues(Child))
      return true;
  return false;
}

bool defaultConstructed(const VarDecl *V) {
  if (!V->getInit())
    return false;
  const Expr *Init = V->getInit()->IgnoreImplicit();
  if (const auto *Made = dyn_cast<CXXConstructExpr>(Init))
    return Made->getNumArgs() == 0 && Made->getConstructor()->isDefaultConstructor();
  const auto *Empty = dyn_cast<InitListExpr>(Init); // `{}` of an aggregate.
  return Empty && Empty->getNumInits() == 0;
}

const ValueDecl *canonical(const ValueDecl *D) {
  return D ? cast<ValueDecl>(D->getCanonicalDecl()) : nullptr;
}

std::optional<SemaphoreName> nameOf(const Expr *E, const UnwrittenVariables &Vars,
                                    unsigned Depth) {
  if (!E || Depth > 8)
    return std::nullopt;
  if (const auto *DA = dyn_cast<CXXDefaultArgExpr>(E))
    return nameOf(DA->getExpr(), Vars, Depth + 1);
  const Expr *Inner = stripWrappers(E);
  if (const auto *CE = dyn_cast<CXXConstructExpr>(Inner)) {
    // A copy of a semaphore, or a std::optional holding one.
    bool Copy = CE->getConstructor()->isCopyOrMoveConstructor();
    if (CE->getNumArgs() == 1 && (Copy || isStdOptional(CE->getType())))
      return nameOf(CE->getArg(0), Vars, Depth + 1);
    return std::nullopt;
  }
  if (const auto *OC = dyn_cast<CXXOperatorCallExpr>(Inner)) {
    if (OC->getOperator() != OO_Subscript || OC->getNumArgs() != 2)
      return std::nullopt;
    std::optional<SemaphoreName> Base = nameOf(OC->getArg(0), Vars, Depth + 1);
    if (Base)
      Base->Indices.push_back(OC->getArg(1));
    return Base;
  }
  if (const auto *MC = dyn_cast<CXXMemberCallExpr>(Inner)) {
    const CXXMethodDecl *MD = MC->getMethodDecl();
    if (!MD || !MD->getIdentifier() || MD->getName() != "at" || MC->getNumArgs() == 0)
      return std::nullopt;
    std::optional<SemaphoreName> Base =
        nameOf(MC->getImplicitObjectArgument(), Vars, Depth + 1);
    if (Base)
      for (const Expr *Arg : MC->arguments())
        Base->Indices.push_back(Arg);
    return Base;
  }
  if (const auto *ASE = dyn_cast<ArraySubscriptExpr>(Inner)) {
    std::optional<SemaphoreName> Base = nameOf(ASE->getBase(), Vars, Depth + 1);
    if (Base)
      Base->Indices.push_back(ASE->getIdx());
    return Base;
  }
  std::optional<NameRoot> Root = nameRoot(Inner, Vars);
  if (!Root)
    return std::nullopt;
  if (Root->Init)
    return nameOf(Root->Init, Vars, Depth + 1);
  SemaphoreName N;
  N.Root = Root->Root;
  N.RootAt = Inner;
  return N;
}

} // namespace

/// The member \p F of the local struct \p V: what its braced initialiser
/// gives F (`Scratch s{hbm, buf, sem};`: s.sem names sem), or F itself when
/// nothing does (a semaphore default-constructed in it, made here like
/// `DmaSemaphore x;`, and like it nameless when declared in a loop). Nothing
/// for any other initialiser (a call's result, a copy of another struct: a
/// handle the function may reach another way), a struct that is assigned or
/// named other than to read its members, a reference, or a member with an
/// initialiser in its class.
/// A member of a local struct (`s.sem` of `const Scratch s{buf, sem}`), or
/// a member of a member of one (`p.kv.sem` of `const Stages p{{buf, sem}}`):
/// what initialised it. \p Chain: the members from the variable's down.
static std::optional<NameRoot> localMember(const VarDecl &V,
                                           llvm::ArrayRef<const FieldDecl *> Chain,
                                           const UnwrittenVariables &Vars) {
  if (!V.isLocalVarDecl() || V.isStaticLocal() || V.getType()->isReferenceType() ||
      !Vars.readThroughMembers(&V) || Chain.empty())
    return std::nullopt;
  for (const FieldDecl *F : Chain) {
    const auto *RD = dyn_cast<CXXRecordDecl>(F->getParent());
    if (!RD || RD->isUnion() || RD->getNumBases() != 0 || F->hasInClassInitializer())
      return std::nullopt;
  }
  auto Fresh = [&]() -> std::optional<NameRoot> {
    if (Vars.declaredInLoop(&V))
      return std::nullopt;
    return NameRoot{canonical(Chain.back()), nullptr};
  };
  const Expr *Init = V.getInit();
  for (const FieldDecl *F : Chain) {
    if (!Init)
      return Fresh();
    Init = Init->IgnoreImplicit();
    if (const auto *ILE = dyn_cast<InitListExpr>(Init)) {
      if (!ILE->isSemanticForm())
        ILE = ILE->getSemanticForm();
      unsigned Index = F->getFieldIndex();
      if (!ILE || ILE->getInitializedFieldInUnion() || Index >= ILE->getNumInits())
        return std::nullopt;
      const Expr *Part = ILE->getInit(Index)->IgnoreImplicit();
      if (const auto *CE = dyn_cast<CXXConstructExpr>(Part); CE && CE->getNumArgs() == 0)
        return Fresh();
      if (const auto *Braces = dyn_cast<InitListExpr>(Part);
          isa<ImplicitValueInitExpr>(Part) || (Braces && Braces->getNumInits() == 0))
        return Fresh();
      Init = ILE->getInit(Index);
      continue;
    }
    if (const auto *CE = dyn_cast<CXXConstructExpr>(Init);
        CE && CE->getNumArgs() == 0 && CE->getConstructor()->isTrivial())
      return Fresh();
    return std::nullopt;
  }
  return NameRoot{nullptr, Init};
}

std::optional<NameRoot> nameRoot(const Expr *Inner, const UnwrittenVariables &Vars) {
  if (const auto *ME = dyn_cast<MemberExpr>(Inner)) {
    // A member of the object a member function runs on, or of the one
    // variable through which the function reaches that member (`s.buf` of
    // `const Scratch &s`); a member reached through two objects would make
    // them one root.
    const auto *F = dyn_cast<FieldDecl>(ME->getMemberDecl());
    if (!F)
      return std::nullopt;
    const Expr *Base = ME->getBase()->IgnoreParenImpCasts();
    if (isa<MemberExpr>(Base)) {
      // A member of a member of `*this` (`b_.sem`), each member on the way
      // reached through that path only.
      if (isa<CXXThisExpr>(memberChainObject(*ME)))
        return Vars.thisMemberHolding(F) ? std::optional<NameRoot>(NameRoot{canonical(F), nullptr})
                                         : std::nullopt;
      // A member of a member of a parameter (`s.kv.sem` of `const Scratch
      // &s`), each member on the way reached through that path only.
      const VarDecl *V = Vars.holdingVariable(F);
      const VarDecl *Written = memberChainVariable(*ME);
      if (!V || !Written || Written->getCanonicalDecl() != V->getCanonicalDecl())
        return std::nullopt;
      if (isa<ParmVarDecl>(V))
        return NameRoot{canonical(F), nullptr};
      // Of a local struct of structs: what initialised the member.
      llvm::SmallVector<const FieldDecl *, 4> Chain;
      for (const MemberExpr *M = ME; M;
           M = dyn_cast<MemberExpr>(M->getBase()->IgnoreParenImpCasts())) {
        const auto *MF = dyn_cast<FieldDecl>(M->getMemberDecl());
        if (!MF || (M != ME && M->isArrow()))
          return std::nullopt;
        Chain.insert(Chain.begin(), MF);
      }
      return localMember(*V, Chain, Vars);
    }
    if (!isa<CXXThisExpr>(Base)) {
      const auto *DRE = dyn_cast<DeclRefExpr>(Base);
      const auto *V = DRE ? dyn_cast<VarDecl>(DRE->getDecl()) : nullptr;
      if (!V || Vars.fieldBase(F) != V->getCanonicalDecl())
        return std::nullopt;
      // A struct of the function's own holds what initialised it.
      if (!isa<ParmVarDecl>(V))
        return localMember(*V, {F}, Vars);
    }
    return NameRoot{canonical(F), nullptr};
  }
  const auto *DRE = dyn_cast<DeclRefExpr>(Inner);
  const auto *V = DRE ? dyn_cast<VarDecl>(DRE->getDecl()) : nullptr;
  if (!V)
    return std::nullopt;
  // A local copy of (or reference to) a semaphore or buffer: what
  // initialised it.
  // (Also a local of a lambda of the function: named at a call of the
  // lambda, where its parameters become the call's arguments.)
  if (!isa<ParmVarDecl>(V) && V->isLocalVarDecl() && V->getInit() &&
      (Vars.unwritten(V) || Vars.unwrittenInLambda(V)) && !V->getType()->isArrayType()) {
    if (!defaultConstructed(V))
      return NameRoot{nullptr, V->getInit()};
    if (Vars.declaredInLoop(V))
      return std::nullopt;
  }
  // An array made of copies of semaphores it can reach otherwise
  // (`DmaSemaphore ss[2] = {send[0], send[1]};`, a std::array of them): its
  // elements are theirs, which it does not name.
  const auto *Std = V->getType()->getAsCXXRecordDecl();
  bool Array = V->getType()->isArrayType() || (Std && Std->isInStdNamespace());
  if (Array && !isa<ParmVarDecl>(V) && V->isLocalVarDecl() && V->getInit() &&
      !defaultConstructed(V) && copiesNamedValues(V->getInit()))
    return std::nullopt;
  return NameRoot{canonical(V), nullptr};
}

bool madeHere(const ValueDecl *Root, const UnwrittenVariables &Vars) {
  const auto *V = dyn_cast_or_null<VarDecl>(Root);
  return V && !isa<ParmVarDecl>(V) && V->isLocalVarDecl() && !V->isStaticLocal() &&
         !V->getType()->isReferenceType() && Vars.unwritten(V) && !Vars.declaredInLoop(V) &&
         defaultConstructed(V);
}

bool sameExpression(const Expr *A, const Expr *B, const ASTContext &Ctx) {
  llvm::FoldingSetNodeID IA, IB;
  bareArgument(A)->Profile(IA, Ctx, /*Canonical=*/true);
  bareArgument(B)->Profile(IB, Ctx, /*Canonical=*/true);
  return IA == IB;
}

namespace {

/// The first parameter \p S reads, in the order of its children.
const ParmVarDecl *firstParameterRead(const Stmt *S) {
  if (const auto *DRE = dyn_cast<DeclRefExpr>(S))
    return dyn_cast<ParmVarDecl>(DRE->getDecl());
  for (const Stmt *Child : S->children())
    if (const ParmVarDecl *P = Child ? firstParameterRead(Child) : nullptr)
      return P;
  return nullptr;
}

/// \p E, or for a parameter of a lambda called where it is written and
/// never assigned in it (`[&](int s) { ... }(slot)`), the argument, which is
/// evaluated just before the body runs; for a formula of one such parameter
/// (`buf.at(s % 2)` in `[&](int s) { ... }(i + 1)`), the formula with the
/// argument in its place (`(i + 1) % 2`).
const Expr *throughInPlaceParameters(const Expr *E, const UnwrittenVariables &Vars,
                                     const ASTContext &Ctx, Evaluation Where) {
  for (unsigned Depth = 0; Depth < 4; ++Depth) {
    const auto *DRE = dyn_cast_or_null<DeclRefExpr>(bareArgument(E));
    const Expr *Formula = nullptr;
    const ParmVarDecl *P = DRE ? dyn_cast<ParmVarDecl>(DRE->getDecl()) : nullptr;
    if (!DRE && E) {
      // The parameter the formula reads decides whose formula it is.
      Formula = bareArgument(E)->IgnoreParens();
      if (const ParmVarDecl *Read = firstParameterRead(Formula))
        P = formulaParameter(Formula, Vars, Ctx, Read->getDeclContext());
    }
    const Expr *Arg = P ? Vars.inPlaceArgument(P) : nullptr;
    if (!Arg || !Vars.unwrittenInLambda(P) || !P->getType()->isIntegralOrEnumerationType() ||
        !Vars.invariant(Arg, Where))
      return E;
    if (!Formula) {
      E = Arg;
      continue;
    }
    const Expr *Value = substituted(Formula, Arg, Ctx);
    return Value ? Value : E;
  }
  return E;
}

/// \p E, or what initialised it when it names an integer local of the
/// function that is never written and whose initialiser has the same value
/// wherever \p E is evaluated (`const int next = slot == 0 ? 1 : 0;`): then
/// `next` and `slot` compare as the expressions they stand for. A local that
/// copies something that changes (`const int slot = *slot_ref;`) stays a
/// name of its own, which is invariant where its initialiser is not.
const Expr *expandLocal(const Expr *E, const UnwrittenVariables &Vars, Evaluation Where) {
  for (unsigned Depth = 0; Depth < 4; ++Depth) {
    const auto *DRE = dyn_cast_or_null<DeclRefExpr>(bareArgument(E));
    const auto *V = DRE ? dyn_cast<VarDecl>(DRE->getDecl()) : nullptr;
    if (!V || isa<ParmVarDecl>(V) || !V->isLocalVarDecl() || !V->getInit() ||
        !Vars.unwritten(V) || !V->getType()->isIntegralOrEnumerationType() ||
        !Vars.invariant(V->getInit(), Where))
      return E;
    E = V->getInit();
  }
  return E;
}

} // namespace

/// `(e + c) % m` against `(e + d) % m` (either offset may be 0): remainders
/// of one modulus, the same when c == d and different when c - d is not a
/// multiple of m. (C++'s remainder takes the dividend's sign: equal
/// remainders of x and y mean x - y is a multiple of m, whatever their
/// signs, but remainders of values a multiple of m apart need not be equal,
/// so that is all this says.)
static IndexRelation compareRemainders(const Expr *A, const Expr *B, const ASTContext &Ctx) {
  const auto *RA = dyn_cast<BinaryOperator>(bareArgument(A));
  const auto *RB = dyn_cast<BinaryOperator>(bareArgument(B));
  if (!RA || !RB || RA->getOpcode() != BO_Rem || RB->getOpcode() != BO_Rem)
    return IndexRelation::Unknown;
  std::optional<int64_t> MA = constantInt(RA->getRHS(), Ctx), MB = constantInt(RB->getRHS(), Ctx);
  if (!MA || !MB || *MA != *MB || *MA <= 1 || *MA > INT32_MAX)
    return IndexRelation::Unknown;
  std::optional<Affine> FA = affine(RA->getLHS(), Ctx), FB = affine(RB->getLHS(), Ctx);
  if (!FA || !FB || !FA->Base || !FB->Base || !sameExpression(FA->Base, FB->Base, Ctx))
    return IndexRelation::Unknown;
  if (FA->Offset == FB->Offset)
    return IndexRelation::Same;
  return (FA->Offset - FB->Offset) % *MA != 0 ? IndexRelation::Different : IndexRelation::Unknown;
}

static IndexRelation compareIndicesAsWritten(const Expr *A, const Expr *B,
                                             const UnwrittenVariables &Vars,
                                             const ASTContext &Ctx, Evaluation Where) {
  std::optional<int64_t> CA = constantInt(A, Ctx), CB = constantInt(B, Ctx);
  if (CA && CB)
    return *CA == *CB ? IndexRelation::Same : IndexRelation::Different;
  // A variable may hold another value where the other index is evaluated.
  if (!Vars.invariant(A, Where) || !Vars.invariant(B, Where))
    return IndexRelation::Unknown;
  std::optional<Affine> FA = affine(A, Ctx), FB = affine(B, Ctx);
  if (FA && FB && FA->Base && FB->Base && sameExpression(FA->Base, FB->Base, Ctx))
    return FA->Offset == FB->Offset ? IndexRelation::Same : IndexRelation::Different;
  if (sameExpression(A, B, Ctx))
    return IndexRelation::Same;
  if (isOtherSlot(A, B, Ctx) || isOtherSlot(B, A, Ctx))
    return IndexRelation::Different;
  return compareRemainders(A, B, Ctx);
}

IndexRelation compareIndices(const Expr *A, const Expr *B, const UnwrittenVariables &Vars,
                             const ASTContext &Ctx, Evaluation Where) {
  // An index the caller of a helper passed that the model cannot name.
  if (!A || !B)
    return IndexRelation::Unknown;
  A = widened(throughInPlaceParameters(A, Vars, Ctx, Where), Ctx);
  B = widened(throughInPlaceParameters(B, Vars, Ctx, Where), Ctx);
  // As written, then with either or both locals read as what initialised
  // them: each is the same value, so any answer that is not unknown holds.
  const Expr *EA = expandLocal(A, Vars, Where), *EB = expandLocal(B, Vars, Where);
  IndexRelation R = compareIndicesAsWritten(A, B, Vars, Ctx, Where);
  if (R == IndexRelation::Unknown && EA != A)
    R = compareIndicesAsWritten(EA, B, Vars, Ctx, Where);
  if (R == IndexRelation::Unknown && EB != B)
    R = compareIndicesAsWritten(A, EB, Vars, Ctx, Where);
  if (R == IndexRelation::Unknown && EA != A && EB != B)
    R = compareIndicesAsWritten(EA, EB, Vars, Ctx, Where);
  return R;
}

std::optional<int64_t> constantDifference(const Expr *A, const Expr *B,
                                          const UnwrittenVariables &Vars, const ASTContext &Ctx,
                                          Evaluation Where) {
  if (!A || !B)
    return std::nullopt;
  auto Difference = [&](const Expr *X, const Expr *Y) -> std::optional<int64_t> {
    std::optional<Affine> FA = affine(X, Ctx), FB = affine(Y, Ctx);
    if (!FA || !FB)
      return std::nullopt;
    if (!FA->Base && !FB->Base)
      return FB->Offset - FA->Offset;
    if (!FA->Base || !FB->Base || !Vars.invariant(FA->Base, Where) ||
        !sameExpression(FA->Base, FB->Base, Ctx))
      return std::nullopt;
    return FB->Offset - FA->Offset;
  };
  const Expr *EA = expandLocal(A, Vars, Where), *EB = expandLocal(B, Vars, Where);
  std::optional<int64_t> D = Difference(A, B);
  if (!D && EA != A)
    D = Difference(EA, B);
  if (!D && EB != B)
    D = Difference(A, EB);
  if (!D && EA != A && EB != B)
    D = Difference(EA, EB);
  return D;
}

UnwrittenVariables::UnwrittenVariables(const FunctionDecl &FD, const ApiIndex &Api)
    : FD(FD), Api(Api) {
  WriteFinder Finder;
  Finder.This = FD.getCanonicalDecl();
  if (Stmt *Body = FD.getBody())
    Finder.TraverseStmt(Body);
  Finder.finish();
  Written = std::move(Finder.Written);
  InLoop = std::move(Finder.InLoop);
  HasGoto = Finder.HasGoto;
  Rebound = std::move(Finder.Rebound);
  OwnLambdas = std::move(Finder.OwnLambdas);
  for (auto &[P, Arg] : Finder.ParameterArguments)
    if (OwnLambdas.contains(P->getDeclContext()))
      InPlaceArguments[P] = Arg;
  FieldBases = std::move(Finder.FieldBases);
  ReadThroughMembers = std::move(Finder.ReadThroughMembers);
  NamedWhole = std::move(Finder.NamedWhole);
  FieldsNamedWhole = std::move(Finder.FieldsNamedWhole);
  for (auto &[V, Writes] : Finder.Assigned)
    if (ownVariable(V) && !V->isStaticLocal() &&
        V->getType()->isIntegralOrEnumerationType() && !V->getType().isVolatileQualified())
      Assigned[V] = std::move(Writes);
}

UnwrittenVariables UnwrittenVariables::steadyUntil(const Stmt *Loop, const Stmt *Until,
                                                   const ParentMap &PM,
                                                   const SourceManager &SM) const {
  UnwrittenVariables Out = *this;
  const Stmt *Body = Loop ? loopBody(Loop) : FD.getBody();
  if (!mayBeSteady() || !Body || !Until)
    return Out;
  // The statement of the body that holds Until.
  const Stmt *Last = Until;
  while (Last && Last != Body && PM.getParent(Last) != Body)
    Last = PM.getParent(Last);
  if (!Last)
    return Out;
  const auto *Block = dyn_cast<CompoundStmt>(Body);
  // Whether no run of one iteration reaches the write \p W before Last ends.
  auto After = [&](const Expr *W) {
    const Stmt *Child = W;
    for (const Stmt *Parent = PM.getParent(W); Parent;
         Child = Parent, Parent = PM.getParent(Parent)) {
      if (Parent == Body)
        return Block && Child != Last &&
               SM.isBeforeInTranslationUnit(Last->getEndLoc(), Child->getBeginLoc());
      if (Parent == Loop)
        return true; // Its header: before or after the body, not in it.
    }
    return Loop != nullptr; // Outside the loop.
  };
  for (const auto &[V, Writes] : Assigned)
    if (llvm::all_of(Writes, After))
      Out.Steady.insert(V);
  Out.WindowBegin = Body->getBeginLoc();
  Out.WindowEnd = Last->getEndLoc();
  Out.SM = &SM;
  return Out;
}

bool UnwrittenVariables::steadyAt(const DeclRefExpr *DRE) const {
  const auto *V = dyn_cast<VarDecl>(DRE->getDecl());
  if (!SM || !V || !Steady.contains(V))
    return false;
  SourceLocation At = SM->getExpansionLoc(DRE->getBeginLoc());
  return !SM->isBeforeInTranslationUnit(At, SM->getExpansionLoc(WindowBegin)) &&
         !SM->isBeforeInTranslationUnit(SM->getExpansionLoc(WindowEnd), At);
}

bool UnwrittenVariables::ownVariable(const VarDecl *V) const {
  return V->getDeclContext() == &FD || OwnLambdas.contains(V->getDeclContext());
}

const Expr *UnwrittenVariables::builtValue(const Expr *E) const {
  llvm::SmallVector<const FieldDecl *, 2> Path;
  const VarDecl *V = fieldPathVariable(E, Path);
  if (!V || !V->isLocalVarDecl() || V->isStaticLocal() || V->getType()->isReferenceType() ||
      !V->getInit() || !ownVariable(V))
    return nullptr;
  // The member keeps its value when the variable does, or when the function
  // names the variable only to reach members and this member only to read
  // it (`sl.c.start()` beside `if (sl.remote)`).
  const VarDecl *Holder = Path.empty() ? nullptr : holdingVariable(Path.back());
  if (!unwritten(V) && !V->getType().isConstQualified() &&
      !(Holder && Holder->getCanonicalDecl() == V->getCanonicalDecl() && !mentionedWhole(V)))
    return nullptr;
  const Expr *Built = V->getInit();
  for (const FieldDecl *Field : Path) {
    const auto *RD = dyn_cast<CXXRecordDecl>(Field->getParent());
    if (!RD || RD->getNumBases() != 0 || RD->isUnion() ||
        !isa<InitListExpr>(stripWrappers(Built)->IgnoreParenImpCasts()))
      return nullptr;
    Built = partBuilt(Built, Field->getFieldIndex());
    if (!Built)
      return nullptr;
  }
  return Built;
}

const Decl *UnwrittenVariables::chainEnd(const FieldDecl *F, const FieldDecl *&Outermost) const {
  Outermost = nullptr;
  for (unsigned Depth = 0; F && Depth < 4; ++Depth) {
    const Decl *Base = fieldBase(F);
    Outermost = F;
    const auto *Next = dyn_cast_or_null<FieldDecl>(Base);
    if (!Next)
      return Base;
    if (mentionedWhole(Next))
      return nullptr;
    F = Next;
  }
  return nullptr;
}

const VarDecl *UnwrittenVariables::holdingVariable(const FieldDecl *F) const {
  const FieldDecl *Outermost;
  return dyn_cast_or_null<VarDecl>(chainEnd(F, Outermost));
}

const FieldDecl *UnwrittenVariables::thisMemberHolding(const FieldDecl *F) const {
  const FieldDecl *Outermost;
  const Decl *End = chainEnd(F, Outermost);
  return End && End == FD.getCanonicalDecl() && Outermost != F ? Outermost : nullptr;
}

bool UnwrittenVariables::unwritten(const VarDecl *V) const {
  if (!V || !ownVariable(V) || V->getType().isVolatileQualified())
    return false;
  return !Written.contains(V);
}

/// Whether \p V is declared in a lambda of \p FD (its class is declared in
/// the function), whose code the walk sees.
static bool inLambdaOf(const VarDecl *V, const FunctionDecl &FD) {
  const auto *Op = V ? dyn_cast<CXXMethodDecl>(V->getDeclContext()) : nullptr;
  if (!Op || !Op->getParent()->isLambda())
    return false;
  const DeclContext *DC = Op->getParent()->getDeclContext();
  while (DC && DC != &FD && !DC->isFileContext())
    DC = DC->getParent();
  return DC == &FD;
}

bool UnwrittenVariables::unwrittenInLambda(const VarDecl *V) const {
  return inLambdaOf(V, FD) && !V->getType().isVolatileQualified() && !Written.contains(V);
}

bool UnwrittenVariables::keepsObject(const VarDecl *V) const {
  return V && (V->getDeclContext() == &FD || inLambdaOf(V, FD)) && !Rebound.contains(V);
}

bool UnwrittenVariables::invariant(const Expr *E, Evaluation Where) const {
  E = bareArgument(E);
  if (!E)
    return false;
  if (isa<IntegerLiteral, CharacterLiteral, CXXBoolLiteralExpr, StringLiteral>(E))
    return true;
  if (const auto *DRE = dyn_cast<DeclRefExpr>(E)) {
    if (isa<EnumConstantDecl>(DRE->getDecl()))
      return true;
    const auto *V = dyn_cast<VarDecl>(DRE->getDecl());
    if (!V)
      return false;
    if (V->getType().isConstQualified() && V->hasGlobalStorage() && V->getInit())
      return true;
    if (V->getType()->isReferenceType())
      return false;
    if (Where == Evaluation::SameIteration && steadyAt(DRE))
      return true;
    return unwritten(V) && (Where == Evaluation::SameIteration || !InLoop.contains(V));
  }
  if (const auto *UO = dyn_cast<UnaryOperator>(E)) {
    switch (UO->getOpcode()) {
    case UO_Minus:
    case UO_Plus:
    case UO_Not:
    case UO_LNot:
      return invariant(UO->getSubExpr(), Where);
    default:
      return false;
    }
  }
  if (const auto *BO = dyn_cast<BinaryOperator>(E))
    return !BO->isAssignmentOp() && BO->getOpcode() != BO_Comma &&
           invariant(BO->getLHS(), Where) && invariant(BO->getRHS(), Where);
  if (const auto *CO = dyn_cast<ConditionalOperator>(E))
    return invariant(CO->getCond(), Where) && invariant(CO->getTrueExpr(), Where) &&
           invariant(CO->getFalseExpr(), Where);
  if (const auto *Call = dyn_cast<CallExpr>(E)) {
    const FunctionDecl *Callee = Call->getDirectCallee();
    if (!Callee || Api.roleOf(Callee) != ApiRole::DeviceQuery)
      return false;
    for (const Expr *Arg : Call->arguments())
      if (!invariant(Arg, Where))
        return false;
    return true;
  }
  return false;
}

std::optional<SemaphoreName> semaphoreName(const Expr *E, const UnwrittenVariables &Vars) {
  std::optional<SemaphoreName> N = nameOf(E, Vars, 0);
  if (N) {
    N->Spelling = E;
    if (const auto *DA = dyn_cast<CXXDefaultArgExpr>(E))
      N->Spelling = DA->getExpr();
  }
  return N;
}

SemaphoreRelation compareSemaphores(const SemaphoreName &A, const SemaphoreName &B,
                                    const UnwrittenVariables &Vars, const ASTContext &Ctx,
                                    Evaluation Where) {
  if (A.Root != B.Root)
    return SemaphoreRelation::OtherRoot;
  if (A.Indices.size() != B.Indices.size())
    return SemaphoreRelation::Unknown;
  bool AllSame = true;
  for (size_t I = 0; I < A.Indices.size(); ++I)
    switch (compareIndices(A.Indices[I], B.Indices[I], Vars, Ctx, Where)) {
    case IndexRelation::Different:
      return SemaphoreRelation::Disjoint;
    case IndexRelation::Unknown:
      AllSame = false;
      break;
    case IndexRelation::Same:
      break;
    }
  return AllSame ? SemaphoreRelation::Same : SemaphoreRelation::Unknown;
}

CopySemaphores copySemaphores(const Expr *Copy, const ApiIndex &Api) {
  CopySemaphores Out;
  if (!Copy)
    return Out;
  const ApiModel &M = Api.model();
  llvm::SmallVector<const Expr *, 8> Args = callArguments(Copy);
  auto At = [&](unsigned I) -> const Expr * { return I < Args.size() ? Args[I] : nullptr; };
  if (const auto *CE = dyn_cast<CXXConstructExpr>(Copy)) {
    if (!Api.isDescriptorConstructor(CE->getConstructor()))
      return Out;
    Out.Receive = At(M.CtorDstSemParam);
    if (argumentEngagement(Args, M.CtorSrcSemParam) == Engagement::Engaged)
      Out.Send = At(M.CtorSrcSemParam);
    return Out;
  }
  const auto *Call = dyn_cast<CallExpr>(Copy);
  if (!Call)
    return Out;
  switch (Api.roleOf(Call->getDirectCallee())) {
  case ApiRole::RemoteFactory:
  case ApiRole::StartedRemoteFactory:
    Out.Send = At(M.RemoteSendSemParam);
    Out.Receive = At(M.RemoteRecvSemParam);
    break;
  case ApiRole::LocalFactory:
  case ApiRole::StartedLocalFactory:
    Out.Receive = At(M.LocalSemParam);
    break;
  default:
    break;
  }
  return Out;
}

} // namespace dmalint
