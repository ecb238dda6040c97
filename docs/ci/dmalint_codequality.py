#!/usr/bin/env python3
"""Turn dmalint's diagnostics (its default text output) into a GitLab Code
Quality report.

    dmalint -p build > dmalint.txt; python3 dmalint_codequality.py dmalint.txt > gl-code-quality.json

Reads the file named on the command line, or standard input. Each finding line
(`path:line:col: warning: message [check]`) becomes one entry with the fields
GitLab requires: description, check_name, fingerprint, severity,
location.path, location.lines.begin. Notes, source lines and carets are
skipped, and so are compiler errors, which carry no check name (dmalint exits
with status 2 for those; fail the job on that status). Paths are made relative
to the working directory: run it from the repository root, where dmalint ran.

The fingerprint does not include the line number, so a finding keeps its
identity when code above it moves; identical findings in one file are told
apart by their order. Severity: warning -> major, error (WarningsAsErrors)
-> critical, remark -> info.
"""
import hashlib
import json
import os
import re
import sys

FINDING = re.compile(r"^(?P<path>.+?):(?P<line>\d+):(?P<col>\d+): "
                     r"(?P<level>warning|error|remark): (?P<message>.*) "
                     r"\[(?P<check>[^\]\s]+)\]$")
SEVERITY = {"warning": "major", "error": "critical", "remark": "info"}
ANSI = re.compile(r"\x1b\[[0-9;]*m")


def relative(path):
    if os.path.isabs(path):
        rel = os.path.relpath(path)
        if not rel.startswith(".." + os.sep):
            return rel
    return os.path.normpath(path)


def convert(lines):
    report, seen = [], {}
    for raw in lines:
        m = FINDING.match(ANSI.sub("", raw.rstrip("\n")))
        if not m:
            continue
        check = m["check"].split(",")[0]  # "check,-warnings-as-errors"
        path = relative(m["path"])
        key = (path, check, m["message"])
        seen[key] = seen.get(key, 0) + 1
        fingerprint = hashlib.sha256("\0".join(
            [path, check, m["message"], str(seen[key])]).encode()).hexdigest()
        report.append({
            "description": m["message"],
            "check_name": check,
            "fingerprint": fingerprint,
            "severity": SEVERITY[m["level"]],
            "location": {"path": path, "lines": {"begin": int(m["line"])}},
        })
    return report


def main(argv):
    if len(argv) > 2:
        sys.stderr.write("usage: dmalint_codequality.py [DMALINT-OUTPUT]\n")
        return 2
    if len(argv) == 2:
        with open(argv[1], encoding="utf-8", errors="replace") as f:
            report = convert(f)
    else:
        report = convert(sys.stdin)
    json.dump(report, sys.stdout, indent=2)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
