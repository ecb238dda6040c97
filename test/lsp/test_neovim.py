#!/usr/bin/env python3
"""Neovim's built-in LSP client (headless) with `dmalint --lsp` and clangd-19
on the same buffer (neovim_session.lua): both servers' diagnostics arrive,
dmalint's are the findings the standalone reports (as Neovim shows them:
line, byte column, message, check, documentation link, notes), a bug typed
into the buffer is reported, and applying dmalint's quick fixes through
Neovim's own workspace-edit code leaves the text `dmalint --fix` makes and
no dmalint finding, while clangd's warning stays.

  test_neovim.py --dmalint build/bin/dmalint --include include [--clangd clangd-19]

Exit status 0 on success, 1 on a failure, 77 (skipped) when Neovim is not
installed (scripts/test.sh installs it, and clangd-19, for CI, and sets
DMALINT_REQUIRE_NEOVIM=1, which makes a missing Neovim a failure).
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


def comparable(neovim):
    return [{"lnum": d["lnum"], "message": d["message"], "code": d["code"],
             "severity": d["severity"], "notes": d["notes"]} for d in neovim]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--dmalint", required=True)
    parser.add_argument("--include", required=True)
    parser.add_argument("--clangd", default="clangd-19")
    parser.add_argument("--nvim", default="nvim")
    args = parser.parse_args()
    nvim = shutil.which(args.nvim)
    if not nvim:
        return require_or_skip("neovim", "Neovim ('%s') is not installed" % args.nvim,
                               "DMALINT_REQUIRE_NEOVIM")
    clangd = shutil.which(args.clangd)
    if not clangd:
        return fail("'%s' is not installed (Debian package clangd-19; scripts/test.sh "
                    "installs it): the test runs dmalint beside clangd" % args.clangd)
    dmalint = os.path.abspath(args.dmalint)
    flags = ["-std=c++17", "-I" + os.path.abspath(args.include), "-Wall"]

    root = os.path.realpath(tempfile.mkdtemp(prefix="dmalint-neovim-"))
    try:
        kernel = write_project(root, flags)
        out = os.path.join(root, "record.json")
        env = dict(os.environ, DMALINT=dmalint, CLANGD=clangd, KERNEL=kernel, ROOT=root, OUT=out,
                   XDG_STATE_HOME=os.path.join(root, "state"),
                   XDG_CACHE_HOME=os.path.join(root, "cache"))
        command = [nvim, "--headless", "--clean", "-n", "-i", "NONE",
                   "-c", "luafile " + os.path.join(HERE, "neovim_session.lua")]
        record = run_editor("Neovim", command, root, env, out)
        if record is None:
            return 1
        if record.get("offset_encoding") != "utf-16":
            record["errors"].append("Neovim 0.7 speaks UTF-16 positions; it used %r"
                                    % record.get("offset_encoding"))

        def check_step(name, step, expected):
            problems = []
            got = step["dmalint"]
            for d in got:
                if d["source"] != "dmalint" or not d["href"].endswith("/%s.md" % d["code"]):
                    problems.append("%s: a diagnostic without dmalint's source or its check's "
                                    "page: %r" % (name, d))
            if comparable(got) != as_editor_shows(expected):
                problems.append("%s: Neovim shows dmalint's diagnostics\n  %s\nbut the standalone "
                                "reports\n  %s" % (name, json.dumps(comparable(got)),
                                                   json.dumps(as_editor_shows(expected))))
            # clangd publishes clang's own warning (source "clang").
            if not any(d["code"] == "-Wunused-variable" and "'unused'" in d["message"]
                       for d in step["clangd"]):
                problems.append("%s: clangd's diagnostics did not arrive: %r"
                                % (name, step["clangd"]))
            return problems

        problems, steps, actions = judge(record, "Neovim", dmalint, flags, root, check_step)
        if problems:
            print("FAIL: the Neovim session:\n" + "\n".join(problems))
            print("Neovim's stderr:\n" + r.stderr[-3000:])
            return 1
        print("PASS: Neovim %s with dmalint --lsp and %s: %d finding(s) on open, %d after "
              "typing, %d quick fix(es) applied, clangd's warning throughout"
              % (subprocess.run([nvim, "--version"], capture_output=True, text=True)
                 .stdout.split("\n")[0], os.path.basename(clangd), len(steps["open"]["dmalint"]),
                 len(steps["typed"]["dmalint"]), len(actions)))
        return 0
    finally:
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
