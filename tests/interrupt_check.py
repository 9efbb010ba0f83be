#!/usr/bin/env python3
"""A run that loses nothing, end to end on PoCL (tests/robustness.cmake; docs/robustness.md).

  interrupt_check.py signals TRIBENCH WORKDIR
      SIGINT, SIGTERM and SIGHUP, each at a seeded pseudo-random point of a run: exit 128 +
      the signal, a one-line message naming it, a valid results file holding every
      benchmark that had finished (its "done" progress line) as ok, the rest not run, and
      a journal that --resume completes.
  interrupt_check.py sigkill TRIBENCH WORKDIR [--points N]
      SIGKILL at N seeded pseudo-random points (default 20); after each, `--resume` must give
      the same benchmark set as an uninterrupted run, keep every benchmark the killed process
      had finished (same samples, not measured again) and remove the journal.

The points are pseudo-random from a fixed seed: the test is the same every time, and what it
asserts holds wherever a signal lands, so it passes or fails on the code alone.
"""
import json
import os
import random
import re
import signal
import subprocess
import sys
import time

# Five short benchmarks on PoCL: about a second in all here.
SELECTION = ["--program", "mandelbrot,spmv", "--backend", "opencl", "--device", "Portable Computing Language",
             "--dataset", "128x128,poisson2d-s,powerlaw-s", "--variant", "default,scalar,merge"]
QUICK = ["--min-time", "0.02", "--timeout", "0.1", "--min-samples", "3", "--no-batch", "--progress"]
SLOWER = ["--min-time", "0.3", "--timeout", "0.5", "--min-samples", "3", "--no-batch", "--progress"]


def fail(msg, err=""):
    print(f"FAIL: {msg}\n--- stderr ---\n{err}", file=sys.stderr)
    sys.exit(1)


def load(path):
    with open(path, encoding="utf-8") as f:
        doc = json.load(f)
    if doc.get("schema") != "tribench-results":
        fail(f"{path} is not a results file")
    return doc


def journal_names(path):
    """Names of the benchmarks in a journal (a last line cut short is ignored)."""
    names = {}
    if not os.path.exists(path):
        return names
    with open(path, encoding="utf-8", errors="replace") as f:
        lines = f.read().split("\n")
    for line in lines[1:]:
        try:
            e = json.loads(line)
        except ValueError:
            continue
        if "benchmark" in e:
            names[e["benchmark"]["name"]] = e["benchmark"]
    return names


def done_lines(err):
    return set(re.findall(r"^\[\d+/\d+\] (\S+) done: ", err, re.M))


