//===- Transfer.cpp - C++ statements: declarations, initialisation, assignment ===//
//
// What each kind of statement does to the state: a declaration or an
// assignment puts a value (a descriptor, what a pointer designates, or a
// whole aggregate or container, part by part) into locations; calls go to
// DescriptorModel.cpp (the API) or Calls.cpp (everything else).
//
//===----------------------------------------------------------------------===//
#include "Analyzer.h"
#include "dmalint/AnalysisCache.h"
#include "dmalint/Arguments.h"
#include "dmalint/AstUtil.h"
#include "dmalint/InPlaceLambdas.h"

using namespace clang;

namespace dmalint {

namespace {

/// \p E without the wrappers an initialiser carries: also the conversions
/// that build the object from another (AstUtil.h).
const Expr *initialiser(const Expr *E) { return withoutWrappers(E, /*Conversions=*/true); }

const VarDecl *varOf(const Expr *E) {
  if (const auto *DRE = dyn_cast<DeclRefExpr>(E->IgnoreParenImpCasts()))
    return dyn_cast<VarDecl>(DRE->getDecl());
  return nullptr;
}

/// The variable an assignment or increment of \p E writes: \p E itself, or
/// the variable whose member it is (`p.remote = ...` writes p, whose
/// conditions, `p.remote`, are then stale).
const VarDecl *writtenVar(const Expr *E) {
  // Every depth: a condition may read a member at any depth.
  E = E->IgnoreParenImpCasts();
  while (const auto *ME = dyn_cast<MemberExpr>(E)) {
    if (ME->isArrow())
      return nullptr;
    E = ME->getBase()->IgnoreParenImpCasts();
  }
  return varOf(E);
}

/// The index of the alternative of variant \p V that a value of type \p Of
/// initialises: the same type, else the only alternative that holds
/// descriptors.
std::optional<PathStep> alternativeFor(TypeModel &Types, QualType V, QualType Of) {
  const TypeShape &TS = Types.shapeOf(V);
  QualType Wanted = Of.getNonReferenceType().getCanonicalType().getUnqualifiedType();
  for (const TypePart &P : TS.Parts)
    if (P.Type.getCanonicalType().getUnqualifiedType() == Wanted)
      return P.Step;
  if (TS.Parts.size() == 1 && Types.holdsDescriptors(Of))
    return TS.Parts[0].Step;
  return std::nullopt;
}

/// The constructor a make_unique/make_shared instantiation calls.
const CXXConstructExpr *constructionInside(const FunctionDecl *Factory) {
  const Stmt *Body = Factory ? Factory->getBody() : nullptr;
  if (!Body)
    return nullptr;
  llvm::SmallVector<const Stmt *, 16> Pending{Body};
  while (!Pending.empty()) {
    const Stmt *S = Pending.pop_back_val();
    if (!S)
      continue;
    if (const auto *NE = dyn_cast<CXXNewExpr>(S))
      return dyn_cast_or_null<CXXConstructExpr>(NE->getConstructExpr());
    for (const Stmt *Child : S->children())
      Pending.push_back(Child);
  }
  return nullptr;
}

} // namespace

void Analyzer::transferBlock(const CFGBlock &B, State &S, bool Report, unsigned Depth) {
  for (const CFGElement &Element : B) {
    if (auto CS = Element.getAs<CFGStmt>()) {
      transfer(CS->getStmt(), S, Report, Depth);
    } else if (auto Ends = Element.getAs<CFGLifetimeEnds>()) {
      endLifetime(Ends->getVarDecl(), S);
    } else if (auto Init = Element.getAs<CFGInitializer>()) {
      // A constructor's member (or base) initialiser: into `*this`.
      const CXXCtorInitializer *I = Init->getInitializer();
      Location Object = ObjectClass ? Location::object(ObjectClass) : Location::unknown();
      if (const FieldDecl *FD = I->getMember())
        initialize(Object.child(PathStep::field(FD)), FD->getType(), I->getInit(), S, Report,
                   Depth);
      else if (I->isBaseInitializer() && Types.isDescriptor(QualType(I->getBaseClass(), 0)))
        initialize(Object, QualType(I->getBaseClass(), 0), I->getInit(), S, Report, Depth);
      else if (I->isBaseInitializer())
        initialize(Object, QualType(I->getBaseClass(), 0), I->getInit(), S, Report, Depth);
    }
    if (Out.HitWorkLimit)
      return;
  }
}

void Analyzer::transfer(const Stmt *St, State &S, bool Report, unsigned Depth) {
  if (const auto *RS = dyn_cast<ReturnStmt>(St)) {
    if (RS->getRetValue())
      recordReturn(RS->getRetValue(), S, Depth);
    return;
  }
  if (const auto *DS = dyn_cast<DeclStmt>(St)) {
    for (const Decl *D : DS->decls())
      if (const auto *VD = dyn_cast<VarDecl>(D))
        declare(VD, S, Report, Depth);
    return;
  }
  if (const auto *BO = dyn_cast<BinaryOperator>(St)) {
    if (!BO->isAssignmentOp())
      return;
    QualType T = BO->getLHS()->getType();
    if (Types.isPointer(T)) {
      LocationList Targets = BO->getOpcode() == BO_Assign
                                 ? evalTargets(BO->getRHS(), S, Report, Depth)
                                 : designated(BO, S);
      writeTargets(resolve(BO->getLHS(), S), Targets, S, Update::Strong);
    }
    if (isFlagType(T))
      assignFlag(BO, S); // `i.remote = true;`, `i.kind = Kind::kRemote;`
    if (const VarDecl *VD = writtenVar(BO->getLHS())) {
      invalidateVar(VD, S);
      if (BO->getOpcode() == BO_Assign)
        learnConstantValue(VD, BO->getRHS(), S);
      // `remote = d.is_remote();`, `s.remote = far;`: a test kept.
      if (BO->getOpcode() == BO_Assign && BO->getLHS()->getType()->isBooleanType())
        if (std::optional<Location> Key = guardKey(BO->getLHS());
            Key && Key->variable() == VD)
          rememberTest(VD, *Key, BO->getRHS(), S);
    }
    return;
  }
  if (const auto *UO = dyn_cast<UnaryOperator>(St)) {
    if (!UO->isIncrementDecrementOp())
      return;
    if (Types.isPointer(UO->getSubExpr()->getType()))
      writeTargets(resolve(UO->getSubExpr(), S), designated(UO, S), S, Update::Strong);
    if (const VarDecl *VD = writtenVar(UO->getSubExpr()))
      invalidateVar(VD, S);
    return;
  }
  if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(St)) {
    transferOperatorCall(Op, S, Report, Depth);
    return;
  }
  if (const auto *MC = dyn_cast<CXXMemberCallExpr>(St)) {
    transferMemberCall(MC, S, Report, Depth);
    return;
  }
  if (const auto *Call = dyn_cast<CallExpr>(St)) {
    const FunctionDecl *FD = Call->getDirectCallee();
    ApiRole Role = role(FD);
    if (Role != ApiRole::None) {
      // A factory builds a copy, used or not (a discarded temporary never
      // is); an already-started one is in flight from here.
      if (Types.isDescriptor(Call->getType())) {
        ValueSet Built = eval(Call, S);
        if (Role == ApiRole::StartedLocalFactory || Role == ApiRole::StartedRemoteFactory) {
          markUsed(Built);
          lifecycle({}, Built, LifeEvent::Start, S);
          if (Report)
            recordStartedFactory(Call, S);
        }
      }
      return;
    }
    FunctionEffect Effect = TypeModel::functionEffect(FD);
    if (Effect != FunctionEffect::Unlisted) {
      transferStdCall(Call, Effect, S, Report, Depth);
      return;
    }
    call(Call, FD, callArguments(Call), nullptr, S, Report, Depth);
    // An algorithm of std may move elements to other indices (reverse,
    // sort, rotate) or between containers (copy), whatever its summary says.
    // (No callee: a call through a pointer to a function.)
    if (FD && FD->isInStdNamespace())
      algorithmReached(callArguments(Call), S);
    // A copy a wrapper of the file builds and returns is built here, used
    // or not (`stage_copy(...);` discards it, as a factory's temporary).
    if (Types.isDescriptor(Call->getType()) && summaryFor(FD))
      eval(Call, S);
    return;
  }
  if (const auto *Construct = dyn_cast<CXXConstructExpr>(St)) {
    const CXXConstructorDecl *Ctor = Construct->getConstructor();
    if (Api.isDescriptorConstructor(Ctor)) {
      constructed(Construct, callArguments(Construct), S, Report); // Built here, used or not.
      return;
    }
    // What a constructor does with its arguments: a user constructor's
    // summary, or an opaque call (std::function taking a lambda). Its effect
    // on the object is the declaration's (initialize()), and a standard
    // container or wrapper only holds what it is given.
    if (Ctor->isCopyOrMoveConstructor() ||
        (Ctor->getParent()->isInStdNamespace() && Types.holdsDescriptors(Construct->getType())))
      return;
    call(Construct, Ctor, callArguments(Construct), nullptr, S, Report, Depth);
    return;
  }
}

