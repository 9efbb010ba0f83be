#!/usr/bin/env bash
# Everything GPU-side in one call: build from source, run the tests, list devices, run the
# suite on every available backend, dump PTX, and print a short table last.
# Usage: scripts/gpu_suite.sh OUTDIR [extra `tribench run` arguments...]
# Stage "timing" compares tribench's clock with Nsight Compute's (scripts/ncu_agreement.sh);
# stage "ci" runs `--profile ci` SUITE_CI_RUNS times (default 5) and compares each later run
# with the first (A/A: no regression may be reported). Stage "soak" runs scripts/soak.sh.
# Stages "default", "signals", "hang", "tune" and "portability" check a run that loses nothing
# and tuning (docs/robustness.md, docs/tuning.md); they write OUTDIR/robustness.txt.
# Stage "sanitize" runs compute-sanitizer (memcheck, racecheck, synccheck) over every
# program, variant and launch mode of both CUDA backends on the small datasets.
# Writes OUTDIR/results.json.gz, OUTDIR/tables.md (compare --backends, scripts/reference_table.py,
# scripts/launch_rate.py), OUTDIR/summary.txt and OUTDIR/logs.tar.gz (build, test, run logs
# and PTX). Environment: SUITE_STAGES (default "build test list run ptx"),
# SUITE_MIN_TIME (seconds per benchmark, default 0.25), SUITE_BUDGET (`run --budget` of the
# suite run, default none), SUITE_CMAKE_ARGS (extra cmake
# arguments, e.g. -DTRIBENCH_PROGRAMS=mandelbrot).
set -uo pipefail
OUT=${1:?usage: scripts/gpu_suite.sh OUTDIR [tribench run args...]}
shift
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
cd "$(dirname "$0")/.." || exit 2
ROOT=$PWD
LOGS=$(mktemp -d)
STAGES=${SUITE_STAGES:-build test list run ptx sanitize}
BUILD=build-gpu
status=0
has() { [[ " $STAGES " == *" $1 "* ]]; }
note() { echo "== $*" | tee -a "$LOGS/stages.log"; }
# The logs so far into OUTDIR: a call cut by the device's time limit still brings back the
# stages it finished (2026-12-06: one that ran out during a view's run brought back nothing).
pack() { tar -C "$LOGS" -czf "$OUT/logs.tar.gz" . 2>/dev/null; }

# Packages the GPU image lacks travel in .deps (Debian packages unpacked, see README).
PREFIX=()
[[ -d .deps/usr ]] && PREFIX=(-DCMAKE_PREFIX_PATH="$ROOT/.deps/usr")

if has build; then
  note "build"
  # SUITE_BUILD_TARGETS: only these targets (e.g. tribench, when the tests are not run).
  if ! { cmake -S . -B $BUILD -G Ninja -DCMAKE_BUILD_TYPE=Release "${PREFIX[@]}" ${SUITE_CMAKE_ARGS:-} &&
         cmake --build $BUILD ${SUITE_BUILD_TARGETS:+--target $SUITE_BUILD_TARGETS} -- -k 0; } >"$LOGS/build.log" 2>&1; then
    tail -30 "$LOGS/build.log"; note "build FAILED"; status=1
  fi
fi
TB=$ROOT/$BUILD/tribench
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.max.sm --format=csv >"$LOGS/nvidia-smi.txt" 2>&1

if has test && [[ -x $TB ]]; then
  note "test"
  if ! ctest --test-dir $BUILD --output-on-failure -j 8 >"$LOGS/test.log" 2>&1; then
    grep -E "tests passed|Failed|FAILED|\*\*\*" "$LOGS/test.log" | tail -30; status=1
  fi
  grep -E "tests passed" "$LOGS/test.log"
fi
if has list && [[ -x $TB ]]; then
  note "list"; "$TB" list 2>&1 | tee "$LOGS/list.txt"
fi
if has run && [[ -x $TB ]]; then
  note "run"
  budget=(); [[ -n ${SUITE_BUDGET:-} ]] && budget=(--budget "$SUITE_BUDGET")
  start=$(date +%s)
  "$TB" run --keep-going --min-time "${SUITE_MIN_TIME:-0.25}" "${budget[@]}" --out "$OUT/results.json" "$@" \
      >"$LOGS/run.log" 2>&1 || status=1
  echo "suite wall time: $(( $(date +%s) - start )) s" | tee -a "$LOGS/run.log"
  # The run's tables (reports/h100/suite has each as its own file): the backends against
  # cuda-native, each benchmark against its reference, and where opencl trails by launches.
  if [[ -f $OUT/results.json ]]; then
    { echo "# Tables of $OUT/results.json"; echo
      "$TB" compare --backends "$OUT/results.json" --markdown; echo
      python3 scripts/reference_table.py "$OUT/results.json"; echo
      echo "# Where opencl trails cuda-native (scripts/launch_rate.py)"; echo
      python3 scripts/launch_rate.py "$OUT/results.json"; } >"$OUT/tables.md" 2>>"$LOGS/run.log" || status=1
  fi
