#!/usr/bin/env bash
# Sets up (packages + build) and runs every test: GoogleTest unit tests and the CTest
# end-to-end tests of the `tribench` command on whatever devices exist (PoCL on a CPU);
# then the same tests built with AddressSanitizer + UndefinedBehaviorSanitizer (any report
# fails); then the fuzz gate: each libFuzzer target replays its committed corpus (every
# earlier finding included) and runs a fixed number of executions from a fixed seed.
# Nothing in it is random: it passes or fails on the code alone (docs/robustness.md).
# Open-ended fuzzing is a separate command: tests/fuzz/run.sh --explore SECONDS.
# Usage: scripts/test.sh [ctest args...]
#   TRIBENCH_QUICK=1         only the first step (no sanitizer build, no fuzzing)
#   TRIBENCH_FUZZ=0          skip the fuzz gate
#   TRIBENCH_FUZZ_RUNS=N     executions per fuzz target (default: per target, tests/fuzz/run.sh)
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=$(nproc)
start=$SECONDS

step() { printf '\n== %s (%s, %ds in)\n' "$1" "$(date +%T)" "$((SECONDS - start))"; }

step "build and test"
scripts/setup.sh
ctest --test-dir build --output-on-failure -j "$jobs" "$@"
[[ "${TRIBENCH_QUICK:-0}" == 1 ]] && exit 0

# The sanitizer build (CMakePresets.json "asan") is a clang build, not GCC's: at -O0 + ASan
# clang takes 35% less CPU time, and precompiled headers save as much again there (they do
# not with GCC at -O3). So the two passes also build with both compilers.
step "ASan + UBSan build and test (build-asan)"
# A build-asan/ made with GCC (before the preset named clang) would be re-made by CMake
# without the preset's other settings: start it afresh instead.
if [[ -f build-asan/CMakeCache.txt ]] && ! grep -q '^CMAKE_CXX_COMPILER:.*clang' build-asan/CMakeCache.txt; then
  rm -rf build-asan/CMakeCache.txt build-asan/CMakeFiles
fi
cmake --preset asan >/dev/null
cmake --build --preset asan -j "$jobs"
# Left out here, run in the release pass above: tests whose time goes to NVRTC, to the Slurm
# daemons or to generating the largest datasets (the parity test's launch records), not to
# host code the sanitizers would watch; they would double the gate's time on 2 cores.
asan_skip='EverySource|slurm\.|e2e\.ptxdiff_all_programs|AreTheSameForBothDialects'
ctest --preset asan -j "$jobs" -E "$asan_skip" "$@"

if [[ "${TRIBENCH_FUZZ:-1}" != 0 ]]; then
  step "fuzz gate: committed corpora, then fixed runs from a fixed seed (build-fuzz)"
  tests/fuzz/run.sh
fi
step "all tests passed"
