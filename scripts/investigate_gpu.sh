#!/usr/bin/env bash
# The confirming experiments of reports/h100/REPORT.md ("Why is one backend slower?") in one
# GPU call. Each experiment is a `tribench run` on the largest relevant dataset(s) with one
# kernel file swapped in through TRIBENCH_KERNEL_DIR (reports/h100/experiments/<name>/, a copy
# of the program's kernels.cl or kernels.cu with ONE change, described at its top), next to
# baselines run in the same session. Then PTX of all three backends (NVIDIA's OpenCL compiler
# only runs here) and a table: experiment, benchmark, median ms, speedup vs its baseline.
# Usage: scripts/investigate_gpu.sh OUTDIR [round1|...|round9|all]   (default all)
#   round1: the first session's experiments (about 3-5 minutes on an H100): OUTDIR/<experiment>.json
#           and .log, OUTDIR/ptx-<math>/, OUTDIR/ptxdiff-*.txt
#   round2: the follow-ups of REPORT.md's open questions (about 5 minutes): opencl's launch cost
#           (a raw-OpenCL microbenchmark and TRIBENCH_OPENCL_TIMING=each against bracket), fft plans
#           and occupancy, kmeans and spmv variants, nbody classic, and Nsight Compute profiles
#           (OUTDIR/ncu-*.txt) where a timing alone cannot say where the time goes
#   round3: what round 2 left (about 2 minutes): stencil launch bounds, kmeans' assignment
#           algorithm, spmv long rows and fft_r64 under Nsight Compute
#   round4: stencil's launch bounds before/after, alternating runs in one session (about 2
#           minutes): embedded kernels, the same file through TRIBENCH_KERNEL_DIR, the file
#           before the change, the round-3 experiment, cuda-native; and spmv's scalar kernel
#           from kernels.cl with kernels.cu's batch of 8
#   round5: stencil per-launch time against which backends share the process and in what
#           order (about 1 minute)
#   round6: stencil per-launch time after other programs ran in the same process (about 2
#           minutes)
#   round7: stencil per-launch time on cuda-prelude after cuda-native ran fft with and without
#           its cuFFT vendor row in the same process (about 1 minute)
#   round8: the same with the opencl backend in the process (probed, or run after them)
#   round9: stencil's unfused kernels after the fused kernel ran in the same process
# Both end with OUTDIR/summary.txt (also printed).
set -uo pipefail
OUT=${1:?usage: scripts/investigate_gpu.sh OUTDIR [round1|round2|all]}
ROUND=${2:-all}
case $ROUND in round1 | round2 | round3 | round4 | round5 | round6 | round7 | round8 | round9 | all) ;; *) echo "unknown round '$ROUND' (round1 to round9 or all)"; exit 2 ;; esac
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
cd "$(dirname "$0")/.."
ROOT=$PWD
BUILD=build-gpu
EXP=$ROOT/reports/h100/experiments
status=0

# Build only the tool (a configured build-gpu, e.g. from gpu_suite.sh, is reused as it is).
source scripts/build_gpu_tool.sh
build_gpu_tool "$OUT/build.log" || exit 1
TB=$ROOT/$BUILD/tribench
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv,noheader >"$OUT/gpu.txt" 2>&1
echo "GPU: $(cat "$OUT/gpu.txt")"

# Short, bounded timing: the effects measured here are 5-60%, far above the noise.
TIMING=(--min-time 0.1 --timeout 1 --max-samples 200 --no-calibrate --keep-going)

# run NAME KERNEL_VARIANT|- tribench-run-args...: one experiment, its JSON and log in OUT.
# RUN_ENV (an array of VAR=VALUE) adds to its environment.
RUN_ENV=()
run() {
  local name=$1 variant=$2
  shift 2
  local env=("${RUN_ENV[@]}")
  if [[ $variant != - ]]; then
    [[ -d $EXP/$variant ]] || { echo "$name: no experiment folder $EXP/$variant"; status=1; return; }
    env+=(TRIBENCH_KERNEL_DIR="$EXP/$variant")
  fi
  local t0=$SECONDS
  if ! env "${env[@]}" "$TB" run "$@" "${TIMING[@]}" --out "$OUT/$name.json" >"$OUT/$name.log" 2>&1; then
    echo "$name: tribench exited non-zero (see $name.log)"; tail -3 "$OUT/$name.log"; status=1
  fi
  echo "  $name: $((SECONDS - t0)) s"
}