fi
# Stage "hang": tests/robustness/spinning_kernel's Mandelbrot never ends on 512x512. On each
# backend it must fail within --kernel-timeout, the other two datasets validate, and the next
# process must find the device usable.
if has hang && [[ -x $TB ]]; then
  note "hang"
  for backend in cuda-native cuda-prelude opencl; do
    start=$(date +%s); rc=0
    TRIBENCH_KERNEL_DIR=$ROOT/tests/robustness/spinning_kernel timeout -s KILL 300 \
      "$TB" run -p mandelbrot -b "$backend" --dataset 128x128,512x512,1024x1024 --kernel-timeout 10 \
      --keep-going --min-time 0.2 --out "$LOGS/hang-$backend.json" >"$LOGS/hang-$backend.log" 2>&1 || rc=$?
    took=$(( $(date +%s) - start ))
    verdict=$(python3 - "$LOGS/hang-$backend.json" <<'PY'
import json, sys
try:
    b = {x["dataset"]: x for x in json.load(open(sys.argv[1]))["benchmarks"]}
except (OSError, ValueError) as e:
    print(f"no results ({e})"); sys.exit(1)
ok = (b.get("512x512", {}).get("status") == "error" and "did not finish within" in b["512x512"].get("error", "")
      and all(b.get(d, {}).get("status") == "ok" for d in ("128x128", "1024x1024")))
print(("as expected: " if ok else "WRONG: ") + ", ".join(f"{d} {x['status']}" for d, x in b.items()))
sys.exit(0 if ok else 1)
PY
) || status=1
    rc2=0; "$TB" run -p mandelbrot -b "$backend" --small --min-time 0.1 >"$LOGS/hang-after-$backend.log" 2>&1 || rc2=$?
    echo "spinning kernel on $backend: exit $rc after $took s, $verdict; next process: exit $rc2" |
      tee -a "$OUT/robustness.txt"
    ((rc2)) && status=1
  done
fi
# Stage "default": the README's main job, `tribench run` with no options (its default budget),
# timed; then spmv `auto` against the fastest variant of that run.
if has default && [[ -x $TB ]]; then
  note "default"
  start=$(date +%s); rc=0
  timeout -s INT 600 "$TB" run --out "$OUT/default.json" >"$LOGS/default.log" 2>&1 || rc=$?
  echo "default run (no options): $(( $(date +%s) - start )) s, exit $rc" | tee -a "$OUT/robustness.txt"
  pack
  ((rc > 1)) && status=1
  grep -E "^tribench: .*benchmarks done" "$LOGS/default.log" | head -3 >>"$OUT/robustness.txt"
  if [[ -f $OUT/default.json ]]; then
    python3 scripts/spmv_auto_table.py "$OUT/default.json" >"$LOGS/spmv-auto.md" 2>&1
    cp "$LOGS/spmv-auto.md" "$OUT/"
    tail -2 "$LOGS/spmv-auto.md" | tee -a "$OUT/robustness.txt"
  fi
fi
# Stage "signals": the default suite stopped by SIGINT, then by SIGTERM, SUITE_SIGNAL_AFTER
# seconds in (default 60): every finished benchmark must be in the results file.
if has signals && [[ -x $TB ]]; then
  note "signals"
  for sig in INT TERM; do
    rm -f "$LOGS/sig-$sig.json" "$LOGS/sig-$sig.json.journal"
    "$TB" run --out "$LOGS/sig-$sig.json" >"$LOGS/sig-$sig.log" 2>&1 &
    pid=$!
    sleep "${SUITE_SIGNAL_AFTER:-60}"
    sent=$(date +%s.%N); kill -s "$sig" $pid; rc=0; wait $pid || rc=$?
    took=$(python3 -c "import time; print(f'{time.time() - $sent:.1f}')")
    python3 scripts/check_interrupted.py "$LOGS/sig-$sig.json" $rc $sig | sed "s/\$/; stopped ${took} s after the signal/" |
      tee -a "$OUT/robustness.txt"
    [[ ${PIPESTATUS[0]} -eq 0 ]] || status=1
  done