def start(cmd):
    return subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def signals(tribench, work):
    rng = random.Random(20261205)
    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        name = signal.Signals(sig).name
        out = os.path.join(work, f"signal-{name}.json")
        for f in (out, out + ".journal"):
            if os.path.exists(f):
                os.remove(f)
        proc = start([tribench, "run", *SELECTION, *SLOWER, "--out", out])
        delay = rng.uniform(1.0, 2.4)
        time.sleep(delay)
        if proc.poll() is not None:
            fail(f"{name}: the run ended before the signal ({delay:.2f} s)", proc.stderr.read())
        proc.send_signal(sig)
        try:
            _, err = proc.communicate(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            fail(f"{name}: still running 30 s after the signal", proc.communicate()[1])
        if proc.returncode != 128 + sig:
            fail(f"{name}: exit {proc.returncode}, expected {128 + sig}", err)
        if not re.search(rf"^tribench: stopped by {name}; finished benchmarks are in .*journal", err, re.M):
            fail(f"{name}: no line naming the signal", err)
        doc = load(out)
        status = {b["name"]: b["status"] for b in doc["benchmarks"]}
        finished = done_lines(err)
        for n in finished:
            if status.get(n) != "ok":
                fail(f"{name}: {n} had finished but the results say {status.get(n)!r}", err)
        if not any(s == "skipped" for s in status.values()):
            fail(f"{name}: nothing was left to run: the signal came too late to test anything", err)
        for n, s in status.items():
            if n not in finished and s != "skipped":
                fail(f"{name}: {n} is {s!r} without a done line", err)
        if not os.path.exists(out + ".journal"):
            fail(f"{name}: the journal was removed from an unfinished run", err)
        if sig == signal.SIGTERM:
            # Another seed measures other data: refused in one line, the journal left as it was.
            res = subprocess.run([tribench, "run", *SELECTION, *SLOWER, "--seed", "7", "--resume", out],
                                 capture_output=True, text=True)
            if res.returncode != 2 or not re.fullmatch(
                    r"tribench: error: cannot resume .*: its run had seed 42, this one 7 \(.*--resume-anyway\)\n",
                    res.stderr):
                fail(f"{name}: --resume with another seed: exit {res.returncode}", res.stderr)
        res = subprocess.run([tribench, "run", *SELECTION, *SLOWER, "--resume", out], capture_output=True, text=True)
        if res.returncode != 0:
            fail(f"{name}: --resume exited {res.returncode}", res.stderr)
        final = load(out)
        if any(b["status"] != "ok" for b in final["benchmarks"]) or len(final["benchmarks"]) != len(status):
            fail(f"{name}: the resumed run is not complete", res.stderr)
        if os.path.exists(out + ".journal"):
            fail(f"{name}: the journal stayed after the run completed", res.stderr)
        print(f"{name} after {delay:.2f} s: exit {128 + sig}, {len(finished)} finished kept, "
              f"{sum(s == 'skipped' for s in status.values())} not run, resumed to {len(final['benchmarks'])} ok")


def sigkill(tribench, work, points):
    ref_path = os.path.join(work, "reference.json")
    t0 = time.monotonic()
    ref = subprocess.run([tribench, "run", *SELECTION, *QUICK, "--out", ref_path], capture_output=True, text=True)
    length = time.monotonic() - t0
    if ref.returncode != 0:
        fail(f"the uninterrupted run exited {ref.returncode}", ref.stderr)
    want = [b["name"] for b in load(ref_path)["benchmarks"]]
    rng = random.Random(42)
    lost_nothing = killed_mid_run = 0
    for k in range(points):
        out = os.path.join(work, f"kill-{k}.json")
        journal = out + ".journal"
        for f in (out, journal):
            if os.path.exists(f):
                os.remove(f)
        proc = start([tribench, "run", *SELECTION, *QUICK, "--out", out])
        delay = rng.uniform(0, length)
        time.sleep(delay)
        ended_first = proc.poll() is not None
        proc.send_signal(signal.SIGKILL)
        _, err = proc.communicate()
        killed_mid_run += not ended_first
        kept = journal_names(journal)
        # A kill between the end of the run (results written, journal removed) and the
        # process's exit finds no journal: what finished is in the results file instead.
        saved = set()
        if os.path.exists(out):
            saved = {b["name"] for b in load(out)["benchmarks"] if b["status"] != "skipped"}
        missing = done_lines(err) - set(kept) - saved
        if missing and not ended_first:
            fail(f"kill {k} at {delay:.2f} s: finished but not in the journal: {sorted(missing)}", err)
        res = subprocess.run([tribench, "run", *SELECTION, *QUICK, "--resume", out], capture_output=True, text=True)
        if res.returncode != 0:
            fail(f"kill {k} at {delay:.2f} s: --resume exited {res.returncode}", res.stderr)
        final = load(out)
        got = [b["name"] for b in final["benchmarks"]]
        if got != want:
            fail(f"kill {k} at {delay:.2f} s: resumed benchmarks {got} != uninterrupted {want}", res.stderr)
        by_name = {b["name"]: b for b in final["benchmarks"]}
        for n, b in kept.items():
            if by_name[n].get("samples_ms") != b.get("samples_ms"):
                fail(f"kill {k}: {n} was measured again instead of taken from the journal", res.stderr)
        if os.path.exists(journal):
            fail(f"kill {k}: the journal stayed after the run completed", res.stderr)
        lost_nothing += 1
        print(f"kill {k} at {delay:.2f} s: {len(kept)} of {len(want)} journaled, resumed to {len(got)}")
    if killed_mid_run < points // 2:
        fail(f"only {killed_mid_run} of {points} kills landed while the run was going")
    print(f"{lost_nothing} kill points, none lost a finished benchmark")


def main():
    mode, tribench, work = sys.argv[1], sys.argv[2], sys.argv[3]
    os.makedirs(work, exist_ok=True)
    if mode == "signals":
        signals(tribench, work)
    elif mode == "sigkill":
        points = int(sys.argv[5]) if len(sys.argv) > 5 and sys.argv[4] == "--points" else 20
        sigkill(tribench, work, points)
    else:
        fail(f"unknown mode {mode}")
    print("PASSED")


if __name__ == "__main__":
    main()
