#!/usr/bin/env bash
# EXPERIMENT ptx-conventions, in one call on a GPU machine with NVIDIA's OpenCL (README.md):
#   reports/h100/experiments/ptx-conventions/run.sh TRIBENCH OUTDIR
# Dumps the PTX NVIDIA's OpenCL builds of fft's kernels, makes its forms (variants.py), adds
# in-kernel timers (timer_patch.py), times them under both runtimes (kernel_timer.cpp) and
# compares the SASS each JIT made with the toolkit's ptxas (sass_diff.py).
set -euo pipefail
TB=${1:?usage: run.sh TRIBENCH OUTDIR}
OUT=${2:?usage: run.sh TRIBENCH OUTDIR}
HERE=$(cd "$(dirname "$0")" && pwd)
CUDA=${CUDA_HOME:-/usr/local/cuda}
mkdir -p "$OUT/timed"
"$TB" ptx -p fft -b opencl -o "$OUT/ptx" >"$OUT/ptx.log" 2>&1
python3 "$HERE/variants.py" "$OUT/ptx/fft/opencl.ptx" "$OUT/forms"
FORMS=(cuda ocl ocl-envreg ocl-local ocl-both)  # cuda first: kernel_timer runs it under the CUDA driver
TIMED=() CUBINS=()
for f in "${FORMS[@]}"; do
  python3 "$HERE/timer_patch.py" "$OUT/forms/$f.ptx" "$OUT/timed/$f.ptx" >/dev/null
  ptxas -arch=sm_90 "$OUT/timed/$f.ptx" -o "$OUT/timed/$f.cubin"  # the toolkit's ptxas, to compare with the JITs
  TIMED+=("$OUT/timed/$f.ptx") CUBINS+=("$OUT/timed/$f.cubin")
done
g++ -O2 -std=c++17 "$HERE/kernel_timer.cpp" -o "$OUT/kernel_timer" -I"$CUDA/include" -L"$CUDA/lib64/stubs" -lcuda -lOpenCL
rm -rf "$OUT/jit"
CUDA_CACHE_PATH="$OUT/jit" "$OUT/kernel_timer" "${TIMED[@]}" | tee "$OUT/times.txt"
python3 "$HERE/sass_diff.py" "$OUT/jit" fft_r1024 fft_r256 "${CUBINS[@]}" | tee "$OUT/sass.txt"
