#!/usr/bin/env python3
"""The fix-it differential: programs of the fuzz grammar, every fixture and
every corpus kernel, each through `dmalint --fix`.

For each input that compiles, on a private copy:
  1. dmalint reports its findings (SARIF), then applies its fixes (--fix);
  2. the fixed file still compiles (clang++ -fsyntax-only);
  3. a second `dmalint --fix` changes nothing (fixes are idempotent);
  4. dmalint on the fixed file reports no finding that carried a fix, and no
     finding that was not there before: after the fix, the findings (check
     and message, locations aside) are those without a fix, at most.

  run_differential.py --dmalint D --clang C --include I --programs P [--count N] INPUT...
  run_differential.py ... --dump OUT      only write every input's findings to OUT
                                          (to compare what two builds find)

INPUT: .cc files or directories of them. --programs runs the snippet-programs
generator (fuzz/SnippetPrograms.cpp) for N programs from a fixed seed.
Exit status: 0 when every input keeps every rule, 1 otherwise.
"""

import argparse
import collections
import concurrent.futures
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

STD = '-std=c++17'
CHECKS_HEADER_RE = re.compile(r'^[ \t]*//[ \t]*CHECKS:[ \t]*(.*?)[ \t]*$', re.M)
FLAGS_HEADER_RE = re.compile(r'^[ \t]*//[ \t]*FLAGS:[ \t]*(.*?)[ \t]*$', re.M)
CONFIG_HEADER_RE = re.compile(r'^[ \t]*//[ \t]*CONFIG:[ \t]*(.*?)[ \t]*$', re.M)
TIMEOUT = 300


def inputs_of(paths):
    for path in paths:
        if os.path.isdir(path):
            for name in sorted(os.listdir(path)):
                if name.endswith('.cc'):
                    yield os.path.join(path, name)
        else:
            yield path


class Input:
    """One source file and what its headers ask for (fixtures and corpus
    kernels name their checks, flags and configuration; programs use all
    checks with the built-in model)."""

    def __init__(self, path):
        self.path = os.path.abspath(path)
        with open(self.path, 'rb') as f:
            self.raw = f.read()
        text = self.raw.decode('utf-8', 'replace')
        checks = CHECKS_HEADER_RE.findall(text)
        self.checks = ','.join(checks) if checks else '-*,dma-*'
        self.flags = ' '.join(FLAGS_HEADER_RE.findall(text)).split()
        configs = CONFIG_HEADER_RE.findall(text)
        self.config = os.path.join(os.path.dirname(self.path), configs[0]) if configs else None


def run(cmd, cwd=None):
    return subprocess.run(cmd, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          timeout=TIMEOUT)