round1() {
echo "== nbody (n100k: same ratios as n1m at 1/100 of the time)"
NB=(--program nbody --dataset n100k --variant default --launch stream)
run baseline-nbody-default - "${NB[@]}" --backend cuda-native,cuda-prelude,opencl --math default
run baseline-nbody-fast - "${NB[@]}" --backend cuda-native,cuda-prelude,opencl --math fast
run baseline-nbody-precise - "${NB[@]}" --backend cuda-native,cuda-prelude,opencl --math precise
run nbody-cl-native-rsqrt nbody-cl-native-rsqrt "${NB[@]}" --backend cuda-prelude,opencl --math default
for m in default fast; do
  run nbody-cl-r2-fma-$m nbody-cl-r2-fma "${NB[@]}" --backend cuda-prelude,opencl --math $m
  run nbody-cl-unroll-$m nbody-cl-unroll "${NB[@]}" --backend cuda-prelude,opencl --math $m
  run nbody-cl-all-$m nbody-cl-all "${NB[@]}" --backend cuda-prelude,opencl --math $m
  run nbody-cu-rsqrtf-$m nbody-cu-rsqrtf "${NB[@]}" --backend cuda-native --math $m
done
# The Futhark-thesis mechanism: 1/sqrt in each toolchain's default, precise and fast semantics.
for m in default precise fast; do
  run nbody-cl-div-sqrt-$m nbody-cl-div-sqrt "${NB[@]}" --backend cuda-prelude,opencl --math $m
done

echo "== mandelbrot"
MB=(--program mandelbrot --dataset 8000x8000)
run baseline-mandelbrot - "${MB[@]}" --backend cuda-native,cuda-prelude,opencl
run mandelbrot-cu-nounroll mandelbrot-cu-nounroll "${MB[@]}" --backend cuda-native

echo "== kmeans"
KM=(--program kmeans --dataset 10m-d4-k5 --launch stream)
run baseline-kmeans - "${KM[@]}" --variant assign,full --backend cuda-native,cuda-prelude,opencl
run kmeans-cl-unroll-f kmeans-cl-unroll-f "${KM[@]}" --variant assign --backend cuda-prelude,opencl
run kmeans-cl-kmax8 kmeans-cl-kmax8 "${KM[@]}" --variant assign,full --backend cuda-prelude,opencl
run kmeans-cl-partial-1pass kmeans-cl-partial-1pass "${KM[@]}" --variant full --backend cuda-prelude,opencl
run kmeans-cl-1pass-kmax8 kmeans-cl-1pass-kmax8 "${KM[@]}" --variant assign,full --backend cuda-prelude,opencl

echo "== spmv"
SP=(--program spmv --dataset fem-l,random-l)
run baseline-spmv - "${SP[@]}" --variant scalar,vector --backend cuda-native,cuda-prelude,opencl
run spmv-cu-batch4 spmv-cu-batch4 "${SP[@]}" --variant scalar --backend cuda-native
run spmv-cu-regcap spmv-cu-regcap "${SP[@]}" --variant scalar --backend cuda-native

echo "== stencil (launch cost: slope between 16 and 256 iterations)"
run baseline-stencil - --program stencil --dataset 128x128x64-i16,128x128x64-i256 --variant fused,unfused \
    --launch all --backend cuda-native,cuda-prelude,opencl

echo "== fft (re-measure after the group-size fix)"
run fft-remeasure - --program fft --dataset 1d-256x4096,1d-4kx1024,1d-1mx16,1d-16m,2d-1024x1024,2d-4096x4096 \
    --variant forward --backend cuda-native,cuda-prelude,opencl
run fft-cl-bounds fft-cl-bounds --program fft --dataset 1d-256x4096,1d-16m --variant forward --backend cuda-prelude

echo "== PTX of all three backends (opencl only compiles here)"
for m in default fast; do
  "$TB" ptx --math $m --out "$OUT/ptx-$m" >"$OUT/ptx-$m.log" 2>&1 || { echo "ptx --math $m failed"; status=1; }
  for p in mandelbrot nbody kmeans stencil fft spmv; do
    "$TB" ptxdiff --program $p "$OUT/ptx-$m:cuda-prelude" "$OUT/ptx-$m:opencl" --top 12 \
        >"$OUT/ptxdiff-$p-prelude-opencl-$m.txt" 2>&1 || true
  done
done
for v in nbody-cl-native-rsqrt nbody-cl-all nbody-cl-div-sqrt kmeans-cl-unroll-f; do
  p=${v%%-*}
  for m in default precise fast; do
    TRIBENCH_KERNEL_DIR="$EXP/$v" "$TB" ptx --program $p --backend cuda-prelude,opencl --math $m \
        --out "$OUT/ptx-$v-$m" >/dev/null 2>&1 || true
    "$TB" ptxdiff --program $p "$OUT/ptx-$v-$m:cuda-prelude" "$OUT/ptx-$v-$m:opencl" --top 12 \
        >"$OUT/ptxdiff-$v-prelude-opencl-$m.txt" 2>&1 || true
  done
done
}

