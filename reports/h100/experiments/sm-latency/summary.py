#!/usr/bin/env python3
"""The table of run.sh: per process, ncu's and tribench's medians of halfrow-s/vector
(tribench with --no-scatter and with the placement scatter) and the kernel's L2 sectors
(all, and those that crossed the L2 fabric)."""
import collections
import csv
import json
import statistics
import sys


def ncu_medians(path):
    values = collections.defaultdict(list)
    try:
        with open(path) as f:
            rows = [line for line in f if line.startswith('"')]
    except OSError:
        return {}
    for row in csv.DictReader(rows):
        try:
            values[row["Metric Name"]].append(float(row["Metric Value"].replace(",", "")))
        except ValueError:
            pass
    return {name: statistics.median(v) for name, v in values.items()}


def tribench_median(path):
    try:
        with open(path) as f:
            for b in json.load(f)["benchmarks"]:
                if "/halfrow-s/vector/" in b["name"] and b.get("summary"):
                    return b["summary"]["median_ms"] * 1e3
    except (OSError, ValueError, KeyError):
        pass
    return float("nan")


def main():
    out, pads = sys.argv[1], sys.argv[2:]
    print("| before halfrow-s/vector | backend | ncu us | tribench --no-scatter us | tribench us "
          "| L2 sectors | via the L2 fabric |")
    print("|:--|:--|--:|--:|--:|--:|--:|")
    for i, pad in enumerate(pads, 1):
        for backend in ("cuda-native", "cuda-prelude"):
            m = ncu_medians(f"{out}/ncu-{backend}-{i}.csv")
            ncu_us = m.get("gpu__time_duration.sum", float("nan")) / 1e3
            print(f"| {pad.replace('|', ', ')} | {backend} | {ncu_us:.2f} | "
                  f"{tribench_median(f'{out}/no-scatter-{backend}-{i}.json'):.2f} | "
                  f"{tribench_median(f'{out}/scatter-{backend}-{i}.json'):.2f} | "
                  f"{m.get('lts__t_sectors.sum', float('nan')):.0f} | "
                  f"{m.get('lts__t_sectors_srcunit_ltcfabric.sum', float('nan')):.0f} |")


if __name__ == "__main__":
    main()