void Analyzer::declare(const VarDecl *VD, State &S, bool Report, unsigned Depth) {
  // Whatever an earlier run of the declaration left.
  endLifetime(VD, S, /*Redeclared=*/true);
  QualType T = VD->getType();
  Location Here = Location::variable(VD);
  if (const CXXForRangeStmt *Range = rangeForOf(VD)) {
    // for (auto &d : ds) / for (auto d : ds): one of ds's elements.
    const Expr *Init = Range->getRangeInit();
    LocationList Elements;
    if (Types.isPointer(Init->getType())) {
      Elements = designated(Init, S); // A span.
    } else {
      // A temporary range (`for (auto &c : {a, b})`, a container built or
      // returned by value) is held by the loop's hidden range variable.
      const auto *RangeVar = Range->getRangeStmt()
                                 ? dyn_cast_or_null<VarDecl>(Range->getRangeStmt()->getSingleDecl())
                                 : nullptr;
      LocationList Ranges = RangeVar && temporaryBuilt(Init) ? variableLocations(RangeVar, S)
                                                          : resolve(Init, S);
      for (const Location &L : Ranges)
        addLocation(Elements, L.child(PathStep::element(PathStep::Any)));
    }
    if (hasUnknown(Elements) && Elements.size() == 1)
      Elements = {Location::unknown()};
    // `for (D &d : refs)` over std::reference_wrappers (or pointers a
    // conversion makes objects of): what each element designates.
    if (!Types.isPointer(Init->getType()) && Types.isPointer(Types.shapeOf(Init->getType()).Element) &&
        !Types.isPointer(T.getNonReferenceType()))
      Elements = readTargets(Elements, S);
    if (T->isReferenceType())
      S.Cells[Here].Targets = Elements;
    else
      copyObject(Elements, Here, S, Update::Strong);
    return;
  }
  const Expr *Init = VD->getInit();
  if (T->isReferenceType()) {
    if (!Init || !Types.holdsDescriptors(T.getNonReferenceType()))
      return;
    // Bound to a temporary whose lifetime it extends: it is that object.
    if (const Expr *Temporary = temporaryBuilt(Init)) {
      initialize(Here, T.getNonReferenceType(), Temporary, S, Report, Depth);
      return;
    }
    S.Cells[Here].Targets = withoutLast(resolve(Init, S));
    noteConditionalBinding(VD, Init);
    return;
  }
  if (T->isBooleanType() && Init) {
    rememberTest(VD, Location::variable(VD), Init, S);
    learnConstantValue(VD, Init, S);
    return;
  }
  if (Types.shapeOf(T).Kind == Shape::None) {
    learnConstantValue(VD, Init, S);
    return;
  }
  initialize(Here, T, Init, S, Report, Depth);
  if (T->isPointerType())
    noteConditionalBinding(VD, Init);
  // A static local is initialised once: later calls find what earlier ones
  // left (unknown here), and what it holds outlives the call (escapes).
  if (VD->isStaticLocal()) {
    escapeBelow({Here}, S);
    forgetFlagsBelow(Here, S);
    auto [First, Last] = S.cellsBelow(Here);
    for (auto It = First; It != Last; ++It)
      if (It->second.Targets.empty())
        It->second.Values.unionWith(unknown());
      else
        addLocation(It->second.Targets, Location::unknown());
  }
}

void Analyzer::rememberTest(const VarDecl *VD, const Location &Key, const Expr *Value,
                            State &S) {
  Guard G;
  bool Positive = true;
  const Expr *E = bareCondition(Value, Positive);
  bool FlagPositive = true;
  FlagValue Equals = FlagTrue;
  if (const Expr *Read = testedFlag(Value, Equals, FlagPositive);
      Key.Path.Depth == 0 && Read && steadyFlagRead(Read)) {
    // `const bool remote = i.remote;` (or `= i.kind == Kind::kRemote`): the
    // flag, read again where it is tested (until a flag changes:
    // flagsChanged).
    G.Flag = Read;
    G.FlagNegated = !FlagPositive;
    G.FlagEquals = Equals;
    S.Guards[Key] = std::move(G);
    return;
  }
  if (const auto *Call = dyn_cast<CXXMemberCallExpr>(E);
      Call && role(Call->getMethodDecl()) == ApiRole::IsRemote) {
    // `r = d.is_remote();` (or its negation): a test of d.
    LocationList Subjects = objectLocations(Call, S);
    if (hasUnknown(Subjects))
      return;
    G.Subjects = std::move(Subjects);
    G.SubjectsNegated = !Positive;
  } else if (VD->hasLocalStorage() && !VD->getType()->isReferenceType() && Function) {
    // `r = far;`: the atom far, while neither r nor far is written (a
    // condition over r itself, `r = !r;`, holds r's old value).
    Positive = true;
    std::optional<AtomId> Atom = conditionAtom(Value, Positive);
    if (!Atom || llvm::is_contained(Atoms[*Atom].Vars, VD))
      return;
    // A bool that keeps an initialiser over variables never written is that
    // initialiser wherever it is tested (testedCondition).
    const UnwrittenVariables &Vars = AnalysisCache::current().variables(*Function, Api);
    if (Key.Path.Depth == 0 && Vars.unwritten(VD) && steadyCondition(Value, Vars))
      return;
    G.Alias = Atom;
    G.AliasNegated = !Positive;
  }
  if (!G.empty())
    S.Guards[Key] = std::move(G);
}

