#!/usr/bin/env python3
"""dmalint's performance bench: one command that builds dmalint (Release, in
build-bench/), generates its inputs, measures, prints the tables, writes the
measured data to bench/results/*.json with a plot of the scaling curves, and
regenerates the results section of docs/performance.md.

  bench/run [--repeat 5] [--no-callgrind] [--quick]
  bench/run --dmalint PATH --plugin PATH   # measure these binaries, build nothing
  bench/run --report-only                  # only re-render docs/performance.md
  bench/run --before OLD/dmalint           # also measure a previous build, same run

What it measures, side by side in one run on one machine:

1. overhead over parsing: `dmalint` (all dma-* checks) against
   `clang++-19 -fsyntax-only` with the same flags, and `clang-tidy-19
   -load=<plugin> --checks=-*,dma-*` against clang-tidy running only
   readability-braces-around-statements (clang-tidy's own floor), on the clean
   corpus kernels, a large realistic translation unit (heavy standard headers,
   many kernels) and a large translation unit with no DMA API at all;
2. against a peer on the same dataflow shape: one generated control-flow
   skeleton written with descriptors (`wait_send` under `is_remote()`) and
   with std::optional (`value()` under `has_value()`), dmalint's
   dma-wait-send-on-local-copy against bugprone-unchecked-optional-access;
3. scaling: functions with 10..10,000 descriptors, 20..2,000 sequential
   if/else blocks, 10..10,000 loop nests over containers, 5..5,000 small
   kernels in one translation unit (time, peak memory, growth per 10x), which
   functions hit the analysis' work limit, and a WorkLimit sweep.

Wall times are medians (min..max) of --repeat runs, interleaved across the
commands of one input; peak memory is each child's own ru_maxrss (os.wait4);
instruction counts come from valgrind --tool=callgrind (repeatable on a noisy
machine) and are what the ratios are read from.
"""
import argparse
import datetime
import hashlib
import json
import os
import platform
import re
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import generate  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RESULTS = os.path.join(ROOT, "bench", "results")
DOC = os.path.join(ROOT, "docs", "performance.md")
BEGIN = "<!-- BEGIN bench/run results (generated from bench/results/*.json: edits here are overwritten) -->"
END = "<!-- END bench/run results -->"
SECTIONS = ("overhead", "checks", "peer", "scaling", "worklimit")
# The checks with a WorkLimit (the descriptor analysis'). dma-semaphore-imbalance
# counts barriers without it, has no WorkLimit, and runs in every dma-* run.
DATAFLOW_CHECKS = ("dma-wait-send-on-local-copy", "dma-start-priority",
                   "dma-src-sem-device-id-mismatch", "dma-unused-descriptor",
                   "dma-shape-mismatch", "dma-semaphore-race", "dma-send-never-waited")
FLOOR_CHECK = "readability-braces-around-statements"
# clang-tidy's floor with no check that walks the AST (issue 18's target for
# the plugin): this check only registers preprocessor callbacks, so what it
# costs is clang-tidy itself: parsing, its setup, and its MatchFinder's walk
# of the translation unit with no matcher registered (the walk runs anyway).
BARE_FLOOR_CHECK = "readability-duplicate-include"
TARGET_PLUGIN = 1.05        # clang-tidy with the plugin / the bare floor
PEER_CHECK = "bugprone-unchecked-optional-access"
DMA_PEER_CHECK = "dma-wait-send-on-local-copy"
# Every check, for the per-check cost (section "checks"): the five that
# mirror Pallas' trace-time errors, then the protocol and verifier checks.
ALL_CHECKS = ("dma-wait-send-on-local-copy", "dma-start-priority",
              "dma-src-sem-device-id-mismatch", "dma-unused-descriptor",
              "dma-device-id-type-mismatch", "dma-semaphore-race", "dma-semaphore-imbalance",
              "dma-send-never-waited", "dma-shape-mismatch", "dma-bool-ref", "dma-mesh-arity")
PROTOCOL_CHECKS = ALL_CHECKS[5:]
WORK_LIMITS = [1000, 10000, 100000, 1000000]  # 100000 is the default
DEFAULT_WORK_LIMIT = 100000

# Targets of issue 7.
TARGET_OVERHEAD = 1.05      # dmalint / -fsyntax-only on the realistic inputs
TARGET_OVERHEAD_NOAPI = 1.02
# Targets of issue 18: kernel files as users open them.
TARGET_DENSE = 1.03            # kernels only, no finding
TARGET_DENSE_FINDINGS = 1.08   # kernels only, one function in five with a finding
TARGET_HOST_FINDING = 1.005    # host code and one definite finding
# The overhead inputs with planted findings, and those whose profile is kept.
WITH_FINDINGS = ("dense-findings", "host-finding")
PROFILED = ("realistic", "no-api", "dense", "dense-findings", "host-finding")
TARGET_GROWTH = 12.0        # per 10x of input size
TARGET_SECONDS = 10.0       # no input longer
TARGET_MEMORY = 1.10        # peak RSS / -fsyntax-only's


def log(*args):
    print(*args, file=sys.stderr, flush=True)


# ---------------------------------------------------------------------------
# Running and measuring.

