"""End-to-end behaviour of the standalone dmalint and of the plugin in
clang-tidy that users and CI rely on: exit statuses, configuration files,
NOLINT, compile databases, parallel runs, the plugin's check list.

Tool paths come from the environment (set by CTest): DMALINT, CLANG_TIDY,
PLUGIN, DMALINT_INCLUDE.
"""
import json
import os
import shutil
import subprocess
import tempfile
import textwrap
import unittest

from common import BAD_PRIORITY, CLANG_TIDY, DMALINT, FIXABLE, INCLUDE, PLUGIN
from common import HEAD as KERNEL_HEAD
CLEAN = KERNEL_HEAD + textwrap.dedent("""\
    void k(Ref<float> a, Ref<float> b, DmaSemaphore s) {
      auto d = make_async_copy(a, b, s);
      d.start();
      d.wait();
    }
    """)


@unittest.skipUnless(DMALINT and CLANG_TIDY and PLUGIN and INCLUDE, "tool paths not set")
class Cli(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="dmalint-cli-")
        self.addCleanup(shutil.rmtree, self.dir)

    def write(self, name, text):
        path = os.path.join(self.dir, name)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            f.write(text)
        return path

    def dmalint(self, *args, cwd=None):
        return subprocess.run([DMALINT, *args], cwd=cwd or self.dir, capture_output=True,
                              text=True, timeout=120)

    def flags(self):
        return ["--", "-std=c++17", "-I" + INCLUDE]

    def test_exit_status_is_0_without_findings(self):
        path = self.write("clean.cc", CLEAN)
        r = self.dmalint(path, *self.flags())
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertEqual(r.stdout, "")

    def test_exit_status_is_1_with_findings(self):
        path = self.write("bad.cc", BAD_PRIORITY)
        r = self.dmalint(path, *self.flags())
        self.assertEqual(r.returncode, 1, r.stderr)
        self.assertIn("bad.cc:5:11: warning: DMA start priority must be non-negative, got -1 "
                      "[dma-start-priority]", r.stdout)
        # The source line and the caret under the '-'.
        self.assertIn("    5 |   d.start(-1);\n      |           ^\n", r.stdout)

    def test_missing_file_is_an_input_error(self):
        r = self.dmalint(os.path.join(self.dir, "nope.cc"), *self.flags())
        self.assertEqual(r.returncode, 2)
        self.assertIn("no such file", r.stderr)

    def test_missing_compile_database_is_an_input_error(self):
        path = self.write("bad.cc", BAD_PRIORITY)
        r = self.dmalint(path)
        self.assertEqual(r.returncode, 2)
        self.assertIn("no compilation database found", r.stderr)
        r = self.dmalint("-p", os.path.join(self.dir, "no-build-dir"), path)
        self.assertEqual(r.returncode, 2)
        self.assertIn("does not exist", r.stderr)
        os.makedirs(os.path.join(self.dir, "empty-build"))
        r = self.dmalint("-p", os.path.join(self.dir, "empty-build"), path)
        self.assertEqual(r.returncode, 2)
        self.assertIn("no compilation database in", r.stderr)

    def test_code_that_does_not_compile_is_an_input_error(self):
        path = self.write("broken.cc", KERNEL_HEAD + "void k() { AsyncCopyDescriptor d = ; d.wait_se(); }\n")
        r = self.dmalint(path, *self.flags())
        self.assertEqual(r.returncode, 2)
        self.assertIn("error: expected expression", r.stdout)
        self.assertIn("compiler error", r.stderr)

    def test_usage_errors(self):
        path = self.write("bad.cc", BAD_PRIORITY)
        for args in (["--no-such-option"], ["--header-filter=(", path, *self.flags()],
                     ["--checks=-*", path, *self.flags()]):
            r = self.dmalint(*args)
            self.assertEqual(r.returncode, 2, args)
            self.assertTrue(r.stderr.strip(), args)

    def test_clang_tidy_file_and_nolint(self):
        self.write(".clang-tidy", "Checks: '-*,dma-*,-dma-device-id-type-mismatch'\n")
        path = self.write("k.cc", KERNEL_HEAD + textwrap.dedent("""\
            void k(Ref<float> a, Ref<float> b, DmaSemaphore s, DmaSemaphore r) {
              auto d = make_async_copy(a, b, s);
              d.start(-1); // NOLINT
              // NOLINTNEXTLINE(dma-start-priority)
              d.start(-2);
              // NOLINTBEGIN(dma-*)
              d.start(-3);
              // NOLINTEND(dma-*)
              d.start(-4);
              auto e = make_async_remote_copy(a, b, s, r, {0, 1}, DeviceIdType::kLogical);
              e.start();
              e.wait();
            }
            """))
        r = self.dmalint(path, *self.flags())
        self.assertEqual(r.returncode, 1)
        warnings = [l for l in r.stdout.splitlines() if "warning:" in l]
        self.assertEqual(len(warnings), 1, r.stdout)
        self.assertIn("got -4", warnings[0])
        # The same configuration through the plugin in clang-tidy.
        t = subprocess.run([CLANG_TIDY, "-load=" + PLUGIN, path, *self.flags()], cwd=self.dir,
                           capture_output=True, text=True)
        self.assertEqual(t.returncode, 0, t.stderr)
        tidy_warnings = [l for l in t.stdout.splitlines() if "warning:" in l]
        self.assertEqual(len(tidy_warnings), 1, t.stdout)
        self.assertIn("got -4", tidy_warnings[0])

    def test_a_projects_clang_analyzer_checks_are_not_run(self):
        # A .clang-tidy shared with clang-tidy enables the static analyzer;
        # dmalint runs only the dma-* checks (and does not pay for the analyzer).
        self.write(".clang-tidy", "Checks: 'clang-analyzer-*,dma-*'\n")
        path = self.write("null.cc", CLEAN + "int deref() { int *p = nullptr; return *p; }\n")
        r = self.dmalint(path, *self.flags())
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertNotIn("clang-analyzer", r.stdout)
        listed = self.dmalint("--list-checks", "--checks=clang-analyzer-*", path)
        self.assertNotIn("clang-analyzer", listed.stdout)
        self.assertIn("dma-wait-send-on-local-copy", listed.stdout)

    def test_work_limit_skips_a_function_visibly(self):
        self.write(".clang-tidy", textwrap.dedent("""\
            CheckOptions:
              dma-wait-send-on-local-copy.WorkLimit: 3
              dma-wait-send-on-local-copy.ReportSkippedFunctions: true
            """))
        body = "".join("  if (n > %d) d = make_async_copy(a, b, s);\n" % i for i in range(20))
        path = self.write("big.cc", KERNEL_HEAD + "void big(Ref<float> a, Ref<float> b, "
                          "DmaSemaphore s, int n) {\n  auto d = make_async_copy(a, b, s);\n"
                          + body + "  d.start();\n  d.wait_send();\n}\n")
        r = self.dmalint("--checks=-*,dma-wait-send-on-local-copy", path, *self.flags())
        # Skipped, said so, and not counted as a finding.
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertIn("big.cc:3:6: remark: 'big' was not analysed: it needs more than 3 steps "
                      "(the WorkLimit option); its descriptor findings are not reported "
                      "[dma-wait-send-on-local-copy]", r.stdout)
        self.assertNotIn("warning:", r.stdout)
        # --verbose asks for the same remark without a .clang-tidy option.
        self.write(".clang-tidy", "CheckOptions:\n  dma-wait-send-on-local-copy.WorkLimit: 3\n")
        quiet = self.dmalint("--checks=-*,dma-wait-send-on-local-copy", path, *self.flags())
        self.assertNotIn("remark:", quiet.stdout)
        # ... but never dropped in silence: counted on stderr, and a
        # notification of the SARIF log.
        self.assertIn("dmalint: 1 function not analysed: over the analysis work limit "
                      "(WorkLimit); --verbose lists it", quiet.stderr)
        sarif = self.dmalint("--format=sarif", "--checks=-*,dma-wait-send-on-local-copy", path,
                             *self.flags())
        self.assertEqual(sarif.returncode, 0, sarif.stderr)
        run = json.loads(sarif.stdout)["runs"][0]
        self.assertEqual(run["results"], [])
        notes = run["invocations"][0]["toolExecutionNotifications"]
        self.assertEqual(len(notes), 1, notes)
        self.assertEqual(notes[0]["level"], "warning")
        self.assertIn("'big' was not analysed", notes[0]["message"]["text"])
        self.assertEqual(notes[0]["associatedRule"]["id"], "dma-wait-send-on-local-copy")
        self.assertTrue(run["invocations"][0]["executionSuccessful"])
        loud = self.dmalint("--verbose", "--checks=-*,dma-wait-send-on-local-copy", path,
                            *self.flags())
        self.assertIn("remark: 'big' was not analysed", loud.stdout)
        # With the default limit the same function is analysed and reported.
        os.remove(os.path.join(self.dir, ".clang-tidy"))
        r = self.dmalint("--checks=-*,dma-wait-send-on-local-copy", path, *self.flags())
        self.assertEqual(r.returncode, 1)
        self.assertIn("'wait_send' on 'd', a local copy with no send side", r.stdout)

    def test_compile_database_parallel_runs_are_deterministic(self):
        header = self.write("src/shared.h", KERNEL_HEAD + textwrap.dedent("""\
            inline void shared(Ref<float> a, Ref<float> b, DmaSemaphore s) {
              auto d = make_async_copy(a, b, s);
              d.start(2);
              d.wait();
            }
            """))
        entries = []
        for i in range(6):
            body = '#include "shared.h"\n' + (BAD_PRIORITY if i % 2 else CLEAN).replace(
                "void k(", "void k%d(" % i)
            path = self.write("src/k%d.cc" % i, body)
            entries.append({"directory": self.dir, "file": path,
                            "command": "clang++ -std=c++17 -I%s -c %s" % (INCLUDE, path)})
        self.write("build/compile_commands.json", json.dumps(entries))
        build = os.path.join(self.dir, "build")
        one = self.dmalint("-p", build, "-j", "1", "--header-filter=.*")
        four = self.dmalint("-p", build, "-j", "4", "--header-filter=.*")
        self.assertEqual(one.returncode, 1, one.stderr)
        self.assertEqual(one.stdout, four.stdout)
        # The header's finding once, though six translation units include it.
        self.assertEqual(one.stdout.count("shared.h:5:11: warning:"), 1, one.stdout)
        self.assertEqual(one.stdout.count("got -1"), 3)
        # -j4 as make and ninja take it, and -j=4, are -j 4.
        for spelling in (["-j4"], ["-j=4"]):
            r = self.dmalint("-p", build, *spelling, "--header-filter=.*")
            self.assertEqual((r.returncode, r.stdout), (1, four.stdout), spelling)
        del header
        # --source-filter picks translation units of the database, as in run-clang-tidy.
        some = self.dmalint("-p", build, "--source-filter", r"k[01]\.cc$")
        self.assertEqual(some.returncode, 1, some.stderr)
        self.assertEqual(some.stdout.count("got -1"), 1, some.stdout)
        none = self.dmalint("-p", build, "--source-filter", "no-such-file")
        self.assertEqual(none.returncode, 2)
        self.assertIn("matching --source-filter", none.stderr)
        bad = self.dmalint("-p", build, "--source-filter", "(")
        self.assertEqual(bad.returncode, 2)
        self.assertIn("invalid --source-filter", bad.stderr)

    def test_fix_rewrites_the_file_and_keeps_its_permissions(self):
        path = self.write("fix.cc", FIXABLE)
        os.chmod(path, 0o640)
        r = self.dmalint("--fix", path, *self.flags())
        self.assertEqual(r.returncode, 1)
        with open(path) as f:
            self.assertIn("{0, 1}, DeviceIdType::kMesh);", f.read())
        self.assertEqual(os.stat(path).st_mode & 0o777, 0o640)
        self.assertEqual(self.dmalint(path, *self.flags()).returncode, 0)

    def test_fix_edits_only_files_inside_the_project_tree(self):
        # A vendored header outside the project (reached through -I) with a
        # fixable finding, and the same finding in the project's own header.
        bad_header = KERNEL_HEAD + textwrap.dedent("""\
            inline void shared(Ref<float> a, Ref<float> b, DmaSemaphore s, DmaSemaphore r) {
              auto e = make_async_remote_copy(a, b, s, r, {0, 1}, DeviceIdType::kLogical);
              e.start();
              e.wait();
            }
            """)
        vendor = self.write("vendor/lib/vendored.h", bad_header)
        own = self.write("project/src/own.h", bad_header.replace("shared(", "own("))
        main = self.write("project/src/main.cc",
                          '#include "own.h"\n#include <lib/vendored.h>\n' + CLEAN)
        project = os.path.join(self.dir, "project")
        self.write("project/build/compile_commands.json", json.dumps([{
            "directory": os.path.join(project, "build"), "file": main,
            "command": "clang++ -std=c++17 -I%s -I%s -c %s"
                       % (INCLUDE, os.path.join(self.dir, "vendor"), main)}]))
        with open(vendor) as f:
            vendor_before = f.read()
        r = self.dmalint("--fix", "-p", os.path.join(project, "build"), "--header-filter=.*")
        self.assertEqual(r.returncode, 1, r.stderr)
        self.assertEqual(r.stdout.count("[dma-device-id-type-mismatch]"), 2, r.stdout)
        # The project tree holds the database (build/) and the sources (src/).
        self.assertIn("not fixing %s: it is outside the project tree %s" % (vendor, project),
                      r.stderr)
        with open(vendor) as f:
            self.assertEqual(f.read(), vendor_before)
        with open(own) as f:
            self.assertIn("{0, 1}, DeviceIdType::kMesh);", f.read())
        # --export-fixes plans the same edits: none in the vendored header.
        exported = os.path.join(self.dir, "fixes.yaml")
        r = self.dmalint("--export-fixes", exported, "-p", os.path.join(project, "build"),
                         "--header-filter=.*")
        with open(exported) as f:
            text = f.read()
        self.assertIn("vendored.h", text)  # the finding is exported ...
        self.assertNotIn("ReplacementText", text)  # ... without its edit
        # --source-root widens the tree on purpose.
        r = self.dmalint("--fix", "-p", os.path.join(project, "build"), "--header-filter=.*",
                         "--source-root", self.dir)
        with open(vendor) as f:
            self.assertIn("{0, 1}, DeviceIdType::kMesh);", f.read())

    def test_plugin_lists_the_checks(self):
        t = subprocess.run([CLANG_TIDY, "-load=" + PLUGIN, "--checks=-*,dma-*", "--list-checks"],
                           capture_output=True, text=True)
        self.assertEqual(t.returncode, 0, t.stderr)
        for check in ("dma-bool-ref", "dma-device-id-type-mismatch", "dma-mesh-arity",
                      "dma-semaphore-imbalance", "dma-semaphore-race", "dma-send-never-waited",
                      "dma-shape-mismatch",
                      "dma-src-sem-device-id-mismatch",
                      "dma-start-priority", "dma-unused-descriptor",
                      "dma-wait-send-on-local-copy"):
            self.assertIn(check, t.stdout)
        d = self.dmalint("--list-checks")
        self.assertEqual(d.returncode, 0)
        self.assertEqual(sorted(l.strip() for l in d.stdout.splitlines()[1:]),
                         sorted(l.strip() for l in t.stdout.splitlines()[1:] if l.strip()))


if __name__ == "__main__":
    unittest.main()
