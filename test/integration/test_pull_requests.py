"""What a CI maintainer expects for pull requests and matrices (issue 17):
--diff=REV and --diff-file=PATCH|- (only findings on changed lines, only the
translation units the change touches), --shard=K/N (a stable split of the
database) and --merge-sarif OUT IN... (one log from the shards'). On git
repositories made in the test.

Tool paths come from the environment (set by CTest): DMALINT,
DMALINT_INCLUDE, SARIF_SCHEMA.
"""
import json
import os
import re
import shutil
import subprocess
import tempfile
import textwrap
import unittest

from common import DMALINT, INCLUDE, SCHEMA, git

try:
    import jsonschema
except ImportError:
    jsonschema = None

HEADER = textwrap.dedent("""\
    #include <tpu/dma.h>
    using namespace tpu;
    inline void shared(Ref<float> a, Ref<float> b, DmaSemaphore s) {
      auto d = make_async_copy(a, b, s);
      d.start(0);
      d.wait();
    }
    """)


def kernel(name, priority, include="shared.h"):
    """A kernel whose line 4 starts a copy with \\p priority."""
    return textwrap.dedent("""\
        #include "%s"
        void %s(Ref<float> a, Ref<float> b, DmaSemaphore s) {
          auto d = make_async_copy(a, b, s);
          d.start(%d);
          d.wait();
        }
        """) % (include, name, priority)


FINDING = re.compile(r"^(\S+):(\d+):\d+: (?:warning|error): .*got (-?\d+) \[dma-start-priority\]$",
                     re.M)


@unittest.skipUnless(DMALINT and INCLUDE and shutil.which("git"), "tool paths or git missing")
class Base(unittest.TestCase):
    FILES = {"src/shared.h": HEADER, "src/a.cc": kernel("a", 5),
             "src/b.cc": kernel("b", 0), "src/lonely.h": HEADER.replace("shared(", "lonely("),
             # Does not compile: analysed, it would make the status 2.
             "src/c.cc": "#include <tpu/dma.h>\nvoid c() { int x = nope; }\n"}

    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="dmalint-pr-")
        self.addCleanup(shutil.rmtree, self.tmp)
        self.repo = os.path.join(self.tmp, "repo")
        os.makedirs(self.repo)
        git(self.repo, "init", "-q")
        for path, text in self.FILES.items():
            self.write(path, text)
        self.database()
        git(self.repo, "add", "-A")
        git(self.repo, "commit", "-q", "-m", "base")

    def write(self, path, text):
        full = os.path.join(self.repo, path)
        os.makedirs(os.path.dirname(full), exist_ok=True)
        with open(full, "w") as f:
            f.write(text)

    def edit(self, path, old, new):
        with open(os.path.join(self.repo, path)) as f:
            text = f.read()
        self.assertIn(old, text)
        self.write(path, text.replace(old, new))

    def database(self):
        entries = []
        for root, _, names in os.walk(os.path.join(self.repo, "src")):
            for n in sorted(names):
                if n.endswith(".cc"):
                    full = os.path.join(root, n)
                    entries.append({"directory": os.path.join(self.repo, "build"), "file": full,
                                    "command": "clang++ -std=c++17 -I%s -c %s" % (INCLUDE, full)})
        self.write("build/compile_commands.json", json.dumps(entries))

    def dmalint(self, *args, stdin=None):
        return subprocess.run([DMALINT, "-p", "build", "--header-filter=.*", *args],
                              cwd=self.repo, capture_output=True, text=True, timeout=300,
                              input=stdin)

    def reported(self, r):
        """(file, line, priority) of each finding printed."""
        return sorted((p, int(l), int(v)) for p, l, v in FINDING.findall(r.stdout))


