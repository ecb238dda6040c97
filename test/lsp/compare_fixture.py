#!/usr/bin/env python3
"""Runs a fixture (test/fixtures/ or test/corpus/) through the language server
and checks that it publishes exactly the findings the standalone reports.

The fixture is prepared as the fixture harness prepares it (test/fixture/
run_fixture.py: CHECKS, FLAGS and CONFIG headers, CHECK- comments cut), in a
fresh directory with a compile_commands.json holding the same flags. Then:

- `dmalint FILE -- FLAGS` gives the standalone's findings as it prints them
  (check, level, message, where each finding and note starts), and the
  same command with `--format=sarif` the end of the token each points at and
  the fix-it (its edits by byte offset);
- `dmalint --lsp` opens the file as an editor would and publishes its
  diagnostics; each diagnostic's code actions are asked for. Then the same
  again for a second version (the same text), analysed with the preamble
  built meanwhile: the server's two ways of parsing must agree with the
  standalone.

Each finding must be the same in both: check, level (warning, or error with
WarningsAsErrors), message, location (start and end of the token it points
at), every note (message and location, in order) and the fix-it (every edit:
bytes replaced and new text). Columns are byte columns, as the text output
prints them, which the server gives when the test asks for UTF-8 positions.
The two lists must match one to one, in order.

Exit status: 0 when they agree, 1 otherwise (with both lists printed).
"""

import argparse
import json
import os
import re
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


# A diagnostic as the text output prints it: "path:line:column: level: message",
# a finding's message ending in " [check]" (" [check,-warnings-as-errors]").
PRINTED = re.compile(r"^(?P<path>.+?):(?P<line>\d+):(?P<column>\d+): "
                     r"(?P<level>warning|error|remark|note): (?P<message>.*)$")
CHECK_SUFFIX = re.compile(r"^(?P<message>.*) \[(?P<check>[\w.-]+?)(?P<werror>,-warnings-as-errors)?\]$")


def byte_column(path, line, utf16_column):
    """The 1-based byte column of a 1-based UTF-16 column of a file's line."""
    with open(path, "rb") as f:
        text = f.read().decode("utf-8", "surrogateescape")
    content = text.splitlines()[line - 1] if line - 1 < len(text.splitlines()) else ""
    units = 0
    for i, ch in enumerate(content):
        if units >= utf16_column - 1:
            return len(content[:i].encode("utf-8", "surrogateescape")) + 1
        units += 2 if ord(ch) > 0xFFFF else 1
    return len(content.encode("utf-8", "surrogateescape")) + 1 + (utf16_column - 1 - units)


def standalone_findings(dmalint, arguments, cwd):
    """The findings the standalone reports for `dmalint ARGUMENTS` run in `cwd`:
    (check, level, message, where, notes, fix) each, read from what it prints
    (check, level, message, where a finding and each note start), with, from
    the SARIF log of the same command, the end of the token each points at
    and the fix. `where` is (path, line, byte column, byte column past the
    token), 1-based; `fix` a sorted tuple of (path, byte offset, byte length,
    new text)."""
    printed = subprocess.run([dmalint, "--use-color=false", *arguments], cwd=cwd,
                             capture_output=True, text=True)
    logged = subprocess.run([dmalint, "--format=sarif", *arguments], cwd=cwd,
                            capture_output=True, text=True)
    if printed.returncode not in (0, 1) or logged.returncode != printed.returncode:
        raise AssertionError("the standalone exited with %d (text) and %d (SARIF):\n%s"
                             % (printed.returncode, logged.returncode, printed.stderr))
    findings = []
    for line in printed.stdout.splitlines():
        m = PRINTED.match(line)
        if not m:
            continue  # The source line and the caret under it.
        path = os.path.realpath(os.path.join(cwd, m.group("path")))
        start = (path, int(m.group("line")), int(m.group("column")))
        if m.group("level") == "note":
            findings[-1]["notes"].append((m.group("message"), start))
            continue
        c = CHECK_SUFFIX.match(m.group("message"))
        level = "error" if c.group("werror") else m.group("level")
        findings.append({"check": c.group("check"), "level": level,
                         "message": c.group("message"), "start": start, "notes": []})
    run = json.loads(logged.stdout)["runs"][0]
    base = run["originalUriBaseIds"]["SRCROOT"]["uri"]

    def path_of(artifact):
        uri = artifact["uri"]
        if artifact.get("uriBaseId") == "SRCROOT":
            uri = base + uri
        return os.path.realpath(lsp_client.path_of(uri))

    def end_of(physical):
        region = physical["region"]
        return byte_column(path_of(physical["artifactLocation"]), region["startLine"],
                           region["endColumn"])

    results = [r for r in run["results"]]
    shown = [f for f in findings if f["level"] != "remark"]
    if len(results) != len(shown):
        raise AssertionError("the standalone printed %d findings but logged %d SARIF results"
                             % (len(shown), len(results)))
    out = []
    for f in findings:
        r = results.pop(0) if f["level"] != "remark" else None
        where = f["start"] + ((end_of(r["locations"][0]["physicalLocation"]),) if r else (0,))
        related = r.get("relatedLocations", []) if r else []
        notes = tuple((text, at + (end_of(rel["physicalLocation"]),))
                      for (text, at), rel in zip(f["notes"], related))
        fix = []
        for x in (r.get("fixes", []) if r else [])[:1]:
            for change in x["artifactChanges"]:
                for rep in change["replacements"]:
                    d = rep["deletedRegion"]
                    fix.append((path_of(change["artifactLocation"]), d["byteOffset"],
                                d["byteLength"], rep.get("insertedContent", {}).get("text", "")))
        out.append((f["check"], f["level"], f["message"], where, notes, tuple(sorted(fix))))
    return out


