//===- main.cpp - The standalone dmalint command ---------------------------===//
//
// dmalint FILE... -- COMPILER-FLAGS
// dmalint -p BUILD_DIR [FILE...]
// dmalint --lsp [-- FALLBACK-FLAGS]    (a language server on stdin/stdout)
//
// Exit status: 0 no finding, 1 findings, 2 usage or input error (including a
// translation unit that does not compile), so CI and pre-commit can gate on
// it directly. With --baseline, only new findings count.
//
// Findings are data before text: the run's error list is fingerprinted,
// filtered through the baseline, and only then rendered (text, SARIF) or
// turned into edits (--fix, --export-fixes).
//
//===----------------------------------------------------------------------===//
#include "Baseline.h"
#include "clang-tidy/ClangTidyOptions.h"
#include "CompileCommands.h"
#include "Configuration.h"
#include "Diff.h"
#include "Findings.h"
#include "Fingerprint.h"
#include "Fixes.h"
#include "LspServer.h"
#include "Rules.h"
#include "Run.h"
#include "SarifMerge.h"
#include "SarifWriter.h"
#include "TextWriter.h"
#include "../checks/ConfigurationErrors.h"
#include "../checks/DataflowCheck.h"
#include "clang/Basic/Version.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/Regex.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"
#include <chrono>
#include <cstdlib>
#include <set>
#include <unistd.h>

using namespace llvm;
using namespace clang;
using namespace dmalint::tool;