class PullRequests(Base):
    def change(self):
        """A new finding in a.cc (line 9), one in the shared header (line 5)."""
        self.write("src/a.cc", kernel("a", 5) + kernel("a2", 7, "shared.h").split("\n", 1)[1])
        self.edit("src/shared.h", "d.start(0);", "d.start(3);")

    def test_diff_reports_only_changed_lines_of_the_files_the_change_touches(self):
        self.change()
        r = self.dmalint("--diff=HEAD")
        # Not a.cc:4 (there before), not c.cc (untouched, so not compiled).
        self.assertEqual(r.returncode, 1, r.stdout + r.stderr)
        self.assertEqual(self.reported(r), [("src/a.cc", 9, 7), ("src/shared.h", 5, 3)])
        self.assertIn("dmalint: analysing 2 of 3 files (those the change touches); findings on "
                      "changed lines only", r.stderr)
        # Once committed, against the commit before.
        git(self.repo, "commit", "-q", "-am", "change")
        self.assertEqual(self.reported(self.dmalint("--diff=HEAD~1")),
                         [("src/a.cc", 9, 7), ("src/shared.h", 5, 3)])
        # The same as a full run, restricted to those lines.
        full = self.reported(self.dmalint())
        self.assertIn(("src/a.cc", 4, 5), full)

    def test_diff_file_takes_git_and_plain_unified_diffs(self):
        self.change()
        patch = git(self.repo, "diff", "HEAD")  # a/ b/ prefixes, three lines of context
        path = os.path.join(self.tmp, "change.patch")
        with open(path, "w") as f:
            f.write(patch)
        want = [("src/a.cc", 9, 7), ("src/shared.h", 5, 3)]
        self.assertEqual(self.reported(self.dmalint("--diff-file=" + path)), want)
        self.assertEqual(self.reported(self.dmalint("--diff-file=-", stdin=patch)), want)
        # diff -u of two trees: no prefixes, time stamps after a tab.
        plain = patch.replace("--- a/", "--- ").replace("+++ b/", "+++ ")
        plain = re.sub(r"^(\+\+\+|---) (\S+)$", r"\1 \2\t2025-01-01 00:00:00", plain, flags=re.M)
        self.assertEqual(self.reported(self.dmalint("--diff-file=-", stdin=plain)), want)

    def test_a_diff_of_another_tree_is_an_error_not_an_empty_change(self):
        patch = "--- a/lib/other.cc\n+++ b/lib/other.cc\n@@ -1 +1 @@\n-x\n+y\n"
        r = self.dmalint("--diff-file=-", stdin=patch)
        self.assertEqual(r.returncode, 2)
        self.assertIn("the diff names 'lib/other.cc', which is not a file under '%s'"
                      % self.repo, r.stderr)
        self.assertEqual(r.stdout, "")
        r = self.dmalint("--diff=no-such-revision")
        self.assertEqual(r.returncode, 2)
        self.assertIn("'git diff no-such-revision' in '%s' failed:" % self.repo, r.stderr)

    def test_a_changed_file_that_does_not_compile_is_analysed(self):
        self.edit("src/c.cc", "int x", "int  x")
        r = self.dmalint("--diff=HEAD")
        self.assertEqual(r.returncode, 2, r.stdout + r.stderr)
        self.assertIn("use of undeclared identifier 'nope'", r.stdout)

    def test_a_header_no_file_includes_analyses_nothing(self):
        self.edit("src/lonely.h", "d.start(0);", "d.start(9);")
        r = self.dmalint("--diff=HEAD", "--format=sarif")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("analysing 0 of 3 files", r.stderr)
        self.assertEqual(json.loads(r.stdout)["runs"][0]["results"], [])

    def test_a_partial_baseline_is_refused(self):
        for mode in ("--diff=HEAD", "--shard=1/2"):
            r = self.dmalint(mode, "--write-baseline", os.path.join(self.tmp, "b.json"))
            self.assertEqual(r.returncode, 2)
            self.assertIn("--write-baseline records every finding of the project", r.stderr)


