#!/usr/bin/env python3
"""The summary of scripts/parallel_devices_check.sh: wall times, the shards, whether the
merged file holds the one-GPU run's benchmarks, compare's verdicts and, per backend, how the
medians moved (OUTDIR/summary.md, also printed). Exit 0 when every check holds.

Usage: parallel_devices_summary.py OUTDIR --gpus 0,1 --parallel-s S [--one-s S] [--alone-s S]
       [--rc one=0 parallel=0 compare=0 alone=0 sharing=0] [--noise FILE] [--one-from FILE]
       [--max-ratio 0.55]
"""
import argparse
import json
import os
import statistics
import sys


def load(path):
    with open(path) as f:
        return json.load(f)


def verdicts(out, name):
    """compare's closing `summary:` line and the rows it calls a regression, from its text output."""
    path = os.path.join(out, name)
    lines = open(path).read().splitlines() if os.path.exists(path) else []
    summary = next((l for l in reversed(lines) if l.startswith("summary:")), f"no summary (see {name})")
    return summary, [l.split()[0] for l in lines if l.rstrip().endswith(("regression", "broken"))]


def judged(out, name, rc, noise):
    """One comparison: its verdict (by the noise model where given), the global one, the flagged rows."""
    by = f"noise model {noise}" if noise else "global threshold"
    summary, flagged = verdicts(out, name + ".txt")
    lines = [f"exit {rc} by the {by}, {summary} ({name}.md, {name}.txt)"]
    if noise:
        lines.append(f"  - by the global 5% threshold alone: {verdicts(out, name + '-global.txt')[0]} "
                     f"({name}-global.txt)")
    return lines + [f"  - {row}" for row in flagged]


def by_backend(old, new):
    """NEW median / OLD median per backend, rows of 0.1 ms or more apart from shorter ones."""
    before = {b["name"]: b for b in old["benchmarks"]}
    groups = {}
    for b in new["benchmarks"]:
        o = before.get(b["name"])
        if not o or b["status"] != "ok" or o["status"] != "ok":
            continue
        ms = o["summary"]["median_ms"]
        key = (b["backend"], ">= 0.1 ms" if ms >= 0.1 else "< 0.1 ms")
        groups.setdefault(key, []).append(b["summary"]["median_ms"] / ms)
    rows = ["| backend | rows | n | median of new/old | 10th-90th percentile | > 2% slower | > 2% faster |",
            "|:--|:--|--:|--:|--:|--:|--:|"]
    for (backend, size), r in sorted(groups.items()):
        r.sort()
        n = len(r)
        rows.append(f"| {backend} | {size} | {n} | {statistics.median(r):.4f} | {r[n // 10]:.3f}-{r[9 * n // 10]:.3f} "
                    f"| {sum(x > 1.02 for x in r)} | {sum(x < 0.98 for x in r)} |")
    return rows


def run_line(label, results):
    env = results["environment"]
    return (f"- {label}: host {env.get('hostname')}, {env.get('created_utc')}, commit {env.get('tribench_commit')}; "
            f"devices: {', '.join(sorted({d['name'] for d in results['devices']}))}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--gpus", required=True)
    ap.add_argument("--parallel-s", type=float, required=True)
    ap.add_argument("--one-s", type=float)
    ap.add_argument("--alone-s", type=float)
    ap.add_argument("--rc", nargs="*", action="extend", default=[], help="exit statuses as name=value")
    ap.add_argument("--noise", default="")
    ap.add_argument("--one-from", default="")
    ap.add_argument("--max-ratio", type=float, default=0.55)
    a = ap.parse_args()
    rc = {k: int(v) for k, v in (x.split("=", 1) for x in a.rc)}
    out = a.out
    one, par = load(os.path.join(out, "one-gpu.json")), load(os.path.join(out, "parallel.json"))
    names_one = sorted(b["name"] for b in one["benchmarks"])
    names_par = sorted(b["name"] for b in par["benchmarks"])
    gpus = len(a.gpus.split(","))
    lines = [f"# --parallel-devices on GPUs {a.gpus}", "", run_line("one-GPU run", one), run_line("parallel run", par)]
    ratio_ok = True
    if a.one_from or a.one_s is None:
        lines.append(f"- one GPU: {len(names_one)} benchmarks from {a.one_from or 'an earlier run'} "
                     "(not run again: no wall-time ratio)")
        lines.append(f"- {gpus} GPUs: {a.parallel_s:.1f} s wall (exit {rc.get('parallel', 0)})")
    else:
        ratio = a.parallel_s / a.one_s
        ratio_ok = ratio <= a.max_ratio
        lines.append(f"- one GPU: {a.one_s:.1f} s wall, {len(names_one)} benchmarks (exit {rc.get('one', 0)})")
        lines.append(f"- {gpus} GPUs: {a.parallel_s:.1f} s wall (exit {rc.get('parallel', 0)}); ratio {ratio:.3f} "
                     f"(target <= {a.max_ratio})")
    lines.append("- shards: " + ", ".join(
        f"{m['shard']['index']}/{m['shard']['count']} on CUDA_VISIBLE_DEVICES={m['shard']['visible_devices']}: "
        f"{m['benchmarks']} benchmarks, {m['benchmarks_wall_s']:.1f} s in benchmarks, "
        f"{m['shard']['estimated_s']:.1f} s estimated" for m in par["merged_from"]))
    lines.append(f"- same benchmarks: {'yes' if names_one == names_par else 'NO'}")
    compared = judged(out, "compare", rc.get("compare", 0), a.noise)
    lines += ["- compare one GPU vs merged: " + compared[0]] + compared[1:]
    lines += ["", "Medians, merged / one GPU:", ""] + by_backend(one, par)
    alone = a.alone_s is not None
    if alone:
        alone_results = load(os.path.join(out, "alone.json"))
        sharing = judged(out, "sharing", rc.get("sharing", 0), a.noise)
        lines += ["", f"- each shard alone on its GPU, one after another: {a.alone_s:.1f} s wall "
                      f"(exit {rc.get('alone', 0)}); the parallel run took {a.parallel_s / a.alone_s:.3f} of it",
                  "- compare shards alone vs merged (what sharing the host cost): " + sharing[0]] + sharing[1:]
        lines += ["", "Medians, merged / shards alone (the same GPU for each benchmark):", ""]
        lines += by_backend(alone_results, par)
    with open(os.path.join(out, "summary.md"), "w") as f:
        f.write("\n".join(lines) + "\n")
    print("\n".join(lines))
    ok = (names_one == names_par and ratio_ok and all(v == 0 for v in rc.values()))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
