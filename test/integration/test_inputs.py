"""Bad input makes a CI gate fail loudly and still report the rest: a
compilation database with broken entries, code that does not compile,
configuration errors, and the small cases of issue 17. Each case checks the
exit status (2), that the message names the problem and its file or entry,
and that the other files are still analysed and reported; through both
front ends where both are involved.

Tool paths come from the environment (set by CTest): DMALINT, CLANG_TIDY,
PLUGIN, DMALINT_INCLUDE.
"""
import json
import os
import re
import shutil
import subprocess
import tempfile
import textwrap
import unittest

from common import BAD_PRIORITY, CLANG_TIDY, DMALINT, FIXABLE, HEAD, INCLUDE, PLUGIN
FINDING = re.compile(r"^(\S+):(\d+):(\d+): (warning|error): (.*) \[(dma-[\w-]+)(,-warnings-as-errors)?\]$",
                     re.M)


def findings(text):
    return FINDING.findall(text)


class Base(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="dmalint-inputs-")
        self.addCleanup(shutil.rmtree, self.dir)

    def write(self, name, text):
        path = os.path.normpath(os.path.join(self.dir, name))
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w", newline="") as f:
            f.write(text)
        return path

    def run_tool(self, args, cwd=None):
        r = subprocess.run(args, cwd=cwd or self.dir, capture_output=True, text=True,
                           timeout=300)
        # Never a crash or an abort, whatever the input.
        self.assertGreaterEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertNotIn("Stack dump", r.stderr)
        self.assertNotIn("LLVM ERROR", r.stderr)
        return r

    def dmalint(self, *args, cwd=None):
        return self.run_tool([DMALINT, *args], cwd)

    def clang_tidy(self, *args, cwd=None):
        return self.run_tool([CLANG_TIDY, "-load=" + PLUGIN, *args], cwd)

    def flags(self):
        return ["--", "-std=c++17", "-I" + INCLUDE]

    def entry(self, file, directory=None, **extra):
        e = {"directory": directory or self.dir, "file": file}
        if not extra:
            e["command"] = "clang++ -std=c++17 -I%s -c %s" % (INCLUDE, file)
        e.update(extra)
        return e

    def database(self, entries, where="."):
        return self.write(os.path.normpath(os.path.join(where, "compile_commands.json")),
                          entries if isinstance(entries, str) else json.dumps(entries))


