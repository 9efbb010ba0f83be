#!/usr/bin/env python3
"""Trend plots for `tribench history`.

Usage: history.py HISTORY-DATA.json --out DIR

HISTORY-DATA.json is what `tribench history` writes next to HISTORY.md (schema
"tribench-history-data": the runs in commit order and, per benchmark, device and math
mode, each run's median with its 95% confidence interval and the steps found). One figure
per program and (device, math mode): a panel per dataset (and variant), a line per backend
(and launch mode), the confidence interval as a band, steps as dotted vertical lines (red:
slower, green: faster). Programs with more than 12 panels get several figures. For every
plot written, one line goes to stdout:
    plot<TAB>file<TAB>device<TAB>math<TAB>program<TAB>title
Exit status: 0 ok, 2 bad input, 3 matplotlib cannot be imported.
"""
import argparse
import json
import math
import os
import sys

from plotfile import save_png
from plotstyle import backend_key, color_of, slug, unique

LAUNCH_STYLES = {"stream": "-", "graph": "--"}
PANELS_PER_FIGURE = 12
COLUMNS = 3
REGRESSION_COLOR = "#d62728"
IMPROVEMENT_COLOR = "#2ca02c"


def time_unit(max_ms):
    """The unit that keeps a panel's numbers between about 1 and 1000."""
    if max_ms < 1:
        return 1e3, "us"
    if max_ms >= 1000:
        return 1e-3, "s"
    return 1.0, "ms"


def save(fig, out_dir, name):
    """Writes the PNG atomically (plotfile.save_png)."""
    save_png(fig, os.path.join(out_dir, name), dpi=100)


