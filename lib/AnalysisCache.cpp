//===- AnalysisCache.cpp - One descriptor analysis per function, shared ---===//
#include "dmalint/AnalysisCache.h"
#include "dmalint/AstUtil.h"
#include "dmalint/InPlaceLambdas.h"
#include "dmalint/Protocol.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Basic/SourceManager.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallPtrSet.h"
#include <functional>
#include <limits>
#include "ScopeExit.h"

namespace dmalint {

AnalysisCache &AnalysisCache::current() {
  // Per thread: the standalone driver runs translation units in parallel.
  thread_local AnalysisCache Cache;
  return Cache;
}

void AnalysisCache::reset() {
  Results.clear();
  Scratch.clear();
  UsesApi.clear();
  InPlaceParameters.clear();
  ReachesApi.clear();
  DestructionReachesApi.clear();
  ReachSearching.clear();
  ReachOpen.clear();
  Reported.clear();
  InProgress.clear();
  Summarising.clear();
  Recursive.clear();
  Provisional.clear();
  Retired.clear();
  Classes.clear();
  ClassesInProgress.clear();
  TypeModels.clear();
  Cfgs = CfgCache();
  Variables.clear();
  FieldsWritten.clear();
  FlagsWrittenUnseen.reset();
  ObjectLeftAlone.clear();
  Callees.reset();
  Substitutions.clear();
  Ctx = nullptr;
  Api = nullptr;
  Limits = nullptr;
}

const UnwrittenVariables &AnalysisCache::variables(const clang::FunctionDecl &FD,
                                                   const ApiIndex &For) {
  std::unique_ptr<UnwrittenVariables> &Slot = Variables[{&FD, &For}];
  if (!Slot)
    Slot = std::make_unique<UnwrittenVariables>(FD, For);
  return *Slot;
}

TypeModel &AnalysisCache::types(const ApiIndex &For) {
  std::unique_ptr<TypeModel> &Slot = TypeModels[&For];
  if (!Slot)
    Slot = std::make_unique<TypeModel>(For);
  return *Slot;
}

const clang::CFG *AnalysisCache::cfg(const clang::FunctionDecl &FD, const clang::ASTContext &Ctx) {
  const BodyCfg *B = Cfgs.get(&FD, FD.getBody(), const_cast<clang::ASTContext &>(Ctx));
  return B ? B->Graph.get() : nullptr;
}

const std::optional<InPlaceRun> &AnalysisCache::inPlaceRun(const clang::FunctionDecl &FD,
                                                           unsigned Param) {
  auto [It, Inserted] = InPlaceParameters.try_emplace({&FD, Param});
  if (Inserted)
    It->second = dmalint::inPlaceRun(FD, Param);
  return It->second;
}

bool AnalysisCache::usesApi(const clang::FunctionDecl &FD, const ApiIndex &For) {
  auto [It, Inserted] = UsesApi.try_emplace(&FD, false);
  if (Inserted)
    It->second = For.usedBy(FD);
  return It->second;
}

void AnalysisCache::retire(std::map<Key, FunctionAnalysis> &From, Key K) {
  if (auto Node = From.extract(K))
    Retired.push_back(std::move(Node));
}

const FunctionAnalysis &AnalysisCache::analysis(const clang::FunctionDecl &FD,
                                                clang::ASTContext &C, const ApiIndex &A,
                                                const AnalysisLimits &L) {
  // The outermost call sets what the nested ones (callees, classes) use.
  bool Outermost = InProgress.empty();
  auto Restore = onScopeExit(
      [this, OldCtx = Ctx, OldApi = Api, OldLimits = Limits] {
        Ctx = OldCtx;
        Api = OldApi;
        Limits = OldLimits;
      });
  if (Outermost) {
    Ctx = &C;
    Api = &A;
    Limits = &L;
  }
  Key K = keyOf(&FD, L);
  auto It = Results.find(K);
  if (It != Results.end())
    return It->second;
  bool ClassPending = !ClassesInProgress.empty();
  std::map<Key, FunctionAnalysis> &Store = ClassPending ? Scratch : Results;
  if (auto S = Store.find(K); S != Store.end())
    return S->second;
  TypeModel &Types = types(A);
  InProgress.push_back(&FD);
  FunctionAnalysis Result = analyzeFunction(FD, C, A, L, this, &Types, &Cfgs);
  // A recursive function saw itself (or a caller of itself) before its
  // summary was known: analyse it again with the summary just found, after
  // dropping what was computed from the stale one, until the summary stops
  // changing (bounded).
  for (unsigned Round = 0; Recursive.count(&FD) && !Result.HitWorkLimit && Round < 3;
       ++Round) {
    Recursive.erase(&FD);
    dropProvisional(&FD);
    Store[K] = std::move(Result);
    FunctionAnalysis Again = analyzeFunction(FD, C, A, L, this, &Types, &Cfgs);
    bool Stable = Again.Summary == Store[K].Summary;
    Result = std::move(Again);
    if (Stable)
      break;
  }
  InProgress.pop_back();
  Recursive.erase(&FD);
  // Once no recursion is open, what was provisional is final or gone.
  if (!Provisional.count(&FD) || InProgress.empty())
    dropProvisional(&FD);
  FunctionAnalysis &Stored = Store[K] = std::move(Result);
  if (InProgress.empty())
    Retired.clear();
  return Stored;
}

void AnalysisCache::dropProvisional(const clang::FunctionDecl *Keep) {
  for (const clang::FunctionDecl *Stale : Provisional)
    if (Stale != Keep && !llvm::is_contained(InProgress, Stale)) {
      retire(Results, keyOf(Stale, *Limits));
      retire(Scratch, keyOf(Stale, *Limits));
    }
  Provisional.clear();
}

const FunctionSummary *AnalysisCache::function(const clang::FunctionDecl &FD) {
  auto OnStack = llvm::find(InProgress, &FD);
  if (OnStack != InProgress.end()) {
    Recursive.insert(&FD);
    for (auto It = std::next(OnStack); It != InProgress.end(); ++It)
      Provisional.insert(*It);
    for (std::map<Key, FunctionAnalysis> *Store : {&Results, &Scratch})
      if (auto Earlier = Store->find(keyOf(&FD, *Limits)); Earlier != Store->end())
        return &Earlier->second.Summary;
    return nullptr;
  }
  // Deep chains of helpers: past this depth, calls are opaque.
  if (InProgress.size() >= 64)
    return nullptr;
  const FunctionAnalysis &A = analysis(FD, *Ctx, *Api, *Limits);
  return A.HitWorkLimit ? nullptr : &A.Summary;
}

namespace {

/// The functions with a body in this translation unit (outside system
/// headers) that a body calls or constructs with, lambdas included.
class DirectCallees : public clang::RecursiveASTVisitor<DirectCallees> {
public:
  explicit DirectCallees(const clang::SourceManager &SM) : SM(SM) {}
  bool VisitCallExpr(clang::CallExpr *Call) {
    add(Call->getDirectCallee());
    return true;
  }
  bool VisitCXXConstructExpr(clang::CXXConstructExpr *CE) {
    add(CE->getConstructor());
    return true;
  }
  std::vector<const clang::FunctionDecl *> Found;

private:
  void add(const clang::FunctionDecl *FD) {
    const clang::FunctionDecl *Definition = nullptr;
    if (!FD || !FD->hasBody(Definition) || Definition->isDependentContext() ||
        SM.isInSystemHeader(Definition->getLocation()) || llvm::is_contained(Found, Definition))
      return;
    Found.push_back(Definition);
  }
  const clang::SourceManager &SM;
};

} // namespace

bool AnalysisCache::reachesApi(const clang::FunctionDecl &FD, const clang::ASTContext &C,
                               const ApiIndex &For) {
  unsigned Low;
  return searchReach(FD, C, For, Low);
}

bool AnalysisCache::destructionReachesApi(const clang::CXXRecordDecl *RD,
                                          const clang::ASTContext &C, const ApiIndex &For) {
  return destructionReachesApi(RD, C, For, 0);
}

bool AnalysisCache::destructionReachesApi(const clang::CXXRecordDecl *RD,
                                          const clang::ASTContext &C, const ApiIndex &For,
                                          unsigned Depth) {
  if (!RD || !RD->hasDefinition() || Depth > 4 || RD->isInStdNamespace())
    return false;
  RD = RD->getDefinition();
  if (auto It = DestructionReachesApi.find(RD); It != DestructionReachesApi.end())
    return It->second;
  bool Reaches = false;
  if (const clang::CXXDestructorDecl *Dtor = RD->getDestructor();
      Dtor && Dtor->isUserProvided() && reachesApi(*Dtor, C, For))
    Reaches = true;
  for (const clang::FieldDecl *F : RD->fields())
    Reaches = Reaches ||
              destructionReachesApi(F->getType()->getBaseElementTypeUnsafe()->getAsCXXRecordDecl(),
                                    C, For, Depth + 1);
  for (const clang::CXXBaseSpecifier &B : RD->bases())
    Reaches = Reaches ||
              destructionReachesApi(B.getType()->getAsCXXRecordDecl(), C, For, Depth + 1);
  // An answer cut short by the depth limit is not kept for a shallower question.
  if (Depth == 0)
    DestructionReachesApi[RD] = Reaches;
  return Reaches;
}

// A depth-first search of the direct calls. A function the search is still
// in, reached again through a cycle, answers "not found yet"; a "no" that
// leaned on such an answer (\p Low: the shallowest depth of those it leaned
// on) becomes final only when the search leaves that function with a "no"
// of its own: then nothing reachable from there uses the API. If that
// function's answer is "yes" instead, the open "no"s are dropped (each is
// asked again if it is asked). A "yes" is final at once. (Recording the
// "not found yet" as a final "no", as this did before, answered a function
// on a cycle according to which function of the cycle was asked first.)
bool AnalysisCache::searchReach(const clang::FunctionDecl &FD, const clang::ASTContext &C,
                                const ApiIndex &For, unsigned &Low) {
  Low = std::numeric_limits<unsigned>::max();
  if (auto It = ReachesApi.find(&FD); It != ReachesApi.end())
    return It->second;
  if (auto It = ReachSearching.find(&FD); It != ReachSearching.end()) {
    Low = It->second;
    return false;
  }
  unsigned Depth = ReachSearching.size();
  ReachSearching[&FD] = Depth;
  size_t OpenBefore = ReachOpen.size();
  bool Reaches = usesApi(FD, For);
  if (!Reaches && FD.hasBody()) {
    DirectCallees Callees(C.getSourceManager());
    Callees.TraverseStmt(FD.getBody());
    for (const clang::FunctionDecl *Callee : Callees.Found) {
      if (Callee == &FD)
        continue;
      unsigned CalleeLow;
      if (searchReach(*Callee, C, For, CalleeLow)) {
        Reaches = true;
        break;
      }
      Low = std::min(Low, CalleeLow);
    }
  }
  ReachSearching.erase(&FD);
  if (Reaches || Low >= Depth) {
    // Final, and so is every "no" left open below this function: their
    // searches reached nothing this one did not.
    if (!Reaches)
      for (size_t I = OpenBefore; I < ReachOpen.size(); ++I)
        ReachesApi[ReachOpen[I]] = false;
    ReachOpen.resize(OpenBefore);
    ReachesApi[&FD] = Reaches;
    Low = std::numeric_limits<unsigned>::max();
    return Reaches;
  }
  ReachOpen.push_back(&FD);
  return false;
}

const ProtocolSummary *AnalysisCache::protocol(const clang::FunctionDecl &FD) {
  return protocolSummary(FD, /*OnlyReachingApi=*/true);
}

const ProtocolSummary *AnalysisCache::protocolIfMade(const clang::FunctionDecl &FD) const {
  for (auto It = Results.lower_bound(Key{&FD, 0, false});
       It != Results.end() && std::get<0>(It->first) == &FD; ++It)
    if (!It->second.HitWorkLimit && It->second.Protocol)
      return &*It->second.Protocol;
  return nullptr;
}

const ProtocolSummary *AnalysisCache::constructorProtocol(const clang::FunctionDecl &FD) {
  return protocolSummary(FD, /*OnlyReachingApi=*/false);
}

const ProtocolSummary *AnalysisCache::protocolSummary(const clang::FunctionDecl &FD,
                                                      bool OnlyReachingApi) {
  // A function whose analysis or summary is in progress (recursion) has no
  // summary yet: the caller takes it as unknown. Every function of a cycle
  // then ends with what an unknown callee gives, whichever is asked first.
  if (!Ctx || !Api || !Limits || llvm::is_contained(InProgress, &FD) || InProgress.size() >= 64 ||
      llvm::is_contained(Summarising, &FD) || Summarising.size() >= 64 ||
      Ctx->getSourceManager().isInSystemHeader(FD.getLocation()) ||
      (OnlyReachingApi && !reachesApi(FD, *Ctx, *Api)))
    return nullptr;
  analysis(FD, *Ctx, *Api, *Limits);
  Key K = keyOf(&FD, *Limits);
  for (std::map<Key, FunctionAnalysis> *Store : {&Results, &Scratch}) {
    auto It = Store->find(K);
    if (It == Store->end())
      continue;
    FunctionAnalysis &A = It->second;
    if (A.HitWorkLimit)
      return nullptr;
    if (!A.Protocol) {
      Summarising.push_back(&FD);
      auto Done = onScopeExit([this] { Summarising.pop_back(); });
      A.Protocol = summariseProtocol(A, FD, *Ctx, *Api);
    }
    return &*A.Protocol;
  }
  return nullptr;
}

namespace {

/// The member functions whose effect on `*this` makes up what a class's
/// members may hold: those with a body here, the implicit ones but copies
/// and moves (which bring another object of the class: the same values).
/// \p Incomplete: one is declared but its body is elsewhere.
std::vector<const clang::CXXMethodDecl *> memberFunctions(const clang::CXXRecordDecl &RD,
                                                          bool &Incomplete) {
  std::vector<const clang::CXXMethodDecl *> Result;
  Incomplete = false;
  for (const clang::CXXMethodDecl *MD : RD.methods()) {
    if (MD->isStatic() || MD->isDeleted() || MD->isDependentContext())
      continue;
    if (MD->isImplicit() || MD->isDefaulted()) {
      if (MD->isCopyAssignmentOperator() || MD->isMoveAssignmentOperator())
        continue;
      if (const auto *Ctor = llvm::dyn_cast<clang::CXXConstructorDecl>(MD);
          Ctor && Ctor->isCopyOrMoveConstructor())
        continue;
      if (MD->hasBody())
        Result.push_back(MD);
      continue;
    }
    const clang::FunctionDecl *Definition = nullptr;
    if (!MD->hasBody(Definition)) {
      if (!MD->isPureVirtual())
        Incomplete = true;
      continue;
    }
    Result.push_back(llvm::cast<clang::CXXMethodDecl>(Definition));
  }
  return Result;
}

} // namespace

const ClassSummary *AnalysisCache::members(const clang::CXXRecordDecl &RD) {
  if (!Ctx || !Limits || !Limits->UseSummaries)
    return nullptr;
  ClassKey K{&RD, Limits->MaxBlockVisits, Limits->UseSummaries};
  if (auto It = Classes.find(K); It != Classes.end())
    return &It->second;
  // A member function of the class, analysed to find the summary, reads it:
  // what the rounds so far have found.
  if (auto It = ClassesInProgress.find(K); It != ClassesInProgress.end())
    return &It->second;
  if (ClassesInProgress.size() >= 8 || InProgress.size() >= 64)
    return nullptr;
  bool Incomplete = false;
  std::vector<const clang::CXXMethodDecl *> Methods = memberFunctions(RD, Incomplete);
  ClassesInProgress[K].Incomplete = Incomplete;
  bool Settled = false;
  for (unsigned Round = 0; Round < 4 && !Settled; ++Round) {
    ClassSummary Next;
    Next.Incomplete = Incomplete;
    for (const clang::CXXMethodDecl *MD : Methods) {
      // Each round afresh: the analyses of the last one read its summary.
      for (auto It = Scratch.begin(); It != Scratch.end();)
        if (std::get<0>(It->first) == MD)
          Retired.push_back(Scratch.extract(It++));
        else
          ++It;
      InProgress.push_back(MD);
      FunctionAnalysis A = analyzeFunction(*MD, *Ctx, *Api, *Limits, this, &types(*Api), &Cfgs);
      InProgress.pop_back();
      if (A.HitWorkLimit) {
        Next.Incomplete = true;
        continue;
      }
      // One that writes no copy into the object leaves what it found there.
      if (A.Summary.Object.MayWrite || llvm::isa<clang::CXXConstructorDecl>(MD))
        unitePaths(Next.Members, A.Summary.ObjectStores);
    }
    // What a member held before a member function ran is still a value it
    // may hold: the summary only grows.
    unitePaths(Next.Members, ClassesInProgress[K].Members);
    Settled = Next == ClassesInProgress[K] && Next.Incomplete == ClassesInProgress[K].Incomplete;
    ClassesInProgress[K] = std::move(Next);
  }
  ClassSummary Final = std::move(ClassesInProgress[K]);
  ClassesInProgress.erase(K);
  if (!Settled)
    Final.Incomplete = true;
  // The analyses made on the way read a summary that was not final.
  if (ClassesInProgress.empty())
    for (auto It = Scratch.begin(); It != Scratch.end();)
      Retired.push_back(Scratch.extract(It++));
  if (InProgress.empty())
    Retired.clear();
  return &(Classes[K] = std::move(Final));
}

std::vector<const clang::Expr *> AnalysisCache::usedCopies(const FunctionAnalysis &A,
                                                          clang::ASTContext &C,
                                                          const ApiIndex &For,
                                                          const AnalysisLimits &L) {
  std::vector<const clang::Expr *> Copies;
  // A wrapper's call stands for what the wrapper returns at the place the
  // copy was (the empty path for the value itself, `.out` of a returned
  // struct). Bounded: wrappers of wrappers are a few deep, and recursion is
  // cut by Seen.
  std::set<std::pair<const clang::Expr *, std::optional<AccessPath>>> Seen;
  std::function<void(const clang::Expr *, const std::optional<AccessPath> &, unsigned)>
      Follow = [&](const clang::Expr *Site, const std::optional<AccessPath> &Path,
                   unsigned Depth) {
        if (!Seen.insert({Site, Path}).second)
          return;
        if (For.isCopy(*Site)) {
          if (!llvm::is_contained(Copies, Site))
            Copies.push_back(Site);
          return;
        }
        const auto *Call = llvm::dyn_cast<clang::CallExpr>(Site);
        const clang::FunctionDecl *Callee = Call ? Call->getDirectCallee() : nullptr;
        const clang::FunctionDecl *Definition = nullptr;
        if (!Callee || Depth >= 8 || !L.UseSummaries || !Callee->hasBody(Definition) ||
            Definition->isDependentContext())
          return;
        const FunctionAnalysis &Wrapper = analysis(*Definition, C, For, L);
        if (Wrapper.HitWorkLimit)
          return;
        // Copied out first: analysing the next wrapper may drop this result.
        std::vector<const clang::Expr *> AtPath, AtEmpty, Anywhere;
        for (const PathValues &Values : Wrapper.Summary.Returns)
          for (const auto &[Built, Kind] : Values.Values.Built) {
            if (Path && Values.Path == *Path && !llvm::is_contained(AtPath, Built))
              AtPath.push_back(Built);
            if (Values.Path.empty() && !llvm::is_contained(AtEmpty, Built))
              AtEmpty.push_back(Built);
            if (!llvm::is_contained(Anywhere, Built))
              Anywhere.push_back(Built);
          }
        // A wrapper's summary names the calls it got copies from, not where
        // below their values they were: reached that way (Path unknown), the
        // value itself, or the one construction a struct or container
        // holds (return Box{make_async_copy(...)}).
        std::vector<const clang::Expr *> Returned =
            Path ? AtPath : !AtEmpty.empty() || Anywhere.size() != 1 ? AtEmpty : Anywhere;
        for (const clang::Expr *Built : Returned)
          Follow(Built, std::nullopt, Depth + 1);
      };
  for (const auto &[Site, Path] : A.usedConstructions())
    Follow(Site, Path, 0);
  return Copies;
}

bool AnalysisCache::firstReport(llvm::StringRef Check, clang::SourceLocation Loc) {
  return Reported.insert({Check.str(), Loc.getRawEncoding()}).second;
}

namespace {
/// The functions that code outside system headers calls, constructs with,
/// or takes the address of.
class CalleeFinder : public clang::RecursiveASTVisitor<CalleeFinder> {
public:
  explicit CalleeFinder(const clang::SourceManager &SM) : SM(SM) {}
  bool shouldVisitTemplateInstantiations() const { return true; }
  bool shouldVisitImplicitCode() const { return true; }
  bool TraverseDecl(clang::Decl *D) {
    if (D && !clang::isa<clang::TranslationUnitDecl>(D) && SM.isInSystemHeader(D->getLocation()))
      return true;
    const auto *FD = llvm::dyn_cast_or_null<clang::FunctionDecl>(D);
    if (FD)
      Functions.push_back(FD);
    bool Result = RecursiveASTVisitor::TraverseDecl(D);
    if (FD)
      Functions.pop_back();
    return Result;
  }
  bool VisitCallExpr(clang::CallExpr *Call) {
    // A direct call: its callee's name is this call's, not another naming.
    const clang::Expr *Callee = Call->getCallee()->IgnoreParenImpCasts();
    const clang::FunctionDecl *FD = Call->getDirectCallee();
    // (An operator's arguments count its object: not a site to match
    // parameters against.)
    if (!FD || Functions.empty() || llvm::isa<clang::CXXOperatorCallExpr>(Call) ||
        !llvm::isa<clang::DeclRefExpr, clang::MemberExpr>(Callee))
      return true;
    CallNames.insert(Callee);
    Sites[FD->getCanonicalDecl()].push_back({Call, Functions.back()});
    return true;
  }
  bool VisitDeclRefExpr(clang::DeclRefExpr *DRE) {
    if (const auto *FD = llvm::dyn_cast<clang::FunctionDecl>(DRE->getDecl()))
      add(FD, DRE);
    return true;
  }
  bool VisitMemberExpr(clang::MemberExpr *ME) {
    if (const auto *FD = llvm::dyn_cast<clang::FunctionDecl>(ME->getMemberDecl()))
      add(FD, ME);
    return true;
  }
  bool VisitCXXConstructExpr(clang::CXXConstructExpr *CE) {
    add(CE->getConstructor(), nullptr);
    return true;
  }
  llvm::DenseSet<const clang::FunctionDecl *> Found;
  llvm::DenseMap<const clang::FunctionDecl *, std::vector<AnalysisCache::CallSite>> Sites;
  llvm::DenseSet<const clang::FunctionDecl *> NamedOtherwise;

private:
  void add(const clang::FunctionDecl *FD, const clang::Expr *Name) {
    // A call of an instantiation names its pattern too, and so does any
    // other naming (its address taken): every instantiation's callers are
    // then unknown, as that one's are.
    const clang::FunctionDecl *Pattern = FD->getTemplateInstantiationPattern();
    Found.insert(FD->getCanonicalDecl());
    if (Pattern)
      Found.insert(Pattern->getCanonicalDecl());
    if (Name && CallNames.contains(Name))
      return;
    NamedOtherwise.insert(FD->getCanonicalDecl());
    if (Pattern)
      NamedOtherwise.insert(Pattern->getCanonicalDecl());
  }
  const clang::SourceManager &SM;
  std::vector<const clang::FunctionDecl *> Functions;
  llvm::DenseSet<const clang::Expr *> CallNames;
};
} // namespace

bool AnalysisCache::calledInTranslationUnit(const clang::FunctionDecl &FD,
                                            clang::ASTContext &Ctx) {
  // Sema marks each function an expression names (a call, a construction,
  // its address): one that nothing names is called nowhere, and a kernel
  // usually is one. (An instantiation is also named through another of its
  // template's: the walk below.)
  if (!FD.isReferenced() && !FD.getTemplateInstantiationPattern() &&
      FD.getTemplatedKind() == clang::FunctionDecl::TK_NonTemplate)
    return false;
  findCallees(Ctx);
  if (Callees->contains(FD.getCanonicalDecl()))
    return true;
  const clang::FunctionDecl *Pattern = FD.getTemplateInstantiationPattern();
  return Pattern && Callees->contains(Pattern->getCanonicalDecl());
}

void AnalysisCache::findCallees(clang::ASTContext &Ctx) {
  if (Callees)
    return;
  CalleeFinder Finder(Ctx.getSourceManager());
  Finder.TraverseDecl(Ctx.getTranslationUnitDecl());
  Callees = std::make_unique<llvm::DenseSet<const clang::FunctionDecl *>>(
      std::move(Finder.Found));
  CallSites = std::move(Finder.Sites);
  NamedOtherwise = std::move(Finder.NamedOtherwise);
}

namespace {
/// The reference to a variable an argument is: through implicit copies (a
/// semaphore passed by value) and parentheses.
const clang::DeclRefExpr *argumentReference(const clang::Expr *Arg) {
  for (unsigned Step = 0; Arg && Step < 4; ++Step) {
    Arg = Arg->IgnoreParenImpCasts();
    if (const auto *CE = llvm::dyn_cast<clang::CXXConstructExpr>(Arg);
        CE && CE->getNumArgs() == 1 && CE->getConstructor()->isCopyOrMoveConstructor()) {
      Arg = CE->getArg(0);
      continue;
    }
    return llvm::dyn_cast<clang::DeclRefExpr>(Arg);
  }
  return nullptr;
}
const clang::VarDecl *argumentVariable(const clang::Expr *Arg) {
  const clang::DeclRefExpr *DRE = argumentReference(Arg);
  return DRE ? llvm::dyn_cast<clang::VarDecl>(DRE->getDecl()) : nullptr;
}

/// The members from a variable to \p E (`c.sync.barrier`: sync, barrier,
/// no `->`) and that variable, through implicit copies; empty for anything
/// else.
llvm::SmallVector<const clang::FieldDecl *, 2> memberPath(const clang::Expr *E,
                                                         const clang::VarDecl *&Holder) {
  const clang::Expr *At = E;
  if (const auto *CE = llvm::dyn_cast<clang::CXXConstructExpr>(At->IgnoreParenImpCasts());
      CE && CE->getNumArgs() == 1 && CE->getConstructor()->isCopyOrMoveConstructor())
    At = CE->getArg(0);
  llvm::SmallVector<const clang::FieldDecl *, 2> Path;
  Holder = fieldPathVariable(At, Path);
  if (Path.empty())
    Holder = nullptr;
  return Path;
}

/// What a walk over a body does with one statement.
enum class Mention { Descend, Skip, Fails };

/// Whether no statement of \p Body (down to where \p Judge skips) is one
/// \p Judge fails.
template <typename Fn> bool noMentionFails(const clang::Stmt *Body, Fn Judge) {
  llvm::SmallVector<const clang::Stmt *, 32> Pending{Body};
  while (!Pending.empty()) {
    const clang::Stmt *S = Pending.pop_back_val();
    Mention M = Judge(S);
    if (M == Mention::Fails)
      return false;
    if (M == Mention::Skip)
      continue;
    for (const clang::Stmt *Child : S->children())
      if (Child)
        Pending.push_back(Child);
  }
  return true;
}

/// Every mention of \p V in \p Body reaches a member of it other than
/// \p Path's (and not on the way to it), or is one of \p Allowed (each
/// naming \p Path): what \p Path names is used for nothing else.
bool onlyMemberMentionedAs(const clang::VarDecl *V, const clang::Stmt *Body,
                           llvm::ArrayRef<const clang::FieldDecl *> Path,
                           const llvm::DenseSet<const clang::Expr *> &Allowed) {
  return noMentionFails(Body, [&](const clang::Stmt *S) {
    if (const auto *DRE = llvm::dyn_cast<clang::DeclRefExpr>(S); DRE && DRE->getDecl() == V)
      return Mention::Fails; // Named whole.
    const auto *ME = llvm::dyn_cast<clang::MemberExpr>(S);
    const clang::VarDecl *Holder = nullptr;
    llvm::SmallVector<const clang::FieldDecl *, 2> Mentioned;
    if (ME)
      Mentioned = memberPath(ME, Holder);
    if (Holder != V)
      return Mention::Descend;
    if (Allowed.contains(ME))
      return Mention::Skip;
    size_t Common = 0;
    while (Common < Mentioned.size() && Common < Path.size() &&
           Mentioned[Common]->getCanonicalDecl() == Path[Common]->getCanonicalDecl())
      ++Common;
    if (Common == Mentioned.size() || Common == Path.size())
      return Mention::Fails; // On the way to the member, or the member itself.
    return Mention::Skip;    // Another member: another object.
  });
}

/// Every mention of \p V in \p Body is one of \p Allowed.
bool onlyMentionedAs(const clang::VarDecl *V, const clang::Stmt *Body,
                     const llvm::DenseSet<const clang::Expr *> &Allowed) {
  return noMentionFails(Body, [&](const clang::Stmt *S) {
    const auto *DRE = llvm::dyn_cast<clang::DeclRefExpr>(S);
    return DRE && DRE->getDecl() == V && !Allowed.contains(DRE) ? Mention::Fails
                                                                 : Mention::Descend;
  });
}
} // namespace

bool AnalysisCache::callerMayUseArgument(const clang::FunctionDecl &FD,
                                         const clang::ParmVarDecl &Param,
                                         clang::ASTContext &Ctx) {
  if (!calledInTranslationUnit(FD, Ctx))
    return false;
  return callerMayUseArgument(FD, Param.getFunctionScopeIndex(), Ctx, 0);
}

bool AnalysisCache::callerMayUseArgument(const clang::FunctionDecl &FD, unsigned Param,
                                         clang::ASTContext &Ctx, unsigned Depth) {
  findCallees(Ctx);
  const clang::FunctionDecl *Canonical = FD.getCanonicalDecl();
  if (Depth > 4 || NamedOtherwise.contains(Canonical))
    return true;
  if (const clang::FunctionDecl *Pattern = FD.getTemplateInstantiationPattern();
      Pattern && NamedOtherwise.contains(Pattern->getCanonicalDecl()))
    return true;
  auto It = CallSites.find(Canonical);
  if (It == CallSites.end())
    return false;
  // Copied: the recursion below may look up other functions' sites.
  std::vector<CallSite> Sites = It->second;
  for (const CallSite &Site : Sites) {
    if (Param >= Site.Call->getNumArgs() || !Site.Caller->hasBody())
      return true;
    const clang::VarDecl *V = argumentVariable(Site.Call->getArg(Param));
    // Or a member of one (`barrier(s.barrier)` of `void kernel(Sems s)`),
    // that the caller names for nothing else.
    llvm::SmallVector<const clang::FieldDecl *, 2> Member;
    if (!V)
      Member = memberPath(Site.Call->getArg(Param), V);
    if (!V || V->getDeclContext() != Site.Caller || V->isStaticLocal() ||
        V->getType()->isReferenceType())
      return true;
    // A local the caller made (not a copy of another semaphore), or a
    // parameter whose own callers pass it on the same way.
    const auto *P = llvm::dyn_cast<clang::ParmVarDecl>(V);
    if (!P) {
      const clang::Expr *Init = V->getInit();
      const auto *Made =
          llvm::dyn_cast_or_null<clang::CXXConstructExpr>(Init ? Init->IgnoreImplicit() : nullptr);
      const auto *List =
          llvm::dyn_cast_or_null<clang::InitListExpr>(Init ? Init->IgnoreImplicit() : nullptr);
      if (Init && !(Made && Made->getNumArgs() == 0) && !(List && List->getNumInits() == 0))
        return true;
    }
    if (!Member.empty()) {
      llvm::DenseSet<const clang::Expr *> Allowed;
      for (const CallSite &Other : Sites)
        if (Other.Caller == Site.Caller && Param < Other.Call->getNumArgs()) {
          const clang::VarDecl *Holder = nullptr;
          llvm::SmallVector<const clang::FieldDecl *, 2> Passed =
              memberPath(Other.Call->getArg(Param), Holder);
          if (Holder == V && Passed == Member)
            if (const auto *ME = llvm::dyn_cast<clang::MemberExpr>(
                    Other.Call->getArg(Param)->IgnoreParenImpCasts()))
              Allowed.insert(ME);
          if (const auto *CE = llvm::dyn_cast<clang::CXXConstructExpr>(
                  Other.Call->getArg(Param)->IgnoreParenImpCasts());
              CE && CE->getNumArgs() == 1 && Holder == V && Passed == Member)
            Allowed.insert(CE->getArg(0)->IgnoreParenImpCasts());
        }
      if (!onlyMemberMentionedAs(V, Site.Caller->getBody(), Member, Allowed))
        return true;
      if (P && callerMayUseArgument(*Site.Caller, P->getFunctionScopeIndex(), Ctx, Depth + 1))
        return true;
      continue;
    }
    llvm::DenseSet<const clang::Expr *> Allowed;
    for (const CallSite &Other : Sites)
      if (Other.Caller == Site.Caller && Param < Other.Call->getNumArgs())
        if (const clang::DeclRefExpr *Ref = argumentReference(Other.Call->getArg(Param));
            Ref && Ref->getDecl() == V)
          Allowed.insert(Ref);
    if (!onlyMentionedAs(V, Site.Caller->getBody(), Allowed))
      return true;
    if (P && callerMayUseArgument(*Site.Caller, P->getFunctionScopeIndex(), Ctx, Depth + 1))
      return true;
  }
  return false;
}

} // namespace dmalint
