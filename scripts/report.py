#!/usr/bin/env python3
"""PNG plots for `tribench report`.

Usage: report.py REPORT-DATA.json --out DIR

REPORT-DATA.json is what `tribench report` writes next to REPORT.md (schema
"tribench-report-data": one flat record per benchmark with its speedup against the
baseline, and each device's roofline ceilings), so plots can be redrawn without the
results files. For every plot written, one line goes to stdout:
    plot<TAB>file<TAB>device<TAB>program<TAB>title
which `tribench report` reads to place the images in REPORT.md. Exit status: 0 ok,
2 bad input, 3 matplotlib cannot be imported.
"""
import argparse
import json
import os
import re
import sys

from plotfile import save_png
from plotstyle import backend_key, color_of, slug, unique

MARKERS = ["o", "s", "^", "D", "v", "P", "X", "*"]


class Plotter:
    def __init__(self, plt, ticker, line2d, out_dir, several_devices):
        self.plt = plt
        self.Line2D = line2d
        self.FuncFormatter = ticker.FuncFormatter
        self.LogLocator = ticker.LogLocator
        self.NullFormatter = ticker.NullFormatter
        self.out_dir = out_dir
        self.several_devices = several_devices

    def file_name(self, kind, device, program=""):
        parts = [kind] + ([slug(program)] if program else []) + ([slug(device)] if self.several_devices or not program else [])
        return "-".join(parts) + ".png"

    def save(self, fig, name, device, program, title):
        """Writes the PNG atomically (plotfile.save_png)."""
        try:
            save_png(fig, os.path.join(self.out_dir, name), dpi=120)
        finally:
            self.plt.close(fig)
        print("plot\t%s\t%s\t%s\t%s" % (name, device, program, title), flush=True)


def at_least_a_decade(lo, hi):
    """Log-axis limits spanning at least a factor 10, so the axis has labelled decades."""
    if hi / lo >= 10:
        return lo, hi
    mid = (lo * hi) ** 0.5
    return mid / 10 ** 0.5, mid * 10 ** 0.5


def compact(v, _pos=None):
    """Tick label: 0.5, 20, 1e9, 2e-5 rather than 2x10^0 mathtext."""
    if v <= 0:
        return ""
    if 1e-3 <= v < 1e4:
        return "%g" % v
    mantissa, exponent = ("%.0e" % v).split("e")
    return "%se%d" % (mantissa, int(exponent))


def tidy_log_axes(p, ax, axes="xy"):
    """Compact labels at 1, 2, 5 per decade (every decade only on wide axes); unlabelled
    minor ticks. Call after the limits are set."""
    for name in axes:
        axis = ax.xaxis if name == "x" else ax.yaxis
        lo, hi = ax.get_xlim() if name == "x" else ax.get_ylim()
        wide = hi / max(lo, 1e-300) > 1e3
        axis.set_major_locator(p.LogLocator(base=10, subs=(1.0,) if wide else (1.0, 2.0, 5.0)))
        axis.set_major_formatter(p.FuncFormatter(compact))
        axis.set_minor_formatter(p.NullFormatter())


def ok(b):
    return b["status"] == "ok" and b.get("median_ms")


