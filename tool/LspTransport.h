//===- LspTransport.h - JSON-RPC messages framed by Content-Length -*- C++ -*-===//
//
// The base protocol of LSP: each message is a header block ("Content-Length:
// N", optionally "Content-Type: ...", each line ended by "\r\n", then an empty
// line) followed by exactly N bytes of JSON. Reading never trusts the peer: a
// header block without a usable Content-Length, a body larger than the limit,
// or an end of input in the middle of a message is reported, and reading
// resumes at the next "Content-Length:" header instead of guessing.
//
//===----------------------------------------------------------------------===//
#ifndef DMALINT_TOOL_LSPTRANSPORT_H
#define DMALINT_TOOL_LSPTRANSPORT_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/JSON.h"
#include <cstddef>
#include <mutex>
#include <string>

namespace dmalint::lsp {

class Transport {
public:
  /// Reads from \p InFd and writes to \p OutFd (not owned).
  Transport(int InFd, int OutFd, size_t MaxMessageBytes = 256u << 20);

  enum class ReadResult {
    Message,  ///< A whole body is in the out-parameter.
    BadFrame, ///< A frame could not be read; the out-parameter says why.
    End,      ///< End of input (or a read error) between messages.
  };
  /// Reads the next message body, or why there is none. Called from one
  /// thread only.
  ReadResult read(std::string &BodyOrProblem);

  /// Frames and writes \p Message; safe to call from any thread. Returns
  /// false once the peer is gone (the write failed).
  bool write(const llvm::json::Value &Message);

private:
  /// Fills the buffer with more input; false at the end of input.
  bool fill();
  /// Takes one header line (without its line ending) from the buffer.
  bool readLine(std::string &Line);
  /// After a bad frame: drops input up to the next "Content-Length:".
  void resynchronise();

  int InFd;
  int OutFd;
  size_t MaxMessageBytes;
  std::string Buffer; ///< Read but not yet consumed input.
  size_t Consumed = 0;
  bool AtEnd = false;
  std::mutex WriteMutex;
  bool PeerGone = false;
};

} // namespace dmalint::lsp

#endif
