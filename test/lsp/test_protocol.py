"""The language server's base protocol and lifecycle: what a client sends that
is wrong (bad frames, malformed JSON, unknown methods, requests before
initialize or after shutdown, bad params) is answered with an LSP error
response or a log message, and the server goes on serving; exit statuses
follow LSP 3.17. Needs DMALINT (the built binary) in the environment.
"""

import json
import os
import signal
import subprocess
import unittest

import lsp_client
from lsp_client import LspClient, frame

DMALINT = os.environ["DMALINT"]


class ProtocolTest(unittest.TestCase):
    def start(self, *extra):
        client = LspClient([DMALINT, "--lsp", *extra])
        self.addCleanup(client.kill)
        return client

    def error_of(self, client, rid):
        r = client.response(rid)
        self.assertIn("error", r, r)
        return r["error"]

    def assert_alive(self, client):
        """The server still answers a request (and has not crashed)."""
        r = client.response(client.request("textDocument/hover", {}))
        self.assertEqual(r["error"]["code"], -32601, r)

    def test_bad_frames_and_json_get_errors_and_the_server_goes_on(self):
        c = self.start()
        c.initialize()
        # A header block with no Content-Length; its body is skipped up to the
        # next Content-Length header.
        c.send_raw(b"Content-Type: application/json\r\n\r\n{\"id\": 99, \"method\": \"shutdown\"}")
        # A body that is not JSON.
        c.send_raw(frame(b"{\"jsonrpc\": \"2.0\", \"id\": 1,"))
        # JSON that is not a message.
        c.send_raw(frame(b"[1, 2]"))
        c.send_raw(frame(b"{\"jsonrpc\": \"2.0\", \"id\": {\"no\": 1}, \"method\": \"x\"}"))
        c.send_raw(frame(b"{\"jsonrpc\": \"2.0\", \"params\": {}}"))
        errors = [c.wait_for(lambda m: "error" in m, "error response %d" % i)
                  for i in range(4)]
        self.assertEqual([e["error"]["code"] for e in errors], [-32700, -32600, -32600, -32600])
        self.assertTrue(all(e["id"] is None for e in errors), errors)
        self.assertIn("not valid JSON", errors[0]["error"]["message"])
        logs = [m["message"] for m in c.sent("window/logMessage")]
        self.assertTrue(any("no Content-Length" in m for m in logs), logs)
        # The skipped body's "shutdown" was not taken for a request.
        self.assert_alive(c)
        self.assertEqual(c.shutdown_and_exit(), 0)

    def test_unknown_methods(self):
        c = self.start()
        c.initialize()
        err = self.error_of(c, c.request("textDocument/completion", {}))
        self.assertEqual(err["code"], -32601)
        self.assertIn("textDocument/completion", err["message"])
        self.assertEqual(self.error_of(c, c.request("$/dmalint/unknown"))["code"], -32601)
        c.notify("workspace/didRenameFiles", {"files": []})  # Ignored.
        c.notify("$/setTrace", {"value": "off"})
        self.assert_alive(c)
        self.assertEqual(c.shutdown_and_exit(), 0)

    def test_requests_before_initialize_are_refused(self):
        c = self.start()
        err = self.error_of(c, c.request("textDocument/codeAction", {}))
        self.assertEqual(err["code"], -32002)
        self.assertEqual(self.error_of(c, c.request("shutdown"))["code"], -32002)
        # A notification before initialize is dropped: nothing is analysed.
        c.notify("textDocument/didOpen", {"textDocument": {
            "uri": lsp_client.uri_of("/tmp/never.cc"), "languageId": "cpp", "version": 1,
            "text": "int main() {}"}})
        result = c.initialize()
        self.assertEqual(result["serverInfo"]["name"], "dmalint")
        self.assertEqual(self.error_of(c, c.request("initialize", {"capabilities": {}}))["code"],
                         -32600)
        self.assertEqual(c.sent("textDocument/publishDiagnostics"), [])
        self.assertEqual(c.shutdown_and_exit(), 0)

    def test_invalid_params_are_named(self):
        c = self.start()
        c.initialize()
        err = self.error_of(c, c.request("textDocument/codeAction", {
            "textDocument": {"uri": "file:///x.cc"},
            "range": {"start": {"line": "zero", "character": 0},
                      "end": {"line": 0, "character": 0}}}))
        self.assertEqual(err["code"], -32602)
        self.assertIn("params.range.start.line", err["message"])
        c.notify("textDocument/didOpen", {"textDocument": {"uri": "file:///x.cc"}})
        log = c.notification("window/logMessage", lambda p: "didOpen" in p["message"])
        self.assertEqual(log["type"], 1)
        self.assertIn("languageId", log["message"])
        c.notify("textDocument/didChange", {"textDocument": {"uri": "file:///nothing-open.cc",
                                                             "version": 2},
                                            "contentChanges": [{"text": "x"}]})
        c.notification("window/logMessage", lambda p: "not open" in p["message"])
        # A URI that names no file: reported, nothing analysed.
        c.notify("textDocument/didOpen", {"textDocument": {
            "uri": "untitled:Untitled-1", "languageId": "cpp", "version": 1, "text": "x"}})
        c.notification("window/logMessage", lambda p: "only file: URIs" in p["message"])
        actions = c.call("textDocument/codeAction", {
            "textDocument": {"uri": "untitled:Untitled-1"},
            "range": {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 0}},
            "context": {"diagnostics": []}})
        self.assertEqual(actions, [])
        self.assert_alive(c)
        self.assertEqual(c.shutdown_and_exit(), 0)

    def test_after_shutdown_requests_are_refused_and_exit_is_0(self):
        c = self.start()
        c.initialize()
        self.assertIsNone(c.call("shutdown"))
        err = self.error_of(c, c.request("textDocument/codeAction", {}))
        self.assertEqual(err["code"], -32600)
        self.assertIn("shutting down", err["message"])
        c.notify("exit")
        self.assertEqual(c.wait(), 0)

    def test_exit_without_shutdown_is_1(self):
        c = self.start()
        c.initialize()
        c.notify("exit")
        self.assertEqual(c.wait(), 1)

    def test_end_of_input_ends_the_server(self):
        # Also in the middle of a message: no crash, no hang.
        c = self.start()
        c.initialize()
        c.send_raw(b"Content-Length: 100\r\n\r\n{\"jsonrpc\"")
        c.proc.stdin.close()
        status = c.wait()
        self.assertEqual(status, 1)
        self.assertTrue(any("ended after" in l for l in c.stderr_lines), c.stderr_text())

    def test_a_client_that_goes_away_does_not_kill_the_server_with_sigpipe(self):
        # Nobody reads the server's answers: its writes fail (EPIPE).
        proc = subprocess.Popen([DMALINT, "--lsp"], stdin=subprocess.PIPE,
                                stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        self.addCleanup(lambda: proc.poll() is None and proc.kill())
        proc.stdout.close()
        messages = [{"jsonrpc": "2.0", "id": 1, "method": "initialize",
                     "params": {"capabilities": {}}}]
        messages += [{"jsonrpc": "2.0", "id": 100 + i, "method": "textDocument/hover"}
                     for i in range(50)]
        messages.append({"jsonrpc": "2.0", "method": "exit"})
        proc.stdin.write(b"".join(frame(json.dumps(m).encode()) for m in messages))
        proc.stdin.close()
        status = proc.wait(lsp_client.DEFAULT_TIMEOUT)
        self.assertNotEqual(status, -signal.SIGPIPE)
        self.assertEqual(status, 1)

    def test_position_encoding_negotiation(self):
        cases = [
            ({"general": {"positionEncodings": ["utf-16", "utf-8"]}}, "positionEncoding", "utf-8"),
            ({"general": {"positionEncodings": ["utf-32", "utf-16"]}}, "positionEncoding", "utf-32"),
            ({"general": {"positionEncodings": ["utf-16"]}}, "positionEncoding", "utf-16"),
            # clangd's extension, which clients older than LSP 3.17 send.
            ({"offsetEncoding": ["utf-8", "utf-16"]}, "offsetEncoding", "utf-8"),
            ({}, None, None),
        ]
        for capabilities, field, expected in cases:
            with self.subTest(capabilities=capabilities):
                c = self.start()
                result = c.initialize(capabilities)
                if field == "positionEncoding":
                    self.assertEqual(result["capabilities"]["positionEncoding"], expected)
                elif field == "offsetEncoding":
                    self.assertEqual(result["offsetEncoding"], expected)
                    self.assertNotIn("positionEncoding", result["capabilities"])
                else:
                    self.assertNotIn("positionEncoding", result["capabilities"])
                    self.assertNotIn("offsetEncoding", result)
                sync = result["capabilities"]["textDocumentSync"]
                self.assertEqual(sync["change"], 2)  # Incremental.
                self.assertTrue(sync["openClose"])
                self.assertEqual(result["capabilities"]["codeActionProvider"],
                                 {"codeActionKinds": ["quickfix"]})
                self.assertEqual(c.shutdown_and_exit(), 0)

    def test_file_watchers_are_registered_when_the_client_can(self):
        c = self.start()
        c.initialize({"workspace": {"didChangeWatchedFiles": {"dynamicRegistration": True}}})
        request = c.wait_for(lambda m: m.get("method") == "client/registerCapability",
                             "client/registerCapability")
        registration = request["params"]["registrations"][0]
        self.assertEqual(registration["method"], "workspace/didChangeWatchedFiles")
        globs = [w["globPattern"] for w in registration["registerOptions"]["watchers"]]
        self.assertEqual(sorted(globs), ["**/.clang-tidy", "**/compile_commands.json",
                                         "**/compile_flags.txt"])
        c.send({"jsonrpc": "2.0", "id": request["id"], "result": None})
        self.assert_alive(c)
        self.assertEqual(c.shutdown_and_exit(), 0)


if __name__ == "__main__":
    unittest.main()
