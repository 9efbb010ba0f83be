#!/usr/bin/env python3
"""scripts/reference_table.py, scripts/launch_rate.py and scripts/spmv_auto_table.py on results
files made here, whose answers are known: each benchmark against its reference (cuFFT, the
faster cuSPARSE algorithm, the calibrated FP32 rate and copy bandwidth) by the median and by
the batch figure, the launch-rate rows, spmv `auto` against the fastest variant by medians
and by minima, and one-line refusals of files that are not results.
Usage: report_tables_check.py SCRIPTS_DIR WORKDIR"""
import json
import os
import subprocess
import sys

scripts, work = sys.argv[1:3]
os.makedirs(work, exist_ok=True)
failures = []


def check(cond, what):
    if not cond:
        failures.append(what)


def bench(program, dataset, variant, backend, median_ms, batch_ms=None, launch="stream", status="ok",
          throughput=None, launches=1, picked=None, min_ms=None):
    b = {"name": f"{program}/{dataset}/{variant}/{backend}/{launch}", "program": program, "dataset": dataset,
         "variant": variant, "backend": backend, "launch": launch, "status": status,
         "device": "opencl:1" if backend == "opencl" else "cuda-native:0", "launches": launches,
         "summary": {"median_ms": median_ms, "min_ms": min_ms or median_ms}, "samples_ms": [median_ms] * 3,
         "throughput": throughput or {}}
    if batch_ms:
        b["batch"] = {"ms": batch_ms, "runs": 10, "samples_ms": [batch_ms]}
    if picked:
        b["picked"] = picked
    return b


benchmarks = [
    # fft: cuFFT's own row of the same transform is the reference; another transform's is not.
    bench("fft", "1d-16m", "forward", "vendor", 0.28, 0.27),
    bench("fft", "1d-16m", "roundtrip", "vendor", 0.10),
    bench("fft", "1d-16m", "forward", "cuda-native", 0.35, 0.30, picked="4096sw/4 4096sw/4"),
    bench("fft", "1d-16m", "forward", "opencl", 0.45, 0.27, picked="4096sw/4 4096sw/4"),
    # spmv: the faster of cuSPARSE's algorithms on the same matrix; a failed backend is blank.
    bench("spmv", "fem-l", "csr-alg1", "vendor", 0.080),
    bench("spmv", "fem-l", "csr-alg2", "vendor", 0.064),
    bench("spmv", "fem-l", "merge", "cuda-native", 0.080),
    bench("spmv", "fem-l", "merge", "opencl", 0.1, status="validation_failed"),
    bench("spmv", "other-l", "merge", "cuda-native", 0.5),  # no cuSPARSE row: no reference
    # nbody and kmeans: the fractions of the calibrated ceilings the results file carries.
    bench("nbody", "n1m", "default", "cuda-native", 480.0, 400.0,
          throughput={"flop_fraction": 0.69, "gflops": 41400.0}),
    bench("kmeans", "10m", "assign", "opencl", 0.070, 0.0665,
          throughput={"bw_fraction": 0.95, "gbps": 2700.0}),
    # launch rate: many short launches on opencl, and a row within the slack.
    bench("stencil", "64x64x64", "unfused", "cuda-native", 11.85, launches=4100),
    bench("stencil", "64x64x64", "unfused", "opencl", 18.48, launches=4100),
    bench("stencil", "128x128x64", "fused", "cuda-native", 4.0, launches=1025),
    bench("stencil", "128x128x64", "fused", "opencl", 4.1, launches=1025),
]
results = {"schema": "tribench-results", "version": 1,
           "environment": {"tribench_version": "0.1.0", "tribench_commit": "abc1234", "created_utc": "2026-11-27T00:00:00Z"},
           "calibration": {"cuda-native:0": {"copy_gbps": 2870.0, "fp32_gflops": 59900.0, "empty_kernel_us": 0.86,
                                             "timing": "gated"}},
           "benchmarks": benchmarks}
path = os.path.join(work, "results.json")
with open(path, "w") as f:
    json.dump(results, f)


