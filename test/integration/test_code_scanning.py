"""SARIF that GitHub code scanning uses (issue 17): primaryLocationLineHash
computed as the upload action computes it, regions with an end, related
locations linked from the message, code flows in execution order, URIs
relative to the repository, automationDetails; and the shipped workflow
(docs/ci/github-actions.yml), whose run step is executed here, uploading on
exit status 1 and 2.

Tool paths come from the environment (set by CTest): DMALINT,
DMALINT_INCLUDE, SARIF_SCHEMA.
"""
import json
import os
import shutil
import subprocess
import tempfile
import textwrap
import unittest

from common import DMALINT, HEAD, INCLUDE, SCHEMA

try:
    import jsonschema
except ImportError:
    jsonschema = None
try:
    import yaml
except ImportError:
    yaml = None

REPO = os.path.dirname(INCLUDE) if INCLUDE else None
# A local copy handed down two helpers to a wait_send: the finding is the
# outer call (line 9); construction line 7, the inner call line 4, the
# wait_send line 3.
CHAIN = HEAD + textwrap.dedent("""\
    void inner(AsyncCopyDescriptor &q) { q.wait_send(); }
    void outer(AsyncCopyDescriptor &p) { inner(p); }
    // The kernel.
    void k(Ref<float> a, Ref<float> b, DmaSemaphore s) {
      auto d = make_async_copy(a, b, s);
      d.start();
      outer(d);
    }
    """)
PRIORITY = HEAD + textwrap.dedent("""\
    void p(Ref<float> a, Ref<float> b, DmaSemaphore s) {
      auto d = make_async_copy(a, b, s);
      d.start(2);
      d.wait();
    }
    """)


def line_hashes(text):
    """primaryLocationLineHash of each line of text, written here from the
    description in github/codeql-action's src/fingerprints.ts (a rolling
    hash, base 37, of the next 100 non-space, non-tab UTF-16 code units at
    each line start, line ends as \\n, the end of the file as 65535 then
    zeros, in wrapping 64-bit arithmetic; hex, then ":count")."""
    mask = (1 << 64) - 1
    units = []
    data = text.encode("utf-16-le")
    for i in range(0, len(data), 2):
        units.append(data[i] | data[i + 1] << 8)
    chars, starts, prev_cr, at_start = [], [], False, True
    for c in units:
        if c in (32, 9) or (prev_cr and c == 10):
            prev_cr = False
            continue
        prev_cr = c == 13
        c = 10 if c == 13 else c
        if at_start:
            starts.append(len(chars))
            at_start = False
        at_start = c == 10
        chars.append(c)
    if at_start:  # a line after the last line end, or an empty file
        starts.append(len(chars))
    chars.append(65535)
    chars += [0] * 100
    counts, out = {}, []
    for start in starts:
        h = 0
        for c in chars[start:start + 100]:
            h = (h * 37 + c) & mask
        value = "%x" % h
        counts[value] = counts.get(value, 0) + 1
        out.append("%s:%d" % (value, counts[value]))
    return out


