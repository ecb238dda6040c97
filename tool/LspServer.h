//===- LspServer.h - dmalint --lsp: findings in the editor as you type -*- C++ -*-===//
//
// A Language Server Protocol (3.17) server over stdio, the third front end
// over the same findings as the standalone's text and SARIF writers. The
// message thread reads and answers messages; one analysis thread analyses
// the latest version of each changed document (debounced), over the
// editor's unsaved buffers, and publishes its findings unless a newer
// version arrived meanwhile. Runs beside clangd: it offers diagnostics and
// their quick fixes, nothing else.
//
//===----------------------------------------------------------------------===//
#ifndef DMALINT_TOOL_LSPSERVER_H
#define DMALINT_TOOL_LSPSERVER_H

#include "clang-tidy/ClangTidyOptions.h"
#include <string>
#include <vector>

namespace dmalint::lsp {

struct ServerOptions {
  /// Where compile_commands.json is (empty: searched for as clangd does).
  std::string CompileCommandsDir;
  /// The flags of a file no compilation database covers.
  std::vector<std::string> FallbackFlags;
  /// --checks, as in the standalone.
  clang::tidy::ClangTidyOptions Overrides;
  /// A check's documentation URL, "{check}" standing for its name.
  std::string CheckDocUrl;
  /// How long a document must be left unchanged before it is analysed.
  unsigned DebounceMs = 50;
  /// Keep each document's parsed #include block between analyses.
  bool UsePreamble = true;
  /// The program's name, for stack traces of a crash.
  std::string Argv0 = "dmalint";
};

/// Serves one client on \p InFd / \p OutFd until it sends `exit` or closes
/// the input. Returns the process's exit status: 0 after `shutdown`, else 1
/// (LSP 3.17).
int runServer(const ServerOptions &Options, int InFd, int OutFd);

} // namespace dmalint::lsp

#endif