@unittest.skipUnless(DMALINT and INCLUDE, "tool paths not set")
class CompileDatabase(Base):
    """Entries LibTooling would abort on or guess about are reported by their
    index; the other entries are analysed (clang-tidy itself aborts on a
    missing directory: that is LibTooling's ClangTool, before any check)."""

    def assert_rest_reported(self, r, file="good.cc"):
        self.assertEqual([(os.path.basename(f[0]), f[1], f[2]) for f in findings(r.stdout)],
                         [(file, "5", "11")], r.stdout)

    def test_missing_directory_is_reported_and_the_other_files_still_run(self):
        self.write("good.cc", BAD_PRIORITY)
        self.write("other.cc", BAD_PRIORITY)
        db = self.database([self.entry("good.cc"),
                            self.entry("other.cc", directory=os.path.join(self.dir, "gone"))])
        r = self.dmalint("-p", self.dir)
        self.assertEqual(r.returncode, 2, r.stdout + r.stderr)
        # Paths under the working directory print relative, as clang's do.
        self.assertEqual(os.path.relpath(db, self.dir), "compile_commands.json")
        self.assertIn("\ncompile_commands.json: error: entry 2 ('other.cc') has the directory "
                      "'%s', which does not exist; the file is not analysed\n"
                      % os.path.join(self.dir, "gone"), "\n" + r.stdout)
        self.assert_rest_reported(r)
        self.assertIn("1 compilation-database entry could not be used", r.stderr)
        self.assertNotIn("compiler error", r.stderr)

    def test_missing_file_is_an_entry_problem_not_compiler_errors(self):
        self.write("good.cc", BAD_PRIORITY)
        self.database([self.entry("good.cc"), self.entry("missing.cc")])
        r = self.dmalint("-p", self.dir)
        self.assertEqual(r.returncode, 2, r.stdout + r.stderr)
        self.assertIn("entry 2 has the file '%s', which does not exist; the file is not "
                      "analysed" % os.path.join(self.dir, "missing.cc"), r.stdout)
        self.assertNotIn("compiler error", r.stderr)
        self.assert_rest_reported(r)

    def test_relative_directory_is_relative_to_the_database(self):
        self.write("src/good.cc", BAD_PRIORITY)
        self.database([self.entry("good.cc", directory=".")], where="src")
        # Run from elsewhere: "." is the database's directory, not ours.
        r = self.dmalint("-p", os.path.join(self.dir, "src"), cwd="/")
        self.assertEqual(r.returncode, 1, r.stdout + r.stderr)
        self.assert_rest_reported(r)

    def test_malformed_entries_are_named_and_skipped(self):
        self.write("good.cc", BAD_PRIORITY)
        self.database([self.entry("good.cc"), {"directory": self.dir, "file": "good.cc"},
                       self.entry("good.cc", arguments=["clang++", 3]), 7,
                       {"file": "good.cc", "command": "clang++ -c good.cc"}])
        r = self.dmalint("-p", self.dir)
        self.assertEqual(r.returncode, 2, r.stdout + r.stderr)
        for problem in ("entry 2 ('good.cc') has neither \"command\" nor \"arguments\"",
                        "entry 3 ('good.cc') has \"arguments\" that are not a list of strings",
                        "entry 4 is not an object", "entry 5 ('good.cc') has no \"directory\""):
            self.assertIn(problem, r.stdout)
        # good.cc has a usable entry: analysed with it, and said so.
        self.assertEqual(r.stdout.count("the entry is ignored"), 4, r.stdout)
        self.assert_rest_reported(r)

    def test_malformed_json_stops_before_any_partial_run(self):
        self.write("good.cc", BAD_PRIORITY)
        db = self.database('[{"directory": "%s", "file": "good.cc", "command": "clang++ -c '
                           'good.cc"},\n {"directory": ' % self.dir)
        r = self.dmalint("-p", self.dir)
        self.assertEqual(r.returncode, 2)
        self.assertEqual(r.stdout, "")
        self.assertIn("dmalint: error: the compilation database '%s' is not valid JSON: [2:" % db,
                      r.stderr)
        self.assertNotIn("YAML", r.stderr)

    def test_build_directory_without_a_database(self):
        os.makedirs(os.path.join(self.dir, "build"))
        r = self.dmalint("-p", os.path.join(self.dir, "build"))
        self.assertEqual(r.returncode, 2)
        self.assertIn("no compilation database in '%s': it holds no compile_commands.json"
                      % os.path.join(self.dir, "build"), r.stderr)
        self.assertNotIn("fixed-compilation-database", r.stderr)

    def test_flags_without_files(self):
        r = self.dmalint("--", "-std=c++17")
        self.assertEqual(r.returncode, 2)
        self.assertIn("no input files: give the files to check before '--'", r.stderr)
        self.assertNotIn("lists no files", r.stderr)

    def test_sarif_names_the_rejected_entry_and_keeps_the_results(self):
        self.write("good.cc", BAD_PRIORITY)
        db = self.database([self.entry("good.cc"), self.entry("missing.cc")])
        r = self.dmalint("-p", self.dir, "--format=sarif")
        self.assertEqual(r.returncode, 2, r.stderr)
        run = json.loads(r.stdout)["runs"][0]
        self.assertEqual([x["ruleId"] for x in run["results"]], ["dma-start-priority"])
        invocation = run["invocations"][0]
        self.assertFalse(invocation["executionSuccessful"])
        [note] = invocation["toolExecutionNotifications"]
        self.assertEqual(note["level"], "error")
        self.assertIn("missing.cc', which does not exist", note["message"]["text"])
        self.assertEqual(note["locations"][0]["physicalLocation"]["artifactLocation"]["uri"],
                         "compile_commands.json")
        # Stdout is the log only; the problem reads on stderr too.
        self.assertIn("missing.cc', which does not exist", r.stderr)


