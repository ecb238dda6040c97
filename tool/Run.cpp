//===- Run.cpp - Running the checks over translation units ---------------===//
#include "Run.h"
#include "Configuration.h"
#include "Identity.h"
#include "../checks/ConfigurationErrors.h"
#include "../checks/DmaCheck.h"
#include "MatchedNodes.h"
#include "clang-tidy/ClangTidy.h"
#include "clang-tidy/ClangTidyCheck.h"
#include "clang-tidy/ClangTidyModule.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/ASTMatchers/ASTMatchFinder.h"
#include "clang/Basic/Version.h"
#include "clang/Frontend/CompilerInstance.h"
#include "clang/Frontend/FrontendActions.h"
#include "clang/Lex/PreprocessorOptions.h"
#include "clang/Tooling/Tooling.h"
#include "dmalint/AnalysisCache.h"
#include "dmalint/ApiModel.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/PointerUnion.h"
#include "llvm/Support/ThreadPool.h"
#include "llvm/Support/VirtualFileSystem.h"
#include <mutex>
#if CLANG_VERSION_MAJOR < 22 // Merged into ClangTidyModule.h (and deprecated) in 22.
#include "clang-tidy/ClangTidyModuleRegistry.h"
#endif

using namespace clang;
using namespace clang::tidy;

namespace dmalint::tool {

/// The API model a file's options give, or null when they have errors (then
/// the checks report them, and nothing is skipped on the model's word).
static std::shared_ptr<const ApiIndex> apiModelFor(ClangTidyContext &Context) {
  std::map<std::string, std::string> Options;
  for (const auto &Entry : Context.getOptions().CheckOptions)
    if (Entry.getKey().starts_with(ApiOptionPrefix))
      Options[Entry.getKey().str()] = Entry.getValue().Value;
  ApiModel Model = ApiModel::builtin();
  if (!applyApiOptions(Model, Options).empty())
    return nullptr;
  return std::make_shared<const ApiIndex>(std::move(Model));
}

/// True when \p DC, or a namespace in it, defines a descriptor type.
static bool definesDescriptorType(const DeclContext &DC, const ApiIndex &Api) {
  for (const Decl *D : DC.decls()) {
    if (const auto *RD = dyn_cast<CXXRecordDecl>(D)) {
      if (RD->isThisDeclarationADefinition() && Api.isDescriptorRecord(RD))
        return true;
    } else if (const auto *Nested = dyn_cast<NamespaceDecl>(D)) {
      if (definesDescriptorType(*Nested, Api))
        return true;
    } else if (const auto *Linkage = dyn_cast<LinkageSpecDecl>(D)) {
      if (definesDescriptorType(*Linkage, Api))
        return true;
    }
  }
  return false;
}

/// Hands the matchers each node that a dma-* matcher can match
/// (MatchedNodes says which), in the order clang's matcher walk
/// reaches them (a function before its body), visiting what that walk
/// visits (template instantiations and implicit code included) but not
/// paying its cost at every node: MatchFinder::matchAST tries the registered
/// kinds, its memoization and the traversal kind at each node, and on a
/// realistic file that costs more than the whole analysis.
///
/// Which functions use the API (ApiIndex::usedBy, which the checks' matcher
/// asks) is found in the same walk, from the same per-node test: a use marks
/// the functions around it. The matchers run once the walk is done.
class MatchableNodeVisitor : public RecursiveASTVisitor<MatchableNodeVisitor> {
  using Base = RecursiveASTVisitor<MatchableNodeVisitor>;

public:
  /// Without \p Api (the options are in error), every node of these kinds.
  MatchableNodeVisitor(ASTContext &Ctx, const ApiIndex *Api, MatchedNodes &Matched)
      : Ctx(Ctx), Api(Api), Matched(Matched) {}
  bool shouldVisitTemplateInstantiations() const { return true; }
  bool shouldVisitImplicitCode() const { return true; }
  bool shouldWalkTypesOfTypeLocs() const { return false; }

  /// A written type holds nothing a dma-* matcher matches, except that a
  /// function's type holds its parameters (a lambda's too): those are
  /// walked, the rest of the type is not. Types are most of what a walk of
  /// host code visits.
  bool TraverseTypeLoc(TypeLoc TL) {
    if (!TL.getAsAdjusted<FunctionProtoTypeLoc>())
      return true;
    return Base::TraverseTypeLoc(TL);
  }
  bool TraverseNestedNameSpecifierLoc(NestedNameSpecifierLoc) { return true; }