def run_once(argv, cwd, timeout):
    """One run: wall time, the child's own peak RSS (KiB), exit status and output."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        start = time.perf_counter()
        proc = subprocess.Popen(argv, cwd=cwd, stdout=out, stderr=err)
        killer = threading.Timer(timeout, proc.kill)
        killer.start()
        _, status, usage = os.wait4(proc.pid, 0)
        elapsed = time.perf_counter() - start
        killer.cancel()
        proc.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        return {"time": elapsed, "rss_kb": usage.ru_maxrss, "rc": proc.returncode,
                "timeout": proc.returncode == -9 and elapsed >= timeout,
                "stdout": out.read().decode(errors="replace"),
                "stderr": err.read().decode(errors="replace")}


def summary(values):
    if not values:
        return None
    return {"median": statistics.median(values), "min": min(values), "max": max(values)}


def measure(commands, repeats, timeout):
    """Run every command `repeats` times, interleaved (run 1 of each, then run 2
    of each, ...) so that drift in the machine's load hits all alike. A command
    that times out is not repeated. Returns {name: record}."""
    records = {name: {"argv": argv, "cwd": cwd, "times": [], "rss_kb": [], "rc": None,
                      "timeout": False, "stdout": "", "stderr": ""}
               for name, (argv, cwd) in commands.items()}
    for _ in range(repeats):
        for name, (argv, cwd) in commands.items():
            rec = records[name]
            if rec["timeout"]:
                continue
            r = run_once(argv, cwd, timeout)
            if r["timeout"]:
                rec["timeout"] = True
                log(f"  {name}: timed out after {timeout:.0f} s")
                continue
            rec["times"].append(r["time"])
            rec["rss_kb"].append(r["rss_kb"])
            rec["rc"] = r["rc"]
            rec["stdout"], rec["stderr"] = r["stdout"], r["stderr"]
    for rec in records.values():
        rec["time"] = summary(rec["times"])
        rec["rss"] = summary(rec["rss_kb"])
    return records


def callgrind(argv, cwd, out_file="/dev/null"):
    """Total instructions (Ir) of one run under callgrind."""
    r = subprocess.run(["valgrind", "--tool=callgrind", "--callgrind-out-file=" + out_file,
                        *argv], cwd=cwd, capture_output=True, text=True)
    for line in r.stderr.splitlines():
        m = re.search(r"Collected : (\d+)", line)
        if m:
            return int(m.group(1))
    log("callgrind did not report for %s:\n%s" % (" ".join(argv), r.stderr[-2000:]))
    return None


FINDING = re.compile(r": (warning|error): .*\[([\w.,-]+)\]$")


def findings_of(kind, rec):
    """Findings (and errors) a command reported on an input that must be clean."""
    if rec["rc"] is None:
        return []
    lines = rec["stdout"].splitlines() + rec["stderr"].splitlines()
    if kind == "clang":
        return [l for l in lines if ": error:" in l] if rec["rc"] else []
    if kind == "dmalint":
        if rec["rc"] == 0:
            return []
        found = [l for l in lines if ": warning:" in l or ": error:" in l]
        return found or [f"exit status {rec['rc']}"] + lines[-3:]
    # clang-tidy: the exit status is 0 with warnings; read them.
    found = [l for l in lines if FINDING.search(l) and
             ("[dma-" in l or PEER_CHECK in l or ": error:" in l)]
    if rec["rc"] not in (0, None):
        found.append(f"exit status {rec['rc']}")
    return found


def skipped_functions(stdout):
    return [l for l in stdout.splitlines() if "remark:" in l and "was not analysed" in l]


class Tools:
    def __init__(self, dmalint, plugin, clang, tidy, flags, before=None, checks=None):
        self.dmalint_path, self.plugin, self.clang_path, self.tidy_path = dmalint, plugin, clang, tidy
        self.flags = flags
        # --checks for both dmalint builds (a before/after of the same checks).
        self.checks = ["--checks=" + checks] if checks else []
        # A dmalint of an earlier commit, measured beside this one in the
        # same run (--before): the before/after comparison shares the
        # machine's state and the parsing baseline.
        self.before_path = before

    def dmalint_before(self, files):
        return [self.before_path, "--quiet", *self.checks, *files, "--", *self.flags]

    def clang(self, files):
        return [self.clang_path, "-fsyntax-only", *self.flags, *files]

    def dmalint(self, files, *extra):
        own = any(a.startswith("--checks=") for a in extra)
        return [self.dmalint_path, "--quiet", *([] if own else self.checks), *extra, *files, "--",
                *self.flags]

    def tidy(self, checks, files, load=False):
        load_arg = ["-load=" + self.plugin] if load else []
        return [self.tidy_path, *load_arg, "--checks=" + checks, *files, "--", *self.flags]


def maybe_callgrind(args, rec, argv, cwd, force=False, out_file="/dev/null"):
    """Instructions of a command, unless --no-callgrind, or (without force) its
    median wall time is above --callgrind-max: valgrind is ~50x slower."""
    if args.no_callgrind or rec["time"] is None:
        return None
    if not force and rec["time"]["min"] > args.callgrind_max:
        return None
    log("  callgrind: " + " ".join(os.path.basename(a) for a in argv[:1] + argv[1:]
                                   if not a.startswith("-I")))
    return callgrind(argv, cwd, out_file)


def strip(rec, kind, name, expected=False):
    """The JSON record of one command: no output, but findings and skips. On
    an input with planted findings (\p expected) they are counted, not
    listed as false positives."""
    out = {k: rec[k] for k in ("argv", "times", "rss_kb", "time", "rss", "rc", "timeout")}
    out["kind"] = kind
    found = findings_of(kind, rec)
    if expected and kind != "clang":
        out["findings"] = []
        out["reported"] = sum(1 for f in found if ": warning:" in f)
        return out
    out["findings"] = found
    if out["findings"]:
        log(f"  FINDING on clean input ({name}): " + "; ".join(out["findings"][:3]))
    return out


def lines_of(path):
    with open(path) as f:
        return sum(1 for _ in f)


# ---------------------------------------------------------------------------
# The sections.

def section_overhead(args, tools, scratch):
    corpus_dir = os.path.join(scratch, "corpus")
    os.makedirs(corpus_dir, exist_ok=True)
    inputs = []
    for name in generate.corpus_kernels():
        shutil.copy(os.path.join(generate.CORPUS, name), corpus_dir)
        inputs.append(("corpus", name, corpus_dir))
    big = os.path.join(scratch, "big")
    os.makedirs(big, exist_ok=True)
    copies, modules = (2, 8) if args.quick else (10, 50)
    with open(os.path.join(big, "realistic.cc"), "w") as f:
        f.write(generate.realistic(copies))
    with open(os.path.join(big, "no_api.cc"), "w") as f:
        f.write(generate.no_api(modules))
    dense_copies = 2 if args.quick else generate.dense_copies()
    for name, text in (("dense.cc", generate.dense(dense_copies)),
                       ("dense_findings.cc", generate.dense(dense_copies, findings=True)),
                       ("host_finding.cc", generate.host_with_one_finding(modules))):
        with open(os.path.join(big, name), "w") as f:
            f.write(text)
    inputs += [("realistic", "realistic.cc", big), ("no-api", "no_api.cc", big),
               ("dense", "dense.cc", big), ("dense-findings", "dense_findings.cc", big),
               ("host-finding", "host_finding.cc", big)]

    rows = []
    for kind, name, cwd in inputs:
        log(f"overhead: {name}")
        cmds = {
            "clang": (tools.clang([name]), cwd),
            "dmalint": (tools.dmalint([name]), cwd),
        }
        if not args.no_tidy:
            cmds["tidy_floor"] = (tools.tidy("-*," + FLOOR_CHECK, [name]), cwd)
            cmds["tidy_bare"] = (tools.tidy("-*," + BARE_FLOOR_CHECK, [name]), cwd)
            cmds["tidy_dma"] = (tools.tidy("-*,dma-*", [name], load=True), cwd)
        if tools.before_path:
            cmds["dmalint_before"] = (tools.dmalint_before([name]), cwd)
        recs = measure(cmds, args.repeat, args.timeout)
        row = {"input": name, "kind": kind, "lines": lines_of(os.path.join(cwd, name)),
               "commands": {}}
        for cname, rec in recs.items():
            ckind = {"clang": "clang", "dmalint": "dmalint",
                     "dmalint_before": "dmalint"}.get(cname, "tidy")
            out = strip(rec, ckind, name, expected=kind in WITH_FINDINGS)
            profile = None
            if cname == "dmalint" and kind in PROFILED and not args.no_callgrind:
                profile = os.path.join(scratch, f"callgrind.{kind}.out")
            out["instructions"] = maybe_callgrind(args, rec, *cmds[cname], force=True,
                                                  out_file=profile or "/dev/null")
            if profile and os.path.exists(profile):
                out["profile"] = write_profile(profile, kind, args)
            row["commands"][cname] = out
        # Functions skipped at the work limit.
        v = run_once(tools.dmalint([name], "--verbose"), cwd, args.timeout)
        row["skipped_functions"] = len(skipped_functions(v["stdout"]))
        rows.append(row)
    return {"inputs": rows, "copies": copies, "modules": modules, "dense_copies": dense_copies}


def section_checks(args, tools, scratch):
    """What each check costs alone (`--checks=-*,<check>`) and all together,
    in instructions over `-fsyntax-only`, on the realistic translation unit
    and the dense kernels (the corpus kernels replicated): one callgrind run
    of each command, one timed run beside it."""
    d = os.path.join(scratch, "checks")
    os.makedirs(d, exist_ok=True)
    copies = 2 if args.quick else 10
    dense_copies = 2 if args.quick else generate.dense_copies()
    inputs = (("realistic", "realistic.cc", generate.realistic(copies)),
              ("dense", "dense.cc", generate.dense(dense_copies)))
    rows = []
    for kind, name, text in inputs:
        with open(os.path.join(d, name), "w") as f:
            f.write(text)
        cmds = {"clang": (tools.clang([name]), d), "all": (tools.dmalint([name]), d)}
        for check in ALL_CHECKS:
            cmds[check] = (tools.dmalint([name], "--checks=-*," + check), d)
        log(f"checks: {name}")
        recs = measure(cmds, 1, args.timeout)
        row = {"input": name, "kind": kind, "lines": lines_of(os.path.join(d, name)),
               "commands": {}}
        for cname, rec in recs.items():
            out = strip(rec, "clang" if cname == "clang" else "dmalint", name)
            out["instructions"] = maybe_callgrind(args, rec, *cmds[cname], force=True)
            row["commands"][cname] = out
        rows.append(row)
    return {"inputs": rows, "copies": copies, "dense_copies": dense_copies}


PROFILE_LINE = re.compile(r"^\s*([\d,]+) \(\s*([\d.]+)%\)\s+(?:[^:\s]*):(.*?)(?: \[(.*)\])?$")
# The inclusive costs worth reading in a dmalint profile: parsing, clang-tidy's
# matching, the matchers' descendant walks, CFG construction and dmalint itself.
PROFILE_FOCUS = re.compile(r"^(clang::ParseAST$|clang::MultiplexConsumer::HandleTranslationUnit$|"
                           r"clang::ast_matchers::|clang::CFG::buildCFG$|clang::tidy::|dmalint::|"
                           r"clang::ParentMapContext::ParentMap::ParentMap$|"
                           r"clang::ParentMapContext::getParents$)")


def short_name(function):
    """A function's name without its parameters (and callgrind's cycle mark)."""
    name = function.replace("(anonymous namespace)", "{anon}")
    depth = 0
    for i, ch in enumerate(name):
        if ch == "<":
            depth += 1
        elif ch == ">":
            depth -= 1
        elif ch == "(" and depth == 0:
            return name[:i]
    return re.sub(r"'\d+$", "", name)


def annotate(out_file, inclusive):
    r = subprocess.run(["callgrind_annotate", f"--inclusive={inclusive}", "--threshold=100",
                        out_file], capture_output=True, text=True)
    costs = {}
    for line in r.stdout.splitlines():
        m = PROFILE_LINE.match(line)
        if not m or "PROGRAM TOTALS" in line:
            continue
        name = short_name(m.group(3))
        costs[name] = max(costs.get(name, 0), int(m.group(1).replace(",", "")))
    return r.stdout, sorted(costs.items(), key=lambda kv: -kv[1])


def write_profile(out_file, kind, args):
    """The profile of one dmalint run: callgrind_annotate's output in
    bench/results/profile_<kind>.txt, and in the JSON the inclusive cost of
    the functions worth reading (PROFILE_FOCUS) and the top self costs."""
    inclusive_text, inclusive = annotate(out_file, "yes")
    self_text, self_costs = annotate(out_file, "no")
    total = inclusive[0][1] if inclusive else None
    m = re.search(r"([\d,]+) \(100.0%\)\s+PROGRAM TOTALS", inclusive_text)
    if m:
        total = int(m.group(1).replace(",", ""))
    focus = [(n, c) for n, c in inclusive if PROFILE_FOCUS.match(n)
             and not n.startswith(("dmalint::tool::", "clang::tidy::runClangTidy",
                                   "clang::tidy::ClangTidyASTConsumerFactory"))]
    path = os.path.join(args.results, f"profile_{kind}.txt")
    with open(path, "w") as f:
        f.write(f"# dmalint on the {kind} input: callgrind_annotate (top 200 lines each)\n\n")
        f.write("## --inclusive=yes\n\n" + "\n".join(inclusive_text.splitlines()[:200]) + "\n\n")
        f.write("## --inclusive=no\n\n" + "\n".join(self_text.splitlines()[:200]) + "\n")
    os.remove(out_file)
    return {"file": os.path.relpath(path, ROOT), "total": total,
            "inclusive": focus[:25], "self": self_costs[:15]}


def section_peer(args, tools, scratch):
    d = os.path.join(scratch, "peer")
    os.makedirs(d, exist_ok=True)
    sizes = [10, 30, 100] if args.quick else [10, 30, 100, 300]
    rows = []
    timed_out = set()
    for blocks in sizes:
        log(f"peer: {blocks} blocks")
        files = {}
        for flavor in ("dma", "optional"):
            files[flavor] = f"skeleton_{flavor}_{blocks}.cc"
            with open(os.path.join(d, files[flavor]), "w") as f:
                f.write(generate.skeleton(blocks, flavor))
        cmds = {
            "dma_check": (tools.tidy("-*," + DMA_PEER_CHECK, [files["dma"]], load=True), d),
            "optional_check": (tools.tidy("-*," + PEER_CHECK, [files["optional"]]), d),
            "dma_floor": (tools.tidy("-*," + FLOOR_CHECK, [files["dma"]]), d),
            "optional_floor": (tools.tidy("-*," + FLOOR_CHECK, [files["optional"]]), d),
        }
        for name in timed_out:
            cmds.pop(name, None)
        recs = measure(cmds, args.repeat, args.timeout)
        row = {"blocks": blocks, "lines": {k: lines_of(os.path.join(d, v)) for k, v in files.items()},
               "commands": {}}
        for cname, rec in recs.items():
            out = strip(rec, "tidy", files["dma" if cname.startswith("dma") else "optional"])
            out["instructions"] = maybe_callgrind(args, rec, *cmds[cname])
            row["commands"][cname] = out
            if rec["timeout"]:
                timed_out.add(cname)
        row["planted"] = planted_bugs(args, tools, d, blocks)
        rows.append(row)
    return {"sizes": sizes, "rows": rows, "timeout": args.timeout, "callgrind_max": args.callgrind_max}


def planted_bugs(args, tools, d, blocks):
    """Does each check still analyse the function at this size? The same
    skeleton with two planted bugs (`generate.skeleton(planted=True)`), run
    once: how many of them each check reports (2 when it analysed the
    function), and dmalint's remark if it skipped the function at its work
    limit. bugprone-unchecked-optional-access says nothing when it gives up."""
    out = {}
    for flavor, check, load in (("dma", DMA_PEER_CHECK, True), ("optional", PEER_CHECK, False)):
        name = f"planted_{flavor}_{blocks}.cc"
        with open(os.path.join(d, name), "w") as f:
            f.write(generate.skeleton(blocks, flavor, planted=True))
        argv = tools.tidy("-*," + check, [name], load=load)
        if load:
            argv.insert(-len(tools.flags) - 2,
                        "--config={CheckOptions: {%s.ReportSkippedFunctions: true}}" % check)
        r = run_once(argv, d, args.timeout)
        lines = r["stdout"].splitlines()
        out[flavor] = {"argv": argv, "expected": 2, "time": r["time"], "timeout": r["timeout"],
                       "found": sum(1 for l in lines if ": warning:" in l and f"[{check}]" in l),
                       "skipped": len(skipped_functions(r["stdout"]))}
    return out


def section_scaling(args, tools, scratch):
    d = os.path.join(scratch, "scaling")
    os.makedirs(d, exist_ok=True)
    families = {}
    for family, (gen, sizes, quick_sizes, what) in generate.SCALING.items():
        rows = []
        dmalint_timed_out = before_timed_out = False
        for n in (quick_sizes if args.quick else sizes):
            log(f"scaling: {family} {n}")
            name = f"{family}_{n}.cc"
            with open(os.path.join(d, name), "w") as f:
                f.write(gen(n))
            cmds = {"clang": (tools.clang([name]), d)}
            if not dmalint_timed_out:
                cmds["dmalint"] = (tools.dmalint([name]), d)
            if tools.before_path and not before_timed_out:
                cmds["dmalint_before"] = (tools.dmalint_before([name]), d)
            recs = measure(cmds, args.repeat, args.timeout)
            row = {"n": n, "lines": lines_of(os.path.join(d, name)), "commands": {}}
            for cname, rec in recs.items():
                out = strip(rec, "dmalint" if cname == "dmalint_before" else cname, name)
                out["instructions"] = maybe_callgrind(args, rec, *cmds[cname])
                row["commands"][cname] = out
            if "dmalint" in recs and recs["dmalint"]["timeout"]:
                dmalint_timed_out = True
            if "dmalint_before" in recs and recs["dmalint_before"]["timeout"]:
                before_timed_out = True
            if "dmalint" in recs and not dmalint_timed_out:
                v = run_once(tools.dmalint([name], "--verbose"), d, args.timeout)
                row["skipped_functions"] = len(skipped_functions(v["stdout"]))
            rows.append(row)
        families[family] = {"what": what, "rows": rows}
    return {"families": families, "timeout": args.timeout, "callgrind_max": args.callgrind_max}


def section_worklimit(args, tools, scratch):
    """dmalint --verbose with the WorkLimit of every dataflow check set to each
    of WORK_LIMITS, on the if/else series and the first two loop sizes."""
    inputs = [("branches", n) for n in generate.SCALING["branches"][2 if args.quick else 1]]
    inputs += [("loops", n) for n in generate.SCALING["loops"][1][:2]]
    rows = []
    for limit in WORK_LIMITS:
        d = os.path.join(scratch, f"worklimit_{limit}")
        os.makedirs(d, exist_ok=True)
        with open(os.path.join(d, ".clang-tidy"), "w") as f:
            f.write("CheckOptions:\n")
            for check in DATAFLOW_CHECKS:
                f.write(f"  {check}.WorkLimit: {limit}\n")
        timed_out = set()
        for family, n in inputs:
            if family in timed_out:
                continue
            log(f"worklimit: {limit} {family} {n}")
            name = f"{family}_{n}.cc"
            with open(os.path.join(d, name), "w") as f:
                f.write(generate.SCALING[family][0](n))
            cmd = tools.dmalint([name], "--verbose")
            rec = measure({"dmalint": (cmd, d)}, min(args.repeat, 3), args.timeout)["dmalint"]
            out = strip(rec, "dmalint", name)
            out["skipped_functions"] = len(skipped_functions(rec["stdout"]))
            out.update({"family": family, "n": n, "limit": limit})
            rows.append(out)
            if rec["timeout"]:
                timed_out.add(family)
    return {"limits": WORK_LIMITS, "default": DEFAULT_WORK_LIMIT, "rows": rows,
            "timeout": args.timeout}


# ---------------------------------------------------------------------------
# Machine and provenance.

def sha256(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()[:16]


def first_line(argv):
    try:
        return subprocess.run(argv, capture_output=True, text=True).stdout.splitlines()[0].strip()
    except (OSError, IndexError):
        return None


def machine(tools):
    cpu = None
    try:
        with open("/proc/cpuinfo") as f:
            cpu = next((l.split(":", 1)[1].strip() for l in f if l.startswith("model name")), None)
    except OSError:
        pass
    mem = None
    try:
        with open("/proc/meminfo") as f:
            mem = int(f.readline().split()[1]) // 1024
    except (OSError, ValueError, IndexError):
        pass
    git = subprocess.run(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"],
                         capture_output=True, text=True).stdout.strip()
    return {
        "cpu": cpu, "cores": os.cpu_count(), "memory_mb": mem,
        "kernel": platform.release(), "python": platform.python_version(),
        "clang": first_line([tools.clang_path, "--version"]),
        "clang_tidy": first_line([tools.tidy_path, "--version"]),
        "valgrind": first_line(["valgrind", "--version"]),
        "dmalint": tools.dmalint_path, "dmalint_sha256": sha256(tools.dmalint_path),
        "plugin": tools.plugin, "plugin_sha256": sha256(tools.plugin),
        "git": git,
    }


def build():
    bdir = os.path.join(ROOT, "build-bench")
    log("building Release dmalint in build-bench/")
    for argv in (["cmake", "-S", ROOT, "-B", bdir, "-G", "Ninja", "-DCMAKE_BUILD_TYPE=Release"],
                 ["ninja", "-C", bdir, "dmalint", "dmalint-tidy"]):
        if subprocess.run(argv).returncode:
            sys.exit("bench: build failed: " + " ".join(argv))
    return os.path.join(bdir, "bin", "dmalint"), os.path.join(bdir, "lib", "libdmalint-tidy.so")


# ---------------------------------------------------------------------------
# Report.

def med(cmd):
    return cmd["time"]["median"] if cmd and cmd.get("time") else None


def fmt_s(cmd):
    if cmd is None:
        return "not run"
    if cmd.get("timeout"):
        return "timeout"
    t = cmd.get("time")
    if not t:
        return "-"
    return f"{t['median']:.2f} ({t['min']:.2f}..{t['max']:.2f})"


def fmt_mb(cmd):
    if not cmd or not cmd.get("rss"):
        return "-"
    return f"{cmd['rss']['median'] / 1024:.0f}"


def ratio(a, b):
    return a / b if a is not None and b else None


def fmt_ratio(r, digits=3):
    return "-" if r is None else f"{r:.{digits}f}x"


def fmt_ir(n):
    return "-" if n is None else f"{n / 1e9:.3f}G"


def pct(r):
    return "-" if r is None else f"{(r - 1) * 100:+.1f}%"


def table(header, rows):
    out = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    out += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return "\n".join(out)


def ratio_target(label, limit, cmd, base):
    """A row of the Targets table: cmd over base at most limit, judged on
    instructions where both were counted, else on median time."""
    ir = ratio(cmd.get("instructions"), base.get("instructions"))
    tr = ratio(med(cmd), med(base))
    main = ir if ir is not None else tr
    return [label, f"<= {pct(limit)}", f"{pct(ir)} instructions, {pct(tr)} median time",
            verdict(main is not None and main <= limit)]


def input_cell(r):
    """An overhead input's name as a table cell (the corpus total in bold)."""
    return f"**{r['input']}**" if r["kind"] == "corpus-total" else f"`{r['input']}`"


