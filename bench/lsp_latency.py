#!/usr/bin/env python3
"""The language server's latency: from `didChange` to the `publishDiagnostics`
of that version, against a fresh standalone run on the same file, measured in
one run on one machine.

  python3 bench/lsp_latency.py [--dmalint build/bin/dmalint] [--repeat 10] [--out bench/results/lsp.json]

Inputs: a corpus kernel (test/corpus/collective_matmul.bug-helper-local.cc)
and the large realistic translation unit of bench/generate.py (heavy standard
headers, 10 copies of every clean corpus kernel). For each:

- fresh: `dmalint --quiet FILE -- FLAGS`, a new process per run (what an
  editor plug-in that runs the linter on save pays);
- server, preamble: `dmalint --lsp`, the file opened once, then edits in the
  body (a comment line added and removed, alternately); each sample is one
  didChange -> publishDiagnostics, debounce (the default, 50 ms) included;
- server, no preamble: the same with `--preamble=false` (every analysis
  parses the headers again): what reusing the parsed headers buys;
- server, #include edited: edits of the preamble itself (a comment above the
  #include lines): the server parses the whole file at once and builds the
  new preamble afterwards on its second thread (its CPU time is counted with
  the edit's, and the next measurement waits for it).

CPU time (user + system: the fresh process's, the server's during the edit)
is reported beside each, being less sensitive to a loaded machine than wall
time, and so is the server's own figure (its log's "analysed ... in S s":
the analysis without debounce or transport). Wall times: medians
with min..max, the configurations interleaved per repetition so that load on
the (shared) machine hits all alike. The first analysis after opening (which
builds the preamble) is reported separately.
"""
import argparse
import json
import os
import platform
import re
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "bench"))
sys.path.insert(0, os.path.join(ROOT, "test", "lsp"))
import generate  # noqa: E402
from lsp_client import LspClient  # noqa: E402

ANALYSED = re.compile(r"analysed \S+ version (\d+) in ([0-9.]+) s \(([^;]+);")


def summary(values):
    return {"median": statistics.median(values), "min": min(values), "max": max(values),
            "n": len(values)}


