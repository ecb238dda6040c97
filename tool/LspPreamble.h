//===- LspPreamble.h - Parsed headers kept between analyses -*- C++ -*-===//
//
// While a kernel is edited its #include block rarely changes, yet parsing
// what it includes (the kernel API, the standard library) is most of a run.
// As clangd does, the language server compiles the file's preamble (the
// directives at its top) once into a precompiled header and parses only the
// rest of the file at each analysis. A preamble is used again only while the
// preamble text, the command and every header it read are unchanged (an
// edited header, saved or in an open buffer, gives a new one).
//
//===----------------------------------------------------------------------===//
#ifndef DMALINT_TOOL_LSPPREAMBLE_H
#define DMALINT_TOOL_LSPPREAMBLE_H

#include "clang/Frontend/CompilerInvocation.h"
#include "clang/Frontend/PrecompiledPreamble.h"
#include <map>
#include <memory>
#include <mutex>
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
    None,    ///< The file has no preamble (nothing before its code), or it failed to build.
    Built,   ///< A new preamble was compiled.
    Reused,  ///< The stored preamble was used.
  };

  /// Sets \p Invocation up to use the preamble of its main file, read
  /// through \p Files: the stored one when it still fits, else a new one.
  /// When no preamble can be built, \p Invocation is left as it is (and the
  /// whole file is parsed).
  Outcome prepare(clang::CompilerInvocation &Invocation, clang::FileManager &Files,
                  std::shared_ptr<clang::PCHContainerOperations> PCHContainerOps);

  /// Drops the preamble of \p Path (its document was closed).
  void forget(const std::string &Path);

  /// Drops every preamble.
  void clear();

private:
  struct Stored {
    std::vector<std::string> Command; ///< The -cc1 command it was built for.
    std::shared_ptr<clang::PrecompiledPreamble> Preamble;
  };
  std::mutex Mutex;
  std::map<std::string, Stored> ByFile;
  /// The preamble of the run in progress, alive (with its file) until the
  /// next prepare() even if forgotten meanwhile. Analyses run one at a time.
  std::shared_ptr<clang::PrecompiledPreamble> InUse;
};

} // namespace dmalint::lsp

#endif