def speedup_bars(p, device, program, rows):
    """Grouped bars: per dataset/variant/launch, each backend's speedup over the baseline."""
    baseline = next((b["baseline"] for b in rows if b.get("baseline")), "")
    others = sorted({b["backend"] for b in rows if b.get("speedup") and b["backend"] != baseline}, key=backend_key)
    if not baseline or not others:
        return
    labels = unique(b["label"] for b in rows)
    value = {(b["label"], b["backend"]): b["speedup"] for b in rows if b.get("speedup")}
    # Many groups: horizontal bars, so the figure grows downwards and stays readable.
    horizontal = len(labels) * len(others) > 24
    if horizontal:
        fig, ax = p.plt.subplots(figsize=(9.0, max(4.5, 0.28 * len(labels) * len(others) + 1.5)))
    else:
        fig, ax = p.plt.subplots(figsize=(max(6.0, 0.9 * len(labels) * len(others) + 2), 4.5))
    width = 0.8 / len(others)
    all_values = [1.0]
    for i, backend in enumerate(others):
        xs = [j + (i - (len(others) - 1) / 2) * width for j, lab in enumerate(labels) if (lab, backend) in value]
        ys = [value[(lab, backend)] for lab in labels if (lab, backend) in value]
        if not xs:
            continue
        all_values += ys
        if horizontal:
            bars = ax.barh(xs, ys, width, label=backend, color=color_of(backend))
        else:
            bars = ax.bar(xs, ys, width, label=backend, color=color_of(backend))
        ax.bar_label(bars, fmt="%.2f", fontsize=7, padding=2)
    line = ax.axvline if horizontal else ax.axhline
    line(1.0, color="black", linewidth=0.8, linestyle="--", label=baseline + " (baseline)")
    lo, hi = min(all_values), max(all_values)
    value_axis = ax.xaxis if horizontal else ax.yaxis
    set_scale, set_lim = (ax.set_xscale, ax.set_xlim) if horizontal else (ax.set_yscale, ax.set_ylim)
    if hi / lo > 4:
        set_scale("log", base=2)
        set_lim(lo / 1.3, hi * 1.3)
    else:
        set_lim(0, hi * 1.15)
    value_axis.set_major_formatter(p.FuncFormatter(lambda v, _: "%gx" % v))
    group_label = "dataset" + ("" if all("/" not in lab for lab in labels) else " / variant / launch")
    value_label = "speedup vs %s\n(%s median / backend median)" % (baseline, baseline)
    if horizontal:
        ax.set_yticks(range(len(labels)))
        ax.set_yticklabels(labels, fontsize=8)
        ax.invert_yaxis()  # first dataset on top
        ax.set_ylabel(group_label)
        ax.set_xlabel(value_label)
    else:
        ax.set_xticks(range(len(labels)))
        ax.set_xticklabels(labels, rotation=30, ha="right")
        ax.set_xlabel(group_label)
        ax.set_ylabel(value_label)
    title = "%s: speedup vs %s on %s" % (program, baseline, device)
    ax.set_title(title)
    ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0))  # beside the bars, never over them
    ax.grid(axis="x" if horizontal else "y", alpha=0.3)
    p.save(fig, p.file_name("speedup", device, program), device, program, title)


