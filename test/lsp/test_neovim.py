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
import compare_fixture  # noqa: E402

KERNEL = """#include <tpu/dma.h>
using namespace tpu;

void kernel(Ref<float> hbm, Ref<float> vmem, DmaSemaphore sem) {
  int unused = 0;  // clangd's -Wunused-variable, no business of dmalint
  AsyncCopyDescriptor initial = make_async_copy(hbm, vmem, sem);
  initial.start();
  initial.wait_send();
  initial.wait_recv();
  // type here
}
"""


def write_project(root, flags):
    """The kernel, a .clang-tidy and a compile_commands.json in `root`; returns
    the kernel's path."""
    kernel = os.path.join(root, "kernel.cc")
    with open(kernel, "w") as f:
        f.write(KERNEL)
    with open(os.path.join(root, ".clang-tidy"), "w") as f:
        f.write("Checks: '-*,dma-*'\n")
    with open(os.path.join(root, "compile_commands.json"), "w") as f:
        json.dump([{"directory": root, "file": kernel,
                    "arguments": ["clang++", *flags, "-c", kernel]}], f)
    return kernel


def fixed_by_standalone(dmalint, flags, directory, name, text):
    """What `dmalint --fix` makes of `text`, written to `name` first."""
    path = os.path.join(directory, name)
    with open(path, "w") as f:
        f.write(text)
    subprocess.run([dmalint, "--quiet", "--fix", path, "--", *flags], cwd=directory,
                   capture_output=True)
    with open(path) as f:
        return f.read()


def fail(message):
    print("FAIL: " + message)
    return 1


def standalone(dmalint, flags, directory, name):
    return compare_fixture.standalone_findings(
        dmalint, [os.path.join(directory, name), "--", *flags], directory)


def as_neovim_shows(findings):
    """What Neovim's vim.diagnostic holds for the standalone's findings:
    0-based line, message, check, severity, notes (their line and LSP
    character, which on the test's ASCII kernel is the byte column - 1)."""
    out = []
    for check, level, message, where, notes, _ in findings:
        out.append({"lnum": where[1] - 1, "message": message, "code": check,
                    "severity": 1 if level == "error" else 2,
                    "notes": [{"message": m, "line": at[1] - 1, "character": at[2] - 1}
                              for m, at in notes]})
    return sorted(out, key=lambda d: d["lnum"])


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
        if os.environ.get("DMALINT_REQUIRE_NEOVIM") == "1":
            # scripts/test.sh (so CI) installs it: a skip there would hide
            # that the editor test never ran.
            return fail("Neovim ('%s') is not installed, and DMALINT_REQUIRE_NEOVIM=1 "
                        "(scripts/test.sh) requires this test to run" % args.nvim)
        print("SKIP: Neovim ('%s') is not installed; scripts/test.sh installs it "
              "(Debian package neovim)" % args.nvim)
        return 77
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
        try:
            r = subprocess.run(command, cwd=root, env=env, capture_output=True, text=True,
                               timeout=600)
        except subprocess.TimeoutExpired:
            return fail("Neovim did not finish the session within 600 s")
        if not os.path.exists(out):
            return fail("Neovim wrote no record (exit status %d)\n%s\n%s"
                        % (r.returncode, r.stdout[-3000:], r.stderr[-3000:]))
        with open(out) as f:
            record = json.load(f)
        problems = list(record["errors"])
        steps = {s["name"]: s for s in record["steps"] if s["name"] != "action"}
        actions = [s for s in record["steps"] if s["name"] == "action"]
        if record.get("offset_encoding") != "utf-16":
            problems.append("Neovim 0.7 speaks UTF-16 positions; it used %r"
                            % record.get("offset_encoding"))

        def check_step(name, expected):
            step = steps.get(name)
            if not step:
                problems.append("the session did not reach the step '%s'" % name)
                return None
            got = step["dmalint"]
            for d in got:
                if d["source"] != "dmalint" or not d["href"].endswith("/%s.md" % d["code"]):
                    problems.append("%s: a diagnostic without dmalint's source or its check's "
                                    "page: %r" % (name, d))
            if comparable(got) != as_neovim_shows(expected):
                problems.append("%s: Neovim shows dmalint's diagnostics\n  %s\nbut the standalone "
                                "reports\n  %s" % (name, json.dumps(comparable(got)),
                                                   json.dumps(as_neovim_shows(expected))))
            # clangd publishes clang's own warning (source "clang").
            if not any(d["code"] == "-Wunused-variable" and "'unused'" in d["message"]
                       for d in step["clangd"]):
                problems.append("%s: clangd's diagnostics did not arrive: %r"
                                % (name, step["clangd"]))
            return step

        opened = check_step("open", standalone(dmalint, flags, root, "kernel.cc"))
        if opened and len(opened["dmalint"]) != 1:
            problems.append("open: expected the kernel's one finding, got %r" % opened["dmalint"])
        typed = steps.get("typed")
        if typed:
            with open(os.path.join(root, "typed.cc"), "w") as f:
                f.write(typed["text"])
            expected = standalone(dmalint, flags, root, "typed.cc")
            check_step("typed", expected)
            if len(expected) != 2:
                problems.append("typed: the standalone should find the typed bug too: %r"
                                % (expected,))
            # What the fixes must make of the typed text.
            fixed_text = fixed_by_standalone(dmalint, flags, root, "typed.cc", typed["text"])
        fixed = check_step("fixed", [])
        if fixed and typed and fixed["text"] != fixed_text:
            problems.append("the buffer after Neovim applied the quick fixes:\n%s\ndiffers from "
                            "dmalint --fix:\n%s" % (fixed["text"], fixed_text))
        if len(actions) != 2 or not all(a["kind"] == "quickfix" and a["preferred"]
                                        for a in actions):
            problems.append("expected two preferred quickfix actions, got %r" % actions)
        if problems:
            print("FAIL: the Neovim session:\n" + "\n".join(problems))
            print("Neovim's stderr:\n" + r.stderr[-3000:])
            return 1
        print("PASS: Neovim %s with dmalint --lsp and %s: %d finding(s) on open, %d after "
              "typing, %d quick fix(es) applied, clangd's warning throughout"
              % (subprocess.run([nvim, "--version"], capture_output=True, text=True)
                 .stdout.split("\n")[0], os.path.basename(clangd), len(opened["dmalint"]),
                 len(typed["dmalint"]), len(actions)))
        return 0
    finally:
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
