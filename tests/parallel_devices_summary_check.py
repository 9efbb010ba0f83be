#!/usr/bin/env python3
"""scripts/parallel_devices_summary.py on made-up results: the wall-time ratio, the benchmark
sets, compare's verdicts and the per-backend table decide its output and exit status.

Usage: parallel_devices_summary_check.py SCRIPT WORKDIR
"""
import json
import os
import shutil
import subprocess
import sys

SCRIPT, WORK = sys.argv[1], sys.argv[2]
failures = []


def check(cond, what):
    print(("ok   " if cond else "FAIL ") + what)
    if not cond:
        failures.append(what)


def results(medians, merged=False):
    """A results file: {name: (backend, median ms)}."""
    r = {"environment": {"hostname": "h", "created_utc": "2026-11-28T00:00:00Z", "tribench_commit": "abc"},
         "devices": [{"name": "GPU X"}],
         "benchmarks": [{"name": n, "backend": b, "status": "ok", "summary": {"median_ms": ms}}
                        for n, (b, ms) in medians.items()]}
    if merged:
        r["merged_from"] = [{"shard": {"index": k, "count": 2, "visible_devices": str(k - 1), "estimated_s": 10.0},
                             "benchmarks": 2, "benchmarks_wall_s": 9.5} for k in (1, 2)]
    return r


def folder(name, one, par, alone=None, regressions=()):
    d = os.path.join(WORK, name)
    os.makedirs(d)
    for file, data in (("one-gpu.json", one), ("parallel.json", par), ("alone.json", alone)):
        if data is not None:
            with open(os.path.join(d, file), "w") as f:
                json.dump(data, f)
    for cmp in ("compare", "sharing"):
        for suffix in ("", "-global"):
            with open(os.path.join(d, f"{cmp}{suffix}.txt"), "w") as f:
                f.writelines(f"{r}  1.0  1.2  0.83x  +20.0%  <0.001  regression\n" for r in regressions)
                f.write(f"summary: {len(regressions)} regressions, 3 unchanged\n")
    return d


def summary(d, *args):
    p = subprocess.run([sys.executable, SCRIPT, d, "--gpus", "0,1", *args], capture_output=True, text=True)
    with open(os.path.join(d, "summary.md")) as f:
        return p.returncode, f.read()


shutil.rmtree(WORK, ignore_errors=True)
os.makedirs(WORK)
ONE = {"a/cuda-native": ("cuda-native", 1.0), "b/cuda-native": ("cuda-native", 0.05),
       "c/opencl": ("opencl", 2.0), "d/opencl": ("opencl", 0.5)}
SAME = results(ONE, merged=True)
SLOWER = results({"a/cuda-native": ("cuda-native", 1.03), "b/cuda-native": ("cuda-native", 0.05),
                  "c/opencl": ("opencl", 2.0), "d/opencl": ("opencl", 0.45)}, merged=True)

rc, text = summary(folder("ok", results(ONE), SAME), "--one-s", "100", "--parallel-s", "50",
                   "--rc", "one=0", "parallel=0", "compare=0")
check(rc == 0, f"ratio 0.5, same benchmarks, no regression: exit 0 (got {rc})")
check("ratio 0.500 (target <= 0.55)" in text, "the wall-time ratio is stated")
check("same benchmarks: yes" in text, "the benchmark sets are compared")
check("| cuda-native | >= 0.1 ms | 1 | 1.0000 |" in text and "| cuda-native | < 0.1 ms | 1 | 1.0000 |" in text,
      "rows of 0.1 ms and more are tabled apart from shorter ones")

rc, text = summary(folder("slow", results(ONE), SAME), "--one-s", "100", "--parallel-s", "60")
check(rc == 1 and "ratio 0.600" in text, f"ratio 0.6 fails the 0.55 target (exit {rc})")
rc, text = summary(folder("loose", results(ONE), SAME), "--one-s", "100", "--parallel-s", "60", "--max-ratio", "0.7")
check(rc == 0, f"--max-ratio sets the target (exit {rc})")

missing = results({k: v for k, v in ONE.items() if k != "d/opencl"}, merged=True)
rc, text = summary(folder("missing", results(ONE), missing), "--one-s", "100", "--parallel-s", "50")
check(rc == 1 and "same benchmarks: NO" in text, f"a benchmark missing from the merge fails (exit {rc})")

rc, text = summary(folder("regressed", results(ONE), SLOWER, regressions=["a/cuda-native"]),
                   "--one-s", "100", "--parallel-s", "50", "--noise", "n.json", "--rc", "compare=1")
check(rc == 1, f"compare's regression fails the check (exit {rc})")
check("exit 1 by the noise model n.json, summary: 1 regressions" in text and "  - a/cuda-native" in text,
      "the verdict names the noise model and lists the regressed rows")
check("by the global 5% threshold alone" in text, "the global threshold's verdict is shown beside the noise model's")
check("| cuda-native | >= 0.1 ms | 1 | 1.0300 | 1.030-1.030 | 1 | 0 |" in text, "a 3% slower row counts as > 2% slower")
check("| opencl | >= 0.1 ms | 2 | 0.9500 | 0.900-1.000 | 0 | 1 |" in text, "a 10% faster row counts as > 2% faster")

rc, text = summary(folder("alone", results(ONE), SAME, alone=results(ONE)), "--one-from", "old.json",
                   "--parallel-s", "50", "--alone-s", "100", "--rc", "alone=0", "sharing=0")
check(rc == 0, f"with the shards alone and no one-GPU run: exit 0 (got {rc})")
check("from old.json (not run again: no wall-time ratio)" in text, "a reused one-GPU run gives no ratio")
check("the parallel run took 0.500 of it" in text and "Medians, merged / shards alone" in text,
      "the shards-alone run is timed and tabled")

if failures:
    print(f"{len(failures)} check(s) failed")
    sys.exit(1)
print("all checks passed")
