"""Whole editing sessions against `dmalint --lsp`, as a user has them: the
findings of the unsaved buffer as it is typed, the quick fix applied, the
same findings as the standalone, compile commands found (or not) as clangd
finds them, configuration changes, code that does not compile, stale results,
cancellation, and a long session's memory. Needs DMALINT and DMALINT_INCLUDE
(the directory of tpu/dma.h) in the environment.
"""

import json
import os
import shutil
import subprocess
import tempfile
import unittest

import compare_fixture
import lsp_client
from lsp_client import LspClient, apply_edits, position_of

DMALINT = os.environ["DMALINT"]
INCLUDE = os.path.abspath(os.environ["DMALINT_INCLUDE"])
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CORPUS = os.path.join(ROOT, "test", "corpus")
FLAGS = ["-std=c++17", "-I" + INCLUDE]
UTF16 = {"general": {"positionEncodings": ["utf-16"]}}

# A kernel with one definite wait_send on a local copy (which has a fix-it)
# and room to type another bug.
KERNEL = """#include <tpu/dma.h>
using namespace tpu;

void kernel(Ref<float> hbm, Ref<float> vmem, DmaSemaphore sem) {
  AsyncCopyDescriptor staging = make_async_copy(hbm, vmem, sem);
  staging.start();
  staging.wait_send();
  staging.wait_recv();
  // typing here
}
"""


class Project:
    """A directory with sources and, unless told otherwise, a
    compile_commands.json listing them."""

    def __init__(self, test, files, database=True, flags=FLAGS):
        self.dir = os.path.realpath(tempfile.mkdtemp(prefix="dmalint-lsp-"))
        test.addCleanup(shutil.rmtree, self.dir, True)
        self.write(".clang-tidy", "Checks: '-*,dma-*'\n")
        for name, text in files.items():
            self.write(name, text)
        if database:
            self.write_database([n for n in files if n.endswith(".cc")], flags)

    def path(self, name):
        return os.path.join(self.dir, name)

    def write(self, name, text):
        os.makedirs(os.path.dirname(self.path(name)), exist_ok=True)
        with open(self.path(name), "w") as f:
            f.write(text)

    def write_database(self, names, flags, where="compile_commands.json"):
        self.write(where, json.dumps([
            {"directory": self.dir, "file": self.path(n),
             "arguments": ["clang++", *flags, "-c", self.path(n)]} for n in names]))

    def standalone(self, name):
        """The standalone's findings on the file as it is on disk."""
        return compare_fixture.standalone_findings(DMALINT, [self.path(name), "--", *FLAGS],
                                                   self.dir)


