#!/usr/bin/env python3
"""Portability of tuned configurations: BAT's table for tribench (docs/tuning.md).

How fast does a configuration tuned on one device run on another, as a percentage of the
configuration tuned on that other device itself?

  scripts/portability.py run TUNING.json OUTDIR [tribench run args...]
      On this machine, for every device named in TUNING.json (the tuning files of several
      devices, merged: `tribench tune -o` keeps other keys' entries), runs
      `tribench run --tuning TUNING.json --tuning-device DEVICE --keep-going` and writes
      OUTDIR/<device>.json. The run arguments choose the selection (-p, -b, --small, ...).
      $TRIBENCH names the binary (default: build/tribench).
  scripts/portability.py table [--stat median|min] RESULTS.json...
      The table from such runs, of any devices: one row per device run on and program, one
      column per device tuned on; each cell the geometric mean over the program's benchmarks
      of own-optimum median / borrowed median, in percent (100%: as good as the device's own
      tuning). A benchmark counts where both its own and the borrowed configuration ran ok;
      a borrowed configuration that is the device's own counts 100% whatever its two runs
      read ("k same": two runs of one configuration differ only by noise); "n failed" counts
      borrowed configurations that the device refused or that failed. --stat min compares
      minima instead of medians (for a CPU device whose medians move between runs).

Exit 0; 1 when a run failed to start or no cell could be computed; 2 for bad arguments.
"""
import argparse
import gzip
import json
import math
import os
import re
import subprocess
import sys

SOURCE = re.compile(r"^tuned(?: for \S+)?(?: on (?P<device>.+))?$")


def load(path):
    with open(path, "rb") as f:
        packed = f.read(2) == b"\x1f\x8b"  # gzip, whatever the name
    with (gzip.open if packed else open)(path, "rt") as f:
        return json.load(f)


def file_name(device):
    return re.sub(r"[^A-Za-z0-9._-]+", "_", device).strip("_") or "device"


def run(args):
    tribench = os.environ.get("TRIBENCH", "build/tribench")
    try:
        entries = load(args.tuning)["entries"]
    except (OSError, ValueError, KeyError, TypeError) as e:
        print(f"portability: {args.tuning}: not a tuning file ({e})", file=sys.stderr)
        return 2
    devices = sorted({e["device"] for e in entries})
    os.makedirs(args.outdir, exist_ok=True)
    status = 0
    for device in devices:
        out = os.path.join(args.outdir, file_name(device) + ".json")
        cmd = [tribench, "run", "--tuning", args.tuning, "--tuning-device", device, "--keep-going",
               "--out", out, *args.run_args]
        print("portability: " + " ".join(cmd), file=sys.stderr, flush=True)
        rc = subprocess.run(cmd, stdout=subprocess.DEVNULL).returncode
        # 1: some benchmark failed (a refused configuration is one): the table counts them.
        if rc not in (0, 1) or not os.path.exists(out):
            print(f"portability: the run of {device}'s configurations ended with exit {rc}", file=sys.stderr)
            status = 1
    return status


def table(args):
    # (ran on, benchmark) -> (time, config); (ran on, tuned on, benchmark) -> (time or None, config)
    own, borrowed = {}, {}
    programs = {}
    stat = "min_ms" if args.stat == "min" else "median_ms"
    for path in args.results:
        try:
            r = load(path)
            names = {d["id"]: d["name"] for d in r.get("devices", [])}
            benchmarks = r["benchmarks"]
        except (OSError, ValueError, KeyError, TypeError) as e:
            print(f"portability: {path}: not a tribench results file ({e})", file=sys.stderr)
            return 2
        for b in benchmarks:
            m = SOURCE.match(b.get("config_source", ""))
            if not m or b.get("status") == "skipped":
                continue
            ran_on = names.get(b["device"], b["device"])
            tuned_on = m.group("device") or ran_on
            programs[b["name"]] = b["program"]
            time = b["summary"][stat] if b.get("status") == "ok" else None
            if tuned_on == ran_on and time is not None:
                own[(ran_on, b["name"])] = (time, b.get("config"))
            else:
                borrowed[(ran_on, tuned_on, b["name"])] = (time, b.get("config"))
    ran_ons = sorted({k[0] for k in own} | {k[0] for k in borrowed})
    tuned_ons = sorted(set(ran_ons) | {k[1] for k in borrowed})
    cells = {}  # (ran on, tuned on, program) -> [ratios, failed count, same-configuration count]
    for (ran_on, name) in own:
        cells.setdefault((ran_on, ran_on, programs[name]), [[], 0, 0])[0].append(1.0)
    for (ran_on, tuned_on, name), (time, config) in borrowed.items():
        c = cells.setdefault((ran_on, tuned_on, programs[name]), [[], 0, 0])
        if time is None:
            c[1] += 1
        elif (ran_on, name) in own:
            own_time, own_config = own[(ran_on, name)]
            if config is not None and config == own_config:
                c[0].append(1.0)
                c[2] += 1
            else:
                c[0].append(own_time / time)
    if not cells:
        print("portability: no benchmark ran a tuned configuration in these files", file=sys.stderr)
        return 1
    print("| ran on | program | " + " | ".join(f"tuned on {t}" for t in tuned_ons) + " |")
    print("|:--|:--|" + "--:|" * len(tuned_ons))
    for ran_on in ran_ons:
        for program in sorted({k[2] for k in cells if k[0] == ran_on}):
            row = []
            for tuned_on in tuned_ons:
                ratios, failed, same = cells.get((ran_on, tuned_on, program), [[], 0, 0])
                text = ""
                if ratios:
                    mean = 100 * math.exp(sum(math.log(x) for x in ratios) / len(ratios))
                    text = f"{mean:.0f}% ({len(ratios)}" + (f", {same} same" if same and tuned_on != ran_on else "") + ")"
                if failed:
                    text += (", " if text else "") + f"{failed} failed"
                row.append(text)
            print(f"| {ran_on} | {program} | " + " | ".join(row) + " |")
    word = "minimum" if args.stat == "min" else "median"
    print(f"\nEach cell: geometric mean over the program's benchmarks (their count in parentheses) of the "
          f"{word} under the device's own tuned configuration / the {word} under the configuration "
          "tuned on the column's device. 100% on the diagonal by definition; \"k same\": k borrowed "
          "configurations were the device's own, counted as 100%.")
    return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="command", required=True)
    r = sub.add_parser("run", help="run every device's tuned configurations on this machine")
    r.add_argument("tuning")
    r.add_argument("outdir")
    r.add_argument("run_args", nargs=argparse.REMAINDER)
    t = sub.add_parser("table", help="the portability table from such runs")
    t.add_argument("--stat", choices=["median", "min"], default="median",
                   help="compare medians (default) or minima")
    t.add_argument("results", nargs="+")
    a = ap.parse_args()
    return run(a) if a.command == "run" else table(a)


if __name__ == "__main__":
    sys.exit(main())
