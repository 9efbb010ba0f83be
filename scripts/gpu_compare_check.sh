#!/usr/bin/env bash
# Checks `tribench compare` on a GPU: the same build run twice must show no significant
# change, and a run with an artificial slowdown (reports/h100/experiments/slowdown: a
# mandelbrot kernel that sleeps) must be flagged as a regression. Also renders a report.
# Usage: scripts/gpu_compare_check.sh OUTDIR   (after scripts/gpu_suite.sh built build-gpu)
set -uo pipefail
OUT=${1:?usage: scripts/gpu_compare_check.sh OUTDIR}
mkdir -p "$OUT"
cd "$(dirname "$0")/.."
TB=build-gpu/tribench
SEL=(-p mandelbrot,spmv -d 4096x4096,8000x8000,poisson2d-l,random-l -b cuda-native,cuda-prelude,opencl,vendor
     --min-time 0.2 --timeout 2 --max-samples 300)
"$TB" run "${SEL[@]}" --out "$OUT/run1.json" >"$OUT/run1.log" 2>&1
"$TB" run "${SEL[@]}" --out "$OUT/run2.json" >"$OUT/run2.log" 2>&1
TRIBENCH_KERNEL_DIR=$PWD/reports/h100/experiments/slowdown \
  "$TB" run "${SEL[@]}" --out "$OUT/slow.json" >"$OUT/slow.log" 2>&1
echo "== compare run1 run2 (same build)"
"$TB" compare "$OUT/run1.json" "$OUT/run2.json" --color never | tee "$OUT/compare-same.txt"
echo "exit ${PIPESTATUS[0]}"
echo "== compare run1 slow (mandelbrot cuda-native sleeps)"
"$TB" compare "$OUT/run1.json" "$OUT/slow.json" --color never | tee "$OUT/compare-slow.txt"
echo "exit ${PIPESTATUS[0]}"
"$TB" compare --backends "$OUT/run1.json" --markdown >"$OUT/backends.md"
"$TB" report "$OUT/run1.json" --out "$OUT/report" >"$OUT/report.log" 2>&1 || tail -5 "$OUT/report.log"
