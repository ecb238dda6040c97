//===- LspServer.cpp - dmalint --lsp: findings in the editor as you type --===//
#include "LspServer.h"
#include "Findings.h"
#include "LspCompileCommands.h"
#include "LspDocuments.h"
#include "LspFindings.h"
#include "LspPreamble.h"
#include "LspTransport.h"
#include "Paths.h"
#include "Run.h"
#include "clang/Basic/Stack.h"
#include "clang/Driver/Types.h"
#include "llvm/ADT/Hashing.h"
#include "llvm/Support/CrashRecoveryContext.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Signals.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Support/thread.h"
#include <chrono>
#include <condition_variable>
#include <csignal>
#include <map>
#include <mutex>
#include <set>
#include <unistd.h>

using namespace clang;
namespace json = llvm::json;
using Clock = std::chrono::steady_clock;

namespace dmalint::lsp {

namespace {

/// LSP's MessageType.
enum class MessageType { Error = 1, Warning = 2, Info = 3, Log = 4 };

/// An error to send back as a JSON-RPC error response.
struct RpcError {
  int Code;
  std::string Message;
};

// The parameters of the messages dmalint reads (only the fields it uses).
struct TextDocumentItem {
  std::string Uri, LanguageId, Text;
  int64_t Version = 0;
};
bool fromJSON(const json::Value &V, TextDocumentItem &Out, json::Path P) {
  json::ObjectMapper O(V, P);
  return O && O.map("uri", Out.Uri) && O.map("languageId", Out.LanguageId) &&
         O.map("version", Out.Version) && O.map("text", Out.Text);
}
struct DocumentId {
  std::string Uri;
  std::optional<int64_t> Version;
};
bool fromJSON(const json::Value &V, DocumentId &Out, json::Path P) {
  json::ObjectMapper O(V, P);
  return O && O.map("uri", Out.Uri) && O.mapOptional("version", Out.Version);
}
/// The params of a notification about one document, of which dmalint reads
/// only the document (didOpen: the whole item; didSave, didClose: its id).
template <typename Document> struct DocumentParams {
  Document TextDocument;
};
template <typename Document>
bool fromJSON(const json::Value &V, DocumentParams<Document> &Out, json::Path P) {
  json::ObjectMapper O(V, P);
  return O && O.map("textDocument", Out.TextDocument);
}
struct DidChangeParams {
  DocumentId TextDocument;
  std::vector<TextChange> ContentChanges;
};
bool fromJSON(const json::Value &V, DidChangeParams &Out, json::Path P) {
  json::ObjectMapper O(V, P);
  if (!O || !O.map("textDocument", Out.TextDocument) ||
      !O.map("contentChanges", Out.ContentChanges))
    return false;
  if (!Out.TextDocument.Version) {
    P.field("textDocument").field("version").report("expected a version");
    return false;
  }
  return true;
}
struct CodeActionParams {
  DocumentId TextDocument;
  Range Where;
  std::optional<std::vector<std::string>> Only;
};
bool fromJSON(const json::Value &V, CodeActionParams &Out, json::Path P) {
  json::ObjectMapper O(V, P);
  if (!O || !O.map("textDocument", Out.TextDocument) || !O.map("range", Out.Where))
    return false;
  if (const json::Value *Context = V.getAsObject()->get("context")) {
    json::ObjectMapper C(*Context, P.field("context"));
    return C && C.mapOptional("only", Out.Only);
  }
  return true;
}

/// The settings dmalint takes from initializationOptions and
/// workspace/didChangeConfiguration: {"dmalint": {...}} or the object itself.
struct Settings {
  std::optional<std::string> Checks;
  std::optional<std::string> CompileCommandsDir;
  std::optional<std::vector<std::string>> FallbackFlags;
};
bool fromJSON(const json::Value &V, Settings &Out, json::Path P) {
  const json::Object *Object = V.getAsObject();
  if (!Object) {
    P.report("expected an object");
    return false;
  }
  if (const json::Value *Own = Object->get("dmalint"))
    return fromJSON(*Own, Out, P.field("dmalint"));
  json::ObjectMapper O(V, P);
  return O.mapOptional("checks", Out.Checks) &&
         O.mapOptional("compileCommandsDir", Out.CompileCommandsDir) &&
         O.mapOptional("fallbackFlags", Out.FallbackFlags);
}

template <typename T> llvm::Expected<T> parseParams(const json::Value *Params, llvm::StringRef Method) {
  T Out;
  if (!Params)
    return llvm::createStringError(llvm::inconvertibleErrorCode(), "%s has no params",
                                   Method.str().c_str());
  json::Path::Root Root("params");
  if (fromJSON(*Params, Out, Root))
    return std::move(Out);
  std::string Message;
  llvm::raw_string_ostream OS(Message);
  OS << "invalid params of " << Method << ": " << llvm::toString(Root.getError());
  return llvm::createStringError(llvm::inconvertibleErrorCode(), Message);
}

/// The languages dmalint compiles (LSP language identifiers).
/// Whether a document is C-family code: by its languageId when that is one
/// of LSP's, else (clients name languages as they please: eglot says "c++",
/// after c++-mode) by its file name's extension, as clang's driver reads it.
bool analysable(llvm::StringRef LanguageId, llvm::StringRef Path) {
  if (llvm::is_contained({"cpp", "c", "cuda-cpp", "objective-c", "objective-cpp"}, LanguageId))
    return true;
  llvm::StringRef Extension = llvm::sys::path::extension(Path);
  if (Extension.empty())
    return false;
  driver::types::ID Type = driver::types::lookupTypeForExtension(Extension.drop_front());
  return Type != driver::types::TY_INVALID &&
         (driver::types::isCXX(Type) || driver::types::isObjC(Type) ||
          llvm::is_contained({driver::types::TY_C, driver::types::TY_CHeader}, Type));
}

bool isConfigurationFile(llvm::StringRef Path) {
  llvm::StringRef Name = llvm::sys::path::filename(Path);
  if (Name == ".clang-tidy")
    return true;
  for (llvm::StringRef DatabaseFile : CompileCommandFinder::databaseFileNames())
    if (Name == llvm::sys::path::filename(DatabaseFile))
      return true;
  return false;
}

std::string commandText(const std::vector<std::string> &Flags) {
  std::string Text = "clang++";
  for (const std::string &Flag : Flags)
    Text += " " + Flag;
  return Text;
}

/// What one analysis found, rendered for the version it read.
struct Analysed {
  int64_t Version = 0;
  std::vector<RenderedFinding> Findings;
};

class Server {
public:
  Server(Transport &Wire, const ServerOptions &Options)
      : Wire(Wire), Options(Options), Commands(Options.CompileCommandsDir, Options.FallbackFlags),
        Preambles([this](const std::string &File, bool Built, double Seconds) {
          // Called with the store's lock held: only the transport is touched.
          log(MessageType::Log,
              Built ? llvm::formatv("built the preamble of {0} in {1:f3} s", File, Seconds).str()
                    : "no preamble for " + File +
                          ": its #include block does not compile; it is parsed whole");
        }) {
    Render.CheckDocUrl = Options.CheckDocUrl;
  }