if __name__ == "__main__":
    unittest.main()


# A kernel with one finding of each kind the AST checks and the dataflow
# checks report, so that "no check ran" is visible.
SEVERAL = HEAD + textwrap.dedent("""\
    void k(Ref<float> a, Ref<float> b, DmaSemaphore s, DmaSemaphore r) {
      auto d = make_async_copy(a, b, s);
      d.start(-1);
      d.wait_send();
      auto e = make_async_remote_copy(a, b, s, r, {0, 1}, DeviceIdType::kLogical);
      e.start();
      e.wait();
      auto unused = make_async_copy(a, b, s);
    }
    """)
CONFIG_ERROR = re.compile(r"^error: (.*) \[clang-tidy-config\]$", re.M)


@unittest.skipUnless(DMALINT and CLANG_TIDY and PLUGIN and INCLUDE, "tool paths not set")
class BrokenCode(Base):
    """No check judges a translation unit that does not compile."""

    def test_no_finding_in_a_translation_unit_with_errors(self):
        path = self.write("broken.cc", SEVERAL.replace("auto unused", "int x = nope; auto unused"))
        r = self.dmalint(path, *self.flags())
        self.assertEqual(r.returncode, 2, r.stdout + r.stderr)
        self.assertIn("error: use of undeclared identifier 'nope'", r.stdout)
        self.assertEqual(findings(r.stdout), [], r.stdout)
        self.assertIn("1 compiler error", r.stderr)
        log = json.loads(self.dmalint("--format=sarif", path, *self.flags()).stdout)
        self.assertEqual(log["runs"][0]["results"], [])
        t = self.clang_tidy("--checks=-*,dma-*", path, *self.flags())
        self.assertIn("error: use of undeclared identifier 'nope'", t.stdout)
        self.assertNotIn("[dma-", t.stdout)

    def test_other_translation_units_are_still_judged(self):
        self.write("broken.cc", SEVERAL.replace("auto unused", "int x = nope; auto unused"))
        self.write("good.cc", BAD_PRIORITY)
        self.database([self.entry("broken.cc"), self.entry("good.cc")])
        r = self.dmalint("-p", self.dir)
        self.assertEqual(r.returncode, 2)
        self.assertEqual([(os.path.basename(f[0]), f[1]) for f in findings(r.stdout)],
                         [("good.cc", "5")], r.stdout)


