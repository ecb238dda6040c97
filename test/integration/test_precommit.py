"""The pre-commit hook (.pre-commit-hooks.yaml) driven by the real pre-commit.

Each test builds a throw-away git repository holding a kernel and a
compile_commands.json, points a .pre-commit-config.yaml at a hook repository
(`repo:` a local path, `rev:` a commit) and runs pre-commit on it, as a user
would. The hook repository is a fresh git repository holding a copy of this
repository's .pre-commit-hooks.yaml, so the test checks the manifest of the
working tree whatever state this repository's git history is in.

Nothing touches the network: the hook is `language: system`, so pre-commit
installs nothing, and git may only use local paths (GIT_ALLOW_PROTOCOL=file).
PRE_COMMIT_HOME is a temporary directory, the user's git configuration is
ignored (as on a CI machine with no git identity; the test repositories set
their own), and the directory of DMALINT comes first on PATH, which is how
the hook finds `dmalint`.

CodeQualityReport checks docs/ci/dmalint_codequality.py, the converter the GitLab
CI example (docs/ci/gitlab-ci.yml) runs on dmalint's output.

Environment (set by CTest): DMALINT (the dmalint binary), DMALINT_INCLUDE
(the directory holding tpu/dma.h), DMALINT_REPO (this repository's root).
Skipped when one is missing, or (the hook tests) when pre-commit is not installed.
"""
import importlib.util
import json
import os
import shutil
import subprocess
import sys
import tempfile
import textwrap
import unittest

from common import BAD_PRIORITY as BAD, DMALINT, INCLUDE
from common import HEAD as KERNEL_HEAD

REPO = os.environ.get("DMALINT_REPO")
PRE_COMMIT = shutil.which("pre-commit")

CLEAN = KERNEL_HEAD + textwrap.dedent("""\
    void k(Ref<float> a, Ref<float> b, DmaSemaphore s) {
      auto d = make_async_copy(a, b, s);
      d.start();
      d.wait();
    }
    """)
BAD_DIAGNOSTIC = ("src/bad.cc:5:11: warning: DMA start priority must be non-negative, "
                  "got -1 [dma-start-priority]")
HOOK_NAME = "dmalint (DMA descriptor misuse)"


def _environment(home):
    env = {k: v for k, v in os.environ.items()
           # A test run from inside a git hook, or with hooks skipped, must not leak in.
           if not k.startswith("GIT_") and not k.startswith("PRE_COMMIT") and k != "SKIP"}
    env.update({
        "PATH": os.path.dirname(os.path.abspath(DMALINT)) + os.pathsep + env.get("PATH", ""),
        "PRE_COMMIT_HOME": os.path.join(home, "pre-commit-home"),
        "PRE_COMMIT_COLOR": "never",
        # No user or system git configuration, so no identity: like a bare CI machine.
        # (pre-commit drops GIT_CONFIG_* for its own git calls; HOME covers those.)
        "HOME": home,
        "XDG_CONFIG_HOME": os.path.join(home, "config"),
        "GIT_CONFIG_GLOBAL": os.devnull,
        "GIT_CONFIG_NOSYSTEM": "1",
        # Local paths only: a clone that needed the network would fail.
        "GIT_ALLOW_PROTOCOL": "file",
        "GIT_TERMINAL_PROMPT": "0",
    })
    return env


