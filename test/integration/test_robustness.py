"""Broken input never crashes either front end: code that does not compile
(syntax errors, unresolved names, incomplete types, recovery expressions, a
half-typed call on a descriptor, deleted declarations, an unterminated file)
is reported as compiler errors, with exit status 2 from dmalint, and the
plugin inside clang-tidy reports the same errors without crashing.

Env (set by CTest): DMALINT, CLANG_TIDY, PLUGIN, DMALINT_INCLUDE.
"""
import glob
import json
import os
import re
import subprocess
import tempfile
import unittest

DMALINT = os.environ.get("DMALINT")
CLANG_TIDY = os.environ.get("CLANG_TIDY")
PLUGIN = os.environ.get("PLUGIN")
INCLUDE = os.environ.get("DMALINT_INCLUDE")
BROKEN = sorted(glob.glob(os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                       "..", "robustness", "broken", "*.cc")))


@unittest.skipUnless(DMALINT and CLANG_TIDY and PLUGIN and INCLUDE, "tool paths not set")
class BrokenInput(unittest.TestCase):
    def test_there_are_broken_inputs(self):
        self.assertGreaterEqual(len(BROKEN), 7)

    def test_dmalint_reports_compiler_errors_and_exits_2(self):
        for path in BROKEN:
            with self.subTest(os.path.basename(path)):
                r = subprocess.run([DMALINT, "--checks=-*,dma-*", path, "--", "-std=c++17",
                                    "-I" + INCLUDE], capture_output=True, text=True, timeout=120)
                self.assertEqual(r.returncode, 2, r.stdout + r.stderr)
                self.assertIn("error:", r.stdout)
                self.assertIn("compiler error", r.stderr)
                # Findings are not judged on code that does not compile.
                self.assertNotIn("[dma-", r.stdout)

    def test_plugin_in_clang_tidy_does_not_crash(self):
        for path in BROKEN:
            with self.subTest(os.path.basename(path)):
                r = subprocess.run([CLANG_TIDY, "-load=" + PLUGIN, "--checks=-*,dma-*", path,
                                    "--", "-std=c++17", "-I" + INCLUDE],
                                   capture_output=True, text=True, timeout=120)
                # clang-tidy exits 1 on compiler errors; a crash is a signal
                # (negative status) or a stack dump.
                self.assertEqual(r.returncode, 1, r.stdout + r.stderr)
                self.assertIn("error:", r.stdout)
                self.assertNotIn("Stack dump", r.stderr)
                self.assertNotIn("[dma-", r.stdout)


@unittest.skipUnless(DMALINT, "tool paths not set")
class ErrorLocations(unittest.TestCase):
    def test_error_in_a_library_header_names_a_real_file_and_line(self):
        # With a bare compiler name in the database ("clang++", as meson and
        # Bear write it) the driver reaches libstdc++ through
        # /lib/gcc/.../../../../include/c++; on Debian /lib is a symbolic link,
        # and removing the `..` by name once gave /include/c++/...:0:0.
        with tempfile.TemporaryDirectory() as tmp:
            source = os.path.join(tmp, "repro.cc")
            with open(source, "w") as f:
                f.write("#include <memory>\nstruct Incomplete;\n"
                        "struct Holder { std::unique_ptr<Incomplete> p; ~Holder() {} };\n")
            with open(os.path.join(tmp, "compile_commands.json"), "w") as f:
                json.dump([{"directory": tmp, "file": source,
                            "arguments": ["clang++", "-std=c++17", "-c", source]}], f)
            r = subprocess.run([DMALINT, "-p", tmp], capture_output=True, text=True,
                               timeout=120)
            self.assertEqual(r.returncode, 2, r.stdout + r.stderr)
            errors = [re.match(r"(.*):(\d+):(\d+): error: ", line)
                      for line in r.stdout.splitlines()]
            errors = [m for m in errors if m]
            self.assertTrue(errors, r.stdout)
            for m in errors:
                self.assertTrue(os.path.isfile(m.group(1)), m.group(0))
                self.assertGreater(int(m.group(2)), 0, m.group(0))


if __name__ == "__main__":
    unittest.main()
