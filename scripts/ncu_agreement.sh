#!/usr/bin/env bash
# Does tribench's clock agree with Nsight Compute's? Runs single-kernel benchmarks on both
# CUDA backends (and opencl) three ways -- under `ncu` (gpu__time_duration of every launch,
# clocks left alone), and plainly under tribench with --timing gated and --timing plain --
# and prints, per benchmark, the medians and tribench's excess over ncu (issue 13).
# Usage: scripts/ncu_agreement.sh TRIBENCH OUTDIR
# Writes OUTDIR/ncu_agreement.md (the table), OUTDIR/gated.json, OUTDIR/plain.json and the
# ncu CSV logs under OUTDIR/ncu/.
set -uo pipefail
TB=${1:?usage: scripts/ncu_agreement.sh TRIBENCH OUTDIR}
OUT=${2:?usage: scripts/ncu_agreement.sh TRIBENCH OUTDIR}
mkdir -p "$OUT/ncu"
HERE=$(cd "$(dirname "$0")" && pwd)

# program:dataset:variant -- benchmarks whose run() is one kernel launch.
BENCHES=(
  kmeans:10m-d4-k5:assign kmeans:10m-d4-k16:assign
  spmv:poisson2d-l:scalar spmv:poisson2d-l:vector spmv:random-l:vector
  mandelbrot:1024x1024:default mandelbrot:4096x4096:default mandelbrot:8000x8000:default
)
datasets=$(printf '%s\n' "${BENCHES[@]}" | cut -d: -f2 | sort -u | paste -sd,)
programs=$(printf '%s\n' "${BENCHES[@]}" | cut -d: -f1 | sort -u | paste -sd,)
variants=$(printf '%s\n' "${BENCHES[@]}" | cut -d: -f3 | sort -u | paste -sd,)
common=(-p "$programs" -d "$datasets" --variant "$variants" --launch stream --keep-going --timeout 1)

# The gated run also takes batch timing: opencl against cuda-prelude by both figures.
echo "== tribench, gated"
"$TB" run "${common[@]}" -b cuda-native,cuda-prelude,opencl --timing gated --out "$OUT/gated.json" >"$OUT/gated.log" 2>&1
echo "== tribench, plain"
"$TB" run "${common[@]}" -b cuda-native,cuda-prelude,opencl --timing plain --no-batch --out "$OUT/plain.json" >"$OUT/plain.log" 2>&1

# ncu cannot see OpenCL kernels; each CUDA benchmark in its own process, 25 timed launches
# after the validation run and two warm-up samples. `--cache-control none`: tribench times
# kernels back to back with whatever the previous run left in L2 (as a user's loop would),
# so ncu must not flush caches before each launch either, or the two would time different
# cache states. Clocks are left alone (`--clock-control none`), as everywhere.
for b in "${BENCHES[@]}"; do
  IFS=: read -r prog ds var <<<"$b"
  for backend in cuda-native cuda-prelude; do
    echo "== ncu $prog $ds $var $backend"
    ncu --clock-control none --cache-control none --metrics gpu__time_duration.sum --csv --print-units base \
        --launch-skip 3 --launch-count 25 --log-file "$OUT/ncu/$prog-$ds-$var-$backend.csv" \
        "$TB" run -p "$prog" -d "$ds" --variant "$var" -b "$backend" --launch stream --timing plain --no-batch \
        --no-calibrate --min-samples 30 --max-samples 30 --min-time 0.000001 >/dev/null 2>&1 ||
      echo "   ncu failed (see $OUT/ncu/$prog-$ds-$var-$backend.csv)"
  done
done
python3 "$HERE/ncu_agreement.py" "$OUT" | tee "$OUT/ncu_agreement.md"
