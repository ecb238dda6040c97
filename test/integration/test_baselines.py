"""Baselines that survive real edits (issue 17): fingerprints made of what a
finding is about, paths relative to the git top level, old baselines read
and migrated. Each test works on a git repository made in the test, with
its build directory inside it, as a CI job has.

Tool paths come from the environment (set by CTest): DMALINT,
DMALINT_INCLUDE.
"""
import hashlib
import json
import os
import re
import shutil
import subprocess
import tempfile
import textwrap
import unittest

from common import DMALINT, HEAD, INCLUDE, git
KERNEL = HEAD + textwrap.dedent("""\
    namespace kernels {
    void ring(Ref<float> a, Ref<float> b, DmaSemaphore s, DmaSemaphore r, bool c) {
      auto d = make_async_copy(a, b, s);
      d.start(2);  // prefetch
      if (c) d.wait_send();
      auto e = make_async_remote_copy(a, b, s, r, {0, 1}, DeviceIdType::kLogical);
      e.start();
      e.wait();
    }
    }  // namespace kernels
    """)
FINDING = re.compile(r"^(\S+):(\d+):(\d+): (?:warning|error): (.*) \[(dma-[\w-]+)")


@unittest.skipUnless(DMALINT and INCLUDE and shutil.which("git"), "tool paths or git missing")
class Baselines(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="dmalint-baselines-")
        self.addCleanup(shutil.rmtree, self.tmp)
        self.repo = self.make_repo("repo")

    def make_repo(self, name, files=None):
        repo = os.path.join(self.tmp, name)
        os.makedirs(repo)
        subprocess.run(["git", "init", "-q", repo], check=True)
        for path, text in (files or {"src/ring.cc": KERNEL}).items():
            self.write(repo, path, text)
        self.database(repo)
        git(repo, "add", "-A")
        git(repo, "commit", "-q", "-m", "kernels")
        return repo

    def database(self, repo):
        """build/compile_commands.json for every .cc under src/."""
        entries = []
        for root, _, names in os.walk(os.path.join(repo, "src")):
            for n in sorted(names):
                if n.endswith(".cc"):
                    path = os.path.join(root, n)
                    entries.append({"directory": os.path.join(repo, "build"), "file": path,
                                    "command": "clang++ -std=c++17 -I%s -c %s" % (INCLUDE, path)})
        self.write(repo, "build/compile_commands.json", json.dumps(entries))

    def write(self, repo, path, text):
        full = os.path.join(repo, path)
        os.makedirs(os.path.dirname(full), exist_ok=True)
        with open(full, "w") as f:
            f.write(text)
        return full

    def read(self, repo, path):
        with open(os.path.join(repo, path)) as f:
            return f.read()

    def dmalint(self, *args, repo=None):
        repo = repo or self.repo
        # From the build directory, as a CI step after cmake might: the source
        # root is still the repository's top level.
        return subprocess.run([DMALINT, "-p", os.path.join(repo, "build"), *args],
                              cwd=os.path.join(repo, "build"), capture_output=True, text=True,
                              timeout=300)

    def write_baseline(self):
        path = os.path.join(self.tmp, "baseline.json")
        r = self.dmalint("--write-baseline", path)
        self.assertEqual(r.returncode, 1, r.stderr)
        self.assertIn("recorded 3 findings", r.stderr)
        return path

    def assert_all_accepted(self, baseline, repo=None):
        r = self.dmalint("--baseline", baseline, repo=repo)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertEqual(r.stdout, "")
        self.assertIn("0 new findings, 3 in the baseline", r.stderr)

    def test_paths_are_relative_to_the_git_top_level(self):
        baseline = self.write_baseline()
        with open(baseline) as f:
            recorded = json.load(f)
        self.assertEqual(recorded["version"], 2)
        self.assertEqual({e["file"] for e in recorded["findings"]}, {"src/ring.cc"})
        self.assertEqual({e["function"] for e in recorded["findings"]}, {"kernels::ring"})
        for entry in recorded["findings"]:
            self.assertRegex(entry["fingerprint"], r"^[0-9a-f]{32}:\d+$")
            self.assertNotIn(self.tmp, json.dumps(entry))

    def test_a_baseline_written_to_stdout_follows_the_findings(self):
        r = self.dmalint("--write-baseline=-")
        self.assertEqual(r.returncode, 1, r.stderr)
        text, brace, rest = r.stdout.partition("\n{\n")
        self.assertEqual(len([l for l in text.splitlines() if FINDING.match(l)]), 3, r.stdout)
        recorded = json.loads(brace.strip() + rest)
        self.assertEqual(len(recorded["findings"]), 3)

    def test_the_same_tree_checked_out_elsewhere_matches(self):
        baseline = self.write_baseline()
        clone = os.path.join(self.tmp, "elsewhere", "clone")
        subprocess.run(["git", "clone", "-q", self.repo, clone], check=True)
        self.database(clone)  # the commands name the clone's files
        self.assert_all_accepted(baseline, repo=clone)

    def test_edits_that_do_not_change_the_findings_keep_them_accepted(self):
        baseline = self.write_baseline()
        text = self.read(self.repo, "src/ring.cc")
        edits = {
            "lines inserted above": "// A new first line.\n\n" + text,
            "a comment edited on the finding's line":
                text.replace("d.start(2);  // prefetch", "d.start(2);  // prefetch of step i+1"),
            "a comment inside the statement": text.replace("d.start(2)", "d.start(/* hi */ 2)"),
            "the line re-indented": text.replace("  d.start(2);", "\td.start( 2 );"),
        }
        for what, edited in edits.items():
            with self.subTest(what):
                self.write(self.repo, "src/ring.cc", edited)
                self.assert_all_accepted(baseline)
        # A rename (the database follows the file, as CMake's would).
        self.write(self.repo, "src/ring.cc", text)
        git(self.repo, "mv", "src/ring.cc", "src/ring_all_gather.cc")
        self.database(self.repo)
        self.assert_all_accepted(baseline)

    def test_edits_that_change_a_finding_make_it_new(self):
        baseline = self.write_baseline()
        text = self.read(self.repo, "src/ring.cc")
        cases = {
            "another priority": (text.replace("d.start(2)", "d.start(3)"), "got 3"),
            "another function": (text.replace("void ring(", "void ring2("), None),
            "a second copy": (text.replace("  d.start(2);  // prefetch\n",
                                           "  d.start(2);  // prefetch\n  d.start(2);\n"),
                              "got 2"),
        }
        for what, (edited, message) in cases.items():
            with self.subTest(what):
                self.write(self.repo, "src/ring.cc", edited)
                r = self.dmalint("--baseline", baseline)
                self.assertEqual(r.returncode, 1, r.stdout + r.stderr)
                new = [FINDING.match(l).group(4) for l in r.stdout.splitlines()
                       if FINDING.match(l)]
                if message:
                    self.assertEqual(len(new), 1, r.stdout)
                    self.assertIn(message, new[0])
                else:
                    self.assertEqual(len(new), 3, r.stdout)  # all three moved function

    def test_sarif_carries_the_same_fingerprints(self):
        baseline = self.write_baseline()
        with open(baseline) as f:
            recorded = [e["fingerprint"] for e in json.load(f)["findings"]]
        r = self.dmalint("--format=sarif")
        run = json.loads(r.stdout)["runs"][0]
        self.assertEqual([x["partialFingerprints"]["dmalint/v2"] for x in run["results"]],
                         recorded)
        self.assertEqual(run["originalUriBaseIds"]["SRCROOT"]["uri"], "file://" + self.repo + "/")

    def test_a_version_1_baseline_is_read_and_migrated(self):
        # dmalint 0.1's recipe, as its docs/reports.md described it:
        # hex(SHA-256(check, path relative to the source root -- then the
        # database's directory --, trimmed line text, message))[0:32] ":" N,
        # NUL after each field.
        r = self.dmalint()
        self.assertEqual(r.returncode, 1)
        lines = self.read(self.repo, "src/ring.cc").splitlines()
        entries = []
        for l in r.stdout.splitlines():
            m = FINDING.match(l)
            if not m:
                continue
            path, line, _, message, check = m.groups()
            # A file outside that root was named by its absolute path.
            root = os.path.join(self.repo, "build")
            full = os.path.join(root, path)
            portable = os.path.relpath(full, root) if full.startswith(root + "/") else full
            fields = [check, portable, lines[int(line) - 1].strip(), message]
            digest = hashlib.sha256("".join(f + "\0" for f in fields).encode()).hexdigest()
            entries.append({"fingerprint": digest[:32] + ":1", "check": check})
        self.assertEqual(len(entries), 3)
        old = os.path.join(self.tmp, "v1.json")
        with open(old, "w") as f:
            json.dump({"version": 1, "tool": "dmalint", "findings": entries}, f)
        r = self.dmalint("--baseline", old)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertIn("0 new findings, 3 in the baseline", r.stderr)
        self.assertIn("note: '%s' is a version 1 baseline" % old, r.stderr)
        # Migrated: written again, it is version 2 with the same findings.
        r = self.dmalint("--baseline", old, "--write-baseline", old)
        with open(old) as f:
            self.assertEqual(json.load(f)["version"], 2)
        self.assert_all_accepted(old)

    def test_identical_findings_in_two_files_are_two_entries(self):
        # No path in the fingerprint: the same kernel in two files has the
        # same fingerprints, and the baseline accepts each copy once.
        repo = self.make_repo("twins", {"src/a/ring.cc": KERNEL, "src/b/ring.cc": KERNEL})
        path = os.path.join(self.tmp, "twins.json")
        r = self.dmalint("--write-baseline", path, repo=repo)
        with open(path) as f:
            prints = [e["fingerprint"] for e in json.load(f)["findings"]]
        self.assertEqual(len(prints), 6)
        self.assertEqual(len(set(prints)), 3)
        r = self.dmalint("--baseline", path, repo=repo)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.write(repo, "src/c/ring.cc", KERNEL)
        self.database(repo)
        r = self.dmalint("--baseline", path, repo=repo)
        self.assertIn("3 new findings, 6 in the baseline", r.stderr)


if __name__ == "__main__":
    unittest.main()