void Analyzer::initialize(const Location &Dest, QualType T, const Expr *Init, State &S,
                          bool Report, unsigned Depth) {
  const TypeShape &TS = Types.shapeOf(T);
  Shape Kind = TS.Kind;
  if (Kind == Shape::None) {
    if (isFlagType(T))
      initializeFlag(Dest, Init ? initialiser(Init) : nullptr, S); // `{copy, true}`
    return;
  }
  auto Unknown = [&] {
    // A descriptor (or what a pointer designates) that the initialiser
    // builds goes where the model cannot follow it: it escapes (never
    // "unused"), and the object holds unknown values. (Not an aggregate:
    // argumentValues would build it here again.)
    if (Init && (Types.isDescriptor(Init->getType()) || Types.isPointer(Init->getType())))
      markEscaped(argumentValues(Init, S));
    eraseBelow(Dest, S);
    materialize(Dest, T, S, [&](const TypeModel::Leaf &Leaf, Cell &C) {
      if (Leaf.Kind != Shape::Pointer)
        C.Values = unknown();
    });
  };
  if (Dest.isUnknown()) {
    if (Init)
      markEscaped(argumentValues(Init, S));
    return;
  }
  const Expr *E = initialiser(Init);
  if (!E) {
    Unknown();
    return;
  }
  switch (Kind) {
  case Shape::Descriptor:
    write({Dest}, eval(E, S), S, Update::Strong);
    return;
  case Shape::Pointer:
    writeTargets({Dest}, evalTargets(E, S, Report, Depth), S, Update::Strong);
    return;
  case Shape::Engagement:
    write({Dest}, evalOptional(Init, S), S, Update::Strong);
    return;
  default:
    break;
  }
  // A container or an aggregate: part by part.
  QualType Element = TS.Element;
  llvm::SmallVector<TypePart, 2> Parts = TS.Parts;
  uint64_t Extent = TS.Extent;
  if (const auto *CO = dyn_cast<AbstractConditionalOperator>(E)) {
    if (std::optional<bool> Constant = constantCondition(CO->getCond())) {
      initialize(Dest, T, *Constant ? CO->getTrueExpr() : CO->getFalseExpr(), S, Report, Depth);
      return;
    }
    // Each side into a scratch object, tagged with the condition, then both.
    bool Positive = true;
    std::optional<AtomId> Atom = conditionAtom(CO->getCond(), Positive);
    const Expr *Arms[2] = {CO->getTrueExpr(), CO->getFalseExpr()};
    eraseBelow(Dest, S);
    for (unsigned I = 0; I < 2; ++I) {
      Location Scratch = scratch();
      // The arm is built where the condition has its value: a flag given
      // the condition (`r ? Op{remote, r} : Op{local, r}`) is that value.
      bool Learnt = Atom && !S.Facts.lookup(*Atom) &&
                    S.Facts.add(Fact{*Atom, (I == 0) == Positive});
      initialize(Scratch, T, Arms[I], S, Report, Depth);
      if (Learnt)
        S.Facts.erase(*Atom);
      if (Atom) {
        auto [First, Last] = S.cellsBelow(Scratch);
        for (auto It = First; It != Last; ++It)
          It->second.Values.assume(FactSet{Fact{*Atom, (I == 0) == Positive}});
      }
      copyObject({Scratch}, Dest, S, I == 0 ? Update::Strong : Update::Weak);
      eraseBelow(Scratch, S);
    }
    return;
  }
  auto Empty = [&] {
    eraseBelow(Dest, S);
    materialize(Dest, T, S, [](const TypeModel::Leaf &, Cell &C) { C.Targets.clear(); });
  };
  // A std::optional or std::variant given the value it holds, as emplace
  // forwards it (`std::vector<std::optional<D>>::emplace_back(d)`): the
  // value, in its part.
  if (QualType Given = E->getType();
      (Kind == Shape::Optional || Kind == Shape::Variant) && !Given.isNull() &&
      Types.holdsDescriptors(Given) &&
      Given.getCanonicalType().getUnqualifiedType() !=
          T.getNonReferenceType().getCanonicalType().getUnqualifiedType()) {
    if (Kind == Shape::Optional && Types.shapeOf(Given).Kind != Shape::Optional) {
      Empty();
      initialize(Dest.child(PathStep::part(0)), Element, E, S, Report, Depth);
      return;
    }
    if (Kind == Shape::Variant && Types.shapeOf(Given).Kind != Shape::Variant)
      if (std::optional<PathStep> Step = alternativeFor(Types, T, Given)) {
        eraseBelow(Dest, S);
        initialize(Dest.child(*Step), Given, E, S, Report, Depth);
        return;
      }
  }
  if (const auto *ILE = dyn_cast<InitListExpr>(E)) {
    if (ILE->isTransparent() && ILE->getNumInits() == 1) {
      initialize(Dest, T, ILE->getInit(0), S, Report, Depth);
      return;
    }
    eraseBelow(Dest, S);
    if (Kind == Shape::FixedArray) {
      // std::array is a struct around a C array: {{a, b}} (braces elided or not).
      if (!T->isArrayType() && ILE->getNumInits() == 1)
        if (const auto *Inner = dyn_cast<InitListExpr>(initialiser(ILE->getInit(0))))
          ILE = Inner;
      Location Summary = Dest.child(PathStep::element(PathStep::Summary));
      materialize(Summary, Element, S, [](const TypeModel::Leaf &, Cell &C) { C.Targets.clear(); });
      for (unsigned I = 0; I < ILE->getNumInits(); ++I) {
        if (I < unsigned(MaxTrackedIndex) && I < Extent) {
          initialize(Dest.child(PathStep::element(I)), Element, ILE->getInit(I), S, Report,
                     Depth);
        } else {
          Location Scratch = scratch();
          initialize(Scratch, Element, ILE->getInit(I), S, Report, Depth);
          copyObject({Scratch}, Summary, S, Update::Weak);
          eraseBelow(Scratch, S);
        }
      }
      return;
    }
    const auto *RD = T.getNonReferenceType()->getAsCXXRecordDecl();
    if (!RD || !ILE->isSemanticForm()) {
      Unknown();
      return;
    }
    unsigned Index = 0;
    if (RD->isUnion()) {
      if (const FieldDecl *FD = ILE->getInitializedFieldInUnion(); FD && ILE->getNumInits() == 1)
        initialize(Dest.child(PathStep::field(FD)), FD->getType(), ILE->getInit(0), S, Report,
                   Depth);
      return;
    }
    for (const CXXBaseSpecifier &Base : RD->bases()) {
      if (Index < ILE->getNumInits())
        initialize(Dest, Base.getType(), ILE->getInit(Index), S, Report, Depth);
      ++Index;
    }
    llvm::SmallVector<std::pair<const FieldDecl *, const Expr *>, 4> Members;
    bool AnyFlag = false;
    for (const FieldDecl *FD : RD->fields()) {
      if (Index < ILE->getNumInits()) {
        initialize(Dest.child(PathStep::field(FD)), FD->getType(), ILE->getInit(Index), S,
                   Report, Depth);
        Members.push_back({FD, ILE->getInit(Index)});
        AnyFlag |= isFlagType(FD->getType());
      }
      ++Index;
    }
    if (AnyFlag)
      relateFlags(Dest, Members, S); // `{c, c.is_remote()}`
    return;
  }
  if (const auto *Lambda = dyn_cast<LambdaExpr>(E); Lambda && Kind == Shape::Record) {
    // A closure: its copies of the variables it captures by copy, made here
    // (what its body reads when it runs later, whatever the variables hold
    // by then). Its other fields (references, init-captures) are not
    // followed.
    Unknown();
    for (const CopiedCapture &C : copiedCaptures(*Lambda))
      initialize(Dest.child(PathStep::field(C.Field)), C.Field->getType(), C.Init, S, Report,
                 Depth);
    return;
  }
  if (const auto *Construct = dyn_cast<CXXConstructExpr>(E)) {
    const CXXConstructorDecl *Ctor = Construct->getConstructor();
    auto Args = callArguments(Construct);
    if (Ctor->isCopyOrMoveConstructor() && !Args.empty()) {
      initializeFrom(Dest, T, Args[0], S, Report, Depth);
      return;
    }
    if (Kind == Shape::Sequence || Kind == Shape::Optional) {
      Empty();
      Location Slot = Kind == Shape::Optional ? Dest.child(PathStep::part(0))
                                              : Dest.child(PathStep::element(PathStep::Summary));
      if (Kind == Shape::Optional && Args.size() == 1 && !isa<CXXDefaultArgExpr>(Args[0])) {
        // optional(d), optional(std::in_place, ...) and optional(std::nullopt).
        QualType ArgT = Args[0]->getType();
        if (Types.holdsDescriptors(ArgT) && !Types.isContainer(ArgT))
          initialize(Slot, Element, Args[0], S, Report, Depth);
        return;
      }
      // std::vector<D> v{local, remote}: element I is the list's I-th
      // until an insertion or removal shifts them (spreadIndexed).
      if (Kind == Shape::Sequence)
        if (const InitListExpr *List = listOfElements(Args))
          if (List->getNumInits() <= unsigned(MaxTrackedIndex)) {
            for (unsigned I = 0; I < List->getNumInits(); ++I)
              initialize(Dest.child(PathStep::element(I)), Element, List->getInit(I), S, Report,
                         Depth);
            setSize(Dest, List->getNumInits(), S);
            return;
          }
      if (Kind == Shape::Sequence &&
          llvm::all_of(Args, [](const Expr *A) { return isa<CXXDefaultArgExpr>(A); })) {
        setSize(Dest, 0, S); // Built empty.
        return;
      }
      insertInto({Slot}, Element, Args, Construct, S, Report, Depth);
      return;
    }
    if (Kind == Shape::Pair || Kind == Shape::Tuple) {
      // pair(a, b), tuple(a, b, c): the parts in order.
      eraseBelow(Dest, S);
      unsigned NumArgs = 0;
      for (const Expr *A : Args)
        NumArgs += !isa<CXXDefaultArgExpr>(A);
      if (NumArgs == 0) {
        Unknown();
        return;
      }
      initializeParts(Dest, T, Args, S, Report, Depth);
      return;
    }
    if (Kind == Shape::Variant) {
      eraseBelow(Dest, S);
      if (Args.size() == 1)
        if (std::optional<PathStep> Step = alternativeFor(Types, T, Args[0]->getType())) {
          initialize(Dest.child(*Step), Args[0]->getType(), Args[0], S, Report, Depth);
          return;
        }
      Unknown();
      return;
    }
    if (Kind == Shape::Record) {
      // A user constructor: what it leaves in its object, as its summary says.
      if (const FunctionSummary *Summary = summaryFor(Ctor)) {
        eraseBelow(Dest, S);
        applyObjectStores(*Summary, Construct, Args, Ctor, {Dest}, Update::Strong, S);
        return;
      }
      // An implicit default constructor: the in-class initialisers.
      if (Ctor->isImplicit() && Args.empty()) {
        eraseBelow(Dest, S);
        materialize(Dest, T, S, [&](const TypeModel::Leaf &Leaf, Cell &C) {
          if (Leaf.Kind != Shape::Pointer)
            C.Values = unknown();
        });
        for (const CXXCtorInitializer *I : Ctor->inits())
          if (const FieldDecl *FD = I->getMember())
            initialize(Dest.child(PathStep::field(FD)), FD->getType(), I->getInit(), S, Report,
                       Depth);
        return;
      }
    }
    Unknown();
    return;
  }
  if (const auto *Call = dyn_cast<CallExpr>(E)) {
    const FunctionDecl *FD = Call->getDirectCallee();
    auto Args = callArguments(Call);
    switch (TypeModel::functionEffect(FD)) {
    case FunctionEffect::Identity:
      if (!Args.empty()) {
        initializeFrom(Dest, T, Args[0], S, Report, Depth);
        return;
      }
      break;
    case FunctionEffect::MakeAggregate:
      eraseBelow(Dest, S);
      if (Kind == Shape::Optional) {
        if (Args.size() == 1)
          initialize(Dest.child(PathStep::part(0)), Element, Args[0], S, Report, Depth);
        return;
      }
      initializeParts(Dest, T, Args, S, Report, Depth);
      return;
    default:
      break;
    }
    if (E->isGLValue() && Types.functionEffect(FD) == FunctionEffect::GetPart) {
      copyObject(resolve(E, S), Dest, S, Update::Strong);
      return;
    }
    if (const FunctionSummary *Summary = summaryFor(FD)) {
      eraseBelow(Dest, S);
      for (const PathValues &PV : Summary->Returns) {
        Location At = Dest.child(PV.Path.steps());
        if (At.isUnknown())
          continue;
        write({At},
              summaryValues(PV.Values, Call, Args, FD, nullptr, PV.Path, /*Imported=*/false, S),
              S, Update::Strong);
      }
      return;
    }
    if (E->isGLValue()) {
      copyObject(resolve(E, S), Dest, S, Update::Strong);
      return;
    }
    Unknown();
    return;
  }
  if (isa<ImplicitValueInitExpr, CXXScalarValueInitExpr>(E)) {
    Empty();
    return;
  }
  if (isa<CXXStdInitializerListExpr>(E) && Kind == Shape::Sequence) {
    // v = {a, b}: the list's elements.
    Empty();
    insertInto({Dest.child(PathStep::element(PathStep::Summary))}, Element, {E}, E, S, Report,
               Depth);
    return;
  }
  if (E->isGLValue()) {
    copyObject(resolve(E, S), Dest, S, Update::Strong);
    return;
  }
  Unknown();
}

