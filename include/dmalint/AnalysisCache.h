//===- AnalysisCache.h - One descriptor analysis per function, shared -*- C++ -*-===//
//
// Checks are separate clang-tidy checks so users can enable each, but the
// analysis runs once per function whatever the number of checks: the first
// check that asks computes it, the others read it. The cache is also where
// an analysis finds the summaries of the functions it calls and of the
// classes whose members it reads (SummarySource), computed on demand.
//
//===----------------------------------------------------------------------===//
#ifndef DMALINT_ANALYSISCACHE_H
#define DMALINT_ANALYSISCACHE_H

#include "dmalint/CfgCache.h"
#include "dmalint/DescriptorAnalysis.h"
#include "dmalint/InPlaceLambdas.h"
#include "dmalint/Semaphores.h"
#include "dmalint/TypeModel.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include <map>
#include <memory>
#include <set>
#include <string>
#include <tuple>
#include <vector>

namespace dmalint {

class AnalysisCache : public SummarySource {
public:
  /// The cache of the translation unit being processed on this thread.
  static AnalysisCache &current();

  /// Forgets everything: a new translation unit starts. Every check calls it
  /// from onStartOfTranslationUnit, before any matching.
  void reset();

  const FunctionAnalysis &analysis(const clang::FunctionDecl &FD, clang::ASTContext &Ctx,
                                   const ApiIndex &Api, const AnalysisLimits &Limits);

  /// The copies that \p A (the analysis of one function) starts or waits,
  /// itself or through a helper, at their constructions as written
  /// (ApiIndex::isCopy): a copy that a function of the translation unit
  /// returns is followed into that function, to where it is built.
  std::vector<const clang::Expr *> usedCopies(const FunctionAnalysis &A, clang::ASTContext &Ctx,
                                              const ApiIndex &Api,
                                              const AnalysisLimits &Limits);

  /// ApiIndex::usedBy, computed once per function however many checks ask.
  bool usesApi(const clang::FunctionDecl &FD, const ApiIndex &Api);
  /// Records whether \p FD uses the API, found by a walk that applied
  /// ApiIndex::isApiUse to the same nodes usedBy would visit.
  void setUsesApi(const clang::FunctionDecl &FD, bool Uses = true) { UsesApi[&FD] = Uses; }
  /// True when code of the translation unit (outside system headers) calls
  /// \p FD or takes its address: then \p FD is not the whole kernel, and a
  /// caller may do with what it passes what \p FD does not. One walk of the
  /// translation unit, the first time it is asked.
  bool calledInTranslationUnit(const clang::FunctionDecl &FD, clang::ASTContext &Ctx);
  /// Whether code of the translation unit may signal, wait or otherwise use
  /// what its calls of \p FD pass as \p Param, besides \p FD itself. False
  /// when nothing calls \p FD, or when each call passes a variable that its
  /// function mentions only as that argument of calls of \p FD: a local it
  /// made, or a parameter of its own for which the same holds
  /// (`void kernel(Semaphore b) { local_barrier(b); }`). True when \p FD is
  /// named other than by a direct call (its address, a call in a template
  /// not yet instantiated counts as none).
  bool callerMayUseArgument(const clang::FunctionDecl &FD, const clang::ParmVarDecl &Param,
                            clang::ASTContext &Ctx);
  /// A direct call of a function, and the function it is written in.
  struct CallSite {
    const clang::CallExpr *Call;
    const clang::FunctionDecl *Caller;
  };
  /// dmalint::inPlaceRun (InPlaceLambdas.h), walked once per function and
  /// parameter.
  const std::optional<InPlaceRun> &inPlaceRun(const clang::FunctionDecl &FD, unsigned Param);
  /// True the first time \p Check reports at \p Loc.
  bool firstReport(llvm::StringRef Check, clang::SourceLocation Loc);
  /// The shapes of the translation unit's types under \p Api.
  TypeModel &types(const ApiIndex &Api);
  /// The CFG of \p FD's body, the one its analysis ran on (built once);
  /// null when clang cannot build one.
  const clang::CFG *cfg(const clang::FunctionDecl &FD, const clang::ASTContext &Ctx);
  /// The variables of \p FD that keep their values (UnwrittenVariables):
  /// one walk of its body however many of the protocol questions ask.
  const UnwrittenVariables &variables(const clang::FunctionDecl &FD, const ApiIndex &Api);
  /// True when a member function of \p F's class other than its
  /// constructors may write \p F, or the class has member functions whose
  /// bodies are elsewhere (ObjectCopies.cpp): one walk of the class's member
  /// functions however many names ask.
  bool writtenOutsideConstructors(const clang::FieldDecl &F);
  /// True when code of the translation unit may write the bool member \p F
  /// other than by an assignment to it (a reference or pointer bound to it,
  /// an argument of a reference parameter): what a flag the analysis keeps
  /// for it cannot follow (Flags.cpp). One walk of the translation unit,
  /// on the first question.
  bool flagWrittenUnseen(const clang::FieldDecl &F, clang::ASTContext &Ctx);
  /// The bool members of \p RD that hold is_remote() of a descriptor
  /// member of the same object, whatever member function runs: every
  /// constructor initialises the flag with it (`remote_(copy_.is_remote())`,
  /// the copy declared first) and leaves both alone after, and no other
  /// member function, nor code outside, writes either (ObjectCopies.cpp).
  /// Pairs of flag and copy member.
  const llvm::SmallVector<std::pair<const clang::FieldDecl *, const clang::FieldDecl *>, 1> &
  remotenessMembers(const clang::CXXRecordDecl &RD, const ApiIndex &Api, clang::ASTContext &Ctx);
  /// True when calling \p MD on an object can do nothing with the copies,
  /// semaphores and buffers it holds: its body is here, it is not virtual,
  /// it uses the API nowhere (nor do the functions it calls), and it names
  /// the object only to read buffer and arithmetic members (it writes none)
  /// or to call member functions that are the same (an accessor such as
  /// `int rows() const`, or an empty `compute()`). Such a function needs no
  /// summary (ObjectCopies.cpp).
  bool leavesObjectAlone(const clang::CXXMethodDecl &MD, const clang::ASTContext &Ctx,
                         const ApiIndex &Api);
  /// True when no code can read what the member at \p Path below an object
  /// of \p RD holds: a private member (or a member of it) that nothing
  /// names but initialisers, in a class whose member functions are all
  /// here and that has no friends (ObjectCopies.cpp).
  bool unreadMember(const clang::CXXRecordDecl &RD, const AccessPath &Path);
  /// The members of a class that code names: whole, or only to name these
  /// members of them.
  struct MemberReads {
    llvm::DenseSet<const clang::FieldDecl *> Whole;
    llvm::DenseSet<std::pair<const clang::FieldDecl *, const clang::FieldDecl *>> Inner;
  };
  /// The expression a summary's formula stands for at a call that passes
  /// \p Arg for its parameter (SummaryTerm::Formula): made once per pair,
  /// in the translation unit's ASTContext.
  const clang::Expr *&substitution(const clang::Expr *Formula, const clang::Expr *Arg) {
    return Substitutions[{Formula, Arg}];
  }
  /// The protocol summary of \p FD an analysis of this translation unit
  /// already made (at a call of it), without making one: null if none did.
  const ProtocolSummary *protocolIfMade(const clang::FunctionDecl &FD) const;

