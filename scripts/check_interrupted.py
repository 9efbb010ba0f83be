#!/usr/bin/env python3
"""Did a stopped run keep everything it finished? (scripts/gpu_suite.sh, stage "signals")

Reads a run's results file and the journal beside it (RESULTS.journal, kept when a signal
stopped the run) and checks: the exit status is 128 + the signal; every benchmark the
journal records as finished is in the results file with the same status and median; and
the results file holds no finished benchmark the journal lacks. Prints one line; exit 0 when
all holds, 1 otherwise.

Usage: scripts/check_interrupted.py RESULTS.json EXIT_STATUS SIGNAL_NAME
"""
import json
import signal
import sys


def main():
    results_path, rc, name = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    expected_rc = 128 + getattr(signal, "SIG" + name.removeprefix("SIG"))
    problems = []
    if rc != expected_rc:
        problems.append(f"exit {rc}, expected {expected_rc}")
    try:
        results = {b["name"]: b for b in json.load(open(results_path))["benchmarks"]}
    except (OSError, ValueError, KeyError) as e:
        print(f"SIG{name}: no results file ({e}): LOST")
        return 1
    journaled = {}
    try:
        with open(results_path + ".journal") as f:
            for line in f.read().splitlines()[1:]:
                entry = json.loads(line)
                if "benchmark" in entry:
                    journaled[entry["benchmark"]["name"]] = entry["benchmark"]
    except OSError as e:
        problems.append(f"no journal ({e.strerror})")
    finished = {n for n, b in results.items() if b["status"] != "skipped"}
    for n, b in journaled.items():
        r = results.get(n)
        if r is None or r["status"] != b["status"] or \
                r.get("summary", {}).get("median_ms") != b.get("summary", {}).get("median_ms"):
            problems.append(f"{n} journaled as {b['status']} but {'missing' if r is None else r['status']} in the results")
    for n in sorted(finished - set(journaled)):
        problems.append(f"{n} finished in the results but not journaled")
    skipped = len(results) - len(finished)
    print(f"SIG{name}: exit {rc}, {len(finished)} finished benchmarks kept of {len(results)} "
          f"({skipped} interrupted or not run), journal {len(journaled)}: "
          + ("KEPT" if not problems else "PROBLEM: " + "; ".join(problems[:5])))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
