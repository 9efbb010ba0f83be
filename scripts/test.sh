#!/usr/bin/env bash
# Sets up (packages + build) and runs every test: GoogleTest unit tests and the CTest
# end-to-end tests of the `tribench` command on whatever devices exist (PoCL on a CPU);
# then the same tests built with AddressSanitizer + UndefinedBehaviorSanitizer (any report
# fails), then each libFuzzer target for a bounded time (docs/robustness.md).
# Usage: scripts/test.sh [ctest args...]
#   TRIBENCH_QUICK=1          only the first step (no sanitizer build, no fuzzing)
#   TRIBENCH_FUZZ_SECONDS=N   fuzz each target N seconds (default 30; 0 skips fuzzing)
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=$(nproc)

step() { printf '\n== %s (%s)\n' "$1" "$(date +%T)"; }

step "build and test"
scripts/setup.sh
ctest --test-dir build --output-on-failure -j "$jobs" "$@"
[[ "${TRIBENCH_QUICK:-0}" == 1 ]] && exit 0

step "ASan + UBSan build and test (build-asan)"
cmake --preset asan >/dev/null
cmake --build --preset asan -j "$jobs"
ctest --preset asan -j "$jobs" "$@"

seconds=${TRIBENCH_FUZZ_SECONDS:-30}
if ((seconds > 0)); then
  step "fuzzing, ${seconds}s per target (build-fuzz)"
  tests/fuzz/run.sh "$seconds"
fi
step "all tests passed"
