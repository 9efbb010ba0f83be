#!/usr/bin/env python3
"""Tables of reports/h100/REPORT.md, generated from the committed results files.

Usage: python3 reports/h100/tables.py TRIBENCH > reports/h100/tables.md
TRIBENCH is a built tribench binary (e.g. build-report/tribench). The cross-backend
speedups and their significance come from `tribench compare --backends --json` of each
math mode's results.json; the stencil launch costs and graph/stream ratios are computed
here from the same files' medians.
"""
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
MODES = ["default", "precise", "fast"]
BACKENDS = ["cuda-prelude", "opencl", "vendor"]

# The largest datasets of each program: (dataset, variant, launch).
SELECTION = {
    "mandelbrot": [(d, "default", "stream") for d in ["4096x4096", "8000x8000"]],
    "nbody": [(d, v, "stream") for d in ["n100k", "n1m"] for v in ["default", "classic"]],
    "kmeans": [(d, v, "stream") for d in ["204800-d34-k5", "10m-d4-k5", "10m-d4-k16"]
               for v in ["assign", "full"]],
    "stencil": [(d, v, l) for d in ["128x128x64", "512x512x64", "1024x1024x64"]
                for v in ["unfused", "fused"] for l in ["stream", "graph"]],
    "fft": [(d, "forward", "stream") for d in ["1d-256x4096", "1d-4kx1024", "1d-1mx16", "1d-16m",
                                               "2d-1024x1024", "2d-4096x4096"]]
           + [(d, "roundtrip", "stream") for d in ["1d-16m", "2d-4096x4096"]],
    "spmv": [(d, v, "stream") for d in ["poisson2d-l", "poisson3d-l", "fem-l", "random-l",
                                        "powerlaw-l", "longrows-l"] for v in ["scalar", "vector"]],
}


def matrices(tribench):
    """mode -> {(program, dataset, variant, launch): cells} from compare --backends --json."""
    out = {}
    for mode in MODES:
        path = os.path.join(HERE, mode, "results.json")
        text = subprocess.run([tribench, "compare", "--backends", path, "--json"], check=True,
                              capture_output=True, text=True).stdout
        doc = json.loads(text)
        out[mode] = {(r["program"], r["dataset"], r.get("variant") or "", r["launch"]): r["cells"]
                     for r in doc["rows"]}
    return out


def medians():
    """mode -> {(program, dataset, variant, backend, launch): median ms} of ok benchmarks."""
    out = {}
    for mode in MODES:
        doc = json.load(open(os.path.join(HERE, mode, "results.json")))
        out[mode] = {(b["program"], b["dataset"], b.get("variant", ""), b["backend"], b["launch"]):
                     b["summary"]["median_ms"] for b in doc["benchmarks"] if b["status"] == "ok"}
    return out


def ms(x):
    return f"{x:.4g}" if x >= 0.01 else f"{x:.3g}"


def speedup_cell(cells, backend):
    c = cells.get(backend)
    if not c:
        return ""
    if c["status"] != "ok":
        return c["status"]
    return ("~" if not c["significant"] else "") + f"{c['speedup']:.2f}"


def program_table(mat, program):
    rows = SELECTION[program]
    has_vendor = any("vendor" in mat[m].get((program,) + r, {}) for m in MODES for r in rows)
    cols = ["cuda-prelude", "opencl"] + (["vendor"] if has_vendor else [])
    print(f"#### {program}\n")
    print("Speedup vs cuda-native (cuda-native median / backend median, >1 faster) per math mode "
          "`default / precise / fast`; `~`: not significantly different from cuda-native "
          "(Mann-Whitney U, p >= 0.05); last column: opencl median / cuda-prelude median.\n")
    head = ["benchmark", "cuda-native ms"] + cols + ["opencl ÷ prelude"]
    print("| " + " | ".join(head) + " |")
    print("|:--|" + "--:|" * (len(head) - 1))
    worst = {m: [] for m in MODES}
    for (d, v, l) in rows:
        key = (program, d, v, l)
        # mandelbrot has one variant, which its benchmark names leave out
        name = "/".join(x for x in [d, "" if program == "mandelbrot" else v, l] if x)
        cells = {m: mat[m].get(key) for m in MODES}
        if not all(cells.values()):
            continue
        nat = " / ".join(ms(cells[m]["cuda-native"]["median_ms"]) for m in MODES)
        line = [name, nat]
        for b in cols:
            line.append(" / ".join(speedup_cell(cells[m], b) or "–" for m in MODES))
        ratio = []
        for m in MODES:
            p, o = cells[m].get("cuda-prelude"), cells[m].get("opencl")
            ratio.append(f"{o['median_ms'] / p['median_ms']:.2f}" if p and o and p["status"] == "ok"
                         and o["status"] == "ok" else "–")
            if p and p["status"] == "ok":
                worst[m].append((p["speedup"], name))
        line.append(" / ".join(ratio))
        print("| " + " | ".join(line) + " |")
    print()
    parts = []
    for m in MODES:
        s = sorted(worst[m])
        inside = sum(1 for x, _ in s if abs(x - 1) <= 0.03)
        parts.append(f"{m}: {inside} of {len(s)} rows within 3% (range {s[0][0]:.2f}-{s[-1][0]:.2f})")
    print("cuda-prelude vs cuda-native, matched math: " + "; ".join(parts) + ".\n")


