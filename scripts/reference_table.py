#!/usr/bin/env python3
"""Every benchmark of a results file against its reference measured in the same run, as a
markdown table (docs/compare.md, "Against the reference"):

  fft         cuFFT (the `vendor` row of the same dataset, variant and launch): its median /
              the backend's ("1.02x" = 2% faster than cuFFT)
  spmv        cuSPARSE, the faster of its algorithms on the same matrix and launch
              (`csr-alg1`, `csr-alg2`): its median / the backend's
  nbody,      the FP32 rate the backend's own device calibrated in the run
  mandelbrot  (`flop_fraction`; TFLOP/s by the program's work model)
  kmeans,     the copy bandwidth the backend's device calibrated in the run
  stencil     (`bw_fraction`; TB/s by the work model: above 1 where a kernel reads more
              than it writes, since the copy reads and writes as much)

--metric batch reads each benchmark's batch figure (one run's share of back-to-back runs)
instead of its median; a benchmark without one is left out.

Usage: scripts/reference_table.py RESULTS.json [--metric samples|batch] [--program P ...]
"""
import argparse
import gzip
import json
import sys


def is_gzip(path):
    """Results files may be stored gzip-compressed (reports/ keeps large ones as .json.gz)."""
    with open(path, "rb") as f:
        return f.read(2) == b"\x1f\x8b"

BACKENDS = ["cuda-native", "cuda-prelude", "opencl"]
BY_VENDOR = {"fft": "cuFFT", "spmv": "cuSPARSE"}
BY_FRACTION = {"nbody": ("flop_fraction", "gflops", "FP32", 1e3, "TFLOP/s"),
               "mandelbrot": ("flop_fraction", "gflops", "FP32", 1e3, "TFLOP/s"),
               "kmeans": ("bw_fraction", "gbps", "copy", 1e3, "TB/s"),
               "stencil": ("bw_fraction", "gbps", "copy", 1e3, "TB/s")}


def fail(message):
    print(f"reference_table.py: {message}", file=sys.stderr)
    sys.exit(2)


def load(path):
    try:
        with (gzip.open if is_gzip(path) else open)(path, "rt") as f:
            results = json.load(f)
        benchmarks = results["benchmarks"]
    except (OSError, ValueError, KeyError, TypeError) as e:
        fail(f"cannot read {path}: {e!r}")
    if results.get("schema") != "tribench-results" or not isinstance(benchmarks, list):
        fail(f"{path} is not a tribench results file (schema {results.get('schema')!r})")
    return results


def time_ms(b, metric):
    """The benchmark's figure under the metric, None where it has none."""
    if b.get("status") != "ok":
        return None
    if metric == "batch":
        ms = (b.get("batch") or {}).get("ms") or 0
    else:
        ms = (b.get("summary") or {}).get("median_ms") or 0
    return ms if ms > 0 else None


def row_key(b):
    return (b["program"], b["dataset"], b["variant"], b["launch"])


def vendor_reference(program, rows, key, metric):
    """(label, ms) of the fastest vendor benchmark that is the reference of row `key`."""
    prog, dataset, variant, launch = key
    best = None
    for k, cells in rows.items():
        b = cells.get("vendor")
        if not b or k[0] != prog or k[1] != dataset or k[3] != launch:
            continue
        if prog == "fft" and k[2] != variant:  # cuFFT runs each transform as the backends do
            continue
        ms = time_ms(b, metric)
        if ms and (best is None or ms < best[1]):
            label = BY_VENDOR[prog] + ("" if prog == "fft" else " " + k[2])
            best = (label, ms)
    return best


def calibration_line(results):
    cal = results.get("calibration") or {}
    parts = []
    for device, c in sorted(cal.items()):
        if isinstance(c, dict) and c.get("copy_gbps") and c.get("fp32_gflops"):
            parts.append(f"{device} copy {c['copy_gbps'] / 1e3:.2f} TB/s, FP32 {c['fp32_gflops'] / 1e3:.1f} TFLOP/s")
    return "; ".join(parts) if parts else "none (run without calibration: no fractions)"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("results")
    ap.add_argument("--metric", choices=["samples", "batch"], default="samples")
    ap.add_argument("--program", nargs="+", default=None, help="only these programs")
    a = ap.parse_args()
    results = load(a.results)
    env = results.get("environment") or {}

    # Row key -> backend -> benchmark, in the order of the file (a backend on several devices:
    # the first).
    rows = {}
    for b in results["benchmarks"]:
        try:
            key = row_key(b)
        except (KeyError, TypeError) as e:
            fail(f"{a.results}: a benchmark without its program, dataset, variant or launch ({e!r})")
        if a.program and key[0] not in a.program:
            continue
        rows.setdefault(key, {}).setdefault(b.get("backend"), b)

    lines = []
    for key, cells in rows.items():
        prog = key[0]
        own = [cells.get(backend) for backend in BACKENDS]
        if not any(b and time_ms(b, a.metric) for b in own):
            continue
        if prog in BY_VENDOR:
            ref = vendor_reference(prog, rows, key, a.metric)
            if not ref:
                continue
            reference = f"{ref[0]} {ref[1]:.4g} ms"
            texts = [f"{ref[1] / ms:.2f}x" if b and (ms := time_ms(b, a.metric)) else "" for b in own]
        elif prog in BY_FRACTION:
            fraction, rate, what, scale, unit = BY_FRACTION[prog]
            reference = f"{what} (calibrated)"
            texts = []
            for b in own:
                ms = time_ms(b, a.metric) if b else None
                tp = (b or {}).get("throughput") or {}
                if not ms or not tp.get(fraction):
                    texts.append("")
                    continue
                # The file's fractions and rates are per median; the batch figure rescales them.
                s = (b["summary"]["median_ms"] / ms) if a.metric == "batch" else 1.0
                texts.append(f"{tp[fraction] * s:.2f} ({tp[rate] * s / scale:.3g} {unit})")
            if not any(texts):
                continue
        else:
            continue
        picks = []  # what a benchmark that chooses ran (spmv auto's kernel, fft's plan), as compare shows it
        for b in own:
            if b and b.get("picked") and b["picked"] not in picks:
                picks.append(b["picked"])
        name = "/".join(key) + (" -> " + ",".join(picks) if picks else "")
        lines.append(f"| {name} | {reference} | " + " | ".join(texts) + " |")
    if not lines:  # a run on PoCL, or without calibration: nothing to set against
        lines = ["| (none: no benchmark of this run has its reference measured in the same run: a vendor "
                 "row for fft and spmv, a calibration for the others) | | | | |"]
    figure = "batch figures" if a.metric == "batch" else "medians"
    print(f"# Against the reference, same run ({figure})\n")
    print(f"Run: {a.results} (tribench {env.get('tribench_version', '?')} {env.get('tribench_commit', '?')}, "
          f"{env.get('created_utc', '?')}). Calibrated: {calibration_line(results)}.\n")
    print("| benchmark | reference | " + " | ".join(BACKENDS) + " |")
    print("|:--|:--|" + "--:|" * len(BACKENDS))
    print("\n".join(lines))


if __name__ == "__main__":
    main()
