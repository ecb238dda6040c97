#!/usr/bin/env python3
"""Emacs' eglot (Debian's elpa-eglot, batch mode) with `dmalint --lsp` on a
kernel (eglot_session.el): the diagnostics Flymake holds are the findings the
standalone reports (line, message, check, severity, notes, documentation
link; eglot 1.9 takes no related information, so the notes come in the
message), a bug typed into the buffer is reported, and applying dmalint's quick
fixes through eglot's own code-action and workspace-edit code leaves the text
`dmalint --fix` makes and no finding. Eglot runs one server per buffer, so
clangd is not beside dmalint here (test_neovim.py has that).

  test_eglot.py --dmalint build/bin/dmalint --include include [--emacs emacs]

Exit status 0 on success, 1 on a failure, 77 (skipped) when Emacs or eglot is
not installed, unless DMALINT_REQUIRE_EGLOT=1 (scripts/test.sh, which
installs them), which makes that a failure.
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
from editor_session import as_editor_shows, fail, judge, require_or_skip, run_editor, write_project  # noqa: E402,E501


def as_eglot_gets(findings, buffer_path):
    """as_editor_shows of the standalone's findings, for a client that (as
    eglot 1.9 does) declines relatedInformation: the server appends the notes
    to the message as the text output prints them, naming the buffer's file
    (the standalone ran on a copy of it)."""
    out = as_editor_shows(findings)
    for shown, (_, _, _, _, notes, _) in zip(out, sorted(findings, key=lambda f: f[3][1])):
        shown["message"] += "".join("\n\n%s:%d:%d: note: %s" % (buffer_path, at[1], at[2], m)
                                    for m, at in notes)
        shown["notes"] = []
    return out


def as_emacs_holds(step):
    """The record's diagnostics in as_editor_shows' terms, from the LSP
    diagnostic eglot keeps with each Flymake diagnostic; and the problems
    with what Flymake made of them."""
    out, problems = [], []
    for d in step["dmalint"]:
        lsp = d["lsp"] or {}
        out.append({"lnum": d["lnum"], "message": lsp.get("message"), "code": lsp.get("code"),
                    "severity": lsp.get("severity"),
                    "notes": [{"message": r["message"],
                               "line": r["location"]["range"]["start"]["line"],
                               "character": r["location"]["range"]["start"]["character"]}
                              for r in lsp.get("relatedInformation", [])]})
        # What the user reads: "dmalint [check]: message", a warning or an
        # error (WarningsAsErrors) in Flymake's terms.
        shown = "dmalint [%s]: %s" % (lsp.get("code"), lsp.get("message"))
        if d["text"] != shown:
            problems.append("%s: Flymake shows %r, not %r" % (step["name"], d["text"], shown))
        if d["type"] != {1: "eglot-error", 2: "eglot-warning"}.get(lsp.get("severity")):
            problems.append("%s: Flymake's type %s for severity %r" % (step["name"], d["type"],
                                                                        lsp.get("severity")))
        href = (lsp.get("codeDescription") or {}).get("href", "")
        if not href.endswith("/%s.md" % lsp.get("code")):
            problems.append("%s: no link to the check's page: %r" % (step["name"], lsp))
    return out, problems


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--dmalint", required=True)
    parser.add_argument("--include", required=True)
    parser.add_argument("--emacs", default="emacs")
    args = parser.parse_args()
    emacs = shutil.which(args.emacs)
    has_eglot = emacs and subprocess.run(
        [emacs, "--batch", "--eval", "(require 'eglot)"], capture_output=True).returncode == 0
    if not has_eglot:
        why = ("Emacs ('%s') is not installed" % args.emacs if not emacs
               else "Emacs has no eglot (Debian package elpa-eglot)")
        return require_or_skip("emacs-nox and elpa-eglot", why, "DMALINT_REQUIRE_EGLOT")
    dmalint = os.path.abspath(args.dmalint)
    flags = ["-std=c++17", "-I" + os.path.abspath(args.include)]

    root = os.path.realpath(tempfile.mkdtemp(prefix="dmalint-eglot-"))
    try:
        kernel = write_project(root, flags)
        out = os.path.join(root, "record.json")
        # HOME: no user's init file, package directory or eglot settings.
        env = dict(os.environ, DMALINT=dmalint, KERNEL=kernel, ROOT=root, OUT=out, HOME=root)
        command = [emacs, "--batch", "-l", os.path.join(HERE, "eglot_session.el")]
        record = run_editor("Emacs", command, root, env, out)
        if record is None:
            return 1

        def check_step(name, step, expected):
            got, problems = as_emacs_holds(step)
            if got != as_eglot_gets(expected, kernel):
                problems.append("%s: Emacs holds dmalint's diagnostics\n  %s\nbut the standalone "
                                "reports\n  %s" % (name, json.dumps(got),
                                                   json.dumps(as_eglot_gets(expected, kernel))))
            return problems

        problems, steps, actions = judge(record, "eglot", dmalint, flags, root, check_step)
        if problems:
            print("FAIL: the eglot session:\n" + "\n".join(problems))
            print("Emacs' output:\n" + r.stderr[-3000:])
            return 1
        version = subprocess.run([emacs, "--version"], capture_output=True, text=True)
        print("PASS: %s, eglot, with dmalint --lsp: %d finding(s) on open, %d after typing, "
              "%d quick fix(es) applied" % (version.stdout.split("\n")[0],
                                            len(steps["open"]["dmalint"]),
                                            len(steps["typed"]["dmalint"]), len(actions)))
        return 0
    finally:
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