def corpus_total(inputs):
    """One row summing the corpus kernels (medians and instructions added)."""
    corpus = [r for r in inputs if r["kind"] == "corpus"]
    if not corpus:
        return None
    total = {"input": f"corpus, all {len(corpus)} (sum)", "kind": "corpus-total",
             "lines": sum(r["lines"] for r in corpus), "commands": {}}
    for cname in corpus[0]["commands"]:
        cmds = [r["commands"][cname] for r in corpus]
        t = [c["time"] for c in cmds]
        rss = [c["rss"] for c in cmds]
        irs = [c.get("instructions") for c in cmds]
        total["commands"][cname] = {
            "time": None if None in t else {k: sum(x[k] for x in t) for k in ("median", "min", "max")},
            "rss": None if None in rss else {k: max(x[k] for x in rss) for k in ("median", "min", "max")},
            "instructions": None if None in irs else sum(irs), "timeout": False}
    return total


def overhead_inputs(ov):
    """The overhead section's inputs, with the corpus total as one more row."""
    inputs = list(ov["inputs"])
    total = corpus_total(inputs)
    if total:
        inputs.append(total)
    return inputs


def dense_text(ov):
    """What the kernel-file inputs of issue 18 are, with the findings they got."""
    rows = {r["kind"]: r for r in ov["inputs"]}
    if "dense" not in rows:
        return ""
    def reported(kind):
        d = rows.get(kind, {}).get("commands", {}).get("dmalint", {})
        return d.get("reported", "?")
    return (f" `dense.cc` is {ov.get('dense_copies', '?')} copies of the clean corpus kernels "
            f"alone (each in its own namespace) after `<tpu/dma.h>` and eleven standard "
            f"headers; `dense_findings.cc` the same with each kernel one of its planted-bug "
            f"variants (one function in five; dmalint reported {reported('dense-findings')} "
            f"findings); `host_finding.cc` the no-API translation unit with `<tpu/dma.h>` and "
            f"one small kernel with one definite finding and its fix-it (dmalint reported "
            f"{reported('host-finding')}).")


