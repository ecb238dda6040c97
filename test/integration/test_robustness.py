"""Broken input never crashes either front end: code that does not compile
(syntax errors, unresolved names, incomplete types, recovery expressions, a
half-typed call on a descriptor, deleted declarations, an unterminated file)
is reported as compiler errors, with exit status 2 from dmalint, and the
plugin inside clang-tidy reports the same errors without crashing.

Env (set by CTest): DMALINT, CLANG_TIDY, PLUGIN, DMALINT_INCLUDE.
"""
import glob
import os
import subprocess
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


if __name__ == "__main__":
    unittest.main()
