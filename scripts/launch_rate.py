#!/usr/bin/env python3
"""Launch rates of the benchmarks where a backend trails cuda-native: from a results file
(docs/results-json.md, `launches` per run), a markdown table of every benchmark of at least
--min-ms whose BACKEND median is more than --slack slower than cuda-native's, with the
launches a run makes, launches per second and microseconds per launch on both.

A region of many launches whose time per launch is several times cuda-native's on kernels
of a few microseconds is bound by the backend's launch path, not by its kernels (issue 11:
such benchmarks are listed with their launches per second).

Usage: scripts/launch_rate.py RESULTS.json [--backend opencl] [--min-ms 0.1] [--slack 0.05]
"""
import argparse
import gzip
import json
import statistics
import sys


def is_gzip(path):
    """Results files may be stored gzip-compressed (reports/ keeps large ones as .json.gz)."""
    with open(path, "rb") as f:
        return f.read(2) == b"\x1f\x8b"


def median_ms(b):
    s = b.get("samples_ms") or []
    return statistics.median(s) if s else None


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("results")
    ap.add_argument("--backend", default="opencl")
    ap.add_argument("--min-ms", type=float, default=0.1)
    ap.add_argument("--slack", type=float, default=0.05)
    a = ap.parse_args()
    try:
        with (gzip.open if is_gzip(a.results) else open)(a.results, "rt") as f:
            runs = json.load(f)["benchmarks"]
    except (OSError, ValueError, KeyError) as e:
        sys.exit(f"launch_rate.py: cannot read {a.results}: {e}")
    by_name = {b["name"]: b for b in runs if b.get("status") == "ok"}
    if not any(b.get("launches") for b in by_name.values()):
        sys.exit(f"launch_rate.py: {a.results} has no launch counts (written before tribench recorded them)")
    rows = []
    for name, b in by_name.items():
        if b["backend"] != a.backend:
            continue
        native = by_name.get(name.replace(f"/{a.backend}", "/cuda-native", 1))
        if not native or not b.get("launches"):
            continue
        ms, base = median_ms(b), median_ms(native)
        if ms is None or base is None or max(ms, base) < a.min_ms or base / ms >= 1 - a.slack:
            continue
        n = b["launches"]
        rows.append((name, n, base, ms, n / (ms * 1e-3), ms * 1e3 / n, base * 1e3 / n))
    rows.sort(key=lambda r: -r[4])
    print(f"| benchmark ({a.backend}) | launches a run | cuda-native ms | {a.backend} ms | speed | "
          f"{a.backend} launches/s | us per launch ({a.backend} / cuda-native) |")
    print("|:--|--:|--:|--:|--:|--:|--:|")
    for name, n, base, ms, rate, us, us_native in rows:
        print(f"| {name} | {n} | {base:.4g} | {ms:.4g} | {base / ms:.2f}x | {rate:,.0f} | {us:.1f} / {us_native:.1f} |")


if __name__ == "__main__":
    main()
