#!/usr/bin/env bash
# tribench in CI: run a commit's benchmarks, compare them with the base, keep results by
# commit, and look at the history. The GitHub Actions and GitLab CI examples beside this
# file call it; docs/ci/README.md explains the flow.
#
# Usage: tribench-ci.sh run|compare|store|history
#   run      REPEATS runs of the ci profile into $OUT/results/<SHA>-<n>.json (exit 1 if a
#            benchmark failed validation in any)
#   compare  first run against the base's first stored run: $OUT/compare.md (PR comment and
#            step summary), $OUT/junit.xml, $OUT/github-benchmark.json; exit 1 on a regression
#   store    copy this commit's runs into $STORE (the pipeline commits and pushes it)
#   history  tribench history over $STORE into $OUT/history; exit 1 when a benchmark's
#            newest step is a regression
# Environment (defaults in brackets):
#   TRIBENCH  the tribench binary [build/tribench]
#   SHA       the commit under test [git rev-parse HEAD]
#   BASE_SHA  the commit to compare with; without stored runs of it, the newest stored run
#   STORE     folder of stored runs, <sha>-<n>.json [.tribench-results/results]
#   OUT       work folder, kept as the job's artifact [tribench-ci]
#   REPEATS   runs per commit: two give history a step at the newest commit at once, and
#             the noise model its A/A pairs [2]
#   RUN_ARGS  arguments of `tribench run` [--profile ci]
#   NOISE     noise model for per-benchmark thresholds [.tribench/noise.json, if present]
set -euo pipefail

TRIBENCH=${TRIBENCH:-build/tribench}
SHA=${SHA:-$(git rev-parse HEAD 2>/dev/null || true)}
STORE=${STORE:-.tribench-results/results}
OUT=${OUT:-tribench-ci}
REPEATS=${REPEATS:-2}
read -r -a RUN_ARGS <<< "${RUN_ARGS:---profile ci}"
NOISE=${NOISE:-}
if [[ -z "$NOISE" && -f .tribench/noise.json ]]; then NOISE=.tribench/noise.json; fi
noise_args=()
[[ -n "$NOISE" ]] && noise_args=(--noise "$NOISE")

die() { echo "tribench-ci: $*" >&2; exit 2; }

# The newest stored run (by its run time), for a base commit that was never benchmarked.
newest_stored() {
  python3 - "$STORE" <<'PY'
import glob, json, os, sys
best = None
for f in glob.glob(os.path.join(sys.argv[1], "*.json")):
    try:
        t = json.load(open(f))["environment"]["created_utc"]
    except (OSError, ValueError, KeyError, TypeError):
        continue
    if best is None or t > best[0]:
        best = (t, f)
print(best[1] if best else "")
PY
}

need_sha() { [[ -n "$SHA" ]] || die "SHA is not set and this is not a git work tree"; }

cmd_run() {
  need_sha
  mkdir -p "$OUT/results"
  local rc=0
  for ((i = 1; i <= REPEATS; i++)); do
    "$TRIBENCH" run "${RUN_ARGS[@]}" --out "$OUT/results/$SHA-$i.json" || rc=$?
    # 1: some benchmark failed (its result is in the file, compare calls it broken); 2+: no results.
    ((rc <= 1)) || die "tribench run exited $rc"
  done
  return "$rc"
}

cmd_compare() {
  need_sha
  local new="$OUT/results/$SHA-1.json" base="" note=""
  [[ -f "$new" ]] || die "no $new: run first"
  if [[ -n "${BASE_SHA:-}" && -f "$STORE/$BASE_SHA-1.json" ]]; then
    base="$STORE/$BASE_SHA-1.json"
  else
    base=$(newest_stored)
    [[ -n "$base" ]] && note="> No stored run of the base commit ${BASE_SHA:-(none given)}: compared with the newest stored run, $(basename "$base")."
  fi
  "$TRIBENCH" export --github-benchmark "$new" "$OUT/github-benchmark.json" >/dev/null || true
  if [[ -z "$base" ]]; then
    printf '### tribench compare: no base results yet\n\nNothing stored in %s to compare %s with.\n' "$STORE" "$SHA" > "$OUT/compare.md"
    return 0
  fi
  local rc=0
  "$TRIBENCH" compare "$base" "$new" "${noise_args[@]}" --markdown -o "$OUT/compare.md" --junit "$OUT/junit.xml" || rc=$?
  ((rc <= 1)) || die "tribench compare exited $rc"
  if [[ -n "$note" ]]; then printf '\n%s\n' "$note" >> "$OUT/compare.md"; fi
  "$TRIBENCH" compare "$base" "$new" "${noise_args[@]}" --color never || true  # the table in the job log
  return "$rc"
}

cmd_store() {
  need_sha
  mkdir -p "$STORE"
  cp "$OUT"/results/"$SHA"-*.json "$STORE"/
}

cmd_history() {
  local rc=0
  # Commit times come from git when this is the repository's work tree (else run times).
  "$TRIBENCH" history "$STORE" --out "$OUT/history" "${noise_args[@]}" || rc=$?
  ((rc <= 1)) || die "tribench history exited $rc"
  return "$rc"
}

case "${1:-}" in
  run) cmd_run ;;
  compare) cmd_compare ;;
  store) cmd_store ;;
  history) cmd_history ;;
  *) die "usage: tribench-ci.sh run|compare|store|history" ;;
esac