  // SummarySource, for the analysis in progress.
  const FunctionSummary *function(const clang::FunctionDecl &FD) override;
  const ClassSummary *members(const clang::CXXRecordDecl &RD) override;
  const ProtocolSummary *protocol(const clang::FunctionDecl &FD) override;
  const ProtocolSummary *constructorProtocol(const clang::FunctionDecl &Ctor) override;

  /// True when \p FD, or a function of the translation unit it calls
  /// (transitively), uses the API: a helper worth a protocol summary. The
  /// same whatever the order of the questions and of the calls, recursion
  /// included.
  bool reachesApi(const clang::FunctionDecl &FD, const clang::ASTContext &Ctx,
                  const ApiIndex &Api);
  /// True when destroying an object of \p RD runs code of the program that
  /// reaches the API: its own destructor, or a member's or a base's (a guard
  /// that waits what it holds when it goes out of scope). The analysis runs
  /// no destructor, so that code may start or wait what the object holds,
  /// or drain any semaphore. Made once per class.
  bool destructionReachesApi(const clang::CXXRecordDecl *RD, const clang::ASTContext &Ctx,
                             const ApiIndex &Api);

private:
  const ProtocolSummary *protocolSummary(const clang::FunctionDecl &FD, bool OnlyReachingApi);
  /// Forgets the results in Provisional (but \p Keep's and those still in progress).
  void dropProvisional(const clang::FunctionDecl *Keep);
  void retire(std::map<std::tuple<const clang::FunctionDecl *, unsigned, bool>,
                       FunctionAnalysis> &From,
              std::tuple<const clang::FunctionDecl *, unsigned, bool> K);

  /// What the analysis in progress runs with (one translation unit, one
  /// set of limits per outermost call).
  clang::ASTContext *Ctx = nullptr;
  const ApiIndex *Api = nullptr;
  llvm::DenseMap<std::pair<const clang::Expr *, const clang::Expr *>, const clang::Expr *>
      Substitutions;
  const AnalysisLimits *Limits = nullptr;