  void matchAll(checks::MatchDispatch &Dispatch) {
    TraverseAST(Ctx);
    AnalysisCache &Cache = AnalysisCache::current();
    for (const FunctionDecl *Function : Functions) // What the checks' matcher asks.
      Cache.setUsesApi(*Function, UsingApi.contains(Function));
    for (Candidate C : Candidates) {
      if (const auto *D = dyn_cast<const Decl *>(C)) {
        const auto *Function = dyn_cast<FunctionDecl>(D);
        // The protocol checks also judge a function that only calls helpers
        // that use the API (their summaries say what they start and wait).
        if (!Api || !Function || UsingApi.contains(Function) ||
            Cache.reachesApi(*Function, Ctx, *Api))
          Dispatch.dispatch(DynTypedNode::create(*D), Ctx);
      } else {
        Dispatch.dispatch(DynTypedNode::create(*cast<const Stmt *>(C)), Ctx);
      }
    }
  }

  bool TraverseDecl(Decl *D) {
    auto *Function = dyn_cast_or_null<FunctionDecl>(D);
    if (!Function)
      return Base::TraverseDecl(D);
    EnclosingUsesApi.push_back(false);
    Functions.push_back(Function);
    bool Continue = Base::TraverseDecl(D);
    bool Uses = EnclosingUsesApi.back();
    EnclosingUsesApi.pop_back();
    if (Uses) {
      UsingApi.insert(Function);
      if (!EnclosingUsesApi.empty())
        EnclosingUsesApi.back() = true;
    }
    return Continue;
  }

  bool VisitStmt(Stmt *S) {
    noteUse(*S);
    if (Matched.candidate(*S) != MatchCandidate::No)
      Candidates.push_back(S);
    return true;
  }
  bool VisitVarDecl(VarDecl *V) {
    noteUse(*V);
    return true;
  }
  bool VisitDecl(Decl *D) {
    if (Matched.candidate(*D, Ctx) != MatchCandidate::No)
      Candidates.push_back(D); // A function only if it uses the API (above).
    return true;
  }

private:
  // A pointer each: a file of 5,000 kernels collects tens of thousands.
  using Candidate = llvm::PointerUnion<const Decl *, const Stmt *>;
  /// Marks the innermost function around \p N if \p N uses the API.
  template <typename Node> void noteUse(const Node &N) {
    if (Api && !EnclosingUsesApi.empty() && !EnclosingUsesApi.back() && Api->isApiUse(N))
      EnclosingUsesApi.back() = true;
  }

  ASTContext &Ctx;
  const ApiIndex *Api;
  MatchedNodes &Matched;
  std::vector<Candidate> Candidates;
  std::vector<bool> EnclosingUsesApi; ///< Innermost function last.
  llvm::DenseSet<const FunctionDecl *> UsingApi;
  std::vector<const FunctionDecl *> Functions; ///< Every one the walk reached.
};

/// Sits between the checks and clang-tidy's diagnostic consumer and, while
/// the AST is still there, records what each check diagnostic is about
/// (Identity.h) and in which function each of its notes is. Everything is
/// passed on unchanged.
class IdentityRecorder : public DiagnosticConsumer {
public:
  struct Record {
    FindingIdentity Identity;
    std::vector<std::string> Functions; ///< The diagnostic's, then each note's.
  };

  IdentityRecorder(ClangTidyContext &Context, DiagnosticConsumer &Next)
      : Context(Context), Next(Next) {}

  /// The translation unit being matched (null once it is gone).
  void setAST(ASTContext *Ctx, std::shared_ptr<const ApiIndex> Api) {
    this->Ctx = Ctx;
    this->Api = std::move(Api);
    Index.reset();
  }

  void BeginSourceFile(const LangOptions &LO, const Preprocessor *PP) override {
    Next.BeginSourceFile(LO, PP);
  }
  void EndSourceFile() override { Next.EndSourceFile(); }
  void finish() override { Next.finish(); }
  bool IncludeInDiagnosticCounts() const override { return Next.IncludeInDiagnosticCounts(); }

