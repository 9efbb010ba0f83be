#!/usr/bin/env bash
# Submits a sharded tribench run to Slurm: a job array with one task (and one GPU) per shard,
# then a merge job that runs when every task succeeded (docs/scale-out.md).
#
# Usage: scripts/slurm/submit.sh --shards N --out DIR [options] -- [tribench run arguments]
#   --shards N          number of shards (array tasks)
#   --out DIR           results folder on a shared file system (created)
#   --tribench PATH     the tribench binary (default: build/tribench of this checkout)
#   --gpus-per-task G   GPUs per shard (default 1)
#   --gres SPEC         request GPUs as a generic resource instead (e.g. gpu:1, gpu:h100:1)
#   --no-gpu            request no GPU (CPU devices through PoCL; the test cluster)
#   --sbatch ARG        pass ARG to both sbatch calls (repeatable: --sbatch --partition=gpu)
# Prints the two job ids; the merged results land in DIR/merged.json. sbatch also reads its
# usual environment (SBATCH_PARTITION, SBATCH_TIMELIMIT, SBATCH_ACCOUNT, ...).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"

usage() { sed -n '2,15p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }
die() { echo "submit.sh: $*" >&2; exit 2; }

shards="" out="" tribench="$here/../../build/tribench" gpu=(--gpus-per-task=1) extra=()
while (($#)); do
  case $1 in
    --shards) shards=${2:?}; shift 2 ;;
    --out) out=${2:?}; shift 2 ;;
    --tribench) tribench=${2:?}; shift 2 ;;
    --gpus-per-task) gpu=("--gpus-per-task=${2:?}"); shift 2 ;;
    --gres) gpu=("--gres=${2:?}"); shift 2 ;;
    --no-gpu) gpu=(); shift ;;
    --sbatch) extra+=("${2:?}"); shift 2 ;;
    --) shift; break ;;
    -h|--help) usage ;;
    *) die "unknown option '$1' (see --help)" ;;
  esac
done
[[ $shards =~ ^[1-9][0-9]*$ ]] || die "--shards takes a positive number (got '${shards}')"
[[ -n $out ]] || die "--out DIR is required"
[[ -x $tribench ]] || die "no tribench binary at $tribench (build it, or give --tribench PATH)"
command -v sbatch >/dev/null || die "sbatch not found: is this a Slurm login node?"
mkdir -p "$out"
out="$(cd "$out" && pwd)"
tribench="$(cd "$(dirname "$tribench")" && pwd)/$(basename "$tribench")"
export TRIBENCH="$tribench" TRIBENCH_OUT="$out"

array=$(sbatch --parsable --export=ALL --array="1-$shards" "${gpu[@]}" "${extra[@]}" \
  --chdir="$out" --output="$out/slurm-%A_%a.out" "$here/shard.sbatch" "$@")
array=${array%%;*}  # "id;cluster" on federated clusters
merge=$(sbatch --parsable --export=ALL --dependency="afterok:$array" --kill-on-invalid-dep=yes "${extra[@]}" \
  --chdir="$out" --output="$out/slurm-merge-%j.out" "$here/merge.sbatch" "$shards")
merge=${merge%%;*}
echo "array job $array ($shards shards), merge job $merge -> $out/merged.json"
