#!/usr/bin/env python3
"""Google Benchmark's own tools/compare.py reads tribench's --benchmark_out files and prints
non-zero times for every benchmark, short kernels included (the unit is us; with ms it
printed 0 for everything under 0.5 ms).

Usage: gb_compare_check.py TRIBENCH OUTDIR
compare.py comes from Debian's libbenchmark-tools (/usr/share/benchmark/compare.py) or
$GB_COMPARE_PY, and needs scipy; without either the check is skipped (exit 77)."""
import os
import re
import subprocess
import sys

SKIP = 77
tribench, outdir = sys.argv[1], sys.argv[2]
compare_py = os.environ.get("GB_COMPARE_PY", "/usr/share/benchmark/compare.py")
if not os.path.isfile(compare_py):
    print("skipped: no %s (apt-get install libbenchmark-tools)" % compare_py)
    sys.exit(SKIP)
if subprocess.run([sys.executable, "-c", "import scipy"], capture_output=True).returncode != 0:
    print("skipped: compare.py needs scipy")
    sys.exit(SKIP)

os.makedirs(outdir, exist_ok=True)
# A short kernel (fft 1d-256x8, ~0.06 ms on PoCL) and a longer one (mandelbrot 128x128, ~2 ms).
files = []
for i in (1, 2):
    gb = os.path.join(outdir, "gb%d.json" % i)
    if os.path.exists(gb):
        os.remove(gb)
    cmd = [tribench, "run", "--program", "fft,mandelbrot", "--dataset", "1d-256x8,128x128", "--variant", "forward,default",
           "--backend", "opencl", "--min-time", "0.02", "--timeout", "1",
           "--benchmark_out=" + gb, "--benchmark_out_format=json"]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    if p.returncode != 0:
        sys.exit("tribench exited %d: %s" % (p.returncode, p.stderr))
    files.append(gb)

p = subprocess.run([sys.executable, compare_py, "--no-color", "benchmarks", files[0], files[1]],
                   capture_output=True, text=True, timeout=120)
if p.returncode != 0:
    sys.exit("compare.py exited %d:\n%s%s" % (p.returncode, p.stdout, p.stderr))
# Rows: name, time change, cpu change, time old, time new, cpu old, cpu new. Google
# Benchmark appends "/iterations:1/manual_time" to the names; OVERALL_GEOMEAN (always 0 in
# the time columns) is not a benchmark.
rows = [line.split() for line in p.stdout.splitlines() if line.startswith(("fft/", "mandelbrot/"))]
names = {r[0].split("/iterations:")[0] for r in rows}
if names != {"fft/1d-256x8/forward/opencl", "mandelbrot/128x128/opencl"}:
    sys.exit("compare.py did not pair both benchmarks:\n" + p.stdout)
for r in rows:
    old, new = float(r[3]), float(r[4])
    if not (old > 0 and new > 0):
        sys.exit("compare.py printed a zero time:\n" + p.stdout)
fft_old = float(next(r for r in rows if r[0].startswith("fft/"))[3])
if not re.match(r"^\d+$", next(r for r in rows if r[0].startswith("fft/"))[3]) or fft_old < 5:
    sys.exit("the short kernel's time is not shown in whole microseconds:\n" + p.stdout)
print(p.stdout)
print("compare.py paired %d benchmarks, all times non-zero" % len(names))