def growth(values):
    return [ratio(b, a) for a, b in zip(values, values[1:])]


def render(results):
    """The generated part of docs/performance.md (and what bench/run prints)."""
    out = []
    meta = results.get("meta", {})
    if meta:
        m = meta["machine"]
        out.append(f"Run {meta['date']}, `{meta['command']}` (bench at git {m['git']}); "
                   f"measured: {meta.get('binaries', m['dmalint'])}; "
                   f"{m['cores']} cores ({m['cpu']}), {m.get('memory_mb') or '?'} MB, "
                   f"load average {meta['load_start']} at the start, {meta['load_end']} at the end; "
                   f"{m['clang']}; {m['valgrind']}; dmalint sha256 {m['dmalint_sha256']}, "
                   f"plugin {m['plugin_sha256']}. Times are medians (min..max) of "
                   f"{meta['repeat']} runs, in seconds; peak memory in MB (the child's "
                   f"ru_maxrss); instructions from callgrind (G = 10^9).\n")
        # With --only, the other sections hold an earlier run's data.
        earlier = [f"{sec} (run {results[sec].get('run_id', '?')})" for sec in SECTIONS
                   if results.get(sec) and results[sec].get("run_id") != meta.get("run_id")]
        if earlier:
            out.append(f"This run measured only: {', '.join(meta.get('sections', []))}. The "
                       f"other sections are the data of earlier runs: {', '.join(earlier)} "
                       f"(their command, binaries and machine are in the git history of "
                       f"`bench/results/meta.json`).\n")
    targets = []

    ov = results.get("overhead")
    if ov:
        inputs = overhead_inputs(ov)
        out.append("### 1. Overhead over parsing\n")
        out.append(f"`dmalint` (all `dma-*` checks) against `clang++-19 -fsyntax-only` with the "
                   f"same flags. The realistic translation unit is {ov['copies']} copies of the "
                   f"clean corpus kernels plus host code over standard containers, after 16 "
                   f"standard headers and `<tpu/dma.h>`; the no-API one is {ov['modules']} "
                   f"modules of host code after the same standard headers, without "
                   f"`<tpu/dma.h>`.{dense_text(ov)}\n")
        rows = []
        for r in inputs:
            c, d = r["commands"]["clang"], r["commands"]["dmalint"]
            tr = ratio(med(d), med(c))
            ir = ratio(d.get("instructions"), c.get("instructions"))
            mr = ratio(d["rss"]["median"] if d.get("rss") else None,
                       c["rss"]["median"] if c.get("rss") else None)
            rows.append([input_cell(r),
                         r["lines"], fmt_s(c), fmt_s(d), pct(tr), fmt_ir(c.get("instructions")),
                         fmt_ir(d.get("instructions")), pct(ir), fmt_mb(c), fmt_mb(d), pct(mr)])
        out.append(table(["input", "lines", "-fsyntax-only s", "dmalint s", "time",
                          "-fsyntax-only Ir", "dmalint Ir", "Ir", "MB", "dmalint MB", "memory"],
                         rows))
        with_tidy = [r for r in inputs if "tidy_floor" in r["commands"]]
        if with_tidy:
            out.append("\nclang-tidy with the plugin against clang-tidy's floor "
                       f"(`--checks='-*,{FLOOR_CHECK}'`), same inputs:\n")
            rows = []
            for r in with_tidy:
                f, t = r["commands"]["tidy_floor"], r["commands"]["tidy_dma"]
                rows.append([input_cell(r),
                             fmt_s(f), fmt_s(t), pct(ratio(med(t), med(f))),
                             fmt_ir(f.get("instructions")), fmt_ir(t.get("instructions")),
                             pct(ratio(t.get("instructions"), f.get("instructions")))])
            out.append(table(["input", "floor s", "dma-* s", "time", "floor Ir", "dma-* Ir", "Ir"],
                             rows))
        with_bare = [r for r in inputs if "tidy_bare" in r["commands"]]
        if with_bare:
            out.append("\nclang-tidy with the plugin against clang-tidy with no check that walks "
                       f"the AST (`--checks='-*,{BARE_FLOOR_CHECK}'`, preprocessor callbacks "
                       "only: parsing, clang-tidy's setup and its matcher walk with no matcher), "
                       "same inputs:\n")
            rows = []
            for r in with_bare:
                f, t = r["commands"]["tidy_bare"], r["commands"]["tidy_dma"]
                c = r["commands"]["clang"]
                rows.append([input_cell(r),
                             fmt_ir(c.get("instructions")), fmt_ir(f.get("instructions")),
                             pct(ratio(f.get("instructions"), c.get("instructions"))),
                             fmt_ir(t.get("instructions")),
                             pct(ratio(t.get("instructions"), f.get("instructions"))),
                             fmt_s(f), fmt_s(t)])
            out.append(table(["input", "-fsyntax-only Ir", "bare floor Ir", "floor / clang",
                              "dma-* Ir", "dma-* / floor", "floor s", "dma-* s"], rows))
        out.append("")
        for kind, label, limit in (("corpus-total", "corpus kernels", TARGET_OVERHEAD),
                                   ("realistic", "realistic TU", TARGET_OVERHEAD),
                                   ("no-api", "no-API TU", TARGET_OVERHEAD_NOAPI),
                                   ("dense", "dense kernels, no finding", TARGET_DENSE),
                                   ("dense-findings", "dense kernels with findings",
                                    TARGET_DENSE_FINDINGS),
                                   ("host-finding", "host code with one definite finding",
                                    TARGET_HOST_FINDING)):
            r = next((x for x in inputs if x["kind"] == kind), None)
            if not r:
                continue
            targets.append(ratio_target(f"overhead over -fsyntax-only, {label}", limit,
                                        r["commands"]["dmalint"], r["commands"]["clang"]))
            if "tidy_bare" in r["commands"] and kind in ("dense", "dense-findings",
                                                          "host-finding", "realistic"):
                targets.append(ratio_target(
                    f"clang-tidy with the plugin over its bare floor, {label}", TARGET_PLUGIN,
                    r["commands"]["tidy_dma"], r["commands"]["tidy_bare"]))

    if ov:
        profiles = [r for r in ov["inputs"] if r["commands"]["dmalint"].get("profile")]
        for r in profiles:
            prof = r["commands"]["dmalint"]["profile"]
            total = prof["total"]
            incl = dict(prof["inclusive"])
            parse = incl.get("clang::ParseAST")
            consumer = incl.get("clang::MultiplexConsumer::HandleTranslationUnit")
            out.append(f"Where dmalint's instructions go on `{r['input']}` (callgrind, inclusive "
                       f"cost of selected functions; total {fmt_ir(total)}, -fsyntax-only "
                       f"{fmt_ir(r['commands']['clang'].get('instructions'))}; full output in "
                       f"`{prof['file']}`):\n")
            rows = []
            if parse and consumer is not None:
                rows.append(["parsing and Sema (ParseAST minus the AST consumers)",
                             fmt_ir(parse - consumer), f"{(parse - consumer) / total * 100:.1f}%"])
                rows.append(["before and after parsing (total minus ParseAST: startup, "
                             "clang-tidy setup, output)", fmt_ir(total - parse),
                             f"{(total - parse) / total * 100:.1f}%"])
            for name, cost in prof["inclusive"][:14]:
                if name == "clang::ParseAST":
                    continue
                rows.append([f"`{name if len(name) < 110 else name[:107] + '...'}`", fmt_ir(cost),
                             f"{cost / total * 100:.1f}%"])
            out.append(table(["function (inclusive)", "Ir", "of total"], rows))
            out.append("")

    chk = results.get("checks")
    if chk:
        out.append("### What each check costs\n")
        out.append("`dmalint --checks='-*,<check>'` for each check alone, and all of them (the "
                   "default), on the realistic translation unit and on the dense kernels (the "
                   "corpus kernels replicated, no finding): instructions over `clang++-19 "
                   "-fsyntax-only`'s on the same file, as a share of it. A check alone pays "
                   "for what it shares with others (the descriptor analysis of each function "
                   "is built once per run and read by every dataflow check), so the shares do "
                   "not add up to the row of all checks. One run each.\n")
        header = ["check"]
        for r in chk["inputs"]:
            c = r["commands"]["clang"].get("instructions")
            header += [f"`{r['input']}` Ir over -fsyntax-only ({fmt_ir(c)})", "share"]
        rows = []
        for cname in ("all",) + ALL_CHECKS:
            label = ("**all checks**" if cname == "all" else
                     f"`{cname}`" + (" (protocol)" if cname in PROTOCOL_CHECKS else ""))
            row = [label]
            for r in chk["inputs"]:
                c = r["commands"]["clang"]
                x = r["commands"].get(cname)
                n = net_ir(x, c)
                row += ["-" if n is None else f"{n / 1e6:,.1f}M",
                        "-" if n is None else f"{100.0 * n / c['instructions']:.2f}%"]
            rows.append(row)
        out.append(table(header, rows))
        out.append("")

    peer = results.get("peer")
    if peer:
        out.append("### 2. Against a peer on the same dataflow shape\n")
        out.append(f"One function of N blocks, written twice (`bench/generate.py`, `skeleton`): "
                   f"block i declares a descriptor (an optional), makes it remote (engaged) "
                   f"when `k > i`, uses it, then `wait_send()` under `is_remote()` "
                   f"(`value()` under `has_value()`); every other block is inside a loop. Both "
                   f"run in `clang-tidy-19`: `{DMA_PEER_CHECK}` (plugin) on the descriptor "
                   f"flavour, `{PEER_CHECK}` on the optional flavour; \"net\" subtracts "
                   f"clang-tidy's floor ({FLOOR_CHECK}) on the same file. Timeout "
                   f"{peer['timeout']:.0f} s; instructions only where the fastest run took at "
                   f"most {peer.get('callgrind_max', 4):g} s.\n")
        rows = []
        worst = None
        for r in peer["rows"]:
            c = r["commands"]
            dm, op = c.get("dma_check"), c.get("optional_check")
            dfl, ofl = c.get("dma_floor"), c.get("optional_floor")
            dnet = net(dm, dfl)
            onet = net(op, ofl)
            irn_d = net_ir(dm, dfl)
            irn_o = net_ir(op, ofl)
            tr = ratio(med(dm), med(op))
            rows.append([r["blocks"], fmt_s(dm), fmt_s(op), fmt_ratio(tr, 2),
                         fmt_net(dnet), fmt_net(onet),
                         fmt_ir(dm.get("instructions") if dm else None),
                         fmt_ir(op.get("instructions") if op else None),
                         fmt_ratio(ratio(irn_d, irn_o), 2),
                         fmt_planted(r.get("planted", {}).get("dma")),
                         fmt_planted(r.get("planted", {}).get("optional"))])
            faster = compare_peer(dm, op)
            if faster is not None:
                worst = faster if worst is None else (worst and faster)
        out.append(table(["blocks", f"{DMA_PEER_CHECK} s", f"{PEER_CHECK} s", "time dma/optional",
                          "dma net s", "optional net s", "dma Ir", "optional Ir", "net Ir dma/optional",
                          "dma: planted bugs found", "optional: planted bugs found"], rows))
        out.append("\n\"Planted bugs found\": the same skeleton with two real bugs (an unguarded "
                   "`wait_send` / `value()` in the first and the last block outside a loop), run "
                   "once: a check that analysed the function reports 2. dmalint names a function "
                   "it skipped at its work limit (`ReportSkippedFunctions`); "
                   f"`{PEER_CHECK}` gives up silently.")
        out.append("")
        detail = "; ".join(f"{r['blocks']}: {fmt_ratio(ratio(med(r['commands'].get('dma_check')), med(r['commands'].get('optional_check'))), 2)}"
                           for r in peer["rows"])
        targets.append(["shared skeleton: dmalint's check at least as fast as " + PEER_CHECK,
                        "dma/optional <= 1x at every size", "time ratio by blocks: " + detail
                        + " (timeout: slower than the limit)", verdict(worst)])

    sc = results.get("scaling")
    if sc:
        out.append("### 3. Scaling\n")
        out.append("dmalint (all checks) and `-fsyntax-only` on generated inputs of growing size "
                   "(`bench/generate.py`). Growth is the ratio between consecutive sizes (10x "
                   "apart) of the median time, of the instructions, and of the instructions "
                   "dmalint adds to parsing (dmalint minus -fsyntax-only); \"skipped\" counts "
                   "the functions `dmalint --verbose` reports as skipped at the work limit "
                   f"(default WorkLimit {DEFAULT_WORK_LIMIT:,}). Timeout {sc['timeout']:.0f} s; "
                   "after a timeout the larger sizes are not run. Callgrind runs only where "
                   f"the fastest run took at most {sc.get('callgrind_max', 4):g} s.\n")
        all_growth, ir_growth = [], []
        slowest = (0, None)
        memory_worst = (0, None)
        for family, fam in sc["families"].items():
            rows = []
            times, irs, nets = [], [], []
            for r in fam["rows"]:
                c, d = r["commands"]["clang"], r["commands"].get("dmalint")
                times.append(med(d))
                dir_, cir = (d or {}).get("instructions"), c.get("instructions")
                irs.append(dir_)
                nets.append(dir_ - cir if dir_ is not None and cir is not None else None)
                mr = ratio(d["rss"]["median"] if d and d.get("rss") else None,
                           c["rss"]["median"] if c.get("rss") else None)
                rows.append([f"{r['n']:,}", r["lines"], fmt_s(c), fmt_s(d), fmt_ir(cir),
                             fmt_ir(dir_), fmt_mb(c), fmt_mb(d), pct(mr),
                             r.get("skipped_functions", "-")])
                if d and d.get("timeout"):
                    slowest = (float("inf"), f"{family} {r['n']:,}")
                elif med(d) and med(d) > slowest[0]:
                    slowest = (med(d), f"{family} {r['n']:,}")
                if mr and mr > memory_worst[0]:
                    memory_worst = (mr, f"{family} {r['n']:,}")
            gt, gi, gn = growth(times), growth(irs), growth(nets)
            for row, a, b, cc in zip(rows[1:], gt, gi, gn):
                row.insert(4, fmt_ratio(a, 1))
                row.insert(7, fmt_ratio(b, 1))
                row.insert(8, fmt_ratio(cc, 1))
            rows[0].insert(4, "")
            rows[0].insert(7, "")
            rows[0].insert(8, "")
            for i, row in enumerate(rows):
                d = fam["rows"][i]["commands"].get("dmalint")
                if d and d.get("timeout") and i:
                    row[4] = "> " + fmt_ratio(sc["timeout"] / times[i - 1], 1) if times[i - 1] else "-"
                    all_growth.append((float("inf"), f"{family} {fam['rows'][i]['n']:,}"))
            out.append(f"**{family}**: {fam['what']}\n")
            out.append(table(["n", "lines", "-fsyntax-only s", "dmalint s", "growth",
                              "-fsyntax-only Ir", "dmalint Ir", "Ir growth", "added Ir growth",
                              "MB", "dmalint MB", "memory", "skipped"], rows))
            out.append("")
            for i, g in enumerate(gt):
                if g is not None:
                    all_growth.append((g, f"{family} {fam['rows'][i + 1]['n']:,}"))
            for i, g in enumerate(gi):
                if g is not None:
                    ir_growth.append((g, f"{family} {fam['rows'][i + 1]['n']:,}"))
        if all_growth:
            g, where = max(all_growth)
            targets.append(["growth per 10x (wall time)", f"<= {TARGET_GROWTH:.0f}x at every step",
                            f"worst {'timeout' if g == float('inf') else fmt_ratio(g, 1)} ({where})",
                            verdict(g <= TARGET_GROWTH)])
        if ir_growth:
            g, where = max(ir_growth)
            targets.append(["growth per 10x (instructions, where counted)",
                            f"<= {TARGET_GROWTH:.0f}x at every step",
                            f"worst {fmt_ratio(g, 1)} ({where})", verdict(g <= TARGET_GROWTH)])
        if slowest[1]:
            targets.append(["no input longer than 10 s", f"<= {TARGET_SECONDS:.0f} s",
                            f"slowest: {'timeout' if slowest[0] == float('inf') else f'{slowest[0]:.2f} s'} "
                            f"({slowest[1]})", verdict(slowest[0] <= TARGET_SECONDS)])

    if ov or sc:
        worst = (0, None)
        for r in (ov or {}).get("inputs", []):
            c, d = r["commands"]["clang"], r["commands"]["dmalint"]
            if c.get("rss") and d.get("rss"):
                m = d["rss"]["median"] / c["rss"]["median"]
                if m > worst[0]:
                    worst = (m, r["input"])
        for family, fam in ((sc or {}).get("families") or {}).items():
            for r in fam["rows"]:
                c, d = r["commands"]["clang"], r["commands"].get("dmalint")
                if d and c.get("rss") and d.get("rss"):
                    m = d["rss"]["median"] / c["rss"]["median"]
                    if m > worst[0]:
                        worst = (m, f"{family} {r['n']:,}")
        if worst[1]:
            targets.append(["peak memory over -fsyntax-only", f"<= {pct(TARGET_MEMORY)}",
                            f"worst {pct(worst[0])} ({worst[1]})", verdict(worst[0] <= TARGET_MEMORY)])

    wl = results.get("worklimit")
    if wl:
        out.append("### Where the work limit engages\n")
        out.append("`dmalint --verbose` with the `WorkLimit` of every dataflow check set in a "
                   "`.clang-tidy` next to the input; median of up to 3 runs, and the number of "
                   f"functions skipped (a skipped function reports nothing). Default "
                   f"{wl['default']:,}.\n")
        keys = sorted({(r["family"], r["n"]) for r in wl["rows"]},
                      key=lambda k: (k[0] != "branches", k[0], k[1]))
        rows = []
        for family, n in keys:
            row = [f"{family} {n:,}"]
            for limit in wl["limits"]:
                r = next((x for x in wl["rows"] if x["family"] == family and x["n"] == n
                          and x["limit"] == limit), None)
                if r is None:
                    row.append("not run")
                elif r.get("timeout"):
                    row.append("timeout")
                else:
                    row.append(f"{r['time']['median']:.2f} s, {r['skipped_functions']} skipped")
            rows.append(row)
        out.append(table(["input"] + [f"WorkLimit {l:,}" for l in wl["limits"]], rows))
        out.append("")
        engaged = [f"{r['family']} {r['n']:,} at {r['limit']:,}" for r in wl["rows"]
                   if r.get("skipped_functions")]
        bounded = [r for r in wl["rows"] if r.get("skipped_functions")
                   and (r.get("timeout") or (r.get("time") and r["time"]["median"] > TARGET_SECONDS))]
        targets.append(["the work limit bounds the worst case", "a function over the limit is "
                        "skipped quickly", f"engages on: {', '.join(engaged) or 'none'}; "
                        f"{len(bounded)} skipped case(s) still over {TARGET_SECONDS:.0f} s",
                        verdict(bool(engaged) and not bounded)])

    findings = []
    for sec in SECTIONS:
        data = results.get(sec)
        if not data:
            continue
        for cmd, where in iter_commands(sec, data):
            for f in cmd.get("findings", []):
                findings.append(f"{where}: {f}")
    out.append("### Findings on the (clean) inputs\n")
    if findings:
        out.append("These inputs are clean code: each line below is a generator error or a false "
                   "positive.\n")
        out += [f"- `{f}`" for f in findings[:30]]
        if len(findings) > 30:
            out.append(f"- ... {len(findings) - 30} more")
    else:
        out.append("None: no `dma-*` or `" + PEER_CHECK + "` finding and no error on any input.")
    out.append("")

    if sc:
        out.append("### Plot\n")
        out.append("![scaling: time and peak memory by input size](../bench/results/scaling.png)\n")

    if targets:
        out.append("### Targets\n")
        out.append(table(["target", "wanted", "measured", "met"], targets))
        out.append("")
    return "\n".join(out)