@unittest.skipUnless(DMALINT and INCLUDE and shutil.which("git"), "tool paths or git missing")
class CodeScanning(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="dmalint-scanning-")
        self.addCleanup(shutil.rmtree, self.tmp)
        self.repo = os.path.join(self.tmp, "repo")
        subprocess.run(["git", "init", "-q", self.repo], check=True)
        self.files = {"src/chain.cc": CHAIN, "src/priority.cc": PRIORITY}

    def project(self, files=None):
        files = files or self.files
        entries = []
        for path, text in files.items():
            full = os.path.join(self.repo, path)
            os.makedirs(os.path.dirname(full), exist_ok=True)
            with open(full, "w") as f:
                f.write(text)
            entries.append({"directory": os.path.join(self.repo, "build"), "file": full,
                            "command": "clang++ -std=c++17 -I%s -c %s" % (INCLUDE, full)})
        os.makedirs(os.path.join(self.repo, "build"), exist_ok=True)
        with open(os.path.join(self.repo, "build", "compile_commands.json"), "w") as f:
            json.dump(entries, f)

    def sarif(self):
        self.project()
        r = subprocess.run([DMALINT, "-p", "build", "--format=sarif"], cwd=self.repo,
                           capture_output=True, text=True, timeout=300)
        self.assertEqual(r.returncode, 1, r.stderr)
        log = json.loads(r.stdout)
        if jsonschema is not None and SCHEMA:
            with open(SCHEMA) as f:
                jsonschema.Draft4Validator(json.load(f)).validate(log)
        return log["runs"][0]

    def assert_line_hash(self, result):
        """result carries the line hash the upload action computes for its line."""
        location = result["locations"][0]["physicalLocation"]
        with open(os.path.join(self.repo, location["artifactLocation"]["uri"])) as f:
            expected = line_hashes(f.read())[location["region"]["startLine"] - 1]
        self.assertEqual(result["partialFingerprints"]["primaryLocationLineHash"], expected)

    def test_line_hash_vectors_of_the_action(self):
        # The Python above against the action's own published vectors
        # (src/fingerprints.test.ts), so that it can judge dmalint's.
        self.assertEqual(line_hashes(""), ["c129715d7a2bc9a3:1"])
        self.assertEqual(line_hashes(" a\nb\n  \t\tc\n d"),
                         ["271789c17abda88f:1", "54703d4cd895b18:1", "180aee12dab6264:1",
                          "a23a3dc5e078b07b:1"])
        self.assertEqual(line_hashes("Lorem ipsum dolor sit amet.\n" * 10)[5:8],
                         ["a7f2ff13bc495cf2:6", "a7f2ff1481e87703:1", "a9cf91f7bbf1862b:1"])

    def test_every_result_has_the_line_hash_github_would_compute(self):
        run = self.sarif()
        self.assertEqual(len(run["results"]), 2)
        for result in run["results"]:
            self.assert_line_hash(result)
            self.assertRegex(result["partialFingerprints"]["dmalint/v2"], r"^[0-9a-f]{32}:1$")

    def test_the_log_beside_text_output_has_the_line_hashes_too(self):
        # --sarif FILE writes the log while stdout stays text: the line
        # hashes (computed only when a log is written) are in it all the same.
        self.project()
        log_path = os.path.join(self.repo, "out.sarif")
        r = subprocess.run([DMALINT, "-p", "build", "--sarif", log_path], cwd=self.repo,
                           capture_output=True, text=True, timeout=300)
        self.assertEqual(r.returncode, 1, r.stderr)
        self.assertIn("[dma-", r.stdout)
        with open(log_path) as f:
            results = json.load(f)["runs"][0]["results"]
        self.assertEqual(len(results), 2)
        for result in results:
            self.assert_line_hash(result)

    def test_regions_relative_uris_and_automation_details(self):
        run = self.sarif()
        self.assertEqual(run["originalUriBaseIds"]["SRCROOT"]["uri"], "file://%s/" % self.repo)
        self.assertEqual(run["automationDetails"], {"id": "dmalint/"})
        for result in run["results"]:
            physical = result["locations"][0]["physicalLocation"]
            self.assertEqual(physical["artifactLocation"]["uriBaseId"], "SRCROOT")
            self.assertTrue(physical["artifactLocation"]["uri"].startswith("src/"))
            region = physical["region"]
            self.assertEqual(region["endLine"], region["startLine"])
            self.assertGreater(region["endColumn"], region["startColumn"])
        priority = [x for x in run["results"] if x["ruleId"] == "dma-start-priority"][0]
        # The token "2" of d.start(2): columns 11 to 12.
        region = priority["locations"][0]["physicalLocation"]["region"]
        self.assertEqual((region["startLine"], region["startColumn"], region["endColumn"]),
                         (5, 11, 12))

    def test_related_locations_are_linked_and_the_flow_runs_in_order(self):
        run = self.sarif()
        [chain] = [x for x in run["results"] if x["ruleId"] == "dma-wait-send-on-local-copy"]
        related = chain["relatedLocations"]
        self.assertEqual([r["id"] for r in related], [1, 2, 3])
        lines = chain["message"]["text"].split("\n")
        self.assertEqual(lines[0], "'outer' calls 'wait_send' on 'd', a local copy with no send "
                         "side")
        # GitHub shows a related location when the message links it: the
        # note's own words, linked to its id.
        self.assertEqual(lines[1:], ["[%s](%d)" % (r["message"]["text"], r["id"])
                                     for r in related])
        flow = chain["codeFlows"][0]["threadFlows"][0]["locations"]
        # Construction, the outer call (the finding), the inner call, the
        # wait_send: the order it runs in.
        self.assertEqual([s["location"]["physicalLocation"]["region"]["startLine"] for s in flow],
                         [7, 9, 4, 3])
        self.assertEqual(flow[1]["location"]["physicalLocation"],
                         chain["locations"][0]["physicalLocation"])

    @unittest.skipUnless(yaml, "python3-yaml is needed to read the workflow")
    def test_the_github_workflow_uploads_on_findings_and_on_errors(self):
        with open(os.path.join(REPO, "docs", "ci", "github-actions.yml")) as f:
            workflow = yaml.safe_load(f)
        steps = {s.get("name"): s for s in workflow["jobs"]["dmalint"]["steps"]}
        run_step = steps["Run dmalint"]
        upload = steps["Upload the findings to code scanning"]
        fail = steps["Fail on findings or errors"]
        self.assertEqual(upload["if"], "always() && steps.dmalint.outputs.status != ''")
        self.assertEqual(fail["if"], "always() && steps.dmalint.outputs.status != '0'")
        bin_dir = os.path.join(self.tmp, "bin")
        os.makedirs(bin_dir)
        os.symlink(DMALINT, os.path.join(bin_dir, "dmalint"))
        broken = dict(self.files)
        broken["src/broken.cc"] = HEAD + "void b() { int x = nope; }\n"
        for files, status in ((self.files, "1"), (broken, "2")):
            with self.subTest(status=status):
                self.project(files)
                output = os.path.join(self.tmp, "github-output")
                open(output, "w").close()
                # The step as GitHub runs it in a container (sh -e).
                r = subprocess.run(["sh", "-e", "-c", run_step["run"]], cwd=self.repo,
                                   capture_output=True, text=True, timeout=300,
                                   env=dict(os.environ, PATH=bin_dir + ":" + os.environ["PATH"],
                                            GITHUB_OUTPUT=output, GITHUB_WORKSPACE=self.repo))
                self.assertEqual(r.returncode, 0, r.stderr)  # so the upload runs
                with open(output) as f:
                    outputs = dict(l.strip().split("=", 1) for l in f if "=" in l)
                self.assertEqual(outputs["status"], status)
                with open(os.path.join(self.repo, "dmalint.sarif")) as f:
                    run = json.load(f)["runs"][0]
                # Relative to the repository: what upload-sarif needs.
                uris = {x["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
                        for x in run["results"]}
                self.assertEqual(uris, {"src/chain.cc", "src/priority.cc"})
                notes = run["invocations"][0].get("toolExecutionNotifications", [])
                if status == "2":
                    self.assertFalse(run["invocations"][0]["executionSuccessful"])
                    self.assertEqual({n["locations"][0]["physicalLocation"]["artifactLocation"]
                                      ["uri"] for n in notes}, {"src/broken.cc"})
                f = subprocess.run(["sh", "-e", "-c", fail["run"]], capture_output=True,
                                   text=True, env=dict(os.environ, STATUS=status))
                self.assertEqual(f.returncode, 1)
                self.assertIn("findings" if status == "1" else "could not analyse everything",
                              f.stderr)


if __name__ == "__main__":
    unittest.main()
