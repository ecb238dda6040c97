"""A small LSP client for the tests: starts a language server, speaks JSON-RPC
with Content-Length framing over its stdin/stdout, and keeps every message the
server sent, in order, so a test can wait for one and later check what else
arrived. Standard library only.

Waits take a timeout that only guards against a hang (a server that never
answers fails the test instead of stalling the suite); no test asserts how
fast anything is (bench/lsp_latency.py measures that).
"""

import json
import os
import subprocess
import threading
import time
import urllib.parse
import urllib.request

# Generous: under AddressSanitizer a large translation unit takes several
# times longer than in a release build.
DEFAULT_TIMEOUT = float(os.environ.get("LSP_TEST_TIMEOUT", "180"))


def uri_of(path):
    return "file://" + urllib.parse.quote(os.path.abspath(path))


def path_of(uri):
    assert uri.startswith("file://"), uri
    return urllib.request.url2pathname(urllib.parse.urlparse(uri).path)


def frame(body_bytes):
    return b"Content-Length: %d\r\n\r\n" % len(body_bytes) + body_bytes


class ServerExited(Exception):
    pass


class LspClient:
    def __init__(self, argv, cwd=None, env=None):
        self.argv = argv
        self.proc = subprocess.Popen(argv, cwd=cwd, env=env, stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        self.history = []  # Every message received, in order.
        self._unclaimed = []  # Received and not yet returned by wait_for.
        self._cond = threading.Condition()
        self._eof = False
        self.stderr_lines = []
        self._next_id = 1
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()
        self._stderr = threading.Thread(target=self._read_stderr, daemon=True)
        self._stderr.start()

    # -- the wire ---------------------------------------------------------
    def _read(self):
        out = self.proc.stdout
        try:
            while True:
                length = None
                while True:
                    line = out.readline()
                    if not line:
                        return
                    line = line.rstrip(b"\r\n")
                    if not line:
                        break
                    name, _, value = line.partition(b":")
                    if name.strip().lower() == b"content-length":
                        length = int(value.strip())
                if length is None:
                    raise AssertionError("the server sent a header block without Content-Length")
                body = out.read(length)
                if len(body) < length:
                    return
                message = json.loads(body.decode("utf-8"))
                with self._cond:
                    self.history.append(message)
                    self._unclaimed.append(message)
                    self._cond.notify_all()
        finally:
            with self._cond:
                self._eof = True
                self._cond.notify_all()

    def _read_stderr(self):
        for line in self.proc.stderr:
            self.stderr_lines.append(line.decode("utf-8", "replace").rstrip("\n"))

    def send_raw(self, data):
        self.proc.stdin.write(data)
        self.proc.stdin.flush()

    def send(self, message):
        self.send_raw(frame(json.dumps(message).encode("utf-8")))

    def notify(self, method, params=None):
        message = {"jsonrpc": "2.0", "method": method}
        if params is not None:
            message["params"] = params
        self.send(message)

    def request(self, method, params=None):
        """Sends a request and returns its id (wait with response())."""
        rid = self._next_id
        self._next_id += 1
        message = {"jsonrpc": "2.0", "id": rid, "method": method}
        if params is not None:
            message["params"] = params
        self.send(message)
        return rid

    # -- waiting ----------------------------------------------------------
    def wait_for(self, predicate, what, timeout=DEFAULT_TIMEOUT):
        """The first unclaimed message for which predicate is true (claimed)."""
        deadline = time.monotonic() + timeout
        with self._cond:
            while True:
                for i, m in enumerate(self._unclaimed):
                    if predicate(m):
                        return self._unclaimed.pop(i)
                if self._eof:
                    raise ServerExited("the server closed its output while the test waited "
                                       "for %s; its stderr:\n%s" % (what, self.stderr_text()))
                left = deadline - time.monotonic()
                if left <= 0:
                    raise AssertionError("no %s within %.0f s (the server hangs?); its stderr:\n%s"
                                         % (what, timeout, self.stderr_text()))
                self._cond.wait(left)

    def response(self, rid, timeout=DEFAULT_TIMEOUT):
        return self.wait_for(lambda m: m.get("id") == rid and "method" not in m,
                             "the response to request %r" % rid, timeout)

    def call(self, method, params=None, timeout=DEFAULT_TIMEOUT):
        """A request's result; fails the test on an error response."""
        r = self.response(self.request(method, params), timeout)
        if "error" in r:
            raise AssertionError("%s failed: %r" % (method, r["error"]))
        return r.get("result")

    def notification(self, method, predicate=lambda p: True, timeout=DEFAULT_TIMEOUT):
        m = self.wait_for(lambda m: m.get("method") == method and "id" not in m
                          and predicate(m.get("params")), "a %s notification" % method, timeout)
        return m["params"]

    def diagnostics(self, uri, version, timeout=DEFAULT_TIMEOUT):
        """The diagnostics published for that version of the document."""
        return self.notification(
            "textDocument/publishDiagnostics",
            lambda p: p["uri"] == uri and p.get("version") == version,
            timeout)["diagnostics"]

    def sent(self, method):
        """Every notification of `method` received so far."""
        with self._cond:
            return [m["params"] for m in self.history
                    if m.get("method") == method and "id" not in m]

    def stderr_text(self):
        return "\n".join(self.stderr_lines[-60:])

    # -- the session ------------------------------------------------------
    def initialize(self, capabilities=None, initialization_options=None, root=None):
        params = {"processId": os.getpid(), "capabilities": capabilities or {},
                  "rootUri": uri_of(root) if root else None}
        if initialization_options is not None:
            params["initializationOptions"] = initialization_options
        result = self.call("initialize", params)
        self.notify("initialized", {})
        return result

    def open(self, path, text=None, version=1, language="cpp"):
        if text is None:
            with open(path, encoding="utf-8") as f:
                text = f.read()
        uri = uri_of(path)
        self.notify("textDocument/didOpen", {"textDocument": {
            "uri": uri, "languageId": language, "version": version, "text": text}})
        return uri

    def change(self, uri, version, changes):
        self.notify("textDocument/didChange", {
            "textDocument": {"uri": uri, "version": version}, "contentChanges": changes})

    def shutdown_and_exit(self, timeout=DEFAULT_TIMEOUT):
        """shutdown, exit; returns the server's exit status."""
        self.call("shutdown")
        self.notify("exit")
        return self.wait(timeout)

    def wait(self, timeout=DEFAULT_TIMEOUT):
        try:
            status = self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.kill()
            raise AssertionError("the server did not exit within %.0f s" % timeout)
        # The process has exited, so its pipes are at end of file; the reader
        # threads may still be draining them. Without this join a test that
        # looks at stderr_lines right after wait() races the reader (seen in
        # CI: the server's last line had been written but not yet read).
        self._reader.join(timeout)
        self._stderr.join(timeout)
        return status

    def kill(self):
        """Ends the server if it still runs, and releases its pipes."""
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        self._reader.join(10)
        self._stderr.join(10)
        for pipe in (self.proc.stdin, self.proc.stdout, self.proc.stderr):
            try:
                pipe.close()
            except OSError:
                pass  # stdin: the server is gone, unflushed input with it.

    def rss_kib(self):
        """The server's resident memory now (Linux)."""
        with open("/proc/%d/status" % self.proc.pid) as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
        raise AssertionError("no VmRSS for the server")


def apply_edits(text, edits, encoding="utf-16"):
    """The text after LSP TextEdits (all against the same original text)."""
    starts = line_starts(text)

    def offset(pos):
        line = pos["line"]
        if line >= len(starts):
            return len(text)
        start = starts[line]
        end = starts[line + 1] if line + 1 < len(starts) else len(text)
        content = text[start:end].rstrip("\r\n")
        return start + chars_for_units(content, pos["character"], encoding)

    spans = sorted(((offset(e["range"]["start"]), offset(e["range"]["end"]), e["newText"])
                    for e in edits), key=lambda s: (s[0], s[1]))
    out, at = [], 0
    for start, end, new in spans:
        assert start >= at, "overlapping edits"
        out.append(text[at:start])
        out.append(new)
        at = end
    out.append(text[at:])
    return "".join(out)


def line_starts(text):
    starts = [0]
    i = 0
    while i < len(text):
        c = text[i]
        if c == "\n" or (c == "\r" and (i + 1 == len(text) or text[i + 1] != "\n")):
            starts.append(i + 1)
        i += 1
    return starts


def units(ch, encoding):
    if encoding == "utf-8":
        return len(ch.encode("utf-8"))
    if encoding == "utf-16":
        return 2 if ord(ch) > 0xFFFF else 1
    return 1


def chars_for_units(line, count, encoding):
    n = 0
    for i, ch in enumerate(line):
        u = units(ch, encoding)
        if n + u > count:
            return i
        n += u
    return len(line)


def position_of(text, index, encoding="utf-16"):
    """The LSP position of the character at Python index `index` of text."""
    starts = line_starts(text)
    line = max(i for i, s in enumerate(starts) if s <= index)
    return {"line": line,
            "character": sum(units(c, encoding) for c in text[starts[line]:index])}
