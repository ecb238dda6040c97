#!/usr/bin/env bash
# Installs what dmalint needs on Debian 12 (only what is missing), then
# configures and builds it into build/. Idempotent and non-interactive.
#
#   DMALINT_LLVM_MAJOR=22 scripts/setup.sh   # build against LLVM 22 instead of 19
#   BUILD_DIR=out scripts/setup.sh           # another build directory
#   CXX=g++ scripts/setup.sh                 # another compiler (default: the
#                                            # clang++ of that LLVM: it compiles
#                                            # tool/Run.cpp in 40 s, g++ in 55 s)
#   DMALINT_CMAKE_ARGS=-DCMAKE_UNITY_BUILD=ON scripts/setup.sh
#                                            # more CMake cache settings (.ci/run
#                                            # builds in batches: see
#                                            # docs/robustness.md, "CI time")
set -euo pipefail
cd "$(dirname "$0")/.."

major="${DMALINT_LLVM_MAJOR:-19}"
build_dir="${BUILD_DIR:-build}"
packages=(cmake ninja-build g++ python3 libgtest-dev
          "libclang-$major-dev" "llvm-$major-dev" "clang-tidy-$major" "clang-$major"
          "libclang-cpp$major-dev" "llvm-$major-tools")
# scripts/test.sh adds what only the tests need.
read -r -a extra <<< "${DMALINT_EXTRA_PACKAGES:-}"
packages+=("${extra[@]}")

source scripts/install-missing.sh
install_missing setup "${packages[@]}"

# More cache settings for this build, e.g. .ci/run's unity build.
read -r -a cmake_extra <<< "${DMALINT_CMAKE_ARGS:-}"
cmake -S . -B "$build_dir" -G Ninja -DDMALINT_LLVM_MAJOR="$major" -DCMAKE_BUILD_TYPE=Release \
      -DCMAKE_CXX_COMPILER="${CXX:-clang++-$major}" "${cmake_extra[@]}"
cmake --build "$build_dir"
# The bundled examples, with a compile_commands.json for `dmalint -p`.
cmake -S examples -B "$build_dir/examples" -G Ninja >/dev/null
echo "setup: built $build_dir/bin/dmalint and $build_dir/lib/libdmalint-tidy.so"
