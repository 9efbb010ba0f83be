#!/usr/bin/env bash
# Sets up (packages + build) and runs every test: GoogleTest unit tests and the CTest
# end-to-end tests of the `tribench` command on whatever devices exist (PoCL on a CPU).
# Each test runs once, in the build that suits it: the tests whose time goes to NVRTC, to the
# Slurm daemons or to generating the largest datasets in an optimised build of their own
# (build-test/), every other test in the AddressSanitizer + UndefinedBehaviorSanitizer build
# (build-asan/, any report fails). Beside them, at the lowest priority, the fuzz gate: each
# libFuzzer target replays its committed corpus (every earlier finding included) and runs a
# fixed number of executions from a fixed seed.
# Nothing in it is random: it passes or fails on the code alone (docs/robustness.md).
# Open-ended fuzzing is a separate command: tests/fuzz/run.sh --explore SECONDS.
# Usage: scripts/test.sh [ctest args...]
#   TRIBENCH_QUICK=1         every test in the optimised build only (no sanitizers, no fuzzing)
#   TRIBENCH_FUZZ=0          skip the fuzz gate
#   TRIBENCH_FUZZ_RUNS=N     executions per fuzz target (default: per target, tests/fuzz/run.sh)
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=$(nproc)
start=$SECONDS

step() { printf '\n== %s (%s, %ds in)\n' "$1" "$(date +%T)" "$((SECONDS - start))"; }

# Tests whose time goes to NVRTC, to the Slurm daemons, to generating the largest datasets
# (the parity test's launch records) or to Oclgrind's simulation of kernels (nbody 34 s
# here and 170 under ASan; fft's wide passes 65 s under ASan; spmv and stencil 28 s, kmeans
# 27, each benchmark run once by --validate-only), not to host code the sanitizers would
# watch: under ASan they would double the gate's time on 2 cores. Likewise the kernel tests
# whose time goes to PoCL's compiler, LLVM in the test's own process, where ASan's allocator
# doubles it when PoCL's kernel cache is empty, as on a CI machine: fft's and nbody's kernels
# in every tuning and geometry, and the sub-group shims on every device (250 s of a cold
# ASan stage's 680 s of test time on 2026-12-07).
release_only='EverySource|slurm\.|e2e\.ptxdiff_all_programs|AreTheSameForBothDialects|oclgrind\.'
release_only+='|FftTuningOnOpenCL|FftOnOpenCL\.(SmallDatasets|MultiPassAxes|Strided|TheWidePass)|NbodyOnOpenCL\.(EveryGeometryMatches|FastMath)'
release_only+='|SubGroups\.OnEveryOpenClDevice'

if [[ "${TRIBENCH_QUICK:-0}" == 1 ]]; then
  step "build and test (build)"
  scripts/setup.sh
  ctest --test-dir build --output-on-failure -j "$jobs" "$@"
  exit 0
fi

step "build and test: the optimised build's tests (build-test)"
scripts/setup.sh --no-build

# Jobs run beside the stages, each in a process group of its own so that a failing step,
# which ends the script, ends them too (the Slurm test's script then stops its daemons).
# Their output is printed when they are waited for.
# --low: at the lowest priority, taking only the cores the stages leave idle (configuring,
# linking, the last test of a ctest run, the Slurm test's waits). A session of its own is an
# autogroup of its own where the kernel groups sessions (Linux's sched_autogroup), and the
# scheduler shares the cores between autogroups by the group's nice value, not by its
# processes': so the group is lowered too, or the job takes half of the cores whatever its
# processes' nice (the optimised build took 156 s beside the fuzz gate against 116 alone).
declare -A beside_pid beside_log
start_beside() {  # NAME [--low] COMMAND...
  local name=$1
  shift
  local wrap=()
  if [[ $1 == --low ]]; then
    shift
    wrap=(bash -c 'if [[ -w /proc/self/autogroup ]]; then echo 19 >/proc/self/autogroup; fi; exec nice -n 19 "$@"' low)
  fi
  beside_log[$name]=$(mktemp)
  setsid "${wrap[@]}" "$@" >"${beside_log[$name]}" 2>&1 &
  beside_pid[$name]=$!
}
wait_beside() {  # NAME: its output, then its exit status
  local rc=0
  wait "${beside_pid[$1]}" || rc=$?
  cat "${beside_log[$1]}"
  rm -f "${beside_log[$1]}"
  unset "beside_pid[$1]" "beside_log[$1]"
  return "$rc"
}
stop_beside() {
  local rc=$? name
  for name in "${!beside_pid[@]}"; do kill -TERM -- -"${beside_pid[$name]}" 2>/dev/null || true; done
  for name in "${!beside_pid[@]}"; do wait "${beside_pid[$name]}" 2>/dev/null || true; rm -f "${beside_log[$name]}"; done
  exit "$rc"
}
trap stop_beside EXIT

