#!/usr/bin/env bash
# The full-suite runs behind reports/h100/{default,precise,fast}/results.json, one per math
# mode, with the sampling documented in reports/h100/README.md. Builds the tool in build-gpu/
# (scripts/build_gpu_tool.sh; a build-gpu/ from scripts/gpu_suite.sh is reused).
# Usage: scripts/h100_report_runs.sh OUTDIR [default] [precise] [fast]   (default: all three)
# Writes OUTDIR/results-<mode>.json and OUTDIR/run-<mode>.log.
set -uo pipefail
OUT=${1:?usage: scripts/h100_report_runs.sh OUTDIR [default] [precise] [fast]}
shift
MODES=("$@")
((${#MODES[@]})) || MODES=(default precise fast)
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
cd "$(dirname "$0")/.."
BUILD=build-gpu
source scripts/build_gpu_tool.sh
build_gpu_tool "$OUT/build.log" || exit 1
status=0
for mode in "${MODES[@]}"; do
  case $mode in
    # The default run calibrates (copy bandwidth, FP32 peak) and samples longer.
    default) args=(--min-time 0.05 --min-samples 5 --timeout 0.5 --max-samples 100) ;;
    precise | fast) args=(--math "$mode" --no-calibrate --min-time 0.03 --min-samples 3 --timeout 0.3 --max-samples 40) ;;
    *) echo "unknown math mode '$mode' (default, precise, fast)"; exit 2 ;;
  esac
  t0=$SECONDS
  "$BUILD/tribench" run --keep-going "${args[@]}" --out "$OUT/results-$mode.json" >"$OUT/run-$mode.log" 2>&1 || status=1
  echo "$mode: $((SECONDS - t0)) s, $(grep -c ' ok ' "$OUT/run-$mode.log") ok, exit status so far $status"
  tail -2 "$OUT/run-$mode.log"
done
exit $status