def run(script, *args):
    return subprocess.run([sys.executable, os.path.join(scripts, script), *args], capture_output=True, text=True)


def table(text):
    """benchmark -> its cells, from a markdown table."""
    rows = {}
    for line in text.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if line.startswith("| ") and len(cells) >= 3 and not cells[0].startswith(("benchmark", ":--")):
            rows[cells[0]] = cells[1:]
    return rows


r = run("reference_table.py", path)
check(r.returncode == 0, f"reference_table.py failed: {r.stderr}")
rows = table(r.stdout)
check(rows.get("fft/1d-16m/forward/stream -> 4096sw/4 4096sw/4") == ["cuFFT 0.28 ms", "0.80x", "", "0.62x"],
      f"fft row: {rows.get('fft/1d-16m/forward/stream -> 4096sw/4 4096sw/4')}")
check(rows.get("spmv/fem-l/merge/stream") == ["cuSPARSE csr-alg2 0.064 ms", "0.80x", "", ""],
      f"spmv row: {rows.get('spmv/fem-l/merge/stream')}")
check("spmv/other-l/merge/stream" not in rows, "a benchmark without a reference in the run is listed")
check(not any(k.startswith(("fft/1d-16m/roundtrip", "spmv/fem-l/csr-alg")) for k in rows),
      "the vendor's own rows are listed as benchmarks")
check(rows.get("nbody/n1m/default/stream") == ["FP32 (calibrated)", "0.69 (41.4 TFLOP/s)", "", ""],
      f"nbody row: {rows.get('nbody/n1m/default/stream')}")
check(rows.get("kmeans/10m/assign/stream") == ["copy (calibrated)", "", "", "0.95 (2.7 TB/s)"],
      f"kmeans row: {rows.get('kmeans/10m/assign/stream')}")
check("abc1234" in r.stdout and "copy 2.87 TB/s, FP32 59.9 TFLOP/s" in r.stdout, "run and calibration line")

r = run("reference_table.py", path, "--metric", "batch")
check(r.returncode == 0, f"reference_table.py --metric batch failed: {r.stderr}")
rows = table(r.stdout)
check(rows.get("fft/1d-16m/forward/stream -> 4096sw/4 4096sw/4") == ["cuFFT 0.27 ms", "0.90x", "", "1.00x"],
      f"fft batch row: {rows.get('fft/1d-16m/forward/stream -> 4096sw/4 4096sw/4')}")
# A fraction rescaled from the median to the batch figure: 0.69 * 480 / 400.
check(rows.get("nbody/n1m/default/stream", [""] * 2)[1] == "0.83 (49.7 TFLOP/s)",
      f"nbody batch row: {rows.get('nbody/n1m/default/stream')}")
check("spmv/fem-l/merge/stream" not in rows, "a benchmark whose reference has no batch figure is listed")

r = run("reference_table.py", path, "--program", "kmeans")
check(r.returncode == 0 and list(table(r.stdout)) == ["kmeans/10m/assign/stream"],
      f"--program kmeans: {list(table(r.stdout))}")

r = run("launch_rate.py", path)
check(r.returncode == 0, f"launch_rate.py failed: {r.stderr}")
rows = table(r.stdout)
# Every row of 0.1 ms or more over 5% slower, by opencl's launches per second; the stencil
# row within 5% is not one.
check(list(rows) == ["stencil/64x64x64/unfused/opencl/stream", "fft/1d-16m/forward/opencl/stream"],
      f"launch-rate rows: {list(rows)}")
check(rows.get("stencil/64x64x64/unfused/opencl/stream") == ["4100", "11.85", "18.48", "0.64x", "221,861", "4.5 / 2.9"],
      f"launch-rate row: {rows.get('stencil/64x64x64/unfused/opencl/stream')}")
check(rows.get("fft/1d-16m/forward/opencl/stream") == ["1", "0.35", "0.45", "0.78x", "2,222", "450.0 / 350.0"],
      f"launch-rate row: {rows.get('fft/1d-16m/forward/opencl/stream')}")