def fresh_run(dmalint, path, flags):
    """(wall seconds, CPU seconds) of one standalone run."""
    start = time.perf_counter()
    proc = subprocess.Popen([dmalint, "--quiet", path, "--", *flags], cwd=os.path.dirname(path),
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, _, usage = os.wait4(proc.pid, 0)
    return time.perf_counter() - start, usage.ru_utime + usage.ru_stime


def cpu_seconds(pid):
    """User + system CPU time of a running process so far (Linux)."""
    with open("/proc/%d/stat" % pid) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


class Session:
    """One server with one open document, edited in its body or its preamble."""

    def __init__(self, dmalint, path, flags, preamble, where):
        self.client = LspClient([dmalint, "--lsp", "--preamble=%s" % str(preamble).lower(),
                                 "--", *flags], cwd=os.path.dirname(path))
        self.client.initialize({"general": {"positionEncodings": ["utf-8"]}})
        with open(path) as f:
            self.text = f.read()
        self.lines = self.text.count("\n")
        self.where = where
        start = time.perf_counter()
        self.uri = self.client.open(path, self.text)
        self.count = len(self.client.diagnostics(self.uri, 1))
        self.open_seconds = time.perf_counter() - start
        if preamble:
            self.client.notification("window/logMessage",
                                     lambda p: p["message"].startswith("built the preamble of"))
        self.version = 1
        self.inserted = False

    def edit(self):
        """One edit; returns (latency, the server's CPU time for it, the
        server's own analysis time, preamble outcome)."""
        line = 0 if self.where == "preamble" else self.lines
        self.version += 1
        if self.inserted:
            change = {"range": {"start": {"line": line, "character": 0},
                                "end": {"line": line + 1, "character": 0}}, "text": ""}
        else:
            change = {"range": {"start": {"line": line, "character": 0},
                                "end": {"line": line, "character": 0}},
                      "text": "// edit %d\n" % self.version}
        self.inserted = not self.inserted
        used_before = cpu_seconds(self.client.proc.pid)
        start = time.perf_counter()
        self.client.change(self.uri, self.version, [change])
        found = len(self.client.diagnostics(self.uri, self.version))
        latency = time.perf_counter() - start
        cpu = cpu_seconds(self.client.proc.pid) - used_before
        assert found == self.count, "the findings changed with a comment: %d, then %d" % (
            self.count, found)
        log = self.client.notification(
            "window/logMessage",
            lambda p: bool(ANALYSED.search(p["message"])) and
            ANALYSED.search(p["message"]).group(1) == str(self.version))
        m = ANALYSED.search(log["message"])
        if m.group(3) == "whole file parsed":
            # The preamble is built on the server's second thread after such
            # an analysis: let it finish before anything else is measured.
            self.client.notification("window/logMessage",
                                     lambda p: p["message"].startswith("built the preamble of"))
            cpu = cpu_seconds(self.client.proc.pid) - used_before  # The build included.
        return latency, cpu, float(m.group(2)), m.group(3)

    def close(self):
        self.client.shutdown_and_exit()
        self.client.kill()


def measure(dmalint, name, path, flags, repeat):
    print("%s: %d lines" % (name, open(path).read().count("\n")), file=sys.stderr, flush=True)
    configs = {"server, preamble": (True, "body"), "server, no preamble": (False, "body"),
               "server, #include edited": (True, "preamble")}
    sessions = {c: Session(dmalint, path, flags, *v) for c, v in configs.items()}
    samples = {c: [] for c in ["fresh standalone run", *configs]}
    cpu = {c: [] for c in samples}
    analysis = {c: [] for c in configs}
    outcomes = {c: set() for c in configs}
    fresh_run(dmalint, path, flags)  # Warm the file cache.
    for _ in range(repeat):
        wall, used = fresh_run(dmalint, path, flags)
        samples["fresh standalone run"].append(wall)
        cpu["fresh standalone run"].append(used)
        for c, s in sessions.items():
            latency, used, seconds, outcome = s.edit()
            samples[c].append(latency)
            cpu[c].append(used)
            analysis[c].append(seconds)
            outcomes[c].add(outcome)
    result = {"input": name, "lines": open(path).read().count("\n"),
              "findings": sessions["server, preamble"].count, "configs": {}}
    for c, values in samples.items():
        entry = {"latency": summary(values), "cpu": summary(cpu[c])}
        if c in sessions:
            entry["analysis"] = summary(analysis[c])
            entry["preamble"] = sorted(outcomes[c])
            entry["first_analysis_after_open"] = sessions[c].open_seconds
        result["configs"][c] = entry
    for s in sessions.values():
        s.close()
    return result


def table(results):
    lines = ["| input | configuration | didChange -> publish, median (min..max) s | "
             "vs fresh run | CPU s, median | vs fresh run | analysis in the server, median s |",
             "|---|---|---|---|---|---|---|"]
    for r in results:
        fresh = r["configs"]["fresh standalone run"]
        for c, e in r["configs"].items():
            t = e["latency"]
            a = "%.3f" % e["analysis"]["median"] if "analysis" in e else "-"
            lines.append("| %s (%d lines) | %s | %.3f (%.3f..%.3f) | %.2fx | %.3f | %.2fx | %s |" % (
                r["input"], r["lines"], c, t["median"], t["min"], t["max"],
                t["median"] / fresh["latency"]["median"], e["cpu"]["median"],
                e["cpu"]["median"] / fresh["cpu"]["median"], a))
    return "\n".join(lines)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--dmalint", default=os.path.join(ROOT, "build", "bin", "dmalint"))
    parser.add_argument("--repeat", type=int, default=10)
    parser.add_argument("--copies", type=int, default=10,
                        help="copies of the corpus in the realistic TU (bench/run uses 10)")
    parser.add_argument("--out", default=os.path.join(ROOT, "bench", "results", "lsp.json"))
    args = parser.parse_args()
    dmalint = os.path.abspath(args.dmalint)
    flags = ["-std=c++17", "-I" + os.path.join(ROOT, "include")]
    scratch = tempfile.mkdtemp(prefix="dmalint-lsp-bench-")
    kernel = os.path.join(scratch, "collective_matmul.bug-helper-local.cc")
    with open(os.path.join(ROOT, "test", "corpus", os.path.basename(kernel))) as f:
        text = f.read()
    with open(kernel, "w") as f:
        f.write(text)
    realistic = os.path.join(scratch, "realistic.cc")
    with open(realistic, "w") as f:
        f.write(generate.realistic(args.copies))
    results = [measure(dmalint, "corpus kernel", kernel, flags, args.repeat),
               measure(dmalint, "realistic TU", realistic, flags, max(3, args.repeat // 2))]
    version = subprocess.run([dmalint, "--version"], capture_output=True, text=True).stdout
    data = {"date": time.strftime("%Y-%m-%d"), "machine": {
                "cpus": os.cpu_count(), "platform": platform.platform(),
                "dmalint": version.strip().splitlines()},
            "command": " ".join(["python3", "bench/lsp_latency.py"] + sys.argv[1:]),
            "debounce_ms": 50, "results": results}
    os.makedirs(os.path.dirname(args.out), exist_ok=True)
    with open(args.out, "w") as f:
        json.dump(data, f, indent=1)
    print(table(results))
    print("\nwritten to %s" % args.out, file=sys.stderr)


if __name__ == "__main__":
    main()
