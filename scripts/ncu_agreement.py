#!/usr/bin/env python3
"""Table of scripts/ncu_agreement.sh: ncu's median kernel time against tribench's gated and
plain medians of the same benchmarks, and opencl against cuda-prelude (same kernels.cl)."""
import csv
import json
import os
import statistics
import sys


def ncu_median_us(path):
    """Median gpu__time_duration (ns in the CSV with --print-units base) over all launches."""
    if not os.path.exists(path):
        return None
    with open(path, newline="") as f:
        lines = [l for l in f if l.startswith('"')]  # ncu's own messages are not quoted
    values = [float(r["Metric Value"].replace(",", "")) for r in csv.DictReader(lines)
              if r.get("Metric Name") == "gpu__time_duration.sum"]
    return statistics.median(values) / 1000 if values else None


def medians(path):
    with open(path) as f:
        doc = json.load(f)
    return {(b["program"], b["dataset"], b["variant"], b["backend"]): b
            for b in doc["benchmarks"] if b["status"] == "ok"}


def main(out):
    gated, plain = medians(f"{out}/gated.json"), medians(f"{out}/plain.json")
    print("| benchmark | backend | ncu median us | gated us | gated vs ncu | plain us | plain vs ncu |")
    print("|---|---|---:|---:|---:|---:|---:|")
    worst = 0.0
    for key in sorted(gated):
        prog, ds, var, backend = key
        if backend not in ("cuda-native", "cuda-prelude"):
            continue
        ncu = ncu_median_us(f"{out}/ncu/{prog}-{ds}-{var}-{backend}.csv")
        g = gated[key]["summary"]["median_ms"] * 1000
        p = plain[key]["summary"]["median_ms"] * 1000 if key in plain else float("nan")
        if ncu is None:  # in the run's cross product, not one of the profiled benchmarks
            continue
        if ncu >= 20:
            worst = max(worst, abs(g / ncu - 1))
        print(f"| {prog} {ds} {var} | {backend} | {ncu:.1f} | {g:.1f} | {100 * (g / ncu - 1):+.1f}% "
              f"| {p:.1f} | {100 * (p / ncu - 1):+.1f}% |")
    print(f"\nLargest |gated - ncu| on kernels of 20 us or more: {100 * worst:.1f}%")
    clocks = sorted({b["timing"].get("clock", "events") for b in gated.values() if b["backend"] != "opencl"})
    print(f"Clock of the gated CUDA medians: {', '.join(clocks)} (docs/measurement.md)\n")
    # Gated medians read each backend's per-sample clock (opencl: NVIDIA's profiling events);
    # batch timing, one run's share of back-to-back runs, reads both through events alike.
    print("| benchmark | cuda-prelude us | opencl us | opencl / cuda-prelude | batch: cuda-prelude us "
          "| opencl us | opencl / cuda-prelude |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    worst_gated = worst_batch = 0.0
    for key in sorted(gated):
        prog, ds, var, backend = key
        other = (prog, ds, var, "opencl")
        if backend != "cuda-prelude" or other not in gated:
            continue
        a = gated[key]["summary"]["median_ms"] * 1000
        b = gated[other]["summary"]["median_ms"] * 1000
        ba = gated[key].get("batch", {}).get("ms", 0) * 1000
        bb = gated[other].get("batch", {}).get("ms", 0) * 1000
        batch = f"{ba:.1f} | {bb:.1f} | {bb / ba:.3f}" if ba > 0 and bb > 0 else "- | - | -"
        if a >= 100:
            worst_gated = max(worst_gated, abs(b / a - 1))
            if ba > 0 and bb > 0:
                worst_batch = max(worst_batch, abs(bb / ba - 1))
        print(f"| {prog} {ds} {var} | {a:.1f} | {b:.1f} | {b / a:.3f} | {batch} |")
    print(f"\nLargest |opencl / cuda-prelude - 1| on kernels of 100 us or more: gated {100 * worst_gated:.1f}%, "
          f"batch {100 * worst_batch:.1f}%")


if __name__ == "__main__":
    main(sys.argv[1])