@unittest.skipUnless(DMALINT and INCLUDE and REPO, "DMALINT, DMALINT_INCLUDE, DMALINT_REPO not set")
@unittest.skipUnless(PRE_COMMIT, "pre-commit is not installed")
class PreCommitHook(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.home = tempfile.mkdtemp(prefix="dmalint-precommit-")
        cls.env = _environment(cls.home)
        # The hook repository: this repository's manifest, committed.
        cls.hook_repo = os.path.join(cls.home, "hook-repo")
        os.makedirs(cls.hook_repo)
        shutil.copy(os.path.join(REPO, ".pre-commit-hooks.yaml"), cls.hook_repo)
        cls.git_init(cls.hook_repo)
        cls.git(cls.hook_repo, "add", ".pre-commit-hooks.yaml")
        cls.git(cls.hook_repo, "commit", "-q", "-m", "hooks")
        cls.hook_rev = cls.git(cls.hook_repo, "rev-parse", "HEAD").stdout.strip()

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.home)

    @classmethod
    def git(cls, cwd, *args, check=True):
        r = subprocess.run(["git", *args], cwd=cwd, env=cls.env, capture_output=True, text=True,
                           timeout=60)
        if check and r.returncode != 0:
            raise AssertionError("git %s failed:\n%s%s" % (" ".join(args), r.stdout, r.stderr))
        return r

    @classmethod
    def git_init(cls, path):
        cls.git(path, "init", "-q")
        cls.git(path, "config", "user.name", "dmalint test")
        cls.git(path, "config", "user.email", "dmalint-test@example.invalid")
        cls.git(path, "config", "commit.gpgsign", "false")

    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="project-", dir=self.home)
        self.git_init(self.dir)
        self.write(".gitignore", "build/\n")
        self.write("src/bad.cc", BAD)
        self.write("src/clean.cc", CLEAN)
        self.write_database(["src/bad.cc", "src/clean.cc"])
        self.write_config(args=["-p", "build"])

    def tearDown(self):
        shutil.rmtree(self.dir)

    def write(self, name, text):
        path = os.path.join(self.dir, name)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            f.write(text)
        return path

    def write_database(self, files, name="build/compile_commands.json"):
        build = os.path.join(self.dir, "build")
        entries = [{"directory": build, "file": os.path.join(self.dir, f),
                    "command": "clang++ -std=c++17 -I%s -c %s -o %s.o"
                               % (INCLUDE, os.path.join(self.dir, f), os.path.basename(f))}
                   for f in files]
        self.write(name, json.dumps(entries, indent=1))

    def write_config(self, args=None, **keys):
        hook = {"id": "dmalint", **keys}
        if args is not None:
            hook["args"] = args
        config = {"repos": [{"repo": self.hook_repo, "rev": self.hook_rev, "hooks": [hook]}]}
        # JSON is YAML.
        self.write(".pre-commit-config.yaml", json.dumps(config, indent=2) + "\n")

    def stage_all(self):
        self.git(self.dir, "add", "-A")

    def pre_commit(self, *args):
        return subprocess.run([PRE_COMMIT, *args], cwd=self.dir, env=self.env,
                              capture_output=True, text=True, timeout=300)

    def run_hook(self, *files):
        self.stage_all()
        return self.pre_commit("run", "--color", "never", "--files", *files)

    def assert_hook_failed(self, r, exit_code):
        out = r.stdout + r.stderr
        self.assertEqual(r.returncode, 1, out)
        self.assertRegex(out, HOOK_NAME.replace("(", r"\(").replace(")", r"\)") + r"\.+Failed")
        self.assertIn("- exit code: %d" % exit_code, out)
        return out

    def test_fails_on_a_finding_and_passes_on_clean_code(self):
        r = self.run_hook("src/bad.cc")
        out = self.assert_hook_failed(r, 1)
        self.assertIn(BAD_DIAGNOSTIC, out)
        self.assertIn("    5 |   d.start(-1);", out)

        r = self.run_hook("src/clean.cc")
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertRegex(r.stdout, r"\.+Passed")
        self.assertNotIn("warning:", r.stdout)

    def test_blocks_the_commit_until_the_kernel_is_fixed(self):
        r = self.pre_commit("install")
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.stage_all()
        r = self.git(self.dir, "commit", "-m", "kernel with a bad priority", check=False)
        self.assertNotEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertIn(BAD_DIAGNOSTIC, r.stdout + r.stderr)
        self.assertNotEqual(self.git(self.dir, "rev-parse", "--verify", "-q", "HEAD",
                                     check=False).returncode, 0, "the commit was made")

        self.write("src/bad.cc", BAD.replace("d.start(-1);", "d.start(1);"))
        self.stage_all()
        r = self.git(self.dir, "commit", "-m", "kernel fixed", check=False)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertRegex(r.stdout + r.stderr, r"\.+Passed")

    def test_all_files_checks_every_tracked_kernel_once(self):
        self.write("src/other.cc", BAD.replace("void k(", "void other("))
        self.write_database(["src/bad.cc", "src/clean.cc", "src/other.cc"])
        self.stage_all()
        r = self.pre_commit("run", "--color", "never", "--all-files")
        out = self.assert_hook_failed(r, 1)
        self.assertEqual(out.count("warning: DMA start priority"), 2, out)
        self.assertIn("src/other.cc:5:11: warning:", out)

    def test_one_dmalint_run_reports_a_shared_header_once(self):
        # require_serial: one dmalint gets all the files and deduplicates the header's
        # finding. Split across processes (one per core), each would print it.
        self.write("src/shared.h", "#pragma once\n" + BAD.replace("void k(", "inline void shared(")
                   .replace("d.start(-1);", "d.start(2);"))
        files = []
        for i in range(8):
            files.append(self.write("src/k%d.cc" % i, '#include "shared.h"\n' + CLEAN.replace(
                "void k(", "void k%d(" % i)))
        self.write_database([os.path.relpath(f, self.dir) for f in files])
        self.write_config(args=["-p", "build", "--header-filter=.*"])
        r = self.run_hook(*[os.path.relpath(f, self.dir) for f in files])
        out = self.assert_hook_failed(r, 1)
        self.assertEqual(out.count("src/shared.h:6:11: warning: DMA start priority must be 0 or 1, "
                                   "got 2"), 1, out)

    def test_files_missing_from_the_database_get_an_inferred_command(self):
        # A new kernel and a self-contained header, neither in compile_commands.json:
        # both take the flags of the closest file that is (-I for tpu/dma.h).
        self.write("src/new_kernel.cc", BAD.replace("d.start(-1);", "d.start(2);"))
        self.write("src/helpers.h", "#pragma once\n" + BAD.replace("void k(", "inline void h(")
                   .replace("d.start(-1);", "d.start(3);"))
        r = self.run_hook("src/new_kernel.cc", "src/helpers.h")
        out = self.assert_hook_failed(r, 1)
        self.assertIn("src/new_kernel.cc:5:11: warning: DMA start priority must be 0 or 1, got 2", out)
        self.assertIn("src/helpers.h:6:11: warning: DMA start priority must be 0 or 1, got 3", out)

    def test_a_header_that_does_not_compile_alone_is_an_input_error(self):
        # Relies on its includer for <tpu/dma.h> and the using-directive.
        self.write("src/fragment.inl", "inline void g(Ref<float> a, Ref<float> b, DmaSemaphore s) {\n"
                                       "  make_async_copy(a, b, s).start();\n}\n")
        r = self.run_hook("src/fragment.inl", "src/clean.cc")
        out = self.assert_hook_failed(r, 2)
        self.assertIn("compiler error", out)
        # The documented ways out: exclude such files in the config.
        for keys in ({"exclude": r"\.inl$"}, {"exclude_types": ["header", "inl"]}):
            self.write_config(args=["-p", "build"], **keys)
            r = self.run_hook("src/fragment.inl", "src/clean.cc")
            self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
            self.assertRegex(r.stdout, r"\.+Passed")

    def test_other_files_are_not_passed(self):
        self.write("README.md", "kernels\n")
        self.write("tools/gen.py", "print('x')\n")
        r = self.run_hook("README.md", "tools/gen.py")
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertIn("(no files to check)Skipped", r.stdout)

    def test_without_args_needs_a_database_next_to_the_files(self):
        self.write_config(args=None)
        r = self.run_hook("src/bad.cc")
        out = self.assert_hook_failed(r, 2)
        self.assertIn("no compilation database found", out)
        # compile_commands.json at the top of the repository (here a copy; usually a
        # symlink to build/compile_commands.json) is found from src/.
        shutil.copy(os.path.join(self.dir, "build", "compile_commands.json"), self.dir)
        self.write(".gitignore", "build/\ncompile_commands.json\n")
        r = self.run_hook("src/bad.cc")
        self.assertIn(BAD_DIAGNOSTIC, self.assert_hook_failed(r, 1))

    def test_try_repo(self):
        # `pre-commit try-repo` takes no hook args: it relies on a top-level database.
        shutil.copy(os.path.join(self.dir, "build", "compile_commands.json"), self.dir)
        self.write(".gitignore", "build/\ncompile_commands.json\n")
        self.stage_all()
        r = self.pre_commit("try-repo", "--color", "never", self.hook_repo, "dmalint",
                            "--files", "src/bad.cc")
        self.assertIn(BAD_DIAGNOSTIC, self.assert_hook_failed(r, 1))
        r = self.pre_commit("try-repo", "--color", "never", self.hook_repo, "dmalint",
                            "--files", "src/clean.cc")
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)