@unittest.skipUnless(DMALINT and CLANG_TIDY and PLUGIN and INCLUDE, "tool paths not set")
class ConfigurationErrors(Base):
    """A configuration error stops every dma-* check on the files it governs,
    in both front ends, and is worded as a configuration error."""

    def kernel(self, config, name="k.cc", where="."):
        if config is not None:
            self.write(os.path.join(where, ".clang-tidy"), config)
        return self.write(os.path.join(where, name), SEVERAL)

    def both(self, path, checks=None):
        """dmalint with --checks=CHECKS, clang-tidy with -*,dma-*,CHECKS."""
        d = self.dmalint(*(["--checks=" + checks] if checks else []), path, *self.flags())
        t = self.clang_tidy("--checks=-*,dma-*" + ("," + checks if checks else ""), path,
                            *self.flags())
        return d, t

    def assert_stopped(self, d, t, *messages):
        """dmalint: status 2, each message once as a configuration error, no
        finding; clang-tidy with the plugin: the same lines, no finding."""
        self.assertEqual(d.returncode, 2, d.stdout + d.stderr)
        for tool, r in (("dmalint", d), ("clang-tidy", t)):
            errors = CONFIG_ERROR.findall(r.stdout)
            for message in messages:
                self.assertEqual(errors.count(message), 1,
                                 "%s: %r once in\n%s" % (tool, message, r.stdout + r.stderr))
            self.assertNotIn("[dma-", r.stdout, tool)
        self.assertIn("configuration error", d.stderr)
        self.assertNotIn("compiler error", d.stderr)

    def test_a_model_that_does_not_fit_the_code_judges_nothing(self):
        config = os.path.join(self.dir, ".clang-tidy")
        path = self.kernel("CheckOptions:\n  dma.StartMethod: launch\n  dma.WaitMethod: finish\n")
        d, t = self.both(path)
        self.assert_stopped(
            d, t,
            "invalid API model option 'dma.StartMethod' in '%s': 'tpu::AsyncCopyDescriptor' has "
            "no method 'launch'" % config,
            "invalid API model option 'dma.WaitMethod' in '%s': 'tpu::AsyncCopyDescriptor' has "
            "no method 'finish'" % config)
        self.assertNotIn("did you mean to call", d.stdout + t.stdout)

    def test_malformed_clang_tidy_is_one_error_not_the_defaults(self):
        config = os.path.join(self.dir, ".clang-tidy")
        path = self.kernel("Checks: '-*,dma-start-priority\nWarningsAsErrors: '*'\n")
        d, t = self.both(path)
        # The first error YAML reports, whatever it is, with its line.
        got = CONFIG_ERROR.findall(d.stdout)
        self.assertEqual(len(got), 1, d.stdout + d.stderr)
        self.assertRegex(got[0], r"^cannot parse the configuration file '%s': line \d+, column "
                         r"\d+: .*; no dma-\* check runs on the files it governs$"
                         % re.escape(config))
        self.assert_stopped(d, t, got[0])
        # dmalint says it once, not at every lookup of the options.
        self.assertLessEqual((d.stdout + d.stderr).count(config), 1, d.stdout + d.stderr)

    def test_unreadable_clang_tidy(self):
        os.symlink(os.path.join(self.dir, "nowhere"), os.path.join(self.dir, ".clang-tidy"))
        path = self.kernel(None)
        d, t = self.both(path)
        self.assert_stopped(d, t, "cannot read the configuration file '%s': No such file or "
                            "directory; no dma-* check runs on the files it governs"
                            % os.path.join(self.dir, ".clang-tidy"))

    def test_option_values_that_cannot_be_taken(self):
        limit = "must be a number of steps from 1 to 4294967295, got '%s'"
        cases = {
            "dma-wait-send-on-local-copy.WorkLimit: lots": limit % "lots",
            "dma-wait-send-on-local-copy.WorkLimit: -5": limit % "-5",
            "dma-wait-send-on-local-copy.WorkLimit: 0": limit % "0",
            "dma-wait-send-on-local-copy.WorkLimit: 12345678901234567890123":
                limit % "12345678901234567890123",
            "dma-start-priority.ReportSkippedFunctions: maybe": "must be true or false, got 'maybe'",
            "dma-unused-descriptor.CrossFunctionSummaries: sometimes":
                "must be true or false, got 'sometimes'",
            "dma.StartMethod: ''": "is empty; name the descriptor's method for this role, or "
                                   "write '-' if the API has none",
        }
        config = os.path.join(self.dir, ".clang-tidy")
        for option, problem in cases.items():
            with self.subTest(option=option):
                path = self.kernel("CheckOptions:\n  %s\n" % option)
                key = option.split(":")[0]
                what = "API model option" if key.startswith("dma.") else "option"
                d, t = self.both(path)
                self.assert_stopped(d, t, "invalid %s '%s' in '%s': %s"
                                    % (what, key, config, problem))

    def test_good_values_are_taken(self):
        path = self.kernel("CheckOptions:\n  dma-wait-send-on-local-copy.WorkLimit: 500\n"
                           "  dma-start-priority.ReportSkippedFunctions: Yes\n"
                           "  dma-unused-descriptor.CrossFunctionSummaries: 0\n")
        d, t = self.both(path)
        self.assertEqual(d.returncode, 1, d.stdout + d.stderr)
        self.assertEqual(CONFIG_ERROR.findall(d.stdout + t.stdout), [])
        self.assertEqual(len(findings(d.stdout)), 4, d.stdout)

    def test_unknown_check_names(self):
        config = os.path.join(self.dir, ".clang-tidy")
        known = ("dma-bool-ref, dma-device-id-type-mismatch, dma-mesh-arity, "
                 "dma-semaphore-imbalance, dma-semaphore-race, dma-send-never-waited, dma-shape-mismatch, "
                 "dma-src-sem-device-id-mismatch, "
                 "dma-start-priority, dma-unused-descriptor, dma-wait-send-on-local-copy")
        # On the command line: "runs all checks and exits 1 without a word" no more.
        path = self.kernel(None)
        d, t = self.both(path, checks="dma-does-not-exist")
        self.assert_stopped(d, t, "unknown check 'dma-does-not-exist' in the checks given on "
                            "the command line; the dma-* checks are " + known)
        # In .clang-tidy, a check meant to be turned off but misspelt.
        path = self.kernel("Checks: '-*,dma-*,-dma-wait-send-on-lokal-copy'\n")
        d, t = self.both(path)
        self.assert_stopped(d, t, "unknown check 'dma-wait-send-on-lokal-copy' in the Checks of "
                            "'%s'; did you mean 'dma-wait-send-on-local-copy'?" % config)
        # Other modules' checks are clang-tidy's business, not ours.
        path = self.kernel("Checks: '-*,dma-*,bugprone-*,-readability-nonexistent'\n")
        d = self.dmalint(path, *self.flags())
        self.assertEqual(d.returncode, 1, d.stdout + d.stderr)

    def test_unknown_option_keys(self):
        config = os.path.join(self.dir, ".clang-tidy")
        path = self.kernel("CheckOptions:\n  dma-unused-descriptor.WorkLimt: 5\n"
                           "  dma-start-priorty.WorkLimit: 5\n"
                           "  dma-device-id-type-mismatch.WorkLimit: 5\n")
        d, t = self.both(path)
        self.assert_stopped(
            d, t,
            "invalid option 'dma-unused-descriptor.WorkLimt' in '%s': unknown option; did you "
            "mean 'dma-unused-descriptor.WorkLimit'?" % config,
            "invalid option 'dma-start-priorty.WorkLimit' in '%s': there is no check "
            "'dma-start-priorty'; did you mean 'dma-start-priority.WorkLimit'?" % config,
            "invalid option 'dma-device-id-type-mismatch.WorkLimit' in '%s': unknown option; "
            "dma-device-id-type-mismatch has no options" % config)

    def test_only_the_files_a_bad_configuration_governs_are_stopped(self):
        self.kernel("Checks: '-*,dma-*\n", where="bad")
        self.write("good/k.cc", BAD_PRIORITY)
        self.database([self.entry("bad/k.cc"), self.entry("good/k.cc")])
        r = self.dmalint("-p", self.dir)
        self.assertEqual(r.returncode, 2)
        # Printed relative to the working directory (self.dir).
        self.assertEqual([f[0] for f in findings(r.stdout)], ["good/k.cc"], r.stdout)
        self.assertEqual(len(CONFIG_ERROR.findall(r.stdout)), 1, r.stdout)

    def test_verify_config(self):
        config = os.path.join(self.dir, ".clang-tidy")
        self.write(".clang-tidy", "Checks: '-*,dma-*'\nCheckOptions:\n"
                   "  dma-start-priority.WorkLimit: 1000\n")
        r = self.dmalint("--verify-config")
        self.assertEqual((r.returncode, r.stdout), (0, "No config errors detected.\n"), r.stderr)
        # Also the options of checks the file turns off: a typo is a typo.
        self.write(".clang-tidy", "Checks: '-*,dma-start-priority'\nCheckOptions:\n"
                   "  dma-unused-descriptor.WorkLimit: many\n")
        r = self.dmalint("--verify-config")
        self.assertEqual(r.returncode, 2)
        self.assertEqual(r.stderr, "dmalint: error: invalid option 'dma-unused-descriptor."
                         "WorkLimit' in '%s': must be a number of steps from 1 to 4294967295, "
                         "got 'many'\n" % config)
        r = self.dmalint("--verify-config", "--checks=dma-nope")
        self.assertEqual(r.returncode, 2)
        self.assertIn("unknown check 'dma-nope'", r.stderr)
        # clang-tidy's own --verify-config knows the plugin's checks.
        t = self.clang_tidy("--checks=-*,dma-*,dma-nope", "--verify-config")
        self.assertIn("unknown check 'dma-nope'", t.stdout + t.stderr)
        # And the API model's keys, shared or under a check's name; a typo in
        # one is named, in both front ends.
        self.write(".clang-tidy", "Checks: '-*,dma-*'\nCheckOptions:\n"
                   "  dma.StartMethod: start\n  dma-start-priority.WaitMethod: wait\n")
        for t in (self.dmalint("--verify-config"), self.clang_tidy("--verify-config")):
            self.assertEqual(t.returncode, 0, t.stdout + t.stderr)
            self.assertIn("No config errors detected.", t.stdout)
        self.write(".clang-tidy", "Checks: '-*,dma-*'\nCheckOptions:\n  dma.StartMethd: start\n")
        t = self.clang_tidy("--verify-config")
        self.assertNotEqual(t.returncode, 0)
        self.assertIn("unknown check option 'dma.StartMethd'; did you mean 'dma.StartMethod'",
                      t.stdout + t.stderr)
        r = self.dmalint("--verify-config")
        self.assertEqual(r.returncode, 2)
        self.assertIn("dma.StartMethd", r.stderr)

    def test_dump_config_with_a_bad_model_is_an_error_not_a_crash(self):
        self.write(".clang-tidy", "CheckOptions:\n  dma.StartMethod: 'a b'\n")
        r = self.dmalint("--dump-config")
        self.assertEqual(r.returncode, 2, r.stdout + r.stderr)
        self.assertIn("'a b' is not a method name", r.stderr)
        self.assertEqual(r.stdout, "")