  void HandleDiagnostic(DiagnosticsEngine::Level Level, const Diagnostic &Info) override {
    DiagnosticConsumer::HandleDiagnostic(Level, Info);
    if (Ctx && Info.getLocation().isValid() && Info.hasSourceManager()) {
      SourceLocation Loc = Info.getLocation();
      if (!Index)
        Index = std::make_unique<TopLevelDecls>(*Ctx);
      if (Level == DiagnosticsEngine::Note) {
        if (Last)
          Last->Functions.push_back(enclosingFunction(*Ctx, Loc, Index.get()));
      } else {
        const SourceManager &SM = Info.getSourceManager();
        SourceLocation File = SM.getFileLoc(Loc);
        Record &R = Records[key(Context.getCheckName(Info.getID()), SM.getFilename(File),
                                SM.getFileOffset(File))];
        R = Record{identify(*Ctx, Loc, Api.get(), Index.get()),
                   {enclosingFunction(*Ctx, Loc, Index.get())}};
        Last = &R;
      }
    } else if (Level != DiagnosticsEngine::Note) {
      Last = nullptr;
    }
    Next.HandleDiagnostic(Level, Info);
  }

  /// What was recorded for \p E, if anything.
  const Record *find(const ClangTidyError &E) const {
    auto It = Records.find(key(E.DiagnosticName, E.Message.FilePath, E.Message.FileOffset));
    return It == Records.end() ? nullptr : &It->second;
  }

private:
  static std::string key(llvm::StringRef Check, llvm::StringRef File, unsigned Offset) {
    return (Check + "\0" + File + "\0" + llvm::Twine(Offset)).str();
  }

  ClangTidyContext &Context;
  DiagnosticConsumer &Next;
  ASTContext *Ctx = nullptr;
  std::shared_ptr<const ApiIndex> Api;
  std::map<std::string, Record> Records;
  Record *Last = nullptr;
  /// The translation unit's top-level declarations, read at its first
  /// diagnostic.
  std::unique_ptr<TopLevelDecls> Index;
};

/// The checks of one translation unit and the matchers they registered, as
/// clang-tidy's own consumer holds them, and told what the dma-* matchers can
/// never match. In a translation unit that never names a descriptor type
/// nothing is matched; otherwise the walk covers the top-level declarations
/// outside system headers (the kernels and their helpers), plus the ones
/// that define the descriptor types, which the API model's validation reads:
/// not the standard library's templates and their instantiations. The
/// clang-tidy plugin cannot do this: there the walk is clang-tidy's, shared
/// with every other check.
/// The checks' dispatch, and the nodes worth handing to it.
struct DispatchedNodes {
  std::shared_ptr<checks::MatchDispatch> Dispatch;
  MatchedNodes Nodes;
};

class DmaChecksConsumer : public ASTConsumer {
public:
  /// \p Matched: the checks' dispatch and the nodes it may take; none when
  /// a check did not register with it (then clang's own walk tries every
  /// node with every matcher).
  DmaChecksConsumer(std::vector<std::unique_ptr<ClangTidyCheck>> Checks,
                    std::unique_ptr<ast_matchers::MatchFinder> Finder,
                    std::shared_ptr<const ApiIndex> Api, std::optional<DispatchedNodes> Matched,
                    IdentityRecorder &Recorder)
      : Checks(std::move(Checks)), Finder(std::move(Finder)), Api(std::move(Api)),
        Matched(std::move(Matched)), Recorder(Recorder) {}
  ~DmaChecksConsumer() override { Recorder.setAST(nullptr, nullptr); }

  void HandleTranslationUnit(ASTContext &Ctx) override {
    if (Api) {
      if (!Api->declaredIn(Ctx))
        return;
      const SourceManager &SM = Ctx.getSourceManager();
      std::vector<Decl *> Scope;
      for (Decl *D : Ctx.getTranslationUnitDecl()->decls()) {
        bool System = D->getLocation().isValid() &&
                      SM.isInSystemHeader(SM.getExpansionLoc(D->getLocation()));
        const auto *DC = dyn_cast<DeclContext>(D);
        if (!System || (DC && isa<NamespaceDecl, LinkageSpecDecl>(D) &&
                        definesDescriptorType(*DC, *Api)))
          Scope.push_back(D);
      }
      Ctx.setTraversalScope(Scope);
    }
    if (!Matched) {
      Finder->matchAST(Ctx); // Tells every callback that the unit starts and ends.
      return;
    }
    // What MatchFinder::matchAST does around its walk.
    for (const std::unique_ptr<ClangTidyCheck> &Check : Checks)
      Check->onStartOfTranslationUnit();
    MatchableNodeVisitor(Ctx, Api.get(), Matched->Nodes).matchAll(*Matched->Dispatch);
    for (const std::unique_ptr<ClangTidyCheck> &Check : Checks)
      Check->onEndOfTranslationUnit();
  }

private:
  // Destroyed in reverse: the finder, then the checks it calls back.
  std::vector<std::unique_ptr<ClangTidyCheck>> Checks;
  std::unique_ptr<ast_matchers::MatchFinder> Finder;
  std::shared_ptr<const ApiIndex> Api;
  std::optional<DispatchedNodes> Matched;
  IdentityRecorder &Recorder;
};

/// What clang::tidy::runClangTidy does for one file, with the consumer above
/// in place of clang-tidy's. The checks are made here rather than by
/// ClangTidyASTConsumerFactory, which also matches the name of every static
/// analyzer checker against the Checks globs for each file (2% of a small
/// translation unit), for checks dmalint never runs.
class TidyActionFactory : public tooling::FrontendActionFactory {
public:
  TidyActionFactory(ClangTidyContext &Context, IdentityRecorder &Recorder,
                    const RunHooks &Hooks)
      : Context(Context), Recorder(Recorder), Hooks(Hooks) {
    for (const ClangTidyModuleRegistry::entry &Module : ClangTidyModuleRegistry::entries())
      Module.instantiate()->addCheckFactories(CheckFactories);
  }

