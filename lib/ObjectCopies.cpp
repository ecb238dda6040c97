//===- ObjectCopies.cpp - Copies held by objects of the kernel's own classes ===//
//
// A class that keeps copies in its members (a port of Pallas'
// MultiPageAsyncCopyDescriptor: a constructor that builds one copy per page
// into a vector member, start() and wait_and_get_loaded() members that start
// or wait them all) is a helper in parts. The constructor's summary names
// the copies it stores (ProtocolSummary::Stored, in its parameters); a member
// function's summary has starts and waits at paths below its object. They
// meet at a member call on a local the function constructs and only ever
// calls member functions on: there the object's copies are the ones its
// constructor made at that construction, named with its arguments.
//
//===----------------------------------------------------------------------===//
#include "Analyzer.h"
#include "dmalint/AnalysisCache.h"
#include "dmalint/Arguments.h"
#include "dmalint/AstUtil.h"
#include "clang/AST/RecursiveASTVisitor.h"

using namespace clang;

namespace dmalint {

bool ProtocolSummary::hasObjectEntries() const {
  auto OnMember = [](const std::optional<SummaryBuffer> &B) { return B && B->Member; };
  return llvm::any_of(Starts,
                      [&](const HelperStart &H) {
                        return H.ObjectPath || H.Receive.Member || OnMember(H.Target);
                      }) ||
         llvm::any_of(Waits,
                      [&](const HelperWait &H) {
                        return H.ObjectPath || OnMember(H.Target) || OnMember(H.Source) ||
                               llvm::any_of(H.Semaphores, [](const SummarySemaphore &S) {
                                 return S.Member != nullptr;
                               });
                      }) ||
         (Returned && (Returned->Receive.Member || OnMember(Returned->Source) ||
                       OnMember(Returned->Target)));
}

namespace {

/// The local variables of a body that are mentioned only as the object of
/// member calls, with the member functions called on each. A mention in a
/// lambda is another (the lambda may run where the analysis does not see).
class ObjectMentions : public RecursiveASTVisitor<ObjectMentions> {
public:
  bool shouldVisitImplicitCode() const { return true; }
  bool TraverseLambdaExpr(LambdaExpr *L) {
    ++InLambda;
    bool Result = RecursiveASTVisitor::TraverseLambdaExpr(L);
    --InLambda;
    return Result;
  }
  bool VisitCXXMemberCallExpr(CXXMemberCallExpr *MC) {
    // (A const member function's object is behind a cast adding const.)
    const auto *DRE = dyn_cast_or_null<DeclRefExpr>(
        MC->getImplicitObjectArgument()
            ? MC->getImplicitObjectArgument()->IgnoreParenImpCasts()
            : nullptr);
    const ValueDecl *V = DRE ? DRE->getDecl() : nullptr;
    if (!isa_and_nonnull<VarDecl, BindingDecl>(V))
      return true;
    AsObject.insert(DRE);
    Uses.Methods[cast<ValueDecl>(V->getCanonicalDecl())].push_back(MC->getMethodDecl());
    return true;
  }
  bool VisitDeclRefExpr(DeclRefExpr *DRE) {
    const ValueDecl *V = DRE->getDecl();
    if (isa<VarDecl, BindingDecl>(V)) {
      All.push_back(DRE);
      if (InLambda > 0)
        Uses.Other.insert(cast<ValueDecl>(V->getCanonicalDecl()));
    }
    return true;
  }
  // The calls of the function's lambdas, and the locals they initialise.
  bool VisitCXXOperatorCallExpr(CXXOperatorCallExpr *Call) {
    if (std::optional<LambdaCall> C = lambdaCall(Call))
      ++Uses.LambdaCalls[C->Lambda];
    return true;
  }
  bool VisitVarDecl(VarDecl *V) {
    if (std::optional<LambdaCall> C = V->getInit() ? lambdaCall(V->getInit()) : std::nullopt)
      Uses.LambdaInits[C->Lambda].push_back(V);
    return true;
  }
  ObjectUses finish() {
    for (const DeclRefExpr *DRE : All)
      if (!AsObject.contains(DRE))
        Uses.Other.insert(cast<ValueDecl>(DRE->getDecl()->getCanonicalDecl()));
    return std::move(Uses);
  }

private:
  llvm::DenseSet<const DeclRefExpr *> AsObject;
  std::vector<const DeclRefExpr *> All;
  ObjectUses Uses;
  unsigned InLambda = 0;
};

/// Whether destroying an object of \p RD may run code of the translation
/// unit (a destructor that waits what the object holds).
bool userDestruction(const CXXRecordDecl &RD) {
  if (const CXXDestructorDecl *D = RD.getDestructor(); D && D->isUserProvided())
    return true;
  for (const FieldDecl *F : RD.fields()) {
    const CXXRecordDecl *Member = F->getType()->getBaseElementTypeUnsafe()->getAsCXXRecordDecl();
    if (Member && !Member->isInStdNamespace())
      if (const CXXDestructorDecl *D = Member->getDestructor(); D && D->isUserProvided())
        return true;
  }
  for (const CXXBaseSpecifier &B : RD.bases())
    if (const CXXRecordDecl *Base = B.getType()->getAsCXXRecordDecl())
      if (userDestruction(*Base))
        return true;
  return false;
}

/// The mentions of `this->member` in a body, and those that only read it.
class MemberMentions : public RecursiveASTVisitor<MemberMentions> {
public:
  bool VisitMemberExpr(MemberExpr *ME) {
    const Expr *Base = ME->getBase()->IgnoreParenImpCasts();
    if (const auto *This = dyn_cast<CXXThisExpr>(Base)) {
      MemberBases.insert(This);
      if (const auto *F = dyn_cast<FieldDecl>(ME->getMemberDecl()))
        Mentions.push_back({ME, F});
      else if (const auto *MD = dyn_cast<CXXMethodDecl>(ME->getMemberDecl()))
        Methods.push_back(MD);
      else
        OtherMember = true;
    } else if (const auto *Inner = dyn_cast<MemberExpr>(Base); Inner && !ME->isArrow()) {
      // Visited before the member it is reached through (`b_` of `b_.sem`).
      ChainBases.push_back({ME, Inner});
    }
    return true;
  }
  // In a template's body: a member its class does not declare (of a
  // dependent base, say), which may be anything.
  bool VisitCXXDependentScopeMemberExpr(CXXDependentScopeMemberExpr *) {
    Any = true;
    return true;
  }
  bool VisitCXXThisExpr(CXXThisExpr *This) {
    // Visited after the member expression above it: `*this` or `this`
    // handed anywhere else.
    if (!MemberBases.contains(This))
      Any = true;
    return true;
  }
  bool VisitStmt(Stmt *S) {
    if (const Expr *Read = onlyReadOperand(S))
      markRead(Read);
    return true;
  }