def fmt_planted(p):
    if not p:
        return "-"
    if p.get("timeout"):
        return "timeout"
    text = f"{p['found']} of {p['expected']} ({p['time']:.1f} s)"
    if p.get("skipped"):
        text += ", skipped at the work limit"
    return text


def verdict(ok):
    return "n/a" if ok is None else ("**met**" if ok else "**missed**")


def net(cmd, floor):
    if not cmd or not floor or cmd.get("timeout") or med(cmd) is None or med(floor) is None:
        return None
    return med(cmd) - med(floor)


def net_ir(cmd, floor):
    if not cmd or not floor or cmd.get("instructions") is None or floor.get("instructions") is None:
        return None
    return cmd["instructions"] - floor["instructions"]


def fmt_net(x):
    return "-" if x is None else f"{x:.2f}"


def compare_peer(dm, op):
    """True when dmalint's check is at least as fast (a timeout is slowest)."""
    if not dm or not op:
        return None
    if dm.get("timeout"):
        return bool(op.get("timeout"))
    if op.get("timeout"):
        return True
    if dm.get("instructions") and op.get("instructions"):
        return dm["instructions"] <= op["instructions"]
    return med(dm) <= med(op)


def iter_commands(sec, data):
    if sec in ("overhead", "checks"):
        for r in data["inputs"]:
            for name, c in r["commands"].items():
                yield c, f"{r['input']} ({name})"
    elif sec == "peer":
        for r in data["rows"]:
            for name, c in r["commands"].items():
                yield c, f"skeleton {r['blocks']} ({name})"
    elif sec == "scaling":
        for family, fam in data["families"].items():
            for r in fam["rows"]:
                for name, c in r["commands"].items():
                    yield c, f"{family} {r['n']} ({name})"
    elif sec == "worklimit":
        for r in data["rows"]:
            yield r, f"{r['family']} {r['n']} (WorkLimit {r['limit']})"


