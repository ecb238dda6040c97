#!/usr/bin/env bash
# The whole test suite again, with dmalint and the plugin built under
# AddressSanitizer and UndefinedBehaviorSanitizer (build-sanitize/). Run after
# scripts/test.sh, which installs what is needed.
set -euo pipefail
cd "$(dirname "$0")/.."
build_dir="${SANITIZE_BUILD_DIR:-build-sanitize}"
cmake -S . -B "$build_dir" -G Ninja -DDMALINT_LLVM_MAJOR="${DMALINT_LLVM_MAJOR:-19}" \
      -DDMALINT_SANITIZE=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo
cmake --build "$build_dir"
ctest --test-dir "$build_dir" --output-on-failure -j "$(nproc)"