  llvm::DenseSet<const FieldDecl *> written() {
    // A member reached only to read a member of it (`b_` of `b_.sem` handed
    // by value, `b_.buf.at(i)`) is read. Outer members come first.
    for (auto [ME, Inner] : ChainBases)
      if (Reads.contains(ME))
        Reads.insert(Inner);
    llvm::DenseSet<const FieldDecl *> Out;
    for (auto [ME, F] : Mentions)
      if (!Reads.contains(ME))
        Out.insert(F);
    return Out;
  }
  /// The members of `*this` named directly (`slot_`, not `sem` of `b_.sem`).
  llvm::SmallVector<const FieldDecl *, 8> fields() const {
    llvm::SmallVector<const FieldDecl *, 8> Out;
    for (auto [ME, F] : Mentions)
      Out.push_back(F);
    return Out;
  }
  bool Any = false;
  /// The member functions called on `*this`.
  std::vector<const CXXMethodDecl *> Methods;
  /// A member of `*this` that is neither a field nor a member function.
  bool OtherMember = false;

private:
  void markRead(const Expr *E) {
    // `sems_[slot]` of a member `DmaSemaphore sems_[2]` reads sems_.
    if (const auto *ME =
            dyn_cast_or_null<MemberExpr>(E ? arrayOfElement(E->IgnoreParenImpCasts()) : nullptr))
      Reads.insert(ME);
  }
  llvm::DenseSet<const CXXThisExpr *> MemberBases;
  llvm::DenseSet<const MemberExpr *> Reads;
  std::vector<std::pair<const MemberExpr *, const FieldDecl *>> Mentions;
  /// Each member of a member, and the member it is reached through.
  std::vector<std::pair<const MemberExpr *, const MemberExpr *>> ChainBases;
};

void shift(SummaryTerm &T, unsigned By) {
  if (T.Param >= 0)
    T.Param += static_cast<int>(By);
}

SummarySemaphore shifted(SummarySemaphore S, unsigned By) {
  S.Param += By;
  for (SummaryTerm &T : S.Indices)
    shift(T, By);
  return S;
}

std::optional<SummaryBuffer> shifted(std::optional<SummaryBuffer> B, unsigned By) {
  if (!B)
    return B;
  B->Param += By;
  for (SummaryBuffer::Step &Step : B->Steps) {
    shift(Step.Start, By);
    shift(Step.Size, By);
  }
  return B;
}

} // namespace

/// \p Member (a name rooted at a member) with the root replaced by what the
/// object's constructor set the member to (\p Init), whose terms are the
/// constructor's, \p By after the call's.
static std::optional<SummarySemaphore> throughMember(const SummarySemaphore &Member,
                                              const MemberInit &Init, unsigned By) {
  if (!Init.Semaphore)
    return std::nullopt;
  SummarySemaphore Out = shifted(*Init.Semaphore, By);
  Out.Indices.append(Member.Indices.begin(), Member.Indices.end());
  return Out;
}

static std::optional<SummaryBuffer> throughMember(const SummaryBuffer &Member,
                                                  const MemberInit &Init,
                                           unsigned By) {
  if (!Init.Buffer)
    return std::nullopt;
  std::optional<SummaryBuffer> Out = shifted(Init.Buffer, By);
  if (!Out->Inexact)
    Out->Steps.append(Member.Steps.begin(), Member.Steps.end());
  Out->Inexact |= Member.Inexact;
  return Out;
}

/// What a constructor set the member \p F to, among \p Inits.
static const MemberInit *memberInitOf(llvm::ArrayRef<MemberInit> Inits, const FieldDecl *F) {
  for (const MemberInit &I : Inits)
    if (I.Field == F)
      return &I;
  return nullptr;
}

/// \p S named through the member init that sets its member, if it names
/// one; false, \p S unchanged, where no init sets it so.
static bool semaphoreThroughMembers(SummarySemaphore &S, llvm::ArrayRef<MemberInit> Inits,
                                    unsigned By) {
  if (!S.Member)
    return true;
  const MemberInit *Init = memberInitOf(Inits, S.Member);
  std::optional<SummarySemaphore> Named = Init ? throughMember(S, *Init, By) : std::nullopt;
  if (Named)
    S = std::move(*Named);
  return Named.has_value();
}

/// The same for a buffer; \p B is reset where no init sets its member so.
static bool bufferThroughMembers(std::optional<SummaryBuffer> &B,
                                 llvm::ArrayRef<MemberInit> Inits, unsigned By) {
  if (!B || !B->Member)
    return true;
  const MemberInit *Init = memberInitOf(Inits, B->Member);
  B = Init ? throughMember(*B, *Init, By) : std::nullopt;
  return B.has_value();
}

/// \p R with each member it names replaced by what \p Inits set it to (in
/// the constructor's terms, \p By after the call's); false, and \p R partly
/// rewritten, where one is not set so.
static bool copyThroughMembers(ReturnedCopy &R, llvm::ArrayRef<MemberInit> Inits, unsigned By) {
  return semaphoreThroughMembers(R.Receive, Inits, By) &&
         bufferThroughMembers(R.Target, Inits, By) && bufferThroughMembers(R.Source, Inits, By) &&
         (!R.Send || semaphoreThroughMembers(*R.Send, Inits, By));
}

void resolveOwnMembers(ProtocolSummary &P) {
  auto Semaphore = [&](SummarySemaphore &S) {
    return semaphoreThroughMembers(S, P.MemberInits, 0);
  };
  auto Buffer = [&](std::optional<SummaryBuffer> &B) {
    return bufferThroughMembers(B, P.MemberInits, 0);
  };
  llvm::erase_if(P.Stored, [&](StoredCopy &S) {
    return !Semaphore(S.Copy.Receive) || !Buffer(S.Copy.Target) || !Buffer(S.Copy.Source);
  });
  if (P.Returned && !copyThroughMembers(*P.Returned, P.MemberInits, 0))
    P.Returned.reset();
  for (auto &[Kind, R] : P.ReturnedPicked)
    if (!copyThroughMembers(R, P.MemberInits, 0)) {
      P.ReturnedPicked.clear();
      break;
    }
  llvm::erase_if(P.Starts, [&](HelperStart &H) {
    if (!Semaphore(H.Receive))
      return true;
    Buffer(H.Target);
    return false;
  });
  for (HelperWait &H : P.Waits) {
    if (!llvm::all_of(H.Semaphores, Semaphore)) {
      H.Semaphores.clear();
      H.Unknown = true;
    }
    if (!Buffer(H.Target) || H.Unknown)
      H.Exact = false;
    Buffer(H.Source);
  }
}

llvm::DenseSet<const FieldDecl *> membersWritten(const Stmt *Body, bool &Any) {
  MemberMentions Walk;
  Walk.TraverseStmt(const_cast<Stmt *>(Body));
  Any = Walk.Any;
  return Walk.written();
}

/// A member of arithmetic, enumeration or pointer-to-arithmetic type: what
/// it holds is no handle of the API (reading it hands none on).
static bool plainMember(const FieldDecl &F) {
  QualType T = F.getType().getNonReferenceType();
  return T->isArithmeticType() || T->isEnumeralType() ||
         (T->isPointerType() && T->getPointeeType()->isArithmeticType());
}

bool mayHoldSemaphore(const FieldDecl &F, const ApiIndex &Api) {
  QualType T = F.getType().getNonReferenceType();
  return !plainMember(F) && !Api.isBufferType(T) &&
         !AnalysisCache::current().types(Api).holdsDescriptors(T);
}

/// The body in its class template of \p MD, a member function of a
/// specialization that was not instantiated (no code here calls it), when
/// the template defines it in the class.
static const FunctionDecl *uninstantiatedPattern(const CXXMethodDecl &MD) {
  const FunctionDecl *Pattern = MD.getTemplateInstantiationPattern();
  const FunctionDecl *Definition = nullptr;
  if (!Pattern || MD.isVirtual() || !Pattern->hasBody(Definition))
    return nullptr;
  return Definition;
}

/// The field of \p RD at \p Index (a specialization's fields are its
/// template's, in order).
static const FieldDecl *fieldAt(const CXXRecordDecl &RD, unsigned Index) {
  for (const FieldDecl *F : RD.fields())
    if (F->getFieldIndex() == Index)
      return F;
  return nullptr;
}

/// Whether no member function of \p RD but its constructors replaces the
/// copy member \p Copy: every mention of it reads it, or calls the API on
/// it (start and wait keep its kind), and every member function has its
/// body here. (writtenOutsideConstructors counts a call of a member function
/// that is not const as a write.)
static bool copyKeptOutsideConstructors(const CXXRecordDecl &RD, const FieldDecl &Copy,
                                        const ApiIndex &Api) {
  for (const CXXMethodDecl *MD : RD.methods()) {
    if (isa<CXXConstructorDecl, CXXDestructorDecl>(MD) || MD->isStatic() || MD->isDeleted() ||
        MD->isImplicit())
      continue;
    const FunctionDecl *Definition = nullptr;
    if (!MD->hasBody(Definition) || MD->isDependentContext())
      return false;
    // Each mention with what it is the operand of.
    llvm::SmallVector<std::pair<const Stmt *, const Stmt *>, 32> Work{{Definition->getBody(),
                                                                      nullptr}};
    while (!Work.empty()) {
      auto [S, Parent] = Work.pop_back_val();
      if (!S)
        continue;
      if (const auto *ME = dyn_cast<MemberExpr>(S);
          ME && ME->getMemberDecl() == &Copy &&
          isa<CXXThisExpr>(ME->getBase()->IgnoreParenImpCasts())) {
        const auto *Call = dyn_cast_or_null<MemberExpr>(Parent);
        bool ApiCall = Call && isa<CXXMethodDecl>(Call->getMemberDecl()) &&
                       Api.roleOf(cast<CXXMethodDecl>(Call->getMemberDecl())) != ApiRole::None;
        bool Read = Parent && onlyReadOperand(Parent) == ME;
        if (!ApiCall && !Read)
          return false;
      }
      for (const Stmt *Child : S->children())
        Work.push_back({Child, S});
    }
  }
  return true;
}

const llvm::SmallVector<std::pair<const FieldDecl *, const FieldDecl *>, 1> &
AnalysisCache::remotenessMembers(const CXXRecordDecl &RD, const ApiIndex &Api,
                                 ASTContext &Ctx) {
  auto [It, New] = RemotenessMembers.try_emplace(&RD);
  if (!New || !RD.hasDefinition())
    return It->second;
  llvm::SmallVector<std::pair<const FieldDecl *, const FieldDecl *>, 1> Found;
  for (const FieldDecl *Flag : RD.fields()) {
    if (!Flag->getType()->isBooleanType() || writtenOutsideConstructors(*Flag) ||
        flagWrittenUnseen(*Flag, Ctx))
      continue;
    // The copy every constructor tests into it.
    const FieldDecl *Copy = nullptr;
    bool Every = true, AnyConstructor = false;
    for (const CXXConstructorDecl *Ctor : RD.ctors()) {
      if (Ctor->isDeleted())
        continue;
      // An implicit copy or move copies both members: the relation holds
      // in the copy where it held in the original.
      if (!Ctor->isUserProvided() && Ctor->isCopyOrMoveConstructor())
        continue;
      const FunctionDecl *Definition = nullptr;
      if (!Ctor->isDefined(Definition) || !Definition->getBody() ||
          cast<CXXConstructorDecl>(Definition)->isDelegatingConstructor()) {
        Every = false;
        break;
      }
      AnyConstructor = true;
      const auto *Def = cast<CXXConstructorDecl>(Definition);
      const Expr *Init = nullptr;
      for (const CXXCtorInitializer *I : Def->inits())
        if (I->getMember() == Flag)
          Init = I->getInit();
      if (const auto *Default = dyn_cast_or_null<CXXDefaultInitExpr>(Init ? Init->IgnoreImplicit()
                                                                           : nullptr))
        Init = Default->getExpr();
      const auto *Test =
          Init ? dyn_cast<CXXMemberCallExpr>(Init->IgnoreParenImpCasts()) : nullptr;
      const auto *Member =
          Test && Api.roleOf(Test->getMethodDecl()) == ApiRole::IsRemote
              ? dyn_cast<MemberExpr>(Test->getImplicitObjectArgument()->IgnoreParenImpCasts())
              : nullptr;
      const auto *Tested = Member && isa<CXXThisExpr>(Member->getBase()->IgnoreParenImpCasts())
                               ? dyn_cast<FieldDecl>(Member->getMemberDecl())
                               : nullptr;
      // Or a constant that is the kind of the one copy member this
      // constructor builds with a factory (`desc_(make_async_copy(...)),
      // remote_(false)` beside `desc_(make_async_remote_copy(...)),
      // remote_(true)`).
      bool Constant = false;
      if (!Tested && Init && !Init->isValueDependent() &&
          Init->EvaluateAsBooleanCondition(Constant, Ctx))
        for (const CXXCtorInitializer *I : Def->inits()) {
          const FieldDecl *F = I->getMember();
          const auto *Made = F && I->getInit() && Api.isDescriptorType(F->getType())
                                 ? dyn_cast<CallExpr>(stripWrappers(I->getInit()))
                                 : nullptr;
          ApiRole Role = Made ? Api.roleOf(Made->getDirectCallee()) : ApiRole::None;
          bool Remote = Role == ApiRole::RemoteFactory || Role == ApiRole::StartedRemoteFactory;
          bool Local = Role == ApiRole::LocalFactory || Role == ApiRole::StartedLocalFactory;
          if ((Constant && Remote) || (!Constant && Local)) {
            if (Tested) { // Two such copies: which one it is the kind of is not known.
              Tested = nullptr;
              break;
            }
            Tested = F;
          }
        }
      // The copy is initialised first (declared first), and nothing after
      // changes either.
      if (!Tested || Tested->getParent() != &RD ||
          Tested->getFieldIndex() >= Flag->getFieldIndex() || (Copy && Copy != Tested) ||
          !leavesMember(Def->getBody(), Flag) || !leavesMember(Def->getBody(), Tested) ||
          !llvm::all_of(Def->inits(), [&](const CXXCtorInitializer *I) {
            return !I->getInit() || I->getMember() == Tested ||
                   (leavesMember(I->getInit(), Flag) && leavesMember(I->getInit(), Tested));
          })) {
        Every = false;
        break;
      }
      Copy = Tested;
    }
    if (Every && AnyConstructor && Copy &&
        (!writtenOutsideConstructors(*Copy) || copyKeptOutsideConstructors(RD, *Copy, Api)))
      Found.push_back({Flag, Copy});
  }
  It = RemotenessMembers.find(&RD);
  It->second = std::move(Found);
  return It->second;
}

bool AnalysisCache::writtenOutsideConstructors(const FieldDecl &F) {
  const CXXRecordDecl *RD = dyn_cast<CXXRecordDecl>(F.getParent());
  if (!RD)
    return true;
  auto [It, New] = FieldsWritten.try_emplace(RD);
  if (New) {
    llvm::DenseSet<const FieldDecl *> Written;
    bool Any = false;
    for (const CXXMethodDecl *MD : RD->methods()) {
      if (isa<CXXConstructorDecl, CXXDestructorDecl>(MD) || MD->isStatic() || MD->isDeleted())
        continue;
      const FunctionDecl *Definition = nullptr;
      if (!MD->hasBody(Definition)) {
        // A member function of a class template that nothing here calls is
        // not instantiated: it writes what its template writes.
        if (const FunctionDecl *Pattern = uninstantiatedPattern(*MD)) {
          bool AnyHere = false;
          for (const FieldDecl *W : membersWritten(Pattern->getBody(), AnyHere)) {
            const FieldDecl *Same = fieldAt(*RD, W->getFieldIndex());
            if (Same)
              Written.insert(Same);
            AnyHere |= !Same;
          }
          Any |= AnyHere;
          continue;
        }
        // An implicit one runs only where it is called (an assignment of
        // the object, which its users' checks see); another one's body is
        // elsewhere.
        Any |= !MD->isImplicit() && !MD->isPureVirtual();
        continue;
      }
      bool AnyHere = false;
      for (const FieldDecl *W : membersWritten(Definition->getBody(), AnyHere))
        Written.insert(W);
      Any |= AnyHere;
    }
    if (!Any)
      It->second = std::move(Written);
  }
  return !It->second || It->second->contains(&F);
}


bool AnalysisCache::leavesObjectAlone(const CXXMethodDecl &MD, const ASTContext &C,
                                      const ApiIndex &For) {
  const FunctionDecl *Definition = nullptr;
  if (MD.isVirtual() || !MD.hasBody(Definition) ||
      Definition->isDependentContext() || isa<CXXConstructorDecl, CXXDestructorDecl>(MD))
    return false;
  const auto *Key = cast<CXXMethodDecl>(MD.getCanonicalDecl());
  auto [It, New] = ObjectLeftAlone.try_emplace(Key, false);
  if (!New)
    return It->second; // Answered, or being answered (a cycle: not known).
  if (reachesApi(*Definition, C, For))
    return false;
  MemberMentions Uses;
  Uses.TraverseStmt(const_cast<Stmt *>(Definition->getBody()));
  // `*this` named only to reach its members, and no member written: an
  // index member rewritten (`slot_ = 1 - slot_`) changes which buffer the
  // names of the caller's copies denote.
  if (Uses.Any || Uses.OtherMember || !Uses.written().empty())
    return false;
  for (const FieldDecl *F : Uses.fields())
    if (!plainMember(*F) && !For.isBufferType(F->getType().getNonReferenceType()))
      return false;
  for (const CXXMethodDecl *Callee : Uses.Methods)
    if (!Callee->isStatic() && !leavesObjectAlone(*Callee, C, For))
      return false;
  // Looked up again: the calls above may have grown the map.
  ObjectLeftAlone[Key] = true;
  return true;
}

namespace {

/// The members of a class a body names: whole, or only to name a member of
/// them (`kv_.k` names `k` of `kv_`).
class MemberNames : public RecursiveASTVisitor<MemberNames> {
public:
  MemberNames(const CXXRecordDecl &RD, AnalysisCache::MemberReads &Out) : RD(RD), Out(Out) {}
  bool shouldVisitImplicitCode() const { return true; }
  bool VisitMemberExpr(MemberExpr *ME) {
    const auto *F = dyn_cast<FieldDecl>(ME->getMemberDecl());
    const auto *Inner = dyn_cast<MemberExpr>(ME->getBase()->IgnoreParenImpCasts());
    const auto *InnerField = Inner ? dyn_cast<FieldDecl>(Inner->getMemberDecl()) : nullptr;
    // Visited before the member it is reached through.
    if (F && InnerField && !ME->isArrow() && InnerField->getParent() == &RD) {
      Out.Inner.insert({InnerField, F});
      AsBase.insert(Inner);
    }
    if (F && F->getParent() == &RD && !AsBase.contains(ME))
      Out.Whole.insert(F);
    return true;
  }
  bool VisitDeclRefExpr(DeclRefExpr *DRE) {
    // `&Fetcher::v_`: a pointer to the member reads it wherever it goes.
    if (const auto *F = dyn_cast<FieldDecl>(DRE->getDecl()); F && F->getParent() == &RD)
      Out.Whole.insert(F);
    return true;
  }

private:
  const CXXRecordDecl &RD;
  AnalysisCache::MemberReads &Out;
  llvm::DenseSet<const MemberExpr *> AsBase;
};

/// What the members of \p RD that code names are, when every piece of code
/// that may name a private one is here; nullopt otherwise.
std::optional<AnalysisCache::MemberReads> memberReads(const CXXRecordDecl &RD) {
  if (RD.isDependentContext() || isa<ClassTemplateSpecializationDecl>(RD) || RD.hasFriends() ||
      RD.isLambda())
    return std::nullopt;
  AnalysisCache::MemberReads Out;
  MemberNames Walk(RD, Out);
  for (const Decl *D : RD.decls()) {
    if (isa<FunctionTemplateDecl>(D))
      return std::nullopt; // Its instantiations' bodies may not be here.
    if (const auto *Nested = dyn_cast<CXXRecordDecl>(D);
        Nested && !Nested->isImplicit() &&
        llvm::any_of(Nested->methods(), [](const CXXMethodDecl *M) { return !M->isImplicit(); }))
      return std::nullopt; // A nested class's functions may name them too.
  }
  for (const CXXMethodDecl *MD : RD.methods()) {
    const FunctionDecl *Definition = nullptr;
    if (!MD->hasBody(Definition)) {
      if (MD->isImplicit() || MD->isDefaulted() || MD->isDeleted() || MD->isPureVirtual())
        continue; // An implicit copy copies the members unread.
      return std::nullopt; // Its body is elsewhere.
    }
    Walk.TraverseStmt(Definition->getBody());
    if (const auto *Ctor = dyn_cast<CXXConstructorDecl>(Definition))
      for (const CXXCtorInitializer *Init : Ctor->inits())
        if (Init->isWritten())
          Walk.TraverseStmt(Init->getInit());
  }
  for (const FieldDecl *F : RD.fields())
    if (F->hasInClassInitializer())
      Walk.TraverseStmt(F->getInClassInitializer());
  return Out;
}

} // namespace

bool AnalysisCache::unreadMember(const CXXRecordDecl &RD, const AccessPath &Path) {
  if (Path.empty() || Path.Steps[0].K != PathStep::Field)
    return false;
  const FieldDecl *F = Path.Steps[0].FieldD;
  if (F->getParent() != &RD || F->getAccess() != AS_private)
    return false;
  auto [It, New] = MembersRead.try_emplace(&RD);
  if (New)
    It->second = memberReads(RD);
  if (!It->second || It->second->Whole.contains(F))
    return false;
  // Below it: a member of it that nothing names; else it, named nowhere.
  if (Path.Depth > 1 && Path.Steps[1].K == PathStep::Field)
    return !It->second->Inner.contains({F, Path.Steps[1].FieldD});
  return llvm::none_of(It->second->Inner, [&](const auto &P) { return P.first == F; });
}

namespace {

/// The local \p D is, or holds as the binding \p Element of a structured
/// binding (`auto [k, v] = make(...)`: the pair `make` returns, element 1
/// for `v`); null for anything else.
const VarDecl *holderOf(const ValueDecl *D, unsigned &Element) {
  Element = ~0u;
  const auto *Holder = dyn_cast_or_null<VarDecl>(D);
  if (const auto *B = dyn_cast_or_null<BindingDecl>(D)) {
    const auto *Decomposition = dyn_cast_or_null<DecompositionDecl>(B->getDecomposedDecl());
    if (!Decomposition)
      return nullptr;
    llvm::ArrayRef<BindingDecl *> Bindings = Decomposition->bindings();
    Element = static_cast<unsigned>(llvm::find(Bindings, B) - Bindings.begin());
    Holder = Decomposition;
  }
  if (!Holder || !Holder->isLocalVarDecl() || Holder->isStaticLocal() ||
      Holder->getType()->isReferenceType())
    return nullptr;
  return Holder;
}

/// Element \p Element of a pair or tuple \p E makes (partBuilt); \p E
/// itself for ~0u.
const Expr *elementOf(const Expr *E, unsigned Element) {
  return Element == ~0u ? E : partBuilt(E, Element);
}

} // namespace

std::optional<Analyzer::ConstructedObject>
Analyzer::constructedObject(const CXXMemberCallExpr &Call) {
  const Expr *Object = Call.getImplicitObjectArgument();
  const auto *DRE = Object ? dyn_cast<DeclRefExpr>(Object->IgnoreParenImpCasts()) : nullptr;
  if (!DRE || !Summaries || !Function || !Function->getBody())
    return std::nullopt;
  const auto *D = cast<ValueDecl>(DRE->getDecl()->getCanonicalDecl());
  auto [It, New] = Objects.try_emplace(D);
  if (!New)
    return It->second;
  It->second = makeObject(D, /*Siblings=*/true);
  return It->second;
}

std::optional<Analyzer::ConstructedObject> Analyzer::makeObject(const ValueDecl *D,
                                                               bool Siblings) {
  unsigned Element = ~0u;
  const VarDecl *Holder = holderOf(D, Element);
  if (!Holder)
    return std::nullopt;
  // Made by a constructor of the class with a body here (not copied): in
  // the initialiser, or in what a lambda of the function returns (the object,
  // a local of the lambda it returns, or an element of a pair of them).
  const Expr *Made = stripWrappers(Holder->getInit());
  std::optional<LambdaCall> Within = lambdaCall(Made);
  if (Within)
    Made = returnedConstruction(*Within->Operator);
  Made = elementOf(Made, Element);
  if (const auto *Local = Within && Made ? dyn_cast<DeclRefExpr>(Made) : nullptr) {
    const auto *V = dyn_cast<VarDecl>(Local->getDecl());
    Made = V && V->isLocalVarDecl() && !V->isStaticLocal() &&
                   !V->getType()->isReferenceType() &&
                   V->getDeclContext() == Within->Operator &&
                   mentionsOf(V, Within->Operator->getBody()) == 1
               ? stripWrappers(V->getInit())
               : nullptr;
  }
  std::optional<ConstructedObject> Made0;
  if (const auto *List = dyn_cast_or_null<InitListExpr>(Made); List && !Within) {
    Made0 = aggregateObject(*List);
  } else {
    const auto *Construct = dyn_cast_or_null<CXXConstructExpr>(Made);
    const CXXConstructorDecl *Ctor = Construct ? Construct->getConstructor() : nullptr;
    const FunctionDecl *Definition = nullptr;
    if (!Ctor || Ctor->isCopyOrMoveConstructor() || !Ctor->hasBody(Definition) ||
        Definition->isDependentContext() || userDestruction(*Ctor->getParent()))
      return std::nullopt;
    const ProtocolSummary *Summary = Summaries->constructorProtocol(*Definition);
    if (!Summary || (Summary->Stored.empty() && Summary->MemberInits.empty()))
      return std::nullopt;
    Made0 = ConstructedObject{callArguments(Construct), Summary, /*Followed=*/true, Within};
  }
  if (!Made0)
    return std::nullopt;
  // Mentioned only to call member functions that store no copy in it: what
  // the constructor stored stays, and every start and wait of it is one of
  // theirs.
  if (!LocalObjects) {
    ObjectMentions Walk;
    Walk.TraverseStmt(Function->getBody());
    LocalObjects = Walk.finish();
  }
  if (LocalObjects->Other.contains(D))
    return std::nullopt;
  ConstructedObject Result = std::move(*Made0);
  auto Calls = LocalObjects->Methods.find(D);
  if (Calls != LocalObjects->Methods.end())
    for (const CXXMethodDecl *MD : Calls->second) {
      if (MD && AnalysisCache::current().leavesObjectAlone(*MD, Ctx, Api))
        continue; // An accessor: no summary needed.
      const FunctionDecl *Body = nullptr;
      if (!MD || MD->isVirtual() || !MD->hasBody(Body) || Body->isDependentContext())
        return std::nullopt;
      const FunctionSummary *Effect = Summaries->function(*Body);
      if (!Effect || Effect->Object.MayWrite)
        return std::nullopt;
      const ProtocolSummary *Protocol = Summaries->protocol(*Body);
      Result.Followed = Result.Followed && Protocol && Protocol->ObjectFollowed;
    }
  // A lambda's semaphores are followed only if every object any call of it
  // makes is: each call initialises a local, and each of those locals (each
  // binding) is such an object.
  if (Within && Siblings && Result.Followed) {
    auto Inits = LocalObjects->LambdaInits.find(Within->Lambda);
    auto Count = LocalObjects->LambdaCalls.find(Within->Lambda);
    if (Inits == LocalObjects->LambdaInits.end() || Count == LocalObjects->LambdaCalls.end() ||
        Inits->second.size() != Count->second)
      Result.Followed = false;
    else
      for (const VarDecl *Other : Inits->second) {
        llvm::SmallVector<const ValueDecl *, 2> Parts;
        if (const auto *Decomposition = dyn_cast<DecompositionDecl>(Other))
          Parts.append(Decomposition->bindings().begin(), Decomposition->bindings().end());
        else
          Parts.push_back(Other);
        for (const ValueDecl *Part : Parts) {
          std::optional<ConstructedObject> O = makeObject(Part, /*Siblings=*/false);
          Result.Followed = Result.Followed && O && O->Followed;
        }
      }
  }
  return Result;
}

std::optional<Analyzer::ConstructedObject> Analyzer::aggregateObject(const InitListExpr &List) {
  // The semantic form: one initialiser per member, in order.
  const InitListExpr *Syntactic = List.isSemanticForm() ? &List : List.getSemanticForm();
  const CXXRecordDecl *RD = Syntactic ? Syntactic->getType()->getAsCXXRecordDecl() : nullptr;
  if (!RD || !RD->isAggregate() || RD->getNumBases() != 0 || RD->isUnion() ||
      userDestruction(*RD))
    return std::nullopt;
  auto [It, New] = AggregateConstructors.try_emplace(Syntactic);
  ProtocolSummary &Summary = It->second;
  ConstructedObject Result{{}, &Summary, /*Followed=*/true, std::nullopt};
  // Each member a local copy initialises: its source, target and semaphore
  // are the "constructor's" next three arguments.
  unsigned Index = 0;
  for (const FieldDecl *F : RD->fields()) {
    if (Index >= Syntactic->getNumInits())
      break;
    const Expr *Init = stripWrappers(Syntactic->getInit(Index++));
    // A member of a class type that is no copy (a semaphore, a buffer): set
    // to what is written there, the "constructor's" next argument.
    if (Init && F->getType()->isRecordType() && !Api.isDescriptorType(F->getType()) &&
        !isa<InitListExpr, ImplicitValueInitExpr>(Init)) {
      unsigned At = Result.Args.size();
      Result.Args.push_back(Init);
      if (New) {
        MemberInit Member;
        Member.Field = F;
        Member.Semaphore = SummarySemaphore{At, {}, nullptr};
        Member.Buffer = SummaryBuffer{At, {}, false, nullptr};
        Summary.MemberInits.push_back(std::move(Member));
      }
      continue;
    }
    const auto *Call = dyn_cast_or_null<CallExpr>(Init);
    if (!Call || role(Call->getDirectCallee()) != ApiRole::LocalFactory)
      continue;
    const Expr *Sem = copySemaphores(Call, Api).Receive;
    CopyBuffers Buffers = copyBuffers(Call, Api);
    if (!Sem || !Buffers.Source || !Buffers.Target)
      continue;
    unsigned First = Result.Args.size();
    Result.Args.append({Buffers.Source, Buffers.Target, Sem});
    if (New) {
      StoredCopy Stored;
      PathStep Member = PathStep::field(F);
      Stored.Path.append(Member);
      Stored.Copy.Source = SummaryBuffer{First, {}, false, nullptr};
      Stored.Copy.Target = SummaryBuffer{First + 1, {}, false, nullptr};
      Stored.Copy.Receive = SummarySemaphore{First + 2, {}, nullptr};
      Summary.Stored.push_back(std::move(Stored));
    }
  }
  if (Result.Args.empty())
    return std::nullopt;
  if (New)
    Summary.StoredFollowed.assign(Result.Args.size(), true);
  return Result;
}

std::optional<ReturnedCopy>
Analyzer::throughObjectMembers(const CXXMemberCallExpr &Call, const ReturnedCopy &R,
                               llvm::SmallVectorImpl<const Expr *> &Args) {
  std::optional<ConstructedObject> Object = constructedObject(Call);
  if (!Object || Object->Within)
    return std::nullopt;
  ReturnedCopy Out = R;
  if (!copyThroughMembers(Out, Object->Constructor->MemberInits, Args.size()))
    return std::nullopt;
  Args.append(Object->Args.begin(), Object->Args.end());
  return Out;
}

ProtocolSummary Analyzer::atObject(const Expr *Call, const ProtocolSummary &Summary,
                                   llvm::SmallVectorImpl<const Expr *> &Args,
                                   std::optional<LambdaCall> &Within) {
  ProtocolSummary Out = Summary;
  const auto *MC = dyn_cast<CXXMemberCallExpr>(Call);
  // A member function calling another on its own object: the members keep
  // their names (the caller's summary states them in the same terms).
  bool OnThis = isCallOnThis(Call);
  std::optional<ConstructedObject> Object =
      MC && !OnThis ? constructedObject(*MC) : std::nullopt;
  // The constructor's arguments go after the call's.
  unsigned By = Args.size();
  auto StoredAt = [&](const AccessPath &Path) -> const ReturnedCopy * {
    if (Object)
      for (const StoredCopy &S : Object->Constructor->Stored)
        if (S.Path == Path)
          return &S.Copy;
    return nullptr;
  };
  auto InitOf = [&](const FieldDecl *F) {
    return Object ? memberInitOf(Object->Constructor->MemberInits, F) : nullptr;
  };
  auto Semaphore = [&](const SummarySemaphore &S) -> std::optional<SummarySemaphore> {
    if (!S.Member || OnThis)
      return S;
    const MemberInit *Init = InitOf(S.Member);
    return Init ? throughMember(S, *Init, By) : std::nullopt;
  };
  auto Buffer = [&](const std::optional<SummaryBuffer> &B) -> std::optional<SummaryBuffer> {
    if (!B || !B->Member || OnThis)
      return B;
    const MemberInit *Init = InitOf(B->Member);
    return Init ? throughMember(*B, *Init, By) : std::nullopt;
  };
  // Where the object's copies cannot be named: starts no caller can name,
  // and waits that may take anything.
  llvm::erase_if(Out.Starts, [&](HelperStart &H) {
    if (H.ObjectPath) {
      const ReturnedCopy *Copy = StoredAt(*H.ObjectPath);
      if (!Copy)
        return true;
      H.Kind = Remoteness::Local;
      H.Receive = shifted(Copy->Receive, By);
      H.Target = shifted(Copy->Target, By);
      H.ObjectPath.reset();
      return false;
    }
    std::optional<SummarySemaphore> Receive = Semaphore(H.Receive);
    if (!Receive)
      return true;
    H.Receive = std::move(*Receive);
    H.Target = Buffer(H.Target);
    return false;
  });
  for (HelperWait &H : Out.Waits) {
    if (H.ObjectPath) {
      if (const ReturnedCopy *Copy = StoredAt(*H.ObjectPath)) {
        H.Semaphores = {shifted(Copy->Receive, By)};
        H.Target = shifted(Copy->Target, By);
        H.Source = shifted(Copy->Source, By);
        H.Exact = H.Exact && H.Target.has_value();
      } else {
        H.Unknown = true;
        H.Exact = false;
      }
      H.ObjectPath.reset();
      continue;
    }
    for (SummarySemaphore &S : H.Semaphores) {
      std::optional<SummarySemaphore> Named = Semaphore(S);
      if (!Named) {
        H.Unknown = true;
        break;
      }
      S = std::move(*Named);
    }
    if (H.Unknown) {
      H.Semaphores.clear();
      H.Exact = false;
      continue;
    }
    H.Target = Buffer(H.Target);
    H.Source = Buffer(H.Source);
    H.Exact = H.Exact && H.Target.has_value();
  }
  if (!Object)
    return Out;
  Within = Object->Within;
  llvm::ArrayRef<const Expr *> ConstructorArgs = Object->Args;
  Out.Followed.resize(By, false);
  for (unsigned I = 0; I < ConstructorArgs.size(); ++I) {
    Args.push_back(ConstructorArgs[I]);
    Out.Followed.push_back(Object->Followed &&
                           I < Object->Constructor->StoredFollowed.size() &&
                           Object->Constructor->StoredFollowed[I]);
  }
  return Out;
}

} // namespace dmalint
