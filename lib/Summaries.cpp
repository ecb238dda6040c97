//===- Summaries.cpp - What a function's callers learn of it --------------===//
//
// From the report sweep and the exit state: per parameter (and for the
// object of a member function), the wait_sends reached from it with no
// remoteness guard, by path below it, and whether it may be used, kept or
// written; what the function returns, by path; what a constructor or member
// function leaves in its object (which AnalysisCache unites into the
// summary of the class's members).
//
//===----------------------------------------------------------------------===//
#include "Analyzer.h"
#include "dmalint/AnalysisCache.h"
#include "dmalint/Semaphores.h"
#include "llvm/ADT/ScopeExit.h"
#include <map>

using namespace clang;

namespace dmalint {

// ------------------------------------------------------- summary values ---

void SummaryValues::unionWith(const SummaryValues &Other) {
  // A construction returned under facts on one side and not at all on the
  // other keeps them; under facts on both, those both hold; returned
  // without any on either side, none.
  using Construction = std::pair<const clang::Expr *, Remoteness>;
  auto WhenOf = [](const SummaryValues &SV, const Construction &Site) -> const ParamFacts * {
    for (const auto &[S, Facts] : SV.BuiltWhen)
      if (S == Site)
        return &Facts;
    return nullptr;
  };
  auto Returns = [](const SummaryValues &SV, const Construction &Site) {
    return llvm::is_contained(SV.Built, Site);
  };
  decltype(BuiltWhen) When;
  for (const auto &[Site, Facts] : BuiltWhen) {
    const ParamFacts *Theirs = WhenOf(Other, Site);
    if (!Returns(Other, Site)) {
      When.push_back({Site, Facts});
    } else if (Theirs) {
      ParamFacts Both = Facts;
      keepCommonFacts(Both, *Theirs);
      if (!Both.empty())
        When.push_back({Site, std::move(Both)});
    }
  }
  for (const auto &[Site, Facts] : Other.BuiltWhen)
    if (!Returns(*this, Site))
      When.push_back({Site, Facts});
  BuiltWhen = std::move(When);
  for (const auto &B : Other.Built)
    if (!llvm::is_contained(Built, B))
      Built.push_back(B);
  for (const Expr *Site : Other.UsedByCallee)
    if (!llvm::is_contained(UsedByCallee, Site))
      UsedByCallee.push_back(Site);
  for (const auto &P : Other.FromParams)
    if (!llvm::is_contained(FromParams, P))
      FromParams.push_back(P);
  FromObject |= Other.FromObject;
  Unknown |= Other.Unknown;
}

bool operator==(const SummaryValues &A, const SummaryValues &B) {
  auto Same = [](const auto &X, const auto &Y) {
    return X.size() == Y.size() && llvm::all_of(X, [&](const auto &E) {
             return llvm::is_contained(Y, E);
           });
  };
  return Same(A.Built, B.Built) && Same(A.BuiltWhen, B.BuiltWhen) &&
         Same(A.UsedByCallee, B.UsedByCallee) &&
         Same(A.FromParams, B.FromParams) &&
         A.FromObject == B.FromObject && A.Unknown == B.Unknown;
}

static bool samePaths(const std::vector<PathValues> &A, const std::vector<PathValues> &B) {
  if (A.size() != B.size())
    return false;
  for (const PathValues &P : A)
    if (llvm::none_of(B, [&](const PathValues &Q) {
          return Q.Path == P.Path && Q.Values == P.Values;
        }))
      return false;
  return true;
}

static bool sameParameter(const ParameterSummary &P, const ParameterSummary &Q) {
  if (P.MayUse != Q.MayUse || P.Escapes != Q.Escapes || P.MayWrite != Q.MayWrite ||
      P.RequiresRemote.size() != Q.RequiresRemote.size())
    return false;
  for (size_t I = 0; I < P.RequiresRemote.size(); ++I)
    if (P.RequiresRemote[I].Path != Q.RequiresRemote[I].Path)
      return false;
  return true;
}

bool operator==(const FunctionSummary &A, const FunctionSummary &B) {
  if (A.Params.size() != B.Params.size() || !sameParameter(A.Object, B.Object) ||
      !samePaths(A.Returns, B.Returns) || !samePaths(A.ObjectStores, B.ObjectStores) ||
      !(A.FlagInits == B.FlagInits))
    return false;
  for (size_t I = 0; I < A.Params.size(); ++I)
    if (!sameParameter(A.Params[I], B.Params[I]))
      return false;
  return true;
}

bool operator==(const ClassSummary &A, const ClassSummary &B) {
  return samePaths(A.Members, B.Members);
}

static void addPathValues(std::vector<PathValues> &Into, const AccessPath &Path,
                          const SummaryValues &Values) {
  for (PathValues &PV : Into)
    if (PV.Path == Path) {
      PV.Values.unionWith(Values);
      return;
    }
  Into.push_back(PathValues{Path, Values});
}

void unitePaths(std::vector<PathValues> &Into, const std::vector<PathValues> &From) {
  for (const PathValues &PV : From)
    addPathValues(Into, PV.Path, PV.Values);
}

// ------------------------------------------------------------- analyzer ---

std::optional<ParamFact> Analyzer::capturedCondition(const Fact &F) const {
  const auto *Op = dyn_cast_or_null<CXXMethodDecl>(Function);
  const AtomInfo &Info = Atoms[F.Atom];
  if (!Op || !Op->getParent()->isLambda() || !Info.Cond || Info.Vars.empty())
    return std::nullopt;
  for (const VarDecl *VD : Info.Vars) {
    const auto *Owner = dyn_cast<FunctionDecl>(VD->getDeclContext());
    // The lambda's parameters, and the locals and parameters of a function
    // around it (what it captures): read the same at the call.
    if (!Owner || !VD->hasLocalStorage() || (Owner != Op && isa<ParmVarDecl>(VD) &&
                                             !Owner->getBody()))
      return std::nullopt;
    if (Owner != Op && !VD->getDeclContext()->Encloses(Op))
      return std::nullopt;
    if (Owner == Op && !isa<ParmVarDecl>(VD))
      return std::nullopt; // One of its own locals: gone at the call.
    if (!Owner->getBody() || !AnalysisCache::current().variables(*Owner, Api).unwritten(VD))
      return std::nullopt;
  }
  ParamFact PF;
  PF.Holds = F.Holds != Info.CondNegated;
  PF.Condition = Info.Cond;
  return PF;
}

SummaryValues Analyzer::toSummary(const ValueSet &VS, const State *Returned) const {
  SummaryValues SV;
  if (Returned && Function) {
    // The facts on bool parameters the function never writes (one it
    // writes is no longer what the caller passed) under which a value is
    // returned here: the path's and the value's own.
    // By construction and kind: a callee's summary returned here is one
    // construction (the call) of either kind.
    std::map<std::pair<const clang::Expr *, Remoteness>, ParamFacts> When;
    const UnwrittenVariables *Vars = nullptr;
    for (const Value &V : VS.values()) {
      const OriginInfo &O = Out.Origins[V.Origin];
      if (O.Param || O.ImplicitObject || O.Kind == Remoteness::Unknown || O.Folded || !O.Site)
        continue;
      ParamFacts Facts;
      auto Add = [&](const Fact &F) {
        if (F.Atom >= Atoms.size())
          return;
        if (!Atoms[F.Atom].BoolParam && !Atoms[F.Atom].ParamEquals &&
            !Atoms[F.Atom].ParamsEqual) {
          if (std::optional<ParamFact> PF = capturedCondition(F); PF && !llvm::is_contained(Facts, *PF))
            Facts.push_back(*PF);
          return;
        }
        const AtomInfo &Info = Atoms[F.Atom];
        unsigned Index = Info.BoolParam     ? *Info.BoolParam
                         : Info.ParamEquals ? Info.ParamEquals->first
                                            : Info.ParamsEqual->first;
        std::optional<unsigned> Other;
        if (Info.ParamsEqual)
          Other = Info.ParamsEqual->second;
        if (Index >= Function->getNumParams() || (Other && *Other >= Function->getNumParams()))
          return;
        if (!Vars)
          Vars = &AnalysisCache::current().variables(*Function, Api);
        if (!Vars->unwritten(Function->getParamDecl(Index)) ||
            (Other && !Vars->unwritten(Function->getParamDecl(*Other))))
          return;
        ParamFact PF{Index, F.Holds, std::nullopt, Other};
        if (Info.ParamEquals)
          PF.Equals = Info.ParamEquals->second;
        if (!llvm::is_contained(Facts, PF))
          Facts.push_back(PF);
      };
      for (const Fact &F : Returned->Facts)
        Add(F);
      for (const Fact &F : V.Assumed)
        Add(F);
      auto [It, New] = When.try_emplace({O.Site, O.Kind}, Facts);
      if (!New)
        keepCommonFacts(It->second, Facts);
    }
    for (auto &[Site, Facts] : When)
      if (!Facts.empty())
        SV.BuiltWhen.push_back({Site, std::move(Facts)});
  }
  for (OriginId Id : VS.origins()) {
    const OriginInfo &O = Out.Origins[Id];
    if (O.Param) {
      std::pair<unsigned, AccessPath> From{O.ParamIndex, O.ParamPath};
      if (!llvm::is_contained(SV.FromParams, From))
        SV.FromParams.push_back(From);
    } else if (O.ImplicitObject) {
      SV.FromObject = true;
    } else if (O.Kind == Remoteness::Unknown || O.Folded || !O.Site) {
      SV.Unknown = true;
    } else if (!llvm::is_contained(SV.Built, std::make_pair(O.Site, O.Kind))) {
      SV.Built.push_back({O.Site, O.Kind});
    }
  }
  return SV;
}

void Analyzer::recordReturn(const Expr *Returned, State &S, unsigned Depth) {
  if (!InReportSweep)
    return;
  QualType T = Returned->getType();
  if (!Types.holdsDescriptors(T))
    return;
  InReturn = true;
  auto EndReturn = llvm::make_scope_exit([this] { InReturn = false; });
  // What is returned, built in a scratch object: its paths and values.
  Location Scratch = scratch();
  bool ByReference = Function && Function->getReturnType()->isReferenceType();
  if (ByReference) {
    // A reference to what the function holds: it escapes.
    escapeBelow(resolve(Returned, S), S);
    return;
  }
  if (Types.isPointer(T)) {
    markEscaped(argumentValues(Returned, S)); // What it designates, or builds.
    return;
  }
  initialize(Scratch, T, Returned, S, /*Report=*/true, Depth);
  auto [First, Last] = S.cellsBelow(Scratch);
  ValueSet All;
  for (auto It = First; It != Last; ++It) {
    if (It->second.Flag)
      continue; // What a caller learns of a returned object is its copies.
    All.unionWith(It->second.Values);
    for (const Location &L : It->second.Targets)
      if (!L.isUnknown())
        All.unionWith(heldBelow({L}, S));
    if (Depth == 0 && It->second.Targets.empty())
      addPathValues(Out.Summary.Returns, Scratch.suffixOf(It->first),
                    toSummary(It->second.Values, &S));
  }
  markEscaped(All);
  eraseBelow(Scratch, S);
}

void Analyzer::summarise(const FunctionDecl &FD, const State &Exit) {
  FunctionSummary &Summary = Out.Summary;
  auto ParameterOf = [&](const OriginInfo &O) -> ParameterSummary * {
    if (O.ImplicitObject)
      return &Summary.Object;
    if (O.Param && O.ParamIndex < Summary.Params.size())
      return &Summary.Params[O.ParamIndex];
    return nullptr;
  };
  auto Require = [&](const ValueSet &VS, const SendWaitRequirement &Requirement) {
    for (const Value &V : VS.values()) {
      if (!isUnguardedParam(V))
        continue;
      const OriginInfo &O = Out.Origins[V.Origin];
      ParameterSummary *P = ParameterOf(O);
      if (!P)
        continue;
      auto It = llvm::find_if(P->RequiresRemote,
                              [&](const PathRequirement &R) { return R.Path == O.ParamPath; });
      if (It == P->RequiresRemote.end()) {
        P->RequiresRemote.push_back(PathRequirement{O.ParamPath, Requirement});
      } else {
        // Two wait_sends under different conditions: under any condition.
        if (!(It->Requirement.WhenParams == Requirement.WhenParams))
          It->Requirement.WhenParams.clear();
        if (!(It->Requirement.WhenObject == Requirement.WhenObject))
          It->Requirement.WhenObject.clear();
      }
    }
  };
  for (const DescriptorUse &Use : Out.WaitSends)
    Require(Use.Values, SendWaitRequirement{Use.Call, {}, Use.Params, Use.ObjectMembers});
  for (const HelperWaitSend &H : Out.HelperWaitSends) {
    SendWaitRequirement Chained = H.Requirement;
    Chained.Through.insert(Chained.Through.begin(), H.Call);
    Chained.WhenParams.clear(); // They were the callee's parameters
    Chained.WhenObject.clear(); // and its object's members.
    Require(H.Values, Chained);
  }
  for (OriginId Id = 0; Id < Out.Origins.size(); ++Id) {
    ParameterSummary *P = ParameterOf(Out.Origins[Id]);
    if (!P)
      continue;
    P->MayUse |= Id < Used.size() && Used[Id];
    P->Escapes |= Id < Escaped.size() && Escaped[Id];
  }
  for (unsigned I = 0; I < FD.getNumParams(); ++I) {
    QualType T = FD.getParamDecl(I)->getType();
    Summary.Params[I].MayWrite = WrittenParams.count(FD.getParamDecl(I)) &&
                                 (T->isReferenceType() || T->isPointerType()) &&
                                 !T->getPointeeType().isConstQualified() &&
                                 !T.getNonReferenceType().isConstQualified();
  }
  Summary.Object.MayWrite = WroteObject;
  // The copies it returns that are not new to the caller: started, waited
  // or stored elsewhere here, or read from an object (SummaryValues::UsedByCallee).
  auto Set = [](const std::vector<bool> &V, OriginId Id) { return Id < V.size() && V[Id]; };
  for (PathValues &PV : Summary.Returns)
    for (const auto &[Site, Kind] : PV.Values.Built)
      for (OriginId Id = 1; Id < Out.Origins.size(); ++Id)
        if (Out.Origins[Id].Site == Site &&
            (Out.Origins[Id].Imported || Set(Used, Id) || Set(EscapedNotReturned, Id)) &&
            !llvm::is_contained(PV.Values.UsedByCallee, Site)) {
          PV.Values.UsedByCallee.push_back(Site);
          break;
        }
  // What a constructor or member function leaves in its object.
  if (ObjectClass && Exit.Reachable) {
    Location Object = Location::object(ObjectClass);
    for (auto It = Exit.Cells.lower_bound(Object);
         It != Exit.Cells.end() && Object.isPrefixOf(It->first); ++It) {
      if (It->second.Flag)
        continue;
      if (It->second.Targets.empty()) {
        addPathValues(Summary.ObjectStores, Object.suffixOf(It->first),
                      toSummary(It->second.Values));
        continue;
      }
      // A pointer member (`d_(new D(...))`, a std::unique_ptr) designating
      // what was built here: the object keeps it for its other member
      // functions, which the summary does not follow through pointers, so it
      // escapes into the object as a member's own value would.
      // (After the report sweep, so set here rather than through mark().)
      ValueSet Held = heldBelow(It->second.Targets, Exit);
      for (const Value &V : Held.values()) {
        if (Out.Origins[V.Origin].Param)
          continue;
        if (Escaped.size() <= V.Origin)
          Escaped.resize(V.Origin + 1, false);
        Escaped[V.Origin] = true;
      }
    }
  }
  if (const auto *Ctor = dyn_cast<CXXConstructorDecl>(&FD))
    Summary.FlagInits = memberFlagInits(*Ctor);
}

std::vector<MemberFlagInit> Analyzer::memberFlagInits(const CXXConstructorDecl &Ctor) {
  std::vector<MemberFlagInit> Inits;
  if (!Ctor.getBody())
    return Inits;
  const UnwrittenVariables &Vars = AnalysisCache::current().variables(Ctor, Api);
  // What runs after the member is initialised: the body, and (in
  // declaration order, but any may hand `this` on) the other initialisers.
  auto Left = [&](const FieldDecl *F) {
    if (!dmalint::leavesMember(Ctor.getBody(), F))
      return false;
    return llvm::all_of(Ctor.inits(), [&](const CXXCtorInitializer *I) {
      return !I->getInit() || dmalint::leavesMember(I->getInit(), F);
    });
  };
  for (const CXXCtorInitializer *I : Ctor.inits()) {
    const FieldDecl *F = I->getMember();
    if (!F || !isFlagType(F->getType()) || !I->getInit() ||
        AnalysisCache::current().flagWrittenUnseen(*F, Ctx) || !Left(F))
      continue;
    const Expr *Init = I->getInit()->IgnoreImplicit();
    if (const auto *Default = dyn_cast<CXXDefaultInitExpr>(Init))
      Init = Default->getExpr() ? Default->getExpr()->IgnoreImplicit() : nullptr;
    if (!Init || Init->isValueDependent())
      continue;
    MemberFlagInit M;
    M.Field = F;
    // A parameter the constructor never writes, as it is or its copy's test.
    const Expr *Plain = Init->IgnoreParenImpCasts();
    const Expr *Tested = nullptr;
    if (const auto *Call = dyn_cast<CXXMemberCallExpr>(Plain);
        Call && role(Call->getMethodDecl()) == ApiRole::IsRemote) {
      Tested = Call->getImplicitObjectArgument();
      M.IsRemoteOf = true;
    } else if (!isa<DeclRefExpr>(Plain) ||
               !Ctx.hasSameUnqualifiedType(Plain->getType(), F->getType())) {
      Tested = nullptr;
    } else {
      Tested = Plain;
    }
    const auto *DRE = Tested ? dyn_cast<DeclRefExpr>(Tested->IgnoreParenImpCasts()) : nullptr;
    const auto *P = DRE ? dyn_cast<ParmVarDecl>(DRE->getDecl()) : nullptr;
    if (P && P->getDeclContext() == &Ctor && Vars.unwritten(P)) {
      M.Param = P->getFunctionScopeIndex();
      Inits.push_back(M);
      continue;
    }
    if (M.IsRemoteOf)
      continue;
    Expr::EvalResult Result;
    if (Init->EvaluateAsInt(Result, Ctx)) {
      M.Constant = Result.Val.getInt().getExtValue();
      Inits.push_back(M);
    }
  }
  return Inits;
}

} // namespace dmalint
