#!/usr/bin/env python3
"""Regenerates the committed seed corpora under fuzz/corpus/ (docs/fuzzing.md).

fuzz-config: the malformed configurations of test/config/, the second API's
model (test/api2/acme.clang-tidy), any .clang-tidy under examples/, and every
YAML block of the docs that sets dma.* options.

fuzz-snippet: `fuzz-snippet --emit-seeds`, which picks random inputs that
between them use every production of the grammar (and every mode and API-model
variant) and compile, plus two that splice raw bytes in.

    fuzz/make_seeds.py --fuzz-snippet build-fuzz/bin/fuzz-snippet
"""
import argparse
import pathlib
import re
import shutil
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent


def config_seeds(out):
    out.mkdir(parents=True, exist_ok=True)
    for old in out.iterdir():
        old.unlink()
    sources = sorted((ROOT / "test" / "config").glob("*.clang-tidy"))
    sources.append(ROOT / "test" / "api2" / "acme.clang-tidy")
    sources += sorted((ROOT / "examples").rglob(".clang-tidy"))
    for src in sources:
        name = src.relative_to(ROOT).as_posix().replace("/", "_").lstrip("._")
        shutil.copyfile(src, out / name)
    docs = sorted((ROOT / "docs").rglob("*.md"))
    for doc in docs:
        blocks = re.findall(r"```ya?ml\n(.*?)```", doc.read_text(), re.S)
        for i, block in enumerate(blocks):
            if "dma." in block:
                name = f"{doc.relative_to(ROOT).as_posix().replace('/', '_')}-{i}.clang-tidy"
                (out / name).write_text(block)
    return len(list(out.iterdir()))


def snippet_seeds(binary, out, count):
    out.mkdir(parents=True, exist_ok=True)
    for old in out.iterdir():
        old.unlink()
    subprocess.run([binary, f"--emit-seeds={out},{count}"], check=True)
    return len(list(out.iterdir()))


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--fuzz-snippet", help="the fuzz-snippet binary (else its seeds are kept)")
    parser.add_argument("--count", type=int, default=40, help="at most this many snippet seeds")
    args = parser.parse_args()
    corpus = ROOT / "fuzz" / "corpus"
    print(f"fuzz-config: {config_seeds(corpus / 'fuzz-config')} seeds")
    if args.fuzz_snippet:
        print(f"fuzz-snippet: {snippet_seeds(args.fuzz_snippet, corpus / 'fuzz-snippet', args.count)} seeds")
    return 0


if __name__ == "__main__":
    sys.exit(main())
