#!/usr/bin/env python3
"""Real-world corpus run: dmalint over thousands of real C++ translation units.

Every public header of several large C++ libraries from Debian packages
(Boost, Eigen, nlohmann/json, {fmt}, LLVM and Clang) becomes one translation
unit: a generated .cpp that only #includes it. A few real programs that use
those libraries (test/robustness/real/*.cpp, two of them with clean kernels
written against <tpu/dma.h>) are added. All of it goes into one
compile_commands.json, and `dmalint -p` runs over it in batches.

Requirements: no crash, no timeout, no dma-* finding. A header that does not
compile on its own is counted as a compile error and listed in the report; it
is not a failure of dmalint.

  test/robustness/run_corpus.py                      # the full run (see docs/robustness.md)
  test/robustness/run_corpus.py --sample 80          # the reduced run CTest uses
  test/robustness/run_corpus.py --list               # print the selection only

Exit status: 0 no crash, timeout or finding; 1 otherwise; 2 usage error
(no dmalint); 77 a library package is not installed (CTest SKIP_RETURN_CODE).
Python 3 standard library only.
"""
import argparse
import concurrent.futures
import hashlib
import json
import os
import re
import resource
import signal
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.normpath(os.path.join(HERE, "..", ".."))
REAL_DIR = os.path.join(HERE, "real")
KERNEL_INCLUDE = os.path.join(REPO, "include")

LLVM_INCLUDE = "/usr/lib/llvm-19/include"
# What `llvm-config-19 --cxxflags` adds besides -I and -std.
LLVM_DEFINES = ["-D_GNU_SOURCE", "-D__STDC_CONSTANT_MACROS", "-D__STDC_FORMAT_MACROS",
                "-D__STDC_LIMIT_MACROS"]

# Path components of headers that are not meant to be included on their own
# (implementation details, files for another header to include in a
# particular context, Boost.MPL's preprocessed and aux_ parts).
INTERNAL_DIRS = {"detail", "details", "impl", "aux_", "preprocessed", "src"}

CLASSES = ["clean", "compile error", "dma finding", "crash", "timeout"]
FAILURES = {"dma finding", "crash", "timeout"}


class Library:
    """A library: where its headers are, which of them are public, and the
    flags a translation unit including one of them needs."""

    def __init__(self, name, package, root, tops, flags, public, full_rule, full_keep):
        self.name = name
        self.package = package
        self.root = root          # the include directory the headers are relative to
        self.tops = tops          # subdirectories of root that hold the library
        self.flags = flags
        self.public = public      # relative path -> is a public header
        self.full_rule = full_rule  # one line: what the full run takes
        self.full_keep = full_keep  # relative path -> taken by the full run

    def installed(self):
        return all(os.path.isdir(os.path.join(self.root, t)) for t in self.tops)

    def headers(self):
        """Every public header, as paths relative to root, sorted."""
        found = []
        for top in self.tops:
            for dirpath, dirnames, filenames in os.walk(os.path.join(self.root, top),
                                                        followlinks=True):
                dirnames[:] = sorted(d for d in dirnames if d not in INTERNAL_DIRS)
                for f in filenames:
                    rel = os.path.relpath(os.path.join(dirpath, f), self.root)
                    if self.public(rel):
                        found.append(rel)
        return sorted(found)


def _ext(rel):
    base = os.path.basename(rel)
    return base.rsplit(".", 1)[1] if "." in base else ""


def _depth(rel):
    return rel.count("/")


def _hash_bucket(rel, buckets):
    """A stable pseudo-random bucket of a path: the same on every machine."""
    return int(hashlib.sha1(rel.encode()).hexdigest(), 16) % buckets


def boost_public(rel):
    # .hpp and .h; not .ipp/.inc/.pp, nor the extension-less
    # compatibility/cpp_c_headers wrappers for ancient compilers.
    return _ext(rel) in ("hpp", "h")


def boost_full(rel):
    # Every top-level header (boost/X.hpp: the entry point of most Boost
    # libraries), and one in five of the others, chosen by a hash of the path.
    return _depth(rel) == 1 or _hash_bucket(rel, 5) == 0


def llvm_full(rel):
    # One in ten, chosen by a hash of the path: they are costly to parse
    # (~1.8 s of CPU each) and all build on the same ADT and Support headers.
    return _hash_bucket(rel, 10) == 0


