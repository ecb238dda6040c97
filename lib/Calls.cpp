//===- Calls.cpp - Calls: summaries, lambdas, opaque functions, std -------===//
//
// A call to a function of the translation unit goes through its summary
// (Summaries.cpp): what it does with each parameter and with the object of a
// member function, what it returns, what it stores in the object. A lambda
// that is called is analysed in place from the caller's state, its
// parameters bound to the arguments. Any other call is opaque: what it is
// handed escapes, and what it can write becomes unknown.
//
//===----------------------------------------------------------------------===//
#include "Analyzer.h"
#include "dmalint/Arguments.h"
#include "dmalint/AstUtil.h"
#include "dmalint/AnalysisCache.h"
#include "dmalint/InPlaceLambdas.h"
#include "dmalint/Semaphores.h"
#include "llvm/ADT/ScopeExit.h"

using namespace clang;

namespace dmalint {

const FunctionSummary *Analyzer::summaryFor(const FunctionDecl *FD) {
  if (!FD || !Summaries || !Limits.UseSummaries)
    return nullptr;
  // Whether FD has a summary worth asking for depends only on FD: decided
  // once per callee (a loop asks at every visit).
  auto [It, Inserted] = SummarisedDefinition.try_emplace(FD, nullptr);
  if (Inserted)
    It->second = summarisedDefinition(FD);
  return It->second ? Summaries->function(*It->second) : nullptr;
}

const FunctionDecl *Analyzer::summarisedDefinition(const FunctionDecl *FD) {
  if (role(FD) != ApiRole::None)
    return nullptr;
  // `using Base::Base;`: the derived class's constructor runs the base's on
  // the same arguments, and the base's members are the object's.
  if (const auto *Ctor = dyn_cast<CXXConstructorDecl>(FD); Ctor && Ctor->isInheritingConstructor())
    if (const CXXConstructorDecl *Inherited = Ctor->getInheritedConstructor().getConstructor())
      FD = Inherited;
  if (const auto *MD = dyn_cast<CXXMethodDecl>(FD); MD && MD->isVirtual())
    return nullptr;
  const FunctionDecl *Definition = nullptr;
  if (!FD->hasBody(Definition) || Definition->isDependentContext())
    return nullptr;
  // Only functions that take, return or (as members) hold descriptors have
  // anything to say; the rest (most of the standard library) are never
  // analysed as callees.
  auto Relevant = [&](QualType T) {
    T = T.getNonReferenceType();
    if (T->isPointerType())
      T = T->getPointeeType();
    return Types.holdsDescriptors(T);
  };
  const auto *MD = dyn_cast<CXXMethodDecl>(Definition);
  bool Member = MD && !MD->isStatic() && MD->getParent() &&
                Types.holdsDescriptors(recordTypeOf(Ctx, *MD->getParent()));
  if (!Member && !Relevant(Definition->getReturnType()) &&
      llvm::none_of(Definition->parameters(),
                    [&](const ParmVarDecl *P) { return Relevant(P->getType()); }))
    return nullptr;
  return Definition;
}

ApiRole Analyzer::role(const FunctionDecl *FD) {
  auto [It, Inserted] = Roles.try_emplace(FD, ApiRole::None);
  if (Inserted)
    It->second = Api.roleOf(FD);
  return It->second;
}

LocationList Analyzer::argumentLocations(const Expr *Arg, QualType ParamType, const State &S) {
  const Expr *Plain = Arg->IgnoreParenImpCasts();
  if (!ParamType.isNull() && ParamType->isPointerType())
    return designated(Arg, S);
  if (!ParamType.isNull() && ParamType->isReferenceType())
    return resolve(Arg, S);
  // By value: the object copied, when it is one.
  const Expr *Source = stripWrappers(Arg);
  if (const auto *Construct = dyn_cast<CXXConstructExpr>(Source);
      Construct && Construct->getConstructor()->isCopyOrMoveConstructor() &&
      Construct->getNumArgs() >= 1)
    Source = Construct->getArg(0);
  if (Source->isGLValue() && !isa<MaterializeTemporaryExpr>(Source->IgnoreParens()))
    return resolve(Source, S);
  if (Types.isPointer(Plain->getType()))
    return designated(Plain, S);
  return {};
}

ValueSet Analyzer::argumentValues(const Expr *Arg, const State &S) {
  QualType T = Arg->getType();
  if (Types.isDescriptor(T))
    return eval(Arg, S);
  if (Types.isPointer(T)) {
    // What a `new` or `make_unique` here would build, too.
    State Copy = S;
    LocationList Targets = evalTargets(Arg, Copy, /*Report=*/false, 0);
    return heldBelow(Targets, Copy);
  }
  if (!Types.holdsDescriptors(T))
    return ValueSet();
  LocationList Locs = argumentLocations(Arg, QualType(), S);
  if (Locs.empty()) {
    // A temporary aggregate or container: what building it puts in it.
    Location Scratch = scratch();
    State Copy = S;
    initialize(Scratch, T, Arg, Copy, /*Report=*/false, 0);
    return heldBelow({Scratch}, Copy);
  }
  return heldBelow(Locs, S);
}

bool Analyzer::boundTemporary(const Expr *Arg, QualType ParamType) {
  return !ParamType.isNull() && ParamType->isReferenceType() && temporaryBuilt(Arg) &&
         Types.holdsDescriptors(Arg->getType());
}

ValueSet Analyzer::builtAt(const Expr *Temporary, const AccessPath &Path, const State &S) {
  Location Scratch = scratch();
  State Copy = S;
  initialize(Scratch, Temporary->getType(), Temporary, Copy, /*Report=*/false, 0);
  return read({Scratch.child(Path.anyElement().steps())}, Copy);
}

const Expr *Analyzer::conditionAtCall(const Expr *Cond, const FunctionDecl *Callee,
                                      llvm::ArrayRef<const Expr *> Args) {
  // The callee's own parameters, as the call's arguments (what it captured
  // stays: the same variables here).
  return withArguments(Cond, [&](const ParmVarDecl *P) -> std::optional<const Expr *> {
    if (!Callee || P->getDeclContext() != Callee)
      return std::nullopt;
    unsigned Index = P->getFunctionScopeIndex();
    return Index < Args.size() && !isa<CXXDefaultArgExpr>(Args[Index]) ? Args[Index] : nullptr;
  });
}

bool Analyzer::returnedAtCall(const SummaryValues &SV, const Expr *Site, Remoteness Kind,
                              const FunctionDecl *Callee, llvm::ArrayRef<const Expr *> Args,
                              const State &S, FactSet &Assumed) {
  const ParamFacts *When = nullptr;
  for (const auto &[Built, Facts] : SV.BuiltWhen)
    if (Built.first == Site && Built.second == Kind)
      When = &Facts;
  if (!When)
    return true;
  // Returned where the atom has that value: not on this path if it knows
  // the other.
  auto Assume = [&](AtomId Atom, bool Holds) {
    std::optional<bool> Known = S.Facts.lookup(Atom);
    return !(Known && *Known != Holds) && Assumed.add(Fact{Atom, Holds});
  };
  for (const ParamFact &F : *When) {
    if (F.Condition) {
      // A lambda's condition over what it captured: this function's own.
      const Expr *Here = conditionAtCall(F.Condition, Callee, Args);
      bool Positive = true;
      std::optional<AtomId> Atom = Here ? conditionAtom(Here, Positive) : std::nullopt;
      if (Atom && !Assume(*Atom, F.Holds == Positive))
        return false;
      continue;
    }
    if (F.EqualsParam) {
      // `copy_to(p, me)` of a callee that built it where `peer == me`: this
      // function's `p == me`.
      if (F.Param >= Args.size() || *F.EqualsParam >= Args.size())
        continue;
      std::optional<int64_t> A = constantInt(Args[F.Param], Ctx),
                             B = constantInt(Args[*F.EqualsParam], Ctx);
      if (A && B) {
        if ((*A == *B) != F.Holds)
          return false;
        continue;
      }
      bool Positive = true;
      std::optional<AtomId> Atom = equalityAtom(Args[F.Param], Args[*F.EqualsParam], Positive);
      if (Atom && !Assume(*Atom, F.Holds == Positive))
        return false;
      continue;
    }
    BoolArgument A = factArgument(F, F.Param < Args.size() ? Args[F.Param] : nullptr, Ctx);
    if (A.Constant) {
      if (*A.Constant != F.Holds)
        return false;
      continue;
    }
    if (!A.Tested)
      continue; // Not known here: returned whatever it is.
    bool Holds = A.TestedHolds;
    std::optional<AtomId> Atom = conditionAtom(A.Tested, Holds);
    if (Atom && !Assume(*Atom, Holds))
      return false;
  }
  return true;
}

ValueSet Analyzer::summaryValues(const SummaryValues &SV, const Expr *Call,
                                 llvm::ArrayRef<const Expr *> Args, const FunctionDecl *Callee,
                                 const LocationList *Object, const AccessPath &Path,
                                 bool Imported, const State &S) {
  ValueSet Result;
  llvm::SmallVector<Remoteness, 2> KindsReturned;
  for (auto &[Site, Kind] : SV.Built) {
    // Returned on bool parameters: not at all where a constant argument
    // says otherwise, and where the caller's own bool is passed, only
    // where that holds.
    FactSet Assumed;
    if (!Imported && !returnedAtCall(SV, Site, Kind, Callee, Args, S, Assumed))
      continue;
    KindsReturned.push_back(Kind);
    // Each place below the returned value is a copy of its own: the caller
    // may start one member of a returned struct and not another.
    Value V = Imported ? importedValue(Site, Kind) : originValue(Call, Kind, Path);
    FactSet Joined;
    if (!FactSet::conjoin(V.Assumed, Assumed, Joined))
      continue;
    V.Assumed = std::move(Joined);
    ValueSet Made = ValueSet::of(std::move(V));
    // Used by the callee before it returned it: used.
    if (!Imported && llvm::is_contained(SV.UsedByCallee, Site))
      markUsed(Made);
    Result.unionWith(Made);
  }
  // The one copy a wrapper of the factory returns (or returns at Path
  // below its value), or the one of two it picks on a bool where the
  // arguments pick it, named for the protocol checks.
  bool Picked = SV.Built.size() == 2 && KindsReturned.size() == 1 && Path.empty();
  if (!Imported && (SV.Built.size() == 1 || Picked) && Callee &&
      (Path.empty() ? !Out.ReturnedCopies.count(Call)
                    : !Out.ReturnedCopiesAt.count({Call, Path})))
    if (const FunctionDecl *Definition = summarisedDefinition(Callee))
      if (const ProtocolSummary *P = Summaries->protocol(*Definition)) {
        const ReturnedCopy *R = Path.empty() && P->Returned ? &*P->Returned : nullptr;
        if (Picked)
          for (const auto &[Kind, Copy] : P->ReturnedPicked)
            if (Kind == KindsReturned.front())
              R = &Copy;
        if (!Path.empty())
          for (const StoredCopy &At : P->ReturnedAt)
            if (At.Path == Path)
              R = &At.Copy;
        // Named by the members of another object: in this function's terms
        // only through what the constructor of a local object set them to.
        bool OnMembers = R && (R->Receive.Member || (R->Source && R->Source->Member) ||
                               (R->Target && R->Target->Member) || (R->Send && R->Send->Member));
        std::optional<ReturnedCopy> Through;
        if (R && OnMembers && Path.empty() && !isCallOnThis(Call))
          if (const auto *MC = dyn_cast<CXXMemberCallExpr>(Call)) {
            llvm::SmallVector<const Expr *, 8> MemberArgs = callArguments(MC);
            Through = throughObjectMembers(*MC, *R, MemberArgs);
            if (Through) {
              Out.ReturnedCopies.try_emplace(Call, *Through);
              Out.ReturnedCopyArguments.try_emplace(Call, std::move(MemberArgs));
            }
          }
        if (R && !Through && (!OnMembers || isCallOnThis(Call))) {
          if (Path.empty())
            Out.ReturnedCopies.try_emplace(Call, *R);
          else
            Out.ReturnedCopiesAt.try_emplace({Call, Path}, *R);
        }
      }
  for (auto &[Index, From] : SV.FromParams) {
    if (Index >= Args.size()) {
      Result.unionWith(unknown());
      continue;
    }
    QualType ParamType = Callee && Index < Callee->getNumParams()
                             ? Callee->getParamDecl(Index)->getType()
                             : QualType();
    if (boundTemporary(Args[Index], ParamType)) {
      Result.unionWith(builtAt(Args[Index], From, S));
      continue;
    }
    LocationList Locs = argumentLocations(Args[Index], ParamType, S);
    if (Locs.empty()) {
      Result.unionWith(From.empty() && Types.isDescriptor(Args[Index]->getType())
                           ? eval(Args[Index], S)
                           : unknown());
      continue;
    }
    LocationList At;
    for (const Location &L : Locs)
      addLocation(At, L.child(From.anyElement().steps()));
    Result.unionWith(read(At, S));
  }
  if (SV.FromObject) {
    if (Object) {
      LocationList At;
      for (const Location &L : *Object)
        addLocation(At, L.child(Path.anyElement().steps()));
      Result.unionWith(read(At, S));
    } else {
      Result.unionWith(unknown());
    }
  }
  if (SV.Unknown)
    Result.unionWith(unknown());
  bound(Result);
  return Result;
}

void Analyzer::applyObjectStores(const FunctionSummary &Summary, const Expr *Call,
                                 llvm::ArrayRef<const Expr *> Args, const FunctionDecl *Callee,
                                 const LocationList &Object, Update How, State &S) {
  // Computed from the state before the call, applied after.
  std::vector<std::pair<AccessPath, ValueSet>> Stores;
  for (const PathValues &PV : Summary.ObjectStores)
    Stores.push_back({PV.Path, summaryValues(PV.Values, Call, Args, Callee, &Object, PV.Path,
                                             /*Imported=*/true, S)});
  for (const Location &O : Object)
    for (auto &[Path, Values] : Stores) {
      Location At = O.child(Path.steps());
      if (At.isUnknown())
        continue;
      write({At}, Values, S, How == Update::Strong && Object.size() == 1 ? Update::Strong
                                                                          : Update::Weak);
    }
  if (How == Update::Strong)
    initializeMemberFlags(Summary, Args, Object, S);
}

bool Analyzer::applies(const SendWaitRequirement &Requirement,
                       llvm::ArrayRef<const Expr *> Args, const ObjectFlags &Members) {
  for (const ParamFact &F : Requirement.WhenParams) {
    if (F.Param >= Args.size())
      continue;
    BoolArgument A = factArgument(F, Args[F.Param], Ctx);
    if (A.Constant && *A.Constant != F.Holds)
      return false;
  }
  for (const ObjectFact &F : Requirement.WhenObject)
    for (const auto &[Field, Known] : Members)
      if (Field == F.Field && isFlagConstant(Known.Value) &&
          ((int64_t(Known.Value) - 1 == F.Equals) != F.Holds))
        return false;
  return true;
}

std::optional<Fact> Analyzer::argumentFact(const ParamFact &F, const Expr *Arg) {
  if (!Arg || isa<CXXDefaultArgExpr>(Arg) || Arg->isValueDependent())
    return std::nullopt;
  if (!F.Equals) {
    if (!Arg->getType()->isBooleanType())
      return std::nullopt;
    bool Positive = true;
    std::optional<AtomId> Atom = conditionAtom(Arg, Positive);
    if (!Atom)
      return std::nullopt;
    return Fact{*Atom, F.Holds == Positive};
  }
  const auto *DRE = dyn_cast<DeclRefExpr>(Arg->IgnoreParenImpCasts());
  const auto *P = DRE ? dyn_cast<ParmVarDecl>(DRE->getDecl()) : nullptr;
  if (!P)
    return std::nullopt;
  std::optional<AtomId> Atom = paramValueAtom(P, *F.Equals);
  if (!Atom)
    return std::nullopt;
  return Fact{*Atom, F.Holds};
}

void Analyzer::initializeMemberFlags(const FunctionSummary &Summary,
                                     llvm::ArrayRef<const Expr *> Args, const LocationList &Object,
                                     State &S) {
  if (Summary.FlagInits.empty() || Object.size() != 1 || !Object[0].isSingle())
    return;
  for (const MemberFlagInit &M : Summary.FlagInits) {
    FlagValue V = FlagUnknown;
    if (!M.Param) {
      V = flagConstant(M.Constant);
    } else if (*M.Param < Args.size()) {
      const Expr *Arg = Args[*M.Param];
      if (const auto *Default = dyn_cast<CXXDefaultArgExpr>(Arg))
        Arg = Default->getExpr();
      if (!M.IsRemoteOf) {
        V = Arg ? flagValue(Arg, S) : FlagUnknown;
      } else if (std::optional<bool> Remote = Arg ? kindOf(argumentValues(Arg, S)) : std::nullopt) {
        V = *Remote ? FlagTrue : FlagFalse;
      }
    }
    Location At = Object[0].child(PathStep::field(M.Field));
    if (At.isUnknown())
      continue;
    flagsChanged(S);
    if (V) {
      S.Cells[At].Flag = V;
      FlagsSeen = true;
    } else if (M.Param && !M.IsRemoteOf && *M.Param < Args.size()) {
      // `Stage(r ? remote : local, r)`: the member may be is_remote() of a
      // copy the object holds (relateFlags, as for `{c, r}`).
      llvm::SmallVector<std::pair<const FieldDecl *, const Expr *>, 4> Members{
          {M.Field, Args[*M.Param]}};
      for (const FieldDecl *D : M.Field->getParent()->fields())
        if (Types.isDescriptor(D->getType()))
          Members.push_back({D, Args[*M.Param]});
      relateFlags(Object[0], Members, S);
    }
  }
}

bool Analyzer::constructorsDecideKind(const CXXRecordDecl &RD, const AccessPath &Path) {
  const ClassSummary *Members = Summaries ? Summaries->members(RD) : nullptr;
  if (!Members || Members->Incomplete)
    return false;
  auto Listed = llvm::find_if(Members->Members,
                              [&](const PathValues &PV) { return PV.Path == Path; });
  if (Listed == Members->Members.end() || Listed->Values.Unknown ||
      !Listed->Values.FromParams.empty())
    return false;
  llvm::SmallVector<const Expr *, 4> ConstructorSites;
  bool Kinds[2] = {false, false};
  for (const CXXConstructorDecl *Ctor : RD.ctors()) {
    const FunctionDecl *Definition = nullptr;
    if (!Ctor->hasBody(Definition) || Ctor->isCopyOrMoveConstructor())
      continue;
    const FunctionSummary *Summary = Summaries->function(*Definition);
    if (!Summary)
      return false;
    for (const PathValues &PV : Summary->ObjectStores) {
      if (!(PV.Path == Path))
        continue;
      std::optional<Remoteness> One;
      for (const auto &[Site, Kind] : PV.Values.Built) {
        if (Kind == Remoteness::Unknown || (One && *One != Kind))
          return false;
        One = Kind;
        ConstructorSites.push_back(Site);
      }
      if (One)
        Kinds[*One == Remoteness::Remote] = true;
    }
  }
  // Both kinds, and nothing but what the constructors store there.
  return Kinds[0] && Kinds[1] && llvm::all_of(Listed->Values.Built, [&](const auto &Built) {
           return llvm::is_contained(ConstructorSites, Built.first);
         });
}

void Analyzer::recordHelperWaitSend(const Expr *Call, const FunctionDecl *Callee,
                                    const Expr *Arg, unsigned Param, const ValueSet &VS,
                                    const SendWaitRequirement &Inner, bool ByConstructor) {
  auto It = llvm::find_if(Out.HelperWaitSends, [&](const HelperWaitSend &H) {
    return H.Call == Call && H.Param == Param;
  });
  if (It == Out.HelperWaitSends.end())
    Out.HelperWaitSends.push_back(
        HelperWaitSend{Call, Callee, Arg, Param, VS, Inner, ByConstructor});
  else
    It->Values.unionWith(VS);
}

void Analyzer::call(const Expr *Call, const FunctionDecl *Callee,
                    llvm::ArrayRef<const Expr *> Args, const LocationList *Object, State &S,
                    bool Report, unsigned Depth) {
  forgetReceived(S); // The callee may start what it can reach.
  // The objects of the temporaries bound to reference parameters, gone
  // once the call's full expression ends (after its protocol effects).
  llvm::SmallVector<Location, 1> Temporaries;
  auto EndTemporaries = llvm::make_scope_exit([&] {
    for (const Location &L : Temporaries)
      eraseBelow(L, S);
  });
  // What a helper's waits may find in flight, and what it may leave so.
  llvm::SmallVector<OriginId, 2> InFlightBefore = inFlight(S);
  // The object's members its requirements test, as they are before the call
  // (which may change them).
  ObjectFlags Members;
  const FunctionSummary *Summary = summaryFor(Callee);
  if (Summary && Object && FlagsSeen) {
    auto Note = [&](const ParameterSummary &P) {
      for (const PathRequirement &R : P.RequiresRemote)
        for (const ObjectFact &F : R.Requirement.WhenObject) {
          if (llvm::any_of(Members, [&](const auto &M) { return M.first == F.Field; }))
            continue;
          const auto *Field = static_cast<const FieldDecl *>(F.Field);
          KnownFlag All;
          bool First = true;
          for (const Location &O : *Object) {
            KnownFlag K = flagAt(O.child(PathStep::field(Field)), S);
            if (First)
              All = K;
            else if (!mergeFlags(All, K))
              All = KnownFlag();
            First = false;
          }
          if (!AnalysisCache::current().flagWrittenUnseen(*Field, Ctx))
            Members.push_back({F.Field, All});
        }
    };
    Note(Summary->Object);
    for (const ParameterSummary &P : Summary->Params)
      Note(P);
  }
  forgetCallFlags(Callee, Args, Object, S);
  auto Protocol = llvm::make_scope_exit(
      [&] { protocolCall(Call, Callee, Args, InFlightBefore, S, Report); });
  if (!Summary) {
    opaqueCall(Callee, Args, S, Report, Depth);
    const auto *MD = dyn_cast_or_null<CXXMethodDecl>(Callee);
    if (Object && (!MD || !MD->isConst())) {
      // A member function we cannot see may use, keep or change what the
      // object holds.
      escapeBelow(*Object, S);
      receiveMayBeWaited(*Object, S);
      for (const Location &L : *Object)
        if (Types.holdsDescriptors(MD ? recordTypeOf(Ctx, *MD->getParent())
                                      : QualType()))
          forgetBelow(L, S);
    } else if (Object) {
      escapeBelow(*Object, S);
    }
    return;
  }
  // What the callee may do to one parameter (or to the object).
  auto Apply = [&](const ParameterSummary &P, const LocationList &Locs, const Expr *Arg,
                   unsigned Index, bool ByValue) {
    ValueSet Held = Locs.empty() ? argumentValues(Arg, S) : heldBelow(Locs, S);
    if (Report) {
      if (P.MayUse) {
        markUsed(Held);
        markHelperUsed(Held);
      }
      if (P.Escapes)
        markEscaped(Held);
      for (const PathRequirement &R : P.RequiresRemote) {
        if (!applies(R.Requirement, Args, Members))
          continue;
        ValueSet VS;
        if (Locs.empty()) {
          // `drain({a, b})` by value: what building the temporary puts at
          // the path (one bound to a reference has an object of its own).
          VS = R.Path.empty() ? eval(Arg, S) : builtAt(Arg, R.Path, S);
        } else {
          LocationList At;
          for (const Location &L : Locs)
            addLocation(At, L.child(R.Path.anyElement().steps()));
          VS = read(At, S);
        }
        // Copies a class summary brought in are judged in the member
        // function, unless each constructor decides their kind there: then
        // the member function leaves them to its callers (judgedAtCalls),
        // and the object's own copies are judged here.
        const auto *Method = dyn_cast<CXXMethodDecl>(Callee);
        bool ByConstructor = Index == ~0u && Method &&
                             constructorsDecideKind(*Method->getParent(), R.Path);
        if (!ByConstructor)
          VS.filter([&](const Value &V) { return !Out.Origins[V.Origin].Imported; });
        // Only where the arguments make the callee's parameter facts hold
        // (`finish(d, p != me)` with d local only where p == me): the
        // copies made on the other paths are not reached.
        FactSet When = S.Facts;
        bool Reached = true;
        for (const ParamFact &F : R.Requirement.WhenParams)
          if (F.Param < Args.size())
            if (std::optional<Fact> Needed = argumentFact(F, Args[F.Param]))
              Reached &= When.add(*Needed);
        if (!Reached || !comparisonsAgree(When))
          continue;
        if (When.size() != S.Facts.size())
          VS.filter([&](const Value &V) { return onOnePath(V.Assumed, When); });
        // The flag given is the descriptor's own is_remote() (`finish(d,
        // d.is_remote())` to `if (remote) d.wait_send();`): only the copies
        // of the kind it passes are reached.
        for (const ParamFact &F : R.Requirement.WhenParams) {
          if (F.Equals || F.Param >= Args.size() || !R.Path.empty())
            continue;
          bool Positive = true;
          const auto *Test = dyn_cast<CXXMemberCallExpr>(
              bareCondition(Args[F.Param], Positive, /*ThroughCasts=*/true));
          if (!Test || role(Test->getMethodDecl()) != ApiRole::IsRemote ||
              !isa<DeclRefExpr>(stripWrappers(Test->getImplicitObjectArgument())) ||
              !sameExpression(stripWrappers(Test->getImplicitObjectArgument()), stripWrappers(Arg),
                              Ctx))
            continue;
          bool WhereRemote = F.Holds == Positive;
          VS.filter([&](const Value &V) {
            Remoteness K = Out.Origins[V.Origin].Kind;
            return K == Remoteness::Unknown || (K == Remoteness::Remote) == WhereRemote;
          });
        }
        // A member the requirement tests that is a function of the kind of
        // the copy it is about (`Stage(r ? remote : local, r)`, an enum
        // joined from `{local, kLocal}` and `{remote, kRemote}`): only the
        // copies of the kinds that pass.
        for (const ObjectFact &F : R.Requirement.WhenObject)
          for (const auto &[Field, Known] : Members)
            if (Field == F.Field && Known.Value == FlagIsRemote && Known.Of &&
                isFlagConstant(flagConstant(F.Equals)) && R.Path.Depth == 1 &&
                R.Path.Steps[0] == PathStep::field(Known.Of)) {
              PassingKinds Kinds =
                  passingKinds(Known.IfRemote, Known.IfLocal, flagConstant(F.Equals), F.Holds);
              VS.filter([&](const Value &V) {
                Remoteness K = Out.Origins[V.Origin].Kind;
                return K == Remoteness::Unknown ||
                       (K == Remoteness::Remote ? Kinds.Remote : Kinds.Local);
              });
            }
        if (!VS.empty())
          recordHelperWaitSend(Call, Callee, Arg, Index, VS, R.Requirement, ByConstructor);
      }
    }
    if (P.MayUse || P.Escapes)
      receiveMayBeWaited(Locs, S);
    if (P.MayWrite && !ByValue)
      for (const Location &L : Locs)
        forgetBelow(L, S);
  };
  // An object of its own for a temporary the call binds, holding what
  // building it puts in it.
  auto Materialize = [&](const Expr *Temporary) {
    Location L = scratch();
    initialize(L, Temporary->getType(), temporaryBuilt(Temporary), S, /*Report=*/false, Depth);
    Temporaries.push_back(L);
    return L;
  };
  for (unsigned I = 0; I < Args.size(); ++I) {
    const Expr *Arg = Args[I];
    if (const LambdaExpr *Lambda = lambdaOf(Arg)) {
      inlineHandedLambda(Lambda, Callee, Args, I, S, Report, Depth);
      continue;
    }
    if (I >= Summary->Params.size() || isa<CXXDefaultArgExpr>(Arg))
      continue;
    QualType ParamType = I < Callee->getNumParams() ? Callee->getParamDecl(I)->getType()
                                                     : QualType();
    bool ByValue = ParamType.isNull() || (!ParamType->isReferenceType() &&
                                          !ParamType->isPointerType());
    // `run(make_async_copy(...))` with `run(const AsyncCopyDescriptor &)`
    // or `&&`: the reference names an object of its own, holding what
    // building the temporary puts in it (a reference to the temporary
    // itself names no place the state knows).
    if (boundTemporary(Arg, ParamType)) {
      Apply(Summary->Params[I], {Materialize(Arg)}, Arg, I, ByValue);
      continue;
    }
    Apply(Summary->Params[I], argumentLocations(Arg, ParamType, S), Arg, I, ByValue);
  }
  if (Object) {
    const Expr *ObjectExpr = nullptr;
    if (const auto *MC = dyn_cast<CXXMemberCallExpr>(Call))
      ObjectExpr = MC->getImplicitObjectArgument();
    if (ObjectExpr) {
      // `Kernel{make_async_copy(...)}.run()`: the object is the temporary.
      LocationList ObjectLocs = *Object;
      if (hasUnknown(ObjectLocs) && temporaryBuilt(ObjectExpr) &&
          Types.holdsDescriptors(ObjectExpr->getType()))
        ObjectLocs = {Materialize(ObjectExpr)};
      Apply(Summary->Object, ObjectLocs, ObjectExpr, ~0u, /*ByValue=*/false);
    }
    // A member function that writes none of the object's copies leaves it
    // holding what it held (its summary's stores only echo that).
    if (Summary->Object.MayWrite)
      applyObjectStores(*Summary, Call, Args, Callee, *Object, Update::Weak, S);
  }
}

void Analyzer::opaqueCall(const FunctionDecl *Callee, llvm::ArrayRef<const Expr *> Args,
                          State &S, bool Report, unsigned Depth) {
  forgetReceived(S);
  for (unsigned I = 0; I < Args.size(); ++I) {
    const Expr *Arg = Args[I];
    if (isa<CXXDefaultArgExpr>(Arg))
      continue;
    if (const LambdaExpr *Lambda = lambdaOf(Arg)) {
      inlineHandedLambda(Lambda, Callee, Args, I, S, Report, Depth);
      continue;
    }
    if (Report)
      markEscaped(argumentValues(Arg, S)); // Handed where we cannot see.
    QualType ParamType;
    if (Callee && I < Callee->getNumParams())
      ParamType = Callee->getParamDecl(I)->getType();
    bool ByMutableRef = ParamType.isNull()
                            ? Arg->isGLValue()
                            : (ParamType->isReferenceType() &&
                               !ParamType.getNonReferenceType().isConstQualified());
    const Expr *Plain = Arg->IgnoreParenImpCasts();
    auto VarOf = [](const Expr *E) -> const VarDecl * {
      if (const auto *DRE = dyn_cast<DeclRefExpr>(E->IgnoreParenImpCasts()))
        return dyn_cast<VarDecl>(DRE->getDecl());
      return nullptr;
    };
    if (const auto *UO = dyn_cast<UnaryOperator>(Plain); UO && UO->getOpcode() == UO_AddrOf) {
      for (const Location &L : resolve(UO->getSubExpr(), S)) {
        receiveMayBeWaited({L}, S);
        forgetBelow(L, S);
      }
      if (const VarDecl *VD = VarOf(UO->getSubExpr()))
        invalidateVar(VD, S);
      continue;
    }
    if (Types.isPointer(Plain->getType())) {
      LocationList Targets = designated(Plain, S);
      receiveMayBeWaited(Targets, S);
      bool ToConst = Plain->getType()->isPointerType() &&
                     Plain->getType()->getPointeeType().isConstQualified();
      if (!ToConst)
        for (const Location &L : Targets)
          forgetBelow(L, S);
      continue;
    }
    if (!ByMutableRef)
      continue;
    if (Types.holdsDescriptors(Arg->getType())) {
      LocationList Locs = resolve(Arg, S);
      receiveMayBeWaited(Locs, S);
      for (const Location &L : Locs)
        forgetBelow(L, S);
    }
    if (const VarDecl *VD = VarOf(Arg))
      invalidateVar(VD, S);
  }
}

const LambdaExpr *Analyzer::lambdaOf(const Expr *E) {
  auto [It, Inserted] = Lambdas.try_emplace(E, nullptr);
  if (!Inserted)
    return It->second;
  const LambdaExpr *Found = nullptr;
  const Expr *Plain = stripWrappers(E);
  const auto *DRE = dyn_cast<DeclRefExpr>(Plain->IgnoreParenImpCasts());
  const auto *VD = DRE ? dyn_cast<VarDecl>(DRE->getDecl()) : nullptr;
  if (const auto *L = dyn_cast<LambdaExpr>(Plain)) {
    Found = L;
  } else if (VD && isa<ParmVarDecl>(VD)) {
    // A parameter of a closure's type (`body` of a runner held in a local,
    // `[](auto body) { body(); }`) holds the one lambda of that type: the
    // one the call inlining this body was handed. Not yet handed one, it
    // is asked again later.
    if (const CXXRecordDecl *Closure = VD->getType().getNonReferenceType()->getAsCXXRecordDecl())
      Found = ClosureLambdas.lookup(Closure);
    if (!Found) {
      Lambdas.erase(It);
      return nullptr;
    }
  } else if (VD && VD->getInit() && VD->hasLocalStorage() && !VD->getType()->isReferenceType()) {
    Found = dyn_cast<LambdaExpr>(stripWrappers(VD->getInit()));
  }
  if (Found)
    ClosureLambdas.try_emplace(Found->getLambdaClass(), Found);
  It->second = Found;
  return Found;
}

void Analyzer::inlineHandedLambda(const LambdaExpr *Lambda, const FunctionDecl *Callee,
                                  llvm::ArrayRef<const Expr *> Args, unsigned Arg, State &S,
                                  bool Report, unsigned Depth) {
  bool InPlace = inPlaceLambdaArgument(Callee, Args, Arg) == Lambda;
  // A closure held in a local and handed to such a function (`auto drain =
  // [&] { ... }; when(r, drain);`) runs there the same way: at most once, at
  // the call, under the flag. (Its body stays a lambda's for the walks that
  // judge where code is written.)
  const std::optional<InPlaceRun> *Run =
      Callee && Lambda->getCallOperator()->param_empty() && isa<DeclRefExpr>(stripWrappers(Args[Arg]))
          ? &AnalysisCache::current().inPlaceRun(*Callee, Arg)
          : nullptr;
  bool RunsAtCall = InPlace || (Run && *Run);
  // `when(kPrefetch, ...)` with a constant flag runs it, or never does.
  std::optional<bool> Runs = InPlace      ? runsInPlace(Callee, Args, Arg, Ctx)
                             : RunsAtCall ? runDecided(**Run, Args, Ctx)
                                          : std::nullopt;
  if (Runs && !*Runs)
    return;
  // `when(r, [&] { ... })`: it runs where the argument for the flag holds
  // (or fails), a condition of this function its body may assume.
  const Expr *RunsWhen = nullptr;
  bool Holds = true;
  if (RunsAtCall && !Runs)
    if (const std::optional<InPlaceRun> &Run = AnalysisCache::current().inPlaceRun(*Callee, Arg);
        Run && Run->Flag && *Run->Flag < Args.size() && !isa<CXXDefaultArgExpr>(Args[*Run->Flag])) {
      RunsWhen = Args[*Run->Flag];
      Holds = Run->Positive;
    }
  // A closure held in a variable (`when(r, finish)`): its copies of what
  // it captured.
  LocationList Closure;
  if (Args[Arg]->isGLValue() && !isa<MaterializeTemporaryExpr>(Args[Arg]->IgnoreParens()))
    Closure = resolve(Args[Arg], S);
  inlineLambda(Lambda, nullptr, {}, S, /*MayNotRun=*/!Runs, Report, Depth, InPlace, RunsWhen,
               Holds, &Closure);
}

void Analyzer::inlineLambda(const LambdaExpr *Lambda, const CXXMethodDecl *CallOperator,
                            llvm::ArrayRef<LocationList> ArgLocations, State &S, bool MayNotRun,
                            bool Report, unsigned Depth, bool InPlace, const Expr *RunsWhen,
                            bool RunsWhenHolds, const LocationList *Closure) {
  const CXXMethodDecl *Op = CallOperator ? CallOperator : Lambda->getCallOperator();
  const CFG *G = Depth < Limits.MaxLambdaDepth && !Op->isDependentContext()
                     ? cfgFor(Op, Op->getBody())
                     : nullptr;
  if (!G) {
    Out.LambdasNotRun.insert(Op->getParent());
    forgetCaptures(Lambda, S);
    for (const LocationList &Locs : ArgLocations) {
      escapeBelow(Locs, S);
      for (const Location &L : Locs)
        forgetBelow(L, S);
    }
    return;
  }
  State Entry = S;
  // Its parameters: a reference designates the argument, a value copies it.
  for (unsigned I = 0; I < Op->getNumParams(); ++I) {
    const ParmVarDecl *P = Op->getParamDecl(I);
    Location Here = Location::variable(P);
    QualType T = P->getType();
    if (!Types.holdsDescriptors(T.getNonReferenceType()))
      continue;
    if (I >= ArgLocations.size() || ArgLocations[I].empty()) {
      materialize(Here, T.getNonReferenceType(), Entry, [&](const TypeModel::Leaf &Leaf, Cell &C) {
        if (Leaf.Kind != Shape::Pointer)
          C.Values = unknown();
      });
      continue;
    }
    if (T->isReferenceType())
      Entry.Cells[Here].Targets = withoutLast(ArgLocations[I]);
    else
      copyObject(ArgLocations[I], Here, Entry, Update::Strong);
  }
  // Its init-captures (`[c = make_async_copy(...)]`): what their
  // initialisers hold (built where the lambda is, the same copies).
  for (const LambdaCapture &C : Lambda->captures()) {
    const auto *VD = C.capturesVariable() ? dyn_cast<VarDecl>(C.getCapturedVar()) : nullptr;
    if (!VD || !VD->isInitCapture() || !VD->getInit() ||
        !Types.holdsDescriptors(VD->getType().getNonReferenceType()))
      continue;
    Location Here = Location::variable(VD);
    if (VD->getType()->isReferenceType())
      Entry.Cells[Here].Targets = withoutLast(resolve(VD->getInit(), Entry));
    else
      initialize(Here, VD->getType(), VD->getInit(), Entry, /*Report=*/false, Depth);
  }
  // Its captures by copy: what the closure copied where the lambda was
  // written, where the variable has been written since (`[d] { ... }`,
  // then `d = other;` before the call).
  llvm::SmallVector<std::pair<Location, Location>, 1> Copies = capturedCopies(Lambda, Closure, Entry);
  for (const auto &[Variable, Copy] : Copies)
    replaceBelow(Variable, Entry, Copy);
  if (RunsWhen)
    refine(Entry, classify(RunsWhen, Entry), RunsWhenHolds);
  InlinedLambdas += !InPlace;
  State Exit = runCFG(*G, std::move(Entry), Report, Depth + 1);
  InlinedLambdas -= !InPlace;
  if (Out.HitWorkLimit)
    return;
  Out.LambdasRun.insert(Op);
  // The lambda's own locals and parameters end with it.
  for (auto It = Exit.Cells.begin(); It != Exit.Cells.end();) {
    const auto *D = It->first.Kind == Location::Variable
                        ? static_cast<const Decl *>(It->first.Root)
                        : nullptr;
    It = D && D->getDeclContext() == Op ? Exit.Cells.erase(It) : std::next(It);
  }
  // The variables it copied are the caller's again; a mutable lambda's
  // writes to its copies stay in the closure.
  if (Exit.Reachable)
    for (const auto &[Variable, Copy] : Copies) {
      replaceBelow(Copy, Exit, Variable);
      // A wait_send the body made on its copy: no receive wait after the
      // call, on the variable, is that copy's (those made before the call
      // on the variable stay).
      pendingOverwritten({Variable}, Exit, &S.Pending);
      replaceBelow(Variable, Exit, Variable, &S);
    }
  if (!Exit.Reachable) {
    Exit = S; // It cannot return normally; keep the caller's view.
  } else {
    Exit.Facts = S.Facts;
    Exit.Guards = S.Guards;
  }
  S = MayNotRun ? joinStates(S, Exit) : std::move(Exit);
}

llvm::SmallVector<Analyzer::CopiedCapture, 1>
Analyzer::copiedCaptures(const LambdaExpr &Lambda) {
  llvm::SmallVector<CopiedCapture, 1> Copied;
  if (Lambda.capture_size() == 0)
    return Copied;
  llvm::DenseMap<const ValueDecl *, FieldDecl *> Fields;
  FieldDecl *ThisField = nullptr;
  Lambda.getLambdaClass()->getCaptureFields(Fields, ThisField);
  for (auto [C, Init] : llvm::zip(Lambda.captures(), Lambda.capture_inits())) {
    const auto *VD = C.capturesVariable() && C.getCaptureKind() == LCK_ByCopy
                         ? dyn_cast<VarDecl>(C.getCapturedVar())
                         : nullptr;
    const FieldDecl *FD = VD && !VD->isInitCapture() ? Fields.lookup(VD) : nullptr;
    if (FD && Init && Types.holdsDescriptors(FD->getType()))
      Copied.push_back({VD, FD, Init});
  }
  return Copied;
}

llvm::SmallVector<std::pair<Location, Location>, 1>
Analyzer::capturedCopies(const LambdaExpr *Lambda, const LocationList *Closure, const State &S) {
  llvm::SmallVector<std::pair<Location, Location>, 1> Copies;
  if (!Closure || Closure->size() != 1 || !Closure->front().isSingle())
    return Copies;
  for (const CopiedCapture &C : copiedCaptures(*Lambda)) {
    Location Copy = Closure->front().child(PathStep::field(C.Field));
    Location Variable = Location::variable(C.Variable);
    auto [First, Last] = const_cast<State &>(S).cellsBelow(Copy);
    // A closure the model did not build (no cells), or one whose copy is
    // what the variable holds now: the body reads the variable, as it is.
    if (First == Last || sameBelow(S, Copy, Variable))
      continue;
    Copies.push_back({Variable, Copy});
  }
  return Copies;
}

bool Analyzer::sameBelow(const State &S, const Location &A, const Location &B) {
  auto [AFirst, ALast] = const_cast<State &>(S).cellsBelow(A);
  auto [BFirst, BLast] = const_cast<State &>(S).cellsBelow(B);
  for (; AFirst != ALast && BFirst != BLast; ++AFirst, ++BFirst)
    if (A.suffixOf(AFirst->first) != B.suffixOf(BFirst->first) ||
        AFirst->second != BFirst->second)
      return false;
  return AFirst == ALast && BFirst == BLast;
}

void Analyzer::replaceBelow(const Location &To, State &S, const Location &From,
                            const State *FromState) {
  std::vector<std::pair<Location, Cell>> Moved;
  State &Source = FromState ? const_cast<State &>(*FromState) : S;
  auto [First, Last] = Source.cellsBelow(From);
  for (auto It = First; It != Last; ++It) {
    Location Dest = To.child(From.suffixOf(It->first).steps());
    if (!Dest.isUnknown())
      Moved.push_back({Dest, It->second});
  }
  eraseBelow(To, S);
  for (auto &[L, C] : Moved)
    S.Cells[L] = std::move(C);
}

void Analyzer::forgetCaptures(const LambdaExpr *Lambda, State &S) {
  // What it may write through a reference or pointer it captured.
  for (const LambdaCapture &C : Lambda->captures())
    if (C.capturesVariable())
      if (const auto *VD = dyn_cast<VarDecl>(C.getCapturedVar())) {
        auto It = S.Cells.find(Location::variable(VD));
        LocationList Targets = It != S.Cells.end() ? It->second.Targets : LocationList();
        for (const Location &T : Targets)
          forgetFlagsBelow(T, S);
        if (C.getCaptureKind() == LCK_ByRef)
          forgetFlagsBelow(Location::variable(VD), S);
      }
  for (const LambdaCapture &C : Lambda->captures())
    if (C.capturesVariable() && C.getCaptureKind() == LCK_ByRef)
      if (const auto *VD = dyn_cast<VarDecl>(C.getCapturedVar())) {
        invalidateVar(VD, S);
        LocationList Locs{Location::variable(VD)};
        escapeBelow(Locs, S);
        receiveMayBeWaited(Locs, S);
        forgetBelow(Locs[0], S);
      }
}

const CXXMethodDecl *Analyzer::calledOperator(const LambdaExpr &Lambda) {
  const CXXMethodDecl *Op = Lambda.getCallOperator();
  const FunctionTemplateDecl *Template = Op->getDescribedFunctionTemplate();
  if (!Template)
    return Op;
  // A generic lambda: its instantiation for one argument that holds
  // descriptors.
  for (const FunctionDecl *Spec : Template->specializations())
    if (const auto *M = dyn_cast<CXXMethodDecl>(Spec);
        M && M->getNumParams() == 1 &&
        Types.holdsDescriptors(M->getParamDecl(0)->getType().getNonReferenceType()))
      return M;
  return nullptr;
}

void Analyzer::transferStdCall(const CallExpr *Call, FunctionEffect Effect, State &S,
                               bool Report, unsigned Depth) {
  auto Args = callArguments(Call);
  switch (Effect) {
  case FunctionEffect::Visit: {
    // std::visit(f, v): f called with the alternative v holds.
    if (Args.empty())
      return;
    const LambdaExpr *Lambda = lambdaOf(Args[0]);
    llvm::SmallVector<LocationList, 2> ArgLocations;
    for (unsigned I = 1; I < Args.size(); ++I) {
      LocationList Alternatives;
      const TypeShape &TS = Types.shapeOf(Args[I]->getType());
      for (const Location &Whole : resolve(Args[I], S))
        for (const TypePart &P : TS.Parts)
          addLocation(Alternatives, Whole.child(P.Step));
      ArgLocations.push_back(Alternatives.empty() ? LocationList{Location::unknown()}
                                                  : Alternatives);
    }
    if (!Lambda) {
      opaqueCall(Call->getDirectCallee(), Args, S, Report, Depth);
      return;
    }
    // The call operator visit instantiates for the first alternative.
    const CXXMethodDecl *Op = calledOperator(*Lambda);
    if (!Op) {
      opaqueCall(Call->getDirectCallee(), Args, S, Report, Depth);
      return;
    }
    inlineLambda(Lambda, Op, ArgLocations, S, /*MayNotRun=*/false, Report, Depth,
                 /*InPlace=*/false);
    return;
  }
  case FunctionEffect::ForEach: {
    // std::for_each(first, last, f): f called with each element of the
    // range, perhaps with none. The elements are one location, so two runs
    // (each perhaps not made) leave what any number of calls may: the
    // second, the one that reports, starts from what none and one call
    // leave.
    const LambdaExpr *Lambda = Args.size() == 3 ? lambdaOf(Args[2]) : nullptr;
    const CXXMethodDecl *Op = Lambda ? calledOperator(*Lambda) : nullptr;
    if (!Op || Op->getNumParams() != 1) {
      opaqueCall(Call->getDirectCallee(), Args, S, Report, Depth);
      return;
    }
    llvm::SmallVector<LocationList, 1> ArgLocations{rangeElements(Args[0], S)};
    for (bool Last : {false, true}) {
      inlineLambda(Lambda, Op, ArgLocations, S, /*MayNotRun=*/true, Report && Last, Depth,
                   /*InPlace=*/false);
      if (Out.HitWorkLimit)
        return;
    }
    return;
  }
  case FunctionEffect::Swap: {
    // std::swap(a, b) exchanges a and b; std::iter_swap(i, j) what they
    // designate.
    if (Args.size() != 2) {
      opaqueCall(Call->getDirectCallee(), Args, S, Report, Depth);
      return;
    }
    bool Designated = Call->getDirectCallee()->getName() == "iter_swap";
    auto Objects = [&](const Expr *E) { return Designated ? designated(E, S) : resolve(E, S); };
    swapObjects(Objects(Args[0]), Objects(Args[1]), S);
    return;
  }
  case FunctionEffect::Identity:
  case FunctionEffect::GetPart:
  case FunctionEffect::GetPartAddress:
  case FunctionEffect::AddressOf:
  case FunctionEffect::Iterator:
  case FunctionEffect::Nothing:
  case FunctionEffect::MakeHeap:
  case FunctionEffect::MakeAggregate:
    return; // What they return is read where it is used.
  case FunctionEffect::Unlisted:
    opaqueCall(Call->getDirectCallee(), Args, S, Report, Depth);
    return;
  }
}

} // namespace dmalint