def render_before_after(results, before):
    """Before/after: the data in bench/results/before/ against the latest run."""
    out = ["### Before and after (bench data)\n"]
    if not before.get("meta") or before["meta"].get("run_id") == results.get("meta", {}).get("run_id"):
        out.append("`bench/results/before/` holds the data of this run itself: no later run yet. "
                   "After changing dmalint, rerun `bench/run` and this section compares the two.\n")
        return "\n".join(out)
    bm, am = before["meta"], results["meta"]
    out.append(f"Before: {bm['date']}, {bm.get('binaries', '?')} (dmalint sha256 "
               f"{bm['machine']['dmalint_sha256']}); after: {am['date']}, "
               f"{am.get('binaries', '?')} (dmalint sha256 {am['machine']['dmalint_sha256']}).\n")
    rows = []
    if before.get("overhead") and results.get("overhead"):
        bins = {r["input"]: r for r in before["overhead"]["inputs"]}
        ains = list(results["overhead"]["inputs"])
        bt, at = corpus_total(list(bins.values())), corpus_total(ains)
        if bt and at:
            bins[bt["input"]] = bt
            ains.append(at)
        for a in ains:
            b = bins.get(a["input"])
            if not b:
                continue
            rows.append([f"`{a['input']}`", "dmalint / -fsyntax-only, Ir",
                         pct(ratio(b["commands"]["dmalint"].get("instructions"),
                                   b["commands"]["clang"].get("instructions"))),
                         pct(ratio(a["commands"]["dmalint"].get("instructions"),
                                   a["commands"]["clang"].get("instructions")))])
            rows.append([f"`{a['input']}`", "dmalint median s",
                         fmt_s(b["commands"]["dmalint"]), fmt_s(a["commands"]["dmalint"])])
    if before.get("peer") and results.get("peer"):
        bp = {r["blocks"]: r for r in before["peer"]["rows"]}
        for a in results["peer"]["rows"]:
            b = bp.get(a["blocks"])
            if b:
                rows.append([f"skeleton {a['blocks']}", f"{DMA_PEER_CHECK} s",
                             fmt_s(b["commands"].get("dma_check")), fmt_s(a["commands"].get("dma_check"))])
    if before.get("scaling") and results.get("scaling"):
        for family, fam in results["scaling"]["families"].items():
            bf = {r["n"]: r for r in before["scaling"]["families"].get(family, {}).get("rows", [])}
            for a in fam["rows"]:
                b = bf.get(a["n"])
                if b:
                    rows.append([f"{family} {a['n']:,}", "dmalint s",
                                 fmt_s(b["commands"].get("dmalint")), fmt_s(a["commands"].get("dmalint"))])
    out.append(table(["input", "measure", "before", "after"], rows))
    out.append("")
    return "\n".join(out)


