#!/usr/bin/env bash
# Builds the libFuzzer targets (cmake --preset fuzz: clang, ASan + UBSan) and runs each for
# a bounded time from its seed corpus in tests/fuzz/corpus/. Any crash, sanitizer report,
# broken invariant, timeout or memory blow-up fails the script; the input that caused it is
# saved under BUILD/artifacts/ (replay: BUILD/fuzz/fuzz_<target> FILE).
# Usage: tests/fuzz/run.sh [SECONDS_PER_TARGET (default 30)] [target...]
# BUILD is build-fuzz, or $TRIBENCH_FUZZ_BUILD. New inputs found go to BUILD/corpus/<target>/,
# never into the committed seeds.
set -euo pipefail
cd "$(dirname "$0")/../.."

seconds=${1:-30}
shift || true
targets=("$@")
((${#targets[@]})) || targets=(matrix_market results_load results_tree cl_translate)
declare -A dict=([matrix_market]=matrix_market.dict [results_load]=results.dict [cl_translate]=opencl.dict)

build=${TRIBENCH_FUZZ_BUILD:-build-fuzz}
cmake --preset fuzz -B "$build" >/dev/null
cmake --build "$build" --target "${targets[@]/#/fuzz_}"

mkdir -p "$build/artifacts" "$build/logs"
failed=()
for t in "${targets[@]}"; do
  mkdir -p "$build/corpus/$t"
  args=(-max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1
        -artifact_prefix="$build/artifacts/$t-")
  if [[ -n "${dict[$t]:-}" ]]; then args+=(-dict="tests/fuzz/${dict[$t]}"); fi
  log=$build/logs/$t.log
  if "$build/fuzz/fuzz_$t" "${args[@]}" "$build/corpus/$t" "tests/fuzz/corpus/$t" >"$log" 2>&1; then
    status=ok
  else
    status=FAILED
    failed+=("$t")
  fi
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n1)
  cov=$(grep -o 'cov: [0-9]*' "$log" | tail -n1 || true)
  printf 'fuzz_%-15s %-6s %10s executions, %s (limit %ss)\n' "$t" "$status" "${execs:-?}" "${cov:-cov: ?}" "$seconds"
  if [[ $status != ok ]]; then
    grep -E -m5 'FUZZ FINDING|ERROR: |runtime error|SUMMARY|Test unit written' "$log" | sed 's/^/    /' || true
  fi
done
if ((${#failed[@]})); then
  echo "fuzz: findings in ${failed[*]} (logs in $build/logs/, inputs in $build/artifacts/)" >&2
  exit 1
fi