# ncu_profile NAME KERNEL_REGEX SKIP COUNT KERNEL_VARIANT|- tribench-run-args...: Nsight Compute
# on COUNT launches of the kernels matching KERNEL_REGEX after SKIP of them (the validation
# launches), clocks left alone; the report in OUT/ncu-NAME.txt. NCU_ARGS picks sections/metrics.
NCU=$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
NCU_RUN=(--min-samples 2 --max-samples 3 --min-time 0.001 --timeout 0.1 --no-calibrate)
ncu_profile() {
  local name=$1 regex=$2 skip=$3 count=$4 variant=$5
  shift 5
  if [[ -z $NCU ]]; then echo "  ncu-$name: no ncu on this machine"; return; fi
  local env=()
  [[ $variant != - ]] && env=(TRIBENCH_KERNEL_DIR="$EXP/$variant")
  local t0=$SECONDS
  if ! env "${env[@]}" "$NCU" --clock-control none -k "regex:$regex" --launch-skip "$skip" --launch-count "$count" \
      "${NCU_ARGS[@]}" "$TB" run "$@" "${NCU_RUN[@]}" >"$OUT/ncu-$name.txt" 2>&1; then
    echo "ncu-$name: ncu exited non-zero (see ncu-$name.txt)"; tail -3 "$OUT/ncu-$name.txt"; status=1
  fi
  echo "  ncu-$name: $((SECONDS - t0)) s"
}