void Analyzer::initializeParts(const Location &Dest, QualType T,
                               llvm::ArrayRef<const Expr *> Args, State &S, bool Report,
                               unsigned Depth) {
  llvm::SmallVector<std::pair<const FieldDecl *, const Expr *>, 2> Members;
  for (unsigned I = 0; I < Args.size(); ++I)
    if (std::optional<PathStep> Step = Types.partStep(T, I)) {
      initialize(Dest.child(*Step), Args[I]->getType(), Args[I], S, Report, Depth);
      if (Step->K == PathStep::Field)
        Members.push_back({Step->FieldD, Args[I]}); // A std::pair's members.
    }
  if (Members.size() > 1)
    relateFlags(Dest, Members, S); // `std::make_pair(c, c.is_remote())`
}

void Analyzer::initializeFrom(const Location &Dest, QualType T, const Expr *Source, State &S,
                              bool Report, unsigned Depth) {
  // A copy or move of an object: what is below it; of a temporary: what
  // building it gives.
  Source = initialiser(Source);
  if (Source->isGLValue())
    copyObject(resolve(Source, S), Dest, S, Update::Strong);
  else
    initialize(Dest, T, Source, S, Report, Depth);
}

void Analyzer::assign(const LocationList &Dest, QualType T, const Expr *Init, State &S,
                      bool Report, unsigned Depth) {
  if (Dest.size() == 1 && Dest[0].isSingle()) {
    pendingOverwritten(Dest, S);
    initialize(Dest[0], T, Init, S, Report, Depth);
    return;
  }
  Location Scratch = scratch();
  initialize(Scratch, T, Init, S, Report, Depth);
  for (const Location &L : Dest)
    copyObject({Scratch}, L, S, Update::Weak);
  eraseBelow(Scratch, S);
}

