#!/usr/bin/env python3
"""What cross-function summaries cost: one translation unit with hundreds of
functions (helpers that wait, start or forward descriptors, factory wrappers,
and kernels calling them), analysed by dmalint with summaries on and off, next
to clang's own -fsyntax-only on the same file.

Reports medians (min..max) of wall time over repeated runs, and instruction
counts from callgrind (repeatable on a noisy machine), with the ratios of
each against the -fsyntax-only baseline measured in the same run.

  bench/summaries.py [--build build] [--kernels 200] [--runs 5] [--no-callgrind]
"""
import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def generate(kernels):
    """A kernel file in the style of the corpus, with helper layers."""
    out = ["#include <tpu/dma.h>", "#include <vector>", "using namespace tpu;", ""]
    for i in range(kernels):
        out += [
            f"void finish_{i}(AsyncCopyDescriptor &d) {{ if (d.is_remote()) d.wait_send(); d.wait_recv(); }}",
            f"void drain_{i}(std::vector<AsyncCopyDescriptor> &ds) {{ for (auto &d : ds) finish_{i}(d); }}",
            f"void do_copy_{i}(bool wait, AsyncCopyDescriptor &d) {{ if (wait) d.wait(); else d.start(); }}",
            f"AsyncCopyDescriptor make_{i}(Ref<float> a, Ref<float> b, DmaSemaphore s, DmaSemaphore r, bool remote) {{",
            f"  return remote ? make_async_remote_copy(a, b, s, r, DeviceId({i})) : make_async_copy(a, b, s);",
            "}",
            f"void kernel_{i}(Ref<float> a, Ref<float> b, DmaSemaphore s, DmaSemaphore r, int steps) {{",
            "  std::vector<AsyncCopyDescriptor> issued;",
            "  for (int step = 0; step < steps; ++step) {",
            f"    auto d = make_{i}(a.at(step), b.at(step), s, r, step % 2 == 0);",
            f"    do_copy_{i}(false, d);",
            "    issued.push_back(d);",
            "  }",
            f"  drain_{i}(issued);",
            "}",
            "",
        ]
    return "\n".join(out)


def timed(cmd, cwd, runs):
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        r = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True)
        times.append(time.perf_counter() - start)
        if r.returncode not in (0, 1):
            sys.exit("failed: %s\n%s%s" % (" ".join(cmd), r.stdout, r.stderr))
    return times


def instructions(cmd, cwd):
    out = os.path.join(cwd, "callgrind.out")
    r = subprocess.run(["valgrind", "--tool=callgrind", "--callgrind-out-file=" + out,
                        "--trace-children=no", *cmd], cwd=cwd, capture_output=True, text=True)
    for line in r.stderr.splitlines():
        if "Collected :" in line:
            return int(line.split(":")[-1].strip())
    sys.exit("callgrind did not report:\n" + r.stderr[-2000:])


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build", default=os.path.join(ROOT, "build"))
    parser.add_argument("--kernels", type=int, default=200)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--no-callgrind", action="store_true")
    args = parser.parse_args()

    dmalint = os.path.join(args.build, "bin", "dmalint")
    clang = shutil.which("clang++-19") or "clang++"
    work = tempfile.mkdtemp(prefix="dmalint-bench-")
    source = os.path.join(work, "kernels.cc")
    with open(source, "w") as f:
        f.write(generate(args.kernels))
    flags = ["-std=c++17", "-I" + os.path.join(ROOT, "include")]
    # Summaries off: every call is to a function the analysis cannot see.
    off_dir = os.path.join(work, "off")
    os.makedirs(off_dir)
    shutil.copy(source, off_dir)
    with open(os.path.join(off_dir, ".clang-tidy"), "w") as f:
        f.write("CheckOptions:\n")
        for check in ("dma-wait-send-on-local-copy", "dma-start-priority",
                      "dma-unused-descriptor", "dma-src-sem-device-id-mismatch"):
            f.write(f"  {check}.CrossFunctionSummaries: false\n")

    commands = {
        "clang++ -fsyntax-only": ([clang, "-fsyntax-only", *flags, "kernels.cc"], work),
        "dmalint, summaries on": ([dmalint, "--quiet", "kernels.cc", "--", *flags], work),
        "dmalint, summaries off": ([dmalint, "--quiet", "kernels.cc", "--", *flags], off_dir),
    }
    functions = args.kernels * 5
    print(f"# {args.kernels} kernels, {functions} functions in one translation unit "
          f"({sum(1 for _ in open(source))} lines), {args.runs} runs each\n")
    print("| command | median s | min..max s | instructions | vs -fsyntax-only |")
    print("|---|---|---|---|---|")
    base_time = base_insns = None
    rows = {}
    for name, (cmd, cwd) in commands.items():
        times = timed(cmd, cwd, args.runs)
        insns = None if args.no_callgrind else instructions(cmd, cwd)
        median = statistics.median(times)
        if base_time is None:
            base_time, base_insns = median, insns
        ratio = (f"{insns / base_insns:.3f}x instr" if insns and base_insns
                 else f"{median / base_time:.3f}x time")
        rows[name] = (median, insns)
        print(f"| {name} | {median:.3f} | {min(times):.3f}..{max(times):.3f} | "
              f"{insns if insns else '-'} | {ratio} |")
    on, off = rows["dmalint, summaries on"], rows["dmalint, summaries off"]
    if on[1] and off[1]:
        extra = (on[1] - off[1]) / off[1]
        print(f"\nSummaries add {extra * 100:.1f}% instructions to the whole dmalint run "
              f"({(on[1] - off[1]) / base_insns * 100:.1f}% of the -fsyntax-only baseline).")
    else:
        print(f"\nSummaries add {(on[0] - off[0]) / off[0] * 100:.1f}% wall time.")
    shutil.rmtree(work)


if __name__ == "__main__":
    main()
