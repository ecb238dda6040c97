//===- main.cpp - The standalone dmalint command ---------------------------===//
//
// dmalint FILE... -- COMPILER-FLAGS
// dmalint -p BUILD_DIR [FILE...]
//
// Exit status: 0 no finding, 1 findings, 2 usage or input error (including a
// translation unit that does not compile), so CI and pre-commit can gate on
// it directly.
//
//===----------------------------------------------------------------------===//
#include "Diagnostics.h"
#include "Driver.h"
#include "clang/Basic/Version.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/Format.h"
#include <chrono>
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/Regex.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

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
cl::opt<bool> ListChecks("list-checks", cl::desc("List the enabled checks and exit"),
                         cl::cat(Category));
cl::opt<bool> Quiet("quiet", cl::desc("Print no progress or summary on stderr"),
                    cl::cat(Category));
cl::opt<unsigned> Jobs("j", cl::desc("Translation units analysed in parallel (default: all cores)"),
                       cl::init(0), cl::cat(Category));
cl::opt<bool> UseColor("use-color",
                       cl::desc("Colour the diagnostics (default: when stdout is a terminal)"),
                       cl::cat(Category));

void printVersion(raw_ostream &OS) {
  OS << "dmalint " << DMALINT_VERSION << "\n  built with " << clang::getClangFullVersion()
     << "\n";
}

int usageError(const Twine &Message) {
  WithColor::error(errs(), "dmalint") << Message << "\n";
  return ExitError;
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
          "  dmalint -p BUILD_DIR [FILE...]\n\n"
          "Exit status: 0 no finding, 1 findings, 2 usage or input error.\n",
          &ParseErrorStream)) {
    errs() << ParseErrorStream.str();
    return ExitError;
  }

  tidy::ClangTidyOptions Overrides;
  if (Checks.getNumOccurrences())
    Overrides.Checks = Checks;
  if (HeaderFilter.getNumOccurrences()) {
    std::string RegexError;
    if (!Regex(HeaderFilter).isValid(RegexError))
      return usageError("invalid --header-filter regular expression '" + HeaderFilter +
                        "': " + RegexError);
    Overrides.HeaderFilterRegex = HeaderFilter;
  }

  std::vector<std::string> Inputs;
  for (const std::string &File : Files) {
    SmallString<256> Abs(File);
    sys::fs::make_absolute(Abs);
    sys::path::remove_dots(Abs, true);
    Inputs.push_back(std::string(Abs));
  }

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
  if (Inputs.empty()) {
    Inputs = (*Compilations)->getAllFiles();
    if (Inputs.empty())
      return usageError("the compilation database in '" + BuildPath + "' lists no files");
  }
  for (const std::string &File : Inputs)
    if ((*Compilations)->getCompileCommands(File).empty())
      return usageError("no compile command for '" + File + "'");
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
  std::vector<tidy::ClangTidyError> Errors =
      runChecks(**Compilations, Inputs, Overrides, Jobs, Progress);

  bool Colored = UseColor.getNumOccurrences() ? bool(UseColor)
                                               : sys::Process::StandardOutIsDisplayed();
  SourceCache Sources;
  printDiagnostics(Errors, Sources, outs(), Colored);
  outs().flush();

  unsigned CompilerErrors = 0, Findings = 0;
  for (const tidy::ClangTidyError &E : Errors) {
    if (isCompilerError(E))
      ++CompilerErrors;
    else if (E.DiagLevel != tidy::ClangTidyError::Remark)
      ++Findings; // Remarks (e.g. a function skipped at the work limit) inform only.
  }

  if (Fix && Findings) {
    if (CompilerErrors) {
      WithColor::warning(errs(), "dmalint") << "not applying fixes: the code does not compile\n";
    } else {
      FixOutcome Outcome = applyFixes(Errors);
      for (const std::string &Failure : Outcome.Failures)
        WithColor::error(errs(), "dmalint") << "cannot write fixes to " << Failure << "\n";
      if (!Quiet)
        errs() << "dmalint: applied fixes of " << Outcome.Applied << " finding"
               << (Outcome.Applied == 1 ? "" : "s") << " in " << Outcome.FilesWritten
               << " file" << (Outcome.FilesWritten == 1 ? "" : "s")
               << (Outcome.Conflicts ? ", skipped " + std::to_string(Outcome.Conflicts) +
                                           " that overlapped another fix"
                                     : std::string())
               << "\n";
      if (!Outcome.Failures.empty())
        return ExitError;
    }
  }
  if (CompilerErrors) {
    WithColor::error(errs(), "dmalint")
        << CompilerErrors << " compiler error" << (CompilerErrors == 1 ? "" : "s")
        << ": dmalint analyses only code that compiles; fix the errors above (or the "
           "compile command) and run again\n";
    return ExitError;
  }
  if (!Quiet && Findings)
    errs() << "dmalint: " << Findings << " finding" << (Findings == 1 ? "" : "s") << "\n";
  return Findings ? ExitFindings : ExitClean;
}