TARGET_REGRESSION = 1.05    # no input slower than the --before build by more


def render_same_run(results):
    """Before/after from one run with --before: the earlier build beside this
    one on every overhead and scaling input. Instructions where both were
    counted (they are what the verdict reads), else median wall time."""
    meta = results.get("meta", {})
    if not meta.get("before"):
        return None
    rows, worst = [], (0.0, None)

    def add(label, before, after, parse=None):
        nonlocal worst
        if not before or not after:
            return
        bi, ai = before.get("instructions"), after.get("instructions")
        if before.get("timeout") or after.get("timeout"):
            r = None if before.get("timeout") and after.get("timeout") else (
                float("inf") if after.get("timeout") else 0.0)
            how = "time"
        elif bi and ai:
            r, how = ai / bi, "Ir"
        else:
            r, how = ratio(med(after), med(before)), "time"
        if r is not None and r > worst[0]:
            worst = (r, f"{label} ({how})")
        rows.append([label, fmt_ir(parse), fmt_ir(bi), fmt_ir(ai), fmt_s(before), fmt_s(after),
                     "-" if r is None else ("after only" if r == 0.0 else
                                            "timeout" if r == float("inf") else
                                            f"{pct(r)} ({how})")])

    ov = results.get("overhead")
    if ov:
        inputs = overhead_inputs(ov)
        for r in inputs:
            c = r["commands"]
            add(f"`{r['input']}`", c.get("dmalint_before"), c.get("dmalint"),
                c["clang"].get("instructions"))
    sc = results.get("scaling")
    if sc:
        for family, fam in sc["families"].items():
            for r in fam["rows"]:
                c = r["commands"]
                add(f"{family} {r['n']:,}", c.get("dmalint_before"), c.get("dmalint"),
                    c["clang"].get("instructions"))
    out = ["### Before and after (measured in this run)\n",
           f"Before: {meta['before']} (dmalint sha256 {meta.get('before_sha256')}); after: "
           f"{meta.get('binaries')}; both run interleaved on every overhead and scaling input "
           "above" + (f", both with `--checks='{meta['checks']}'`" if meta.get("checks") else "") +
           ". \"Change\" is after/before of the instructions where both were counted under "
           "callgrind, else of the median time; a timeout of the earlier build reads as "
           "\"after only\".\n",
           table(["input", "-fsyntax-only Ir", "before Ir", "after Ir", "before s", "after s",
                  "change"], rows), ""]
    out.append(f"Slowest relative to before: {worst[1] or '-'}, {pct(worst[0]) if worst[1] else '-'}; "
               f"target: no input slower than before by more than {pct(TARGET_REGRESSION)}: "
               f"{verdict(worst[0] <= TARGET_REGRESSION)}.\n")
    return "\n".join(out)


def load_results(directory):
    results = {}
    for name in ("meta",) + SECTIONS:
        path = os.path.join(directory, name + ".json")
        if os.path.exists(path):
            with open(path) as f:
                results[name] = json.load(f)
    return results


