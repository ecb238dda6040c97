//===- FuzzSnippet.cpp - libFuzzer target: kernels through the analysis ---===//
//
// Each input decodes (SnippetGrammar.h) to a kernel translation unit that is
// parsed in memory and analysed function by function: through an
// AnalysisCache with summaries, alone without summaries (twice: the results
// must agree), and with the small limits the input chooses. About one input
// in four also goes through the five dma-* checks on clang-tidy's library in
// the same parse; then the fix-its of code that compiled must give code that
// still compiles. No input may crash, hang or trip ASan or UBSan.
//
//   fuzz-snippet [libFuzzer flags] CORPUS...
//   fuzz-snippet --print INPUT...        the code (and settings) an input decodes to
//   fuzz-snippet --emit-seeds=DIR[,N]    write up to N seeds covering the grammar
//   fuzz-snippet --stats INPUT...        how many inputs compile cleanly
//   fuzz-snippet --analyse FILE.cc...    a C++ file (a reproducer) through the analysis
//   fuzz-snippet --check FILE.cc...      the same, and through the checks
//
// The #includes every snippet starts with are precompiled once (into the
// temporary directory, named after their text and flags) and loaded with
// -include-pch: parsing them was most of an input's time.
//
// Environment: DMALINT_FUZZ_BROKEN=1 also analyses translation units with
// compiler errors (the checks never do: DataflowCheck skips them);
// DMALINT_FUZZ_NO_PCH=1 parses the headers every time; DMALINT_FUZZ_SHOW_CODE=1
// prints the code of a failing input; DMALINT_FUZZ_TIME=1 and
// DMALINT_FUZZ_VERBOSE=1 print timings, functions, findings and fixed code.
//
//===----------------------------------------------------------------------===//
#include "SnippetGrammar.h"
#include "dmalint/AnalysisCache.h"
#include "dmalint/ApiModel.h"
#include "dmalint/DescriptorAnalysis.h"
#include "clang-tidy/ClangTidy.h"
#include "clang-tidy/ClangTidyDiagnosticConsumer.h"
#include "clang-tidy/ClangTidyModule.h"
#include "clang-tidy/ClangTidyOptions.h"
#include "clang/AST/ASTConsumer.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Basic/Diagnostic.h"
#include "clang/Frontend/ASTUnit.h"
#include "clang/Frontend/CompilerInstance.h"
#include "clang/Frontend/FrontendAction.h"
#include "clang/Frontend/FrontendActions.h"
#include "clang/Frontend/MultiplexConsumer.h"
#include "clang/Tooling/Core/Replacement.h"
#include "clang/Tooling/Tooling.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/VirtualFileSystem.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Support/xxhash.h"
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <random>
#include <unistd.h>

using namespace clang;
using namespace dmalint;
using namespace dmalint::fuzz;

// The checks' module registers itself from its own object file; this keeps the
// linker from dropping it.
extern volatile int DmaTidyModuleAnchorSource;
static int DmaTidyModuleAnchorDestination = DmaTidyModuleAnchorSource;

