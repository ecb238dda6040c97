#!/usr/bin/env bash
# LLVM 22 parity: dmalint and the plugin built against LLVM 22 (build-22/),
# then every fixture through both front ends (clang-tidy-22 with the plugin)
# and the integration suites. Run after scripts/test.sh, which installs what
# the suites need besides LLVM 22.
#
# Only what those suites run is built and run: the two front ends, not the
# unit tests (the same sources, already run against LLVM 19). The corpus
# kernels, the harness self-test and the real-world corpus are left to the
# LLVM 19 run (they test the analysis and the harness, which the fixtures
# already exercise on 22 through both front ends), so that .ci/run stays
# well under its 35 minutes on 2 cores.
set -euo pipefail
cd "$(dirname "$0")/.."
build_dir="${LLVM22_BUILD_DIR:-build-22}"
packages=(libclang-22-dev llvm-22-dev clang-tidy-22 clang-22 libclang-cpp22-dev llvm-22-tools)
source scripts/install-missing.sh
install_missing test-llvm22 "${packages[@]}"

# -O1: this build only runs the tests, and compiles in three quarters of the
# time of -O3. A unity build, as the sanitized one (scripts/test-sanitized.sh).
cmake -S . -B "$build_dir" -G Ninja -DDMALINT_LLVM_MAJOR=22 -DCMAKE_BUILD_TYPE=Release \
      -DCMAKE_CXX_COMPILER=clang++-22 \
      -DCMAKE_CXX_FLAGS_RELEASE="-O1 -DNDEBUG" -DCMAKE_UNITY_BUILD=ON >/dev/null
cmake --build "$build_dir" --target dmalint dmalint-tidy
ctest --test-dir "$build_dir" --output-on-failure -j "$(nproc)" \
      -R '^(fixtures/|integration\.)'