round2() {
echo "== opencl launch cost: raw OpenCL microbenchmark, then tribench with an event per command (each)"
echo "   against the first-command event + end marker (bracket, the default since this round)"
LC=$(mktemp -d)/launch_cost  # the binary stays out of OUT
if g++ -O2 -std=c++17 "$EXP/opencl-launch-cost/launch_cost.cpp" -o "$LC" -l:libOpenCL.so.1 \
    >"$OUT/opencl-launch-cost.build.log" 2>&1; then
  "$LC" 2000 >"$OUT/opencl-launch-cost.txt" 2>&1 || { echo "launch_cost failed"; status=1; }
  cat "$OUT/opencl-launch-cost.txt"
else
  echo "launch_cost did not build (opencl-launch-cost.build.log)"; status=1
fi
ST=(--program stencil --dataset 128x128x64-i16,128x128x64-i256 --variant fused,unfused)
run baseline-stencil - "${ST[@]}" --launch all --backend cuda-native,cuda-prelude,opencl
RUN_ENV=(TRIBENCH_OPENCL_TIMING=each)
run opencl-each-stencil - "${ST[@]}" --backend opencl
RUN_ENV=()
SMALL=(--program kmeans,nbody,fft --dataset 8k-d4-k5,50k-d2-k5,10m-d4-k5,n1k,2d-1024x1024 --variant full,default,forward --launch stream)
run baseline-small - "${SMALL[@]}" --backend cuda-native,cuda-prelude,opencl
RUN_ENV=(TRIBENCH_OPENCL_TIMING=each)
run opencl-each-small - "${SMALL[@]}" --backend opencl
RUN_ENV=()

echo "== fft: plans and occupancy of kernels.cl under NVRTC"
FF=(--program fft --dataset 1d-256x4096,1d-4kx1024,1d-16m,2d-4096x4096 --variant forward --launch stream)
run baseline-fft - "${FF[@]}" --backend cuda-native,cuda-prelude,opencl
for v in fft-cl-r64-occupancy fft-cl-bounds512 fft-cl-bounds-all; do run $v $v "${FF[@]}" --backend cuda-prelude; done

echo "== kmeans assignment: register arrays and load order together"
KM=(--program kmeans --dataset 10m-d4-k5 --launch stream --variant assign)
run baseline-kmeans - "${KM[@]}" --backend cuda-native,cuda-prelude,opencl
run kmeans-cl-kmax8 kmeans-cl-kmax8 "${KM[@]}" --backend cuda-prelude,opencl
run kmeans-cl-unroll-kmax8 kmeans-cl-unroll-kmax8 "${KM[@]}" --backend cuda-prelude,opencl

echo "== spmv: long rows (scalar batch, vector reduction)"
run baseline-spmv - --program spmv --dataset fem-l,random-l,powerlaw-l,longrows-l --variant scalar,vector \
    --backend cuda-native,cuda-prelude,opencl
run spmv-cu-batch4 spmv-cu-batch4 --program spmv --dataset powerlaw-l,longrows-l --variant scalar --backend cuda-native
run spmv-cu-regcap spmv-cu-regcap --program spmv --dataset fem-l,random-l --variant scalar --backend cuda-native
run spmv-cu-vector-tree spmv-cu-vector-tree --program spmv --dataset fem-l,powerlaw-l,longrows-l --variant vector \
    --backend cuda-native

echo "== nbody classic (n100k: 196 groups of 256 on 132 SMs)"
NBC=(--program nbody --dataset n100k --launch stream)
run baseline-nbody - "${NBC[@]}" --variant default,classic --backend cuda-native,cuda-prelude,opencl
run nbody-classic-cl-unroll nbody-cl-unroll "${NBC[@]}" --variant classic --backend cuda-prelude
run nbody-classic-cl-all nbody-cl-all "${NBC[@]}" --variant classic --backend cuda-prelude

echo "== Nsight Compute"
NCU_ARGS=(--section SpeedOfLight --section Occupancy --section LaunchStats --section WarpStateStats
          --section MemoryWorkloadAnalysis --metrics l1tex__t_sector_hit_rate.pct,lts__t_sector_hit_rate.pct,smsp__inst_executed.sum,l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum)
SPN=(--program spmv --dataset fem-l --variant scalar)
ncu_profile spmv-scalar-native spmv_scalar 3 1 - "${SPN[@]}" --backend cuda-native
ncu_profile spmv-scalar-native-regcap spmv_scalar 3 1 spmv-cu-regcap "${SPN[@]}" --backend cuda-native
ncu_profile spmv-scalar-prelude spmv_scalar 3 1 - "${SPN[@]}" --backend cuda-prelude
NBN=(--program nbody --dataset n100k --variant classic --launch stream)
ncu_profile nbody-classic-native nbody_step 2 1 - "${NBN[@]}" --backend cuda-native
ncu_profile nbody-classic-prelude nbody_step 2 1 - "${NBN[@]}" --backend cuda-prelude
NCU_ARGS=(--metrics gpu__time_duration.sum,launch__registers_per_thread,sm__warps_active.avg.pct_of_peak_sustained_active --csv)
STN=(--program stencil --dataset 128x128x64-i16 --variant unfused --launch stream)
ncu_profile stencil-unfused-native 'halo_update|laplacian|diffusion_update' 80 80 - "${STN[@]}" --backend cuda-native
ncu_profile stencil-unfused-prelude 'halo_update|laplacian|diffusion_update' 80 80 - "${STN[@]}" --backend cuda-prelude
}