ValueSet Analyzer::eval(const Expr *E, const State &S) {
  E = stripWrappers(E);
  if (const auto *Default = dyn_cast<CXXDefaultArgExpr>(E))
    return eval(Default->getExpr(), S);
  if (const auto *Default = dyn_cast<CXXDefaultInitExpr>(E))
    return eval(Default->getExpr(), S);
  if (const auto *Call = dyn_cast<CallExpr>(E)) {
    const FunctionDecl *FD = Call->getDirectCallee();
    if (TypeModel::functionEffect(FD) == FunctionEffect::Identity && Call->getNumArgs() >= 1)
      return eval(Call->getArg(0), S);
    switch (role(FD)) {
    case ApiRole::LocalFactory:
    case ApiRole::StartedLocalFactory:
      return ValueSet::of(originValue(E, Remoteness::Local));
    case ApiRole::RemoteFactory:
    case ApiRole::StartedRemoteFactory:
      return ValueSet::of(originValue(E, Remoteness::Remote));
    default:
      break;
    }
    // v[i], v.at(i), *opt, std::get<0>(p): an element we follow.
    if (LocationList Locs = resolve(E, S); !hasUnknown(Locs))
      return atElementIndex(E, read(Locs, S), S);
    if (const FunctionSummary *Summary = summaryFor(FD)) {
      auto Args = callArguments(Call);
      const LocationList *Object = nullptr;
      LocationList ObjectLocs;
      if (const auto *MC = dyn_cast<CXXMemberCallExpr>(Call)) {
        ObjectLocs = objectLocations(MC, S);
        Object = &ObjectLocs;
      }
      for (const PathValues &PV : Summary->Returns)
        if (PV.Path.empty())
          return summaryValues(PV.Values, Call, Args, FD, Object, PV.Path, false, S);
    }
    return unknown();
  }
  if (const auto *Construct = dyn_cast<CXXConstructExpr>(E)) {
    const CXXConstructorDecl *Ctor = Construct->getConstructor();
    if (Api.isDescriptorConstructor(Ctor))
      return constructed(Construct, callArguments(Construct), S, /*Report=*/false);
    if (Ctor->isCopyOrMoveConstructor() && Construct->getNumArgs() >= 1)
      return eval(Construct->getArg(0), S);
    // A class derived from the descriptor type: what its constructor
    // leaves in the descriptor it is.
    if (const FunctionSummary *Summary = summaryFor(Ctor)) {
      auto Args = callArguments(Construct);
      for (const PathValues &PV : Summary->ObjectStores)
        if (PV.Path.empty())
          return summaryValues(PV.Values, Construct, Args, Ctor, nullptr, PV.Path,
                               /*Imported=*/true, S);
    }
    return unknown();
  }
  if (const auto *CO = dyn_cast<AbstractConditionalOperator>(E)) {
    if (std::optional<bool> Constant = constantCondition(CO->getCond()))
      return eval(*Constant ? CO->getTrueExpr() : CO->getFalseExpr(), S);
    ValueSet T = eval(CO->getTrueExpr(), S), F = eval(CO->getFalseExpr(), S);
    bool Positive = true;
    if (std::optional<AtomId> Id = conditionAtom(CO->getCond(), Positive)) {
      T.assume(FactSet{Fact{*Id, Positive}});
      F.assume(FactSet{Fact{*Id, !Positive}});
    }
    T.unionWith(F);
    return T;
  }
  // A member of a temporary (wrap(...).c, Box{...}.c): what building the
  // temporary puts there, as for a temporary handed to a helper.
  if (const auto *ME = dyn_cast<MemberExpr>(E->IgnoreParens()); ME && !ME->isArrow()) {
    llvm::SmallVector<PathStep, 4> Steps;
    const Expr *Base = E->IgnoreParens();
    while ((ME = dyn_cast<MemberExpr>(Base)) && !ME->isArrow()) {
      const auto *Field = dyn_cast<FieldDecl>(ME->getMemberDecl());
      if (!Field)
        break;
      Steps.push_back(PathStep::field(Field));
      Base = ME->getBase()->IgnoreParens();
    }
    std::reverse(Steps.begin(), Steps.end());
    AccessPath Path;
    if (!isa<MemberExpr>(Base) && Path.append(Steps))
      if (const Expr *Temporary = temporaryBuilt(Base);
          Temporary && Types.holdsDescriptors(Temporary->getType()))
        return builtAt(Temporary, Path, S);
  }
  if (E->isGLValue())
    return atElementIndex(E, read(resolve(E, S), S), S);
  return unknown();
}

/// Whether \p T is a std::reference_wrapper.
static bool isReferenceWrapper(QualType T) {
  const auto *RD = T.getNonReferenceType()->getAsCXXRecordDecl();
  return RD && RD->isInStdNamespace() && RD->getIdentifier() &&
         RD->getName() == "reference_wrapper";
}

LocationList Analyzer::evalTargets(const Expr *E, State &S, bool Report, unsigned Depth) {
  const Expr *Plain = initialiser(E);
  if (const auto *NE = dyn_cast<CXXNewExpr>(Plain)) {
    QualType T = NE->getAllocatedType();
    Location Heap = Location::heap(NE);
    if (!Types.holdsDescriptors(T))
      return {Location::unknown()};
    if (NE->isArray()) {
      eraseBelow(Heap, S);
      // `new D[2]{a, b}`: the array the list builds (its type is the
      // whole array's when the extent is a constant).
      if (const auto *List = dyn_cast_or_null<InitListExpr>(NE->getInitializer());
          List && List->getType()->isConstantArrayType()) {
        initialize(Heap, List->getType(), List, S, Report, Depth);
        return {Heap.child(PathStep::element(PathStep::Any))};
      }
      Location Summary = Heap.child(PathStep::element(PathStep::Summary));
      materialize(Summary, T, S, [&](const TypeModel::Leaf &Leaf, Cell &C) {
        if (Leaf.Kind != Shape::Pointer)
          C.Values = unknown();
      });
      // `new S[n]{a, b}`: some of the elements are the list's.
      if (const auto *List = dyn_cast_or_null<InitListExpr>(NE->getInitializer()))
        for (const Expr *Init : List->inits()) {
          Location Scratch = scratch();
          initialize(Scratch, T, Init, S, Report, Depth);
          copyObject({Scratch}, Summary, S, Update::Weak);
          eraseBelow(Scratch, S);
        }
      return {Heap.child(PathStep::element(PathStep::Any))};
    }
    initialize(Heap, T, NE->getInitializer(), S, Report, Depth);
    return {Heap};
  }
  if (const auto *Call = dyn_cast<CallExpr>(Plain)) {
    const FunctionDecl *FD = Call->getDirectCallee();
    if (TypeModel::functionEffect(FD) == FunctionEffect::MakeHeap) {
      const TemplateArgumentList *TArgs = FD->getTemplateSpecializationArgs();
      if (!TArgs || TArgs->size() == 0 || TArgs->get(0).getKind() != TemplateArgument::Type)
        return {Location::unknown()};
      QualType T = TArgs->get(0).getAsType();
      Location Heap = Location::heap(Call);
      if (!Types.holdsDescriptors(T))
        return {Location::unknown()};
      auto Args = callArguments(Call);
      eraseBelow(Heap, S);
      if (Types.isDescriptor(T)) {
        // make_unique<D>(d) copies d; make_unique<D>(src, dst, sem, ...) builds one.
        if (Args.size() == 1)
          S.Cells[Heap].Values = eval(Args[0], S);
        else if (const CXXConstructExpr *Inside = constructionInside(FD);
                 Inside && Api.isDescriptorConstructor(Inside->getConstructor()))
          S.Cells[Heap].Values = constructed(Call, Args, S, Report);
        else
          S.Cells[Heap].Values = unknown();
        return {Heap};
      }
      // A class: the constructor make_unique calls, on the arguments it forwards.
      const CXXConstructExpr *Inside = constructionInside(FD);
      const FunctionSummary *Summary =
          Inside ? summaryFor(Inside->getConstructor()) : nullptr;
      if (Summary && !Inside->getConstructor()->isCopyOrMoveConstructor()) {
        applyObjectStores(*Summary, Call, Args, Inside->getConstructor(), {Heap},
                          Update::Strong, S);
      } else if (Args.size() == 1 && Types.holdsDescriptors(Args[0]->getType())) {
        initialize(Heap, T, Args[0], S, Report, Depth);
      } else {
        materialize(Heap, T, S, [&](const TypeModel::Leaf &Leaf, Cell &C) {
          if (Leaf.Kind != Shape::Pointer)
            C.Values = unknown();
        });
      }
      return {Heap};
    }
  }
  if (const auto *Construct = dyn_cast<CXXConstructExpr>(Plain);
      Construct && Construct->getNumArgs() >= 1 &&
      !Construct->getConstructor()->isCopyOrMoveConstructor() &&
      !isa<CXXDefaultArgExpr>(Construct->getArg(0)) &&
      (Construct->getArg(0)->getType()->isPointerType() ||
       Types.isPointer(Construct->getArg(0)->getType())))
    return evalTargets(Construct->getArg(0), S, Report, Depth); // unique_ptr(new D(...))
  // std::reference_wrapper made from the object it refers to (`refs{a, b}`,
  // `std::reference_wrapper<D> r = a;`): that object.
  if (const auto *Construct = dyn_cast<CXXConstructExpr>(Plain);
      Construct && Construct->getNumArgs() == 1 &&
      !Construct->getConstructor()->isCopyOrMoveConstructor() &&
      Construct->getArg(0)->isGLValue() && isReferenceWrapper(Construct->getType()))
    return resolve(Construct->getArg(0), S);
  return designated(E, S);
}