def read_bytes(path):
    with open(path, "rb") as f:
        return f.read()


def lsp_location(location):
    """(path, line, byte column, byte column past the token) of a location the
    server gave in UTF-8 positions (so a character is a byte column)."""
    start, end = location["range"]["start"], location["range"]["end"]
    assert start["line"] == end["line"], "a token's range spans lines: %r" % location
    return (os.path.realpath(lsp_client.path_of(location["uri"])), start["line"] + 1,
            start["character"] + 1, end["character"] + 1)


def byte_offset(text, position):
    """The byte offset of a UTF-8 LSP position in `text` (bytes)."""
    starts = [0] + [i + 1 for i, b in enumerate(text) if b == 0x0A]
    return starts[position["line"]] + position["character"]


def lsp_findings(client, uri, diagnostics, text_of=read_bytes):
    """The server's findings as standalone_findings gives the standalone's: its
    diagnostics, and for each the quick fix its code actions offer. The client
    must have agreed on UTF-8 positions. `text_of(path)` is the text (bytes)
    the server analysed."""
    found = []
    for d in diagnostics:
        if d.get("source") != "dmalint":
            raise AssertionError("a diagnostic without source 'dmalint': %r" % d)
        level = {1: "error", 2: "warning", 3: "remark"}[d["severity"]]
        notes = tuple((r["message"], lsp_location(r["location"]))
                      for r in d.get("relatedInformation", []))
        actions = client.call("textDocument/codeAction", {
            "textDocument": {"uri": uri}, "range": d["range"],
            "context": {"diagnostics": [d]}})
        own = [a for a in actions if a["diagnostics"] == [d]]
        for a in own:
            assert a["kind"] == "quickfix", a
            assert a["isPreferred"] == (len(own) == 1), a
        fix = []
        if own:
            for target, changes in own[0]["edit"]["changes"].items():
                p = os.path.realpath(lsp_client.path_of(target))
                text = text_of(p)
                for e in changes:
                    start = byte_offset(text, e["range"]["start"])
                    fix.append((p, start, byte_offset(text, e["range"]["end"]) - start,
                                e["newText"]))
        where = lsp_location({"uri": uri, "range": d["range"]})
        found.append((d["code"], level, d["message"], where, notes, tuple(sorted(fix))))
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
            out += "    fix %s bytes %d+%d -> %r\n" % edit
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

        expected = standalone_findings(
            args.dmalint, ["--checks=" + fx.checks, work_file, "--"] + fx.flags, tmp)

        client = lsp_client.LspClient([args.dmalint, "--lsp", "--checks=" + fx.checks], cwd=tmp)
        client.initialize({"general": {"positionEncodings": ["utf-8"]},
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