  std::unique_ptr<FrontendAction> create() override {
    return std::make_unique<Action>(*this);
  }

  bool runInvocation(std::shared_ptr<CompilerInvocation> Invocation, FileManager *Files,
                     std::shared_ptr<PCHContainerOperations> PCHContainerOps,
                     DiagnosticConsumer *DiagConsumer) override {
    // As clang-tidy: code may test __clang_analyzer__.
    Invocation->getPreprocessorOpts().SetUpStaticAnalyzer = true;
    if (Hooks.PrepareInvocation)
      Hooks.PrepareInvocation(*Invocation, *Files, PCHContainerOps);
    return FrontendActionFactory::runInvocation(std::move(Invocation), Files,
                                                std::move(PCHContainerOps), DiagConsumer);
  }

private:
  std::unique_ptr<ASTConsumer> createConsumer(CompilerInstance &Compiler, StringRef File) {
    // As ClangTidyASTConsumerFactory::createASTConsumer: the context first
    // (the file's options hold the checks' options and the API model).
    checks::FileConfiguration::startTranslationUnit();
    Context.setSourceManager(&Compiler.getSourceManager());
    Context.setCurrentFile(File);
    Context.setASTContext(&Compiler.getASTContext());
    if (auto WorkingDir = Compiler.getSourceManager()
                              .getFileManager()
                              .getVirtualFileSystem()
                              .getCurrentWorkingDirectory())
      Context.setCurrentBuildDirectory(*WorkingDir);
    std::vector<std::unique_ptr<ClangTidyCheck>> Checks =
        CheckFactories.createChecksForLanguage(&Context);
    auto Finder = std::make_unique<ast_matchers::MatchFinder>();
    Preprocessor *PP = &Compiler.getPreprocessor();
    for (std::unique_ptr<ClangTidyCheck> &Check : Checks) {
      Check->registerMatchers(Finder.get());
      Check->registerPPCallbacks(Compiler.getSourceManager(), PP, PP);
    }
    std::shared_ptr<const ApiIndex> Api = apiModelFor(Context);
    // Without the AST the recorder passes the diagnostics on and records
    // nothing: a run that writes no SARIF log and reads or writes no
    // baseline needs no identity (a walk of about 0.2M instructions per
    // finding).
    if (Hooks.Identities)
      Recorder.setAST(&Compiler.getASTContext(), Api);
    unsigned Registering = 0;
    std::shared_ptr<checks::MatchDispatch> Dispatch =
        checks::takeMatchDispatch(*Finder, Registering);
    std::optional<DispatchedNodes> Matched;
    if (Dispatch && Registering == Checks.size())
      Matched.emplace(DispatchedNodes{Dispatch, MatchedNodes(Dispatch->kinds(), Api.get())});
    return std::make_unique<DmaChecksConsumer>(std::move(Checks), std::move(Finder), Api,
                                               std::move(Matched), Recorder);
  }

  class Action : public ASTFrontendAction {
  public:
    explicit Action(TidyActionFactory &Factory) : Factory(Factory) {}
    std::unique_ptr<ASTConsumer> CreateASTConsumer(CompilerInstance &Compiler,
                                                   StringRef File) override {
      return Factory.createConsumer(Compiler, File);
    }