void Analyzer::transferOperatorCall(const CXXOperatorCallExpr *Op, State &S, bool Report,
                                    unsigned Depth) {
  if (Op->getNumArgs() == 0)
    return;
  const Expr *Target = Op->getArg(0);
  QualType T = Target->getType();
  const TypeShape &TS = Types.shapeOf(T);
  OverloadedOperatorKind K = Op->getOperator();
  if (K == OO_Equal && Op->getNumArgs() == 2) {
    const Expr *Value = Op->getArg(1);
    switch (TS.Kind) {
    case Shape::Descriptor:
      write(resolve(Target, S), eval(Value, S), S, Update::Strong);
      return;
    case Shape::Pointer:
      writeTargets(resolve(Target, S), evalTargets(Value, S, Report, Depth), S, Update::Strong);
      return;
    case Shape::Variant:
      // v = d: the alternative d's type selects.
      if (!Types.shapeOf(Value->getType()).isAggregate() ||
          Types.shapeOf(Value->getType()).Kind == Shape::Record)
        if (std::optional<PathStep> Step = alternativeFor(Types, T, Value->getType())) {
          LocationList Whole = resolve(Target, S);
          for (const Location &L : Whole)
            eraseBelow(L, S);
          LocationList Parts;
          for (const Location &L : Whole)
            addLocation(Parts, L.child(*Step));
          assign(Parts, Value->getType().getNonReferenceType(), Value, S, Report, Depth);
          return;
        }
      [[fallthrough]];
    case Shape::Optional:
      // o = d: the value; o = std::nullopt: nothing.
      if (TS.Kind == Shape::Optional && !Types.isContainer(Value->getType()) &&
          Types.holdsDescriptors(Value->getType())) {
        LocationList Slots;
        for (const Location &L : resolve(Target, S))
          addLocation(Slots, L.child(PathStep::part(0)));
        assign(Slots, TS.Element, Value, S, Report, Depth);
        return;
      }
      [[fallthrough]];
    case Shape::Sequence:
    case Shape::FixedArray:
    case Shape::Pair:
    case Shape::Tuple:
    case Shape::Record:
    case Shape::Engagement:
      if (TS.Kind == Shape::Engagement) {
        write(resolve(Target, S), evalOptional(Value, S), S, Update::Strong);
        return;
      }
      assign(resolve(Target, S), T.getNonReferenceType(), Value, S, Report, Depth);
      return;
    case Shape::None:
      break;
    }
    if (const VarDecl *VD = writtenVar(Target))
      invalidateVar(VD, S);
    return;
  }
  if (K == OO_Call) {
    if (const LambdaExpr *Lambda = lambdaOf(Target)) {
      // A runner held in a local (`auto when = [](bool c, auto f) { if (c)
      // f(); }`) whose body calls nothing but its lambda (inPlaceRun): the
      // lambda runs here as one handed to a function that runs it in place,
      // under the argument for its flag.
      const auto *CallOperator = dyn_cast_or_null<CXXMethodDecl>(Op->getDirectCallee());
      llvm::ArrayRef<const Expr *> Params = parameterArguments(*Op);
      if (Lambda->capture_size() == 0)
        for (unsigned I = 0; I < Params.size(); ++I)
          if (const LambdaExpr *Body = inPlaceLambdaArgument(CallOperator, Params, I)) {
            inlineHandedLambda(Body, CallOperator, Params, I, S, Report, Depth);
            return;
          }
      llvm::SmallVector<LocationList, 2> ArgLocations;
      llvm::SmallVector<Location, 2> Scratches;
      for (unsigned I = 1; I < Op->getNumArgs(); ++I) {
        const Expr *Arg = Op->getArg(I);
        lambdaOf(Arg); // A lambda handed on: its closure type names it.
        if (Arg->isGLValue() && !isa<MaterializeTemporaryExpr>(Arg->IgnoreParens())) {
          ArgLocations.push_back(resolve(Arg, S));
        } else {
          // A temporary argument: an object of its own for the call.
          Location Scratch = scratch();
          initialize(Scratch, Arg->getType(), Arg, S, Report, Depth);
          Scratches.push_back(Scratch);
          ArgLocations.push_back({Scratch});
        }
      }
      llvm::SmallPtrSet<const LambdaExpr *, 1> InPlace; // [&] { ... }()
      addInPlaceLambdas(*Op, InPlace);
      // Constants the call passes the lambda's parameters (that it never
      // writes) decide its branches on them for this run.
      llvm::SmallVector<std::pair<const ParmVarDecl *, std::optional<int64_t>>, 2> Outer;
      llvm::SmallVector<std::pair<const ParmVarDecl *, const Expr *>, 2> Arguments;
      if (CallOperator && Function) {
        const UnwrittenVariables &Vars = AnalysisCache::current().variables(*Function, Api);
        for (unsigned I = 0; I < CallOperator->getNumParams() && I + 1 < Op->getNumArgs(); ++I) {
          const ParmVarDecl *P = CallOperator->getParamDecl(I);
          if (!P->getType()->isIntegralOrEnumerationType() || !Vars.unwrittenInLambda(P))
            continue;
          std::optional<int64_t> Value = constantInt(Op->getArg(I + 1), Ctx);
          if (!Value) {
            // A condition of this function's: the body's tests of P are it.
            if (!P->getType()->isReferenceType() && !isa<CXXDefaultArgExpr>(Op->getArg(I + 1)))
              if (const Expr *Here = withLambdaArguments(Op->getArg(I + 1)))
                Arguments.push_back({P, Here});
            continue;
          }
          Outer.push_back({P, boundParameter(P)});
          BoundParameters[P] = *Value;
        }
      }
      // Only the parameters of this run (a nested run names its own).
      auto OuterArguments = std::move(LambdaArguments);
      LambdaArguments.clear();
      for (const auto &[P, Here] : Arguments)
        LambdaArguments[P] = Here;
      LocationList Closure;
      if (Target->isGLValue())
        Closure = resolve(Target, S);
      inlineLambda(Lambda, CallOperator, ArgLocations, S, /*MayNotRun=*/false, Report, Depth,
                   InPlace.contains(Lambda), /*RunsWhen=*/nullptr, /*RunsWhenHolds=*/true,
                   &Closure);
      for (auto &[P, Value] : Outer) {
        if (Value)
          BoundParameters[P] = *Value;
        else
          BoundParameters.erase(P);
      }
      LambdaArguments = std::move(OuterArguments);
      for (const Location &L : Scratches)
        eraseBelow(L, S);
      return;
    }
    opaqueCall(nullptr, llvm::ArrayRef(Op->getArgs() + 1, Op->getNumArgs() - 1), S, Report,
               Depth);
    return;
  }
  if (TS.Kind == Shape::Pointer &&
      (K == OO_PlusPlus || K == OO_MinusMinus || K == OO_PlusEqual || K == OO_MinusEqual))
    writeTargets(resolve(Target, S), designated(Op, S), S, Update::Strong);
  if (Op->isAssignmentOp() || K == OO_PlusPlus || K == OO_MinusMinus) {
    if (const VarDecl *VD = writtenVar(Target))
      invalidateVar(VD, S);
    return;
  }
  // Another overloaded operator of the program's own (not a read through
  // [], *, ->): a call like any other.
  if (K != OO_Subscript && K != OO_Star && K != OO_Arrow)
    if (const FunctionDecl *FD = Op->getDirectCallee(); FD && !FD->isInStdNamespace())
      call(Op, FD, callArguments(Op), nullptr, S, Report, Depth);
}