round3() {
echo "== stencil: kernels.cl's unfused kernels with kernels.cu's __launch_bounds__(256)"
ST=(--program stencil --dataset 128x128x64-i16,128x128x64-i256 --variant unfused --launch all)
run baseline-stencil - "${ST[@]}" --backend cuda-native,cuda-prelude
run stencil-cl-bounds256 stencil-cl-bounds256 "${ST[@]}" --backend cuda-prelude

echo "== kmeans: kernels.cu's assignment algorithm in OpenCL C"
KM=(--program kmeans --dataset 10m-d4-k5 --launch stream --variant assign)
run baseline-kmeans - "${KM[@]}" --backend cuda-native,cuda-prelude,opencl
run kmeans-cl-running-min kmeans-cl-running-min "${KM[@]}" --backend cuda-prelude,opencl

echo "== Nsight Compute: spmv long rows, fft_r64 (cuda-prelude; opencl if ncu can see it)"
NCU_ARGS=(--section SpeedOfLight --section Occupancy --section LaunchStats --section WarpStateStats
          --section MemoryWorkloadAnalysis --metrics l1tex__t_sector_hit_rate.pct,lts__t_sector_hit_rate.pct,smsp__inst_executed.sum,l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,dram__bytes_read.sum)
for b in cuda-native cuda-prelude; do
  ncu_profile spmv-powerlaw-scalar-$b spmv_scalar 3 1 - --program spmv --dataset powerlaw-l --variant scalar --backend $b
  ncu_profile spmv-fem-scalar-$b spmv_scalar 3 1 - --program spmv --dataset fem-l --variant scalar --backend $b
done
ncu_profile spmv-fem-scalar-regcap spmv_scalar 3 1 spmv-cu-regcap --program spmv --dataset fem-l --variant scalar --backend cuda-native
for b in cuda-prelude opencl; do
  ncu_profile fft-r64-$b fft_r64 4 1 - --program fft --dataset 1d-16m --variant forward --backend $b
done
}

round4() {
echo "== stencil launch bounds, A/B alternating (graph and stream, i16 and i256: time per launch)"
local copy
copy=$(mktemp -d)
mkdir -p "$copy/programs/stencil" && cp programs/stencil/kernels.cl "$copy/programs/stencil/"
ST=(--program stencil --dataset 128x128x64-i16,128x128x64-i256 --variant unfused --launch all)
for rep in 1 2 3; do
  run ab$rep-native - "${ST[@]}" --backend cuda-native
  run ab$rep-embedded - "${ST[@]}" --backend cuda-prelude
  RUN_ENV=(TRIBENCH_KERNEL_DIR="$copy")
  run ab$rep-embedded-via-dir - "${ST[@]}" --backend cuda-prelude
  RUN_ENV=()
  run ab$rep-nobounds stencil-cl-nobounds "${ST[@]}" --backend cuda-prelude
  run ab$rep-bounds256 stencil-cl-bounds256 "${ST[@]}" --backend cuda-prelude
done

echo "== spmv scalar: kernels.cl with kernels.cu's batch of 8"
SP=(--program spmv --dataset fem-l,random-l,powerlaw-l,longrows-l --variant scalar)
run baseline-spmv - "${SP[@]}" --backend cuda-native,cuda-prelude
run spmv-cl-batch8 spmv-cl-batch8 "${SP[@]}" --backend cuda-prelude
}

round5() {
echo "== stencil: one process per backend, or both backends in one process in either order"
ST=(--program stencil --dataset 128x128x64-i16,128x128x64-i256 --variant unfused --launch all)
for rep in 1 2; do
  run order$rep-native-then-prelude - "${ST[@]}" --backend cuda-native,cuda-prelude
  run order$rep-prelude-then-native - "${ST[@]}" --backend cuda-prelude,cuda-native
  run order$rep-prelude-alone - "${ST[@]}" --backend cuda-prelude
  run order$rep-native-alone - "${ST[@]}" --backend cuda-native
done
}