class SessionTest(unittest.TestCase):
    def server(self, project, *extra, capabilities=UTF16, options=None, env=None):
        client = LspClient([DMALINT, "--lsp", *extra], cwd=project.dir, env=env)
        self.addCleanup(client.kill)
        client.initialize(capabilities, options, root=project.dir)
        return client

    def messages(self, diagnostics):
        return sorted(d["message"] for d in diagnostics)

    def type_text(self, client, uri, text, at, pieces, first_version, encoding="utf-16"):
        """Types `text` at position `at` in `pieces` incremental changes, as an
        editor sends keystrokes; returns the last version."""
        version = first_version
        line, character = at["line"], at["character"]
        step = max(1, len(text) // pieces)
        for i in range(0, len(text), step):
            chunk = text[i:i + step]
            version += 1
            client.change(uri, version, [{"range": {"start": {"line": line, "character": character},
                                                    "end": {"line": line, "character": character}},
                                          "text": chunk}])
            for ch in chunk:
                if ch == "\n":
                    line, character = line + 1, 0
                else:
                    character += lsp_client.units(ch, encoding)
        return version

    def test_a_whole_editing_session(self):
        name = "ring_all_gather.bug-wait-send-local.cc"
        with open(os.path.join(CORPUS, name)) as f:
            original = f.read()
        p = Project(self, {"kernel.cc": original})
        # UTF-8 positions: columns are the text output's byte columns.
        c = self.server(p, capabilities={
            "general": {"positionEncodings": ["utf-8"]},
            "textDocument": {"publishDiagnostics": {"relatedInformation": True}}})
        uri = c.open(p.path("kernel.cc"))

        # 1. The buggy kernel: exactly what the standalone reports.
        diagnostics = c.diagnostics(uri, 1)
        self.assertEqual(compare_fixture.lsp_findings(c, uri, diagnostics),
                         p.standalone("kernel.cc"))
        self.assertEqual(len(diagnostics), 1)
        self.assertEqual(diagnostics[0]["code"], "dma-wait-send-on-local-copy")

        # 2. Type a second bug into the unsaved buffer, keystroke by keystroke:
        # a staging copy (local) whose send side is waited.
        text = original
        anchor = text.index("  // main_barrier")
        new_bug = ("  AsyncCopyDescriptor staging =\n"
                   "      async_copy(x_ref, o_ref.at(my_id), recv_sem[1]);\n"
                   "  staging.start();\n"
                   "  staging.wait_send();\n"
                   "  staging.wait_recv();\n")
        version = self.type_text(c, uri, new_bug, position_of(text, anchor, "utf-8"), 12, 1,
                                 "utf-8")
        text = text[:anchor] + new_bug + text[anchor:]
        diagnostics = c.diagnostics(uri, version)
        self.assertEqual(self.messages(diagnostics), [
            "'wait_send' on 'initial_copy', a local copy with no send side",
            "'wait_send' on 'staging', a local copy with no send side"])
        typed = next(d for d in diagnostics if "'staging'" in d["message"])
        self.assertEqual(typed["range"]["start"],
                         position_of(text, text.index("wait_send();\n  staging.wait_recv"),
                                     "utf-8"))
        # What the standalone says of the same text, had it been saved.
        p.write("typed.cc", text)
        self.assertEqual(
            [f[2:4] for f in compare_fixture.lsp_findings(c, uri, diagnostics,
                                                          lambda _: text.encode())],
            [(m, (p.path("kernel.cc"),) + w[1:]) for (_, _, m, w, _, _) in p.standalone("typed.cc")])

        # 3. Each finding's quick fix, applied as an editor applies it (the
        # edit sent back as a change), until none is left.
        while diagnostics:
            d = diagnostics[0]
            actions = c.call("textDocument/codeAction", {
                "textDocument": {"uri": uri}, "range": d["range"],
                "context": {"diagnostics": [d], "only": ["quickfix"]}})
            self.assertEqual(len(actions), 1, actions)
            action = actions[0]
            self.assertTrue(action["isPreferred"])
            self.assertEqual(action["kind"], "quickfix")
            self.assertEqual(action["diagnostics"], [d])
            edits = action["edit"]["changes"][uri]
            text = apply_edits(text, edits, "utf-8")
            version += 1
            c.change(uri, version, [{"range": e["range"], "text": e["newText"]} for e in
                                    sorted(edits, key=lambda e: (e["range"]["start"]["line"],
                                                                 e["range"]["start"]["character"]),
                                           reverse=True)])
            before = len(diagnostics)
            diagnostics = c.diagnostics(uri, version)
            self.assertEqual(len(diagnostics), before - 1)
        # The buffer is what `dmalint --fix` makes of the typed text.
        subprocess.run([DMALINT, "--quiet", "--fix", p.path("typed.cc"), "--", *FLAGS],
                       cwd=p.dir, capture_output=True, check=False)
        with open(p.path("typed.cc")) as f:
            self.assertEqual(text, f.read())

        # 4. Close: the editor's list is cleared; the file on disk was never touched.
        c.notify("textDocument/didClose", {"textDocument": {"uri": uri}})
        self.assertEqual(c.notification("textDocument/publishDiagnostics",
                                        lambda p: p["uri"] == uri)["diagnostics"], [])
        with open(p.path("kernel.cc")) as f:
            self.assertEqual(f.read(), original)
        self.assertEqual(c.shutdown_and_exit(), 0)

    def test_positions_in_every_encoding(self):
        # Non-ASCII before the bug on its line, and an incremental edit after it.
        text = KERNEL.replace("  staging.wait_send();",
                              "  /* é😀 */ staging.wait_send();")
        for encoding in ("utf-8", "utf-16", "utf-32"):
            with self.subTest(encoding=encoding):
                p = Project(self, {"k.cc": text})
                c = self.server(p, capabilities={"general": {"positionEncodings": [encoding]}})
                uri = c.open(p.path("k.cc"))
                d = c.diagnostics(uri, 1)
                self.assertEqual(len(d), 1)
                start = d[0]["range"]["start"]
                self.assertEqual(start, position_of(text, text.index("wait_send"), encoding))
                # Replace "é😀" by "x": the finding moves left by what they were.
                at = text.index("é😀")
                c.change(uri, 2, [{"range": {"start": position_of(text, at, encoding),
                                             "end": position_of(text, at + 2, encoding)},
                                   "text": "x"}])
                edited = text[:at] + "x" + text[at + 2:]
                d = c.diagnostics(uri, 2)
                self.assertEqual(d[0]["range"]["start"],
                                 position_of(edited, edited.index("wait_send"), encoding))
                self.assertEqual(c.shutdown_and_exit(), 0)

    def test_code_that_does_not_compile_shows_no_finding(self):
        p = Project(self, {"k.cc": KERNEL})
        c = self.server(p)
        uri = c.open(p.path("k.cc"))
        self.assertEqual(len(c.diagnostics(uri, 1)), 1)
        # Half-typed code: the compiler's errors are clangd's to show.
        broken = KERNEL.replace("  // typing here", "  staging.wait_send(")
        c.change(uri, 2, [{"text": broken}])
        self.assertEqual(c.diagnostics(uri, 2), [])
        # The file's own error, not the preamble's note (which also says
        # "does not compile" and may come first: it is logged by another thread).
        log = c.notification("window/logMessage",
                             lambda m: "does not compile (" in m["message"])
        self.assertIn(p.path("k.cc") + ":10:1: expected expression", log["message"])
        actions = c.call("textDocument/codeAction", {
            "textDocument": {"uri": uri},
            "range": {"start": {"line": 6, "character": 0}, "end": {"line": 6, "character": 30}},
            "context": {"diagnostics": []}})
        self.assertEqual(actions, [])
        # Finished: the findings are back.
        c.change(uri, 3, [{"text": KERNEL}])
        self.assertEqual(len(c.diagnostics(uri, 3)), 1)
        self.assertEqual(c.shutdown_and_exit(), 0)

    def test_results_of_a_replaced_version_are_dropped(self):
        # A kernel that takes a while to analyse (heavy headers, many copies).
        with open(os.path.join(CORPUS, "collective_matmul.bug-helper-local.cc")) as f:
            base = f.read()
        headers = "".join("#include <%s>\n" % h for h in
                          ("map", "set", "string", "unordered_map", "functional", "algorithm"))
        p = Project(self, {"k.cc": headers + base})
        c = self.server(p, "--preamble=false")
        uri = c.open(p.path("k.cc"))
        c.notification("window/logMessage", lambda m: m["message"] == "analysing %s version 1" % uri)
        # Version 2 arrives while version 1 is analysed.
        c.change(uri, 2, [{"range": {"start": {"line": 0, "character": 0},
                                     "end": {"line": 0, "character": 0}}, "text": "// v2\n"}])
        self.assertEqual(len(c.diagnostics(uri, 2)), 1)
        published = [m["version"] for m in c.sent("textDocument/publishDiagnostics")]
        self.assertEqual(published, [2])
        c.notification("window/logMessage",
                       lambda m: "dropped the findings of %s version 1" % uri in m["message"])
        self.assertEqual(c.shutdown_and_exit(), 0)

    def test_a_pending_code_action_can_be_cancelled(self):
        p = Project(self, {"k.cc": KERNEL})
        # A debounce so long that version 2 is not analysed during the test.
        c = self.server(p, "--debounce=600000")
        uri = c.open(p.path("k.cc"))
        d = c.diagnostics(uri, 1)
        c.change(uri, 2, [{"range": {"start": {"line": 8, "character": 0},
                                     "end": {"line": 8, "character": 0}}, "text": "  //\n"}])
        # Asked for version 2, which is not analysed yet: it waits...
        rid = c.request("textDocument/codeAction", {"textDocument": {"uri": uri},
                                                     "range": d[0]["range"],
                                                     "context": {"diagnostics": d}})
        c.notify("$/cancelRequest", {"id": rid})
        # ...and is cancelled.
        self.assertEqual(c.response(rid)["error"]["code"], -32800)
        # Another one is answered (empty) when the document is closed.
        rid = c.request("textDocument/codeAction", {"textDocument": {"uri": uri},
                                                     "range": d[0]["range"],
                                                     "context": {"diagnostics": d}})
        c.notify("textDocument/didClose", {"textDocument": {"uri": uri}})
        self.assertEqual(c.response(rid)["result"], [])
        self.assertEqual(c.shutdown_and_exit(), 0)

    def test_a_file_without_compile_commands_gets_the_fallback_flags(self):
        p = Project(self, {"src/k.cc": KERNEL}, database=False)
        c = self.server(p, "--", *FLAGS)
        uri = c.open(p.path("src/k.cc"))
        self.assertEqual(len(c.diagnostics(uri, 1)), 1)
        shown = c.sent("window/showMessage")
        self.assertEqual(len(shown), 1, shown)
        self.assertEqual(shown[0]["type"], 2)
        for words in (p.path("src/k.cc"), "no compile_commands.json", "clang++ -std=c++17 -I",
                      "--compile-commands-dir"):
            self.assertIn(words, shown[0]["message"])
        c.change(uri, 2, [{"text": KERNEL + "\n"}])
        c.diagnostics(uri, 2)
        self.assertEqual(len(c.sent("window/showMessage")), 1)  # Once per file.
        self.assertEqual(c.shutdown_and_exit(), 0)

    def test_fallback_flags_are_relative_to_the_nearest_clang_tidy(self):
        # The project keeps the kernel API under vendor/; '-Ivendor' means
        # <project>/vendor, where .clang-tidy is, for a file two levels down.
        p = Project(self, {"src/kernels/k.cc": KERNEL}, database=False)
        shutil.copytree(os.path.join(INCLUDE, "tpu"), p.path("vendor/tpu"))
        c = self.server(p, "--", "-std=c++17", "-Ivendor")
        uri = c.open(p.path("src/kernels/k.cc"))
        self.assertEqual(len(c.diagnostics(uri, 1)), 1)
        self.assertIn("'clang++ -std=c++17 -Ivendor'", c.sent("window/showMessage")[0]["message"])
        self.assertEqual(c.shutdown_and_exit(), 0)

    def test_without_fallback_flags_the_kernel_header_is_missing_and_nothing_is_shown(self):
        p = Project(self, {"k.cc": KERNEL}, database=False)
        c = self.server(p)
        uri = c.open(p.path("k.cc"))
        self.assertEqual(c.diagnostics(uri, 1), [])
        self.assertIn("'clang++ -std=c++17'", c.sent("window/showMessage")[0]["message"])
        # The file's own error, not the preamble's note (which also says
        # "does not compile" and may come first: it is logged by another thread).
        log = c.notification("window/logMessage",
                             lambda m: "does not compile (" in m["message"])
        self.assertIn("tpu/dma.h", log["message"])
        self.assertEqual(c.shutdown_and_exit(), 0)

    def test_compile_commands_found_as_clangd_finds_them(self):
        # build/compile_commands.json beside an ancestor; a header and a new
        # file not in it get the command of the closest file that is.
        header = ("#pragma once\n#include <tpu/dma.h>\n"
                  "inline void drain(tpu::AsyncCopyDescriptor& d) { d.wait_send(); }\n"
                  "inline void helper(tpu::Ref<float> a, tpu::Ref<float> b, tpu::DmaSemaphore s) {\n"
                  "  tpu::AsyncCopyDescriptor local = tpu::make_async_copy(a, b, s);\n"
                  "  local.start();\n  local.wait_send();\n}\n")
        p = Project(self, {"src/kernels/k.cc": KERNEL, "src/kernels/helpers.h": header,
                           "src/kernels/new.cc": KERNEL}, database=False)
        p.write_database(["src/kernels/k.cc"], FLAGS, where="build/compile_commands.json")
        c = self.server(p)
        for name in ("src/kernels/k.cc", "src/kernels/helpers.h", "src/kernels/new.cc"):
            uri = c.open(p.path(name))
            self.assertEqual(len(c.diagnostics(uri, 1)), 1, name)
        self.assertEqual(c.sent("window/showMessage"), [])
        logs = [m["message"] for m in c.sent("window/logMessage")]
        self.assertTrue(any("k.cc version 1" in l and "from the database" in l for l in logs), logs)
        self.assertTrue(any("helpers.h version 1" in l and "interpolated" in l for l in logs), logs)
        self.assertEqual(c.shutdown_and_exit(), 0)

    def test_compile_commands_dir(self):
        p = Project(self, {"k.cc": KERNEL}, database=False)
        p.write_database(["k.cc"], FLAGS, where="out/compile_commands.json")
        c = self.server(p, "--compile-commands-dir=" + p.path("out"))
        uri = c.open(p.path("k.cc"))
        self.assertEqual(len(c.diagnostics(uri, 1)), 1)
        self.assertEqual(c.sent("window/showMessage"), [])
        self.assertEqual(c.shutdown_and_exit(), 0)

    def test_compile_commands_in_an_ancestor_and_compile_flags_txt(self):
        # compile_commands.json two directories up; compile_flags.txt (one
        # flag a line, for every file below it) in another tree.
        p = Project(self, {"a/src/k.cc": KERNEL, "b/src/k.cc": KERNEL}, database=False)
        p.write_database(["a/src/k.cc"], FLAGS, where="a/compile_commands.json")
        p.write("b/compile_flags.txt", "\n".join(FLAGS) + "\n")
        c = self.server(p)
        for tree in ("a", "b"):
            uri = c.open(p.path(tree + "/src/k.cc"))
            self.assertEqual(len(c.diagnostics(uri, 1)), 1, tree)
        self.assertEqual(c.sent("window/showMessage"), [])
        logs = [m["message"] for m in c.sent("window/logMessage")]
        for database in ("a/compile_commands.json", "b/compile_flags.txt"):
            self.assertTrue(any(p.path(database) in l for l in logs), (database, logs))
        self.assertEqual(c.shutdown_and_exit(), 0)

    def test_compile_commands_dir_and_fallback_flags_as_settings(self):
        # initializationOptions: the fallback flags (instead of those after --).
        p = Project(self, {"k.cc": KERNEL}, database=False)
        c = self.server(p, options={"dmalint": {"fallbackFlags": FLAGS}})
        uri = c.open(p.path("k.cc"))
        self.assertEqual(len(c.diagnostics(uri, 1)), 1)
        self.assertIn("'clang++ %s'" % " ".join(FLAGS), c.sent("window/showMessage")[0]["message"])
        # didChangeConfiguration: a database elsewhere, whose flags plant a bug.
        p.write_database(["k.cc"], FLAGS + ["-DBUG=1"], where="out/compile_commands.json")
        c.change(uri, 2, [{"text": KERNEL.replace("  // typing here",
                                                  "#if BUG\n  staging.start(7);\n#endif")}])
        self.assertEqual([d["code"] for d in c.diagnostics(uri, 2)],
                         ["dma-wait-send-on-local-copy"])
        c.notify("workspace/didChangeConfiguration",
                 {"settings": {"dmalint": {"compileCommandsDir": p.path("out")}}})
        self.assertEqual(sorted(d["code"] for d in c.diagnostics(uri, 2)),
                         ["dma-start-priority", "dma-wait-send-on-local-copy"])
        self.assertEqual(len(c.sent("window/showMessage")), 1)
        self.assertEqual(c.shutdown_and_exit(), 0)

    def test_each_finding_links_its_checks_page(self):
        p = Project(self, {"k.cc": KERNEL})
        c = self.server(p)
        d = c.diagnostics(c.open(p.path("k.cc")), 1)[0]
        self.assertEqual(d["source"], "dmalint")
        href = d["codeDescription"]["href"]
        # The SARIF log's link for the rule, a page that exists under docs/checks/.
        sarif = json.loads(subprocess.run(
            [DMALINT, "--format=sarif", p.path("k.cc"), "--", *FLAGS], cwd=p.dir,
            capture_output=True, text=True).stdout)
        rules = {r["id"]: r["helpUri"] for r in sarif["runs"][0]["tool"]["driver"]["rules"]}
        self.assertEqual(href, rules["dma-wait-send-on-local-copy"])
        self.assertTrue(href.endswith("/docs/checks/dma-wait-send-on-local-copy.md"), href)
        self.assertTrue(os.path.exists(os.path.join(ROOT, "docs", "checks",
                                                    "dma-wait-send-on-local-copy.md")))
        self.assertEqual(c.shutdown_and_exit(), 0)
        # --check-doc-url, as for SARIF.
        c = self.server(p, "--check-doc-url=https://docs.example/{check}.html")
        d = c.diagnostics(c.open(p.path("k.cc")), 1)[0]
        self.assertEqual(d["codeDescription"]["href"],
                         "https://docs.example/dma-wait-send-on-local-copy.html")
        self.assertEqual(c.shutdown_and_exit(), 0)

    def test_a_broken_database_is_named(self):
        p = Project(self, {"k.cc": KERNEL}, database=False)
        p.write("compile_commands.json", "[{\"directory\": ")
        c = self.server(p, "--", *FLAGS)
        uri = c.open(p.path("k.cc"))
        self.assertEqual(len(c.diagnostics(uri, 1)), 1)
        message = c.sent("window/showMessage")[0]["message"]
        self.assertIn("the compilation database '%s' is not valid JSON"
                      % p.path("compile_commands.json"), message)
        self.assertIn("fallback flags", message)
        self.assertEqual(c.shutdown_and_exit(), 0)

    def test_unusable_database_entries_are_named_and_their_file_left_alone(self):
        # An entry whose directory does not exist (which would make LibTooling
        # abort) and a good one: as in the standalone, the bad entry's file is
        # not analysed, not even with another file's command.
        p = Project(self, {"good.cc": KERNEL, "bad.cc": KERNEL}, database=False)
        p.write("compile_commands.json", json.dumps([
            {"directory": p.dir, "file": "good.cc", "arguments": ["clang++", *FLAGS, "good.cc"]},
            {"directory": p.path("gone"), "file": p.path("bad.cc"),
             "arguments": ["clang++", *FLAGS, "bad.cc"]}]))
        c = self.server(p)
        bad = c.open(p.path("bad.cc"))
        self.assertEqual(c.diagnostics(bad, 1), [])
        good = c.open(p.path("good.cc"))
        self.assertEqual(len(c.diagnostics(good, 1)), 1)
        shown = [m["message"] for m in c.sent("window/showMessage")]
        self.assertEqual(len(shown), 2, shown)
        self.assertIn("entry 2", shown[0])
        self.assertIn("'%s', which does not exist" % p.path("gone"), shown[0])
        self.assertIn("not analysing " + p.path("bad.cc"), shown[1])
        self.assertEqual(c.shutdown_and_exit(), 0)

    def test_configuration_changes_are_read_again(self):
        kernel = KERNEL.replace("  // typing here", "#if BUG\n  staging.start(7);\n#endif")
        p = Project(self, {"k.cc": kernel})
        c = self.server(p, capabilities={
            **UTF16, "workspace": {"didChangeWatchedFiles": {"dynamicRegistration": True}}})
        uri = c.open(p.path("k.cc"))
        d = c.diagnostics(uri, 1)
        self.assertEqual([x["severity"] for x in d], [2])
        # .clang-tidy: WarningsAsErrors makes the finding an error.
        p.write(".clang-tidy", "Checks: '-*,dma-*'\nWarningsAsErrors: 'dma-wait-send-on-local-copy'\n")
        c.notify("workspace/didChangeWatchedFiles", {"changes": [
            {"uri": lsp_client.uri_of(p.path(".clang-tidy")), "type": 2}]})
        d = c.diagnostics(uri, 1)
        self.assertEqual([x["severity"] for x in d], [1])
        # compile_commands.json: a new flag turns the planted priority bug on.
        p.write_database(["k.cc"], FLAGS + ["-DBUG=1"])
        c.notify("workspace/didChangeWatchedFiles", {"changes": [
            {"uri": lsp_client.uri_of(p.path("compile_commands.json")), "type": 2}]})
        d = c.diagnostics(uri, 1)
        self.assertEqual(sorted(x["code"] for x in d),
                         ["dma-start-priority", "dma-wait-send-on-local-copy"])
        # Settings: the checks to run.
        c.notify("workspace/didChangeConfiguration",
                 {"settings": {"dmalint": {"checks": "-*,dma-start-priority"}}})
        d = c.diagnostics(uri, 1)
        self.assertEqual([x["code"] for x in d], ["dma-start-priority"])
        # Settings of the wrong type are refused, with a message.
        c.notify("workspace/didChangeConfiguration", {"settings": {"dmalint": {"checks": 3}}})
        self.assertIn("checks", c.notification("window/showMessage")["message"])
        self.assertEqual(c.shutdown_and_exit(), 0)

    def test_configuration_files_are_read_again_without_the_clients_word(self):
        # A client that watches no files: the next analysis (here: after an
        # edit) reads .clang-tidy and compile_commands.json as they are now.
        kernel = KERNEL.replace("  // typing here", "#if BUG\n  staging.start(7);\n#endif")
        p = Project(self, {"k.cc": kernel})
        c = self.server(p)
        uri = c.open(p.path("k.cc"))
        self.assertEqual([(x["code"], x["severity"]) for x in c.diagnostics(uri, 1)],
                         [("dma-wait-send-on-local-copy", 2)])
        p.write(".clang-tidy", "Checks: '-*,dma-*'\nWarningsAsErrors: 'dma-*'\n")
        p.write_database(["k.cc"], FLAGS + ["-DBUG=1"])
        c.change(uri, 2, [{"text": kernel + "\n"}])
        self.assertEqual(sorted((x["code"], x["severity"]) for x in c.diagnostics(uri, 2)),
                         [("dma-start-priority", 1), ("dma-wait-send-on-local-copy", 1)])
        self.assertEqual(c.shutdown_and_exit(), 0)

    def test_a_broken_configuration_is_shown_and_no_check_runs(self):
        p = Project(self, {"k.cc": KERNEL})
        p.write(".clang-tidy", "Checks: '-*,dma-*'\nCheckOptions:\n"
                               "  dma-wait-send-on-local-copy.WorkLimit: 'many'\n")
        c = self.server(p)
        uri = c.open(p.path("k.cc"))
        self.assertEqual(c.diagnostics(uri, 1), [])
        shown = c.sent("window/showMessage")
        self.assertEqual([m["type"] for m in shown], [1])
        self.assertIn("configuration error: invalid option "
                      "'dma-wait-send-on-local-copy.WorkLimit'", shown[0]["message"])
        self.assertIn("got 'many'", shown[0]["message"])
        # Fixed: the findings come back; the message is not repeated.
        p.write(".clang-tidy", "Checks: '-*,dma-*'\n")
        c.notify("workspace/didChangeWatchedFiles", {"changes": [
            {"uri": lsp_client.uri_of(p.path(".clang-tidy")), "type": 2}]})
        self.assertEqual(len(c.diagnostics(uri, 1)), 1)
        self.assertEqual(len(c.sent("window/showMessage")), 1)
        self.assertEqual(c.shutdown_and_exit(), 0)

    def test_unsaved_headers_are_what_the_analysis_reads(self):
        header = ("#pragma once\n#include <tpu/dma.h>\n"
                  "inline void finish(tpu::AsyncCopyDescriptor& d) {\n"
                  "  if (d.is_remote()) d.wait_send();\n  d.wait_recv();\n}\n")
        kernel = ('#include "finish.h"\nusing namespace tpu;\n'
                  "void kernel(Ref<float> a, Ref<float> b, DmaSemaphore s) {\n"
                  "  AsyncCopyDescriptor d = make_async_copy(a, b, s);\n"
                  "  d.start();\n  finish(d);\n}\n")
        p = Project(self, {"k.cc": kernel, "finish.h": header})
        c = self.server(p)
        k = c.open(p.path("k.cc"))
        self.assertEqual(c.diagnostics(k, 1), [])
        h = c.open(p.path("finish.h"))
        self.assertEqual(c.diagnostics(h, 1), [])
        # The guard is deleted in the header's buffer, which is not saved...
        c.change(h, 2, [{"text": header.replace("if (d.is_remote()) ", "")}])
        self.assertEqual(c.diagnostics(h, 2), [])  # (no local copy in the header itself)
        # ...and saving it (here: only telling the server) re-analyses the
        # kernel, through the header's unsaved text.
        c.notify("textDocument/didSave", {"textDocument": {"uri": h}})
        d = c.diagnostics(k, 1)
        self.assertEqual(len(d), 1)
        self.assertIn("'finish' calls 'wait_send' on 'd'", d[0]["message"])
        notes = d[0]["relatedInformation"]
        self.assertEqual(notes[-1]["location"]["uri"], h)
        self.assertEqual(notes[-1]["location"]["range"]["start"]["line"], 3)
        self.assertEqual(c.shutdown_and_exit(), 0)

    def test_clients_without_related_information_or_with_versioned_edits(self):
        p = Project(self, {"k.cc": KERNEL})
        c = self.server(p, capabilities={
            "textDocument": {"publishDiagnostics": {"relatedInformation": False}},
            "workspace": {"workspaceEdit": {"documentChanges": True}}})
        uri = c.open(p.path("k.cc"))
        d = c.diagnostics(uri, 1)[0]
        self.assertNotIn("relatedInformation", d)
        # The notes as the text output prints them.
        self.assertEqual(d["message"],
                         "'wait_send' on 'staging', a local copy with no send side\n\n%s:5:33: "
                         "note: 'staging' is a local copy: built here without a device id and "
                         "source semaphore" % p.path("k.cc"))
        action = c.call("textDocument/codeAction", {"textDocument": {"uri": uri}, "range": d["range"],
                                                     "context": {"diagnostics": [d]}})[0]
        change = action["edit"]["documentChanges"][0]
        self.assertEqual(change["textDocument"], {"uri": uri, "version": 1})
        # A client that asks only for other kinds gets none.
        self.assertEqual(c.call("textDocument/codeAction", {
            "textDocument": {"uri": uri}, "range": d["range"],
            "context": {"diagnostics": [d], "only": ["refactor"]}}), [])
        self.assertEqual(c.shutdown_and_exit(), 0)

    def test_only_c_family_documents_are_analysed(self):
        p = Project(self, {"notes.md": "# notes\n"})
        c = self.server(p)
        uri = c.open(p.path("notes.md"), language="markdown")
        self.assertEqual(c.call("textDocument/codeAction", {
            "textDocument": {"uri": uri},
            "range": {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 0}},
            "context": {"diagnostics": []}}), [])
        self.assertEqual(c.sent("textDocument/publishDiagnostics"), [])
        self.assertEqual(c.shutdown_and_exit(), 0)

    def test_c_family_files_under_a_language_name_of_the_clients_own(self):
        # eglot names the language after the major mode ("c++" for c++-mode);
        # the file name says what it is, as it does for clangd.
        p = Project(self, {"k.cc": KERNEL, "notes.txt": KERNEL})
        c = self.server(p)
        uri = c.open(p.path("k.cc"), language="c++")
        self.assertEqual([d["code"] for d in c.diagnostics(uri, 1)],
                         ["dma-wait-send-on-local-copy"])
        other = c.open(p.path("notes.txt"), language="text")
        c.notification("window/logMessage", lambda m: m["message"] ==
                       "not analysing %s: neither its language 'text' nor its file name is "
                       "C or C++" % other)
        self.assertEqual(c.shutdown_and_exit(), 0)
        self.assertEqual([m["uri"] for m in c.sent("textDocument/publishDiagnostics")], [uri])

    def test_memory_stays_flat_over_10000_edits(self):
        # 40 KB of text after the kernel: a copy of the text kept per edit
        # would grow by 400 MB.
        filler = "".join("// line %d of a long comment that fills the file ...........\n" % i
                         for i in range(700))
        p = Project(self, {"k.cc": KERNEL + filler})
        # Under AddressSanitizer (scripts/test-sanitized.sh) freed memory is
        # held in quarantine, which would read as growth: keep it small.
        env = dict(os.environ, ASAN_OPTIONS=":".join(
            filter(None, [os.environ.get("ASAN_OPTIONS"), "quarantine_size_mb=1"])))
        c = self.server(p, env=env)
        uri = c.open(p.path("k.cc"))
        c.diagnostics(uri, 1)
        line = KERNEL.count("\n") - 2  # "  // typing here"
        self.assertGreater(len(KERNEL + filler), 40000)
        version = 1
        samples = []
        for burst in range(20):
            # 500 keystrokes: a word typed and deleted again, repeatedly.
            for i in range(250):
                col = 17 + (i % 10)
                version += 1
                c.change(uri, version, [{"range": {"start": {"line": line, "character": col},
                                                   "end": {"line": line, "character": col}},
                                         "text": "x"}])
                version += 1
                c.change(uri, version, [{"range": {"start": {"line": line, "character": col},
                                                   "end": {"line": line, "character": col + 1}},
                                         "text": ""}])
            self.assertEqual(len(c.diagnostics(uri, version)), 1)
            samples.append(c.rss_kib())
        self.assertEqual(version, 10001)
        # After warm-up (the first bursts), what is held stays what it was:
        # no growth with the number of edits or of analyses.
        warm = samples[4]
        self.assertLess(max(samples[5:]) - warm, max(16 * 1024, warm // 10),
                        "resident memory (KiB) per 500 edits: %s" % samples)
        self.assertEqual(c.shutdown_and_exit(), 0)


if __name__ == "__main__":
    unittest.main()
