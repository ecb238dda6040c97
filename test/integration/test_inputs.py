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

DMALINT = os.environ.get("DMALINT")
CLANG_TIDY = os.environ.get("CLANG_TIDY")
PLUGIN = os.environ.get("PLUGIN")
INCLUDE = os.environ.get("DMALINT_INCLUDE")

HEAD = "#include <tpu/dma.h>\nusing namespace tpu;\n"
# One finding: line 5, column 11.
BAD_PRIORITY = HEAD + textwrap.dedent("""\
    void k(Ref<float> a, Ref<float> b, DmaSemaphore s) {
      auto d = make_async_copy(a, b, s);
      d.start(-1);
      d.wait();
    }
    """)
FINDING = re.compile(r"^(\S+):(\d+):(\d+): (warning|error): (.*) \[(dma-[\w-]+)(,-warnings-as-errors)?\]$",
                     re.M)


def findings(text):
    return FINDING.findall(text)


class Base(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="dmalint-inputs-")
        self.addCleanup(shutil.rmtree, self.dir)

    def write(self, name, text):
        path = os.path.join(self.dir, name)
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