  int run();

private:
  // The message thread.
  /// Handles one message; false for `exit`.
  bool dispatch(const std::string &Body);
  void onRequest(llvm::StringRef Method, const json::Value &Id, const json::Value *Params);
  void onNotification(llvm::StringRef Method, const json::Value *Params);
  llvm::Expected<json::Value> initialize(const json::Value *Params);
  void codeAction(const json::Value &Id, const json::Value *Params);
  void didOpen(const json::Value *Params);
  void didChange(const json::Value *Params);
  void didSave(const json::Value *Params);
  void didClose(const json::Value *Params);
  void applySettings(const json::Value &Value, llvm::StringRef From);

  // Either thread; the ones that touch state need Mutex held.
  void reply(const json::Value &Id, json::Value Result);
  void replyError(const json::Value &Id, int Code, const std::string &Message);
  void notify(llvm::StringRef Method, json::Value Params);
  void log(MessageType Type, const std::string &Message);
  void showMessage(MessageType Type, const std::string &Message);
  void schedule(const std::string &Uri, Clock::duration Delay);
  void scheduleAll(Clock::duration Delay, llvm::StringRef Except = "");
  void answerCodeActions(const std::string &Uri);

  // The analysis thread.
  void work();
  void analyse(const std::string &Uri, std::unique_lock<std::mutex> &Lock);

  Transport &Wire;
  ServerOptions Options;
  CompileCommandFinder Commands;
  PreambleStore Preambles;

  bool Initialized = false;
  bool ShutdownRequested = false;
  PositionEncoding Encoding = PositionEncoding::UTF16;
  bool WatchFilesDynamically = false;

