#!/usr/bin/env bash
# Builds the libFuzzer targets (cmake --preset fuzz: clang, ASan + UBSan) and runs them, in
# one of two modes (docs/robustness.md, "Fuzzing"):
#
#   tests/fuzz/run.sh [target...]                  the gate (scripts/test.sh runs this)
#       Replays every committed input of tests/fuzz/corpus/<target>/ (earlier findings
#       included), then runs a fixed number of executions from a fixed seed: the same inputs
#       on every machine and every run, so it passes or fails on the code alone. Nothing is
#       written outside BUILD; new inputs are not kept.
#       TRIBENCH_FUZZ_RUNS=N   executions per target (default: per target, ~12 s each on one
#                              core of the CI machine; 0 replays the corpus only)
#       TRIBENCH_FUZZ_SEED=S   the seed (default 1)
#
#   tests/fuzz/run.sh --explore SECONDS [target...]
#       Open-ended fuzzing for SECONDS per target from a random seed, growing BUILD/corpus/<target>/.
#       A finding is saved as BUILD/artifacts/<target>-crash-... and fails the script; make it
#       a regression input (tests/fuzz/corpus/<target>/regression_<what>) and a test, then fix it.
#
# BUILD is build-fuzz, or $TRIBENCH_FUZZ_BUILD. Targets run in parallel, $TRIBENCH_FUZZ_JOBS at
# a time (default: the number of cores); each prints one line: status, executions, coverage.
# Replay one input: BUILD/fuzz/fuzz_<target> FILE.
set -euo pipefail
cd "$(dirname "$0")/../.."

explore=0
seconds=0
if [[ "${1:-}" == --explore ]]; then
  explore=1
  seconds=${2:?"usage: tests/fuzz/run.sh --explore SECONDS [target...]"}
  shift 2
fi
targets=("$@")
((${#targets[@]})) || targets=(matrix_market results_load results_tree cl_translate)
declare -A dict=([matrix_market]=matrix_market.dict [results_load]=results.dict [cl_translate]=opencl.dict)
# Executions per target in the gate: about 12 s of one core each (ASan + UBSan; measured
# throughput in docs/robustness.md), so about 25 s for all four on a 2-core CI machine.
declare -A gate_runs=([matrix_market]=50000 [results_load]=30000 [results_tree]=12000 [cl_translate]=10000)
seed=${TRIBENCH_FUZZ_SEED:-1}

build=${TRIBENCH_FUZZ_BUILD:-build-fuzz}
cmake --preset fuzz -B "$build" >/dev/null
cmake --build "$build" --target "${targets[@]/#/fuzz_}"

# The gate runs the same inputs however it is started. The instrumented comparisons feed
# the values compared (addresses and descriptor numbers among them) into the mutations, so
# three things are fixed: address randomisation is off, the environment (whose size moves
# the stack) is fixed, passing only the sanitizers' settings, and inherited descriptors are
# closed (run_target). Measurements: docs/robustness.md, "The gate".
reproducible=()
if ((!explore)); then
  fixed_env=(env -i PATH=/usr/local/bin:/usr/bin:/bin LC_ALL=C)
  for v in ASAN_OPTIONS UBSAN_OPTIONS LSAN_OPTIONS ASAN_SYMBOLIZER_PATH; do
    if [[ -n "${!v:-}" ]]; then fixed_env+=("$v=${!v}"); fi
  done
  if setarch "$(uname -m)" -R true 2>/dev/null; then
    reproducible=("${fixed_env[@]}" setarch "$(uname -m)" -R)
  else
    reproducible=("${fixed_env[@]}")
    echo "fuzz: cannot turn address randomisation off (setarch -R): runs may differ in coverage" >&2
  fi
fi

mkdir -p "$build/artifacts" "$build/logs" "$build/seeds"
rm -f "$build"/logs/*.line
# Runs one target; its status line goes to $build/logs/<t>.line, its output to <t>.log.
run_target() {
  local t=$1 log=$build/logs/$1.log mode
  local args=(-timeout=60 -rss_limit_mb=2048 -print_final_stats=1 -artifact_prefix="$build/artifacts/$t-")
  if [[ -n "${dict[$t]:-}" ]]; then args+=(-dict="tests/fuzz/${dict[$t]}"); fi
  local dirs=()
  if ((explore)); then
    mkdir -p "$build/corpus/$t"
    args+=(-max_total_time="$seconds")
    dirs=("$build/corpus/$t" "tests/fuzz/corpus/$t")
    mode="${seconds}s, random seed"
  else
    # The committed inputs in one fixed order (a directory's listing order differs between
    # file systems), passed as seeds so that libFuzzer writes nothing back.
    local list=$build/seeds/$t.list runs=${TRIBENCH_FUZZ_RUNS:-${gate_runs[$t]}}
    find "tests/fuzz/corpus/$t" -type f -size +0 | LC_ALL=C sort | paste -sd, >"$list"
    args+=(-seed="$seed" -runs="$runs" -seed_inputs=@"$list")
    mode="$runs runs, seed $seed"
  fi
  local status=ok
  (
    if ((!explore)) && [[ -d /proc/$BASHPID/fd ]]; then
      for fd in /proc/$BASHPID/fd/*; do
        fd=${fd##*/}
        if ((fd > 2)); then eval "exec $fd>&-"; fi
      done
    fi
    exec "${reproducible[@]}" "$build/fuzz/fuzz_$t" "${args[@]}" "${dirs[@]}"
  ) >"$log" 2>&1 || status=FAILED
  local execs cov ft
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n1)
  cov=$(grep -o 'cov: [0-9]*' "$log" | tail -n1 || true)
  ft=$(grep -o 'ft: [0-9]*' "$log" | tail -n1 || true)
  {
    printf 'fuzz_%-15s %-6s %10s executions, %s, %s (%s)\n' "$t" "$status" "${execs:-?}" "${cov:-cov: ?}" \
      "${ft:-ft: ?}" "$mode"
    if [[ $status != ok ]]; then
      grep -E -m5 'FUZZ FINDING|ERROR: |runtime error|SUMMARY|Test unit written' "$log" | sed 's/^/    /' || true
    fi
  } >"$build/logs/$t.line"
}

jobs=${TRIBENCH_FUZZ_JOBS:-$(nproc)}
for t in "${targets[@]}"; do
  while (($(jobs -rp | wc -l) >= jobs)); do wait -n || true; done
  run_target "$t" &
done
wait || true
failed=()
for t in "${targets[@]}"; do
  cat "$build/logs/$t.line"
  grep -q "^fuzz_$t *ok " "$build/logs/$t.line" || failed+=("$t")
done
if ((${#failed[@]})); then
  echo "fuzz: findings in ${failed[*]} (logs in $build/logs/, inputs in $build/artifacts/)" >&2
  exit 1
fi
