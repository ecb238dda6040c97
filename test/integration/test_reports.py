"""Machine-readable reports of the standalone dmalint on a small multi-file
project with a compile_commands.json: deterministic parallel runs, a SARIF
2.1.0 log (validated against the official schema and what GitHub code
scanning reads), --export-fixes YAML that clang-apply-replacements applies
to the same files as --fix, baselines, and exit statuses.

Tool paths come from the environment (set by CTest): DMALINT,
CLANG_APPLY_REPLACEMENTS, DMALINT_INCLUDE, SARIF_SCHEMA.
"""
import filecmp
import json
import os
import re
import shutil
import subprocess
import tempfile
import textwrap
import unittest
import urllib.parse

try:
    import jsonschema
except ImportError:  # Reported as a failure by the test that needs it.
    jsonschema = None

DMALINT = os.environ.get("DMALINT")
APPLY = os.environ.get("CLANG_APPLY_REPLACEMENTS")
INCLUDE = os.environ.get("DMALINT_INCLUDE")
SCHEMA = os.environ.get("SARIF_SCHEMA")
REPO = os.path.dirname(INCLUDE) if INCLUDE else None

HEAD = "#include <tpu/dma.h>\nusing namespace tpu;\n"

# A shared header with two findings: a bad priority (no fix) and mesh
# coordinates passed as a logical id (a fix). Every kernel includes it.
SHARED_H = HEAD + textwrap.dedent("""\
    inline void shared(Ref<float> a, Ref<float> b, DmaSemaphore s, DmaSemaphore r) {
      auto d = make_async_copy(a, b, s);
      d.start(2);
      d.wait();
      auto e = make_async_remote_copy(a, b, s, r, {0, 1}, DeviceIdType::kLogical);
      e.start();
      e.wait();
    }
    """)

SOURCES = {
    "src/shared.h": SHARED_H,
    # wait_send on a copy that is local on some paths: notes, a code flow and
    # a fix.
    "src/pipeline.cc": '#include "shared.h"\n#include <vector>\n' + textwrap.dedent("""\
        void drain(Ref<float> hbm, Ref<float> vmem, DmaSemaphore local_sem,
                   DmaSemaphore send_sem, DmaSemaphore recv_sem) {
          std::vector<AsyncCopyDescriptor> issued;
          issued.push_back(make_async_copy(hbm, vmem, local_sem));  // local staging
          issued.push_back(make_async_remote_copy(hbm, vmem, send_sem, recv_sem, {1}));
          for (AsyncCopyDescriptor& d : issued) d.start();
          for (AsyncCopyDescriptor& d : issued) d.wait_send();
        }
        """),
    # A bad priority after non-ASCII text on its line: SARIF columns count
    # UTF-16 code units, the text output bytes.
    "src/priority.cc": '#include "shared.h"\n' + textwrap.dedent("""\
        void prefetch(Ref<float> a, Ref<float> b, DmaSemaphore s) {
          auto d = make_async_copy(a, b, s);
          /* \u00fcber \U0001F680 */ d.start(-1);
          d.wait();
        }
        """),
    # Mesh coordinates as a logical id: a fix in a main file.
    "src/halo.cc": '#include "shared.h"\n' + textwrap.dedent("""\
        void halo(Ref<float> a, Ref<float> b, DmaSemaphore s, DmaSemaphore r, int x) {
          auto d = make_async_remote_copy(a, b, s, r, {x, 1}, DeviceIdType::kLogical);
          d.start();
          d.wait();
        }
        """),
    "src/clean.cc": '#include "shared.h"\n' + textwrap.dedent("""\
        void clean(Ref<float> a, Ref<float> b, DmaSemaphore s) {
          auto d = make_async_copy(a, b, s);
          d.start();
          d.wait();
        }
        """),
}
KERNELS = sorted(p for p in SOURCES if p.endswith(".cc"))

WARNING = re.compile(r"^(\S+):(\d+):(\d+): (warning|error): (.*) \[([\w,-]+)\]$")
NOTE = re.compile(r"^(\S+):(\d+):(\d+): note: (.*)$")