@unittest.skipUnless(DMALINT and INCLUDE and REPO, "DMALINT, DMALINT_INCLUDE, DMALINT_REPO not set")
class CodeQualityReport(unittest.TestCase):
    """docs/ci/dmalint_codequality.py on real dmalint output."""

    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="dmalint-codequality-")
        self.addCleanup(shutil.rmtree, self.dir)
        spec = importlib.util.spec_from_file_location(
            "dmalint_codequality", os.path.join(REPO, "docs", "ci", "dmalint_codequality.py"))
        self.converter = importlib.util.module_from_spec(spec)
        dont_write, sys.dont_write_bytecode = sys.dont_write_bytecode, True  # not into docs/
        try:
            spec.loader.exec_module(self.converter)
        finally:
            sys.dont_write_bytecode = dont_write

    def dmalint_output(self, files):
        r = subprocess.run([DMALINT, *files, "--", "-std=c++17", "-I" + INCLUDE], cwd=self.dir,
                           capture_output=True, text=True, timeout=120)
        self.assertEqual(r.returncode, 1, r.stderr)
        return r.stdout

    def write(self, name, text):
        path = os.path.join(self.dir, name)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            f.write(text)
        return name

    def test_findings_become_code_quality_entries(self):
        # Two identical findings in one file, a finding with notes, warnings-as-errors.
        self.write(".clang-tidy", "WarningsAsErrors: 'dma-device-id-type-mismatch'\n")
        twice = BAD.replace("  d.wait();", "  d.start(-1);\n  d.wait();")
        remote = KERNEL_HEAD + textwrap.dedent("""\
            void r(Ref<float> a, Ref<float> b, DmaSemaphore s, DmaSemaphore t) {
              auto e = make_async_remote_copy(a, b, s, t, {0, 1}, DeviceIdType::kLogical);
              e.start();
              e.wait();
            }
            """)
        out = self.dmalint_output([self.write("src/twice.cc", twice),
                                   self.write("src/remote.cc", remote)])
        self.assertIn("note:", out)
        self.assertIn("[dma-device-id-type-mismatch,-warnings-as-errors]", out)
        report = self.converter.convert(out.splitlines(True))
        self.assertEqual(len(report), 3, json.dumps(report, indent=1))
        for entry in report:
            self.assertEqual(set(entry), {"description", "check_name", "fingerprint", "severity",
                                          "location"})
            self.assertEqual(set(entry["location"]), {"path", "lines"})
            self.assertIsInstance(entry["location"]["lines"]["begin"], int)
        starts = [e for e in report if e["check_name"] == "dma-start-priority"]
        self.assertEqual([e["location"] for e in starts],
                         [{"path": "src/twice.cc", "lines": {"begin": 5}},
                          {"path": "src/twice.cc", "lines": {"begin": 6}}])
        self.assertEqual({e["severity"] for e in starts}, {"major"})
        self.assertEqual(starts[0]["description"], "DMA start priority must be non-negative, got -1")
        self.assertNotEqual(starts[0]["fingerprint"], starts[1]["fingerprint"])
        (device,) = [e for e in report if e["check_name"] == "dma-device-id-type-mismatch"]
        self.assertEqual(device["location"]["path"], "src/remote.cc")
        # The fingerprint does not depend on the line.
        moved = out.replace("src/twice.cc:5:", "src/twice.cc:9:").replace("src/twice.cc:6:",
                                                                           "src/twice.cc:10:")
        self.assertEqual([e["fingerprint"] for e in self.converter.convert(moved.splitlines())],
                         [e["fingerprint"] for e in report])

    def test_command_line(self):
        out = self.dmalint_output([self.write("src/bad.cc", BAD)])
        self.write("dmalint.txt", out)
        script = os.path.join(REPO, "docs", "ci", "dmalint_codequality.py")
        for args, stdin in (([script, "dmalint.txt"], None), ([script], out)):
            r = subprocess.run([sys.executable, *args], cwd=self.dir, input=stdin, capture_output=True,
                               text=True, timeout=60)
            self.assertEqual(r.returncode, 0, r.stderr)
            (entry,) = json.loads(r.stdout)
            self.assertEqual(entry["location"], {"path": "src/bad.cc", "lines": {"begin": 5}})
            self.assertEqual(entry["check_name"], "dma-start-priority")


if __name__ == "__main__":
    unittest.main()
