//===- DescriptorAnalysis.cpp - The facade: one function's analysis -------===//
//
// A forward analysis over clang's CFG (Worklist.cpp) of the state in
// State.h. This file sets up the entry state: what the parameters bring
// (origins of unknown kind, one per path below each parameter, which the
// function's summary is about) and, in a member function, what `*this`
// holds (what the class's member functions may have stored in its
// members, from the class summary), and collects the results.
//
//===----------------------------------------------------------------------===//
#include "Analyzer.h"
#include "dmalint/AnalysisCache.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "dmalint/AstUtil.h"
#include "clang/Basic/SourceManager.h"

using namespace clang;

namespace dmalint {

bool isDescriptorContainer(QualType T, const ApiIndex &Api) {
  TypeModel Types(Api);
  return Types.isContainer(T);
}

Analyzer::Analyzer(ASTContext &Ctx, const ApiIndex &Api, const AnalysisLimits &Limits,
                   SummarySource *Summaries, TypeModel &Types, CfgCache &Cfgs,
                   FunctionAnalysis &Out)
    : Ctx(Ctx), Api(Api), Limits(Limits), Summaries(Summaries), Types(Types), Cfgs(Cfgs),
      Out(Out) {
  Out.Origins.push_back(OriginInfo{}); // UnknownOrigin
}

namespace {

/// The class whose object `this` designates in \p FD: its own for a member
/// function, the enclosing member function's inside a lambda.
const CXXRecordDecl *objectClassOf(const FunctionDecl &FD) {
  const auto *MD = dyn_cast<CXXMethodDecl>(&FD);
  while (MD && MD->isInstance()) {
    const CXXRecordDecl *RD = MD->getParent();
    if (!RD->isLambda())
      return RD;
    MD = dyn_cast<CXXMethodDecl>(RD->getDeclContext());
  }
  return nullptr;
}

/// Whether code outside \p RD may write the member at \p Path: it is not
/// private, a friend may, or a member function hands out a way to.
bool exposed(const CXXRecordDecl &RD, const AccessPath &Path, TypeModel &Types) {
  if (Path.empty() || Path.Steps[0].K != PathStep::Field)
    return true;
  if (Path.Steps[0].FieldD->getAccess() != AS_private || RD.hasFriends())
    return true;
  for (const CXXMethodDecl *MD : RD.methods()) {
    QualType R = MD->getReturnType();
    if ((R->isReferenceType() || R->isPointerType()) && !R->getPointeeType().isConstQualified() &&
        Types.holdsDescriptors(R->getPointeeType()))
      return true;
  }
  return false;
}

/// Whether \p FD (a member function) may read copies its object holds: it
/// names a member that holds some, or hands `this` on (another member
/// function called on it may).
bool readsObjectCopies(const FunctionDecl &FD, TypeModel &Types) {
  struct Walk : RecursiveASTVisitor<Walk> {
    TypeModel &Types;
    bool Reads = false;
    llvm::DenseSet<const CXXThisExpr *> FieldBases;
    explicit Walk(TypeModel &Types) : Types(Types) {}
    bool VisitMemberExpr(MemberExpr *ME) {
      const auto *This = dyn_cast<CXXThisExpr>(ME->getBase()->IgnoreParenImpCasts());
      const auto *F = dyn_cast<FieldDecl>(ME->getMemberDecl());
      if (This && F && !Types.holdsDescriptors(F->getType()))
        FieldBases.insert(This);
      return true;
    }
    bool VisitCXXThisExpr(CXXThisExpr *This) {
      Reads |= !FieldBases.contains(This);
      return !Reads;
    }
  } W(Types);
  W.TraverseStmt(FD.getBody());
  return W.Reads;
}

} // namespace

void Analyzer::run(const FunctionDecl &FD) {
  Function = &FD;
  ObjectClass = objectClassOf(FD);
  const CFG *G = cfgFor(&FD, FD.getBody());
  if (!G)
    return;
  Out.Summary.Params.resize(FD.getNumParams());
  State Entry;
  for (unsigned I = 0; I < FD.getNumParams(); ++I) {
    const ParmVarDecl *P = FD.getParamDecl(I);
    QualType T = P->getType().getNonReferenceType();
    auto FromParam = [&](const TypeModel::Leaf &Leaf, Cell &C) {
      if (Leaf.Kind != Shape::Pointer)
        C.Values = ValueSet::of(paramValue(P, I, Leaf.Path));
    };
    const TypeShape &TS = Types.shapeOf(T);
    if (TS.Kind == Shape::Pointer) {
      // A pointer (or iterator, smart pointer, span) brings what it designates.
      Location Pointee = Location::object(P);
      Entry.Cells[Location::variable(P)].Targets = {Pointee};
      materialize(Pointee, TS.Element, Entry, FromParam);
    } else if (TS.holdsDescriptors()) {
      materialize(Location::variable(P), T, Entry, FromParam);
    }
  }
  if (ObjectClass && !isa<CXXConstructorDecl>(FD)) {
    // *this: what the caller's object held (of unknown kind), and what the
    // class's member functions may have left in its members.
    // Not asked of a member function that reads no copy of its object (a
    // constructor's helper building one from the members, `make_copy(i)`):
    // the class summary it would wait for may be the one being made.
    const ClassSummary *Members = Summaries && readsObjectCopies(FD, Types)
                                      ? Summaries->members(*ObjectClass)
                                      : nullptr;
    Location Object = Location::object(ObjectClass);
    QualType ObjectType = recordTypeOf(Ctx, *ObjectClass);
    auto FromObject = [&](const AccessPath &Path) {
      Value V = objectValue(Path);
      Out.Origins[V.Origin].Covered =
          Members && !Members->Incomplete && !exposed(*ObjectClass, Path, Types);
      return ValueSet::of(V);
    };
    materialize(Object, ObjectType, Entry, [&](const TypeModel::Leaf &Leaf, Cell &C) {
      if (Leaf.Kind != Shape::Pointer)
        C.Values = FromObject(Leaf.Path);
    });
    if (Members)
      for (const PathValues &PV : Members->Members) {
        Location At = Object.child(PV.Path.steps());
        if (At.isUnknown())
          continue;
        auto [It, Inserted] = Entry.Cells.try_emplace(At);
        if (Inserted)
          It->second.Values = FromObject(PV.Path);
        ValueSet Stored;
        bool ByConstructor = constructorsDecideKind(*ObjectClass, PV.Path);
        for (auto &[Site, Kind] : PV.Values.Built) {
          Value V = importedValue(Site, Kind);
          Out.Origins[V.Origin].ByConstructor = ByConstructor;
          Stored.unionWith(ValueSet::of(V));
        }
        // A parameter of another member function: unknown here.
        if (PV.Values.Unknown || !PV.Values.FromParams.empty())
          Stored.unionWith(unknown());
        It->second.Values.unionWith(Stored);
        bound(It->second.Values);
      }
    // A bool member that holds is_remote() of a copy member wherever a
    // member function runs (`remote_(copy_.is_remote())`, neither written
    // after): `if (remote_) copy_.wait_send();` tests the copy.
    for (const auto &[Flag, Copy] :
         AnalysisCache::current().remotenessMembers(*ObjectClass, Api, Ctx)) {
      Location At = Object.child(PathStep::field(Flag));
      if (At.isUnknown())
        continue;
      Cell &C = Entry.Cells[At];
      C = Cell();
      C.Flag = FlagIsRemote;
      C.FlagOf = Copy;
      FlagsSeen = true;
    }
  }
  State Exit = runCFG(*G, std::move(Entry), /*Report=*/true, /*Depth=*/0);
  if (Out.HitWorkLimit) {
    Out.WaitSends.clear();
    Out.Starts.clear();
    Out.ReceiveWaits.clear();
    Out.HelperWaitSends.clear();
    Out.ProtocolCalls.clear();
    return;
  }
  Out.InFlightAtExit = inFlight(Exit);
  // A wait_send whose descriptor reaches the end with no receive wait.
  for (const PendingReceive &P : Exit.Pending)
    ReceiveAfter[P.Use].second = true;
  Out.ReceiveWaitMayFollow.assign(Out.WaitSends.size(), true);
  Out.ReceiveWaitMayBeMissing.assign(Out.WaitSends.size(), true);
  for (size_t I = 0; I < Out.WaitSends.size(); ++I) {
    auto It = ReceiveAfter.find(Out.WaitSends[I].Call);
    if (It == ReceiveAfter.end())
      continue;
    Out.ReceiveWaitMayFollow[I] = It->second.first;
    Out.ReceiveWaitMayBeMissing[I] = It->second.second;
  }
  Out.ReceiveWaitedBefore.assign(Out.WaitSends.size(), false);
  for (size_t I = 0; I < Out.WaitSends.size(); ++I)
    Out.ReceiveWaitedBefore[I] = ReceivedBefore.lookup(Out.WaitSends[I].Call);
  // A heap object a pointer of the caller's objects designates at the end
  // is the caller's, and the copies built here that it holds escape: one
  // stored through an out-parameter (p.w = new D(...), q->w = new D(...),
  // out = std::make_unique<D>(...), p.v.push_back(std::make_unique<D>(...))).
  if (Exit.Reachable) {
    bool Outer = InReportSweep; // Marked as the report sweep marks: its end.
    InReportSweep = true;
    for (const auto &[L, C] : Exit.Cells) {
      const auto *P = L.Kind == Location::Variable || L.Kind == Location::Object
                          ? dyn_cast_or_null<ParmVarDecl>(static_cast<const Decl *>(L.Root))
                          : nullptr;
      if (!P || (L.Kind == Location::Variable && !P->getType()->isReferenceType()))
        continue;
      for (const Location &T : C.Targets) {
        if (T.Kind != Location::Heap)
          continue;
        ValueSet Built = heldBelow({T}, Exit);
        Built.filter([&](const Value &V) { return !Out.Origins[V.Origin].isParameter(); });
        markEscaped(Built);
      }
    }
    InReportSweep = Outer;
  }
  summarise(FD, Exit);
  Out.StartedOrWaited.assign(Out.Origins.size(), false);
  for (OriginId Id = 0; Id < Out.Origins.size() && Id < Used.size(); ++Id)
    Out.StartedOrWaited[Id] = Used[Id];
  Out.UsedOrEscaped.assign(Out.Origins.size(), false);
  for (OriginId Id = 0; Id < Out.Origins.size(); ++Id)
    Out.UsedOrEscaped[Id] = (Id < Used.size() && Used[Id]) ||
                            (Id < Escaped.size() && Escaped[Id]) || FoldedAway.count(Id);
  Out.HandedOn.assign(Out.Origins.size(), false);
  Out.HandedOnBesidesObject.assign(Out.Origins.size(), false);
  for (OriginId Id = 0; Id < Out.Origins.size(); ++Id) {
    bool Helper = (Id < HelperUsed.size() && HelperUsed[Id]) || FoldedAway.count(Id);
    Out.HandedOn[Id] = (Id < Escaped.size() && Escaped[Id]) || Helper;
    Out.HandedOnBesidesObject[Id] =
        (Id < EscapedBesidesObject.size() && EscapedBesidesObject[Id]) || Helper;
  }
}

FunctionAnalysis analyzeFunction(const FunctionDecl &FD, ASTContext &Ctx, const ApiIndex &Api,
                                 const AnalysisLimits &Limits, SummarySource *Summaries,
                                 TypeModel *Types, CfgCache *Cfgs) {
  FunctionAnalysis Out;
  if (!FD.hasBody() || FD.isDependentContext())
    return Out;
  // Every reachable block is visited at least once, so a function with more
  // blocks than the work limit is skipped (runCFG). For a body long enough to
  // hold that many branches, the AST says so before a CFG of that size is
  // built: a branch takes at least one character, so shorter bodies are not
  // counted (one written with macros may still be; then runCFG skips it).
  const SourceManager &SM = Ctx.getSourceManager();
  const Stmt *Body = FD.getBody();
  SourceLocation Begin = SM.getExpansionLoc(Body->getBeginLoc());
  SourceLocation End = SM.getExpansionLoc(Body->getEndLoc());
  if (Begin.isValid() && End.isValid() && SM.getFileID(Begin) == SM.getFileID(End) &&
      SM.getFileOffset(End) - SM.getFileOffset(Begin) >= Limits.MaxBlockVisits &&
      reachableBlocksAtLeast(*Body) > Limits.MaxBlockVisits) {
    Out.HitWorkLimit = true;
    return Out;
  }
  std::optional<TypeModel> OwnTypes;
  if (!Types)
    Types = &OwnTypes.emplace(Api);
  std::optional<CfgCache> OwnCfgs;
  if (!Cfgs)
    Cfgs = &OwnCfgs.emplace();
  Analyzer(Ctx, Api, Limits, Summaries, *Types, *Cfgs, Out).run(FD);
  return Out;
}

} // namespace dmalint