  private:
    TidyActionFactory &Factory;
  };

  ClangTidyContext &Context;
  IdentityRecorder &Recorder;
  const RunHooks &Hooks;
  ClangTidyCheckFactories CheckFactories;
};

/// One translation unit, with its own context and file system so that runs
/// can share nothing: ClangTool changes the working directory per compile
/// command, and a physical file system of its own keeps that to this run.
TranslationUnitResult runChecksOnFile(const tooling::CompilationDatabase &Compilations,
                                      const std::string &File,
                                      const ClangTidyOptions &Overrides, const RunHooks &Hooks) {
  llvm::IntrusiveRefCntPtr<llvm::vfs::FileSystem> FS(
      llvm::vfs::createPhysicalFileSystem().release());
  llvm::IntrusiveRefCntPtr<llvm::vfs::OverlayFileSystem> BaseFS(
      new llvm::vfs::OverlayFileSystem(FS));
  if (Hooks.Overlay)
    BaseFS->pushOverlay(Hooks.Overlay);
  ClangTidyContext Context(optionsProvider(Overrides, FS));
  tooling::ClangTool Tool(Compilations, {File}, std::make_shared<PCHContainerOperations>(),
                          BaseFS);
  // The ExtraArgs and ExtraArgsBefore of .clang-tidy, as clang-tidy adds them.
  Tool.appendArgumentsAdjuster([&Context](const tooling::CommandLineArguments &Args,
                                          StringRef Filename) {
    ClangTidyOptions Options = Context.getOptionsForFile(Filename);
    tooling::CommandLineArguments Adjusted = Args;
    if (Options.ExtraArgsBefore) {
      auto At = Adjusted.begin();
      if (At != Adjusted.end() && !StringRef(*At).starts_with("-"))
        ++At; // After the compiler's name.
      Adjusted.insert(At, Options.ExtraArgsBefore->begin(), Options.ExtraArgsBefore->end());
    }
    if (Options.ExtraArgs)
      Adjusted.insert(Adjusted.end(), Options.ExtraArgs->begin(), Options.ExtraArgs->end());
    return Adjusted;
  });
  Tool.appendArgumentsAdjuster(tooling::getStripPluginsAdjuster());

  ClangTidyDiagnosticConsumer DiagConsumer(Context, /*ExternalDiagEngine=*/nullptr,
                                           /*RemoveIncompatibleErrors=*/true,
                                           /*GetFixesFromNotes=*/false);
  IdentityRecorder Recorder(Context, DiagConsumer);
  ContextDiagnostics Diagnostics(Context, Recorder);
  Tool.setDiagnosticConsumer(&DiagConsumer);
  TidyActionFactory Factory(Context, Recorder, Hooks);
  Tool.run(&Factory);
  TranslationUnitResult Result;
  Result.File = File;
  Result.Errors = DiagConsumer.take();
  for (const ClangTidyError &E : Result.Errors) {
    const IdentityRecorder::Record *R = Recorder.find(E);
    Result.Identities.push_back(R ? R->Identity : FindingIdentity());
    Result.EnclosingFunctions.push_back(R ? R->Functions : std::vector<std::string>());
  }
  return Result;
}

void runInParallel(size_t Count, unsigned Jobs, const std::function<void(size_t)> &Work) {
  if (Jobs == 1 || Count == 1) {
    for (size_t I = 0; I < Count; ++I)
      Work(I);
    return;
  }
  llvm::DefaultThreadPool Pool(llvm::hardware_concurrency(Jobs));
  for (size_t I = 0; I < Count; ++I)
    Pool.async([&Work, I] { Work(I); });
  Pool.wait();
}

std::vector<TranslationUnitResult>
runChecks(const tooling::CompilationDatabase &Compilations,
          const std::vector<std::string> &Files, const ClangTidyOptions &Overrides,
          unsigned Jobs, const std::function<void(size_t Done)> &Progress,
          bool Identities) {
  RunHooks Hooks;
  Hooks.Identities = Identities;
  std::vector<TranslationUnitResult> PerFile(Files.size());
  std::mutex ProgressMutex;
  size_t Done = 0;
  runInParallel(Files.size(), Jobs, [&](size_t I) {
    PerFile[I] = runChecksOnFile(Compilations, Files[I], Overrides, Hooks);
    std::lock_guard<std::mutex> Lock(ProgressMutex);
    if (Progress)
      Progress(++Done);
  });
  return PerFile;
}

} // namespace dmalint::tool