fi
# Stage "tune": `tribench tune` of SUITE_TUNE_PROGRAMS (default mandelbrot,stencil; "all":
# the default selection) and SUITE_TUNE_DATASETS (`-d`, tune and views alike; default the
# programs' default datasets) with SUITE_TUNE_BUDGET seconds (default 120) and SUITE_TUNE_ARGS
# (stopped by SIGINT after SUITE_TUNE_LIMIT seconds when set; SUITE_TUNE_FILE: no tune, that
# file instead),
# then the same selection run as SUITE_TUNE_VIEWS says (default "untuned tuned shared"):
# untuned, tuned (each backend its own) and with cuda-native's configuration on every
# backend, each with --budget SUITE_TUNE_RUN_BUDGET (default 60): compare untuned/tuned
# (OUTDIR/tuned-vs-untuned.txt), and compare --backends's two views (docs/tuning.md).
if has tune && [[ -x $TB ]]; then
  note "tune"
  programs=${SUITE_TUNE_PROGRAMS:-mandelbrot,stencil}
  select=(-p "$programs"); [[ $programs == all ]] && select=()
  [[ -n ${SUITE_TUNE_DATASETS:-} ]] && select+=(-d "$SUITE_TUNE_DATASETS")
  if [[ -n ${SUITE_TUNE_FILE:-} ]]; then  # an earlier call's tuning file: no tune, the views only
    rc=0; gzip -cdf "$SUITE_TUNE_FILE" >"$OUT/tuning.json" || status=1
  else
    start=$(date +%s); rc=0
    # SUITE_TUNE_LIMIT: SIGINT after this many seconds (tune keeps the keys it finished).
    # shellcheck disable=SC2086
    ${SUITE_TUNE_LIMIT:+timeout -s INT "$SUITE_TUNE_LIMIT"} \
    "$TB" tune "${select[@]}" --budget "${SUITE_TUNE_BUDGET:-120}" ${SUITE_TUNE_ARGS:-} \
      -o "$OUT/tuning.json" >"$LOGS/tune.log" 2>&1 || rc=$?
    echo "tune $programs (--budget ${SUITE_TUNE_BUDGET:-120}): $(( $(date +%s) - start )) s, exit $rc" | tee -a "$OUT/robustness.txt"
    { echo "tuning keys: $(grep -c "^tune: .* configurations, " "$LOGS/tune.log"), searched beyond their default: $(grep -c "^tune: \[2/" "$LOGS/tune.log")"; } | tee -a "$OUT/robustness.txt"
    pack
  fi
  ((rc > 1)) && status=1
  if [[ -f $OUT/tuning.json ]]; then
    views=${SUITE_TUNE_VIEWS:-untuned tuned shared}
    for tag in $views; do
      args=(--tuning "$OUT/tuning.json")
      [[ $tag == untuned ]] && args=(--tuning none)
      [[ $tag == shared ]] && args+=(--tuning-backend cuda-native)
      start=$(date +%s)
      "$TB" run "${select[@]}" "${args[@]}" --budget "${SUITE_TUNE_RUN_BUDGET:-60}" --keep-going \
        --out "$LOGS/run-$tag.json" >"$LOGS/run-$tag.log" 2>&1 || status=1
      echo "run $tag ($programs): $(( $(date +%s) - start )) s" | tee -a "$OUT/robustness.txt"
      pack
    done
    if [[ " $views " == *" untuned "* && " $views " == *" tuned "* ]]; then
      "$TB" compare "$LOGS/run-untuned.json" "$LOGS/run-tuned.json" >"$OUT/tuned-vs-untuned.txt" 2>&1
      tail -25 "$OUT/tuned-vs-untuned.txt"
      python3 scripts/spmv_auto_table.py "$LOGS/run-tuned.json" >"$OUT/spmv-auto-tuned.md" 2>&1
      tail -2 "$OUT/spmv-auto-tuned.md" | tee -a "$OUT/robustness.txt"
    fi
    if [[ " $views " == *" shared "* && " $views " == *" tuned "* ]]; then
      "$TB" compare --backends "$LOGS/run-shared.json" --best "$LOGS/run-tuned.json" --markdown \
        >"$OUT/two-views.md" 2>&1
      cat "$OUT/two-views.md"
    fi
  fi
fi
# Stage "portability": scripts/portability.py run of a merged tuning file (SUITE_PORT_FILE,
# default this call's OUTDIR/tuning.json: put other devices' entries there before the tune
# stage and `tune -o` keeps them) with SUITE_PORT_ARGS (default "-b opencl --budget 45"),
# then its table of this device's row: OUTDIR/portability.md; the runs, for a table of
# several devices' rows (docs/tuning.md), in OUTDIR/portability.tar.gz.
if has portability && [[ -x $TB ]]; then
  note "portability"
  start=$(date +%s)
  # shellcheck disable=SC2086
  TRIBENCH=$TB python3 scripts/portability.py run "${SUITE_PORT_FILE:-$OUT/tuning.json}" "$LOGS/port" \
    ${SUITE_PORT_ARGS:--b opencl --budget 45} >"$LOGS/portability.log" 2>&1 || status=1
  echo "portability runs: $(( $(date +%s) - start )) s" | tee -a "$OUT/robustness.txt"
  python3 scripts/portability.py table "$LOGS"/port/*.json >"$OUT/portability.md" 2>&1 || status=1
  cat "$OUT/portability.md"
  tar -C "$LOGS" -czf "$OUT/portability.tar.gz" port 2>/dev/null
  pack
fi
if has timing && [[ -x $TB ]]; then
  note "timing"
  scripts/ncu_agreement.sh "$TB" "$LOGS/ncu" >"$LOGS/ncu.log" 2>&1 || status=1
  cp "$LOGS/ncu/ncu_agreement.md" "$OUT/" 2>/dev/null
  cat "$LOGS/ncu/ncu_agreement.md" 2>/dev/null
fi
if has ci && [[ -x $TB ]]; then
  note "ci"
  for i in $(seq 1 "${SUITE_CI_RUNS:-5}"); do
    start=$(date +%s)
    rc=0; "$TB" run --profile ci --keep-going --out "$LOGS/ci-$i.json" >"$LOGS/ci-$i.log" 2>&1 || rc=$?
    ((rc)) && status=1
    echo "ci profile run $i: $(( $(date +%s) - start )) s, exit $rc" | tee -a "$LOGS/ci.txt"
    if ((i > 1)); then
      rc=0; "$TB" compare "$LOGS/ci-1.json" "$LOGS/ci-$i.json" >"$LOGS/ci-aa-$i.txt" 2>&1 || rc=$?
      echo "A/A compare 1 vs $i: exit $rc (0: no regression)" | tee -a "$LOGS/ci.txt"
      tail -3 "$LOGS/ci-aa-$i.txt"
    fi
  done
  cp "$LOGS/ci-1.json" "$OUT/ci.json"
fi
if has soak && [[ -x $TB ]] && [[ -x scripts/soak.sh ]]; then
  note "soak"
  TRIBENCH=$TB scripts/soak.sh "$LOGS/soak" >"$LOGS/soak.log" 2>&1 || status=1
  tail -20 "$LOGS/soak.log"
fi
if has ptx && [[ -x $TB ]]; then
  note "ptx"; "$TB" ptx --out "$LOGS/ptx" >"$LOGS/ptx.log" 2>&1 || status=1
  # NVRTC's PTX of kernels.cl against NVIDIA's OpenCL compiler's (docs/ptx-tools.md): the
  # summary, the diffs beside it; here each kernel's count line and its SASS line.
  "$TB" ptxdiff -p all cuda-prelude opencl --out "$LOGS/ptxdiff-prelude-opencl.diff" \
      >"$LOGS/ptxdiff-prelude-opencl.txt" 2>&1 || status=1
  grep -E "^(ptxdiff|kernel|  SASS:)" "$LOGS/ptxdiff-prelude-opencl.txt" | head -80
fi
if has sanitize && [[ -x $TB ]] && command -v compute-sanitizer >/dev/null; then
  note "sanitize"
  for tool in memcheck racecheck synccheck; do
    compute-sanitizer --tool $tool --error-exitcode 99 --print-limit 20 \
      "$TB" run --small --keep-going --backend cuda-native,cuda-prelude --no-calibrate \
      --min-time 0.001 --min-samples 2 --timeout 0.05 >"$LOGS/sanitize-$tool.log" 2>&1
    rc=$?
    summary=$(grep -E "(ERROR|RACECHECK) SUMMARY" "$LOGS/sanitize-$tool.log" | tail -2 | tr "\n" " ")
    echo "compute-sanitizer $tool: exit $rc; ${summary:-no summary}" | tee -a "$LOGS/sanitize-summary.txt"
    [[ $rc -ne 0 ]] && status=1
  done
fi
# Results files can be large (every sample is kept): ship them compressed.
for f in "$OUT"/*.json; do [[ -f $f ]] && gzip -f "$f"; done
pack
[[ -f $LOGS/run.log ]] && cp "$LOGS/run.log" "$OUT/summary.txt"
[[ -f $LOGS/sanitize-summary.txt ]] && cat "$LOGS/sanitize-summary.txt"
[[ -f $OUT/robustness.txt ]] && { echo "== robustness"; cat "$OUT/robustness.txt"; }
echo "== short table (exit $status)"
[[ -f $LOGS/run.log ]] && cat "$LOGS/run.log" | tail -60
exit $status