def roofline(p, dev, rows):
    """Achieved GFLOP/s against arithmetic intensity, under the device's ceilings."""
    pts = [b for b in rows if ok(b) and b["flops"] > 0 and b["bytes"] > 0 and b.get("gflops")]
    if not pts:
        return
    device = dev["name"]
    bw, peak = dev.get("copy_gbps"), dev.get("fp32_gflops")
    fig, ax = p.plt.subplots(figsize=(7.5, 5.5))
    programs = unique(b["program"] for b in pts)
    backends = sorted({b["backend"] for b in pts}, key=backend_key)
    for b in pts:
        ax.scatter(b["flops"] / b["bytes"], b["gflops"], color=color_of(b["backend"]),
                   marker=MARKERS[programs.index(b["program"]) % len(MARKERS)], s=36, alpha=0.85,
                   edgecolors="black", linewidths=0.4)
    ai = [b["flops"] / b["bytes"] for b in pts]
    x_lo, x_hi = min(ai) / 4, max(ai) * 4
    if bw and peak:
        ridge = peak / bw
        x_lo, x_hi = min(x_lo, ridge / 4), max(x_hi, ridge * 4)
    n = 200
    xs = [x_lo * (x_hi / x_lo) ** (i / (n - 1)) for i in range(n)]
    if bw:
        ys = [min(x * bw, peak) if peak else x * bw for x in xs]
        ax.plot(xs, ys, color="black", linewidth=1.5, label="copy bandwidth %.0f GB/s" % bw)
    if peak:
        ax.axhline(peak, color="dimgray", linewidth=1.2, linestyle="--", label="FP32 peak %.0f GFLOP/s" % peak)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlim(*at_least_a_decade(x_lo, x_hi))
    gf = [b["gflops"] for b in pts] + ([peak] if peak else [])
    ax.set_ylim(*at_least_a_decade(min(gf) / 1.5, max(gf) * 1.5))
    tidy_log_axes(p, ax)
    ax.set_xlabel("arithmetic intensity (FLOP / byte of the work model)")
    ax.set_ylabel("achieved GFLOP/s (work model flops / median time)")
    source = dev.get("ceiling_source")
    title = "Roofline: %s" % device
    ax.set_title(title + ("\n(ceilings from %s)" % source if source else
                          "\n(no ceilings: no calibration, no --peak-gbps/--peak-gflops)"), fontsize=11)
    ax.grid(which="both", alpha=0.25)
    handles = [p.Line2D([], [], color=color_of(b), marker="o", linestyle="", label=b) for b in backends]
    handles += [p.Line2D([], [], marker=MARKERS[i % len(MARKERS)], linestyle="", markerfacecolor="white",
                         markeredgecolor="black", label=prog)
                for i, prog in enumerate(programs)]
    ceiling_handles, _ = ax.get_legend_handles_labels()
    ax.legend(handles=ceiling_handles + handles, fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    p.save(fig, p.file_name("roofline", device), device, "", title)


def series_label(b, variants, launches):
    label = b["backend"]
    if len(variants) > 1:
        label += "/" + b["variant"]
    if len(launches) > 1:
        label += "/" + b["launch"]
    return label


def time_vs_size(p, device, program, rows):
    pts = [b for b in rows if ok(b) and b["items"] > 0]
    if len({b["items"] for b in pts}) < 2:
        return  # one size: nothing to draw a curve through
    variants = {b["variant"] for b in pts}
    launches = {b["launch"] for b in pts}
    series = {}
    for b in pts:
        series.setdefault((backend_key(b["backend"]), series_label(b, variants, launches)), []).append(b)
    fig, ax = p.plt.subplots(figsize=(7, 5))
    for i, ((_, label), bs) in enumerate(sorted(series.items())):
        bs.sort(key=lambda b: b["items"])
        ax.plot([b["items"] for b in bs], [b["median_ms"] for b in bs], marker=MARKERS[i % len(MARKERS)],
                color=color_of(bs[0]["backend"]), linestyle="-" if bs[0]["launch"] == "stream" else "--",
                label=label)
    ax.set_xscale("log")
    ax.set_yscale("log")
    tidy_log_axes(p, ax)
    item = next((b["item_name"] for b in pts if b["item_name"]), "items")
    ax.set_xlabel("problem size (%s per run, log scale)" % item)
    ax.set_ylabel("median time per run (ms, log scale)")
    title = "%s: time against problem size on %s" % (program, device)
    ax.set_title(title)
    ax.grid(which="both", alpha=0.25)
    ax.legend(fontsize=8)
    p.save(fig, p.file_name("time", device, program), device, program, title)


SWEEP = re.compile(r"^(.*)-i(\d+)$")


def graph_vs_stream(p, device, program, rows):
    """Speedup of CUDA-graph replay over stream launches, per dataset (or iteration count)."""
    med = {(b["backend"], b["variant"], b["dataset"], b["launch"]): b for b in rows if ok(b)}
    pairs = {}
    for (backend, variant, dataset, launch), b in med.items():
        if launch != "graph" or (backend, variant, dataset, "stream") not in med:
            continue
        s = med[(backend, variant, dataset, "stream")]
        pairs[(backend, variant, dataset)] = (s["median_ms"] / b["median_ms"], b["items"])
    if not pairs:
        return
    variants = {v for (_, v, _) in pairs}
    datasets = unique(d for (_, _, d) in sorted(pairs, key=lambda k: pairs[k][1]))
    # A sweep: datasets "<base>-i<N>" differing only in N, plotted against N.
    sweeps = {}
    for d in datasets:
        m = SWEEP.match(d)
        if m:
            sweeps.setdefault(m.group(1), []).append((int(m.group(2)), d))
    sweeps = {k: sorted(v) for k, v in sweeps.items() if len(v) >= 2}
    fig, ax = p.plt.subplots(figsize=(7, 5))
    i = 0
    backends = sorted({k[0] for k in pairs}, key=backend_key)
    if sweeps:
        for base, points in sorted(sweeps.items()):
            for backend in backends:
                for variant in sorted(variants):
                    xy = [(n, pairs[(backend, variant, d)][0]) for n, d in points if (backend, variant, d) in pairs]
                    if not xy:
                        continue
                    label = backend + ("/" + variant if len(variants) > 1 else "") + (" " + base if len(sweeps) > 1 else "")
                    ax.plot([x for x, _ in xy], [y for _, y in xy], marker=MARKERS[i % len(MARKERS)],
                            color=color_of(backend), label=label)
                    i += 1
        ns = [n for pts in sweeps.values() for n, _ in pts]
        if max(ns) / max(1, min(ns)) >= 10:
            ax.set_xscale("log")
            tidy_log_axes(p, ax, "x")
        ax.set_xlabel("iterations per run (dataset %s)" % ", ".join(b + "-i<N>" for b in sorted(sweeps)))
    else:
        for backend in backends:
            for variant in sorted(variants):
                xy = [(j, pairs[(backend, variant, d)][0]) for j, d in enumerate(datasets) if (backend, variant, d) in pairs]
                if not xy:
                    continue
                ax.plot([x for x, _ in xy], [y for _, y in xy], marker=MARKERS[i % len(MARKERS)],
                        color=color_of(backend), label=backend + ("/" + variant if len(variants) > 1 else ""))
                i += 1
        ax.set_xticks(range(len(datasets)))
        ax.set_xticklabels(datasets, rotation=30, ha="right")
        ax.set_xlabel("dataset (by problem size)")
    ax.axhline(1.0, color="black", linewidth=0.8, linestyle="--", label="no gain")
    ax.set_ylabel("graph speedup (stream median / graph median)")
    title = "%s: CUDA graph over stream launches on %s" % (program, device)
    ax.set_title(title)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    p.save(fig, p.file_name("graph-vs-stream", device, program), device, program, title)


def main():
    ap = argparse.ArgumentParser(description="PNG plots for tribench report")
    ap.add_argument("data", help="report-data.json written by `tribench report`")
    ap.add_argument("--out", required=True, help="folder for the PNG files")
    args = ap.parse_args()
    try:
        import matplotlib

        matplotlib.use("Agg")  # no display needed
        import matplotlib.pyplot as plt
        import matplotlib.ticker as ticker
        from matplotlib.lines import Line2D
    except ImportError as e:
        print("cannot import matplotlib (%s)" % e, file=sys.stderr)
        return 3
    try:
        with open(args.data) as f:
            data = json.load(f)
    except (OSError, ValueError) as e:
        print("cannot read %s: %s" % (args.data, e), file=sys.stderr)
        return 2
    if not isinstance(data, dict) or data.get("schema") != "tribench-report-data" or data.get("version") != 1:
        print("%s is not tribench report data (schema tribench-report-data, version 1)" % args.data, file=sys.stderr)
        return 2
    if not os.path.isdir(args.out):
        print("no such folder: %s" % args.out, file=sys.stderr)
        return 2

    devices = data["devices"]
    p = Plotter(plt, ticker, Line2D, args.out, len(devices) > 1)
    for dev in devices:
        rows = [b for b in data["benchmarks"] if b["device"] == dev["name"]]
        roofline(p, dev, rows)
        for program in unique(b["program"] for b in rows):
            prog_rows = [b for b in rows if b["program"] == program]
            speedup_bars(p, dev["name"], program, prog_rows)
            time_vs_size(p, dev["name"], program, prog_rows)
            graph_vs_stream(p, dev["name"], program, prog_rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())