class Figures:
    def __init__(self, plt, runs, out_dir, several_groups):
        self.plt = plt
        self.runs = runs
        self.out_dir = out_dir
        self.several_groups = several_groups

    def x_axis(self, series):
        """Positions of the runs that appear in these series: 0, 1, 2... in commit order."""
        used = sorted({p["run"] for s in series for p in s["points"]})
        return {run: i for i, run in enumerate(used)}, used

    def label_ticks(self, ax, used, show_labels):
        n = len(used)
        every = max(1, math.ceil(n / 14))
        ticks = list(range(0, n, every))
        ax.set_xticks(ticks)
        if not show_labels:
            ax.set_xticklabels([])
            return
        labels = []
        for i in ticks:
            r = self.runs[used[i]]
            commit = r["commit"][:7] if r["commit"] != "unknown" else "unknown"
            labels.append(commit + "\n" + r["created_utc"][5:10] + " " + r["created_utc"][11:16])
        ax.set_xticklabels(labels, rotation=60, ha="right", fontsize=7)
        ax.set_xlim(-0.5, n - 0.5)

    def panel(self, ax, series, pos, used, show_labels, multi_variant):
        oks = [p for s in series for p in s["points"] if p["status"] == "ok"]
        top = max((p["high_ms"] for p in oks), default=1.0)
        scale, unit = time_unit(top)
        lows = [p["low_ms"] for p in oks if p["low_ms"] > 0]
        log = bool(lows) and top / min(lows) > 20
        for s in sorted(series, key=lambda s: (backend_key(s["backend"]), s["launch"])):
            pts = [p for p in s["points"] if p["status"] == "ok"]
            color = color_of(s["backend"])
            style = LAUNCH_STYLES.get(s["launch"], ":")
            xs = [pos[p["run"]] for p in pts]
            ax.fill_between(xs, [p["low_ms"] * scale for p in pts], [p["high_ms"] * scale for p in pts],
                            color=color, alpha=0.18, linewidth=0)
            ax.plot(xs, [p["median_ms"] * scale for p in pts], style, marker="o", markersize=3.5, color=color,
                    linewidth=1.4)
            failed = [pos[p["run"]] for p in s["points"] if p["status"] != "ok"]
            if failed:
                ax.plot(failed, [0.03] * len(failed), "x", color=REGRESSION_COLOR, markersize=7, mew=2,
                        transform=ax.get_xaxis_transform(), clip_on=False)
        marks = {}
        for s in series:
            for st in s["steps"]:
                if st["beyond_noise"]:
                    marks.setdefault(pos[st["run"]], []).append(st)
        for x, steps in sorted(marks.items()):
            worst = max(steps, key=lambda st: abs(st["change_pct"]))
            color = REGRESSION_COLOR if worst["regression"] else IMPROVEMENT_COLOR
            ax.axvline(x - 0.5, color=color, linestyle=":", linewidth=1.6)
            text = "%+.0f%%" % worst["change_pct"] + (" (+%d)" % (len(steps) - 1) if len(steps) > 1 else "")
            ax.text(x - 0.45, 0.97, text, color=color, fontsize=7.5, fontweight="bold", va="top",
                    transform=ax.get_xaxis_transform())
        if log:
            ax.set_yscale("log")
        elif oks:
            # Zoomed to the data, but never to less than +-5% of its level: a trend plot's
            # question is "did it move", and noise of 0.5% should still look flat.
            lo = min(p["low_ms"] for p in oks) * scale
            hi = max(p["high_ms"] for p in oks) * scale
            center = (lo + hi) / 2
            half = max((hi - lo) / 2 * 1.25, center * 0.05)
            ax.set_ylim(max(0.0, center - half), center + half)
        first = series[0]
        title = first["dataset"] + ("  " + first["variant"] if multi_variant and first["variant"] else "")
        ax.set_title(title, fontsize=9.5)
        ax.set_ylabel("median (%s)%s" % (unit, ", log" if log else ""), fontsize=8)
        ax.tick_params(axis="y", labelsize=7.5)
        ax.grid(True, which="major", alpha=0.3)
        self.label_ticks(ax, used, show_labels)

    def legend_handles(self, series):
        has_steps = {st["regression"] for s in series for st in s["steps"] if st["beyond_noise"]}
        Line2D = self.plt.matplotlib.lines.Line2D
        handles, labels = [], []
        launches = unique(s["launch"] for s in series)
        for b in sorted(unique(s["backend"] for s in series), key=backend_key):
            for launch in launches:
                if not any(s["backend"] == b and s["launch"] == launch for s in series):
                    continue
                handles.append(Line2D([], [], color=color_of(b), linestyle=LAUNCH_STYLES.get(launch, ":"), marker="o",
                                      markersize=4))
                labels.append(b + ("/" + launch if len(launches) > 1 else ""))
        handles.append(self.plt.matplotlib.patches.Patch(color="#888888", alpha=0.3))
        labels.append("95% CI of the median")
        if True in has_steps:
            handles.append(Line2D([], [], color=REGRESSION_COLOR, linestyle=":"))
            labels.append("step: slower")
        if False in has_steps:
            handles.append(Line2D([], [], color=IMPROVEMENT_COLOR, linestyle=":"))
            labels.append("step: faster")
        if any(p["status"] != "ok" for s in series for p in s["points"]):
            handles.append(Line2D([], [], color=REGRESSION_COLOR, marker="x", linestyle="", mew=2))
            labels.append("failed run")
        return handles, labels

    def program(self, device, math_mode, program, series):
        panels = {}
        for s in series:
            panels.setdefault((s["dataset"], s["variant"]), []).append(s)
        keys = list(panels)
        multi_variant = len({k[1] for k in keys}) > 1
        pos, used = self.x_axis(series)
        pages = [keys[i:i + PANELS_PER_FIGURE] for i in range(0, len(keys), PANELS_PER_FIGURE)]
        for page_no, page in enumerate(pages, start=1):
            cols = min(COLUMNS, len(page))
            rows = math.ceil(len(page) / cols)
            fig, axes = self.plt.subplots(rows, cols, figsize=(5.0 * cols, 3.3 * rows + 1.1), squeeze=False)
            for i, key in enumerate(page):
                r, c = divmod(i, cols)
                below_is_empty = (r + 1) * cols + c >= len(page)
                self.panel(axes[r][c], panels[key], pos, used, below_is_empty, multi_variant)
            for i in range(len(page), rows * cols):
                axes[i // cols][i % cols].set_visible(False)
            page_series = [s for key in page for s in panels[key]]
            handles, labels = self.legend_handles(page_series)
            title = "%s: median time per run, in commit order (%s, math %s)" % (program, device, math_mode)
            if len(pages) > 1:
                title += ", part %d of %d" % (page_no, len(pages))
            fig.suptitle(title, fontsize=12, y=1.0)
            fig.legend(handles, labels, loc="upper center", ncol=min(len(labels), 7), fontsize=8.5,
                       bbox_to_anchor=(0.5, 0.985), frameon=False)
            fig.tight_layout(rect=(0, 0, 1, 0.95))
            name = "history-" + slug(program)
            if self.several_groups:
                name += "-" + slug(device) + "-" + slug(math_mode)
            if len(pages) > 1:
                name += "-%d" % page_no
            name += ".png"
            save(fig, self.out_dir, name)
            self.plt.close(fig)
            print("plot\t%s\t%s\t%s\t%s\t%s" % (name, device, math_mode, program, title))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("data")
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    try:
        with open(args.data) as f:
            data = json.load(f)
    except (OSError, ValueError) as e:
        print("cannot read %s: %s" % (args.data, e), file=sys.stderr)
        return 2
    if data.get("schema") != "tribench-history-data" or data.get("version") != 1:
        print("%s: not tribench-history-data version 1" % args.data, file=sys.stderr)
        return 2
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.lines  # noqa: F401  (legend handles)
        import matplotlib.patches  # noqa: F401
        import matplotlib.pyplot as plt
    except ImportError as e:
        print("cannot import matplotlib (%s)" % e)
        return 3
    plt.matplotlib = matplotlib
    os.makedirs(args.out, exist_ok=True)
    groups = {}
    for s in data["series"]:
        if any(p["status"] == "ok" for p in s["points"]):
            groups.setdefault((s["device"], s["math"]), {}).setdefault(s["program"], []).append(s)
    figures = Figures(plt, data["runs"], args.out, len(groups) > 1)
    for (device, math_mode), programs in groups.items():
        for program, series in programs.items():
            figures.program(device, math_mode, program, series)
    return 0


if __name__ == "__main__":
    sys.exit(main())
