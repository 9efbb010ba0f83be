#!/usr/bin/env python3
"""spmv `auto` against the fastest variant of the same run, as a markdown table.

For each matrix, backend, device and launch mode of a results file: what `auto` picked, its
median, the fastest of the variants it chooses from (scalar, vector, merge: cuSPARSE is not
one of them) and auto / best. The last lines count the rows where auto picked the variant
that was fastest, and those within --limit percent. Where auto picked the fastest variant,
auto / best is the noise between two benchmarks of the same kernel (on a 2-core PoCL
machine that reaches 20-40%), not a wrong choice: such a row passes.
Exit 0, or 1 when a row picked another variant and is beyond the limit (2 for a file
without spmv `auto`).

--stat min compares minima instead of medians (a second look where medians move between two
benchmarks of one kernel; on a 2-vCPU VM with PoCL the minima moved as much: reports/pocl/tuning.md).

Usage: scripts/spmv_auto_table.py RESULTS.json [--limit PCT] [--stat median|min]   (default 5, median)
"""
import argparse
import gzip
import json
import sys

CANDIDATES = ("scalar", "vector", "merge")


def load(path):
    with open(path, "rb") as f:
        packed = f.read(2) == b"\x1f\x8b"  # gzip, whatever the name
    with (gzip.open if packed else open)(path, "rt") as f:
        return json.load(f)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("results")
    ap.add_argument("--limit", type=float, default=5.0, help="percent over the best that passes")
    ap.add_argument("--stat", choices=["median", "min"], default="median", help="compare medians or minima")
    a = ap.parse_args()
    stat = "min_ms" if a.stat == "min" else "median_ms"
    try:
        benchmarks = load(a.results).get("benchmarks", [])
    except (OSError, ValueError, AttributeError) as e:
        print(f"{a.results}: not a tribench results file ({e})", file=sys.stderr)
        return 2
    groups = {}
    for b in benchmarks:
        if b.get("program") != "spmv" or b.get("status") != "ok":
            continue
        key = (b["dataset"], b["backend"], b["device"], b.get("launch", "stream"))
        groups.setdefault(key, {})[b["variant"]] = b
    rows = [(k, g) for k, g in groups.items() if "auto" in g and any(v in g for v in CANDIDATES)]
    if not rows:
        print(f"{a.results}: no validated spmv auto with a variant to compare", file=sys.stderr)
        return 2
    word = "min" if a.stat == "min" else "median"
    print(f"| matrix | backend | launch | auto picks | auto {word} ms | best variant | best {word} ms | auto / best |")
    print("|---|---|---|---|---:|---|---:|---:|")
    within = same = passed = 0
    for (dataset, backend, _device, launch), g in sorted(rows):
        auto = g["auto"]["summary"][stat]
        best = min((v for v in CANDIDATES if v in g), key=lambda v: g[v]["summary"][stat])
        best_ms = g[best]["summary"][stat]
        ratio = auto / best_ms
        within += ratio <= 1 + a.limit / 100
        same += g["auto"].get("picked") == best
        passed += ratio <= 1 + a.limit / 100 or g["auto"].get("picked") == best
        print(f"| {dataset} | {backend} | {launch} | {g['auto'].get('picked', '?')} | {auto:.4f} | {best} | "
              f"{best_ms:.4f} | {ratio:.3f}x |")
    print(f"\nauto picked the fastest variant on {same} of {len(rows)}")
    print(f"auto within {a.limit:g}% of the fastest variant on {within} of {len(rows)}")
    return 0 if passed == len(rows) else 1


if __name__ == "__main__":
    sys.exit(main())