round6() {
echo "== stencil after other programs in the same process (one backend per process)"
local b h
for b in cuda-prelude cuda-native; do
  for h in none nbody mandelbrot fft kmeans all; do
    local progs=stencil ds=128x128x64-i16,128x128x64-i256 vs=unfused
    case $h in
      nbody) progs=nbody,stencil; ds=$ds,n10k; vs=$vs,default ;;
      mandelbrot) progs=mandelbrot,stencil; ds=$ds,4096x4096; vs=$vs,default ;;
      fft) progs=fft,stencil; ds=$ds,1d-16m; vs=$vs,forward ;;
      kmeans) progs=kmeans,stencil; ds=$ds,10m-d4-k5; vs=$vs,assign ;;
      all) progs=nbody,mandelbrot,fft,kmeans,stencil; ds=$ds,n10k,4096x4096,1d-16m,10m-d4-k5; vs=$vs,default,forward,assign ;;
    esac
    run history-$h-$b - --program $progs --dataset $ds --variant $vs --launch all --backend $b
  done
done
}

round7() {
echo "== stencil on cuda-prelude after cuda-native's fft, with and without the cuFFT (vendor) rows"
local rep
for rep in 1 2; do
  run vendor$rep-without - --program fft,stencil --dataset 1d-16m,128x128x64-i16,128x128x64-i256 \
      --variant forward,unfused --launch all --backend cuda-native,cuda-prelude
  run vendor$rep-with - --program fft,stencil --dataset 1d-16m,128x128x64-i16,128x128x64-i256 \
      --variant forward,unfused --launch all --backend cuda-native,vendor,cuda-prelude
done
}

round8() {
echo "== stencil with the opencl backend in the same process"
local rep
ST=(--program stencil --dataset 128x128x64-i16,128x128x64-i256 --variant unfused --launch all)
for rep in 1 2; do
  run withcl$rep-cuda-only - "${ST[@]}" --backend cuda-native,cuda-prelude
  run withcl$rep-all-three - "${ST[@]}" --backend cuda-native,cuda-prelude,opencl
  run withcl$rep-opencl-first - "${ST[@]}" --backend opencl,cuda-native,cuda-prelude
done
}

round9() {
echo "== stencil unfused after the fused kernel (32x32x64 runs both variants first)"
local rep b
for rep in 1 2; do
  for b in cuda-prelude cuda-native; do
    run fused$rep-unfused-only-$b - --program stencil --dataset 32x32x64,128x128x64-i16,128x128x64-i256 \
        --variant unfused --launch all --backend $b
    run fused$rep-after-fused-$b - --program stencil --dataset 32x32x64,128x128x64-i16,128x128x64-i256 \
        --variant unfused,fused --launch all --backend $b
  done
done
}

[[ $ROUND == round1 || $ROUND == all ]] && round1
[[ $ROUND == round2 || $ROUND == all ]] && round2
[[ $ROUND == round3 || $ROUND == all ]] && round3
[[ $ROUND == round4 || $ROUND == all ]] && round4
[[ $ROUND == round5 || $ROUND == all ]] && round5
[[ $ROUND == round6 || $ROUND == all ]] && round6
[[ $ROUND == round7 || $ROUND == all ]] && round7
[[ $ROUND == round8 || $ROUND == all ]] && round8
[[ $ROUND == round9 || $ROUND == all ]] && round9

echo "== summary"
python3 - "$OUT" <<'PY' | tee "$OUT/summary.txt" || status=1
# Table of every experiment's benchmarks against the baselines of this session.
import glob, json, os, sys
out = sys.argv[1]
runs = []
for path in sorted(glob.glob(os.path.join(out, "*.json")), key=os.path.getmtime):
    try:
        doc = json.load(open(path))
    except (OSError, ValueError) as e:
        print(f"{os.path.basename(path)}: unreadable ({e})"); continue
    if doc.get("schema") != "tribench-results": continue
    runs.append((os.path.basename(path)[:-5], doc.get("benchmarks", [])))
def med(b): return b["summary"]["median_ms"] if b.get("status") == "ok" and b.get("summary") else None
def key(b, backend=None): return (b["program"], b["dataset"], b.get("variant", ""), backend or b["backend"], b.get("launch", ""), b.get("math", ""))
base = {}
for name, bs in runs:
    if name.startswith("baseline-") or name == "fft-remeasure":
        for b in bs:
            if med(b) is not None: base[key(b)] = med(b)