# The fuzz gate (its own clang build, build-fuzz/, then four targets from a fixed seed, about
# 3 CPU minutes) beside everything from the start, at the lowest priority: what is left of
# it after the stages then runs alone. Its runs are fixed executions, not times, so its
# result is the same at any priority.
if [[ "${TRIBENCH_FUZZ:-1}" != 0 ]]; then
  start_beside fuzz --low tests/fuzz/run.sh
fi
# Not build/ (the main job's GCC build): clang with precompiled headers builds these targets
# in 116 s on 2 cores where GCC takes 170 (139 at -O1), and the gate has to fit 10 minutes.
# CI thus compiles with clang only (14 on Debian 12); the device runs build with GCC 13
# (scripts/gpu_suite.sh) and the README's main command with the machine's GCC.
if [[ -f build-test/CMakeCache.txt ]] && ! grep -q '^CMAKE_CXX_COMPILER:.*clang' build-test/CMakeCache.txt; then
  rm -rf build-test/CMakeCache.txt build-test/CMakeFiles
fi
# Unity batches and lld as in the ASan preset (cmake/UnityBuild.cmake): a quarter less time.
# At -O1, not -O3: nothing here is timed, and these tests' time goes to PoCL, Oclgrind and
# NVRTC, not to tribench's code (the parity test's launch records, whose time is generating
# datasets, took 16.8 CPU seconds against 16.1); the build took 116 s against 135
# (2026-12-07).
cmake -S . -B build-test -G Ninja -DCMAKE_BUILD_TYPE=Release "-DCMAKE_CXX_FLAGS_RELEASE=-O1 -DNDEBUG" \
  -DCMAKE_CXX_COMPILER=clang++ -DTRIBENCH_PCH=ON -DTRIBENCH_UNITY=ON -DCMAKE_EXE_LINKER_FLAGS=-fuse-ld=lld >/dev/null
# Only what those tests run: tribench and the test programs they are in (the others are
# built and run under the sanitizers below; `cmake --build build-test` builds them here too),
# in one build so that the test programs compile while tribench links.
targets=(tribench)
known=$(ninja -C build-test -t targets all)
for t in test_nvrtc_compile test_dialect_parity test_nbody test_fft test_subgroups test_kmeans; do  # the first exists with CUDA's toolkit only
  if grep -q "^$t:" <<<"$known"; then targets+=("$t"); fi
done
cmake --build build-test --target "${targets[@]}"
# PoCL's kernel cache (~/.cache/pocl), empty on a fresh CI machine, filled for the ASan
# stage: every small benchmark's kernels compiled once here, where PoCL's LLVM runs at full
# speed, rather than first in a test under ASan, whose allocator doubles its compile time
# (the ASan stage's tests took 207 s after it, 241 without; 2026-12-07). Beside this
# stage's tests at their priority, so that it is done before the next stage starts. It is
# no test: a failure here is only reported, and the tests below find what it was.
start_beside pocl_cache bash -c 'build-test/tribench run --validate-only --small -b opencl >/dev/null 2>&1 ||
                                 echo "pre-compiling the small benchmarks on PoCL failed: the tests say why"'
# slurm.array (~130 s) mostly waits on Slurm's time limits: it runs beside the rest of the
# gate, this stage's tests and the ASan stage, rather than holding one of ctest's slots, and
# its output comes after theirs (with ctest arguments, which may select tests of their own,
# it runs among the others as before).
beside='^$'  # excludes nothing
if (($# == 0)); then
  start_beside slurm ctest --test-dir build-test --output-on-failure -R 'slurm\.'
  beside='slurm\.'
fi
ctest --test-dir build-test --output-on-failure -j "$jobs" -R "$release_only" -E "$beside" "$@"

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
wait_beside pocl_cache
ctest --preset asan -j "$jobs" -E "$release_only" "$@"

if [[ -n ${beside_pid[slurm]:-} ]]; then
  step "the Slurm test, run beside the stages above (build-test)"
  wait_beside slurm
fi
if [[ -n ${beside_pid[fuzz]:-} ]]; then
  step "fuzz gate, run beside the stages above: committed corpora, then fixed runs from a fixed seed (build-fuzz)"
  wait_beside fuzz
fi
trap - EXIT
step "all tests passed"