def stencil_launch_costs(med):
    """Least-squares slope of median time against launches over the 128x128x64 sweep."""
    sweep = {"128x128x64-i1": 1, "128x128x64-i2": 2, "128x128x64-i4": 4, "128x128x64-i16": 16,
             "128x128x64-i64": 64, "128x128x64-i256": 256, "128x128x64": 1025,
             "128x128x64-i4096": 4096}
    print("#### stencil: time per launch on 128x128x64 (us)\n")
    print("Least-squares slope of the median time against the number of launches over the "
          "8-point iteration sweep (1 to 4096 iterations; unfused = 4 launches per iteration, "
          "fused = 1), per math mode `default / precise / fast`, and the median time of "
          "1 iteration (i1, us, default mode).\n")
    print("| variant | backend / launch | us per launch | i1 (us) |")
    print("|:--|:--|--:|--:|")
    for v in ["unfused", "fused"]:
        per = 4 if v == "unfused" else 1
        for b, l in [("cuda-native", "graph"), ("cuda-native", "stream"), ("cuda-prelude", "graph"),
                     ("cuda-prelude", "stream"), ("opencl", "stream")]:
            slopes = []
            for m in MODES:
                pts = [(n * per, med[m][("stencil", ds, v, b, l)]) for ds, n in sweep.items()]
                n = len(pts)
                mx = sum(x for x, _ in pts) / n
                my = sum(y for _, y in pts) / n
                sl = sum((x - mx) * (y - my) for x, y in pts) / sum((x - mx) ** 2 for x, _ in pts)
                slopes.append(f"{sl * 1000:.2f}")
            i1 = med["default"][("stencil", "128x128x64-i1", v, b, l)] * 1000
            print(f"| {v} | {b} / {l} | {' / '.join(slopes)} | {i1:.1f} |")
    print()
    print("#### stencil: per iteration across grid sizes (1025 iterations, default math, us)\n")
    print("| grid | variant | native graph | native stream | prelude graph | prelude stream | "
          "opencl | opencl − native stream | opencl vs native stream |")
    print("|:--|:--|--:|--:|--:|--:|--:|--:|--:|")
    for g in ["32x32x64", "64x64x64", "128x128x64", "256x256x64", "512x512x64", "1024x1024x64"]:
        for v in ["unfused", "fused"]:
            t = {(b, l): med["default"][("stencil", g, v, b, l)] * 1000 / 1025
                 for b, l in [("cuda-native", "graph"), ("cuda-native", "stream"),
                              ("cuda-prelude", "graph"), ("cuda-prelude", "stream"), ("opencl", "stream")]}
            ns, oc = t[("cuda-native", "stream")], t[("opencl", "stream")]
            print(f"| {g} | {v} | {t[('cuda-native', 'graph')]:.1f} | {ns:.1f} | "
                  f"{t[('cuda-prelude', 'graph')]:.1f} | {t[('cuda-prelude', 'stream')]:.1f} | {oc:.1f} | "
                  f"{oc - ns:.1f} | {ns / oc:.2f}x |")
    print()


def graph_vs_stream(med):
    print("#### graph vs stream: stream median / graph median (>1: the graph is faster), "
          "default math\n")
    print("| benchmark | cuda-native | cuda-prelude |")
    print("|:--|--:|--:|")
    keys = [("stencil", f"128x128x64-i{n}", v) for v in ["unfused", "fused"] for n in [1, 16, 256, 4096]]
    keys += [("stencil", g, v) for g in ["32x32x64", "1024x1024x64"] for v in ["unfused", "fused"]]
    keys += [("kmeans", d, v) for d in ["8k-d4-k5", "50k-d2-k5", "10m-d4-k5"] for v in ["full", "assign"]]
    keys += [("nbody", d, "default") for d in ["n1k", "n10k", "n1m"]]
    for p, d, v in keys:
        cells = []
        for b in ["cuda-native", "cuda-prelude"]:
            s = med["default"].get((p, d, v, b, "stream"))
            g = med["default"].get((p, d, v, b, "graph"))
            cells.append(f"{s / g:.2f}" if s and g else "–")
        print(f"| {p}/{d}/{v} | " + " | ".join(cells) + " |")
    print()


def noise(med):
    """Run-to-run spread: the CUDA backends compile identical code under default and precise."""
    print("#### run-to-run spread: precise median / default median of the CUDA backends "
          "(identical PTX in both runs)\n")
    print("| backend | benchmarks >= 0.1 ms | median abs. difference | 90th percentile | max | "
          "rows over 5% |")
    print("|:--|--:|--:|--:|--:|:--|")
    for b in ["cuda-native", "cuda-prelude"]:
        diffs = []
        for k, t in med["default"].items():
            if k[3] != b or t < 0.1 or k not in med["precise"]:
                continue
            diffs.append((abs(med["precise"][k] / t - 1), "/".join(x for x in k if x)))
        diffs.sort()
        over = [n for d, n in diffs if d > 0.05]
        print(f"| {b} | {len(diffs)} | {diffs[len(diffs) // 2][0] * 100:.2f}% | "
              f"{diffs[int(0.9 * len(diffs))][0] * 100:.2f}% | {diffs[-1][0] * 100:.1f}% | "
              f"{len(over)}: {', '.join(over)} |")
    print()


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    mat = matrices(sys.argv[1])
    med = medians()
    print("<!-- generated by reports/h100/tables.py; do not edit by hand -->\n")
    for program in SELECTION:
        program_table(mat, program)
    stencil_launch_costs(med)
    graph_vs_stream(med)
    noise(med)


if __name__ == "__main__":
    main()