void Analyzer::transferMemberCall(const CXXMemberCallExpr *MC, State &S, bool Report,
                                  unsigned Depth) {
  const CXXMethodDecl *MD = MC->getMethodDecl();
  if (transferApiMethod(MC, S, Report))
    return;
  const Expr *Object = MC->getImplicitObjectArgument();
  if (!MD || !Object)
    return;
  auto Args = callArguments(MC);
  const auto *ME = dyn_cast<MemberExpr>(MC->getCallee()->IgnoreParens());
  QualType ObjectType = ME && ME->isArrow() ? Object->getType()->getPointeeType()
                                            : Object->getType();
  const TypeShape &ObjectShape = Types.shapeOf(ObjectType);
  bool StdObject = ObjectShape.Kind != Shape::Record && ObjectShape.Kind != Shape::Descriptor &&
                   ObjectShape.Kind != Shape::None;
  if (ObjectShape.Kind == Shape::Engagement) {
    // An optional argument: reset() leaves it unset, emplace() sets it.
    StringRef Name = MD->getIdentifier() ? MD->getName() : "";
    if (Name == "reset" || Name == "emplace")
      write(objectLocations(MC, S), ValueSet::of(optionalValue(MC, Name == "emplace")), S,
            Update::Strong);
    return;
  }
  if (StdObject) {
    LocationList Locs = objectLocations(MC, S);
    StringRef Name = MD->getIdentifier() ? MD->getName() : "";
    const bool Appends = ObjectShape.Kind == Shape::Sequence &&
                         llvm::is_contained({"push_back", "emplace_back"}, Name);
    if (LastsKept && ObjectShape.Kind == Shape::Sequence && !Appends && !MD->isConst() &&
        !llvm::is_contained({MethodEffect::Element, MethodEffect::ElementAddress,
                             MethodEffect::Iterator},
                            TypeModel::methodEffect(ObjectShape.Kind, MD)))
      for (const Location &L : Locs)
        dropLast(L, S); // pop_back, clear, insert, ...: another element may be last.
    if (ObjectShape.Kind == Shape::Sequence &&
        llvm::is_contained({"insert", "emplace", "push_front", "emplace_front", "erase",
                            "pop_front"},
                           Name))
      spreadIndexed(Locs, S);
    if (Name == "swap" && Args.size() == 1) {
      swapObjects(Locs, resolve(Args[0], S), S);
      return;
    }
    // A local vector whose size is known appends at that index, and
    // pop_back removes the last element (SequenceSizes.cpp).
    std::optional<unsigned> Size;
    if (ObjectShape.Kind == Shape::Sequence && Locs.size() == 1 &&
        llvm::is_contained({"push_back", "emplace_back", "pop_back"}, Name))
      Size = knownSize(Locs[0], S);
    if (Size && Name == "pop_back") {
      if (*Size > 0) {
        Location Last = Locs[0].child(PathStep::element(*Size - 1));
        pendingOverwritten({Last}, S);
        eraseBelow(Last, S);
        setSize(Locs[0], *Size - 1, S);
      }
      return;
    }
    switch (TypeModel::methodEffect(ObjectShape.Kind, MD)) {
    case MethodEffect::Insert: {
      if (Size && *Size < unsigned(MaxTrackedIndex)) {
        // An empty element, which what is added then fills (insertInto
        // adds to what its slot holds).
        Location Appended = Locs[0].child(PathStep::element(*Size));
        eraseBelow(Appended, S);
        materialize(Appended, ObjectShape.Element, S,
                    [](const TypeModel::Leaf &, Cell &C) { C.Targets.clear(); });
        insertInto({Appended}, ObjectShape.Element, Args, MC, S, Report, Depth);
        setSize(Locs[0], *Size + 1, S);
        if (Appends)
          keepLast(Locs[0], Appended, S); // For where the size stops being known.
        return;
      }
      if (Appends && Locs.size() == 1 && Locs[0].variable() && Locs[0].Path.Depth == 0 &&
          sizeTracked(Locs[0].variable())) {
        appendLast(Locs[0], ObjectShape.Element, Args, MC, S, Report, Depth);
        return;
      }
      LocationList Slots;
      for (const Location &L : Locs) {
        setSize(L, std::nullopt, S);
        addLocation(Slots, L.child(PathStep::element(PathStep::Summary)));
      }
      insertInto(Slots, ObjectShape.Element, Args, MC, S, Report, Depth);
      return;
    }
    case MethodEffect::Assign: {
      if (ObjectShape.Kind == Shape::Optional) {
        // emplace(args): a value built from them.
        LocationList Slots;
        for (const Location &L : Locs)
          addLocation(Slots, L.child(PathStep::part(0)));
        Location Scratch = scratch();
        eraseBelow(Scratch, S);
        if (Types.isDescriptor(ObjectShape.Element)) {
          S.Cells[Scratch].Values =
              Args.size() == 1 ? eval(Args[0], S) : constructed(MC, Args, S, Report);
        } else if (Args.size() == 1) {
          initialize(Scratch, ObjectShape.Element, Args[0], S, Report, Depth);
        }
        for (const Location &L : Slots)
          copyObject({Scratch}, L, S, Slots.size() == 1 ? Update::Strong : Update::Weak);
        eraseBelow(Scratch, S);
        return;
      }
      // assign(...), fill(...): the old elements go.
      for (const Location &L : Locs)
        if (L.isSingle()) {
          forgetFlagsBelow(L, S);
          auto [First, Last] = S.cellsBelow(L);
          for (auto It = First; It != Last; ++It)
            It->second.Values = ValueSet();
        }
      LocationList Slots;
      for (const Location &L : Locs)
        addLocation(Slots, L.child(PathStep::element(PathStep::Summary)));
      insertInto(Slots, ObjectShape.Element, Args, MC, S, Report, Depth);
      return;
    }
    case MethodEffect::Clear:
      if (ObjectShape.Kind == Shape::Pointer) {
        // reset(p): designates p now; reset(): nothing.
        LocationList Targets = Args.empty() || isa<CXXDefaultArgExpr>(Args[0])
                                   ? LocationList()
                                   : evalTargets(Args[0], S, Report, Depth);
        writeTargets(Locs, Targets, S, Update::Strong);
        return;
      }
      pendingOverwritten(Locs, S);
      for (const Location &L : Locs) {
        if (!L.isSingle())
          continue;
        forgetFlagsBelow(L, S);
        auto [First, Last] = S.cellsBelow(L);
        for (auto It = First; It != Last; ++It)
          It->second.Values = ValueSet();
        // A sequence whose size is followed holds nothing now.
        if (ObjectShape.Kind == Shape::Sequence && L.variable() && L.Path.Depth == 0 &&
            sizeTracked(L.variable())) {
          auto [Element, End] = S.cellsBelow(L);
          while (Element != End)
            Element = Element->first.Path.Steps[0].isConstantElement() ? S.Cells.erase(Element)
                                                                         : std::next(Element);
          setSize(L, 0, S);
        }
      }
      return;
    case MethodEffect::Unlisted:
      if (MD->isConst())
        return;
      // A member function the table does not know may change what it holds.
      for (const Location &L : Locs) {
        escapeBelow({L}, S);
        forgetFlagsBelow(L, S);
        auto [First, Last] = S.cellsBelow(L);
        for (auto It = First; It != Last; ++It)
          if (It->second.Targets.empty())
            It->second.Values.unionWith(unknown());
      }
      return;
    default:
      return;
    }
  }
  LocationList ObjectLocs = objectLocations(MC, S);
  if (ObjectShape.Kind == Shape::None && MD->getParent()->isInStdNamespace()) {
    // A member function of a std class the model does not follow (std::map,
    // std::function, ...): what it is given may be kept in the object and
    // used through it, so it escapes, whatever the library's code shows.
    opaqueCall(MD, Args, S, Report, Depth);
    return;
  }
  call(MC, MD, Args, &ObjectLocs, S, Report, Depth);
}

