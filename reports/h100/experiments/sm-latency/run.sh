#!/usr/bin/env bash
# spmv `vector` on halfrow-s, whose run time is one sub-warp's walk of the matrix's long row:
# (1) under Nsight Compute and plainly under tribench (with --no-scatter and with the
#     placement scatter, the default), each in its own process, after different other
#     benchmarks (another allocation and launch history), per CUDA backend;
# (2) the dependent-L2-load latency of every SM (l2_latency_by_sm.cu).
# Usage: run.sh TRIBENCH OUTDIR   (on a GPU machine, from the repository root; see README.md)
set -u
TB=${1:?usage: run.sh TRIBENCH OUTDIR}
OUT=${2:?usage: run.sh TRIBENCH OUTDIR}
HERE=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$OUT"
MET=gpu__time_duration.sum,lts__t_sectors.sum,lts__t_sectors_srcunit_ltcfabric.sum
# What runs before halfrow-s/vector in the process (none: it alone).
PADS=(none poisson2d-l/scalar random-l/scalar "powerlaw-l/scalar|fem-l/scalar" halfrow-m/scalar
      "poisson3d-l/scalar|emptyrows-l/scalar" "random-m/scalar|longrows-m/scalar" fem-l/scalar)
i=0
for pad in "${PADS[@]}"; do
  i=$((i + 1))
  if [ "$pad" = none ]; then filter='spmv/halfrow-s/vector/'; else filter="spmv/($pad|halfrow-s/vector)/"; fi
  datasets=$(echo "$pad" | tr '|' '\n' | cut -d/ -f1 | grep -v '^none$' | paste -sd,)
  datasets=${datasets:+$datasets,}halfrow-s
  for backend in cuda-native cuda-prelude; do
    ncu --clock-control none --cache-control none --metrics "$MET" --csv --print-units base \
      --kernel-name spmv_vector --launch-skip 3 --launch-count 8 --log-file "$OUT/ncu-$backend-$i.csv" \
      "$TB" run -p spmv -d "$datasets" --variant scalar,vector -b "$backend" --launch stream --timing plain \
      --no-batch --benchmark_filter="$filter" --no-calibrate --min-samples 12 --max-samples 12 \
      --min-time 0.000001 >/dev/null 2>&1 || echo "ncu failed: $backend after $pad"
    for scatter in no-scatter scatter; do  # without and with the placement scatter (the default)
      flag=; [ $scatter = no-scatter ] && flag=--no-scatter
      "$TB" run -p spmv -d "$datasets" --variant scalar,vector -b "$backend" --launch stream --no-calibrate $flag \
        --min-time 0.3 --max-samples 300 --benchmark_filter="$filter" --out "$OUT/$scatter-$backend-$i.json" \
        >"$OUT/$scatter-$backend-$i.log" 2>&1 || echo "tribench failed: $backend after $pad ($scatter)"
    done
  done
done
python3 "$HERE/summary.py" "$OUT" "${PADS[@]}" | tee "$OUT/summary.md"
nvcc -O2 -arch=sm_90 -o "$OUT/l2_latency_by_sm" "$HERE/l2_latency_by_sm.cu" &&
  "$OUT/l2_latency_by_sm" | tee "$OUT/l2_latency_by_sm.txt"
