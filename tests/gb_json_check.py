#!/usr/bin/env python3
"""Google Benchmark's own JSON (--benchmark_out) from `tribench run` is well formed: the
tools and CI actions that read Google Benchmark output must be able to read ours.
Usage: gb_json_check.py TRIBENCH OUTDIR"""
import json
import os
import subprocess
import sys

tribench, outdir = sys.argv[1], sys.argv[2]
os.makedirs(outdir, exist_ok=True)
gb = os.path.join(outdir, "gb.json")
ours = os.path.join(outdir, "tribench.json")
for f in (gb, ours):
    if os.path.exists(f):
        os.remove(f)
cmd = [tribench, "run", "--program", "mandelbrot", "--dataset", "128x128", "--backend", "opencl",
       "--min-time", "0.02", "--timeout", "1", "--benchmark_repetitions=2",
       "--benchmark_out=" + gb, "--benchmark_out_format=json", "--out", ours]
proc = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
if proc.returncode != 0:
    sys.exit(f"tribench exited {proc.returncode}: {proc.stderr}")

doc = json.load(open(gb))
assert "context" in doc and "benchmarks" in doc, "missing context/benchmarks"
runs = [b for b in doc["benchmarks"] if b.get("run_type") == "iteration"]
aggregates = {b["aggregate_name"] for b in doc["benchmarks"] if b.get("run_type") == "aggregate"}
assert len(runs) == 2, f"expected 2 repetitions, got {len(runs)}"
for b in runs:
    assert b["name"].startswith("mandelbrot/128x128/opencl"), b["name"]
    assert b["time_unit"] == "us", b["time_unit"]
    assert b["real_time"] > 0 and b["iterations"] >= 1, b
assert {"mean", "median", "stddev"} <= aggregates, aggregates

# The same samples are in tribench's results: both repetitions' samples, all positive.
res = json.load(open(ours))
(bench,) = res["benchmarks"]
assert bench["status"] == "ok", bench["status"]
assert len(bench["samples_ms"]) >= 2 * 10, len(bench["samples_ms"])  # >= min-samples per repetition
assert all(s > 0 for s in bench["samples_ms"])
print("Google Benchmark JSON well formed:", len(runs), "repetitions,", sorted(aggregates))
