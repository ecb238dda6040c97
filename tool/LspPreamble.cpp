//===- LspPreamble.cpp - Parsed headers kept between analyses -------------===//
#include "LspPreamble.h"
#include "clang/Basic/FileManager.h"
#include "clang/Frontend/CompilerInstance.h"
#include "clang/Frontend/FrontendOptions.h"
#include "clang/Lex/PreprocessorOptions.h"

using namespace clang;

namespace dmalint::lsp {

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

  std::vector<std::string> Command = Invocation.getCC1CommandLine();
  Stored &Entry = ByFile[MainFile];
  Outcome Result = Outcome::Reused;
  if (!Entry.Preamble || Entry.Command != Command ||
      !Entry.Preamble->CanReuse(Invocation, (*Buffer)->getMemBufferRef(), Bounds, *VFS)) {
    Entry.Preamble.reset();
    // A run with a preamble does not see the compiler's diagnostics of the
    // code in it: a preamble with errors is not used, so that the whole file
    // is parsed and the errors are seen (dmalint judges only code that
    // compiles).
    IgnoringDiagConsumer Ignore;
    IntrusiveRefCntPtr<DiagnosticsEngine> Diags =
        CompilerInstance::createDiagnostics(new DiagnosticOptions, &Ignore, false);
    PreambleCallbacks Callbacks;
    llvm::ErrorOr<PrecompiledPreamble> Built = PrecompiledPreamble::Build(
        Invocation, Buffer->get(), Bounds, *Diags, VFS, PCH, /*StoreInMemory=*/false,
        /*StoragePath=*/"", Callbacks);
    if (!Built || Diags->hasErrorOccurred()) {
      ByFile.erase(MainFile);
      return Outcome::None;
    }
    Entry.Preamble = std::make_shared<PrecompiledPreamble>(std::move(*Built));
    Entry.Command = std::move(Command);
    Result = Outcome::Built;
  }
  InUse = Entry.Preamble;
  // The invocation's remapped-file list takes the buffer (and frees it).
  InUse->AddImplicitPreamble(Invocation, VFS, Buffer->release());
  return Result;
}

void PreambleStore::forget(const std::string &Path) {
  std::lock_guard<std::mutex> Lock(Mutex);
  ByFile.erase(Path);
}

void PreambleStore::clear() {
  std::lock_guard<std::mutex> Lock(Mutex);
  ByFile.clear();
}

} // namespace dmalint::lsp