  std::mutex Mutex; // Everything below.
  std::condition_variable Wake;
  bool Stopping = false;
  RenderOptions Render;
  DocumentStore Documents;
  std::map<std::string, Clock::time_point> Due; ///< Documents to analyse, by URI.
  std::map<std::string, Analysed> Results;      ///< By URI, for the version analysed.
  struct PendingCodeAction {
    json::Value Id;
    std::string Uri;
    Range Where;
  };
  std::vector<PendingCodeAction> PendingCodeActions;
  std::set<std::string> ToldOnce; ///< What showMessage said, not to say again.
};

void Server::reply(const json::Value &Id, json::Value Result) {
  Wire.write(json::Object{{"jsonrpc", "2.0"}, {"id", Id}, {"result", std::move(Result)}});
}

void Server::replyError(const json::Value &Id, int Code, const std::string &Message) {
  Wire.write(json::Object{{"jsonrpc", "2.0"},
                          {"id", Id},
                          {"error", json::Object{{"code", Code}, {"message", jsonText(Message)}}}});
}

void Server::notify(llvm::StringRef Method, json::Value Params) {
  Wire.write(json::Object{{"jsonrpc", "2.0"}, {"method", Method}, {"params", std::move(Params)}});
}

void Server::log(MessageType Type, const std::string &Message) {
  llvm::errs() << "dmalint: " << Message << "\n";
  notify("window/logMessage",
         json::Object{{"type", static_cast<int>(Type)}, {"message", jsonText(Message)}});
}

void Server::showMessage(MessageType Type, const std::string &Message) {
  llvm::errs() << "dmalint: " << Message << "\n";
  notify("window/showMessage",
         json::Object{{"type", static_cast<int>(Type)}, {"message", jsonText(Message)}});
}

int Server::run() {
  llvm::thread Worker(std::optional<unsigned>(clang::DesiredStackSize), [this] { work(); });
  std::string Body;
  for (;;) {
    Transport::ReadResult Got = Wire.read(Body);
    if (Got == Transport::ReadResult::End)
      break;
    if (Got == Transport::ReadResult::BadFrame) {
      log(MessageType::Error, "bad message from the client: " + Body);
      continue;
    }
    if (!dispatch(Body))
      break;
  }
  {
    std::lock_guard<std::mutex> Lock(Mutex);
    Stopping = true;
  }
  Wake.notify_all();
  // The analysis in progress, if any, finishes first (the preambles' files
  // are removed when the store goes, after the build in progress).
  Worker.join();
  return ShutdownRequested ? 0 : 1;
}

bool Server::dispatch(const std::string &Body) {
  llvm::Expected<json::Value> Message = json::parse(Body);
  if (!Message) {
    std::string Why = llvm::toString(Message.takeError());
    log(MessageType::Error, "a message is not JSON: " + Why);
    replyError(nullptr, ParseError, "the message is not valid JSON: " + Why);
    return true;
  }
  const json::Object *Object = Message->getAsObject();
  if (!Object) {
    replyError(nullptr, InvalidRequest,
               "a JSON-RPC message is an object (batches are not part of LSP)");
    return true;
  }
  const json::Value *Id = Object->get("id");
  if (Id && Id->kind() != json::Value::Number && Id->kind() != json::Value::String) {
    replyError(nullptr, InvalidRequest, "a request's id is a number or a string");
    return true;
  }
  std::optional<llvm::StringRef> Method = Object->getString("method");
  if (!Method) {
    if (Id && (Object->get("result") || Object->get("error"))) {
      // The client's answer to one of dmalint's requests (registerCapability).
      if (const json::Object *Error = Object->getObject("error"))
        log(MessageType::Warning, "the client refused a request: " +
                                      Error->getString("message").value_or("").str());
      return true;
    }
    replyError(Id ? *Id : json::Value(nullptr), InvalidRequest,
               "a message has no method (and is no response)");
    return true;
  }
  if (*Method == "exit" && !Id)
    return false;
  const json::Value *Params = Object->get("params");
  if (Id)
    onRequest(*Method, *Id, Params);
  else
    onNotification(*Method, Params);
  return true;
}

void Server::onRequest(llvm::StringRef Method, const json::Value &Id, const json::Value *Params) {
  if (Method == "initialize") {
    if (Initialized)
      return replyError(Id, InvalidRequest, "initialize was already received");
    llvm::Expected<json::Value> Result = initialize(Params);
    if (!Result)
      return replyError(Id, InvalidParams, llvm::toString(Result.takeError()));
    Initialized = true;
    return reply(Id, std::move(*Result));
  }
  if (!Initialized)
    return replyError(Id, ServerNotInitialized,
                      "'" + Method.str() + "' before initialize: the server is not initialized");
  if (ShutdownRequested)
    return replyError(Id, InvalidRequest,
                      "'" + Method.str() + "' after shutdown: the server is shutting down");
  if (Method == "shutdown") {
    ShutdownRequested = true;
    return reply(Id, nullptr);
  }
  if (Method == "textDocument/codeAction")
    return codeAction(Id, Params);
  replyError(Id, MethodNotFound, "dmalint does not handle '" + Method.str() + "'");
}

void Server::onNotification(llvm::StringRef Method, const json::Value *Params) {
  if (!Initialized || ShutdownRequested) {
    log(MessageType::Log, "ignored '" + Method.str() + "': " +
                              (Initialized ? "after shutdown" : "before initialize"));
    return;
  }
  if (Method == "initialized") {
    if (WatchFilesDynamically) {
      json::Array Watchers;
      for (llvm::StringRef Name : {".clang-tidy", "compile_commands.json", "compile_flags.txt"})
        Watchers.push_back(json::Object{{"globPattern", ("**/" + Name).str()}});
      Wire.write(json::Object{
          {"jsonrpc", "2.0"},
          {"id", "dmalint-watch-configuration"},
          {"method", "client/registerCapability"},
          {"params",
           json::Object{{"registrations",
                         json::Array{json::Object{
                             {"id", "dmalint-configuration-files"},
                             {"method", "workspace/didChangeWatchedFiles"},
                             {"registerOptions", json::Object{{"watchers", std::move(Watchers)}}}}}}}}});
    }
    return;
  }
  if (Method == "textDocument/didOpen")
    return didOpen(Params);
  if (Method == "textDocument/didChange")
    return didChange(Params);
  if (Method == "textDocument/didSave")
    return didSave(Params);
  if (Method == "textDocument/didClose")
    return didClose(Params);
  if (Method == "workspace/didChangeConfiguration") {
    if (const json::Object *O = Params ? Params->getAsObject() : nullptr)
      if (const json::Value *S = O->get("settings"); S && S->kind() == json::Value::Object)
        applySettings(*S, "workspace/didChangeConfiguration");
    // Whatever the settings, .clang-tidy and the databases are read again.
    std::lock_guard<std::mutex> Lock(Mutex);
    return scheduleAll(Clock::duration::zero());
  }
  if (Method == "workspace/didChangeWatchedFiles") {
    log(MessageType::Log, "configuration files changed: analysing the open documents again");
    std::lock_guard<std::mutex> Lock(Mutex);
    return scheduleAll(Clock::duration::zero());
  }
  if (Method == "$/cancelRequest") {
    const json::Object *O = Params ? Params->getAsObject() : nullptr;
    const json::Value *Id = O ? O->get("id") : nullptr;
    if (!Id)
      return log(MessageType::Warning, "$/cancelRequest without an id");
    std::lock_guard<std::mutex> Lock(Mutex);
    for (auto It = PendingCodeActions.begin(); It != PendingCodeActions.end(); ++It) {
      if (It->Id == *Id) {
        replyError(It->Id, RequestCancelled, "the request was cancelled");
        PendingCodeActions.erase(It);
        return;
      }
    }
    return; // Already answered: nothing to cancel.
  }
  // $/setTrace, $/progress and anything else: nothing for dmalint to do.
}

llvm::Expected<json::Value> Server::initialize(const json::Value *Params) {
  const json::Object *P = Params ? Params->getAsObject() : nullptr;
  if (!P)
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "initialize needs its params object");
  const json::Object *Capabilities = P->getObject("capabilities");
  auto capability = [&](std::initializer_list<llvm::StringRef> Path) -> const json::Value * {
    const json::Object *At = Capabilities;
    const json::Value *Value = nullptr;
    for (llvm::StringRef Key : Path) {
      if (!At)
        return nullptr;
      Value = At->get(Key);
      At = Value ? Value->getAsObject() : nullptr;
    }
    return Value;
  };
  auto enabled = [&](std::initializer_list<llvm::StringRef> Path) {
    const json::Value *V = capability(Path);
    return V && V->getAsBoolean().value_or(false);
  };
  // Positions: UTF-8 if the client can (what dmalint's texts are), else
  // UTF-32, else UTF-16, LSP's default. Also clangd's offsetEncoding
  // extension, which clients older than LSP 3.17 send.
  auto choose = [&](const json::Value *Offered) -> std::optional<PositionEncoding> {
    const json::Array *List = Offered ? Offered->getAsArray() : nullptr;
    if (!List)
      return std::nullopt;
    std::optional<PositionEncoding> Best;
    for (const json::Value &Name : *List)
      if (auto E = encodingNamed(Name.getAsString().value_or("")))
        if (!Best || *E == PositionEncoding::UTF8 ||
            (*E == PositionEncoding::UTF32 && *Best == PositionEncoding::UTF16))
          Best = E;
    return Best.value_or(PositionEncoding::UTF16);
  };
  std::optional<PositionEncoding> Standard = choose(capability({"general", "positionEncodings"}));
  std::optional<PositionEncoding> Extension = choose(capability({"offsetEncoding"}));
  Encoding = Standard ? *Standard : Extension ? *Extension : PositionEncoding::UTF16;
  WatchFilesDynamically = enabled({"workspace", "didChangeWatchedFiles", "dynamicRegistration"});
  {
    std::lock_guard<std::mutex> Lock(Mutex);
    Render.Encoding = Encoding;
    Render.DocumentChanges = enabled({"workspace", "workspaceEdit", "documentChanges"});
    const json::Value *Related =
        capability({"textDocument", "publishDiagnostics", "relatedInformation"});
    Render.RelatedInformation = !Related || Related->getAsBoolean().value_or(false);
  }
  if (const json::Value *Init = P->get("initializationOptions");
      Init && Init->kind() == json::Value::Object)
    applySettings(*Init, "initializationOptions");

