//===- LspTransport.cpp - JSON-RPC messages framed by Content-Length ------===//
#include "LspTransport.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/raw_ostream.h"
#include <cerrno>
#include <unistd.h>

namespace dmalint::lsp {

namespace {
constexpr size_t ReadChunk = 64 * 1024;
/// A header line longer than this is not a header: the peer is not speaking
/// the base protocol (or the framing was lost).
constexpr size_t MaxHeaderLine = 64 * 1024;
constexpr llvm::StringLiteral LengthHeader = "Content-Length:";
} // namespace

Transport::Transport(int InFd, int OutFd, size_t MaxMessageBytes)
    : InFd(InFd), OutFd(OutFd), MaxMessageBytes(MaxMessageBytes) {}

bool Transport::fill() {
  if (AtEnd)
    return false;
  // Drop what was consumed once it is most of the buffer.
  if (Consumed > ReadChunk && Consumed * 2 > Buffer.size()) {
    Buffer.erase(0, Consumed);
    Consumed = 0;
  }
  char Chunk[ReadChunk];
  for (;;) {
    ssize_t N = ::read(InFd, Chunk, sizeof(Chunk));
    if (N > 0) {
      Buffer.append(Chunk, static_cast<size_t>(N));
      return true;
    }
    if (N < 0 && errno == EINTR)
      continue;
    AtEnd = true; // End of input, or an error reading it: either way, no more.
    return false;
  }
}

bool Transport::readLine(std::string &Line) {
  for (;;) {
    size_t NewLine = Buffer.find('\n', Consumed);
    if (NewLine != std::string::npos) {
      Line.assign(Buffer, Consumed, NewLine - Consumed);
      if (!Line.empty() && Line.back() == '\r')
        Line.pop_back();
      Consumed = NewLine + 1;
      return true;
    }
    if (Buffer.size() - Consumed > MaxHeaderLine) {
      Line.assign(Buffer, Consumed, MaxHeaderLine);
      Consumed += MaxHeaderLine;
      return true; // Reported as a line too long to be a header.
    }
    if (!fill())
      return false;
  }
}

void Transport::resynchronise() {
  for (;;) {
    size_t At = Buffer.find(LengthHeader.data(), Consumed, LengthHeader.size());
    if (At != std::string::npos) {
      Consumed = At;
      return;
    }
    // Keep a tail that may be the start of the header.
    if (Buffer.size() - Consumed > LengthHeader.size())
      Consumed = Buffer.size() - LengthHeader.size();
    if (!fill())
      return;
  }
}

Transport::ReadResult Transport::read(std::string &BodyOrProblem) {
  std::optional<size_t> Length;
  std::string Problem;
  bool SawHeader = false;
  std::string Line;
  for (;;) {
    if (!readLine(Line)) {
      if (!SawHeader && Buffer.size() == Consumed)
        return ReadResult::End;
      Consumed = Buffer.size();
      BodyOrProblem = "the input ended inside a message's header";
      return ReadResult::BadFrame;
    }
    if (Line.empty()) {
      if (!SawHeader)
        continue; // Blank lines between messages are harmless.
      break;
    }
    SawHeader = true;
    if (Line.size() >= MaxHeaderLine) {
      Problem = "a header line is longer than " + std::to_string(MaxHeaderLine) + " bytes";
      continue;
    }
    llvm::StringRef Name, Value;
    std::tie(Name, Value) = llvm::StringRef(Line).split(':');
    if (Value.data() == nullptr || Name.size() == Line.size()) {
      Problem = "'" + llvm::StringRef(Line).take_front(80).str() +
                "' is not a header line (Name: value)";
      continue;
    }
    if (!Name.trim().equals_insensitive("Content-Length"))
      continue; // Content-Type, or anything else: nothing dmalint needs.
    unsigned long long N;
    if (Value.trim().getAsInteger(10, N)) {
      Problem = "Content-Length '" + Value.trim().take_front(40).str() +
                "' is not a number of bytes";
      continue;
    }
    Length = static_cast<size_t>(N);
  }
  if (Problem.empty() && !Length)
    Problem = "a message header has no Content-Length";
  if (!Problem.empty()) {
    resynchronise();
    BodyOrProblem = Problem + "; skipped to the next Content-Length header";
    return ReadResult::BadFrame;
  }
  if (*Length > MaxMessageBytes) {
    // Skip the body without holding it.
    size_t Left = *Length;
    while (Left) {
      if (Buffer.size() == Consumed && !fill())
        break;
      size_t Take = std::min(Left, Buffer.size() - Consumed);
      Consumed += Take;
      Left -= Take;
    }
    BodyOrProblem = "a message of " + std::to_string(*Length) +
                    " bytes is larger than the limit of " + std::to_string(MaxMessageBytes) +
                    " bytes; skipped";
    return ReadResult::BadFrame;
  }
  while (Buffer.size() - Consumed < *Length) {
    if (!fill()) {
      size_t Got = Buffer.size() - Consumed;
      Consumed = Buffer.size();
      BodyOrProblem = "the input ended after " + std::to_string(Got) + " of the " +
                      std::to_string(*Length) + " bytes its Content-Length announced";
      return ReadResult::BadFrame;
    }
  }
  BodyOrProblem.assign(Buffer, Consumed, *Length);
  Consumed += *Length;
  return ReadResult::Message;
}

bool Transport::write(const llvm::json::Value &Message) {
  std::string Body;
  llvm::raw_string_ostream(Body) << Message;
  std::string Frame = "Content-Length: " + std::to_string(Body.size()) + "\r\n\r\n" + Body;
  std::lock_guard<std::mutex> Lock(WriteMutex);
  if (PeerGone)
    return false;
  const char *At = Frame.data();
  size_t Left = Frame.size();
  while (Left) {
    ssize_t N = ::write(OutFd, At, Left);
    if (N < 0 && errno == EINTR)
      continue;
    if (N <= 0) {
      PeerGone = true;
      return false;
    }
    At += N;
    Left -= static_cast<size_t>(N);
  }
  return true;
}

} // namespace dmalint::lsp