def plot(results, directory, scratch):
    """scaling.png: time and peak memory by size, per family, with gnuplot."""
    sc = results.get("scaling")
    if not sc or not shutil.which("gnuplot"):
        log("no scaling data or no gnuplot: no plot")
        return
    os.makedirs(scratch, exist_ok=True)
    series = []
    for family, fam in sc["families"].items():
        path = os.path.join(scratch, f"{family}.dat")
        with open(path, "w") as f:
            for r in fam["rows"]:
                c, d = r["commands"]["clang"], r["commands"].get("dmalint")
                ci, di = c.get("instructions"), (d or {}).get("instructions")
                vals = [r["n"], med(c), med(d),
                        c["rss"]["median"] / 1024 if c.get("rss") else None,
                        d["rss"]["median"] / 1024 if d and d.get("rss") else None,
                        (di - ci) / 1e9 if ci is not None and di is not None and di > ci else None]
                f.write(" ".join("?" if v is None else str(v) for v in vals) + "\n")
        series.append((family, path))
    png = os.path.join(directory, "scaling.png")
    colours = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e"]

    def plots(col_clang, col_dmalint):
        parts = []
        for i, (family, path) in enumerate(series):
            c = colours[i % len(colours)]
            parts.append(f"'{path}' using 1:{col_dmalint} with linespoints lw 2 pt 7 lc rgb '{c}' "
                         f"title '{family}: dmalint'")
            parts.append(f"'{path}' using 1:{col_clang} with linespoints dt 2 pt 6 lc rgb '{c}' "
                         f"title '{family}: -fsyntax-only'")
        return ", ".join(parts)

    def added():
        parts = [f"'{path}' using 1:6 with linespoints lw 2 pt 7 lc rgb '{colours[i % len(colours)]}' "
                 f"title '{family}'" for i, (family, path) in enumerate(series)]
        return ", ".join(parts)

    has_added = any(r["commands"].get("dmalint", {}).get("instructions") is not None
                    for fam in sc["families"].values() for r in fam["rows"])
    third = ("set logscale y 10\nset ylabel 'instructions dmalint adds to -fsyntax-only, "
             f"10^9 (callgrind)'\nplot {added()}") if has_added else ""
    meta = results.get("meta", {})
    script = f"""
set terminal pngcairo size {1800 if has_added else 1300},560 font ',10'
set output '{png}'
set datafile missing '?'
set multiplot layout 1,{3 if has_added else 2} title 'dmalint scaling ({meta.get('date', '')}, dmalint sha256 {meta.get('machine', {}).get('dmalint_sha256', '')}): medians of {meta.get('repeat', '?')} runs; missing points timed out'
set logscale xy
set grid
set key left top font ',8'
set xlabel 'n (descriptors, if/else blocks, loop nests, kernels)'
set ylabel 'wall time, s'
plot {plots(2, 3)}, {TARGET_SECONDS} with lines dt 3 lc rgb 'black' title '10 s target'
set ylabel 'peak memory, MB'
unset logscale y
set logscale y 2
plot {plots(4, 5)}
{third}
unset multiplot
"""
    r = subprocess.run(["gnuplot"], input=script, capture_output=True, text=True)
    if r.returncode:
        log("gnuplot failed:\n" + r.stderr)


def update_doc(results, directory):
    text = render(results)
    before_dir = os.path.join(directory, "before")
    same_run = render_same_run(results)
    if same_run:
        text += "\n" + same_run
    elif directory == RESULTS and os.path.isdir(before_dir):
        text += "\n" + render_before_after(results, load_results(before_dir))
    if not os.path.exists(DOC):
        log(f"{DOC} does not exist: not updated")
        return text
    with open(DOC) as f:
        doc = f.read()
    if BEGIN not in doc or END not in doc:
        log(f"{DOC} has no results markers: not updated")
        return text
    head, rest = doc.split(BEGIN, 1)
    _, tail = rest.split(END, 1)
    with open(DOC, "w") as f:
        f.write(head + BEGIN + "\n\n" + text.rstrip() + "\n\n" + END + tail)
    return text


def main():
    parser = argparse.ArgumentParser(
        description="dmalint's performance bench (see the top of bench/run.py)")
    parser.add_argument("--dmalint", help="dmalint binary to measure (default: build build-bench/)")
    parser.add_argument("--plugin", help="libdmalint-tidy.so to measure (default: build build-bench/)")
    parser.add_argument("--repeat", type=int, help="runs per command (default 5; 2 with --quick)")
    parser.add_argument("--timeout", type=float, default=60.0,
                        help="seconds before a run is killed and counted as a timeout (default 60)")
    parser.add_argument("--no-callgrind", action="store_true", help="no instruction counts")
    parser.add_argument("--callgrind-max", type=float, default=4.0,
                        help="on the peer and scaling inputs, count instructions only for "
                             "commands whose fastest run took at most this many seconds (default 4)")
    parser.add_argument("--quick", action="store_true",
                        help="smaller inputs, results in bench/results/quick/ (docs untouched)")
    parser.add_argument("--only", action="append", choices=SECTIONS,
                        help="run only this section (repeatable); the others' data is kept")
    parser.add_argument("--results", help="directory for the JSON data and the plot "
                        "(default bench/results, or bench/results/quick with --quick)")
    parser.add_argument("--report-only", action="store_true",
                        help="measure nothing: re-render the plot and docs/performance.md")
    parser.add_argument("--keep", action="store_true", help="keep the scratch directory")
    parser.add_argument("--before", help="a dmalint binary of an earlier commit to measure beside "
                        "this one (overhead and scaling), for the before/after table")
    parser.add_argument("--no-tidy", action="store_true",
                        help="overhead section without the clang-tidy commands (with --before: "
                             "only what a before/after comparison needs)")
    parser.add_argument("--before-label", help="what the --before binary is, for the report")
    parser.add_argument("--checks", help="the --checks of every dmalint command but the per-check "
                        "ones (with --before: compare the checks both builds have)")
    parser.add_argument("--label", help="what the measured binaries are, for the report "
                        "(default: build-bench/ at the current commit, or the given paths)")
    args = parser.parse_args()
    args.repeat = args.repeat or (2 if args.quick else 5)
    args.results = os.path.abspath(args.results or (os.path.join(RESULTS, "quick") if args.quick
                                                    else RESULTS))
    os.makedirs(args.results, exist_ok=True)
    scratch = tempfile.mkdtemp(prefix="dmalint-bench-")

    if not args.report_only:
        if bool(args.dmalint) != bool(args.plugin):
            sys.exit("bench: give both --dmalint and --plugin, or neither (then build-bench/ is built)")
        if args.dmalint:
            dmalint, plugin = args.dmalint, args.plugin
        else:
            dmalint, plugin = build()
            args.label = args.label or "build-bench/ (Release) at git " + subprocess.run(
                ["git", "-C", ROOT, "describe", "--always", "--dirty"],
                capture_output=True, text=True).stdout.strip()
        dmalint, plugin = os.path.abspath(dmalint), os.path.abspath(plugin)
        for path in (dmalint, plugin):
            if not os.path.exists(path):
                sys.exit(f"bench: {path} does not exist")
        for tool in ("clang++-19", "clang-tidy-19") + (() if args.no_callgrind else
                                                       ("valgrind", "callgrind_annotate")):
            if not shutil.which(tool):
                sys.exit(f"bench: {tool} is not installed")
        args.flags = ["-std=c++17", "-I" + os.path.join(ROOT, "include")]
        before = os.path.abspath(args.before) if args.before else None
        if before and not os.path.exists(before):
            sys.exit(f"bench: {before} does not exist")
        tools = Tools(dmalint, plugin, shutil.which("clang++-19"), shutil.which("clang-tidy-19"),
                      args.flags, before, args.checks)
        started = datetime.datetime.now()
        meta = {"run_id": started.strftime("%Y%m%dT%H%M%S"),
                "date": started.strftime("%Y-%m-%d %H:%M"),
                "command": shlex.join(["bench/run"] + sys.argv[1:]),
                "checks": args.checks,
                "repeat": args.repeat, "quick": args.quick, "callgrind": not args.no_callgrind,
                "binaries": args.label or f"{dmalint} and {plugin}",
                "before": (args.before_label or before) if before else None,
                "before_sha256": sha256(before) if before else None,
                "load_start": " ".join(f"{x:.2f}" for x in os.getloadavg()),
                "machine": machine(tools)}
        for section in (args.only or SECTIONS):
            t0 = time.perf_counter()
            data = globals()["section_" + section](args, tools, scratch)
            data["seconds"] = time.perf_counter() - t0
            data["run_id"] = meta["run_id"]
            with open(os.path.join(args.results, section + ".json"), "w") as f:
                json.dump(data, f, indent=1)
        meta["load_end"] = " ".join(f"{x:.2f}" for x in os.getloadavg())
        meta["sections"] = args.only or list(SECTIONS)
        with open(os.path.join(args.results, "meta.json"), "w") as f:
            json.dump(meta, f, indent=1)

    results = load_results(args.results)
    plot(results, args.results, os.path.join(scratch, "plot"))
    if args.results == RESULTS:
        text = update_doc(results, args.results)
    else:
        text = render(results)
        same_run = render_same_run(results)
        if same_run:
            text += "\n" + same_run
    print(text)
    if args.keep:
        log(f"scratch kept: {scratch}")
    else:
        shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    main()