namespace {

enum ExitCode { ExitClean = 0, ExitFindings = 1, ExitError = 2 };

cl::OptionCategory Category("dmalint options");

cl::list<std::string> Files(cl::Positional, cl::desc("<file>..."), cl::cat(Category));
cl::opt<std::string> BuildPath("p", cl::desc("Build directory holding compile_commands.json"),
                               cl::value_desc("build-dir"), cl::cat(Category));
cl::opt<std::string> Checks(
    "checks",
    cl::desc("Comma-separated globs of checks to run, as in clang-tidy\n"
             "(e.g. -*,dma-wait-send-on-local-copy). Added after the\n"
             "checks of any .clang-tidy file."),
    cl::cat(Category));
cl::opt<bool> Fix("fix", cl::desc("Apply the suggested fixes to the files"), cl::cat(Category));
cl::opt<std::string> HeaderFilter(
    "header-filter",
    cl::desc("Regular expression of headers whose findings are shown\n"
             "(findings in the main file are always shown)"),
    cl::cat(Category));
cl::opt<std::string> SourceFilter(
    "source-filter",
    cl::desc("Regular expression: with -p and no FILE, analyse only the files of\n"
             "the compilation database whose path matches (as run-clang-tidy)"),
    cl::cat(Category));
cl::opt<bool> DumpConfig("dump-config",
                         cl::desc("Print the effective configuration (checks, their options and\n"
                                  "the API model) as .clang-tidy YAML, and exit"),
                         cl::cat(Category));
cl::opt<bool> VerifyConfig(
    "verify-config",
    cl::desc("Check the configuration of the files (or of the working directory):\n"
             ".clang-tidy files, check names, every dma-* check's options and\n"
             "the API model; print the errors, or \"No config errors detected.\",\n"
             "and exit (2 on errors). The model's names are checked against the\n"
             "code only when it is analysed."),
    cl::cat(Category));
cl::opt<bool> Verbose("verbose",
                      cl::desc("Also print a remark for each function the analysis skipped\n"
                               "at its work limit (otherwise only their number is printed)"),
                      cl::cat(Category));
cl::opt<bool> ListChecks("list-checks", cl::desc("List the enabled checks and exit"),
                         cl::cat(Category));
cl::opt<bool> Quiet("quiet", cl::desc("Print no progress or summary on stderr"),
                    cl::cat(Category));
// cl::Prefix: -j4 as well as -j 4 and -j=4, as make and ninja take it.
cl::opt<unsigned> Jobs("j", cl::desc("Translation units analysed in parallel (default: all cores)"),
                       cl::Prefix, cl::init(0), cl::cat(Category));
cl::opt<bool> UseColor("use-color",
                       cl::desc("Colour the diagnostics (default: when stdout is a terminal)"),
                       cl::cat(Category));

enum class OutputFormat { Text, Sarif };
cl::opt<OutputFormat> Format(
    "format", cl::desc("What to print on stdout"),
    cl::values(clEnumValN(OutputFormat::Text, "text", "clang's diagnostic format (default)"),
               clEnumValN(OutputFormat::Sarif, "sarif", "a SARIF 2.1.0 log")),
    cl::init(OutputFormat::Text), cl::cat(Category));
cl::opt<std::string> SarifFile("sarif", cl::desc("Also write a SARIF 2.1.0 log to <file>"),
                               cl::value_desc("file"), cl::cat(Category));
cl::opt<std::string> ExportFixesFile(
    "export-fixes",
    cl::desc("Write the fixes to <file> as YAML for clang-apply-replacements\n"
             "(the edits --fix would make)"),
    cl::value_desc("file"), cl::cat(Category));
cl::opt<std::string> BaselineFile(
    "baseline",
    cl::desc("Report only findings that are not in this baseline file\n"
             "(matched by fingerprint, not by line)"),
    cl::value_desc("file"), cl::cat(Category));
cl::opt<std::string> WriteBaselineFile("write-baseline",
                                       cl::desc("Record the current findings in <file>"),
                                       cl::value_desc("file"), cl::cat(Category));
cl::opt<std::string> SourceRootDir(
    "source-root",
    cl::desc("Directory that report paths are relative to (default: the top\n"
             "of the git work tree holding compile_commands.json or the\n"
             "working directory, else the directory of compile_commands.json,\n"
             "else the working directory)"),
    cl::value_desc("dir"), cl::cat(Category));
cl::opt<std::string> CheckDocUrl(
    "check-doc-url",
    cl::desc("Documentation URL of a check in SARIF rules; {check} stands\n"
             "for its name"),
    cl::init(defaultCheckDocUrl().str()), cl::value_desc("url"), cl::cat(Category));

cl::opt<std::string> DiffRevision(
    "diff",
    cl::desc("Pull-request mode: report only findings on lines changed since\n"
             "<rev> (git diff -U0 <rev>, in the source root), analysing only\n"
             "the files that changed or include a changed file"),
    cl::value_desc("rev"), cl::cat(Category));
cl::opt<std::string> DiffFile(
    "diff-file",
    cl::desc("As --diff, with the changes of a unified diff (paths relative\n"
             "to the source root; '-' reads it from stdin)"),
    cl::value_desc("patch"), cl::cat(Category));
cl::opt<std::string> Shard(
    "shard",
    cl::desc("Analyse only shard K of N of the files (1 <= K <= N), a split\n"
             "by path that adding files does not change"),
    cl::value_desc("K/N"), cl::cat(Category));
cl::opt<std::string> MergeSarif(
    "merge-sarif",
    cl::desc("Merge the SARIF logs given as <file>... (e.g. of the shards of one\n"
             "run) into one log <out>, and exit"),
    cl::value_desc("out"), cl::cat(Category));
cl::opt<bool> Lsp("lsp",
                  cl::desc("Serve the Language Server Protocol on stdin/stdout: findings\n"
                           "and quick fixes of the open documents, as they are edited\n"
                           "(flags after '--': for files with no compile command)"),
                  cl::cat(Category));
cl::opt<std::string> CompileCommandsDir(
    "compile-commands-dir",
    cl::desc("With --lsp: the directory of compile_commands.json for every file\n"
             "(default: searched for above each file, as clangd does)"),
    cl::value_desc("dir"), cl::cat(Category));
cl::opt<unsigned> Debounce("debounce",
                           cl::desc("With --lsp: milliseconds a document must stay unchanged\n"
                                    "before it is analysed"),
                           cl::init(50), cl::value_desc("ms"), cl::cat(Category));
cl::opt<bool> Preamble("preamble",
                       cl::desc("With --lsp: keep each document's parsed #include block\n"
                                "between analyses (--preamble=false parses it every time)"),
                       cl::init(true), cl::cat(Category));

void printVersion(raw_ostream &OS) {
  OS << "dmalint " << DMALINT_VERSION << "\n  built with " << clang::getClangFullVersion()
     << "\n";
}

int usageError(const Twine &Message) {
  WithColor::error(errs(), "dmalint") << Message << "\n";
  return ExitError;
}

/// Colour on \p OS: --use-color[=false] if given, else none when NO_COLOR is
/// set to anything (https://no-color.org), else when \p OS is a terminal.
bool useColor(const raw_ostream &OS) {
  if (UseColor.getNumOccurrences())
    return UseColor;
  // std::getenv rather than sys::Process::GetEnv, whose std::optional
  // <std::string> GCC 12 takes for a dangling pointer (-Wdangling-pointer).
  if (const char *NoColor = std::getenv("NO_COLOR"); NoColor && *NoColor)
    return false;
  return OS.is_displayed();
}

const char *plural(unsigned N) { return N == 1 ? "" : "s"; }

/// The checks enabled for any of \p Files (.clang-tidy files may differ).
std::vector<std::string> enabledForAny(const std::vector<std::string> &Files,
                                       const tidy::ClangTidyOptions &Overrides) {
  std::set<std::string> Names;
  for (const std::string &File : Files)
    for (std::string &Name : enabledChecks(File, Overrides))
      Names.insert(std::move(Name));
  return {Names.begin(), Names.end()};
}

/// --merge-sarif OUT IN...: one log of the shards' logs.
int mergeMode() {
  if (Files.empty())
    return usageError("--merge-sarif OUT needs the logs to merge: dmalint --merge-sarif OUT "
                      "IN...");
  Expected<MergedLog> Merged = mergeSarifLogs(Files);
  if (!Merged)
    return usageError(toString(Merged.takeError()));
  if (Error Err = writeSarif(MergeSarif, Merged->Log))
    return usageError("cannot write the SARIF log '" + MergeSarif +
                      "': " + toString(std::move(Err)));
  // The status a single run over all the shards would have had.
  return !Merged->Successful ? ExitError : Merged->Results ? ExitFindings : ExitClean;
}

/// --dump-config and --verify-config: the configuration, without a run.
int configurationMode(const std::vector<std::string> &Inputs,
                      const tidy::ClangTidyOptions &Overrides) {
  SmallString<256> Here;
  sys::fs::current_path(Here);
  std::vector<std::string> Anchors = Inputs;
  if (Anchors.empty())
    Anchors.push_back((Here + "/dummy.cc").str());
  if (DumpConfig)
    Anchors.resize(1);
  // Every check's options are judged, the disabled ones' too: a typo in
  // an option of a check turned off today is still a typo.
  std::set<std::string> Said;
  std::optional<CheckedConfiguration> First;
  for (const std::string &Anchor : Anchors) {
    CheckedConfiguration Checked = checkConfiguration(Anchor, Overrides, VerifyConfig);
    for (const std::string &Error : Checked.Errors)
      if (Said.insert(Error).second)
        WithColor::error(errs(), "dmalint") << Error << "\n";
    if (!First)
      First = std::move(Checked);
  }
  if (!Said.empty())
    return ExitError;
  if (DumpConfig)
    outs() << tidy::configurationAsText(First->Effective);
  else
    outs() << "No config errors detected.\n";
  return ExitClean;
}

/// The changes --diff or --diff-file name.
Expected<ChangedLines> readChanges(const SourceRoot &Root) {
  Expected<std::string> Patch = [&]() -> Expected<std::string> {
    if (DiffRevision.getNumOccurrences())
      return gitDiff(DiffRevision, Root.directory());
    auto Buffer = MemoryBuffer::getFileOrSTDIN(DiffFile, /*IsText=*/true);
    if (!Buffer)
      return createStringError(Buffer.getError(), "cannot read the diff '" + DiffFile +
                                                      "': " + Buffer.getError().message());
    return (*Buffer)->getBuffer().str();
  }();
  if (!Patch)
    return Patch.takeError();
  return parseUnifiedDiff(*Patch, Root.directory());
}

/// --write-baseline: every current finding of \p All, whatever --baseline
/// hides; never after errors (it would miss findings). False when the file
/// could not be written.
bool baselineStage(llvm::ArrayRef<Finding> All, unsigned Errors) {
  if (Errors) {
    WithColor::warning(errs(), "dmalint")
        << "not writing the baseline: the run had errors (above), so it would miss findings\n";
    return true;
  }
  if (Error Err = writeBaseline(WriteBaselineFile, All)) {
    WithColor::error(errs(), "dmalint") << "cannot write the baseline '" << WriteBaselineFile
                                        << "': " << toString(std::move(Err)) << "\n";
    return false;
  }
  if (!Quiet) {
    unsigned Recorded = llvm::count_if(All, [](const Finding &F) { return F.isFinding(); });
    errs() << "dmalint: recorded " << Recorded << " finding" << plural(Recorded)
           << " in the baseline " << WriteBaselineFile << "\n";
  }
  return true;
}

/// --fix and --export-fixes: the fixes of \p Reported, planned once, within
/// \p EditableTree; never after errors (the findings would be incomplete).
/// False when a file could not be written.
bool fixStage(llvm::ArrayRef<const Finding *> Reported, unsigned Errors, unsigned Findings,
              StringRef EditableTree) {
  if (Errors) {
    WithColor::warning(errs(), "dmalint")
        << "not " << (ExportFixesFile.getNumOccurrences() ? "exporting" : "applying")
        << " fixes: the run had errors (above)\n";
    return true;
  }
  bool Written = true;
  FixPlan Plan = planFixes(Reported, EditableTree);
  for (const std::string &Outside : Plan.OutsideTree)
    WithColor::warning(errs(), "dmalint")
        << "not fixing " << Outside << ": it is outside the project tree " << EditableTree
        << " (set --source-root to widen it)\n";
  if (ExportFixesFile.getNumOccurrences()) {
    if (Error Err = exportFixes(ExportFixesFile, Reported, Plan)) {
      WithColor::error(errs(), "dmalint") << "cannot write the fixes '" << ExportFixesFile
                                          << "': " << toString(std::move(Err)) << "\n";
      Written = false;
    }
  }
  if (!Fix || !Findings)
    return Written;
  FixOutcome Outcome = applyFixes(Plan);
  for (const std::string &Failure : Outcome.Failures)
    WithColor::error(errs(), "dmalint") << "cannot write fixes to " << Failure << "\n";
  // A finding's fix counts as applied only if every file it edits was
  // written.
  unsigned NotApplied = Outcome.FindingsNotApplied.size();
  unsigned Applied = Plan.Applied - NotApplied;
  if (!Quiet)
    errs() << "dmalint: applied fixes of " << Applied << " finding" << plural(Applied) << " in "
           << Outcome.FilesWritten << " file" << plural(Outcome.FilesWritten)
           << (NotApplied ? ", not those of " + std::to_string(NotApplied) +
                                " whose files could not be written"
                          : std::string())
           << (Plan.Conflicts ? ", skipped " + std::to_string(Plan.Conflicts) +
                                    " that overlapped another fix"
                              : std::string())
           << "\n";
  return Written && Outcome.Failures.empty();
}

} // namespace