def eigen_public(rel):
    # Eigen's public headers are its modules: the extension-less files in
    # Eigen/, unsupported/Eigen/ and unsupported/Eigen/CXX11/ (src/ holds the
    # internals each module includes in order).
    parts = rel.split("/")
    return _ext(rel) == "" and (parts[:-1] in (["Eigen"], ["unsupported", "Eigen"],
                                               ["unsupported", "Eigen", "CXX11"]))


def nlohmann_public(rel):
    return _ext(rel) == "hpp"


def fmt_public(rel):
    return _ext(rel) == "h"


def llvm_public(rel):
    # .h only: .inc, .def and .td files are included by other headers in a
    # given context (X-macros, generated tables).
    return _ext(rel) == "h"


def everything(rel):
    return True


LIBRARIES = [
    Library("boost", "libboost-dev", "/usr/include", ["boost"],
            # Included as <boost/...> from /usr/include, Boost would be a
            # system header, whose function bodies the checks skip; this
            # makes it user code, so that they walk all of it.
            ["--no-system-header-prefix=boost/"],
            boost_public,
            "every boost/X.hpp, and 1 in 5 of the others (sha1 of the path mod 5 == 0)",
            boost_full),
    Library("eigen", "libeigen3-dev", "/usr/include/eigen3", ["Eigen", "unsupported"],
            ["-I/usr/include/eigen3"], eigen_public, "all", everything),
    Library("nlohmann-json", "nlohmann-json3-dev", "/usr/include", ["nlohmann"],
            ["--no-system-header-prefix=nlohmann/"], nlohmann_public, "all", everything),
    Library("fmt", "libfmt-dev", "/usr/include", ["fmt"],
            ["--no-system-header-prefix=fmt/"], fmt_public, "all", everything),
    Library("llvm", "llvm-19-dev libclang-19-dev", LLVM_INCLUDE,
            ["llvm", "llvm-c", "clang", "clang-c"],
            ["-I" + LLVM_INCLUDE] + LLVM_DEFINES, llvm_public,
            "1 in 10 (sha1 of the path mod 10 == 0)", llvm_full),
]
REAL = "real"  # the name of the group of real programs in the tables
# The compiler named in the compile commands (never run: dmalint parses with
# its own Clang). An absolute path, as CMake writes it.
COMPILER = "/usr/bin/clang++-19"


class TU:
    def __init__(self, library, file, header=None):
        self.library = library
        self.file = file          # absolute path of the .cpp
        self.header = header      # the header it includes, or None for a real program
        self.cls = None
        self.detail = ""          # first error, the findings, or the crash output
        self.seconds = None       # wall time when run alone

    def name(self):
        return self.header if self.header else os.path.relpath(self.file, REPO)


def select(args):
    """The libraries' public headers that this run takes, per library."""
    chosen = {}
    for lib in LIBRARIES:
        if args.libraries and lib.name not in args.libraries:
            continue
        headers = lib.headers()
        if not args.all:
            headers = [h for h in headers if lib.full_keep(h)]
        chosen[lib.name] = headers
    if args.sample is not None:
        chosen = spread(chosen, args.sample)
    return chosen