const InitListExpr *Analyzer::listOfElements(llvm::ArrayRef<const Expr *> Args) {
  const Expr *Only = nullptr;
  for (const Expr *A : Args)
    if (!isa<CXXDefaultArgExpr>(A)) {
      if (Only)
        return nullptr;
      Only = A;
    }
  const auto *List = Only ? dyn_cast<CXXStdInitializerListExpr>(initialiser(Only)) : nullptr;
  return List ? dyn_cast<InitListExpr>(initialiser(List->getSubExpr())) : nullptr;
}

void Analyzer::spreadIndexed(const LocationList &Containers, State &S) {
  for (const Location &L : Containers) {
    if (L.isUnknown())
      continue;
    llvm::SmallVector<Location, 4> Indexed;
    auto [First, Last] = S.cellsBelow(L);
    for (auto It = First; It != Last; ++It)
      if (It->first.Path.Depth > L.Path.Depth &&
          It->first.Path.Steps[L.Path.Depth].isConstantElement()) {
        Location Element = L.child(It->first.Path.Steps[L.Path.Depth]);
        if (Indexed.empty() || Indexed.back() != Element)
          Indexed.push_back(Element);
      }
    if (Indexed.empty())
      continue;
    Location Summary = L.child(PathStep::element(PathStep::Summary));
    for (const Location &Element : Indexed) {
      copyObject({Element}, Summary, S, Update::Weak);
      eraseBelow(Element, S);
    }
  }
}

void Analyzer::algorithmReached(llvm::ArrayRef<const Expr *> Args, State &S) {
  LocationList Written;  // Reached through a non-const iterator, or named whole.
  LocationList Read;     // Reached through a pointer to const.
  bool GivenValue = false; // A descriptor (or an object holding one) handed in.
  for (const Expr *Arg : Args) {
    if (isa<CXXDefaultArgExpr>(Arg))
      continue;
    QualType T = Arg->getType();
    if (Types.isPointer(T)) {
      // An iterator or a pointer into a container or an array: that
      // container (the location above the element it designates).
      bool ToConst = T->isPointerType() && T->getPointeeType().isConstQualified();
      for (const Location &L : designated(Arg, S))
        if (!L.isUnknown() && L.Path.Depth > 0 &&
            L.Path.Steps[L.Path.Depth - 1].K == PathStep::Element) {
          Location Container = L;
          --Container.Path.Depth;
          addLocation(ToConst ? Read : Written, Container);
        }
      continue;
    }
    const TypeShape &TS = Types.shapeOf(T);
    if (!TS.holdsDescriptors())
      continue;
    if (Arg->isGLValue() && !T.isConstQualified() &&
        (TS.Kind == Shape::FixedArray || TS.Kind == Shape::Sequence)) {
      for (const Location &L : resolve(Arg, S))
        addLocation(Written, L);
      continue;
    }
    GivenValue = true;
  }
  if (Written.empty())
    return;
  bool Within = Written.size() == 1 && !GivenValue &&
                llvm::all_of(Read, [&](const Location &L) { return L == Written[0]; });
  if (Within) {
    spreadIndexed(Written, S);
    return;
  }
  // std::copy(y.begin(), y.end(), x.begin()), std::fill(x.begin(), x.end(),
  // d): which of them it writes, and with what, the model does not know.
  // Spreading would keep the old elements as well, and report a local copy
  // that the call replaced.
  for (const Location &L : Written) {
    escapeBelow({L}, S);
    receiveMayBeWaited({L}, S);
    forgetBelow(L, S);
  }
}

void Analyzer::swapObjects(const LocationList &A, const LocationList &B, State &S) {
  if (A.empty() || B.empty())
    return;
  Location FromA = scratch(), FromB = scratch();
  copyObject(A, FromA, S, Update::Strong);
  copyObject(B, FromB, S, Update::Strong);
  // Two objects exchange; where either side may be one of several, each
  // may have kept what it held.
  Update How = A.size() == 1 && B.size() == 1 && A[0].isSingle() && B[0].isSingle()
                   ? Update::Strong
                   : Update::Weak;
  for (const Location &L : A)
    copyObject({FromB}, L, S, How);
  for (const Location &L : B)
    copyObject({FromA}, L, S, How);
  eraseBelow(FromA, S);
  eraseBelow(FromB, S);
  for (const LocationList *Side : {&A, &B})
    for (const Location &L : *Side)
      if (const VarDecl *VD = L.variable())
        invalidateVar(VD, S);
}

void Analyzer::insertInto(const LocationList &Elements, QualType ElementType,
                          llvm::ArrayRef<const Expr *> Args, const Expr *Site, State &S,
                          bool Report, unsigned Depth) {
  if (Elements.empty())
    return;
  Location Scratch = scratch();
  auto Add = [&](const Expr *Value) {
    eraseBelow(Scratch, S);
    initialize(Scratch, ElementType, Value, S, Report, Depth);
    for (const Location &L : Elements)
      copyObject({Scratch}, L, S, Update::Weak);
    eraseBelow(Scratch, S);
  };
  // What is inserted: the arguments after insert()'s and emplace()'s
  // position (an iterator into the container itself).
  llvm::SmallVector<const Expr *, 4> Given;
  for (const Expr *A : Args)
    if (!isa<CXXDefaultArgExpr>(A))
      Given.push_back(A);
  if (const auto *MC = dyn_cast<CXXMemberCallExpr>(Site))
    if (const CXXMethodDecl *MD = MC->getMethodDecl();
        MD && MD->getIdentifier() && (MD->getName() == "insert" || MD->getName() == "emplace") &&
        Given.size() > 1 && Types.isPointer(Given.front()->getType()))
      Given.erase(Given.begin());
  if (Given.empty())
    return;
  QualType Plain = ElementType.getCanonicalType().getUnqualifiedType();
  auto IsElement = [&](const Expr *E) {
    return E->getType().getNonReferenceType().getCanonicalType().getUnqualifiedType() == Plain ||
           (Types.isDescriptor(ElementType) && Types.isDescriptor(E->getType()));
  };
  // push_back(d), insert(pos, d), insert(pos, n, d), emplace_back(d): the element.
  for (auto It = Given.rbegin(); It != Given.rend(); ++It)
    if (IsElement(*It)) {
      Add(*It);
      return;
    }
  if (Given.size() == 1) {
    // insert(pos, {a, b}), a constructor's initializer list.
    if (const InitListExpr *ILE = listOfElements(Given)) {
      for (const Expr *Item : ILE->inits())
        Add(Item);
      return;
    }
    // emplace_back(new D(...)), emplace_back(std::move(p)): what builds one.
    Add(Given[0]);
    return;
  }
  // emplace_back(src, dst, sem, ...): the general constructor's arguments.
  if (Types.isDescriptor(ElementType) && Given.size() >= 3) {
    ValueSet Built = constructed(Site, Given, S, Report);
    for (const Location &L : Elements)
      write({L}, Built, S, Update::Weak);
    return;
  }
  // insert(pos, first, last), assign(first, last): an iterator range.
  if (Given.size() == 2 && Types.isPointer(Given[0]->getType()) &&
      Types.isPointer(Given[1]->getType())) {
    LocationList From = designated(Given[0], S);
    for (const Location &L : Elements)
      copyObject(From, L, S, Update::Weak);
    return;
  }
  // emplace_back(a, b) of a std::pair or std::tuple: its parts in order.
  if (Shape Kind = Types.shapeOf(ElementType).Kind; Kind == Shape::Pair || Kind == Shape::Tuple) {
    eraseBelow(Scratch, S);
    initializeParts(Scratch, ElementType, Given, S, Report, Depth);
    for (const Location &L : Elements)
      copyObject({Scratch}, L, S, Update::Weak);
    eraseBelow(Scratch, S);
    return;
  }
  if (Types.holdsDescriptors(ElementType)) {
    // An element built from arguments the model does not follow: what they
    // carry escapes into it, and it holds unknown values.
    for (const Expr *A : Given)
      markEscaped(argumentValues(A, S));
    ValueSet Unknown = unknown();
    for (const Location &L : Elements)
      write({L}, Unknown, S, Update::Weak);
  }
}

} // namespace dmalint
