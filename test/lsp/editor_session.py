"""What the editor tests (test_neovim.py, test_eglot.py) share: the project
an editor opens, the standalone's findings and fixes to judge it by, and the
judging of a session's record.

A session script (neovim_session.lua, eglot_session.el) opens KERNEL, types a
second bug, applies dmalint's quick fixes one at a time, and records the steps
"open", "typed" and "fixed" (each with dmalint's diagnostics as the editor
holds them and the buffer's text) and an "action" step per quick fix (its
kind and whether it was preferred), plus "errors".
"""

import json
import os
import subprocess
import sys

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


def fail(message):
    print("FAIL: " + message)
    return 1


def require_or_skip(editor, why, variable):
    """The exit status of a test whose editor is missing: 77 (skipped), or a
    failure when `variable` is 1 (scripts/test.sh, which installs it, sets
    it: a skip there would hide that the test never ran)."""
    if os.environ.get(variable) == "1":
        return fail("%s, and %s=1 (scripts/test.sh) requires this test to run" % (why, variable))
    print("SKIP: %s; scripts/test.sh installs %s" % (why, editor))
    return 77


def run_editor(editor, command, root, env, out):
    """Runs the editor's scripted session; its record (the JSON it wrote to
    \p out), or None after saying why there is none."""
    try:
        r = subprocess.run(command, cwd=root, env=env, capture_output=True, text=True,
                           timeout=600)
    except subprocess.TimeoutExpired:
        fail("%s did not finish the session within 600 s" % editor)
        return None
    if not os.path.exists(out):
        fail("%s wrote no record (exit status %d)\n%s\n%s"
             % (editor, r.returncode, r.stdout[-3000:], r.stderr[-3000:]))
        return None
    with open(out) as f:
        return json.load(f)


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


def standalone(dmalint, flags, directory, name):
    return compare_fixture.standalone_findings(
        dmalint, [os.path.join(directory, name), "--", *flags], directory)


def fixed_by_standalone(dmalint, flags, directory, name, text):
    """What `dmalint --fix` makes of `text`, written to `name` first."""
    path = os.path.join(directory, name)
    with open(path, "w") as f:
        f.write(text)
    subprocess.run([dmalint, "--quiet", "--fix", path, "--", *flags], cwd=directory,
                   capture_output=True)
    with open(path) as f:
        return f.read()


def as_editor_shows(findings):
    """What an editor holds for the standalone's findings: 0-based line,
    message, check, severity, notes (their line and LSP character, which on
    the test's ASCII kernel is the byte column - 1)."""
    out = []
    for check, level, message, where, notes, _ in findings:
        out.append({"lnum": where[1] - 1, "message": message, "code": check,
                    "severity": 1 if level == "error" else 2,
                    "notes": [{"message": m, "line": at[1] - 1, "character": at[2] - 1}
                              for m, at in notes]})
    return sorted(out, key=lambda d: d["lnum"])


def judge(record, editor, dmalint, flags, root, check_step):
    """The problems of a session's record, and its steps by name.
    `check_step(name, step, expected)` gives the problems of one step against
    the standalone's findings `expected`."""
    problems = list(record["errors"])
    steps = {s["name"]: s for s in record["steps"] if s["name"] != "action"}
    actions = [s for s in record["steps"] if s["name"] == "action"]

    def step_against(name, expected):
        step = steps.get(name)
        if not step:
            problems.append("the session did not reach the step '%s'" % name)
            return None
        problems.extend(check_step(name, step, expected))
        return step

    opened = step_against("open", standalone(dmalint, flags, root, "kernel.cc"))
    if opened and len(opened["dmalint"]) != 1:
        problems.append("open: expected the kernel's one finding, got %r" % opened["dmalint"])
    typed = steps.get("typed")
    if typed:
        with open(os.path.join(root, "typed.cc"), "w") as f:
            f.write(typed["text"])
        expected = standalone(dmalint, flags, root, "typed.cc")
        step_against("typed", expected)
        if len(expected) != 2:
            problems.append("typed: the standalone should find the typed bug too: %r"
                            % (expected,))
        # What the fixes must make of the typed text.
        fixed_text = fixed_by_standalone(dmalint, flags, root, "typed.cc", typed["text"])
    fixed = step_against("fixed", [])
    if fixed and typed and fixed["text"] != fixed_text:
        problems.append("the buffer after %s applied the quick fixes:\n%s\ndiffers from "
                        "dmalint --fix:\n%s" % (editor, fixed["text"], fixed_text))
    if len(actions) != 2 or not all(a["kind"] == "quickfix" and a["preferred"] is True
                                    for a in actions):
        problems.append("expected two preferred quickfix actions, got %r" % actions)
    return problems, steps, actions