namespace {

const char *FileName = "/dmalint-fuzz/kernel.cc";

/// The headers every snippet includes, precompiled once per process (parsing
/// them is most of the cost of an input); empty when not in use.
std::string PchPath;

std::vector<std::string> baseArgs() {
  return {"-std=c++17", "-I" DMALINT_SOURCE_INCLUDE_DIR,
          "-resource-dir=" DMALINT_CLANG_RESOURCE_DIR, "-Wno-everything",
          "-fno-caret-diagnostics"};
}

std::vector<std::string> compilerArgs() {
  std::vector<std::string> Args = baseArgs();
  if (!PchPath.empty()) {
    Args.push_back("-include-pch");
    Args.push_back(PchPath);
  }
  return Args;
}

[[noreturn]] void fail(const std::string &What, const std::string &Code) {
  llvm::errs() << "fuzz-snippet: " << What << "\n";
  if (getenv("DMALINT_FUZZ_SHOW_CODE"))
    llvm::errs() << "---- code ----\n" << Code << "---- end ----\n";
  else
    llvm::errs() << "(run with --print INPUT, or DMALINT_FUZZ_SHOW_CODE=1, for the code)\n";
  abort();
}

std::unique_ptr<ApiIndex> indexFor(unsigned Variant) {
  ApiModel Model = ApiModel::builtin();
  std::vector<ApiOptionError> Errors = applyApiOptions(Model, modelVariants()[Variant]);
  if (!Errors.empty()) {
    llvm::errs() << "fuzz-snippet: model variant " << Variant << " does not apply: "
                 << Errors.front().Key << ": " << Errors.front().Message << "\n";
    abort();
  }
  return std::make_unique<ApiIndex>(std::move(Model));
}

const ApiIndex &apiFor(unsigned Variant) {
  static std::vector<std::unique_ptr<ApiIndex>> Indexes;
  if (Indexes.empty())
    for (unsigned I = 0; I < modelVariants().size(); ++I)
      Indexes.push_back(indexFor(I));
  return *Indexes[Variant];
}

/// What the header promises of every analysis.
void checkInvariants(const FunctionAnalysis &A, const FunctionDecl &FD, const char *Run,
                     const std::string &Code) {
  auto Where = [&] { return std::string(Run) + " analysis of '" + FD.getNameAsString() + "'"; };
  if (A.HitWorkLimit) {
    if (!A.WaitSends.empty() || !A.Starts.empty() || !A.HelperWaitSends.empty())
      fail(Where() + ": events reported although the work limit was hit", Code);
    return;
  }
  auto CheckValues = [&](const ValueSet &VS, const char *What) {
    for (const Value &V : VS.values())
      if (V.Origin >= A.Origins.size())
        fail(Where() + ": a " + What + " names origin " + std::to_string(V.Origin) + " of " +
                 std::to_string(A.Origins.size()),
             Code);
  };
  for (const DescriptorUse &U : A.WaitSends) {
    if (!U.Call)
      fail(Where() + ": a wait_send use without a call", Code);
    CheckValues(U.Values, "wait_send use");
  }
  for (const DescriptorUse &U : A.Starts) {
    if (!U.Call)
      fail(Where() + ": a start use without a call", Code);
    CheckValues(U.Values, "start use");
  }
  for (const HelperWaitSend &H : A.HelperWaitSends)
    CheckValues(H.Values, "helper wait_send");
  if (!A.UsedOrEscaped.empty() && A.UsedOrEscaped.size() != A.Origins.size())
    fail(Where() + ": UsedOrEscaped does not cover every origin", Code);
  auto CheckParameter = [&](const ParameterSummary &P) {
    for (const PathRequirement &R : P.RequiresRemote)
      if (!R.Requirement.WaitSend)
        fail(Where() + ": a parameter requires a remote copy but names no wait_send", Code);
  };
  for (const ParameterSummary &P : A.Summary.Params)
    CheckParameter(P);
  CheckParameter(A.Summary.Object);
  if (A.ReceiveWaitMayFollow.size() != A.WaitSends.size() ||
      A.ReceiveWaitMayBeMissing.size() != A.WaitSends.size())
    fail(Where() + ": the receive waits after wait_sends do not cover every wait_send", Code);
  for (const DescriptorUse &U : A.ReceiveWaits)
    CheckValues(U.Values, "receive wait use");
}

bool sameEvents(const FunctionAnalysis &A, const FunctionAnalysis &B) {
  auto SameUses = [](const std::vector<DescriptorUse> &X, const std::vector<DescriptorUse> &Y) {
    if (X.size() != Y.size())
      return false;
    for (size_t I = 0; I < X.size(); ++I)
      if (X[I].Call != Y[I].Call || !(X[I].Values.values() == Y[I].Values.values()))
        return false;
    return true;
  };
  return A.HitWorkLimit == B.HitWorkLimit && A.Origins.size() == B.Origins.size() &&
         A.Summary == B.Summary && SameUses(A.WaitSends, B.WaitSends) &&
         SameUses(A.Starts, B.Starts) && A.Constructions.size() == B.Constructions.size() &&
         A.UsedOrEscaped == B.UsedOrEscaped && A.BlockVisits == B.BlockVisits;
}

/// The function definitions of the main file, template instantiations and
/// lambda bodies included. Not implicit code: with it, a visitor walks both
/// forms of every braced list, twice the work per level of nesting.
class FunctionCollector : public RecursiveASTVisitor<FunctionCollector> {
public:
  bool shouldVisitTemplateInstantiations() const { return true; }
  bool VisitFunctionDecl(FunctionDecl *FD) {
    if (FD->isThisDeclarationADefinition() && !FD->isDependentContext())
      Functions.push_back(FD);
    return true;
  }
  bool VisitLambdaExpr(LambdaExpr *LE) {
    if (FunctionTemplateDecl *Generic = LE->getDependentCallOperator()) {
      for (FunctionDecl *Instance : Generic->specializations())
        VisitFunctionDecl(Instance);
    } else if (CXXMethodDecl *Call = LE->getCallOperator()) {
      VisitFunctionDecl(Call);
    }
    return true;
  }
  std::vector<const FunctionDecl *> Functions;
};

/// Every function definition of the translation unit (but template patterns)
/// through the analysis.
void analyseAll(ASTContext &Ctx, const SnippetConfig &Config, const std::string &Code) {
  static const bool Broken = getenv("DMALINT_FUZZ_BROKEN") != nullptr;
  if (Ctx.getDiagnostics().hasUncompilableErrorOccurred() && !Broken)
    return;
  const ApiIndex &Api = apiFor(Config.ModelVariant);
  // Only the main file's declarations: walking the standard headers costs
  // more than analysing the kernel.
  FunctionCollector Collector;
  const SourceManager &SM = Ctx.getSourceManager();
  for (Decl *D : Ctx.getTranslationUnitDecl()->decls())
    if (SM.isInMainFile(SM.getExpansionLoc(D->getLocation())))
      Collector.TraverseDecl(D);
  std::vector<const FunctionDecl *> &Functions = Collector.Functions;
  static const bool Time = getenv("DMALINT_FUZZ_TIME") != nullptr;
  auto Started = std::chrono::steady_clock::now();
  auto Lap = [&](const char *What) {
    if (!Time)
      return;
    auto Now = std::chrono::steady_clock::now();
    llvm::errs() << "  " << What << " " << std::chrono::duration<double>(Now - Started).count()
                 << " s\n";
    Started = Now;
  };
  if (Time)
    for (const FunctionDecl *FD : Functions)
      llvm::errs() << "  function " << FD->getQualifiedNameAsString() << "\n";

  AnalysisLimits Default;
  AnalysisLimits NoSummaries;
  NoSummaries.UseSummaries = false;
  AnalysisLimits Small;
  Small.MaxBlockVisits = Config.SmallWorkLimit;
  Small.MaxValuesPerLocation = Config.SmallMaxValues;
  Small.MaxLambdaDepth = Config.SmallLambdaDepth;
  AnalysisCache WithSummaries, SmallCache;
  for (const FunctionDecl *FD : Functions)
    checkInvariants(WithSummaries.analysis(*FD, Ctx, Api, Default), *FD, "summarised", Code);
  Lap("summarised");
  for (const FunctionDecl *FD : Functions) {
    FunctionAnalysis Alone = analyzeFunction(*FD, Ctx, Api, NoSummaries);
    checkInvariants(Alone, *FD, "summary-free", Code);
    if (!sameEvents(Alone, analyzeFunction(*FD, Ctx, Api, NoSummaries)))
      fail("two summary-free analyses of '" + FD->getNameAsString() + "' differ", Code);
  }
  Lap("summary-free (twice)");
  for (const FunctionDecl *FD : Functions) {
    checkInvariants(SmallCache.analysis(*FD, Ctx, Api, Small), *FD, "small-limit", Code);
    for (const ParmVarDecl *P : FD->parameters())
      (void)isDescriptorContainer(P->getType(), Api);
  }
  Lap("small-limit");
}

class AnalysisConsumer : public ASTConsumer {
public:
  AnalysisConsumer(const SnippetConfig &Config, const std::string &Code)
      : Config(Config), Code(Code) {}
  void HandleTranslationUnit(ASTContext &Ctx) override { analyseAll(Ctx, Config, Code); }

private:
  const SnippetConfig &Config;
  const std::string &Code;
};

/// Parses \p Code in memory; the analysis runs on the ASTUnit.
std::unique_ptr<ASTUnit> parse(const std::string &Code) {
  IgnoringDiagConsumer Ignore;
  return tooling::buildASTFromCodeWithArgs(
      Code, compilerArgs(), FileName, "clang-tool", std::make_shared<PCHContainerOperations>(),
      tooling::getClangStripDependencyFileAdjuster(), tooling::FileContentMappings(), &Ignore);
}

bool compilesCleanly(const std::string &Code) {
  std::unique_ptr<ASTUnit> AST = parse(Code);
  return AST && !AST->getDiagnostics().hasErrorOccurred();
}

/// The dma-* checks on clang-tidy's library, with the analysis in the same
/// parse. Returns the findings (compiler errors among them).
std::vector<tidy::ClangTidyError> runChecks(const Snippet &S, bool &HadErrors) {
  tidy::ClangTidyOptions Options = tidy::ClangTidyOptions::getDefaults();
  Options.Checks = "-*,dma-*";
  Options.HeaderFilterRegex = "";
  Options.SystemHeaders = false;
  for (auto &[Key, Value] : modelVariants()[S.Config.ModelVariant])
    Options.CheckOptions[Key] = tidy::ClangTidyOptions::ClangTidyValue(Value);
  // Every check's own options too, so their parsing runs.
  Options.CheckOptions["dma-wait-send-on-local-copy.ReportSkippedFunctions"] =
      tidy::ClangTidyOptions::ClangTidyValue("true");
  Options.CheckOptions["dma-start-priority.WorkLimit"] =
      tidy::ClangTidyOptions::ClangTidyValue(std::to_string(S.Config.SmallWorkLimit));
  tidy::ClangTidyContext Context(std::make_unique<tidy::DefaultOptionsProvider>(
      tidy::ClangTidyGlobalOptions(), Options));
  tidy::ClangTidyDiagnosticConsumer DiagConsumer(Context, nullptr,
                                                 /*RemoveIncompatibleErrors=*/true,
                                                 /*GetFixesFromNotes=*/false);
  DiagnosticsEngine DE(new DiagnosticIDs(), new DiagnosticOptions(), &DiagConsumer,
                       /*ShouldOwnClient=*/false);
  Context.setDiagnosticsEngine(&DE);

  class Action : public ASTFrontendAction {
  public:
    Action(tidy::ClangTidyASTConsumerFactory &Factory, const Snippet &S)
        : Factory(Factory), S(S) {}
    std::unique_ptr<ASTConsumer> CreateASTConsumer(CompilerInstance &CI,
                                                   StringRef File) override {
      std::vector<std::unique_ptr<ASTConsumer>> Consumers;
      Consumers.push_back(Factory.createASTConsumer(CI, File));
      Consumers.push_back(std::make_unique<AnalysisConsumer>(S.Config, S.Code));
      return std::make_unique<MultiplexConsumer>(std::move(Consumers));
    }

  private:
    tidy::ClangTidyASTConsumerFactory &Factory;
    const Snippet &S;
  };

  llvm::IntrusiveRefCntPtr<llvm::vfs::OverlayFileSystem> FS(
      new llvm::vfs::OverlayFileSystem(llvm::vfs::getRealFileSystem()));
  llvm::IntrusiveRefCntPtr<llvm::vfs::InMemoryFileSystem> Memory(
      new llvm::vfs::InMemoryFileSystem);
  FS->pushOverlay(Memory);
  Memory->addFile(FileName, 0, llvm::MemoryBuffer::getMemBufferCopy(S.Code));
  tidy::ClangTidyASTConsumerFactory Factory(Context, FS);
  llvm::IntrusiveRefCntPtr<FileManager> Files(new FileManager(FileSystemOptions(), FS));
  std::vector<std::string> Args = {"clang-tool", "-fsyntax-only"};
  for (const std::string &A : compilerArgs())
    Args.push_back(A);
  Args.push_back(FileName);
  tooling::ToolInvocation Invocation(Args, std::make_unique<Action>(Factory, S), Files.get());
  Invocation.setDiagnosticConsumer(&DiagConsumer);
  Invocation.run();
  std::vector<tidy::ClangTidyError> Errors = DiagConsumer.take();
  HadErrors = false;
  for (const tidy::ClangTidyError &E : Errors)
    if (E.DiagLevel == tidy::ClangTidyError::Error)
      HadErrors = true;
  return Errors;
}

/// The fix-its of \p Findings applied as dmalint --fix does (a finding whose
/// fixes conflict with those already taken is skipped).
std::string applyFixes(const std::string &Code,
                       const std::vector<tidy::ClangTidyError> &Findings) {
  tooling::Replacements All;
  for (const tidy::ClangTidyError &E : Findings) {
    if (!StringRef(E.DiagnosticName).starts_with("dma-"))
      continue;
    tooling::Replacements Mine = All;
    bool Ok = true;
    for (const auto &[File, Replacements] : E.Message.Fix) {
      for (const tooling::Replacement &R : Replacements) {
        if (R.getFilePath() != FileName || R.getOffset() + R.getLength() > Code.size())
          fail("a fix-it of " + E.DiagnosticName + " is outside the file: " + R.toString(),
               Code);
        if (llvm::Error Err = Mine.add(R)) {
          llvm::consumeError(std::move(Err));
          Ok = false;
        }
      }
    }
    if (Ok)
      All = std::move(Mine);
  }
  llvm::Expected<std::string> Fixed = tooling::applyAllReplacements(Code, All);
  if (!Fixed) {
    std::string Message = llvm::toString(Fixed.takeError());
    fail("fix-its do not apply: " + Message, Code);
  }
  return *Fixed;
}

void runSnippet(const Snippet &S) {
  if (!S.Config.RunChecks) {
    static const bool Time = getenv("DMALINT_FUZZ_TIME") != nullptr;
    auto T0 = std::chrono::steady_clock::now();
    std::unique_ptr<ASTUnit> AST = parse(S.Code);
    auto T1 = std::chrono::steady_clock::now();
    if (AST)
      analyseAll(AST->getASTContext(), S.Config, S.Code);
    auto T2 = std::chrono::steady_clock::now();
    if (Time)
      llvm::errs() << "parse " << std::chrono::duration<double>(T1 - T0).count() << " s, analysis "
                   << std::chrono::duration<double>(T2 - T1).count() << " s\n";
    return;
  }
  bool HadErrors;
  std::vector<tidy::ClangTidyError> Findings = runChecks(S, HadErrors);
  bool HasFix = false;
  static const bool Verbose = getenv("DMALINT_FUZZ_VERBOSE") != nullptr;
  for (const tidy::ClangTidyError &E : Findings) {
    if (StringRef(E.DiagnosticName).starts_with("dma-") && !E.Message.Fix.empty())
      HasFix = true;
    if (Verbose)
      llvm::errs() << "  " << E.Message.FileOffset << ": " << E.Message.Message << " ["
                   << E.DiagnosticName << "]" << (E.Message.Fix.empty() ? "" : " (fix)") << "\n";
  }
  // With the built-in model, --fix must keep compiling code compiling.
  if (HadErrors || !HasFix || S.Config.ModelVariant != 0)
    return;
  std::string Fixed = applyFixes(S.Code, Findings);
  if (Verbose)
    llvm::errs() << "  fixed code:\n" << Fixed;
  if (!compilesCleanly(Fixed))
    fail("the fix-its turn code that compiles into code that does not; fixed code:\n" + Fixed,
         S.Code);
}

/// Precompiles snippetIncludes() into a file named after its text and flags
/// (shared by the processes of -jobs, rebuilt when stale), and checks that
/// it loads. Without it every input parses the standard headers again.
void preparePch() {
  if (getenv("DMALINT_FUZZ_NO_PCH"))
    return;
  std::string Header = snippetIncludes();
  std::string Key = Header;
  for (const std::string &A : baseArgs())
    Key += "\n" + A;
  llvm::SmallString<256> Path;
  llvm::sys::path::system_temp_directory(/*ErasedOnReboot=*/true, Path);
  llvm::sys::path::append(Path, "dmalint-fuzz-" + llvm::utohexstr(llvm::xxh3_64bits(Key)) +
                                    "-" + std::to_string(getuid()) + ".pch");
  PchPath = std::string(Path);
  auto Loads = [&] { return compilesCleanly(Header); };
  if (llvm::sys::fs::exists(PchPath) && Loads())
    return;
  // Written under a unique name, then renamed: other processes may be reading.
  llvm::SmallString<256> Temporary;
  int FD;
  if (llvm::sys::fs::createUniqueFile(PchPath + "-%%%%%%", FD, Temporary)) {
    PchPath.clear();
    return;
  }
  ::close(FD);
  // The header is a file of its own next to it: loading a PCH checks that
  // the files it was built from are unchanged (so an edited <tpu/dma.h> gives
  // a new one).
  std::string HeaderPath = PchPath + ".h";
  auto Existing = llvm::MemoryBuffer::getFile(HeaderPath);
  if (!Existing || (*Existing)->getBuffer() != Header) {
    // Never rewritten once there: other processes' PCHs depend on its date.
    llvm::SmallString<256> HeaderTemporary;
    int HeaderFD;
    if (!llvm::sys::fs::createUniqueFile(HeaderPath + "-%%%%%%", HeaderFD, HeaderTemporary)) {
      {
        llvm::raw_fd_ostream Out(HeaderFD, /*shouldClose=*/true);
        Out << Header;
      }
      llvm::sys::fs::rename(HeaderTemporary, HeaderPath);
    }
  }
  std::vector<std::string> Args = {"clang-tool", "-xc++-header"};
  for (const std::string &A : baseArgs())
    Args.push_back(A);
  Args.push_back(HeaderPath);
  Args.push_back("-o");
  Args.push_back(std::string(Temporary));
  llvm::IntrusiveRefCntPtr<FileManager> Files(
      new FileManager(FileSystemOptions(), llvm::vfs::getRealFileSystem()));
  IgnoringDiagConsumer Ignore;
  tooling::ToolInvocation Invocation(Args, std::make_unique<GeneratePCHAction>(), Files.get());
  Invocation.setDiagnosticConsumer(&Ignore);
  bool Built = Invocation.run();
  if (Built && !llvm::sys::fs::rename(Temporary, PchPath) && Loads())
    return;
  llvm::sys::fs::remove(Temporary);
  llvm::errs() << "fuzz-snippet: cannot precompile the snippet headers; parsing them every time\n";
  PchPath.clear();
}

void runOne(const uint8_t *Data, size_t Size) { runSnippet(decodeSnippet(Data, Size)); }

std::vector<uint8_t> readFile(const char *Path) {
  std::ifstream In(Path, std::ios::binary);
  return std::vector<uint8_t>(std::istreambuf_iterator<char>(In), {});
}

/// C++ files (reproducers) through the same runs as a decoded input: the
/// analysis alone, or with the checks.
int runCode(int Argc, char **Argv, int From, bool Checks) {
  for (int I = From; I < Argc; ++I) {
    std::vector<uint8_t> Data = readFile(Argv[I]);
    Snippet S;
    S.Code.assign(Data.begin(), Data.end());
    S.Config.RunChecks = Checks;
    auto Start = std::chrono::steady_clock::now();
    runSnippet(S);
    llvm::outs() << Argv[I] << ": "
                 << std::chrono::duration<double>(std::chrono::steady_clock::now() - Start).count()
                 << " s\n";
  }
  return 0;
}

int printInputs(int Argc, char **Argv, int From) {
  for (int I = From; I < Argc; ++I) {
    std::vector<uint8_t> Data = readFile(Argv[I]);
    Snippet S = decodeSnippet(Data.data(), Data.size());
    llvm::outs() << "// " << Argv[I] << ": " << (S.Config.RunChecks ? "checks, " : "")
                 << "model variant " << S.Config.ModelVariant << ", small limits "
                 << S.Config.SmallWorkLimit << "/" << S.Config.SmallMaxValues << "/"
                 << S.Config.SmallLambdaDepth
                 << (S.Productions.count("stmt:raw") ? ", raw bytes spliced in" : "") << "\n"
                 << S.Code;
  }
  return 0;
}

int stats(int Argc, char **Argv, int From) {
  unsigned Total = 0, Clean = 0;
  for (int I = From; I < Argc; ++I) {
    std::vector<uint8_t> Data = readFile(Argv[I]);
    Snippet S = decodeSnippet(Data.data(), Data.size());
    ++Total;
    if (compilesCleanly(S.Code))
      ++Clean;
  }
  llvm::outs() << Clean << " of " << Total << " inputs compile without errors\n";
  return 0;
}

/// Random inputs, chosen greedily for the productions they add, kept when
/// they compile; and two that do not (raw bytes spliced in).
int emitSeeds(const std::string &Spec) {
  std::string Dir = Spec;
  unsigned Max = 40;
  if (size_t Comma = Spec.find(','); Comma != std::string::npos) {
    Dir = Spec.substr(0, Comma);
    Max = std::stoi(Spec.substr(Comma + 1));
  }
  std::mt19937 Random(20261129);
  struct Candidate {
    std::vector<uint8_t> Bytes;
    std::set<std::string> Productions;
  };
  std::vector<Candidate> Candidates;
  for (unsigned I = 0; I < 4000; ++I) {
    std::vector<uint8_t> Bytes(8 + Random() % 400);
    for (uint8_t &B : Bytes)
      B = Random();
    Snippet S = decodeSnippet(Bytes.data(), Bytes.size());
    Candidates.push_back({std::move(Bytes), std::move(S.Productions)});
  }
  std::set<std::string> Covered;
  unsigned Written = 0, Broken = 0;
  auto Write = [&](const std::vector<uint8_t> &Bytes, const char *Kind) {
    char Name[64];
    snprintf(Name, sizeof Name, "/%s-%02u", Kind, *Kind == 'b' ? Broken : Written - Broken);
    ++Written;
    std::ofstream(Dir + Name, std::ios::binary)
        .write(reinterpret_cast<const char *>(Bytes.data()), Bytes.size());
  };
  while (Written < Max) {
    size_t Best = Candidates.size(), BestGain = 0;
    for (size_t I = 0; I < Candidates.size(); ++I) {
      size_t Gain = 0;
      for (const std::string &P : Candidates[I].Productions)
        Gain += !Covered.count(P);
      // Shorter inputs first among equals: smaller seeds run faster.
      if (Gain > BestGain ||
          (Gain == BestGain && Gain && Candidates[I].Bytes.size() < Candidates[Best].Bytes.size()))
        Best = I, BestGain = Gain;
    }
    if (Best == Candidates.size())
      break;
    Candidate C = std::move(Candidates[Best]);
    Candidates.erase(Candidates.begin() + Best);
    Snippet S = decodeSnippet(C.Bytes.data(), C.Bytes.size());
    if (compilesCleanly(S.Code)) {
      Covered.insert(C.Productions.begin(), C.Productions.end());
      Write(C.Bytes, "seed");
    } else if (C.Productions.count("stmt:raw") && Broken < 2) {
      Write(C.Bytes, "broken");
      ++Broken;
    }
  }
  llvm::outs() << "wrote " << Written << " seeds to " << Dir << ", covering " << Covered.size()
               << " productions\n";
  return 0;
}

} // namespace

extern "C" int LLVMFuzzerInitialize(int *Argc, char ***Argv) {
  for (int I = 1; I < *Argc; ++I)
    if (std::string((*Argv)[I]) == "--print")
      exit(printInputs(*Argc, *Argv, I + 1));
  preparePch();
  for (int I = 1; I < *Argc; ++I) {
    std::string Arg = (*Argv)[I];
    if (Arg == "--analyse" || Arg == "--check")
      exit(runCode(*Argc, *Argv, I + 1, Arg == "--check"));
    if (Arg == "--stats")
      exit(stats(*Argc, *Argv, I + 1));
    if (Arg.rfind("--emit-seeds=", 0) == 0)
      exit(emitSeeds(Arg.substr(strlen("--emit-seeds="))));
  }
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  runOne(Data, Size);
  return 0;
}