class Shards(Base):
    FILES = dict(Base.FILES, **{"src/k%d.cc" % i: kernel("k%d" % i, 10 + i) for i in range(8)})
    del FILES["src/c.cc"]

    def shard_results(self, k, n):
        r = self.dmalint("--shard=%d/%d" % (k, n), "--format=sarif")
        self.assertIn(r.returncode, (0, 1), r.stderr)
        run = json.loads(r.stdout)["runs"][0]
        return run, {x["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
                     for x in run["results"]}

    def test_shards_split_the_database_and_stay_put(self):
        kernels = {p for p in self.FILES if p.endswith(".cc") and p != "src/b.cc"}
        seen = []
        for k in (1, 2, 3):
            run, uris = self.shard_results(k, 3)
            self.assertEqual(run["automationDetails"]["id"], "dmalint/shard-%d-of-3/" % k)
            seen.append(uris)
        # Every kernel in exactly one shard.
        self.assertEqual(set().union(*seen), kernels)
        self.assertEqual(sum(len(s) for s in seen), len(kernels))
        # A new file does not move the others.
        self.write("src/new.cc", kernel("fresh", 42))
        self.database()
        after = [self.shard_results(k, 3)[1] for k in (1, 2, 3)]
        for before, now in zip(seen, after):
            self.assertEqual(now - {"src/new.cc"}, before)
        r = self.dmalint("--shard=4/3")
        self.assertEqual(r.returncode, 2)
        self.assertIn("--shard takes K/N with 1 <= K <= N, got '4/3'", r.stderr)

    def test_merged_shards_are_the_unsharded_log(self):
        # Every kernel includes shared.h: its finding (once d.start(2)) is in
        # every shard's log, and once in the merged one.
        self.edit("src/shared.h", "d.start(0);", "d.start(2);")
        logs = []
        for k in (1, 2, 3):
            path = os.path.join(self.tmp, "shard%d.sarif" % k)
            r = self.dmalint("--shard=%d/3" % k, "--sarif=" + path)
            logs.append(path)
        merged = os.path.join(self.tmp, "merged.sarif")
        r = subprocess.run([DMALINT, "--merge-sarif", merged, *logs], capture_output=True,
                           text=True)
        self.assertEqual(r.returncode, 1, r.stderr)  # findings, as the whole run
        with open(merged) as f:
            log = json.load(f)
        if jsonschema is not None and SCHEMA:
            with open(SCHEMA) as f:
                jsonschema.Draft4Validator(json.load(f)).validate(log)
        whole = json.loads(self.dmalint("--format=sarif").stdout)
        run = log["runs"][0]
        key = lambda x: (x["locations"][0]["physicalLocation"]["artifactLocation"]["uri"],
                         x["partialFingerprints"]["dmalint/v2"])
        self.assertEqual(sorted(map(key, run["results"])),
                         sorted(map(key, whole["runs"][0]["results"])))
        self.assertEqual([k for k in map(key, run["results"]) if k[0] == "src/shared.h"].__len__(),
                         1)
        self.assertEqual(run["automationDetails"]["id"], "dmalint/")
        rules = run["tool"]["driver"]["rules"]
        for result in run["results"]:
            self.assertEqual(rules[result["ruleIndex"]]["id"], result["ruleId"])
        self.assertTrue(run["invocations"][0]["executionSuccessful"])

    def test_merging_refuses_what_is_not_one_run_of_dmalint(self):
        good = os.path.join(self.tmp, "good.sarif")
        self.dmalint("--sarif=" + good)
        cases = {
            "not json": "not JSON",
            json.dumps({"version": "2.1.0", "runs": [{"tool": {"driver": {"name": "other"}}}]}):
                "not a log of dmalint",
            json.dumps({"version": "2.1.0", "runs": []}): "not a SARIF 2.1.0 log with one run",
        }
        with open(good) as f:
            moved = json.load(f)
        moved["runs"][0]["originalUriBaseIds"]["SRCROOT"]["uri"] = "file:///elsewhere/"
        cases[json.dumps(moved)] = "its SRCROOT"
        for text, problem in cases.items():
            bad = os.path.join(self.tmp, "bad.sarif")
            with open(bad, "w") as f:
                f.write(text)
            r = subprocess.run([DMALINT, "--merge-sarif", os.path.join(self.tmp, "out.sarif"),
                                good, bad], capture_output=True, text=True)
            self.assertEqual(r.returncode, 2, (text, r.stderr))
            self.assertIn("'%s' cannot be merged: " % bad, r.stderr)
            self.assertIn(problem, r.stderr)

    def test_a_failed_shard_fails_the_merged_log(self):
        self.write("src/k0.cc", "#include <tpu/dma.h>\nvoid k0() { int x = nope; }\n")
        logs = []
        for k in (1, 2):
            path = os.path.join(self.tmp, "s%d.sarif" % k)
            self.dmalint("--shard=%d/2" % k, "--sarif=" + path)
            logs.append(path)
        merged = os.path.join(self.tmp, "m.sarif")
        r = subprocess.run([DMALINT, "--merge-sarif", merged, *logs], capture_output=True,
                           text=True)
        self.assertEqual(r.returncode, 2)
        with open(merged) as f:
            invocation = json.load(f)["runs"][0]["invocations"][0]
        self.assertFalse(invocation["executionSuccessful"])
        self.assertIn("nope", json.dumps(invocation["toolExecutionNotifications"]))


if __name__ == "__main__":
    unittest.main()
