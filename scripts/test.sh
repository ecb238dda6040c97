#!/usr/bin/env bash
# Builds (installing what is missing) and runs the whole test suite: unit
# tests, every fixture and corpus kernel through both front ends, harness
# self-tests.
set -euo pipefail
cd "$(dirname "$0")/.."
# The real pre-commit for the hook test, jsonschema for the SARIF schema test.
DMALINT_EXTRA_PACKAGES="pre-commit python3-jsonschema git" scripts/setup.sh
ctest --test-dir "${BUILD_DIR:-build}" --output-on-failure -j "$(nproc)"
