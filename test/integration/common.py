"""What the integration suites share: the tool paths CTest sets, the kernel
header lines, a kernel with one finding, and git run on a repository made in
a test (with an identity of its own, whatever the machine's git says)."""
import os
import subprocess
import textwrap

DMALINT = os.environ.get("DMALINT")
CLANG_TIDY = os.environ.get("CLANG_TIDY")
PLUGIN = os.environ.get("PLUGIN")
INCLUDE = os.environ.get("DMALINT_INCLUDE")
SCHEMA = os.environ.get("SARIF_SCHEMA")

HEAD = "#include <tpu/dma.h>\nusing namespace tpu;\n"
# One finding: line 5, column 11, "DMA start priority must be non-negative, got -1".
BAD_PRIORITY = HEAD + textwrap.dedent("""\
    void k(Ref<float> a, Ref<float> b, DmaSemaphore s) {
      auto d = make_async_copy(a, b, s);
      d.start(-1);
      d.wait();
    }
    """)
# One finding with a fix: line 4, coordinates passed as a logical device id;
# the fix makes them DeviceIdType::kMesh.
FIXABLE = HEAD + textwrap.dedent("""\
    void k(Ref<float> a, Ref<float> b, DmaSemaphore s, DmaSemaphore r) {
      auto e = make_async_remote_copy(a, b, s, r, {0, 1}, DeviceIdType::kLogical);
      e.start();
      e.wait();
    }
    """)


def git(repo, *args):
    """git -C repo ARGS, checked; its stdout."""
    return subprocess.run(["git", "-C", repo, *args], check=True, capture_output=True, text=True,
                          env=dict(os.environ, GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@t",
                                   GIT_COMMITTER_NAME="t", GIT_COMMITTER_EMAIL="t@t")).stdout
