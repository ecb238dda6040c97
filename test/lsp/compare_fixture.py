#!/usr/bin/env python3
"""Runs a fixture (test/fixtures/ or test/corpus/) through the language server
and checks that it publishes exactly the findings the standalone reports.

The fixture is prepared as the fixture harness prepares it (test/fixture/
run_fixture.py: CHECKS, FLAGS and CONFIG headers, CHECK- comments cut), in a
fresh directory with a compile_commands.json holding the same flags. Then:

- `dmalint --format=sarif FILE -- FLAGS` gives the standalone's findings;
- `dmalint --lsp` opens the file as an editor would and publishes its
  diagnostics; each diagnostic's code actions are asked for. Then the same
  again for a second version (the same text), analysed with the preamble
  built meanwhile: the server's two ways of parsing must agree with the
  standalone.

Each finding must be the same in both: check, level (warning, or error with
WarningsAsErrors), message, location (start and end of the token it points
at), every note (message and location, in order) and the fix-it (every edit:
range and new text). Positions are compared in UTF-16 code units, SARIF's
columnKind, which the test asks the server to use. The two lists must match
one to one, in order.

Exit status: 0 when they agree, 1 otherwise (with both lists printed).
"""

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import lsp_client  # noqa: E402


def _fixture_harness():
    """test/fixture/run_fixture.py, whose Fixture reads a fixture's headers."""
    import importlib.util
    spec = importlib.util.spec_from_file_location(
        "fixture_harness", os.path.join(os.path.dirname(HERE), "fixture", "run_fixture.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


Fixture = _fixture_harness().Fixture


def sarif_findings(log, root):
    """(check, level, message, where, notes, fix) of each SARIF result; where
    is (path, line, column, end column), 1-based as SARIF counts."""
    run = log["runs"][0]
    base = run["originalUriBaseIds"]["SRCROOT"]["uri"]

    def path(artifact):
        uri = artifact["uri"]
        if artifact.get("uriBaseId") == "SRCROOT":
            uri = base + uri
        return os.path.realpath(lsp_client.path_of(uri))

    def where(physical):
        region = physical["region"]
        return (path(physical["artifactLocation"]), region["startLine"], region["startColumn"],
                region["endColumn"])

    found = []
    for r in run["results"]:
        notes = tuple((n["message"]["text"], where(n["physicalLocation"]))
                      for n in r.get("relatedLocations", []))
        fix = ()
        for f in r.get("fixes", [])[:1]:
            edits = []
            for change in f["artifactChanges"]:
                p = path(change["artifactLocation"])
                for rep in change["replacements"]:
                    d = rep["deletedRegion"]
                    edits.append((p, d["startLine"], d["startColumn"], d["endLine"],
                                  d["endColumn"], rep.get("insertedContent", {}).get("text", "")))
            fix = tuple(sorted(edits))
        found.append((r["ruleId"], r["level"], r["message"]["text"],
                      where(r["locations"][0]["physicalLocation"]), notes, fix))
    return found


def lsp_location(location):
    start, end = location["range"]["start"], location["range"]["end"]
    assert start["line"] == end["line"], "a token's range spans lines: %r" % location
    return (os.path.realpath(lsp_client.path_of(location["uri"])), start["line"] + 1,
            start["character"] + 1, end["character"] + 1)


def lsp_findings(client, uri, diagnostics):
    found = []
    for d in diagnostics:
        if d.get("source") != "dmalint":
            raise AssertionError("a diagnostic without source 'dmalint': %r" % d)
        level = {1: "error", 2: "warning"}[d["severity"]]
        notes = tuple((r["message"], lsp_location(r["location"]))
                      for r in d.get("relatedInformation", []))
        actions = client.call("textDocument/codeAction", {
            "textDocument": {"uri": uri}, "range": d["range"],
            "context": {"diagnostics": [d]}})
        own = [a for a in actions if a["diagnostics"] == [d]]
        for a in own:
            assert a["kind"] == "quickfix", a
            assert a["isPreferred"] == (len(own) == 1), a
        fix = ()
        if own:
            edits = []
            for target, changes in own[0]["edit"]["changes"].items():
                p = os.path.realpath(lsp_client.path_of(target))
                for e in changes:
                    s, t = e["range"]["start"], e["range"]["end"]
                    edits.append((p, s["line"] + 1, s["character"] + 1, t["line"] + 1,
                                  t["character"] + 1, e["newText"]))
            fix = tuple(sorted(edits))
        where = lsp_location({"uri": uri, "range": d["range"]})
        found.append((d["code"], level, d["message"], where, notes, fix))
    return found


def describe(findings):
    if not findings:
        return "  (none)\n"
    out = ""
    for check, level, message, where, notes, fix in findings:
        out += "  %s:%d:%d-%d: %s: %s [%s]\n" % (where[0], where[1], where[2], where[3], level,
                                                  message, check)
        for text, at in notes:
            out += "    note %s:%d:%d-%d: %s\n" % (at[0], at[1], at[2], at[3], text)
        for edit in fix:
            out += "    fix %s %d:%d-%d:%d -> %r\n" % edit
    return out


def run(args, path):
    fx = Fixture(path, args.include)
    tmp = os.path.realpath(tempfile.mkdtemp(prefix="dmalint-lsp-fixture-", dir="/tmp"))
    client = None
    try:
        work_file = fx.write_working_copy(tmp)
        with open(os.path.join(tmp, "compile_commands.json"), "w") as f:
            json.dump([{"directory": tmp, "file": work_file,
                        "arguments": ["clang++"] + fx.flags + [work_file]}], f)

        standalone = subprocess.run(
            [args.dmalint, "--checks=" + fx.checks, "--format=sarif", work_file, "--"] + fx.flags,
            cwd=tmp, capture_output=True, text=True)
        if standalone.returncode not in (0, 1):
            print("FAIL: %s: the standalone exited with %d\n%s" % (path, standalone.returncode,
                                                                  standalone.stderr))
            return False
        expected = sarif_findings(json.loads(standalone.stdout), tmp)

        client = lsp_client.LspClient([args.dmalint, "--lsp", "--checks=" + fx.checks], cwd=tmp)
        client.initialize({"general": {"positionEncodings": ["utf-16"]},
                           "textDocument": {"publishDiagnostics": {"relatedInformation": True}}})
        text = fx.stripped.decode("utf-8")
        uri = client.open(work_file, text)
        # Version 1 is parsed whole; once its preamble is built, version 2
        # (the same text) is analysed with it: both must be the standalone's.
        got = {"whole file": lsp_findings(client, uri, client.diagnostics(uri, 1))}
        client.notification("window/logMessage",
                            lambda p: p["message"] == "built the preamble of " + work_file or
                            p["message"].startswith("built the preamble of %s in " % work_file))
        client.change(uri, 2, [{"text": text}])
        got["preamble reused"] = lsp_findings(client, uri, client.diagnostics(uri, 2))
        analysed = client.notification(
            "window/logMessage",
            lambda p: p["message"].startswith("analysed %s version 2 " % uri))["message"]
        status = client.shutdown_and_exit()
        if status != 0:
            print("FAIL: %s: the server exited with %d after shutdown" % (path, status))
            return False
        if "(preamble reused;" not in analysed:
            print("FAIL: %s: version 2 was not analysed with the preamble: %s" % (path, analysed))
            return False
        for how, findings in got.items():
            if findings != expected:
                print("FAIL: %s: the language server's findings (%s) differ from the "
                      "standalone's\nstandalone (dmalint --format=sarif):\n%s"
                      "language server (publishDiagnostics, codeAction):\n%s"
                      "server stderr:\n%s" % (path, how, describe(expected), describe(findings),
                                              client.stderr_text()))
                return False
        print("PASS: %s: %d finding(s), %d with a fix, the same through the language server, "
              "parsed whole and with its preamble"
              % (path, len(expected), sum(1 for g in expected if g[5])))
        return True
    finally:
        if client:
            client.kill()
        shutil.rmtree(tmp, ignore_errors=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--dmalint", required=True)
    parser.add_argument("--include", required=True, help="the directory holding tpu/dma.h")
    parser.add_argument("fixtures", nargs="+")
    args = parser.parse_args()
    args.dmalint = os.path.abspath(args.dmalint)
    ok = True
    for path in args.fixtures:
        ok = run(args, path) and ok
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
