//===- DescriptorModel.cpp - What the API's roles do to a descriptor ------===//
//
// Transfer functions keyed by API role: a factory or the general
// constructor builds an origin (local or remote, from the engagement of its
// optional arguments); start, wait_send, wait_recv and wait move it through
// its lifecycle and are the uses the checks judge. Also where origins are
// made, and the bounds that keep a location's value set small.
//
//===----------------------------------------------------------------------===//
#include "Analyzer.h"
#include "dmalint/AnalysisCache.h"
#include "dmalint/Arguments.h"
#include "dmalint/AstUtil.h"
#include "dmalint/Buffers.h"
#include "dmalint/Semaphores.h"

using namespace clang;

namespace dmalint {

// ----------------------------------------------------------------- origins ---

/// The origin \p Key names, made from \p Info the first time.
template <typename Map, typename KeyT>
static Value internOrigin(Map &Ids, const KeyT &Key, FunctionAnalysis &Out,
                          const OriginInfo &Info) {
  auto [It, Inserted] = Ids.emplace(Key, 0);
  if (Inserted) {
    It->second = static_cast<OriginId>(Out.Origins.size());
    Out.Origins.push_back(Info);
  }
  return Value{It->second, {}};
}

Value Analyzer::originValue(const Expr *Site, Remoteness Kind, const AccessPath &ReturnPath) {
  OriginInfo O;
  O.Site = Site;
  O.Kind = Kind;
  O.ReturnPath = ReturnPath;
  return internOrigin(OriginIds, std::make_tuple(Site, Kind, false, ReturnPath), Out, O);
}

Value Analyzer::importedValue(const Expr *Site, Remoteness Kind) {
  OriginInfo O;
  O.Site = Site;
  O.Kind = Kind;
  O.Imported = true;
  return internOrigin(OriginIds, std::make_tuple(Site, Kind, true, AccessPath()), Out, O);
}

Value Analyzer::paramValue(const ParmVarDecl *P, unsigned Index, const AccessPath &Path) {
  OriginInfo O;
  O.Param = P;
  O.ParamIndex = Index;
  O.ParamPath = Path;
  return internOrigin(ParamOriginIds, std::make_tuple(P, false, Path), Out, O);
}

Value Analyzer::objectValue(const AccessPath &Path) {
  OriginInfo O;
  O.ImplicitObject = true;
  O.ParamPath = Path;
  return internOrigin(ParamOriginIds, std::make_tuple(ObjectClass, true, Path), Out, O);
}

Value Analyzer::foldedValue(Remoteness Kind) {
  OriginInfo O;
  O.Kind = Kind;
  O.Folded = true;
  return internOrigin(FoldedIds, Kind, Out, O);
}

void Analyzer::mark(std::vector<bool> &ByOrigin, const ValueSet &VS) const {
  if (!InReportSweep)
    return;
  for (const Value &V : VS.values()) {
    if (ByOrigin.size() <= V.Origin)
      ByOrigin.resize(V.Origin + 1, false);
    ByOrigin[V.Origin] = true;
  }
}

void Analyzer::markUsed(const ValueSet &VS) { mark(Used, VS); }
void Analyzer::markHelperUsed(const ValueSet &VS) { mark(HelperUsed, VS); }
void Analyzer::markEscaped(const ValueSet &VS) {
  mark(Escaped, VS);
  mark(EscapedBesidesObject, VS);
  if (!InReturn)
    mark(EscapedNotReturned, VS);
}

// ------------------------------------------------------------------ bounds ---

void Analyzer::bound(ValueSet &VS) {
  if (VS.size() <= Limits.MaxValuesPerLocation)
    return;
  // First the assumptions: a value that forgets some reaches more paths
  // (a "maybe" can only appear, never vanish).
  ++Out.AssumptionsDropped;
  VS.dropAssumptions(Limits.MaxAssumptionsPerValue / 2);
  if (VS.size() > Limits.MaxValuesPerLocation)
    VS.dropAssumptions();
  llvm::SmallVector<OriginId, 4> Origins = VS.origins();
  if (Origins.size() <= Limits.MaxOriginsPerLocation)
    return;
  // Then the origins: past the bound, the built copies of one kind fold
  // into one that stands for them all. The kind (what the checks judge)
  // stays; their sites (the notes) and their uses are given up, so a folded
  // origin is never reported as unused.
  ++Out.OriginsFolded;
  unsigned Kept = 0;
  VS.remap([&](OriginId Id) {
    const OriginInfo &O = Out.Origins[Id];
    if (O.Kind == Remoteness::Unknown || O.isParameter() || O.Folded || O.Engaged)
      return Id;
    if (Kept < Limits.MaxOriginsPerLocation / 2) {
      ++Kept;
      return Id;
    }
    FoldedAway.insert(Id);
    return foldedValue(O.Kind).Origin;
  });
}

void Analyzer::bound(State &S) {
  for (auto &[L, C] : S.Cells) {
    bound(C.Values);
    if (C.Targets.size() > Limits.MaxOriginsPerLocation)
      C.Targets = {Location::unknown()};
  }
  if (S.Life.size() > 64)
    S.Life.erase(S.Life.begin(), S.Life.begin() + (S.Life.size() - 64));
  if (S.Pending.size() > 64)
    S.Pending.resize(64);
}

// -------------------------------------------------------- optional states ---

Value Analyzer::optionalValue(const Expr *Site, bool Engaged) {
  OriginInfo O;
  O.Site = Site;
  O.Engaged = Engaged;
  return internOrigin(OptionalOriginIds, std::make_pair(Site, Engaged), Out, O);
}

ValueSet Analyzer::evalOptional(const Expr *E, const State &S) {
  QualType T = stripWrappers(E)->getType();
  if (!isa<CXXDefaultArgExpr>(E) && !isStdOptional(T) && T->isRecordType()) {
    // A plain value (as emplace_back forwards it) is an engaged optional.
    const auto *RD = T->getAsCXXRecordDecl();
    bool Nullopt = RD->getIdentifier() && RD->getName() == "nullopt_t" && RD->isInStdNamespace();
    return ValueSet::of(optionalValue(E, !Nullopt));
  }
  switch (engagementOf(E)) {
  case Engagement::Engaged:
    return ValueSet::of(optionalValue(E, true));
  case Engagement::Disengaged:
  case Engagement::Omitted:
    return ValueSet::of(optionalValue(E, false));
  case Engagement::Unknown:
    break;
  }
  const Expr *Plain = stripWrappers(E);
  if (Plain->isGLValue() && Types.shapeOf(Plain->getType()).Kind == Shape::Engagement)
    return read(resolve(Plain, S), S);
  return unknown();
}

ValueSet Analyzer::constructed(const Expr *Site, llvm::ArrayRef<const Expr *> Args,
                               const State &S, bool Report) {
  const ApiModel &M = Api.model();
  // An omitted argument is pointed at by the construction itself.
  auto StatesOf = [&](unsigned Index) {
    if (Index >= Args.size())
      return ValueSet::of(optionalValue(Site, false));
    if (isa<CXXDefaultArgExpr>(Args[Index]))
      return ValueSet::of(optionalValue(Site, engagementOf(Args[Index]) == Engagement::Engaged));
    return evalOptional(Args[Index], S);
  };
  ValueSet Src = StatesOf(M.CtorSrcSemParam), Dev = StatesOf(M.CtorDeviceIdParam);
  ValueSet Result;
  ConstructionArguments Seen;
  FactSet Both;
  for (const Value &A : Src.values()) {
    for (const Value &B : Dev.values()) {
      if (!FactSet::conjoin(A.Assumed, B.Assumed, Both) || !onOnePath(Both, S.Facts))
        continue; // Not on one path.
      const OriginInfo &SrcO = Out.Origins[A.Origin], &DevO = Out.Origins[B.Origin];
      Seen.Combinations.push_back({SrcO.Engaged, DevO.Engaged, SrcO.Site, DevO.Site});
      ValueSet One;
      if (SrcO.Engaged && DevO.Engaged && *SrcO.Engaged == *DevO.Engaged)
        One = ValueSet::of(
            originValue(Site, *SrcO.Engaged ? Remoteness::Remote : Remoteness::Local));
      else
        One = unknown(); // Unknown, or set without the other: Pallas raises there.
      One.assume(Both);
      Result.unionWith(One);
    }
  }
  if (Report) {
    // Built where it is written, or by a standard function from the
    // arguments it forwards.
    if (const auto *Construct = dyn_cast<CXXConstructExpr>(Site))
      Seen.Construct = Construct;
    else
      Seen.Forwarding = Site;
    auto It = llvm::find_if(Out.Constructions, [&](const ConstructionArguments &Old) {
      return Old.site() == Site;
    });
    if (It == Out.Constructions.end())
      Out.Constructions.push_back(std::move(Seen));
    else
      for (const auto &C : Seen.Combinations)
        It->Combinations.push_back(C);
  }
  return Result.empty() ? unknown() : Result;
}

// ----------------------------------------------------------- lifecycle ---

namespace {

LifeMask advance(LifeMask Mask, LifeEvent E, Remoteness Kind) {
  LifeMask Result = 0;
  for (LifeMask Bit = 1; Bit <= RecvWaited; Bit <<= 1) {
    if (!(Mask & Bit))
      continue;
    switch (E) {
    case LifeEvent::Start:
      Result |= InFlight;
      break;
    case LifeEvent::Wait:
      Result |= Idle;
      break;
    case LifeEvent::WaitSend:
      Result |= Bit == InFlight ? SendWaited : Bit == RecvWaited ? Idle : Bit;
      break;
    case LifeEvent::WaitRecv:
      if (Bit == InFlight)
        Result |= Kind == Remoteness::Remote ? RecvWaited : Idle;
      else
        Result |= Bit == SendWaited ? Idle : Bit;
      break;
    }
  }
  return Result;
}

} // namespace

void Analyzer::lifecycle(const LocationList &Locs, const ValueSet &Values, LifeEvent E,
                         State &S) {
  llvm::SmallVector<OriginId, 4> Origins = Values.origins();
  // One object: what happens to it happens to the copy it holds on this
  // path; each of the others it may hold is not built on this path (the
  // other side of `r ? remote(...) : local(...)`). A temporary is one too.
  bool Strong = Locs.empty() ? Origins.size() == 1 : Locs.size() == 1 && Locs[0].isSingle();
  for (OriginId Id : Origins) {
    const OriginInfo &O = Out.Origins[Id];
    // The copies of a member function's object are followed whatever their
    // kind (an aggregate's members are built by its callers): a summary
    // names its starts of them, and only a caller that knows them local
    // follows those (atObject).
    if (O.Kind == Remoteness::Unknown && !O.ImplicitObject)
      continue;
    LifeMask Before = S.lifeOf(Id), After = advance(Before, E, O.Kind);
    S.setLife(Id, Strong ? After : LifeMask(Before | After));
  }
}

llvm::SmallVector<OriginId, 2> Analyzer::inFlight(const State &S) const {
  llvm::SmallVector<OriginId, 2> InFlight;
  for (auto &[Id, Mask] : S.Life)
    if (Mask & (LifeState::InFlight | SendWaited))
      InFlight.push_back(Id);
  return InFlight;
}

void Analyzer::recordUse(std::vector<DescriptorUse> &Uses, const CXXMemberCallExpr *Call,
                         const ValueSet &Values, const State &S) {
  llvm::SmallVector<OriginId, 2> InFlight = inFlight(S);
  ParamFacts Params = paramFacts(S);
  ObjectFacts Members = objectFacts(S);
  auto [It, Inserted] = UseIndex.emplace(Call, Uses.size());
  if (Inserted) {
    Uses.push_back(DescriptorUse{Call, Call->getImplicitObjectArgument(), Values, Params, Members,
                                 InFlight, InlinedLambdas > 0});
    return;
  }
  // Reached again (an inlined lambda called twice): what holds on both.
  DescriptorUse &Use = Uses[It->second];
  Use.Values.unionWith(Values);
  keepCommonFacts(Use.Params, Params);
  keepCommonFacts(Use.ObjectMembers, Members);
  for (OriginId Id : InFlight)
    if (!llvm::is_contained(Use.InFlightBefore, Id))
      Use.InFlightBefore.push_back(Id);
}

bool Analyzer::transferApiMethod(const CXXMemberCallExpr *MC, State &S, bool Report) {
  ApiRole Role = role(MC->getMethodDecl());
  if (Role == ApiRole::None)
    return false;
  if (Role != ApiRole::Start && Role != ApiRole::Wait && Role != ApiRole::WaitSend &&
      Role != ApiRole::WaitRecv)
    return true; // is_remote() and the rest change nothing.
  const Expr *Object = MC->getImplicitObjectArgument();
  const auto *ME = dyn_cast<MemberExpr>(MC->getCallee()->IgnoreParens());
  bool Arrow = ME && ME->isArrow();
  LocationList Locs = objectLocations(MC, S);
  ValueSet Values = Arrow ? read(Locs, S) : eval(Object, S);
  // A temporary (`make_async_copy(...).start()`) is no location.
  if (!Arrow && Object &&
      (!Object->isGLValue() || isa<MaterializeTemporaryExpr>(Object->IgnoreParens())))
    Locs.clear();
  switch (Role) {
  case ApiRole::WaitSend: {
    if (Report) {
      recordUse(Out.WaitSends, MC, Values, S);
      // There is no send side to wait on a local copy: that is no use of
      // it, unless every value is local (a definite finding, whose fix-it
      // makes it a receive wait).
      KindVerdict Local = Out.verdict(Values, Remoteness::Local);
      if (Local.All) {
        markUsed(Values);
      } else {
        ValueSet NotLocal = Values;
        NotLocal.filter([&](const Value &V) { return Out.kindOf(V) != Remoteness::Local; });
        markUsed(NotLocal);
      }
    }
    if (InReportSweep) {
      std::optional<ReceivedObject> Key = receivedKey(Object, Locs);
      bool Before = Key && std::binary_search(S.Received.begin(), S.Received.end(), *Key);
      auto [It, New] = ReceivedBefore.try_emplace(MC, Before);
      if (!New)
        It->second = It->second && Before;
    }
    lifecycle(Locs, Values, LifeEvent::WaitSend, S);
    recordReceivePending(MC, Locs, Values, S);
    return true;
  }
  case ApiRole::Start:
    if (Report) {
      recordUse(Out.Starts, MC, Values, S);
      markUsed(Values);
    }
    lifecycle(Locs, Values, LifeEvent::Start, S);
    startedAgain(Locs, S);
    return true;
  case ApiRole::Wait:
  case ApiRole::WaitRecv:
    if (Report) {
      recordUse(Out.ReceiveWaits, MC, Values, S);
      markUsed(Values);
    }
    lifecycle(Locs, Values, Role == ApiRole::Wait ? LifeEvent::Wait : LifeEvent::WaitRecv, S);
    receiveWaited(Locs, S, Locs.empty() ? &Values : nullptr);
    noteReceived(Object, Locs, S);
    return true;
  default:
    return true;
  }
}

// ------------------------------------------ receive waits after wait_send ---

void Analyzer::recordReceivePending(const CXXMemberCallExpr *WaitSend, const LocationList &Locs,
                                    const ValueSet &Values, State &S) {
  auto Note = [&](bool MayFollow, bool MayBeMissing) {
    if (!InReportSweep)
      return;
    auto &Entry = ReceiveAfter[WaitSend];
    Entry.first |= MayFollow;
    Entry.second |= MayBeMissing;
  };
  Note(false, false);
  if (Locs.empty()) {
    Note(false, true); // A temporary: nothing can wait it again.
    return;
  }
  if (Locs.size() != 1 || Locs[0].isUnknown()) {
    Note(true, true); // Not one object: the fix-it cannot tell.
    return;
  }
  PendingReceive P{WaitSend, Locs[0]};
  auto It = llvm::lower_bound(S.Pending, P);
  // Sent again before a receive wait (in a loop): still pending, and the
  // receive wait that follows, if any, follows both.
  if (It != S.Pending.end() && *It == P)
    return;
  S.Pending.insert(It, P);
}

bool Analyzer::sameReceiveView(OriginId A, OriginId B) const {
  const OriginInfo &OA = Out.Origins[A], &OB = Out.Origins[B];
  if (!Function || !OA.Site || !OB.Site || OA.HelperCall || OB.HelperCall || OA.isParameter() ||
      OB.isParameter() || !Api.isCopy(*OA.Site) || !Api.isCopy(*OB.Site))
    return false;
  const UnwrittenVariables &Vars = AnalysisCache::current().variables(*Function, Api);
  const Expr *SemA = copySemaphores(OA.Site, Api).Receive,
             *SemB = copySemaphores(OB.Site, Api).Receive;
  const Expr *ViewA = copyBuffers(OA.Site, Api).Target, *ViewB = copyBuffers(OB.Site, Api).Target;
  std::optional<SemaphoreName> SA = SemA ? semaphoreName(SemA, Vars) : std::nullopt,
                               SB = SemB ? semaphoreName(SemB, Vars) : std::nullopt;
  std::optional<BufferName> BA = ViewA ? bufferName(ViewA, Api, Vars) : std::nullopt,
                            BB = ViewB ? bufferName(ViewB, Api, Vars) : std::nullopt;
  return SA && SB && BA && BB &&
         compareSemaphores(*SA, *SB, Vars, Ctx, Evaluation::Anywhere) == SemaphoreRelation::Same &&
         compareBuffers(*BA, *BB, Vars, Ctx, Evaluation::Anywhere) == BufferRelation::Same;
}

void Analyzer::receiveWaited(const LocationList &Locs, State &S, const ValueSet *Rebuilt) {
  for (auto It = S.Pending.begin(); It != S.Pending.end();) {
    bool Same = Locs.size() == 1 && Locs[0] == It->Object;
    // A copy rebuilt to wait (`make_async_copy(src, dst, sem).wait_recv()`)
    // on the semaphore and into the view of the one the object holds: it
    // takes that copy's bytes.
    if (!Same && Rebuilt && Rebuilt->size() == 1)
      if (auto Held = S.Cells.find(It->Object); Held != S.Cells.end()) {
        const std::vector<Value> &Here = Held->second.Values.values();
        Same = !Here.empty() && llvm::all_of(Here, [&](const Value &V) {
          return sameReceiveView(V.Origin, Rebuilt->values().front().Origin);
        });
      }
    bool May = Locs.empty() || hasUnknown(Locs) ||
               llvm::any_of(Locs, [&](const Location &L) { return L.overlaps(It->Object); });
    if ((Same || May) && InReportSweep)
      ReceiveAfter[It->Use].first = true;
    It = Same ? S.Pending.erase(It) : std::next(It);
  }
}

void Analyzer::receiveMayBeWaited(const LocationList &Locs, State &S) {
  if (!InReportSweep)
    return;
  for (const PendingReceive &P : S.Pending)
    if (hasUnknown(Locs) ||
        llvm::any_of(Locs, [&](const Location &L) { return L.overlaps(P.Object); }))
      ReceiveAfter[P.Use].first = true;
}

std::optional<ReceivedObject> Analyzer::receivedKey(const Expr *Object,
                                                   const LocationList &Locs) {
  if (Locs.size() != 1 || Locs[0].isUnknown())
    return std::nullopt;
  if (Locs[0].isSingle())
    return ReceivedObject{Locs[0], nullptr};
  // A reference is bound once: it names one element of what its location
  // stands for, the same one wherever it is named.
  const auto *DRE = Object ? dyn_cast<DeclRefExpr>(Object->IgnoreParenImpCasts()) : nullptr;
  const auto *VD = DRE ? dyn_cast<VarDecl>(DRE->getDecl()) : nullptr;
  if (!VD || !VD->getType()->isReferenceType())
    return std::nullopt;
  return ReceivedObject{Locs[0], VD};
}

void Analyzer::noteReceived(const Expr *Object, const LocationList &Locs, State &S) {
  std::optional<ReceivedObject> Key = receivedKey(Object, Locs);
  if (!Key)
    return;
  auto It = llvm::lower_bound(S.Received, *Key);
  if (It == S.Received.end() || !(*It == *Key))
    S.Received.insert(It, *Key);
}

void Analyzer::startedAgain(const LocationList &Locs, State &S) {
  if (hasUnknown(Locs)) {
    S.Received.clear();
    return;
  }
  llvm::erase_if(S.Received, [&](const ReceivedObject &R) {
    return llvm::any_of(Locs, [&](const Location &L) { return L.overlaps(R.Object); });
  });
}

void Analyzer::pendingOverwritten(const LocationList &Locs, State &S,
                                  const std::vector<PendingReceive> *Kept) {
  // What is there now was not received (nor started) here.
  startedAgain(Locs, S);
  for (auto It = S.Pending.begin(); It != S.Pending.end();) {
    bool Hit = llvm::any_of(Locs, [&](const Location &L) {
      return !L.isUnknown() && L.overlaps(It->Object);
    }) && !(Kept && llvm::is_contained(*Kept, *It));
    if (!Hit) {
      ++It;
      continue;
    }
    // The descriptor there is another one now (or gone): no wait that
    // follows can be this one's.
    if (InReportSweep)
      ReceiveAfter[It->Use].second = true;
    It = S.Pending.erase(It);
  }
}

} // namespace dmalint
