#!/usr/bin/env bash
# A short libFuzzer run of each fuzz target (docs/fuzzing.md): builds
# fuzz-snippet and fuzz-config with clang++ under ASan and UBSan into
# build-fuzz/ (only those two targets), then runs each for FUZZ_SECONDS
# (default 20) on a copy of its seed corpus, so the repository is not
# modified. Fails on any crash, timeout, leak or sanitizer report; the input
# that caused it is kept under build-fuzz/fuzz-artifacts/.
#
#   FUZZ_SECONDS=600 scripts/test-fuzz.sh      # longer
#   FUZZ_USE_BUILD=build-sanitize scripts/test-fuzz.sh
#                                              # the targets of a build already
#                                              # configured with DMALINT_FUZZ=ON
#                                              # (scripts/test-sanitized.sh's)
set -euo pipefail
cd "$(dirname "$0")/.."
major="${DMALINT_LLVM_MAJOR:-19}"
build_dir="${FUZZ_BUILD_DIR:-build-fuzz}"
seconds="${FUZZ_SECONDS:-20}"

# libFuzzer's runtime (and the sanitizers') for clang-N; the rest is what
# scripts/setup.sh installs.
packages=(cmake ninja-build "clang-$major" "libclang-rt-$major-dev" "libclang-$major-dev"
          "llvm-$major-dev" "libclang-cpp$major-dev")
source scripts/install-missing.sh
install_missing test-fuzz "${packages[@]}"

start=$(date +%s)
if [ -n "${FUZZ_USE_BUILD:-}" ]; then
  build_dir="$FUZZ_USE_BUILD"
  if ! grep -qx 'DMALINT_FUZZ:BOOL=ON' "$build_dir/CMakeCache.txt" 2>/dev/null; then
    echo "test-fuzz: FUZZ_USE_BUILD=$build_dir is not a build configured with DMALINT_FUZZ=ON" >&2
    exit 2
  fi
else
  # -O1 and line tables only: the build is most of this script's time.
  cmake -S . -B "$build_dir" -G Ninja -DDMALINT_LLVM_MAJOR="$major" \
        -DCMAKE_CXX_COMPILER="clang++-$major" -DDMALINT_FUZZ=ON -DDMALINT_BUILD_TESTS=OFF \
        -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -gline-tables-only" \
        >/dev/null
fi
cmake --build "$build_dir" --target fuzz-snippet fuzz-config
built=$(date +%s)
echo "test-fuzz: built in $((built - start)) s"

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
artifacts="$build_dir/fuzz-artifacts"
status=0
for target in fuzz-snippet fuzz-config; do
  mkdir -p "$work/$target/corpus" "$work/$target/artifacts"
  cp fuzz/corpus/$target/* "$work/$target/corpus/"
  log="$work/$target/log"
  if "$build_dir/bin/$target" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=4096 \
       -print_final_stats=1 -artifact_prefix="$work/$target/artifacts/" \
       "$work/$target/corpus" >"$log" 2>&1; then
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
    cov=$(grep -o 'cov: [0-9]*' "$log" | tail -1)
    echo "test-fuzz: $target: no crash in ${seconds} s ($runs inputs, $cov, $(ls "$work/$target/corpus" | wc -l) in corpus)"
  else
    status=1
    mkdir -p "$artifacts"
    cp "$work/$target/artifacts/"* "$artifacts/" 2>/dev/null || true
    echo "test-fuzz: $target FAILED; its log ends:"
    tail -n 60 "$log"
    echo "test-fuzz: inputs kept in $artifacts/:"
    ls "$artifacts"
    if [ "$target" = fuzz-snippet ]; then
      echo "test-fuzz: the code they decode to: $build_dir/bin/fuzz-snippet --print $artifacts/<file>"
    fi
  fi
done
echo "test-fuzz: ran in $(($(date +%s) - built)) s"
exit "$status"
