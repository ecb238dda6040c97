//===- LspPreamble.cpp - Parsed headers kept between analyses -------------===//
#include "LspPreamble.h"
#include "clang/Basic/Version.h"
#include "clang/Basic/FileManager.h"
#include "clang/Basic/Stack.h"
#include "clang/Frontend/CompilerInstance.h"
#include "clang/Frontend/FrontendOptions.h"
#include "clang/Lex/PreprocessorOptions.h"
#include "llvm/Support/CrashRecoveryContext.h"
#include <chrono>
#include <optional>

using namespace clang;

namespace dmalint::lsp {

PreambleStore::PreambleStore(
    std::function<void(const std::string &File, bool Built, double Seconds)> Built)
    : Built(std::move(Built)),
      Builder(std::optional<unsigned>(clang::DesiredStackSize), [this] { build(); }) {}

PreambleStore::~PreambleStore() {
  {
    std::lock_guard<std::mutex> Lock(Mutex);
    Stopping = true;
  }
  Wake.notify_all();
  Builder.join();
}

PreambleStore::Outcome PreambleStore::prepare(CompilerInvocation &Invocation, FileManager &Files,
                                              std::shared_ptr<PCHContainerOperations> PCH) {
  std::lock_guard<std::mutex> Lock(Mutex);
  InUse.reset();
  if (Invocation.getFrontendOpts().Inputs.size() != 1 ||
      !Invocation.getFrontendOpts().Inputs[0].isFile())
    return Outcome::None;
  std::string MainFile = Invocation.getFrontendOpts().Inputs[0].getFile().str();
  IntrusiveRefCntPtr<llvm::vfs::FileSystem> VFS = Files.getVirtualFileSystemPtr();
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> Buffer = VFS->getBufferForFile(MainFile);
  if (!Buffer)
    return Outcome::None;
  PreambleBounds Bounds =
      ComputePreambleBounds(Invocation.getLangOpts(), (*Buffer)->getMemBufferRef(), 0);
  if (Bounds.Size == 0)
    return Outcome::None;
  Wanted.insert(MainFile);

  std::vector<std::string> Command = Invocation.getCC1CommandLine();
  auto It = ByFile.find(MainFile);
  if (It != ByFile.end() && It->second.Command == Command &&
      It->second.Preamble->CanReuse(Invocation, (*Buffer)->getMemBufferRef(), Bounds, *VFS)) {
    Pending.erase(MainFile);
    InUse = It->second.Preamble;
    // The invocation's remapped-file list takes the buffer (and frees it).
    InUse->AddImplicitPreamble(Invocation, VFS, Buffer->release());
    return Outcome::Reused;
  }
  if (It != ByFile.end())
    ByFile.erase(It); // Stale: its file goes now.
  Request &R = Pending[MainFile];
  R.Invocation = std::make_shared<CompilerInvocation>(Invocation);
  R.Command = std::move(Command);
  R.MainBuffer = std::move(*Buffer);
  R.Bounds = Bounds;
  R.VFS = VFS;
  R.PCH = std::move(PCH);
  Wake.notify_all();
  return Outcome::Deferred;
}

void PreambleStore::build() {
  clang::noteBottomOfStack();
  std::unique_lock<std::mutex> Lock(Mutex);
  while (!Stopping) {
    if (Pending.empty() || Analysing) {
      Wake.wait(Lock);
      continue;
    }
    std::string File = Pending.begin()->first;
    Request R = std::move(Pending.begin()->second);
    Pending.erase(Pending.begin());
    Lock.unlock();
    auto Started = std::chrono::steady_clock::now();
    // A run with a preamble does not see the compiler's diagnostics of the
    // code in it: a preamble with errors is not kept, so that the whole file
    // is parsed and its errors are seen (dmalint judges only code that
    // compiles).
    IgnoringDiagConsumer Ignore;
#if CLANG_VERSION_MAJOR >= 22
    // The engine keeps a reference to its options: they outlive it here.
    DiagnosticOptions DiagOpts;
    IntrusiveRefCntPtr<DiagnosticsEngine> Diags =
        CompilerInstance::createDiagnostics(*R.VFS, DiagOpts, &Ignore, false);
#else
    IntrusiveRefCntPtr<DiagnosticsEngine> Diags =
        CompilerInstance::createDiagnostics(new DiagnosticOptions, &Ignore, false);
#endif
    PreambleCallbacks Callbacks;
    std::optional<llvm::ErrorOr<PrecompiledPreamble>> Preamble;
    // As an analysis: a crash in the compiler costs this preamble, not the
    // session.
    llvm::CrashRecoveryContext Recovery;
    bool Survived = Recovery.RunSafely([&] {
      Preamble.emplace(PrecompiledPreamble::Build(*R.Invocation, R.MainBuffer.get(), R.Bounds,
#if CLANG_VERSION_MAJOR >= 22
                                                  Diags,
#else
                                                  *Diags,
#endif
                                                  R.VFS, R.PCH, /*StoreInMemory=*/false,
                                                  /*StoragePath=*/"", Callbacks));
    });
    bool Usable = Survived && Preamble && *Preamble && !Diags->hasErrorOccurred();
    double Seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - Started).count();
    Lock.lock();
    // Kept unless the document was closed, or a newer request replaced it.
    if (Usable && Wanted.count(File) && !Pending.count(File))
      ByFile[File] = Stored{std::move(R.Command),
                            std::make_shared<PrecompiledPreamble>(std::move(**Preamble))};
    if (Built)
      Built(File, Usable, Seconds);
  }
}

void PreambleStore::analysisStarted() {
  std::lock_guard<std::mutex> Lock(Mutex);
  Analysing = true;
}

void PreambleStore::analysisFinished() {
  {
    std::lock_guard<std::mutex> Lock(Mutex);
    Analysing = false;
  }
  Wake.notify_all();
}

void PreambleStore::forget(const std::string &Path) {
  std::lock_guard<std::mutex> Lock(Mutex);
  ByFile.erase(Path);
  Pending.erase(Path);
  Wanted.erase(Path);
}

} // namespace dmalint::lsp
