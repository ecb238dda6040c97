//===- LspPreamble.h - Parsed headers kept between analyses -*- C++ -*-===//
//
// While a kernel is edited its #include block rarely changes, yet parsing
// what it includes (the kernel API, the standard library) is much of a run.
// As clangd does, the language server compiles a file's preamble (the
// directives at its top) into a precompiled header, and later analyses parse
// only the rest of the file. A preamble is used only while the preamble text,
// the command and every header it read are unchanged (an edited header,
// saved or in an open buffer, makes it stale).
//
// A stale or missing preamble is not built in the analysis that finds it so:
// that analysis parses the whole file (as a fresh run would), and the new
// preamble is built afterwards on the store's own thread, for the next one.
// So editing the #include block, or opening a file, costs no more than a
// fresh run, and no analysis waits for a preamble.
//
//===----------------------------------------------------------------------===//
#ifndef DMALINT_TOOL_LSPPREAMBLE_H
#define DMALINT_TOOL_LSPPREAMBLE_H

#include "clang/Frontend/CompilerInvocation.h"
#include "clang/Frontend/PrecompiledPreamble.h"
#include "llvm/Support/thread.h"
#include <condition_variable>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

namespace clang {
class FileManager;
class PCHContainerOperations;
} // namespace clang

namespace dmalint::lsp {

class PreambleStore {
public:
  /// What prepare() did.
  enum class Outcome {
    None,     ///< The file has no preamble (nothing before its code).
    Reused,   ///< The stored preamble is used.
    Deferred, ///< None fits: the whole file is parsed; one is built when idle.
  };

  /// \p Built is called (on the store's thread) after each preamble build
  /// with the file, whether it could be built (one with compiler errors is
  /// not kept) and the seconds it took.
  explicit PreambleStore(std::function<void(const std::string &File, bool Built, double Seconds)>
                             Built);
  /// Waits for the build in progress, if any, and drops every preamble.
  ~PreambleStore();

  /// Sets \p Invocation up to use the preamble of its main file, read
  /// through \p Files, when the stored one fits; otherwise leaves it as it is
  /// (the whole file is parsed) and remembers what to build a preamble from.
  Outcome prepare(clang::CompilerInvocation &Invocation, clang::FileManager &Files,
                  std::shared_ptr<clang::PCHContainerOperations> PCHContainerOps);

  /// Drops the preamble of \p Path (its document was closed).
  void forget(const std::string &Path);

  /// Brackets an analysis: no preamble build starts while one runs, so that
  /// the analysis that asked for a preamble publishes first.
  void analysisStarted();
  void analysisFinished();

private:
  struct Stored {
    std::vector<std::string> Command; ///< The -cc1 command it was built for.
    std::shared_ptr<clang::PrecompiledPreamble> Preamble;
  };
  /// What a preamble is to be built from: the invocation and file system of
  /// the analysis that found none.
  struct Request {
    std::shared_ptr<clang::CompilerInvocation> Invocation;
    std::vector<std::string> Command;
    std::unique_ptr<llvm::MemoryBuffer> MainBuffer;
    clang::PreambleBounds Bounds{0, false};
    llvm::IntrusiveRefCntPtr<llvm::vfs::FileSystem> VFS;
    std::shared_ptr<clang::PCHContainerOperations> PCH;
  };
  /// The builder thread: builds what prepare() asked for, newest last.
  void build();

  std::function<void(const std::string &, bool, double)> Built;
  std::mutex Mutex;
  std::condition_variable Wake;
  bool Stopping = false;
  bool Analysing = false;
  std::map<std::string, Stored> ByFile;
  std::map<std::string, Request> Pending;
  std::set<std::string> Wanted; ///< Files whose preamble may be kept.
  /// The preamble of the run in progress, alive (with its file) until the
  /// next prepare() even if forgotten meanwhile. Analyses run one at a time.
  std::shared_ptr<clang::PrecompiledPreamble> InUse;
  llvm::thread Builder; // Last: started when everything above exists.
};

} // namespace dmalint::lsp

#endif
