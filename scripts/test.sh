#!/usr/bin/env bash
# Builds (installing what is missing) and runs the whole test suite: unit
# tests, every fixture and corpus kernel through both front ends, harness
# self-tests.
set -euo pipefail
cd "$(dirname "$0")/.."
# The real pre-commit for the hook test, jsonschema for the SARIF schema test,
# yaml to read the shipped GitHub workflow, git for the repositories the
# baseline and pull-request tests make, the libraries of the real-world
# corpus test (test/robustness/run_corpus.py), Neovim and clangd, Emacs and
# eglot for the editor tests (test/lsp/test_neovim.py, test_eglot.py).
DMALINT_EXTRA_PACKAGES="pre-commit python3-jsonschema python3-yaml git libboost-dev libeigen3-dev nlohmann-json3-dev libfmt-dev neovim clangd-${DMALINT_LLVM_MAJOR:-19} emacs-nox elpa-eglot" scripts/setup.sh
# Installed above: the editor tests must run, not skip.
export DMALINT_REQUIRE_NEOVIM=1 DMALINT_REQUIRE_EGLOT=1
ctest --test-dir "${BUILD_DIR:-build}" --output-on-failure -j "$(nproc)"
