"""The API model as configuration (docs/config.md): malformed `dma.*`
CheckOptions under test/config/, each reported as exactly one
`error: invalid API model option '<key>' in '<path>': <problem>` line by
dmalint (exit status 2) and by clang-tidy with the plugin; and
`--dump-config` showing the effective model.

Every file in test/config/ is test/api2/acme.clang-tidy with one thing
broken; it is copied as `.clang-tidy` next to a small kernel written against
test/api2/acme_dma.h.

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

TEST_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CONFIG_DIR = os.path.join(TEST_DIR, "config")
API2_DIR = os.path.join(TEST_DIR, "api2")
ACME_CONFIG = os.path.join(API2_DIR, "acme.clang-tidy")

# A clean kernel against the acme API: any diagnostic is about the configuration.
ACME_KERNEL = textwrap.dedent("""\
    #include "acme_dma.h"
    using namespace acme;
    void k(Buffer a, Buffer b, Sem s) {
      auto d = copy_local(a, b, s);
      d.kick();
      d.await_all();
    }
    """)
# The same kernel against <tpu/dma.h>: it does not define acme::DmaHandle.
TPU_KERNEL = textwrap.dedent("""\
    #include <tpu/dma.h>
    using namespace tpu;
    void k(Ref<float> a, Ref<float> b, DmaSemaphore s) {
      auto d = make_async_copy(a, b, s);
      d.start();
      d.wait();
    }
    """)

KNOWN_KEYS = ("dma.AxisIndexFunctions, dma.AxisSizeFunctions, "
              "dma.BufferType, dma.ConstructorDeviceIdKindParam, dma.ConstructorDeviceIdParam, "
              "dma.ConstructorDstSemParam, "
              "dma.ConstructorSrcSemParam, dma.DescriptorTypes, dma.DeviceIdFunctions, "
              "dma.DeviceIdKindEnum, dma.DeviceIdType, dma.DeviceQueries, dma.IsRemoteMethod, "
              "dma.LocalFactories, dma.LocalFactorySemParam, dma.LogicalEnumerator, "
              "dma.MeshEnumerator, dma.RemoteFactories, dma.RemoteFactoryRecvSemParam, "
              "dma.RemoteFactorySendSemParam, dma.SemaphoreSignalFunctions, dma.SemaphoreWaitFunctions, "
              "dma.SliceMethod, dma.SliceSizeParam, dma.StartMethod, "
              "dma.StartPriorityParam, dma.StartedLocalFactories, dma.StartedRemoteFactories, "
              "dma.SyncCopyFunctions, dma.WaitMethod, dma.WaitRecvMethod, dma.WaitSendMethod")

# test/config/<case>.clang-tidy -> (key, problem) of its one error.
CASES = {
    "unknown-key": (
        "dma.WaitSendMethods", "unknown option; the API model's options are " + KNOWN_KEYS),
    "bad-function-name": (
        "dma.LocalFactories", "'::acme::copy-local' is not a C++ name"),
    "bad-method-name": (
        "dma.WaitMethod", "'acme::DmaHandle::await_all' is not a method name"),
    "bad-device-id-functions": (
        "dma.DeviceIdFunctions",
        "'::acme::signal_peer:1' is not 'function:device-id-position:kind-position'"),
    "duplicate-method-role": (
        "dma.WaitSendMethod", "'await_all' is already the WaitMethod; a method has one role"),
    "duplicate-function-role": (
        "dma.RemoteFactories",
        "'::acme::copy_local' is already in dma.LocalFactories; a function has one role"),
    "same-constructor-position": (
        "dma.ConstructorDeviceIdParam", "is the same position as dma.ConstructorSrcSemParam"),
    "position-out-of-range": (
        "dma.ConstructorSrcSemParam",
        "position 9 is out of range: no constructor of 'acme::DmaHandle' has more than 6 "
        "parameters"),
    "position-too-large": (
        "dma.ConstructorDeviceIdParam", "must be a 0-based parameter position, got '100'"),
    "unknown-method": (
        "dma.StartMethod", "'acme::DmaHandle' has no method 'launch'"),
    "non-integer-position": (
        "dma.StartPriorityParam", "must be a 0-based parameter position, got 'first'"),
    "bad-semaphore-signal-functions": (
        "dma.SemaphoreSignalFunctions",
        "'::acme::bump:1' is not 'function:semaphore-position:increment-position' (positions "
        "from 0 to 64; '-' for an increment that is always 1)"),
    "signal-semaphore-at-device-id": (
        "dma.SemaphoreSignalFunctions",
        "'::acme::signal_peer': position 1 is its device id in dma.DeviceIdFunctions"),
    "wait-position-out-of-range": (
        "dma.SemaphoreWaitFunctions",
        "position 2 is out of range: 'acme::await_signals' has 2 parameters"),
    "negative-position": (
        "dma.ConstructorDeviceIdKindParam", "must be a 0-based parameter position, got '-1'"),
}
# Problems that are found only against a translation unit that defines the
# descriptor type (the names must resolve there).
TU_VALIDATED = {"position-out-of-range", "unknown-method", "wait-position-out-of-range"}

CONFIG_ERROR_RE = re.compile(r"^error: invalid API model option .*$", re.M)


@unittest.skipUnless(DMALINT and CLANG_TIDY and PLUGIN and INCLUDE, "tool paths not set")
class MalformedConfig(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="dmalint-config-")
        self.addCleanup(shutil.rmtree, self.dir)
        self.config = os.path.join(self.dir, ".clang-tidy")

    def use(self, case, kernel=ACME_KERNEL):
        shutil.copy(os.path.join(CONFIG_DIR, case + ".clang-tidy"), self.config)
        path = os.path.join(self.dir, "k.cc")
        with open(path, "w") as f:
            f.write(kernel)
        return path

    def flags(self):
        return ["--", "-std=c++17", "-I" + INCLUDE, "-I" + API2_DIR]

    def dmalint(self, path, *extra):
        return subprocess.run([DMALINT, *extra, path, *self.flags()], cwd=self.dir,
                              capture_output=True, text=True, timeout=120)

    def clang_tidy(self, path, *extra):
        return subprocess.run([CLANG_TIDY, "-load=" + PLUGIN, *extra, path, *self.flags()],
                              cwd=self.dir, capture_output=True, text=True, timeout=120)

    def expected_line(self, case):
        key, problem = CASES[case]
        return ("error: invalid API model option '%s' in '%s': %s [clang-tidy-config]"
                % (key, self.config, problem))

    def assert_once(self, output, line, what):
        self.assertEqual(output.splitlines().count(line), 1,
                         "%s: expected exactly once:\n  %s\ngot:\n%s" % (what, line, output))

    def test_every_case_has_a_config_file(self):
        files = sorted(f[:-len(".clang-tidy")] for f in os.listdir(CONFIG_DIR)
                       if f.endswith(".clang-tidy"))
        self.assertEqual(sorted(set(CASES) | {"partial-model"}), files)

    def test_dmalint_reports_each_problem_once_with_exit_status_2(self):
        for case in CASES:
            with self.subTest(case=case):
                r = self.dmalint(self.use(case))
                self.assertEqual(r.returncode, 2, r.stdout + r.stderr)
                self.assert_once(r.stdout + r.stderr, self.expected_line(case), "dmalint")

    def test_clang_tidy_reports_the_same_line(self):
        for case in CASES:
            with self.subTest(case=case):
                r = self.clang_tidy(self.use(case))
                self.assertNotEqual(r.returncode, 0, r.stdout + r.stderr)
                self.assert_once(r.stdout + r.stderr, self.expected_line(case), "clang-tidy")

    def test_no_fix_is_applied_when_the_configuration_is_invalid(self):
        # duplicate-method-role makes await_all a send wait too (see below); a
        # --fix run must still leave the file alone.
        for tool in (self.dmalint, self.clang_tidy):
            with self.subTest(tool=tool.__name__):
                path = self.use("duplicate-method-role")
                tool(path, "--fix")
                with open(path) as f:
                    self.assertEqual(f.read(), ACME_KERNEL)

    def test_names_are_validated_only_where_the_descriptor_type_is_defined(self):
        # A translation unit that does not define acme::DmaHandle cannot tell
        # whether 'launch' exists: no error, and nothing to report.
        for case in sorted(TU_VALIDATED):
            with self.subTest(case=case):
                r = self.dmalint(self.use(case, kernel=TPU_KERNEL))
                self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
                self.assertNotIn("invalid API model option", r.stdout + r.stderr)

    # --- Fixed after they were found (kept as regression tests).

    def test_a_rejected_method_name_causes_no_second_error(self):
        # 'acme::DmaHandle::await_all' is rejected, the built-in 'wait' is kept,
        # and validation then adds: "... 'dma.WaitMethod' in '<path>':
        # 'acme::DmaHandle' has no method 'wait'": two errors for one problem,
        # the second about a value that is not in the file.
        r = self.dmalint(self.use("bad-method-name"))
        self.assertEqual(CONFIG_ERROR_RE.findall(r.stdout + r.stderr),
                         [self.expected_line("bad-method-name")])

    def test_a_contradictory_model_reports_no_findings(self):
        # With 'await_all' both the wait and the send wait, the model keeps the
        # contradiction (ApiModel.h: "the model keeps its earlier value for that
        # key") and dma-wait-send-on-local-copy reports `d.await_all()`.
        r = self.dmalint(self.use("duplicate-method-role"))
        self.assertNotIn("warning:", r.stdout)

    def test_a_key_left_to_its_default_is_not_blamed_on_the_command_line(self):
        # partial-model leaves dma.WaitRecvMethod out; the built-in 'wait_recv'
        # does not exist on acme::DmaHandle. The error is right, but says
        # "in the command line", where nothing was given.
        r = self.dmalint(self.use("partial-model"))
        self.assertEqual(r.returncode, 2, r.stdout + r.stderr)
        line = CONFIG_ERROR_RE.findall(r.stdout)
        self.assertEqual(len(line), 1, r.stdout)
        self.assertNotIn("in the command line", line[0])


@unittest.skipUnless(DMALINT and CLANG_TIDY and PLUGIN and INCLUDE, "tool paths not set")
class OneFileTwoCommands(unittest.TestCase):
    """A file the database lists twice, with other flags: two translation
    units of one file, run one after the other with one context. The API
    model names a method only the second command's flags declare, so only
    the first has a configuration error; the second is judged, and its
    finding reported, in both front ends."""

    KERNEL = textwrap.dedent("""\
        #include <tpu/dma.h>
        using namespace tpu;
        #ifdef WITH_LAUNCH
        void k(Ref<float> a, Ref<float> b, DmaSemaphore s) {
          auto d = make_async_copy(a, b, s);
          d.launch(-1);
          d.wait();
        }
        #endif
        """)

    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="dmalint-two-commands-")
        self.addCleanup(shutil.rmtree, self.dir)
        # <tpu/dma.h> with a method 'launch' under WITH_LAUNCH.
        os.makedirs(os.path.join(self.dir, "inc", "tpu"))
        with open(os.path.join(INCLUDE, "tpu", "dma.h")) as f:
            header = f.read()
        start = "  void start(int priority = 0);"
        self.assertIn(start, header)
        header = header.replace(start, "#ifdef WITH_LAUNCH\n  void launch(int priority = 0);"
                                "\n#endif\n" + start, 1)
        with open(os.path.join(self.dir, "inc", "tpu", "dma.h"), "w") as f:
            f.write(header)
        with open(os.path.join(self.dir, ".clang-tidy"), "w") as f:
            f.write("CheckOptions:\n  dma.StartMethod: launch\n")
        with open(os.path.join(self.dir, "k.cc"), "w") as f:
            f.write(self.KERNEL)
        command = ["clang++", "-std=c++17", "-I" + os.path.join(self.dir, "inc"), "-c", "k.cc"]
        with open(os.path.join(self.dir, "compile_commands.json"), "w") as f:
            json.dump([{"directory": self.dir, "file": "k.cc", "arguments": command},
                       {"directory": self.dir, "file": "k.cc",
                        "arguments": command[:1] + ["-DWITH_LAUNCH"] + command[1:]}], f)

    def check(self, r):
        out = r.stdout + r.stderr
        self.assertIn("error: invalid API model option 'dma.StartMethod' in '%s': "
                      "'tpu::AsyncCopyDescriptor' has no method 'launch'"
                      % os.path.join(self.dir, ".clang-tidy"), out)
        self.assertIn("k.cc:6:12: warning: DMA start priority must be non-negative, got -1 "
                      "[dma-start-priority]", out)

    def test_dmalint_judges_the_second_command(self):
        r = subprocess.run([DMALINT, "-p", self.dir, "-j", "1"], cwd=self.dir,
                           capture_output=True, text=True, timeout=120)
        self.assertEqual(r.returncode, 2, r.stdout + r.stderr)
        self.check(r)

    def test_clang_tidy_judges_the_second_command(self):
        r = subprocess.run([CLANG_TIDY, "-load=" + PLUGIN, "-p", self.dir, "--checks=-*,dma-*",
                            "k.cc"], cwd=self.dir, capture_output=True, text=True, timeout=120)
        self.assertNotEqual(r.returncode, 0, r.stdout + r.stderr)
        self.check(r)


@unittest.skipUnless(DMALINT and CLANG_TIDY and PLUGIN and INCLUDE, "tool paths not set")
class DumpConfig(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="dmalint-config-")
        self.addCleanup(shutil.rmtree, self.dir)

    @staticmethod
    def model_keys(text):
        """The dma.<Key> lines of a .clang-tidy or a --dump-config, normalised."""
        keys = {}
        for m in re.finditer(r"^\s+(dma\.[A-Za-z]+):\s*(.*?)\s*$", text, re.M):
            keys[m.group(1)] = m.group(2).strip("'")
        return keys

    def dump(self, tool_args):
        r = subprocess.run(tool_args + ["--dump-config"], cwd=self.dir, capture_output=True,
                           text=True, timeout=120)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        return r.stdout

    @staticmethod
    def check_model_keys(text, check):
        """The <check>.<Key> lines of the model's keys, renamed dma.<Key>."""
        with open(ACME_CONFIG) as f:
            names = DumpConfig.model_keys(f.read())
        keys = {}
        for m in re.finditer(r"^\s+%s\.([A-Za-z]+):\s*(.*?)\s*$" % re.escape(check), text, re.M):
            if "dma." + m.group(1) in names:
                keys["dma." + m.group(1)] = m.group(2).strip("'")
        return keys

    @staticmethod
    def clang_tidy_major():
        r = subprocess.run([CLANG_TIDY, "--version"], capture_output=True, text=True)
        return int(re.search(r"LLVM version (\d+)", r.stdout).group(1))

    def clang_tidy_model(self, check="dma-start-priority"):
        """The model clang-tidy with the plugin dumps. Before 21 it prints
        the shared dma.* keys; from 21 on the plugin also stores the model
        under each enabled check's name, and 22 prints only those
        (filterCheckOptions keeps <enabled check>.<option>)."""
        got = self.dump([CLANG_TIDY, "-load=" + PLUGIN])
        if self.clang_tidy_major() < 21:
            self.assertEqual(self.check_model_keys(got, check), {})
            return self.model_keys(got)
        local = self.check_model_keys(got, check)
        # Every enabled check shows the same model under its name.
        self.assertEqual(self.check_model_keys(got, "dma-wait-send-on-local-copy"), local)
        shared = self.model_keys(got)
        if shared:  # 21 prints the shared keys too: the same model.
            self.assertEqual(shared, local)
        return local

    def test_clang_tidy_dump_config_shows_the_acme_model(self):
        shutil.copy(ACME_CONFIG, os.path.join(self.dir, ".clang-tidy"))
        with open(ACME_CONFIG) as f:
            want = self.model_keys(f.read())
        self.assertEqual(len(want), 32)
        self.assertEqual(self.clang_tidy_model(), want)

    def test_clang_tidy_dump_config_fills_in_the_builtin_model(self):
        # Only one key given: the rest is the <tpu/dma.h> model.
        with open(os.path.join(self.dir, ".clang-tidy"), "w") as f:
            f.write("Checks: '-*,dma-*'\nCheckOptions:\n  dma.StartMethod: kick\n")
        for got in (self.clang_tidy_model(), self.model_keys(self.dump([DMALINT]))):
            self.assertEqual(got["dma.StartMethod"], "kick")
            self.assertEqual(got["dma.WaitSendMethod"], "wait_send")
            self.assertEqual(got["dma.DescriptorTypes"], "tpu::AsyncCopyDescriptor")
            self.assertEqual(got["dma.ConstructorSrcSemParam"], "3")
            self.assertEqual(got["dma.DeviceIdFunctions"],
                             "tpu::make_async_remote_copy:4:5;tpu::async_remote_copy:4:5;"
                             "tpu::semaphore_signal:2:3")
            self.assertEqual(len(got), 32)

    def test_a_dumped_configuration_reads_back_as_the_same_model(self):
        # What clang-tidy dumps (on 22: the model under each check's name
        # only) is a .clang-tidy that gives the same model, in both front ends.
        shutil.copy(ACME_CONFIG, os.path.join(self.dir, ".clang-tidy"))
        with open(ACME_CONFIG) as f:
            want = self.model_keys(f.read())
        dumped = self.dump([CLANG_TIDY, "-load=" + PLUGIN])
        with open(os.path.join(self.dir, ".clang-tidy"), "w") as f:
            f.write(dumped)
        self.assertEqual(self.model_keys(self.dump([DMALINT])), want)
        self.assertEqual(self.clang_tidy_model(), want)
        shutil.copy(os.path.join(API2_DIR, "acme_dma.h"), self.dir)
        for r in self.run_both(None, ACME_KERNEL, "-I."):
            self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
            self.assertNotIn("error", r.stdout + r.stderr)

    def run_both(self, config, kernel, include):
        """Writes \p config (unless None) as .clang-tidy and \p kernel as k.cc,
        and runs dmalint and clang-tidy with the plugin on it."""
        if config is not None:
            with open(os.path.join(self.dir, ".clang-tidy"), "w") as f:
                f.write(config)
        with open(os.path.join(self.dir, "k.cc"), "w") as f:
            f.write(kernel)
        return [subprocess.run(tool + ["k.cc", "--", "-std=c++17", include], cwd=self.dir,
                               capture_output=True, text=True, timeout=120)
                for tool in ([DMALINT], [CLANG_TIDY, "-load=" + PLUGIN])]

    def test_a_check_reads_the_model_under_its_own_name(self):
        # Only dma-unused-descriptor runs, and its model comes from its own keys.
        config = ("Checks: '-*,dma-unused-descriptor'\nCheckOptions:\n"
                  "  dma.StartMethod: kick\n  dma-unused-descriptor.StartMethod: start\n")
        for r in self.run_both(config, TPU_KERNEL, "-I" + INCLUDE):
            # 'kick' would be an error: the descriptor type has no such method.
            self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
            self.assertNotIn("kick", r.stdout + r.stderr)

    def test_checks_that_would_read_different_models_are_a_configuration_error(self):
        config = ("Checks: '-*,dma-unused-descriptor,dma-start-priority'\nCheckOptions:\n"
                  "  dma-start-priority.IsRemoteMethod: '-'\n")
        for r in self.run_both(config, TPU_KERNEL, "-I" + INCLUDE):
            out = r.stdout + r.stderr
            self.assertNotEqual(r.returncode, 0, out)
            self.assertIn("invalid API model option 'dma-start-priority.IsRemoteMethod'", out)
            self.assertIn("the dma-* checks share one API model", out)
            self.assertEqual(out.count("share one API model"), 1, out)

    def test_dmalint_dump_config(self):
        shutil.copy(ACME_CONFIG, os.path.join(self.dir, ".clang-tidy"))
        with open(ACME_CONFIG) as f:
            want = self.model_keys(f.read())
        self.assertEqual(self.model_keys(self.dump([DMALINT])), want)


if __name__ == "__main__":
    unittest.main()