def native(b):
    for launch in (b.get("launch", ""), "stream"):
        k = key(b, "cuda-native")
        k = k[:4] + (launch,) + k[5:]
        if k in base: return base[k]
    return None
print(f"{'experiment':26s} {'benchmark':50s} {'math':8s} {'median ms':>10s} {'vs base':>8s} {'vs native':>9s}")
for name, bs in runs:
    for b in bs:
        m = med(b)
        if m is None:
            print(f"{name:26s} {b.get('name', '?'):50s} {b.get('math', ''):8s} {b.get('status', '?'):>10s} {b.get('error', '')[:60]}"); continue
        is_base = name.startswith("baseline-") or name == "fft-remeasure"
        vb = "" if is_base or key(b) not in base else f"{base[key(b)] / m:.2f}x"
        n = native(b)
        vn = "" if n is None else f"{n / m:.2f}x"
        print(f"{name:26s} {b['name']:50s} {b.get('math', ''):8s} {m:10.4f} {vb:>8s} {vn:>9s}")
print("vs base: same benchmark with the embedded kernels in this session / this (>1: faster);")
print("vs native: cuda-native of the same dataset, variant, launch and math / this")

# Stencil: device time per launch from the slope between 16 and 256 iterations.
print("\nstencil 128x128x64, time per launch from (t(i256) - t(i16)) / (240 x launches per iteration):")
stencil_runs = [n for n, _ in runs if n in ("baseline-stencil", "opencl-each-stencil") or n.startswith(("stencil-", "ab", "order", "history", "vendor", "withcl", "fused"))]
for run_name in stencil_runs:
    t = {}
    for b in dict(runs).get(run_name, []):
        if med(b) is not None: t[(b["variant"], b["backend"], b["launch"], b["dataset"])] = med(b)
    for (variant, backend, launch, ds), v16 in sorted(t.items()):
        if not ds.endswith("-i16"): continue
        v256 = t.get((variant, backend, launch, ds[:-4] + "-i256"))
        if v256 is None: continue
        per = 4 if variant == "unfused" else 1
        print(f"  {run_name:28s} {variant:8s} {backend:13s} {launch:6s} {(v256 - v16) * 1000 / (240 * per):7.2f} us per launch")

# Nsight Compute CSV (stencil): mean kernel duration per kernel name.
import csv, statistics
for path in sorted(glob.glob(os.path.join(out, "ncu-stencil-*.txt"))):
    durations = {}
    with open(path) as f:
        lines = [l for l in f if l.startswith('"')]
    for row in csv.DictReader(lines):
        if row.get("Metric Name") == "gpu__time_duration.sum":
            v = float(row["Metric Value"].replace(",", ""))
            scale = {"nsecond": 1e-3, "usecond": 1.0, "msecond": 1e3}.get(row.get("Metric Unit", "nsecond"), 1e-3)
            durations.setdefault(row["Kernel Name"], []).append(v * scale)
    print(f"\n{os.path.basename(path)}: kernel duration (Nsight Compute gpu__time_duration, serialized launches)")
    for k, v in sorted(durations.items()):
        print(f"  {k:20s} n={len(v):3d} mean {statistics.mean(v):7.3f} us  median {statistics.median(v):7.3f} us")

# kmeans: the update (partial + finalize) per iteration = (full - 10 x assign) / 10.
print("\nkmeans, update per iteration = (full - 10 x assign) / 10 (assign of the same dataset in the same run, else in baseline-kmeans):")
ka = {}
for name, bs in runs:
    for b in bs:
        if b.get("program") == "kmeans" and b.get("variant") == "assign" and med(b) is not None:
            ka[(name, b["backend"], b["dataset"])] = med(b)
for name, bs in runs:
    for b in bs:
        if b.get("program") != "kmeans" or b.get("variant") != "full" or med(b) is None: continue
        a = ka.get((name, b["backend"], b["dataset"]), ka.get(("baseline-kmeans", b["backend"], b["dataset"])))
        if a is None: continue
        print(f"  {name:26s} {b['dataset']:14s} {b['backend']:13s} full {med(b):.4f} ms, assign {a:.4f} ms, update {(med(b) - 10 * a) * 100:.1f} us")
PY
exit $status
