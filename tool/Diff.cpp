//===- Diff.cpp - Pull-request mode: the lines a change touches -----------===//
#include "Diff.h"
#include "Paths.h"
#include "Run.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Frontend/CompilerInstance.h"
#include "clang/Frontend/FrontendActions.h"
#include "clang/Tooling/Tooling.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/VirtualFileSystem.h"

using namespace clang;

namespace dmalint::tool {

bool ChangedLines::changed(const std::string &Path, unsigned Line) const {
  auto It = Files.find(Path);
  return It != Files.end() && It->second.count(Line);
}

std::vector<std::string> ChangedLines::changedFiles() const {
  std::vector<std::string> Changed;
  for (const auto &[Path, Lines] : Files)
    if (!Lines.empty())
      Changed.push_back(Path);
  return Changed;
}

namespace {

llvm::Error diffError(const llvm::Twine &Message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), Message);
}

/// The path of a "--- " or "+++ " line: git quotes a name with special
/// characters C-style ("b/a\tb.cc"); diff -u may follow it with a tab and a
/// time stamp.
std::string headerPath(llvm::StringRef Rest) {
  if (!Rest.starts_with("\""))
    return Rest.split('\t').first.rtrim().str();
  std::string Path;
  for (size_t I = 1; I < Rest.size() && Rest[I] != '"'; ++I) {
    char C = Rest[I];
    if (C != '\\' || I + 1 >= Rest.size()) {
      Path += C;
      continue;
    }
    char E = Rest[++I];
    if (E >= '0' && E <= '7') { // Up to three octal digits: a byte.
      unsigned Byte = 0, Digits = 0;
      for (; Digits < 3 && I < Rest.size() && Rest[I] >= '0' && Rest[I] <= '7'; ++Digits)
        Byte = Byte * 8 + (Rest[I++] - '0');
      --I;
      Path += static_cast<char>(Byte);
      continue;
    }
    switch (E) {
    case 'n': Path += '\n'; break;
    case 't': Path += '\t'; break;
    case 'r': Path += '\r'; break;
    case 'a': Path += '\a'; break;
    case 'b': Path += '\b'; break;
    case 'f': Path += '\f'; break;
    case 'v': Path += '\v'; break;
    default: Path += E; break; // \" and \\.
    }
  }
  return Path;
}

/// "@@ -a,b +c,d @@": the new side's first line c (d is counted by the
/// hunk's lines themselves).
std::optional<unsigned> hunkStart(llvm::StringRef Line) {
  llvm::StringRef Rest = Line.drop_front(2).ltrim();
  if (!Rest.consume_front("-"))
    return std::nullopt;
  Rest = Rest.drop_until([](char C) { return C == ' '; }).ltrim();
  if (!Rest.consume_front("+"))
    return std::nullopt;
  unsigned Start;
  llvm::StringRef Number = Rest.take_while([](char C) { return C >= '0' && C <= '9'; });
  if (Number.getAsInteger(10, Start))
    return std::nullopt;
  return Start;
}

} // namespace

llvm::Expected<ChangedLines> parseUnifiedDiff(llvm::StringRef Patch, llvm::StringRef Root) {
  ChangedLines Changed;
  llvm::SmallVector<llvm::StringRef, 0> Lines;
  Patch.split(Lines, '\n');
  std::string OldPath;
  std::set<unsigned> *Current = nullptr;
  unsigned NewLine = 0;
  bool InHunk = false, InFile = false;
  for (size_t I = 0; I < Lines.size(); ++I) {
    llvm::StringRef Line = Lines[I];
    Line.consume_back("\r");
    if (Line.starts_with("--- ") && I + 1 < Lines.size() && Lines[I + 1].starts_with("+++ ")) {
      OldPath = headerPath(Line.drop_front(4));
      std::string NewPath = headerPath(Lines[++I].drop_front(4).rtrim("\r"));
      InHunk = false;
      InFile = true;
      Current = nullptr;
      if (NewPath == "/dev/null")
        continue; // A deleted file: nothing of it is left to judge.
      // git's prefixes, when both sides carry them.
      if ((OldPath == "/dev/null" || llvm::StringRef(OldPath).starts_with("a/")) &&
          llvm::StringRef(NewPath).starts_with("b/"))
        NewPath = NewPath.substr(2);
      llvm::SmallString<256> Full(NewPath);
      if (!llvm::sys::path::is_absolute(Full)) {
        Full = Root;
        llvm::sys::path::append(Full, NewPath);
      }
      std::string Path = normalisedPath(Full);
      if (!llvm::sys::fs::is_regular_file(Path))
        return diffError("the diff names '" + NewPath + "', which is not a file under '" + Root +
                         "' (is the diff of another directory, or made with other path "
                         "prefixes?)");
      Current = &Changed.Files[Path];
      continue;
    }
    if (Line.starts_with("@@ ")) {
      std::optional<unsigned> Start = hunkStart(Line);
      if (!InFile || !Start)
        return diffError("line " + llvm::Twine(I + 1) + " of the diff: '" + Line +
                         "' is not a hunk header of a file's unified diff");
      NewLine = *Start;
      InHunk = true;
      continue;
    }
    if (!InHunk)
      continue; // "diff --git", "index", "new file mode", "rename from"...
    if (Line.starts_with("+")) {
      if (Current)
        Current->insert(NewLine);
      ++NewLine;
    } else if (Line.starts_with(" ")) {
      ++NewLine;
    } else if (!Line.starts_with("-") && !Line.starts_with("\\")) {
      InHunk = false; // The hunk is over (the next file's header, or the end).
    }
  }
  return Changed;
}