def spread(chosen, n):
    """n headers spread over the libraries: the slots are dealt one per library
    in turn (a library with fewer headers than its share gives the rest to the
    others), and each library's slots are evenly spaced over its sorted list."""
    quota = {name: 0 for name in chosen}
    left = n
    while left > 0:
        open_libs = [name for name in chosen if quota[name] < len(chosen[name])]
        if not open_libs:
            break
        for name in open_libs:
            if left == 0:
                break
            quota[name] += 1
            left -= 1
    out = {}
    for name, headers in chosen.items():
        k = quota[name]
        out[name] = [headers[(2 * i + 1) * len(headers) // (2 * k)] for i in range(k)]
    return out


def real_programs():
    return sorted(os.path.join(REAL_DIR, f) for f in os.listdir(REAL_DIR) if f.endswith(".cpp"))


def real_flags():
    flags = ["-I" + KERNEL_INCLUDE]
    for lib in LIBRARIES:
        flags += [f for f in lib.flags if not f.startswith("--no-system-header-prefix")]
    return flags


def generate(out, chosen, with_real):
    """Writes the translation units and compile_commands.json under out."""
    tus, commands = [], []
    by_name = {lib.name: lib for lib in LIBRARIES}
    for name, headers in chosen.items():
        lib = by_name[name]
        for h in headers:
            path = os.path.join(out, "tu", name, h + ".cpp")
            os.makedirs(os.path.dirname(path), exist_ok=True)
            text = "#include <%s>\n" % h
            # Rewrite only on change: an unchanged database keeps its mtimes.
            if not os.path.exists(path) or open(path).read() != text:
                with open(path, "w") as f:
                    f.write(text)
            tus.append(TU(name, path, h))
            commands.append(command(path, lib.flags))
    if with_real:
        flags = real_flags()
        for path in real_programs():
            tus.append(TU(REAL, path))
            commands.append(command(path, flags))
    with open(os.path.join(out, "compile_commands.json"), "w") as f:
        json.dump(commands, f, indent=1)
    return tus


def command(path, flags):
    return {"directory": os.path.dirname(path), "file": path,
            "arguments": [COMPILER, "-std=c++17"] + flags + ["-c", path, "-o", "/dev/null"]}


FINDING = re.compile(r"^(.+?):\d+:\d+: (warning|error): .*\[(dma-[^\],]*)[^\]]*\]$")
PROCESSING = re.compile(r"^Error while processing (.+)\.$")
CRASH_MARKS = ("PLEASE submit a bug report", "Stack dump:", "ERROR: AddressSanitizer",
               "ERROR: LeakSanitizer", "runtime error:", "Sanitizer:DEADLYSIGNAL")


class Run:
    def __init__(self, rc, out, err, seconds, timed_out):
        self.rc, self.out, self.err = rc, out, err
        self.seconds, self.timed_out = seconds, timed_out

    def crashed(self):
        return (not self.timed_out and (self.rc is None or self.rc < 0 or self.rc > 2)) or \
            any(m in self.err for m in CRASH_MARKS)

    def findings(self):
        return [line for line in self.out.splitlines() if FINDING.match(line)]

    def error_files(self):
        return {m.group(1) for m in map(PROCESSING.match, self.err.splitlines()) if m}


def run_dmalint(args, files, jobs, timeout):
    # Every dma-* check, whatever a .clang-tidy above the files says; findings
    # in the libraries' headers too, not only in the main files.
    cmd = [args.dmalint, "-p", args.out, "--checks=dma-*", "--header-filter=.*",
           "--use-color=false", "-j", str(jobs)] + files
    start = time.monotonic()
    # A process group of its own, so that a timeout kills it and nothing else.
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, errors="replace", start_new_session=True)
    try:
        out, err = proc.communicate(timeout=timeout)
        return Run(proc.returncode, out, err, time.monotonic() - start, False)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        out, err = proc.communicate()
        return Run(proc.returncode, out, err, time.monotonic() - start, True)


def first_errors(out, limit=3):
    lines = [l for l in out.splitlines() if ": error: " in l or ": fatal error: " in l]
    return "\n".join(lines[:limit])


def classify_alone(args, tu):
    """Runs one translation unit in a process of its own and classifies it."""
    r = run_dmalint(args, [tu.file], 1, args.timeout)
    tu.seconds = r.seconds
    if r.timed_out:
        tu.cls, tu.detail = "timeout", "no result after %d s" % args.timeout
    elif r.crashed():
        tu.cls = "crash"
        tu.detail = "exit status %s\n%s" % (r.rc, r.err[-6000:])
    elif r.findings():
        tu.cls, tu.detail = "dma finding", "\n".join(r.findings())
    elif r.rc == 2 and r.error_files():
        tu.cls, tu.detail = "compile error", first_errors(r.out)
    elif r.rc == 0:
        tu.cls = "clean"
    else:
        # Exit 1 without a finding, or 2 without a compiler error: the tool
        # misbehaved; counted with the crashes.
        tu.cls = "crash"
        tu.detail = "exit status %s without a finding or compiler error\n%s\n%s" % (
            r.rc, r.out[-3000:], r.err[-3000:])
    return r


def run_batch(args, batch):
    """Runs a batch in one process; TUs it cannot judge from that run alone
    (a crash, a timeout, findings to attribute, errors to show) run alone."""
    r = run_dmalint(args, [tu.file for tu in batch], args.jobs, args.batch_timeout)
    alone = []
    if r.timed_out or r.crashed() or r.findings() or (r.rc == 2 and not r.error_files()) \
            or r.rc not in (0, 2):
        alone = list(batch)
    else:
        errors = r.error_files()
        for tu in batch:
            if tu.file in errors:
                alone.append(tu)  # for its first error line, and to confirm it
            else:
                tu.cls = "clean"
    # One process per TU, as many at a time as a batch has jobs.
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        list(pool.map(lambda tu: classify_alone(args, tu), alone))
    return r, alone


def batches(tus, size):
    """Consecutive TUs of one library, at most size at a time."""
    out, cur = [], []
    for tu in tus:
        if cur and (len(cur) == size or cur[-1].library != tu.library):
            out.append(cur)
            cur = []
        cur.append(tu)
    if cur:
        out.append(cur)
    return out


def children_cpu():
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def summarize(tus, groups, lib_seconds, lib_cpu):
    rows = []
    for g in groups:
        mine = [tu for tu in tus if tu.library == g]
        row = {"library": g, "tus": len(mine), "seconds": round(lib_seconds.get(g, 0.0), 1),
               "cpu_seconds": round(lib_cpu.get(g, 0.0), 1)}
        for c in CLASSES:
            row[c] = sum(1 for tu in mine if tu.cls == c)
        rows.append(row)
    total = {"library": "total", "tus": len(tus),
             "seconds": round(sum(lib_seconds.values()), 1),
             "cpu_seconds": round(sum(lib_cpu.values()), 1)}
    for c in CLASSES:
        total[c] = sum(1 for tu in tus if tu.cls == c)
    return rows, total


def table(rows, total):
    cols = ["library", "tus"] + CLASSES + ["seconds", "cpu_seconds"]
    heads = ["library", "TUs"] + CLASSES + ["wall (s)", "CPU (s)"]
    data = [[str(r[c]) for c in cols] for r in rows + [total]]
    widths = [max(len(h), *(len(d[i]) for d in data)) for i, h in enumerate(heads)]
    fmt = "  ".join("{:<%d}" % widths[0] if i == 0 else "{:>%d}" % w
                    for i, w in enumerate(widths))
    lines = [fmt.format(*heads), fmt.format(*["-" * w for w in widths])]
    lines += [fmt.format(*d) for d in data[:-1]]
    lines += [fmt.format(*["-" * w for w in widths]), fmt.format(*data[-1])]
    return "\n".join(lines)


def write_report(path, tus, text):
    with open(path, "w") as f:
        f.write(text + "\n")
        for c in ["crash", "timeout", "dma finding", "compile error"]:
            mine = [tu for tu in tus if tu.cls == c]
            f.write("\n== %s: %d\n" % (c, len(mine)))
            for tu in mine:
                f.write("\n%s: %s\n  %s\n" % (tu.library, tu.name(), tu.file))
                for line in tu.detail.splitlines():
                    f.write("    " + line + "\n")


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--dmalint", default=os.path.join(REPO, "build", "bin", "dmalint"),
                   help="the dmalint binary (default: build/bin/dmalint)")
    p.add_argument("--out", default=os.path.join(REPO, "build", "robustness-corpus"),
                   help="where the translation units, compile_commands.json, the report "
                        "and summary.json go (default: build/robustness-corpus)")
    p.add_argument("--sample", type=int, metavar="N",
                   help="only N headers, spread evenly over the libraries (plus the real programs)")
    p.add_argument("--all", action="store_true",
                   help="every public header, not the full run's selection (~11,000 TUs)")
    p.add_argument("--libraries", type=lambda s: s.split(","), metavar="A,B",
                   help="only these libraries (%s)" % ",".join(l.name for l in LIBRARIES))
    p.add_argument("--no-real", action="store_true", help="leave out the real programs")
    p.add_argument("-j", "--jobs", type=int, default=os.cpu_count() or 1,
                   help="dmalint -j for a batch (default: the number of cores)")
    p.add_argument("--batch-size", type=int, default=32,
                   help="translation units per dmalint process (default: 32)")
    p.add_argument("--batch-timeout", type=int, default=900,
                   help="seconds for one batch before it is killed and its TUs run alone "
                        "(default: 900)")
    p.add_argument("--timeout", type=int, default=300,
                   help="seconds for one TU run alone before it counts as a timeout "
                        "(default: 300)")
    p.add_argument("--list", action="store_true",
                   help="print the selected translation units and exit")
    args = p.parse_args()
    args.out = os.path.abspath(args.out)

    missing = [lib for lib in LIBRARIES if not lib.installed()
               and (not args.libraries or lib.name in args.libraries)]
    if missing:
        print("run_corpus: SKIP: not installed: %s (apt-get install %s)" % (
            ", ".join("%s (%s)" % (l.name, l.root) for l in missing),
            " ".join(l.package for l in missing)))
        return 77

    chosen = select(args)
    with_real = not args.no_real and not args.libraries
    if args.list:
        for name, headers in chosen.items():
            for h in headers:
                print("%s\t%s" % (name, h))
        if with_real:
            for path in real_programs():
                print("%s\t%s" % (REAL, os.path.relpath(path, REPO)))
        return 0

    if not (os.path.isfile(args.dmalint) and os.access(args.dmalint, os.X_OK)):
        print("run_corpus: error: no dmalint at %s (build it, or pass --dmalint)" % args.dmalint)
        return 2
    version = subprocess.run([args.dmalint, "--version"], capture_output=True,
                             text=True).stdout.strip()

    os.makedirs(args.out, exist_ok=True)
    tus = generate(args.out, chosen, with_real)
    groups = list(chosen) + ([REAL] if with_real else [])
    print("run_corpus: %d translation units (%s) in %s" % (
        len(tus), ", ".join("%s %d" % (g, sum(1 for t in tus if t.library == g))
                            for g in groups), args.out))
    print("run_corpus: %s, -j %d, %d per batch" % (version.splitlines()[0] if version else
                                                    args.dmalint, args.jobs, args.batch_size))
    sys.stdout.flush()

    start = time.monotonic()
    lib_seconds, lib_cpu = {}, {}
    todo = batches(tus, args.batch_size)
    for i, batch in enumerate(todo, 1):
        t0, cpu0 = time.monotonic(), children_cpu()
        r, alone = run_batch(args, batch)
        spent = time.monotonic() - t0
        g = batch[0].library
        lib_seconds[g] = lib_seconds.get(g, 0.0) + spent
        lib_cpu[g] = lib_cpu.get(g, 0.0) + children_cpu() - cpu0
        counts = ", ".join("%s %d" % (c, n) for c in CLASSES
                           for n in [sum(1 for tu in batch if tu.cls == c)] if n)
        print("[%*d/%d] %-13s %3d TUs %7.1f s  %s%s" % (
            len(str(len(todo))), i, len(todo), batch[0].library, len(batch), spent, counts,
            "  (%d run alone)" % len(alone) if alone else ""))
        for tu in batch:
            if tu.cls in FAILURES:
                print("  %s: %s (%s)" % (tu.cls.upper(), tu.name(), tu.file))
        sys.stdout.flush()
    wall = time.monotonic() - start

    rows, total = summarize(tus, groups, lib_seconds, lib_cpu)
    text = table(rows, total)
    text += "\nwall time %.1f s (%.1f min), %s, -j %d, %d per batch, %d cores" % (
        wall, wall / 60, version.splitlines()[0] if version else "", args.jobs,
        args.batch_size, os.cpu_count() or 0)
    report = os.path.join(args.out, "report.txt")
    write_report(report, tus, text)
    summary = {
        "dmalint": args.dmalint, "version": version,
        "selection": {"sample": args.sample, "all": args.all,
                      "rules": {lib.name: ("all public headers" if args.all else lib.full_rule)
                                for lib in LIBRARIES if lib.name in chosen}},
        "jobs": args.jobs, "batch_size": args.batch_size, "cores": os.cpu_count(),
        "wall_seconds": round(wall, 1),
        "libraries": rows, "total": total,
        "failures": [{"library": tu.library, "tu": tu.name(), "file": tu.file,
                      "class": tu.cls, "detail": tu.detail}
                     for tu in tus if tu.cls in FAILURES],
        "compile_errors": [{"library": tu.library, "tu": tu.name(), "error": tu.detail}
                           for tu in tus if tu.cls == "compile error"],
    }
    with open(os.path.join(args.out, "summary.json"), "w") as f:
        json.dump(summary, f, indent=1)

    print()
    print(text)
    print("report: %s\nsummary: %s" % (report, os.path.join(args.out, "summary.json")))
    failed = sum(total[c] for c in FAILURES)
    if failed:
        print("run_corpus: FAILED: %d crash(es), %d timeout(s), %d TU(s) with dma-* findings" % (
            total["crash"], total["timeout"], total["dma finding"]))
        return 1
    print("run_corpus: OK: no crash, no timeout, no dma-* finding in %d translation units "
          "(%d compile errors, listed in the report)" % (total["tus"], total["compile error"]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
