"""`cmake --install` gives a prefix that works on its own: the installed
dmalint finds clang's builtin headers from any directory, the plugin loads
into clang-tidy, the reference header and docs are there, and
find_package(dmalint CONFIG) finds both.

Env (set by CTest): BUILD_DIR, CLANG_TIDY.
"""
import os
import shutil
import subprocess
import tempfile
import textwrap
import unittest

BUILD = os.environ.get("BUILD_DIR")
CLANG_TIDY = os.environ.get("CLANG_TIDY")


@unittest.skipUnless(BUILD and CLANG_TIDY, "BUILD_DIR/CLANG_TIDY not set")
class Install(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.prefix = tempfile.mkdtemp(prefix="dmalint-prefix-")
        r = subprocess.run(["cmake", "--install", BUILD, "--prefix", cls.prefix],
                           capture_output=True, text=True)
        assert r.returncode == 0, r.stdout + r.stderr

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.prefix)

    def test_layout(self):
        for path in ("bin/dmalint", "lib/libdmalint-tidy.so", "include/tpu/dma.h",
                     "share/doc/dmalint/checks/dma-wait-send-on-local-copy.md"):
            self.assertTrue(os.path.exists(os.path.join(self.prefix, path)), path)

    def test_installed_tool_works_from_any_directory(self):
        work = tempfile.mkdtemp(prefix="dmalint-elsewhere-")
        self.addCleanup(shutil.rmtree, work)
        kernel = os.path.join(work, "k.cc")
        with open(kernel, "w") as f:
            # <cstddef> needs clang's builtin headers (the resource directory).
            f.write("#include <cstddef>\n#include <tpu/dma.h>\nusing namespace tpu;\n"
                    "void k(Ref<float> a, Ref<float> b, DmaSemaphore s) {\n"
                    "  auto d = make_async_copy(a, b, s);\n  d.start(-1);\n  d.wait();\n}\n")
        r = subprocess.run([os.path.join(self.prefix, "bin", "dmalint"), "k.cc", "--",
                            "-std=c++17", "-I" + os.path.join(self.prefix, "include")],
                           cwd=work, capture_output=True, text=True, env={"PATH": "/usr/bin:/bin"})
        self.assertEqual(r.returncode, 1, r.stdout + r.stderr)
        self.assertIn("k.cc:6:11: warning: DMA start priority must be non-negative, got -1",
                      r.stdout)

    def test_installed_plugin_loads(self):
        r = subprocess.run([CLANG_TIDY, "-load=" + os.path.join(self.prefix, "lib",
                                                               "libdmalint-tidy.so"),
                            "--checks=-*,dma-*", "--list-checks"], capture_output=True, text=True)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("dma-wait-send-on-local-copy", r.stdout)

    def test_find_package(self):
        project = tempfile.mkdtemp(prefix="dmalint-consumer-")
        self.addCleanup(shutil.rmtree, project)
        with open(os.path.join(project, "CMakeLists.txt"), "w") as f:
            f.write(textwrap.dedent("""\
                cmake_minimum_required(VERSION 3.20)
                project(consumer NONE)
                find_package(dmalint CONFIG REQUIRED)
                get_target_property(tool dmalint::dmalint IMPORTED_LOCATION)
                get_target_property(plugin dmalint::plugin IMPORTED_LOCATION)
                message(STATUS "tool=${tool} plugin=${plugin} llvm=${dmalint_LLVM_VERSION}")
                """))
        r = subprocess.run(["cmake", "-S", project, "-B", os.path.join(project, "b"),
                            "-DCMAKE_PREFIX_PATH=" + self.prefix], capture_output=True, text=True)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertIn("tool=%s/bin/dmalint" % self.prefix, r.stdout)
        self.assertIn("plugin=%s/lib/libdmalint-tidy.so" % self.prefix, r.stdout)

    def test_a_project_lints_itself_with_the_package(self):
        # docs/integrations.md's find_package(dmalint) snippet, as written there.
        project = tempfile.mkdtemp(prefix="dmalint-consumer-")
        self.addCleanup(shutil.rmtree, project)
        with open(os.path.join(project, "k.cc"), "w") as f:
            f.write("#include <tpu/dma.h>\nusing namespace tpu;\n"
                    "void k(Ref<float> a, Ref<float> b, DmaSemaphore s) {\n"
                    "  auto d = make_async_copy(a, b, s);\n  d.start(-1);\n  d.wait();\n}\n")
        with open(os.path.join(project, "CMakeLists.txt"), "w") as f:
            f.write(textwrap.dedent("""\
                cmake_minimum_required(VERSION 3.20)
                project(consumer CXX)
                find_package(dmalint CONFIG REQUIRED)
                set(CMAKE_EXPORT_COMPILE_COMMANDS ON)
                add_custom_target(dmalint
                  COMMAND dmalint::dmalint -p ${CMAKE_BINARY_DIR} --quiet
                  WORKING_DIRECTORY ${CMAKE_SOURCE_DIR} VERBATIM)
                set(CMAKE_CXX_CLANG_TIDY %s -load=${dmalint_PLUGIN} -checks=-*,dma-*)
                add_library(kernels OBJECT k.cc)
                set_target_properties(kernels PROPERTIES CXX_STANDARD 17)
                target_include_directories(kernels PRIVATE ${dmalint_INCLUDE_DIR})
                """ % CLANG_TIDY))
        build = os.path.join(project, "b")
        r = subprocess.run(["cmake", "-S", project, "-B", build, "-DCMAKE_PREFIX_PATH=" +
                            self.prefix], capture_output=True, text=True)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        # Building the kernels runs clang-tidy with the plugin on them.
        r = subprocess.run(["cmake", "--build", build, "--target", "kernels"],
                           capture_output=True, text=True)
        self.assertIn("DMA start priority must be non-negative, got -1 [dma-start-priority]",
                      r.stdout + r.stderr)
        # The dmalint target fails the build on the finding.
        r = subprocess.run(["cmake", "--build", build, "--target", "dmalint"],
                           capture_output=True, text=True)
        self.assertNotEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertIn("k.cc:5:11: warning: DMA start priority must be non-negative",
                      r.stdout + r.stderr)


if __name__ == "__main__":
    unittest.main()