int main(int argc, const char **argv) {
  // Everything after `--` is the compile command for FILE...
  std::optional<std::vector<std::string>> FixedFlags;
  int ToolArgc = argc;
  for (int I = 1; I < argc; ++I) {
    if (StringRef(argv[I]) == "--") {
      FixedFlags.emplace(argv + I + 1, argv + argc);
      ToolArgc = I;
      break;
    }
  }
  cl::HideUnrelatedOptions(Category);
  cl::SetVersionPrinter(printVersion);
  std::string ParseErrors;
  raw_string_ostream ParseErrorStream(ParseErrors);
  if (!cl::ParseCommandLineOptions(
          ToolArgc, argv,
          "dmalint: finds DMA-descriptor misuse in C++ kernel code\n\n"
          "  dmalint FILE... -- COMPILER-FLAGS\n"
          "  dmalint -p BUILD_DIR [FILE...]\n"
          "  dmalint --lsp [-- FALLBACK-FLAGS]\n\n"
          "Exit status: 0 no finding, 1 findings (with --baseline: new findings),\n"
          "2 usage or input error (including code that does not compile).\n",
          &ParseErrorStream)) {
    errs() << ParseErrorStream.str();
    return ExitError;
  }

  // dmalint's own error and warning lines follow the same rule.
  WithColor::setAutoDetectFunction(useColor);

  if (MergeSarif.getNumOccurrences())
    return mergeMode();
  if (DiffRevision.getNumOccurrences() && DiffFile.getNumOccurrences())
    return usageError("give either --diff or --diff-file, not both");
  bool DiffMode = DiffRevision.getNumOccurrences() || DiffFile.getNumOccurrences();
  unsigned ShardIndex = 0, ShardCount = 0;
  if (Shard.getNumOccurrences()) {
    auto [K, N] = StringRef(Shard).split('/');
    if (K.getAsInteger(10, ShardIndex) || N.getAsInteger(10, ShardCount) || ShardCount == 0 ||
        ShardIndex == 0 || ShardIndex > ShardCount)
      return usageError("--shard takes K/N with 1 <= K <= N, got '" + Shard + "'");
  }
  if (WriteBaselineFile.getNumOccurrences() && (DiffMode || ShardCount))
    return usageError("--write-baseline records every finding of the project: it cannot be "
                      "combined with --diff, --diff-file or --shard");

  tidy::ClangTidyOptions Overrides;
  if (Checks.getNumOccurrences())
    Overrides.Checks = Checks;

  if (Lsp) {
    if (!Files.empty() || BuildPath.getNumOccurrences())
      return usageError("--lsp takes no FILE and no -p: the editor opens the files, and "
                        "their compile commands are found as clangd finds them (or give "
                        "--compile-commands-dir)");
    if (CompileCommandsDir.getNumOccurrences() && !sys::fs::is_directory(CompileCommandsDir))
      return usageError("--compile-commands-dir '" + CompileCommandsDir +
                        "' is not a directory");
    dmalint::lsp::ServerOptions Options;
    Options.CompileCommandsDir = CompileCommandsDir.getNumOccurrences()
                                     ? normalisedPath(CompileCommandsDir)
                                     : std::string();
    Options.FallbackFlags = FixedFlags.value_or(std::vector<std::string>{"-std=c++17"});
    Options.Overrides = Overrides;
    Options.CheckDocUrl = CheckDocUrl;
    Options.DebounceMs = Debounce;
    Options.UsePreamble = Preamble;
    Options.Argv0 = argv[0];
    // The protocol owns stdout: anything else that writes there (clang,
    // LLVM) goes to stderr, which editors keep as the server's log.
    int ProtocolOut = dup(STDOUT_FILENO);
    if (ProtocolOut < 0 || dup2(STDERR_FILENO, STDOUT_FILENO) < 0)
      return usageError("cannot set up stdout for the language server");
    return dmalint::lsp::runServer(Options, STDIN_FILENO, ProtocolOut);
  }
  if (HeaderFilter.getNumOccurrences()) {
    std::string RegexError;
    if (!Regex(HeaderFilter).isValid(RegexError))
      return usageError("invalid --header-filter regular expression '" + HeaderFilter +
                        "': " + RegexError);
    Overrides.HeaderFilterRegex = HeaderFilter;
  }

  std::optional<Regex> SourceRegex;
  if (SourceFilter.getNumOccurrences()) {
    std::string RegexError;
    SourceRegex.emplace(SourceFilter);
    if (!SourceRegex->isValid(RegexError))
      return usageError("invalid --source-filter regular expression '" + SourceFilter +
                        "': " + RegexError);
  }
  // Functions skipped at the work limit are always collected, never dropped
  // in silence: printed with --verbose (or where .clang-tidy sets
  // ReportSkippedFunctions), listed as notifications in SARIF, and otherwise
  // counted on stderr.
  dmalint::checks::reportEverySkippedFunction();

  // Read the baseline before the (long) run: a bad one is a usage error.
  std::optional<Baseline> Accepted;
  if (BaselineFile.getNumOccurrences()) {
    Expected<Baseline> Read = readBaseline(BaselineFile);
    if (!Read)
      return usageError(toString(Read.takeError()));
    Accepted = std::move(*Read);
  }
  if (SourceRootDir.getNumOccurrences() && !sys::fs::is_directory(SourceRootDir))
    return usageError("--source-root '" + SourceRootDir + "' is not a directory");

  std::vector<std::string> Inputs;
  for (const std::string &File : Files) {
    Inputs.push_back(normalisedPath(File));
  }

  if (DumpConfig || VerifyConfig)
    return configurationMode(Inputs, Overrides);

  if (ListChecks) {
    SmallString<256> Here;
    sys::fs::current_path(Here);
    std::string Anchor = Inputs.empty() ? (Here + "/dummy.cc").str() : Inputs.front();
    std::vector<std::string> Names = enabledChecks(Anchor, Overrides);
    if (Names.empty())
      return usageError("no checks enabled (check --checks and the Checks of .clang-tidy)");
    outs() << "Enabled checks:\n";
    for (const std::string &Name : Names)
      outs() << "    " << Name << "\n";
    return ExitClean;
  }

  for (const std::string &File : Inputs) {
    if (sys::fs::is_directory(File))
      return usageError("'" + File + "' is a directory, not a source file");
    if (!sys::fs::exists(File))
      return usageError("no such file: '" + File + "'");
  }

  CompilationSource Source{FixedFlags, BuildPath};
  auto Compilations = loadCompilations(Source, Inputs);
  if (!Compilations)
    return usageError(toString(Compilations.takeError()));
  const tooling::CompilationDatabase &Database = *Compilations->Database;
  // A rejected entry's file is not analysed: not with another file's
  // command either. The others are.
  bool AllFiles = Inputs.empty();
  if (AllFiles) {
    Inputs = Database.getAllFiles();
    if (SourceRegex)
      llvm::erase_if(Inputs, [&](const std::string &File) { return !SourceRegex->match(File); });
    if (Inputs.empty() && Compilations->Rejected.empty())
      return usageError("the compilation database in '" + Compilations->Directory +
                        "' lists no files" +
                        (SourceRegex ? " matching --source-filter '" + SourceFilter + "'"
                                     : std::string()));
  } else {
    llvm::erase_if(Inputs, [&](const std::string &File) {
      return Compilations->RejectedFiles.contains(File);
    });
  }
  for (const std::string &File : Inputs)
    if (Database.getCompileCommands(File).empty())
      return usageError("no compile command for '" + File + "'");
  if (Inputs.empty())
    return usageError("no file left to analyse: every compilation-database entry for the "
                      "files was rejected (above)");
  if (enabledChecks(Inputs.front(), Overrides).empty())
    return usageError("no checks enabled (check --checks and the Checks of .clang-tidy)");

  // On a terminal, one line of progress that rewrites itself.
  bool ShowProgress = !Quiet && Inputs.size() > 1 && sys::Process::StandardErrIsDisplayed();
  auto Started = std::chrono::steady_clock::now();
  auto Progress = [&](size_t Done) {
    if (!ShowProgress)
      return;
    double Seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - Started)
                         .count();
    errs() << format("\rdmalint: %zu/%zu files, %.1fs", Done, Inputs.size(), Seconds);
    if (Done == Inputs.size())
      errs() << "\n";
  };
  SmallString<256> WorkingDirectory;
  sys::fs::current_path(WorkingDirectory);
  SourceRoot Root(SourceRootDir.getNumOccurrences()
                      ? std::string(SourceRootDir)
                      : defaultSourceRoot(Compilations->Directory, WorkingDirectory));

  // Pull-request mode: the changed lines, and the files they concern.
  std::optional<ChangedLines> Changes;
  const std::vector<std::string> Selectable = Inputs; // Their checks are SARIF's rules.
  if (DiffMode) {
    Expected<ChangedLines> Parsed = readChanges(Root);
    if (!Parsed)
      return usageError(toString(Parsed.takeError()));
    Changes = std::move(*Parsed);
    Inputs = affectedFiles(Database, Inputs, Changes->changedFiles(), Jobs);
  }
  if (ShardCount)
    llvm::erase_if(Inputs, [&](const std::string &File) {
      return shardOf(Root.portable(normalisedPath(File)), ShardCount) != ShardIndex;
    });
  if ((DiffMode || ShardCount) && !Quiet)
    errs() << "dmalint: analysing " << Inputs.size() << " of " << Selectable.size() << " file"
           << plural(Selectable.size())
           << (DiffMode ? " (those the change touches); findings on changed lines only" : "")
           << (ShardCount ? " (shard " + Shard + ")" : std::string()) << "\n";

  // Fingerprints are made of the findings' identities: only a SARIF log
  // and a baseline read or written use them.
  bool NeedsIdentities = Format == OutputFormat::Sarif || SarifFile.getNumOccurrences() ||
                         BaselineFile.getNumOccurrences() ||
                         WriteBaselineFile.getNumOccurrences();
  std::vector<TranslationUnitResult> Results =
      runChecks(Database, Inputs, Overrides, Jobs, Progress, NeedsIdentities);

  // Resolved once: every writer below reads these.
  SourceCache Sources;
  std::vector<Finding> All;
  for (const RejectedEntry &Entry : Compilations->Rejected)
    All.push_back(inputError(Entry.DatabaseFile, Entry.Problem));
  for (Finding &F : resolveFindings(std::move(Results), Sources, Root))
    All.push_back(std::move(F));
  if (Changes)
    llvm::erase_if(All, [&](const Finding &F) {
      return F.isFinding() &&
             !(F.Primary.At && Changes->changed(F.Primary.At->Path, F.Primary.At->Line));
    });
  bool WritesSarif = Format == OutputFormat::Sarif || SarifFile.getNumOccurrences();
  if (WritesSarif)
    hashLines(All, Sources);
  unsigned Errors = llvm::count_if(All, [](const Finding &F) { return F.isError(); });
  int Status = ExitClean;

  // A baseline of dmalint 0.1 holds fingerprints of its own recipe, with
  // paths relative to its source root.
  std::vector<std::string> BaselineKeys;
  if (Accepted && Accepted->Version == 1) {
    SourceRoot LegacyRoot(SourceRootDir.getNumOccurrences() ? StringRef(SourceRootDir)
                          : !Compilations->Directory.empty()
                              ? StringRef(Compilations->Directory)
                              : StringRef(WorkingDirectory));
    BaselineKeys = legacyFingerprints(All, LegacyRoot);
    WithColor::note(errs(), "dmalint")
        << "'" << BaselineFile << "' is a version 1 baseline: its findings are matched by "
        << "path, line text and message; write it again with --write-baseline to get "
        << "version 2, which survives renames, comment edits and reworded messages\n";
  } else {
    for (const Finding &F : All)
      BaselineKeys.push_back(F.Fingerprint);
  }

  // From here on, what is reported: everything but the accepted findings.
  std::vector<const Finding *> Reported;
  unsigned Findings = 0, InBaseline = 0;
  for (size_t I = 0; I < All.size(); ++I) {
    const Finding &F = All[I];
    if (F.isFinding()) {
      if (Accepted && Accepted->accept(BaselineKeys[I])) {
        ++InBaseline;
        continue;
      }
      ++Findings;
    }
    Reported.push_back(&F);
  }

  unsigned Skipped = llvm::count_if(
      Reported, [](const Finding *F) { return F->Kind == FindingKind::Remark; });
  if (Format == OutputFormat::Text) {
    bool Colored = useColor(outs());
    std::vector<const Finding *> Printed;
    for (const Finding *F : Reported) {
      if (F->Kind == FindingKind::Remark && !Verbose) {
        std::optional<std::string> Asked =
            checkOption(F->Primary.At ? F->Primary.At->Path : F->TranslationUnit,
                        Overrides, F->Check + ".ReportSkippedFunctions");
        if (!Asked || !dmalint::checks::parseBooleanOption(*Asked).value_or(false))
          continue;
        --Skipped; // Printed, so not counted again below.
      }
      Printed.push_back(F);
    }
    printFindings(Printed, outs(), Colored);
    outs().flush();
  } else if (Errors) {
    // Stdout holds only the log; why the run failed still reads as text.
    std::vector<const Finding *> Failures;
    llvm::copy_if(Reported, std::back_inserter(Failures),
                  [](const Finding *F) { return F->isError(); });
    bool Colored = useColor(errs());
    printFindings(Failures, errs(), Colored);
  }

  if (WritesSarif) {
    SarifOptions Options;
    Options.Root = &Root;
    Options.EnabledChecks = enabledForAny(Selectable, Overrides);
    Options.CheckDocUrl = CheckDocUrl;
    Options.AgainstBaseline = Accepted.has_value();
    if (ShardCount) // Its own category: each shard's log can be uploaded alone.
      Options.AutomationId =
          "dmalint/shard-" + std::to_string(ShardIndex) + "-of-" + std::to_string(ShardCount) + "/";
    json::Value Log = sarifLog(Reported, Options);
    if (Format == OutputFormat::Sarif) {
      outs() << formatv("{0:2}", Log) << "\n";
      outs().flush();
    }
    if (SarifFile.getNumOccurrences()) {
      if (Error Err = writeSarif(SarifFile, Log)) {
        WithColor::error(errs(), "dmalint") << "cannot write the SARIF log '" << SarifFile
                                            << "': " << toString(std::move(Err)) << "\n";
        Status = ExitError;
      }
    }
  }

  // After the text and SARIF output, so that FILE may be '-' for stdout.
  if (WriteBaselineFile.getNumOccurrences() && !baselineStage(All, Errors))
    Status = ExitError;
  if ((Fix && Findings) || ExportFixesFile.getNumOccurrences()) {
    // The project's tree: --source-root, else where the compilation database
    // and the files it compiles are (with '--' flags, the working directory).
    std::vector<std::string> Compiled = Database.getAllFiles();
    llvm::append_range(Compiled, Inputs);
    std::string EditableTree =
        SourceRootDir.getNumOccurrences()
            ? Root.directory()
            : editableTree(!Compilations->Directory.empty() ? StringRef(Compilations->Directory)
                                                            : StringRef(WorkingDirectory),
                           Compiled);
    if (!fixStage(Reported, Errors, Findings, EditableTree))
      Status = ExitError;
  }
  if (Errors) {
    unsigned ConfigErrors = llvm::count_if(
        All, [](const Finding &F) { return F.Kind == FindingKind::ConfigurationError; });
    unsigned InputErrors = llvm::count_if(
        All, [](const Finding &F) { return F.Kind == FindingKind::InputError; });
    if (InputErrors)
      WithColor::error(errs(), "dmalint")
          << InputErrors << " compilation-database entr" << (InputErrors == 1 ? "y" : "ies")
          << " could not be used (above); the other files were analysed\n";
    if (ConfigErrors)
      WithColor::error(errs(), "dmalint")
          << ConfigErrors << " configuration error" << plural(ConfigErrors)
          << ": fix the options named above; no check ran with a broken configuration\n";
    if (unsigned Compile = Errors - ConfigErrors - InputErrors)
      WithColor::error(errs(), "dmalint")
          << Compile << " compiler error" << plural(Compile)
          << ": dmalint analyses only code that compiles; fix the errors above (or the "
             "compile command) and run again\n";
    return ExitError;
  }
  if (!Quiet && Skipped && !Verbose)
    errs() << "dmalint: " << Skipped << " function" << plural(Skipped)
           << " not analysed: over the analysis work limit (WorkLimit); --verbose lists "
           << (Skipped == 1 ? "it" : "them") << "\n";
  if (!Quiet && (Findings || InBaseline)) {
    errs() << "dmalint: " << Findings << (Accepted ? " new" : "") << " finding"
           << plural(Findings);
    if (Accepted)
      errs() << ", " << InBaseline << " in the baseline";
    errs() << "\n";
  }
  if (Status != ExitClean)
    return Status;
  return Findings ? ExitFindings : ExitClean;
}
