#!/usr/bin/env bash
# The whole test suite again, with dmalint and the plugin built under
# AddressSanitizer and UndefinedBehaviorSanitizer (build-sanitize/). Run after
# scripts/test.sh, which installs most of what is needed.
#
# Built with Clang: under the sanitizers it compiles in about 55% of g++'s
# time (docs/robustness.md, "CI time"). The same build holds the libFuzzer
# targets (DMALINT_FUZZ=ON), which scripts/test-fuzz.sh runs when
# FUZZ_USE_BUILD names this directory (as .ci/run does).
set -euo pipefail
cd "$(dirname "$0")/.."
major="${DMALINT_LLVM_MAJOR:-19}"
build_dir="${SANITIZE_BUILD_DIR:-build-sanitize}"
source scripts/install-missing.sh
install_missing test-sanitized "clang-$major" "libclang-rt-$major-dev"
# -O1 and line tables only: what the sanitizers' reports need (stack traces
# with lines), at a fraction of the compile time of -O2 -g. A unity build
# (a few sources per compiler run): nobody edits in this directory, and it
# parses and instantiates the shared templates once per batch instead of
# once per file (dmalint and the plugin: 38% less compiler time,
# docs/robustness.md "CI time").
cmake -S . -B "$build_dir" -G Ninja -DDMALINT_LLVM_MAJOR="$major" \
      -DCMAKE_CXX_COMPILER="clang++-$major" -DDMALINT_SANITIZE=ON -DDMALINT_FUZZ=ON \
      -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -gline-tables-only" \
      -DCMAKE_UNITY_BUILD=ON
cmake --build "$build_dir"
# Not under the sanitizers: the language server's per-fixture agreement with
# the standalone (lsp/...: the same analysis as fixtures/..., which do run
# here, through one more front end whose own code the lsp.* session tests
# cover) and the fixture harness's self-test (Python judging canned output).
# They run in the plain suite; here they would double CI's time.
ctest --test-dir "$build_dir" --output-on-failure -j "$(nproc)" -E '^(lsp/|harness\.selftest$)'