# Files that are not results: one line on stderr naming the file, a non-zero exit.
bad = os.path.join(work, "bad.json")
for content in ("{not json", json.dumps({"schema": "tribench-history", "benchmarks": []}),
                json.dumps({"schema": "tribench-results", "benchmarks": [{"program": "fft"}]})):
    with open(bad, "w") as f:
        f.write(content)
    r = run("reference_table.py", bad)
    lines = r.stderr.strip().splitlines()
    check(r.returncode != 0 and r.stdout == "" and len(lines) == 1 and "bad.json" in lines[0],
          f"reference_table.py on {content[:30]!r}: rc {r.returncode}, stderr {r.stderr!r}")

# A run without references (PoCL: no vendor rows, no calibration) is a table that says so.
with open(bad, "w") as f:
    json.dump({"schema": "tribench-results", "benchmarks": [bench("nbody", "n1k", "default", "opencl", 9.0)]}, f)
r = run("reference_table.py", bad)
check(r.returncode == 0 and "(none: no benchmark of this run has its reference" in r.stdout,
      f"a run without references: rc {r.returncode}, {r.stdout!r} {r.stderr!r}")

# spmv auto: fem-s picked the fastest and is within 5%; random-s picked the fastest, but its
# median reads 1.5x its own variant's (one kernel measured twice, as on PoCL) and its minimum
# does not; longrows-s picked a slower variant.
spmv = [bench("spmv", "fem-s", v, "opencl", ms, picked=pick) for v, ms, pick in
        (("scalar", 0.10, None), ("vector", 0.20, None), ("merge", 0.30, None), ("auto", 0.104, "scalar"))]
spmv += [bench("spmv", "random-s", "scalar", "opencl", 0.10, min_ms=0.090),
         bench("spmv", "random-s", "vector", "opencl", 0.40, min_ms=0.350),
         bench("spmv", "random-s", "auto", "opencl", 0.15, min_ms=0.091, picked="scalar")]
auto_path = os.path.join(work, "spmv.json")


def spmv_run(extra_benchmarks, *args):
    with open(auto_path, "w") as f:
        json.dump({"schema": "tribench-results", "version": 1, "benchmarks": spmv + extra_benchmarks}, f)
    return run("spmv_auto_table.py", auto_path, *args)


r = spmv_run([])
check(r.returncode == 0, f"spmv_auto_table.py: a noisy row whose pick was the fastest must pass: rc {r.returncode}")
check("auto picked the fastest variant on 2 of 2" in r.stdout and "within 5% of the fastest variant on 1 of 2" in r.stdout,
      f"spmv_auto_table.py by medians: {r.stdout}")
check("| random-s | opencl | stream | scalar | 0.1500 | scalar | 0.1000 | 1.500x |" in r.stdout, f"random-s row: {r.stdout}")
r = spmv_run([], "--stat", "min")
check(r.returncode == 0 and "within 5% of the fastest variant on 2 of 2" in r.stdout and "auto min ms" in r.stdout,
      f"spmv_auto_table.py --stat min: rc {r.returncode}, {r.stdout}")
r = spmv_run([bench("spmv", "longrows-s", "scalar", "opencl", 0.10), bench("spmv", "longrows-s", "merge", "opencl", 0.30),
              bench("spmv", "longrows-s", "auto", "opencl", 0.31, picked="merge")])
check(r.returncode == 1 and "auto picked the fastest variant on 2 of 3" in r.stdout,
      f"spmv_auto_table.py with a wrong pick: rc {r.returncode}, {r.stdout}")
with open(bad, "w") as f:
    f.write("{not json")
r = run("spmv_auto_table.py", bad)
check(r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1 and "bad.json" in r.stderr,
      f"spmv_auto_table.py on a file that is not JSON: rc {r.returncode}, {r.stderr!r}")

if failures:
    print("\n".join("FAIL: " + f for f in failures))
    sys.exit(1)
print("reference_table.py, launch_rate.py and spmv_auto_table.py: all checks passed")