class Runner:
    def __init__(self, args):
        self.args = args

    def flags(self, item):
        return [STD, '-I' + self.args.include] + item.flags

    def dmalint(self, item, path, *extra):
        return run([self.args.dmalint, '--quiet', '--checks=' + item.checks, *extra, path,
                    '--'] + self.flags(item), cwd=os.path.dirname(path))

    def findings(self, item, path):
        """(exit status, [(check, message, has_fix)]) of one run, or None when
        the file does not compile."""
        result = self.dmalint(item, path, '--format=sarif')
        if result.returncode not in (0, 1):
            return None
        log = json.loads(result.stdout.decode('utf-8'))
        found = []
        for res in log['runs'][0].get('results', []):
            found.append((res.get('ruleId', ''), res['message']['text'], bool(res.get('fixes'))))
        return found

    def compiles(self, item, path):
        result = run([self.args.clang, '-fsyntax-only'] + self.flags(item) + [path])
        return result.returncode == 0, result.stderr.decode('utf-8', 'replace')

    def copy(self, item, workdir):
        path = os.path.join(workdir, os.path.basename(item.path))
        with open(path, 'wb') as f:
            f.write(item.raw)
        if item.config:
            shutil.copy(item.config, os.path.join(workdir, '.clang-tidy'))
        return path

    def check(self, item):
        """The rule violations of one input (empty: it keeps every rule)."""
        with tempfile.TemporaryDirectory(prefix='dmalint-diff-') as workdir:
            path = self.copy(item, workdir)
            before = self.findings(item, path)
            if before is None:
                return [], None  # Does not compile: nothing to judge.
            if not any(has_fix for _, _, has_fix in before):
                return [], before
            fixed = self.dmalint(item, path, '--fix')
            if fixed.returncode not in (0, 1):
                return ['--fix failed: ' + fixed.stderr.decode('utf-8', 'replace')], before
            with open(path, 'rb') as f:
                once = f.read()
            problems = []
            ok, errors = self.compiles(item, path)
            if not ok:
                problems.append('the fixed file does not compile:\n' + errors)
            again = self.dmalint(item, path, '--fix')
            with open(path, 'rb') as f:
                twice = f.read()
            if again.returncode not in (0, 1) or twice != once:
                problems.append('a second --fix changed the file again')
            after = self.findings(item, path) if ok else []
            if after is None:
                after = []
            unfixed = collections.Counter((c, m) for c, m, has_fix in before if not has_fix)
            remaining = collections.Counter((c, m) for c, m, _ in after)
            for (check, message), n in (remaining - unfixed).items():
                problems.append('after --fix, %d x [%s] %s (fixed, or new)' % (n, check, message))
            return problems, before


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--dmalint', required=True)
    parser.add_argument('--clang', required=True)
    parser.add_argument('--include', required=True)
    parser.add_argument('--programs', help='the snippet-programs generator')
    parser.add_argument('--count', type=int, default=200)
    parser.add_argument('--seed', type=int, default=20261201)
    parser.add_argument('--dump', help='write the findings of every input to this file')
    parser.add_argument('-j', '--jobs', type=int, default=os.cpu_count() or 1)
    parser.add_argument('inputs', nargs='*')
    args = parser.parse_args()
    for tool in ('dmalint', 'programs', 'include'):
        if getattr(args, tool) and os.path.exists(getattr(args, tool)):
            setattr(args, tool, os.path.abspath(getattr(args, tool)))

    runner = Runner(args)
    with tempfile.TemporaryDirectory(prefix='dmalint-programs-') as programs:
        paths = list(inputs_of(args.inputs))
        if args.programs:
            result = run([args.programs, '--seed', str(args.seed), '--count', str(args.count),
                          '--out', programs])
            if result.returncode != 0:
                sys.exit('snippet-programs failed: ' + result.stderr.decode())
            paths += list(inputs_of([programs]))
        failed = judged = fixed = 0
        dump = []

        def one(path):
            item = Input(path)
            if args.dump:
                with tempfile.TemporaryDirectory(prefix='dmalint-diff-') as workdir:
                    return item, runner.findings(item, runner.copy(item, workdir)), None
            problems, before = runner.check(item)
            return item, before, problems

        with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
            results = list(pool.map(one, paths))
        for path, (item, found, problems) in zip(paths, results):
            name = os.path.relpath(path, programs) if path.startswith(programs) else path
            if args.dump:
                dump.append('== %s: %s' % (name, 'does not compile' if found is None else
                                               '%d findings' % len(found)))
                dump += ['  [%s] %s%s' % (c, m, ' (fix)' if f else '') for c, m, f in found or []]
                continue
            if found is not None:
                judged += 1
                fixed += any(f for _, _, f in found)
            if problems:
                failed += 1
                print('FAIL %s' % name)
                for problem in problems:
                    print('  ' + problem.rstrip().replace('\n', '\n  '))
        if args.dump:
            with open(args.dump, 'w') as f:
                f.write('\n'.join(dump) + '\n')
            print('wrote the findings of %d inputs to %s' % (len(paths), args.dump))
            return 0
        print('%d inputs compiled, %d had fixes, %d broke a rule' % (judged, fixed, failed))
        return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