llvm::Expected<std::string> gitDiff(llvm::StringRef Revision, llvm::StringRef Directory) {
  llvm::ErrorOr<std::string> Git = llvm::sys::findProgramByName("git");
  if (!Git)
    return diffError("--diff needs git, which is not on PATH (use --diff-file with a patch)");
  llvm::SmallString<128> Out, Err;
  int OutFD, ErrFD;
  if (llvm::sys::fs::createTemporaryFile("dmalint-diff", "out", OutFD, Out) ||
      llvm::sys::fs::createTemporaryFile("dmalint-diff", "err", ErrFD, Err))
    return diffError("cannot create a temporary file for git's output");
  llvm::sys::Process::SafelyCloseFileDescriptor(OutFD);
  llvm::sys::Process::SafelyCloseFileDescriptor(ErrFD);
  // Our own prefixes and no external diff or colour, whatever the user's
  // git configuration says; --relative: paths relative to Directory.
  std::vector<llvm::StringRef> Args = {*Git,      "-C",           Directory,
                                       "-c",      "core.quotePath=false",
                                       "diff",    "-U0",          "--no-color",
                                       "--no-ext-diff", "--src-prefix=a/", "--dst-prefix=b/",
                                       "--relative", Revision,   "--"};
  std::optional<llvm::StringRef> Redirects[] = {std::nullopt, llvm::StringRef(Out),
                                                llvm::StringRef(Err)};
  std::string ExecError;
  int Status = llvm::sys::ExecuteAndWait(*Git, Args, std::nullopt, Redirects, 0, 0, &ExecError);
  auto Read = [](llvm::StringRef Path) {
    auto Buffer = llvm::MemoryBuffer::getFile(Path);
    return Buffer ? (*Buffer)->getBuffer().str() : std::string();
  };
  std::string Diff = Read(Out), Message = llvm::StringRef(Read(Err)).trim().str();
  llvm::sys::fs::remove(Out);
  llvm::sys::fs::remove(Err);
  if (Status != 0)
    return diffError("'git diff " + Revision + "' in '" + Directory + "' failed: " +
                     (Message.empty() ? ExecError : Message));
  return Diff;
}

namespace {

/// Preprocesses a translation unit and records every file it entered.
class IncludesAction : public PreprocessOnlyAction {
public:
  explicit IncludesAction(std::vector<std::string> &Entered) : Entered(Entered) {}
  void EndSourceFileAction() override {
    SourceManager &SM = getCompilerInstance().getSourceManager();
    for (auto It = SM.fileinfo_begin(); It != SM.fileinfo_end(); ++It) {
      llvm::SmallString<256> Name(It->first.getName());
      SM.getFileManager().makeAbsolutePath(Name);
      Entered.push_back(normalisedPath(Name));
    }
  }

private:
  std::vector<std::string> &Entered;
};

class IncludesActionFactory : public tooling::FrontendActionFactory {
public:
  explicit IncludesActionFactory(std::vector<std::string> &Entered) : Entered(Entered) {}
  std::unique_ptr<FrontendAction> create() override {
    return std::make_unique<IncludesAction>(Entered);
  }

private:
  std::vector<std::string> &Entered;
};

} // namespace

std::vector<std::string> affectedFiles(const tooling::CompilationDatabase &Compilations,
                                       const std::vector<std::string> &Files,
                                       const std::vector<std::string> &Changed, unsigned Jobs) {
  llvm::StringSet<> ChangedSet;
  for (const std::string &Path : Changed)
    ChangedSet.insert(Path);
  std::vector<char> Affected(Files.size(), 0);
  std::vector<size_t> ToScan;
  for (size_t I = 0; I < Files.size(); ++I) {
    if (ChangedSet.contains(normalisedPath(Files[I])))
      Affected[I] = 1;
    else
      ToScan.push_back(I);
  }
  // Only a changed file that no translation unit is can be included.
  bool OtherChanges = llvm::any_of(Changed, [&](const std::string &Path) {
    return llvm::none_of(Files, [&](const std::string &F) { return normalisedPath(F) == Path; });
  });
  if (OtherChanges) {
    runInParallel(ToScan.size(), Jobs, [&](size_t N) {
      size_t I = ToScan[N];
      // A file system of its own, as each run has (Run.cpp).
      llvm::IntrusiveRefCntPtr<llvm::vfs::FileSystem> FS(
          llvm::vfs::createPhysicalFileSystem().release());
      tooling::ClangTool Tool(Compilations, {Files[I]},
                              std::make_shared<PCHContainerOperations>(), FS);
      IgnoringDiagConsumer Quiet; // Errors show when the file is analysed.
      Tool.setDiagnosticConsumer(&Quiet);
      Tool.setPrintErrorMessage(false);
      std::vector<std::string> Entered;
      IncludesActionFactory Factory(Entered);
      // A file whose includes cannot all be found is analysed: its errors
      // are then reported, never skipped in silence.
      bool Failed = Tool.run(&Factory) != 0;
      if (Failed ||
          llvm::any_of(Entered, [&](const std::string &Path) { return ChangedSet.contains(Path); }))
        Affected[I] = 1;
    });
  }
  std::vector<std::string> Result;
  for (size_t I = 0; I < Files.size(); ++I)
    if (Affected[I])
      Result.push_back(Files[I]);
  return Result;
}

} // namespace dmalint::tool
