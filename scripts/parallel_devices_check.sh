#!/usr/bin/env bash
# Measures what `tribench run --parallel-devices` gains on a multi-GPU host and whether it
# changes any timing (docs/scale-out.md, "Checking a multi-GPU host"): the selection on the
# first GPU alone, then sharded over all the GPUs balanced by the first run's times; checks
# that the merged file holds exactly the one-GPU run's benchmarks, compares the two with
# `tribench compare`, and writes the figures to OUTDIR/summary.md.
# Usage: scripts/parallel_devices_check.sh OUTDIR [tribench run arguments]
#   TRIBENCH=PATH   the binary (default: build/tribench)
#   GPUS=0,1        the GPUs (default: every GPU nvidia-smi lists)
#   MAX_RATIO=0.55  the wall-time ratio (parallel / one GPU) to stay under
# Exit 0: the ratio holds, the sets match and compare finds no regression; 1 otherwise.
set -uo pipefail
out=${1:?usage: parallel_devices_check.sh OUTDIR [tribench run arguments]}
shift
tribench=${TRIBENCH:-$(dirname "$0")/../build/tribench}
max_ratio=${MAX_RATIO:-0.55}
gpus=${GPUS:-$(nvidia-smi --query-gpu=index --format=csv,noheader 2>/dev/null | paste -sd, -)}
[[ -n $gpus ]] || { echo "parallel_devices_check: no GPU listed by nvidia-smi; set GPUS=0,1" >&2; exit 2; }
[[ -x $tribench ]] || { echo "parallel_devices_check: no tribench at $tribench" >&2; exit 2; }
mkdir -p "$out"
first=${gpus%%,*}
now() { date +%s.%N; }

echo "== one GPU ($first)"
t0=$(now)
CUDA_VISIBLE_DEVICES=$first "$tribench" run "$@" --out "$out/one-gpu.json" >"$out/one-gpu.log" 2>&1
one_rc=$?
t1=$(now)
echo "== GPUs $gpus, --parallel-devices"
CUDA_VISIBLE_DEVICES=$gpus "$tribench" run "$@" --parallel-devices --cost-from "$out/one-gpu.json" \
  --out "$out/parallel.json" >"$out/parallel.log" 2>&1
par_rc=$?
t2=$(now)
"$tribench" compare "$out/one-gpu.json" "$out/parallel.json" --markdown --out "$out/compare.md"
cmp_rc=$?
nvidia-smi topo -m >"$out/topology.txt" 2>&1 || echo "nvidia-smi topo -m failed" >"$out/topology.txt"

python3 - "$out" "$t0" "$t1" "$t2" "$max_ratio" "$gpus" "$one_rc" "$par_rc" "$cmp_rc" <<'PY'
import json, sys, os
out, t0, t1, t2, max_ratio = sys.argv[1], *map(float, sys.argv[2:6])
gpus, one_rc, par_rc, cmp_rc = sys.argv[6], *map(int, sys.argv[7:10])
one = json.load(open(os.path.join(out, "one-gpu.json")))
par = json.load(open(os.path.join(out, "parallel.json")))
a, b = sorted(x["name"] for x in one["benchmarks"]), sorted(x["name"] for x in par["benchmarks"])
one_s, par_s = t1 - t0, t2 - t1
ratio = par_s / one_s
devices = sorted({d["name"] for d in one["devices"]})
lines = [
    f"# --parallel-devices on GPUs {gpus}",
    "",
    f"- host {one['environment'].get('hostname')}, {one['environment'].get('created_utc')}, "
    f"commit {one['environment'].get('tribench_commit')}; devices: {', '.join(devices)}",
    f"- one GPU: {one_s:.1f} s wall, {len(a)} benchmarks (exit {one_rc})",
    f"- {len(gpus.split(','))} GPUs: {par_s:.1f} s wall (exit {par_rc}); ratio {ratio:.3f} (target <= {max_ratio})",
    "- shards: " + ", ".join(
        f"{m['shard']['index']}/{m['shard']['count']} on CUDA_VISIBLE_DEVICES={m['shard']['visible_devices']}: "
        f"{m['benchmarks']} benchmarks, {m['benchmarks_wall_s']:.1f} s in benchmarks, "
        f"{m['shard']['estimated_s']:.1f} s estimated" for m in par["merged_from"]),
    f"- same benchmarks: {'yes' if a == b else 'NO'}",
    f"- compare one-GPU vs merged: exit {cmp_rc} (compare.md)",
]
open(os.path.join(out, "summary.md"), "w").write("\n".join(lines) + "\n")
print("\n".join(lines))
sys.exit(0 if a == b and ratio <= max_ratio and cmp_rc == 0 and one_rc == 0 and par_rc == 0 else 1)
PY
