#!/usr/bin/env bash
# Soak test: does tribench leak over a long run? (docs/robustness.md, "Soak test")
#   1. the profile ROUNDS times in one process (`tribench run --repeat`): host RSS, heap in use
#      and open descriptors after each round, device memory (nvidia-smi) during it, must not grow;
#   2. PROCESSES processes in a row: peak RSS, descriptors, device memory left in use,
#      kernel caches and temporary files must not grow;
#   3. where compute-sanitizer and a CUDA GPU exist: the CUDA backends under
#      `compute-sanitizer --tool memcheck --leak-check full`: no error, no leak.
# Writes OUTDIR/summary.md (figures and verdicts) and each phase's logs; exit 1 on a failed check.
#
# Usage: scripts/soak.sh OUTDIR [extra `tribench run` arguments...]
#   TRIBENCH=build/tribench          the binary
#   SOAK_PROFILE_ARGS="--profile ci" what each run runs; when this tribench has no --profile
#                                    option, the default falls back to --small
#   SOAK_ROUNDS=20 SOAK_PROCESSES=20 sizes of phases 1 and 2
#   SOAK_PHASES=inprocess,processes,sanitizer
#   SOAK_SANITIZER_ARGS="-b cuda-native,cuda-prelude,vendor --repeat 2"
#   SOAK_RSS_GROWTH_KIB=4096         host RSS may grow this much after warm-up (and 256 KiB a
#                                    round) before a soak fails; the heap in use too (fixed)
# On a GPU machine, in one call (build first with scripts/build_gpu_tool.sh or cmake):
#   scripts/soak.sh $OUT/soak --min-time 0.02
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:?"usage: scripts/soak.sh OUTDIR [extra tribench run arguments...]"}
shift
tribench=${TRIBENCH:-build/tribench}
[[ -x $tribench ]] || { echo "soak: $tribench not found: build it first (cmake --build build --target tribench)" >&2; exit 2; }

if [[ -n "${SOAK_PROFILE_ARGS+set}" ]]; then
  profile=$SOAK_PROFILE_ARGS
elif "$tribench" run --help 2>/dev/null | grep -q -- '--profile'; then
  profile="--profile ci"
else
  profile="--small"
  echo "soak: this tribench has no --profile option: running --small instead" >&2
fi

exec python3 scripts/soak.py "$out" --tribench "$tribench" --run-args "$profile $*" \
  --rounds "${SOAK_ROUNDS:-20}" --processes "${SOAK_PROCESSES:-20}" \
  --phases "${SOAK_PHASES:-inprocess,processes,sanitizer}" \
  --sanitizer-args "${SOAK_SANITIZER_ARGS:--b cuda-native,cuda-prelude,vendor --repeat 2}" \
  --rss-growth-kib "${SOAK_RSS_GROWTH_KIB:-4096}"