def warnings_of(text):
    """(path, line, column, level, message, check) of each finding printed."""
    return [WARNING.match(l).groups() for l in text.splitlines() if WARNING.match(l)]


def notes_of(text):
    """The notes printed under each finding, as (line, message)."""
    notes = []
    for l in text.splitlines():
        if WARNING.match(l):
            notes.append([])
        elif NOTE.match(l) and notes:
            _, line, _, message = NOTE.match(l).groups()
            notes[-1].append((int(line), message))
    return notes


@unittest.skipUnless(DMALINT and APPLY and INCLUDE and SCHEMA, "tool paths not set")
class Reports(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="dmalint-reports-")
        self.addCleanup(shutil.rmtree, self.tmp)
        self.root = self.project("project")

    # -- helpers -----------------------------------------------------------

    def project(self, name, sources=SOURCES, database_dir="."):
        """Writes the sources under tmp/name and a compile_commands.json (with
        relative file names) in tmp/name/database_dir."""
        root = os.path.join(self.tmp, name)
        for path, text in sources.items():
            self.write(root, path, text)
        entries = [{"directory": root, "file": path,
                    "command": "clang++ -std=c++17 -I%s -c %s" % (INCLUDE, path)}
                   for path in sorted(sources) if path.endswith(".cc")]
        self.write(root, os.path.join(database_dir, "compile_commands.json"), json.dumps(entries))
        return root

    def write(self, root, path, text):
        full = os.path.join(root, path)
        os.makedirs(os.path.dirname(full), exist_ok=True)
        with open(full, "w", encoding="utf-8") as f:
            f.write(text)
        return full

    def read(self, root, path):
        with open(os.path.join(root, path), encoding="utf-8") as f:
            return f.read()

    def dmalint(self, *args, root=None, cwd=None):
        root = root or self.root
        return subprocess.run([DMALINT, "-p", root, "--header-filter=.*", *args],
                              cwd=cwd or self.tmp, capture_output=True, text=True,
                              timeout=300)

    def sarif(self, *args, root=None):
        r = self.dmalint("--format=sarif", *args, root=root)
        self.assertIn(r.returncode, (0, 1), r.stderr)
        return json.loads(r.stdout), r

    # -- parallel runs -----------------------------------------------------

    def test_parallel_runs_give_identical_output(self):
        for fmt in ("--format=text", "--format=sarif"):
            one = self.dmalint("-j", "1", fmt)
            four = self.dmalint("-j", "4", fmt)
            self.assertEqual(one.returncode, 1, one.stderr)
            self.assertEqual(four.returncode, 1, four.stderr)
            self.assertEqual(one.stdout, four.stdout, fmt)
        text = self.dmalint("-j", "4").stdout
        # The header's findings once, though every kernel includes it.
        header = [w for w in warnings_of(text) if w[0].endswith("shared.h")]
        self.assertEqual(sorted((w[1], w[5]) for w in header),
                         [("5", "dma-start-priority"), ("7", "dma-device-id-type-mismatch")])

    # -- SARIF ---------------------------------------------------------------

    def test_sarif_is_valid_and_has_what_github_code_scanning_reads(self):
        if jsonschema is None:
            self.fail("python3-jsonschema is required to validate the SARIF log")
        log_path = os.path.join(self.tmp, "out.sarif")
        r = self.dmalint("--sarif", log_path)
        self.assertEqual(r.returncode, 1, r.stderr)
        with open(log_path, encoding="utf-8") as f:
            log = json.load(f)
        with open(SCHEMA, encoding="utf-8") as f:
            schema = json.load(f)
        jsonschema.Draft4Validator(schema).validate(log)

        self.assertEqual(log["version"], "2.1.0")
        self.assertEqual(len(log["runs"]), 1)
        run = log["runs"][0]
        driver = run["tool"]["driver"]
        self.assertEqual(driver["name"], "dmalint")
        self.assertTrue(driver["version"])
        self.assertEqual(run["columnKind"], "utf16CodeUnits")
        self.assertEqual(run["originalUriBaseIds"]["SRCROOT"]["uri"],
                         "file://" + urllib.parse.quote(self.root) + "/")
        self.assertTrue(run["invocations"][0]["executionSuccessful"])

        # A rule per enabled check, with its documentation.
        listed = self.dmalint("--list-checks").stdout.splitlines()[1:]
        enabled = sorted(l.strip() for l in listed if l.strip())
        rules = driver["rules"]
        self.assertEqual([rule["id"] for rule in rules], enabled)
        for rule in rules:
            for key in ("shortDescription", "fullDescription"):
                self.assertTrue(rule[key]["text"].strip(), rule)
            url = rule["helpUri"]
            self.assertRegex(url, r"^https://")
            self.assertTrue(url.endswith("/docs/checks/%s.md" % rule["id"]), url)
            self.assertIn(url, rule["help"]["text"])
            self.assertIn(url, rule["help"]["markdown"])
            self.assertTrue(os.path.exists(os.path.join(REPO, "docs", "checks",
                                                        rule["id"] + ".md")), rule["id"])

        # One result per finding of the text output, at the same place.
        text = warnings_of(r.stdout)
        results = run["results"]
        self.assertEqual(len(results), len(text), r.stdout)
        fingerprints = set()
        for result, (path, line, column, level, message, check) in zip(results, text):
            self.assertEqual(result["ruleId"], check)
            self.assertEqual(rules[result["ruleIndex"]]["id"], check)
            self.assertEqual(result["level"], level)
            # The text output's message, then a link to each note.
            self.assertEqual(result["message"]["text"].split("\n")[0], message)
            physical = result["locations"][0]["physicalLocation"]
            artifact = physical["artifactLocation"]
            self.assertEqual(artifact["uriBaseId"], "SRCROOT")
            uri = artifact["uri"]
            self.assertFalse(urllib.parse.urlparse(uri).scheme, uri)
            self.assertFalse(uri.startswith("/"), uri)
            self.assertEqual(os.path.join(self.root, uri), os.path.join(self.tmp, path))
            region = physical["region"]
            self.assertEqual(region["startLine"], int(line))
            # UTF-16 code units before the finding, plus one.
            line_text = self.read(self.root, uri).splitlines()[int(line) - 1]
            prefix = line_text.encode("utf-8")[:int(column) - 1].decode("utf-8")
            self.assertEqual(region["startColumn"], len(prefix.encode("utf-16-le")) // 2 + 1)
            fingerprint = result["partialFingerprints"]["dmalint/v2"]
            self.assertRegex(fingerprint, r"^[0-9a-f]{32}:\d+$")
            fingerprints.add(fingerprint)
        self.assertEqual(len(fingerprints), len(results))

        by_uri = {}
        for result in results:
            uri = result["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
            by_uri.setdefault(uri, []).append(result)
        self.assertEqual(len(by_uri["src/shared.h"]), 2)
        # The non-ASCII line: byte and UTF-16 columns differ.
        priority = by_uri["src/priority.cc"][0]
        byte_column = [int(c) for p, l, c, *_ in text if p.endswith("priority.cc")][0]
        self.assertEqual(priority["locations"][0]["physicalLocation"]["region"]["startColumn"],
                         byte_column - 3)  # u-umlaut: 2 bytes, 1 unit; rocket: 4 bytes, 2 units

        # The wait_send finding: notes as related locations and as the path.
        index = [i for i, x in enumerate(results) if x["ruleId"] == "dma-wait-send-on-local-copy"]
        self.assertEqual(len(index), 1)
        wait_send = results[index[0]]
        notes = notes_of(r.stdout)[index[0]]
        self.assertTrue(notes)
        related = wait_send["relatedLocations"]
        self.assertEqual([(loc["physicalLocation"]["region"]["startLine"], loc["message"]["text"])
                          for loc in related], notes)
        self.assertEqual([loc["id"] for loc in related], list(range(1, len(notes) + 1)))
        flow = wait_send["codeFlows"][0]["threadFlows"][0]["locations"]
        self.assertEqual([step["location"]["message"]["text"] for step in flow],
                         [loc["message"]["text"] for loc in related]
                         + [text[index[0]][4]])
        self.assertEqual(flow[-1]["location"]["physicalLocation"],
                         wait_send["locations"][0]["physicalLocation"])

        # Fixes as SARIF fixes; applied by byte offsets, they give what --fix
        # gives.
        fixed = [x for x in results if x.get("fixes")]
        self.assertEqual(sorted(x["ruleId"] for x in fixed),
                         ["dma-device-id-type-mismatch", "dma-device-id-type-mismatch",
                          "dma-wait-send-on-local-copy"])
        copy = self.project("sarif-fixed")
        edits = {}
        for result in fixed:
            for change in result["fixes"][0]["artifactChanges"]:
                uri = change["artifactLocation"]["uri"]
                for replacement in change["replacements"]:
                    deleted = replacement["deletedRegion"]
                    self.assertIn("startLine", deleted)
                    self.assertIn("endColumn", deleted)
                    edits.setdefault(uri, []).append(
                        (deleted["byteOffset"], deleted["byteLength"],
                         replacement.get("insertedContent", {}).get("text", "")))
        for uri, replacements in edits.items():
            path = os.path.join(copy, uri)
            with open(path, "rb") as f:
                data = f.read()
            for offset, length, inserted in sorted(replacements, reverse=True):
                data = data[:offset] + inserted.encode("utf-8") + data[offset + length:]
            with open(path, "wb") as f:
                f.write(data)
        r = self.dmalint("--fix")
        self.assertEqual(r.returncode, 1, r.stderr)
        self.assertSameTrees(self.root, copy)

    def test_sarif_on_stdout_replaces_the_text(self):
        log, r = self.sarif()
        self.assertEqual(r.returncode, 1)
        self.assertEqual(len(log["runs"][0]["results"]), len(warnings_of(
            self.dmalint().stdout)))
        # A clean run is an empty, valid log with exit status 0.
        clean = self.project("clean", {"src/clean.cc": SOURCES["src/clean.cc"],
                                       "src/shared.h": HEAD})
        log, r = self.sarif(root=clean)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(log["runs"][0]["results"], [])
        listed = self.dmalint("--list-checks", root=clean).stdout.splitlines()[1:]
        self.assertEqual(len(log["runs"][0]["tool"]["driver"]["rules"]), len(listed))

    def test_source_root_sets_srcroot(self):
        # The database in build/: by default SRCROOT is build/, and the
        # sources outside it get absolute file URIs; --source-root fixes that.
        root = self.project("out-of-tree", database_dir="build")
        build = os.path.join(root, "build")
        log, _ = self.sarif(root=build)
        uris = {x["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
                for x in log["runs"][0]["results"]}
        self.assertTrue(all(u.startswith("file:///") for u in uris), uris)
        log, _ = self.sarif("--source-root", root, root=build)
        run = log["runs"][0]
        self.assertEqual(run["originalUriBaseIds"]["SRCROOT"]["uri"], "file://" + root + "/")
        uris = {x["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
                for x in run["results"]}
        self.assertIn("src/shared.h", uris)
        self.assertTrue(all(u.startswith("src/") for u in uris), uris)

    # -- --export-fixes ------------------------------------------------------

    def test_export_fixes_applied_by_clang_apply_replacements_equals_fix(self):
        exported = self.project("exported")
        fixes_dir = os.path.join(self.tmp, "fixes")
        os.makedirs(fixes_dir)
        fixes = os.path.join(fixes_dir, "dmalint.yaml")
        r = self.dmalint("--export-fixes", fixes, root=exported)
        self.assertEqual(r.returncode, 1, r.stderr)
        self.assertSameTrees(exported, self.project("untouched"))  # exporting edits nothing
        with open(fixes, encoding="utf-8") as f:
            yaml = f.read()
        self.assertIn("Diagnostics:", yaml)
        self.assertRegex(yaml, r"DiagnosticName: +dma-wait-send-on-local-copy")
        self.assertIn("Notes:", yaml)
        self.assertIn("Replacements:", yaml)
        # The header's fix once, though four translation units include it.
        self.assertEqual(len(re.findall(r"ReplacementText: +kMesh", yaml)), 2, yaml)

        a = subprocess.run([APPLY, fixes_dir], capture_output=True, text=True, timeout=120)
        self.assertEqual(a.returncode, 0, a.stdout + a.stderr)
        r = self.dmalint("--fix")
        self.assertEqual(r.returncode, 1, r.stderr)
        self.assertIn("applied fixes of 3 findings in 3 files", r.stderr)
        self.assertSameTrees(self.root, exported)
        self.assertIn("DeviceIdType::kMesh);", self.read(self.root, "src/shared.h"))
        self.assertIn("if (d.is_remote()) d.wait_send();", self.read(self.root, "src/pipeline.cc"))
        # What is left has no fix.
        after = warnings_of(self.dmalint().stdout)
        self.assertEqual(sorted(w[5] for w in after), ["dma-start-priority"] * 2)

    # -- baselines -------------------------------------------------------------

    def test_baseline_hides_accepted_findings_and_reports_new_ones(self):
        baseline = os.path.join(self.tmp, "baseline.json")
        r = self.dmalint("--write-baseline", baseline)
        self.assertEqual(r.returncode, 1, r.stderr)
        found = warnings_of(r.stdout)
        self.assertIn("recorded %d findings in the baseline" % len(found), r.stderr)
        with open(baseline, encoding="utf-8") as f:
            recorded = json.load(f)
        self.assertEqual(recorded["version"], 2)
        self.assertEqual(len(recorded["findings"]), len(found))
        for entry in recorded["findings"]:
            self.assertEqual(set(entry), {"fingerprint", "check", "file", "function", "line",
                                          "message"})
            self.assertFalse(os.path.isabs(entry["file"]), entry)

        r = self.dmalint("--baseline", baseline)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertEqual(r.stdout, "")
        self.assertIn("0 new findings, %d in the baseline" % len(found), r.stderr)

        # Unrelated edits above baselined findings (in a kernel and in the
        # header) move them, but they stay accepted.
        for path in ("src/priority.cc", "src/shared.h"):
            self.write(self.root, path, "// A new first line.\n\n" + self.read(self.root, path))
        moved = self.dmalint()
        self.assertNotEqual([w[1] for w in warnings_of(moved.stdout)], [w[1] for w in found])
        r = self.dmalint("--baseline", baseline)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertEqual(r.stdout, "")

        # A new finding is reported, alone; so is a second copy of an accepted
        # line (the baseline accepted one, not every).
        late = textwrap.dedent("""\
            void late(Ref<float> a, Ref<float> b, DmaSemaphore s) {
              auto d = make_async_copy(a, b, s);
              d.start(7);
              d.wait();
            }
            """)
        self.write(self.root, "src/halo.cc", self.read(self.root, "src/halo.cc") + late)
        r = self.dmalint("--baseline", baseline)
        self.assertEqual(r.returncode, 1, r.stderr)
        new = warnings_of(r.stdout)
        self.assertEqual(len(new), 1, r.stdout)
        self.assertIn("got 7", new[0][4])
        self.assertIn("1 new finding, %d in the baseline" % len(found), r.stderr)
        log, _ = self.sarif("--baseline", baseline)
        self.assertEqual([x["baselineState"] for x in log["runs"][0]["results"]], ["new"])

        text = self.read(self.root, "src/priority.cc")
        line = [l for l in text.splitlines() if "d.start(-1)" in l][0]
        self.write(self.root, "src/priority.cc", text.replace(line, line + "\n" + line))
        r = self.dmalint("--baseline", baseline)
        self.assertEqual(len(warnings_of(r.stdout)), 2, r.stdout)

    def test_fingerprints_ignore_line_numbers(self):
        before, _ = self.sarif()
        self.write(self.root, "src/pipeline.cc", "\n\n\n" + self.read(self.root, "src/pipeline.cc"))
        after, _ = self.sarif()

        def keyed(log):
            return {x["partialFingerprints"]["dmalint/v2"]:
                    x["locations"][0]["physicalLocation"]["region"]["startLine"]
                    for x in log["runs"][0]["results"]}
        self.assertEqual(set(keyed(before)), set(keyed(after)))
        self.assertNotEqual(keyed(before), keyed(after))

    def test_malformed_baseline_is_an_input_error(self):
        cases = {
            "not json": "invalid JSON",
            "[]": "expected a JSON object",
            '{"findings": []}': "no integer \"version\"",
            '{"version": 3, "findings": []}': "version 3",
            '{"version": 1}': "no \"findings\" array",
            '{"version": 1, "findings": [{"check": "x"}]}': "findings[0]",
        }
        for text, expected in cases.items():
            path = self.write(self.tmp, "bad-baseline.json", text)
            r = self.dmalint("--baseline", path)
            self.assertEqual(r.returncode, 2, (text, r.stderr))
            self.assertIn("is not a dmalint baseline", r.stderr)
            self.assertIn(expected, r.stderr)
            self.assertEqual(r.stdout, "")
        r = self.dmalint("--baseline", os.path.join(self.tmp, "missing.json"))
        self.assertEqual(r.returncode, 2)
        self.assertIn("cannot read the baseline", r.stderr)

    # -- exit statuses ---------------------------------------------------------

    def test_exit_statuses(self):
        self.assertEqual(self.dmalint().returncode, 1)
        clean = self.project("clean", {"src/clean.cc": SOURCES["src/clean.cc"],
                                       "src/shared.h": HEAD})
        self.assertEqual(self.dmalint(root=clean).returncode, 0)
        # Usage and input errors.
        r = subprocess.run([DMALINT, "-p", self.root, "--header-filter=("],
                           capture_output=True, text=True)
        self.assertEqual(r.returncode, 2)
        self.assertIn("invalid --header-filter", r.stderr)
        self.assertEqual(self.dmalint("--format=xml").returncode, 2)
        broken_db = os.path.join(self.tmp, "broken-db")
        self.write(broken_db, "compile_commands.json", "{ not json")
        r = self.dmalint(root=broken_db)
        self.assertEqual(r.returncode, 2)
        self.assertIn("compile_commands.json' is not valid JSON", r.stderr)
        r = self.dmalint("--source-root", os.path.join(self.tmp, "nope"))
        self.assertEqual(r.returncode, 2)

    def test_code_that_does_not_compile_is_status_2_in_every_format(self):
        sources = dict(SOURCES)
        sources["src/broken.cc"] = HEAD + "void k() { AsyncCopyDescriptor d = ; }\n"
        broken = self.project("broken", sources)
        r = self.dmalint(root=broken)
        self.assertEqual(r.returncode, 2)
        self.assertIn("error: expected expression", r.stdout)
        log_path = os.path.join(self.tmp, "broken.sarif")
        fixes = os.path.join(self.tmp, "broken.yaml")
        baseline = os.path.join(self.tmp, "broken-baseline.json")
        r = self.dmalint("--format=sarif", "--sarif", log_path, "--export-fixes", fixes,
                         "--write-baseline", baseline, root=broken)
        self.assertEqual(r.returncode, 2)
        # Stdout holds only the log; the compiler's error reads on stderr.
        log = json.loads(r.stdout)
        self.assertIn("error: expected expression", r.stderr)
        invocation = log["runs"][0]["invocations"][0]
        self.assertFalse(invocation["executionSuccessful"])
        self.assertEqual(invocation["toolExecutionNotifications"][0]["level"], "error")
        with open(log_path, encoding="utf-8") as f:
            self.assertEqual(json.load(f), log)
        if jsonschema is not None:
            with open(SCHEMA, encoding="utf-8") as f:
                jsonschema.Draft4Validator(json.load(f)).validate(log)
        # Nothing derived from an incomplete run is written.
        self.assertFalse(os.path.exists(fixes))
        self.assertFalse(os.path.exists(baseline))
        self.assertIn("not writing the baseline", r.stderr)
        self.assertIn("not exporting fixes", r.stderr)

    # -- comparison ------------------------------------------------------------

    def assertSameTrees(self, a, b):
        for path in SOURCES:
            self.assertTrue(filecmp.cmp(os.path.join(a, path), os.path.join(b, path),
                                        shallow=False),
                            "%s differs:\n%s\n---\n%s" % (path, self.read(a, path),
                                                         self.read(b, path)))


if __name__ == "__main__":
    unittest.main()