  std::vector<const clang::FunctionDecl *> InProgress; ///< The analysis stack.
  /// The protocol summaries being made: a member function that calls itself
  /// on `*this` (or a cycle of them) asks for its own summary while making it.
  std::vector<const clang::FunctionDecl *> Summarising;
  std::set<const clang::FunctionDecl *> Recursive;
  /// Analysed while a function they (indirectly) call was still in progress:
  /// their summaries are stale once that function's summary settles.
  std::set<const clang::FunctionDecl *> Provisional;

  // Keyed by the limits too: two checks configured differently each get the
  // answer their own limits give.
  using Key = std::tuple<const clang::FunctionDecl *, unsigned, bool>;
  static Key keyOf(const clang::FunctionDecl *FD, const AnalysisLimits &Limits) {
    return {FD, Limits.MaxBlockVisits, Limits.UseSummaries};
  }
  std::map<Key, FunctionAnalysis> Results;
  /// Analyses made while a class summary is being computed: they read a
  /// summary that is not final, so they are dropped once it is.
  std::map<Key, FunctionAnalysis> Scratch;
  /// Results dropped while an analysis is running: a caller further up may
  /// still hold its callee's summary (Analyzer::call reads it across the
  /// evaluation of the arguments, which can analyse other functions). Freed
  /// when the outermost analysis returns.
  std::vector<std::map<Key, FunctionAnalysis>::node_type> Retired;

  using ClassKey = std::tuple<const clang::CXXRecordDecl *, unsigned, bool>;
  std::map<ClassKey, ClassSummary> Classes;
  std::map<ClassKey, ClassSummary> ClassesInProgress;

  std::map<const ApiIndex *, std::unique_ptr<TypeModel>> TypeModels;
  /// The CFGs of the bodies analysed, for every analysis of the translation unit.
  CfgCache Cfgs;
  llvm::DenseMap<std::pair<const clang::FunctionDecl *, const ApiIndex *>,
                 std::unique_ptr<UnwrittenVariables>>
      Variables;
  llvm::DenseMap<const clang::FunctionDecl *, bool> UsesApi;
  std::map<std::pair<const clang::FunctionDecl *, unsigned>, std::optional<InPlaceRun>>
      InPlaceParameters; ///< A map: its values stay where they are.
  /// By class: the members written outside its constructors; nullopt: any.
  llvm::DenseMap<const clang::CXXRecordDecl *,
                 std::optional<llvm::DenseSet<const clang::FieldDecl *>>>
      FieldsWritten;
  llvm::DenseMap<const clang::CXXRecordDecl *,
                 llvm::SmallVector<std::pair<const clang::FieldDecl *, const clang::FieldDecl *>,
                                   1>>
      RemotenessMembers;
  /// flagWrittenUnseen's walk: the members it found.
  std::optional<llvm::DenseSet<const clang::FieldDecl *>> FlagsWrittenUnseen;
  /// leavesObjectAlone's answers; false while one is being made (a cycle).
  llvm::DenseMap<const clang::CXXMethodDecl *, bool> ObjectLeftAlone;
  /// By class: the members something names; nullopt: any may be read.
  llvm::DenseMap<const clang::CXXRecordDecl *, std::optional<MemberReads>> MembersRead;
  /// Final answers of reachesApi.
  llvm::DenseMap<const clang::FunctionDecl *, bool> ReachesApi;
  /// destructionReachesApi's answers, by class.
  llvm::DenseMap<const clang::CXXRecordDecl *, bool> DestructionReachesApi;
  bool destructionReachesApi(const clang::CXXRecordDecl *RD, const clang::ASTContext &Ctx,
                             const ApiIndex &Api, unsigned Depth);
  /// reachesApi's search: the functions it is in (with their depth), and
  /// the "no"s that lean on one of them, not final until it is answered.
  llvm::DenseMap<const clang::FunctionDecl *, unsigned> ReachSearching;
  std::vector<const clang::FunctionDecl *> ReachOpen;
  bool searchReach(const clang::FunctionDecl &FD, const clang::ASTContext &C,
                   const ApiIndex &For, unsigned &Low);
  std::set<std::pair<std::string, unsigned>> Reported;
  std::unique_ptr<llvm::DenseSet<const clang::FunctionDecl *>> Callees;
  /// The direct calls of each function (by canonical declaration) and the
  /// function each is written in; and the functions named otherwise too.
  llvm::DenseMap<const clang::FunctionDecl *, std::vector<CallSite>> CallSites;
  llvm::DenseSet<const clang::FunctionDecl *> NamedOtherwise;
  void findCallees(clang::ASTContext &Ctx);
  bool callerMayUseArgument(const clang::FunctionDecl &FD, unsigned Param,
                            clang::ASTContext &Ctx, unsigned Depth);
};

} // namespace dmalint

#endif
