#!/usr/bin/env bash
# The whole test suite again, with dmalint and the plugin built under
# AddressSanitizer and UndefinedBehaviorSanitizer (build-sanitize/). Run after
# scripts/test.sh, which installs what is needed.
set -euo pipefail
cd "$(dirname "$0")/.."
build_dir="${SANITIZE_BUILD_DIR:-build-sanitize}"
# -O1 and line tables only: what the sanitizers' reports need (stack traces
# with lines), at three quarters of the compile time of -O2 -g.
cmake -S . -B "$build_dir" -G Ninja -DDMALINT_LLVM_MAJOR="${DMALINT_LLVM_MAJOR:-19}" \
      -DDMALINT_SANITIZE=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g1"
cmake --build "$build_dir"
# Not under the sanitizers: the language server's per-fixture agreement with
# the standalone (lsp/...: the same analysis as fixtures/..., which do run
# here, through one more front end whose own code the lsp.* session tests
# cover) and the fixture harness's self-test (Python judging canned output).
# They run in the plain suite; here they would double CI's time.
ctest --test-dir "$build_dir" --output-on-failure -j "$(nproc)" -E '^(lsp/|harness\.selftest$)'