  json::Object ServerCapabilities{
      {"textDocumentSync", json::Object{{"openClose", true},
                                        {"change", 2}, // Incremental.
                                        {"save", json::Object{{"includeText", false}}}}},
      {"codeActionProvider", json::Object{{"codeActionKinds", json::Array{"quickfix"}}}},
  };
  if (Standard)
    ServerCapabilities["positionEncoding"] = encodingName(Encoding);
  json::Object Result{
      {"capabilities", std::move(ServerCapabilities)},
      {"serverInfo", json::Object{{"name", "dmalint"}, {"version", DMALINT_VERSION}}},
  };
  if (Extension && !Standard)
    Result["offsetEncoding"] = encodingName(Encoding);
  return json::Value(std::move(Result));
}

void Server::applySettings(const json::Value &Value, llvm::StringRef From) {
  json::Path::Root Root(From);
  Settings S;
  if (!fromJSON(Value, S, Root)) {
    showMessage(MessageType::Error, "dmalint: ignored the settings of " + From.str() + ": " +
                                        llvm::toString(Root.getError()));
    return;
  }
  if (S.CompileCommandsDir)
    Commands.setCompileCommandsDir(*S.CompileCommandsDir);
  if (S.FallbackFlags)
    Commands.setFallbackFlags(*S.FallbackFlags);
  std::lock_guard<std::mutex> Lock(Mutex);
  if (S.Checks) {
    if (S.Checks->empty())
      Options.Overrides.Checks.reset();
    else
      Options.Overrides.Checks = *S.Checks;
  }
  if (S.FallbackFlags) { // The flags named in the fallback messages changed.
    for (auto It = ToldOnce.begin(); It != ToldOnce.end();)
      It = llvm::StringRef(*It).starts_with("fallback ") ? ToldOnce.erase(It) : std::next(It);
  }
}

void Server::schedule(const std::string &Uri, Clock::duration Delay) {
  const Document *D = Documents.find(Uri);
  if (!D)
    return;
  if (!analysable(D->LanguageId, D->Path)) {
    // Nothing to analyse: answered at once, with nothing.
    Results[Uri] = Analysed{D->Version, {}};
    return answerCodeActions(Uri);
  }
  Clock::time_point When = Clock::now() + Delay;
  auto [It, New] = Due.try_emplace(Uri, When);
  if (!New)
    It->second = When; // A newer change restarts the wait.
  Wake.notify_all();
}

void Server::scheduleAll(Clock::duration Delay, llvm::StringRef Except) {
  for (const std::string &Uri : Documents.uris())
    if (Uri != Except)
      schedule(Uri, Delay);
}

void Server::didOpen(const json::Value *Params) {
  auto P = parseParams<DocumentParams<TextDocumentItem>>(Params, "textDocument/didOpen");
  if (!P)
    return log(MessageType::Error, llvm::toString(P.takeError()));
  const TextDocumentItem &Item = P->TextDocument;
  std::lock_guard<std::mutex> Lock(Mutex);
  if (llvm::Error Err = Documents.open(Item.Uri, Item.LanguageId, Item.Version, Item.Text))
    return log(MessageType::Error, "not analysing an opened document: " +
                                       llvm::toString(std::move(Err)));
  Results.erase(Item.Uri);
  if (const Document *D = Documents.find(Item.Uri); D && !analysable(D->LanguageId, D->Path))
    log(MessageType::Log, "not analysing " + Item.Uri + ": neither its language '" +
                              Item.LanguageId + "' nor its file name is C or C++");
  schedule(Item.Uri, Clock::duration::zero());
}

void Server::didChange(const json::Value *Params) {
  auto P = parseParams<DidChangeParams>(Params, "textDocument/didChange");
  if (!P)
    return log(MessageType::Error, llvm::toString(P.takeError()));
  std::lock_guard<std::mutex> Lock(Mutex);
  if (llvm::Error Err = Documents.change(P->TextDocument.Uri, *P->TextDocument.Version,
                                         P->ContentChanges, Encoding))
    return log(MessageType::Error, llvm::toString(std::move(Err)));
  schedule(P->TextDocument.Uri, std::chrono::milliseconds(Options.DebounceMs));
}

void Server::didSave(const json::Value *Params) {
  auto P = parseParams<DocumentParams<DocumentId>>(Params, "textDocument/didSave");
  if (!P)
    return log(MessageType::Error, llvm::toString(P.takeError()));
  llvm::Expected<std::string> Path = pathFromUri(P->TextDocument.Uri);
  if (!Path)
    return log(MessageType::Error, llvm::toString(Path.takeError()));
  std::lock_guard<std::mutex> Lock(Mutex);
  // A saved configuration file changes every analysis; a saved source may
  // be a header that the other open documents include (each was analysed
  // with its unsaved text already).
  scheduleAll(Clock::duration::zero(), isConfigurationFile(*Path) ? "" : P->TextDocument.Uri);
}

void Server::didClose(const json::Value *Params) {
  auto P = parseParams<DocumentParams<DocumentId>>(Params, "textDocument/didClose");
  if (!P)
    return log(MessageType::Error, llvm::toString(P.takeError()));
  const std::string &Uri = P->TextDocument.Uri;
  std::lock_guard<std::mutex> Lock(Mutex);
  std::string Path;
  if (const Document *D = Documents.find(Uri))
    Path = tool::normalisedPath(D->Path);
  if (!Documents.close(Uri))
    return log(MessageType::Warning, "didClose for '" + Uri + "', which is not open");
  Due.erase(Uri);
  Results.erase(Uri);
  answerCodeActions(Uri);
  Preambles.forget(Path);
  // The editor keeps what was published last: clear it.
  notify("textDocument/publishDiagnostics",
         json::Object{{"uri", Uri}, {"diagnostics", json::Array()}});
}

void Server::codeAction(const json::Value &Id, const json::Value *Params) {
  auto P = parseParams<CodeActionParams>(Params, "textDocument/codeAction");
  if (!P)
    return replyError(Id, InvalidParams, llvm::toString(P.takeError()));
  // Kinds are hierarchical: "quickfix" is asked for by "quickfix" (or "").
  if (P->Only && llvm::none_of(*P->Only, [](const std::string &Kind) {
        return Kind.empty() || Kind == "quickfix";
      }))
    return reply(Id, json::Array());
  std::lock_guard<std::mutex> Lock(Mutex);
  PendingCodeActions.push_back({Id, P->TextDocument.Uri, P->Where});
  // Answered now if the document's current version is analysed, else when
  // it is (so that the fixes are those of the text the client has).
  answerCodeActions(P->TextDocument.Uri);
}

void Server::answerCodeActions(const std::string &Uri) {
  const Document *D = Documents.find(Uri);
  auto R = Results.find(Uri);
  bool Ready = !D || (R != Results.end() && R->second.Version == D->Version);
  if (!Ready)
    return;
  llvm::erase_if(PendingCodeActions, [&](const PendingCodeAction &Pending) {
    if (Pending.Uri != Uri)
      return false;
    reply(Pending.Id, D ? codeActions(R->second.Findings, Pending.Where) : json::Array());
    return true;
  });
}

void Server::work() {
  clang::noteBottomOfStack();
  std::unique_lock<std::mutex> Lock(Mutex);
  while (!Stopping) {
    auto Next = std::min_element(Due.begin(), Due.end(), [](const auto &A, const auto &B) {
      return A.second < B.second;
    });
    if (Next == Due.end()) {
      Wake.wait(Lock);
      continue;
    }
    if (Clock::time_point When = Next->second; When > Clock::now()) {
      // A copy: while this thread waits the entry may go (didClose).
      Wake.wait_until(Lock, When);
      continue;
    }
    std::string Uri = Next->first;
    Due.erase(Next);
    analyse(Uri, Lock);
  }
}

/// The number of findings of \p Kind in \p Findings, and the first.
std::pair<unsigned, const tool::Finding *> count(llvm::ArrayRef<tool::Finding> Findings,
                                                 tool::FindingKind Kind) {
  unsigned Count = 0;
  const tool::Finding *First = nullptr;
  for (const tool::Finding &F : Findings)
    if (F.Kind == Kind && !Count++)
      First = &F;
  return {Count, First};
}

void Server::analyse(const std::string &Uri, std::unique_lock<std::mutex> &Lock) {
  const Document *D = Documents.find(Uri);
  if (!D)
    return;
  // What the analysis reads: every open document as it is now.
  Snapshot Open;
  for (const std::string &Other : Documents.uris()) {
    const Document *O = Documents.find(Other);
    Open[tool::normalisedPath(O->Path)] = DocumentSnapshot{O->Uri, O->Version, O->Text};
  }
  const std::string Path = tool::normalisedPath(D->Path);
  const int64_t Version = D->Version;
  const tidy::ClangTidyOptions Overrides = Options.Overrides;
  const RenderOptions Rendering = Render;
  log(MessageType::Log, llvm::formatv("analysing {0} version {1}", Uri, Version).str());
  Lock.unlock();

  auto Started = Clock::now();
  FoundCommand Command = Commands.commandFor(Path);
  auto Memory = llvm::makeIntrusiveRefCnt<llvm::vfs::InMemoryFileSystem>();
  tool::SourceCache Sources; // The findings are resolved against what was read.
  for (const auto &[OpenPath, Document] : Open) {
    // The time stamp is the text's hash: a preamble that read this buffer
    // is used again only while it holds the same text.
    time_t Stamp = static_cast<time_t>(llvm::hash_value(Document.Text) & 0x3fffffff);
    Memory->addFile(OpenPath, Stamp,
                    llvm::MemoryBuffer::getMemBufferCopy(Document.Text, OpenPath));
    Sources.setText(OpenPath, Document.Text);
  }
  tool::RunHooks Hooks;
  Hooks.Overlay = Memory;
  Hooks.Identities = false; // No fingerprints: the editor shows findings where they are.
  PreambleStore::Outcome Preamble = PreambleStore::Outcome::None;
  if (Options.UsePreamble)
    Hooks.PrepareInvocation = [&](CompilerInvocation &Invocation, FileManager &Files,
                                  std::shared_ptr<PCHContainerOperations> PCH) {
      Preamble = Preambles.prepare(Invocation, Files, std::move(PCH));
    };
  std::vector<tool::TranslationUnitResult> Run(1);
  bool Survived = true;
  if (Command.Database) {
    Preambles.analysisStarted();
    llvm::CrashRecoveryContext Recovery;
    Survived = Recovery.RunSafely(
        [&] { Run[0] = tool::runChecksOnFile(*Command.Database, Path, Overrides, Hooks); });
    Preambles.analysisFinished();
  }
  tool::SourceRoot Root(llvm::sys::path::parent_path(Path));
  std::vector<tool::Finding> Findings =
      Survived && Command.Database ? tool::resolveFindings(std::move(Run), Sources, Root)
                                   : std::vector<tool::Finding>();
  std::vector<RenderedFinding> Rendered =
      renderFindings(Findings, Path, Open, Sources, Rendering);
  double Seconds = std::chrono::duration<double>(Clock::now() - Started).count();

  Lock.lock();
  // What needs saying once: no database, a database's unusable entries, a
  // broken configuration, a crash.
  if (Command.Source.How == CommandSource::Fallback && ToldOnce.insert("fallback " + Path).second)
    showMessage(MessageType::Warning,
                "dmalint: no compile command for " + Path + " (" + Command.Source.Problem +
                    "); analysing it with the fallback flags '" +
                    commandText(Commands.fallbackFlags()) +
                    "'. Generate compile_commands.json (cmake "
                    "-DCMAKE_EXPORT_COMPILE_COMMANDS=ON), or start dmalint with "
                    "--compile-commands-dir=DIR or with the flags after '--'.");
  for (const std::string &Entry : Command.RejectedEntries)
    if (ToldOnce.insert(Entry).second)
      showMessage(MessageType::Warning, "dmalint: " + Entry);
  if (Command.Source.How == CommandSource::Rejected &&
      ToldOnce.insert("rejected " + Path).second)
    showMessage(MessageType::Error, "dmalint: not analysing " + Path + ": " +
                                        Command.Source.Problem + " (see above)");
  if (!Survived)
    showMessage(MessageType::Error,
                "dmalint: the analysis of " + Path + " crashed; no finding is shown for it");
  auto [ConfigErrors, FirstConfigError] = count(Findings, tool::FindingKind::ConfigurationError);
  if (ConfigErrors && ToldOnce.insert(FirstConfigError->Primary.Text).second)
    showMessage(MessageType::Error, "dmalint: configuration error: " +
                                        FirstConfigError->Primary.Text +
                                        " (no check runs with a broken configuration)");
  auto [Uncompilable, FirstError] = count(Findings, tool::FindingKind::CompilerError);

  D = Documents.find(Uri);
  if (!D || D->Version != Version) {
    log(MessageType::Log,
        llvm::formatv("dropped the findings of {0} version {1}: {2}", Uri, Version,
                      D ? llvm::formatv("version {0} arrived meanwhile", D->Version).str()
                        : std::string("it was closed"))
            .str());
    return;
  }
  if (Uncompilable) {
    log(MessageType::Info,
        llvm::formatv("{0} version {1} does not compile ({2} compiler error{3}, the first: "
                      "{4}{5}); dmalint shows no finding until it does",
                      Path, Version, Uncompilable, Uncompilable == 1 ? "" : "s",
                      textLocation(FirstError->Primary), FirstError->Primary.Text)
            .str());
    Rendered.clear();
  }
  // Which database the command came from, for a user whose editor shows an
  // unexpected result.
  std::string From = Command.Source.How == CommandSource::Database
                         ? "from the database " + Command.Source.DatabaseFile
                     : Command.Source.How == CommandSource::Interpolated
                         ? "interpolated command from " + Command.Source.DatabaseFile
                     : Command.Source.How == CommandSource::Fallback ? "fallback flags"
                                                                     : "no command";
  log(MessageType::Log,
      llvm::formatv("analysed {0} version {1} in {2:f3} s ({3}; {4}): {5} finding{6}", Uri,
                    Version, Seconds,
                    Preamble == PreambleStore::Outcome::Reused     ? "preamble reused"
                    : Preamble == PreambleStore::Outcome::Deferred ? "whole file parsed"
                                                                   : "no preamble",
                    From, Rendered.size(), Rendered.size() == 1 ? "" : "s")
          .str());
  json::Array Diagnostics;
  for (const RenderedFinding &F : Rendered)
    Diagnostics.push_back(json::Object(F.Diagnostic));
  notify("textDocument/publishDiagnostics",
         json::Object{{"uri", Uri}, {"version", Version}, {"diagnostics", std::move(Diagnostics)}});
  Results[Uri] = Analysed{Version, std::move(Rendered)};
  answerCodeActions(Uri);
}

} // namespace

int runServer(const ServerOptions &Options, int InFd, int OutFd) {
  // A client that goes away must not kill the server in the middle of a write.
  std::signal(SIGPIPE, SIG_IGN);
  // LLVM's signal handlers, registered here on the main thread: a crash
  // outside an analysis prints a stack trace into the editor's log. (The
  // first registration also sets up LLVM's alternate signal stack for the
  // thread that makes it; made on the preamble thread instead, as removing
  // a preamble's temporary file on a signal would, that stack would be freed
  // with a thread it was not made for.)
  llvm::sys::PrintStackTraceOnErrorSignal(Options.Argv0);
  llvm::CrashRecoveryContext::Enable();
  Transport Wire(InFd, OutFd);
  Server S(Wire, Options);
  return S.run();
}

} // namespace dmalint::lsp
