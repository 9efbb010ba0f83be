#!/usr/bin/env bash
# Measures what `tribench run --parallel-devices` gains on a multi-GPU host and whether it
# changes any timing (docs/scale-out.md, "What sharing the host may cost, and how to check
# it"): the selection on the first GPU alone, then sharded over all the GPUs balanced by the
# first run's times; checks that the merged file holds exactly the one-GPU run's benchmarks,
# compares the two with `tribench compare`, and writes the figures to OUTDIR/summary.md.
# Usage: scripts/parallel_devices_check.sh OUTDIR [tribench run arguments]
#   TRIBENCH=PATH   the binary (default: build/tribench)
#   GPUS=0,1        the GPUs (default: every GPU nvidia-smi lists)
#   MAX_RATIO=0.55  the wall-time ratio (parallel / one GPU) to stay under
#   NOISE=FILE      judge the comparisons by this noise model (`tribench history --learn-noise`)
#                   instead of compare's global 5% threshold; both verdicts are written
#   ONE_GPU=FILE    take the one-GPU results from this earlier run of the same selection and
#                   build instead of running it again (no wall-time ratio then)
#   ALONE=1         then run each shard again by itself on its own GPU, one after another,
#                   and compare those with the parallel run: the same benchmarks on the same
#                   GPUs, so what differs is what sharing the host cost (not which GPU)
# Exit 0: the ratio holds (where measured), the sets match and no comparison finds a
# regression; 1 otherwise.
set -uo pipefail
out=${1:?usage: parallel_devices_check.sh OUTDIR [tribench run arguments]}
shift
tribench=${TRIBENCH:-$(dirname "$0")/../build/tribench}
max_ratio=${MAX_RATIO:-0.55}
gpus=${GPUS:-$(nvidia-smi --query-gpu=index --format=csv,noheader 2>/dev/null | paste -sd, -)}
[[ -n $gpus ]] || { echo "parallel_devices_check: no GPU listed by nvidia-smi; set GPUS=0,1" >&2; exit 2; }
[[ -x $tribench ]] || { echo "parallel_devices_check: no tribench at $tribench" >&2; exit 2; }
mkdir -p "$out"
IFS=, read -ra gpu_list <<<"$gpus"
now() { date +%s.%N; }
noise=(); [[ -n ${NOISE:-} ]] && noise=(--noise "$NOISE")

# compare OLD NEW NAME: the Markdown table, the text table (with the noise model where one is
# given) and the text table by the global threshold alone; returns compare's exit status.
compare() {
  "$tribench" compare "$1" "$2" "${noise[@]}" --markdown --out "$out/$3.md"
  local rc=$?
  "$tribench" compare "$1" "$2" "${noise[@]}" --color never >"$out/$3.txt" 2>&1
  "$tribench" compare "$1" "$2" --color never >"$out/$3-global.txt" 2>&1
  return $rc
}

one=$out/one-gpu.json one_rc=0 t0=0 t1=0
if [[ -n ${ONE_GPU:-} ]]; then
  cp "$ONE_GPU" "$one" || exit 2
else
  echo "== one GPU (${gpu_list[0]})"
  t0=$(now)
  CUDA_VISIBLE_DEVICES=${gpu_list[0]} "$tribench" run "$@" --out "$one" >"$out/one-gpu.log" 2>&1
  one_rc=$?
  t1=$(now)
fi
echo "== GPUs $gpus, --parallel-devices"
t2=$(now)
CUDA_VISIBLE_DEVICES=$gpus "$tribench" run "$@" --parallel-devices --cost-from "$one" \
  --out "$out/parallel.json" >"$out/parallel.log" 2>&1
par_rc=$?
t3=$(now)
compare "$one" "$out/parallel.json" compare
cmp_rc=$?

alone_rc=0 alone_cmp_rc=0 t4=0 t5=0
if [[ ${ALONE:-0} == 1 ]]; then
  # Shard K ran on the K-th GPU of the list: run it there again, by itself, with the same split.
  t4=$(now)
  for k in "${!gpu_list[@]}"; do
    shard="$((k + 1))/${#gpu_list[@]}"
    echo "== shard $shard alone on GPU ${gpu_list[$k]}"
    CUDA_VISIBLE_DEVICES=${gpu_list[$k]} "$tribench" run "$@" --shard "$shard" --cost-from "$one" \
      --out "$out/alone-$((k + 1)).json" >"$out/alone-$((k + 1)).log" 2>&1
    rc=$?; (( rc > alone_rc )) && alone_rc=$rc
  done
  t5=$(now)
  "$tribench" merge "$out"/alone-[0-9]*.json -o "$out/alone.json" >>"$out/alone-1.log" 2>&1 || alone_rc=2
  compare "$out/alone.json" "$out/parallel.json" sharing
  alone_cmp_rc=$?
fi
nvidia-smi topo -m >"$out/topology.txt" 2>&1 || echo "nvidia-smi topo -m failed" >"$out/topology.txt"

# The summary (and the exit status): scripts/parallel_devices_summary.py.
secs() { python3 -c "import sys; print(float(sys.argv[2]) - float(sys.argv[1]))" "$1" "$2"; }
args=(--gpus "$gpus" --parallel-s "$(secs "$t2" "$t3")" --max-ratio "$max_ratio" --noise "${NOISE:-}"
      --rc parallel="$par_rc" compare="$cmp_rc")
if [[ -n ${ONE_GPU:-} ]]; then args+=(--one-from "$ONE_GPU"); else args+=(--one-s "$(secs "$t0" "$t1")" --rc one="$one_rc"); fi
[[ ${ALONE:-0} == 1 ]] && args+=(--alone-s "$(secs "$t4" "$t5")" --rc alone="$alone_rc" sharing="$alone_cmp_rc")
python3 "$(dirname "$0")/parallel_devices_summary.py" "$out" "${args[@]}"