@unittest.skipUnless(DMALINT and CLANG_TIDY and PLUGIN and INCLUDE, "tool paths not set")
class SmallOnes(Base):
    def test_priorities_from_system_header_macros_are_reported(self):
        path = self.write("limits.cc", "#include <climits>\n" + HEAD + textwrap.dedent("""\
            void k(Ref<float> a, Ref<float> b, DmaSemaphore s) {
              auto d = make_async_copy(a, b, s);
              d.start(INT_MIN);
              d.start(INT_MAX);
              d.start(-2147483647 - 1);
              d.wait();
            }
            """))
        want = [("6", "11", "DMA start priority must be non-negative, got -2147483648"),
                ("7", "11", "DMA start priority must be 0 or 1, got 2147483647"),
                ("8", "11", "DMA start priority must be non-negative, got -2147483648")]
        r = self.dmalint(path, *self.flags())
        self.assertEqual(r.returncode, 1, r.stderr)
        self.assertEqual([(f[1], f[2], f[4]) for f in findings(r.stdout)], want, r.stdout)
        t = self.clang_tidy("--checks=-*,dma-*", path, *self.flags())
        self.assertEqual([(f[1], f[2], f[4]) for f in findings(t.stdout)], want, t.stdout)

    def test_carriage_return_line_ends(self):
        # Lines ended by a lone \r (old Mac files), as clang counts them.
        path = self.write("cr.cc", BAD_PRIORITY.replace("\n", "\r"))
        r = self.dmalint(path, *self.flags())
        self.assertEqual([(f[1], f[2]) for f in findings(r.stdout)], [("5", "11")], r.stdout)
        self.assertIn("    5 |   d.start(-1);\n      |           ^\n", r.stdout)
        log = json.loads(self.dmalint("--format=sarif", path, *self.flags()).stdout)
        region = log["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["region"]
        self.assertEqual((region["startLine"], region["startColumn"]), (5, 11))
        t = self.clang_tidy("--checks=-*,dma-*", path, *self.flags())
        self.assertEqual([(f[1], f[2]) for f in findings(t.stdout)], [("5", "11")], t.stdout)

    def on_a_terminal(self, args, env):
        """stdout of dmalint run on a pseudo-terminal."""
        import pty
        main, secondary = pty.openpty()
        try:
            p = subprocess.Popen([DMALINT, *args], cwd=self.dir, stdout=secondary,
                                 stderr=subprocess.DEVNULL, env=env)
            os.close(secondary)
            out = b""
            while True:
                try:
                    chunk = os.read(main, 4096)
                except OSError:
                    break
                if not chunk:
                    break
                out += chunk
            p.wait(timeout=120)
        finally:
            os.close(main)
        return out.decode("utf-8", "replace")

    def test_no_color(self):
        path = self.write("bad.cc", BAD_PRIORITY)
        args = [path, *self.flags()]
        env = {k: v for k, v in os.environ.items() if k != "NO_COLOR"}
        self.assertIn("\x1b[", self.on_a_terminal(args, env))
        quiet = self.on_a_terminal(args, dict(env, NO_COLOR="1"))
        self.assertIn("warning: DMA start priority", quiet)
        self.assertNotIn("\x1b[", quiet)
        # An explicit --use-color wins over the environment.
        self.assertIn("\x1b[", self.on_a_terminal(["--use-color", *args], dict(env, NO_COLOR="1")))

    def test_fix_that_cannot_be_written(self):
        import resource
        import signal
        path = self.write("fix.cc", FIXABLE)
        with open(path) as f:
            before = f.read()

        def no_file_may_grow():
            # A write that fails whoever runs the test (root ignores a
            # read-only directory): files may not grow, EFBIG instead of
            # SIGXFSZ.
            resource.setrlimit(resource.RLIMIT_FSIZE, (0, 0))
            signal.signal(signal.SIGXFSZ, signal.SIG_IGN)

        r = subprocess.run([DMALINT, "--fix", path, *self.flags()], cwd=self.dir,
                           capture_output=True, text=True, timeout=120,
                           preexec_fn=no_file_may_grow)
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertIn("dmalint: error: cannot write fixes to %s: File too large" % path, r.stderr)
        self.assertIn("dmalint: applied fixes of 0 findings in 0 files, not those of 1 whose "
                      "files could not be written", r.stderr)
        self.assertNotIn("LLVM ERROR", r.stderr)
        with open(path) as f:
            self.assertEqual(f.read(), before)
        self.assertEqual([x for x in os.listdir(self.dir) if "dmalint-" in x], [])

    def test_warnings_as_errors_print_as_errors_and_exit_1(self):
        self.write(".clang-tidy", "WarningsAsErrors: 'dma-start-priority'\n")
        path = self.write("bad.cc", BAD_PRIORITY)
        r = self.dmalint(path, *self.flags())
        self.assertEqual(r.returncode, 1, r.stderr)
        self.assertEqual(findings(r.stdout),
                         [("bad.cc", "5", "11", "error",
                           "DMA start priority must be non-negative, got -1",
                           "dma-start-priority", ",-warnings-as-errors")])
        t = self.clang_tidy("--checks=-*,dma-*", path, *self.flags())
        self.assertEqual([f[3:] for f in findings(t.stdout)], [f[3:] for f in findings(r.stdout)])
