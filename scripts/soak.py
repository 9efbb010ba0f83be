#!/usr/bin/env python3
"""Soak test of tribench: does a long run leak? (docs/robustness.md, "Soak test").

Three phases, each optional (--phases):
  inprocess  one `tribench run ... --repeat ROUNDS` process; tribench reports its resident
             memory, heap in use and open descriptors after each round (devices closed), and the device
             memory the process holds is sampled with nvidia-smi while it runs. Fails when
             memory grows from round to round or a descriptor is left open.
  processes  PROCESSES `tribench run ...` processes in a row: each one's peak resident
             memory, the device memory in use before and after it, the kernel caches, and
             files left in the temporary folder. Fails when any of these grows.
  sanitizer  where compute-sanitizer and a CUDA device exist: the CUDA backends under
             `compute-sanitizer --tool memcheck --leak-check full` (two rounds in one
             process); fails on any error or leak it reports.

Writes OUTDIR/summary.md (the figures and verdicts), the logs and results files of each
phase, and exits 1 when a check fails. See scripts/soak.sh for the environment variables.
"""
import argparse
import itertools
import json
import os
import re
import shutil
import subprocess
import sys
import threading
import time

# heap_kib (malloc's bytes in use) is absent from the lines of older builds.
ROUND_LINE = re.compile(r"tribench: round (\d+) of (\d+): (\d+) of (\d+) benchmarks ok; rss_kib (-?\d+) fds (-?\d+)"
                        r"(?: heap_kib (-?\d+))?")


# --- Measuring -------------------------------------------------------------------------------

def nvidia_smi(*query):
    """Rows of `nvidia-smi --query-...` as lists of strings, or None without nvidia-smi."""
    if not shutil.which("nvidia-smi"):
        return None
    try:
        out = subprocess.run(["nvidia-smi", *query, "--format=csv,noheader,nounits"], capture_output=True,
                             text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return None
    if out.returncode != 0:
        return None
    return [[f.strip() for f in line.split(",")] for line in out.stdout.splitlines() if line.strip()]


def gpu_used_mib():
    """Device memory in use on each GPU (MiB), or None."""
    rows = nvidia_smi("--query-gpu=memory.used")
    return None if rows is None else [int(r[0]) for r in rows if r and r[0].isdigit()]


def gpu_used_by(pid):
    """Device memory (MiB) the process holds on all GPUs, or None without nvidia-smi."""
    rows = nvidia_smi("--query-compute-apps=pid,used_memory")
    if rows is None:
        return None
    return sum(int(r[1]) for r in rows if len(r) >= 2 and r[0] == str(pid) and r[1].isdigit())


def open_fds(pid):
    try:
        return len(os.listdir(f"/proc/{pid}/fd"))
    except OSError:
        return None


def tree_bytes(path):
    total = 0
    for root, _, files in os.walk(path):
        for f in files:
            try:
                total += os.lstat(os.path.join(root, f)).st_size
            except OSError:
                pass
    return total


def entries(path):
    try:
        return sorted(os.listdir(path))
    except OSError:
        return []


class Sampler(threading.Thread):
    """Samples a running process every `period` s: device memory it holds (nvidia-smi) and
    its open descriptors; keeps the maximum of each per bucket (the round in progress)."""

    def __init__(self, pid, period=0.5):
        super().__init__(daemon=True)
        self.pid, self.period = pid, period
        self.bucket = 1
        self.gpu, self.fds = {}, {}
        self.stop = threading.Event()
        self.has_gpu = shutil.which("nvidia-smi") is not None

    def run(self):
        while not self.stop.is_set():
            b = self.bucket
            if self.has_gpu:
                used = gpu_used_by(self.pid)
                if used is not None:
                    self.gpu[b] = max(self.gpu.get(b, 0), used)
            n = open_fds(self.pid)
            if n is not None:
                self.fds[b] = max(self.fds.get(b, 0), n)
            self.stop.wait(self.period)


# --- Verdicts --------------------------------------------------------------------------------

def slope(values):
    """Least-squares slope of values against 0, 1, 2, ... (per step)."""
    n = len(values)
    if n < 2:
        return 0.0
    mx, my = (n - 1) / 2, sum(values) / n
    sxx = sum((i - mx) ** 2 for i in range(n))
    return sum((i - mx) * (v - my) for i, v in enumerate(values)) / sxx


def growth_verdict(what, values, unit, warmup, max_slope, max_growth, step="round"):
    """Fails when, after `warmup` rounds, the series grows by more than max_growth in all
    and by more than max_slope per step (both: one noisy sample must not fail a soak, a
    steady leak must). Returns (ok, line)."""
    if len(values) <= warmup + 1:
        return True, f"{what}: too few rounds to judge ({len(values)})"
    tail = values[warmup:]
    s, g = slope(tail), tail[-1] - tail[0]
    ok = not (s > max_slope and g > max_growth)
    steps = "processes" if step == "process" else step + "s"
    line = (f"{what}: {tail[0]} -> {tail[-1]} {unit} over {steps} {warmup + 1}..{len(values)} "
            f"(slope {s:+.1f} {unit}/{step}; fails above {max_slope} {unit}/{step} with {max_growth} {unit} growth)")
    return ok, line


def peak_verdict(what, peaks, unit, warmup, max_slope, max_growth):
    """growth_verdict of polled peaks. A poll can only miss a peak, so a round's can only read
    low (a short round may end between two polls: 788 for 918 MiB on the H100): judge the
    running maximum, which a leak still lifts round after round."""
    return growth_verdict(what + " (running peak)", list(itertools.accumulate(peaks, max)), unit, warmup,
                          max_slope, max_growth)


def exact_verdict(what, values, warmup, step="round"):
    """Fails when the count after warm-up ever exceeds its value at the first judged round."""
    if len(values) <= warmup:
        return True, f"{what}: too few rounds to judge ({len(values)})"
    tail = values[warmup:]
    ok = max(tail) <= tail[0]
    return ok, f"{what}: {' '.join(map(str, values))} (must not grow after {step} {warmup + 1})"


# --- Phases ----------------------------------------------------------------------------------

def run_inprocess(a, out, report):
    cmd = [a.tribench, "run", *a.run_args, "--repeat", str(a.rounds), "--out", os.path.join(out, "inprocess.json")]
    report.append(f"### In one process: {a.rounds} rounds\n\n`{' '.join(cmd)}`\n")
    t0 = time.monotonic()
    with open(os.path.join(out, "inprocess.stdout"), "w") as so, open(os.path.join(out, "inprocess.log"), "w") as log:
        p = subprocess.Popen(cmd, stdout=so, stderr=subprocess.PIPE, text=True, errors="replace", env=a.env)
        sampler = Sampler(p.pid)
        sampler.start()
        rounds = []
        for line in p.stderr:
            log.write(line)
            m = ROUND_LINE.search(line)
            if m:
                rounds.append({"round": int(m[1]), "ok": int(m[3]), "total": int(m[4]), "rss_kib": int(m[5]),
                               "fds": int(m[6]), "heap_kib": None if m[7] is None else int(m[7]),
                               "s": round(time.monotonic() - t0, 1)})
                sampler.bucket = len(rounds) + 1
        rc = p.wait()
        sampler.stop.set()
        sampler.join()
    for r in rounds:
        r["gpu_mib"] = sampler.gpu.get(r["round"])
    report.append("| round | benchmarks ok | rss KiB | heap in use KiB | open fds | device MiB (peak) | time s |")
    report.append("|---:|---:|---:|---:|---:|---:|---:|")
    for r in rounds:
        gpu = "-" if r["gpu_mib"] is None else r["gpu_mib"]
        heap = "-" if r["heap_kib"] is None else r["heap_kib"]
        report.append(f"| {r['round']} | {r['ok']}/{r['total']} | {r['rss_kib']} | {heap} | {r['fds']} | {gpu} | "
                      f"{r['s']} |")
    checks = [(rc == 0, f"exit status {rc} (0 expected)"),
              (len(rounds) == a.rounds, f"{len(rounds)} of {a.rounds} rounds reported")]
    checks.append(growth_verdict("host RSS", [r["rss_kib"] for r in rounds], "KiB", a.warmup,
                                 a.rss_slope_kib, a.rss_growth_kib))
    # The heap in use is RSS without what malloc keeps after free() (RSS jumps by megabytes
    # with that from round to round on PoCL, which hides a leak of a few hundred KiB a round).
    heap = [r["heap_kib"] for r in rounds]
    if rounds and all(h is not None and h >= 0 for h in heap):
        checks.append(growth_verdict("heap in use", heap, "KiB", a.warmup, a.heap_slope_kib, a.heap_growth_kib))
    else:
        checks.append((True, "heap in use: not reported by this tribench (or not glibc 2.33+)"))
    checks.append(exact_verdict("open descriptors", [r["fds"] for r in rounds], a.warmup))
    gpu = [r["gpu_mib"] for r in rounds]
    if rounds and all(g is not None for g in gpu):
        checks.append(peak_verdict("device memory", gpu, "MiB", a.warmup, a.gpu_slope_mib, a.gpu_growth_mib))
    else:
        checks.append((True, "device memory: not measured (no nvidia-smi, or no samples)"))
    return checks


def run_processes(a, out, report):
    cmd = [a.tribench, "run", *a.run_args]
    report.append(f"### {a.processes} processes in a row\n\n`{' '.join(cmd)}`\n")
    # A private TMPDIR: the shared /tmp also holds the live temporary files of whatever else
    # runs meanwhile (other tribench tests under ctest -j), which are not leftovers of these.
    tmp = os.path.join(out, "tmp")
    os.makedirs(tmp, exist_ok=True)
    env = dict(a.env if a.env is not None else os.environ, TMPDIR=tmp)
    tmp_before, shm_before = set(entries(tmp)), set(entries("/dev/shm"))
    rows = []
    for i in range(1, a.processes + 1):
        gpu_before = gpu_used_mib()
        t0 = time.monotonic()
        with open(os.path.join(out, f"process-{i}.log"), "w") as log:
            p = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, env=env)
            sampler = Sampler(p.pid, period=0.25)
            sampler.start()
            _, status, usage = os.wait4(p.pid, 0)
            sampler.stop.set()
            sampler.join()
            p.returncode = os.waitstatus_to_exitcode(status)
        gpu_after = gpu_used_mib()
        rows.append({"process": i, "rc": p.returncode, "peak_rss_kib": usage.ru_maxrss,
                     "peak_fds": max(sampler.fds.values(), default=None),
                     "gpu_peak_mib": max(sampler.gpu.values(), default=None),
                     "gpu_before_mib": None if gpu_before is None else sum(gpu_before),
                     "gpu_after_mib": None if gpu_after is None else sum(gpu_after),
                     "caches_bytes": sum(tree_bytes(c) for c in a.caches),
                     "s": round(time.monotonic() - t0, 1)})
    report.append("| process | exit | peak rss KiB | peak fds | device MiB (peak) | device MiB in use after | "
                  "kernel caches bytes | time s |")
    report.append("|---:|---:|---:|---:|---:|---:|---:|---:|")
    dash = lambda v: "-" if v is None else v  # noqa: E731
    for r in rows:
        report.append(f"| {r['process']} | {r['rc']} | {r['peak_rss_kib']} | {dash(r['peak_fds'])} | "
                      f"{dash(r['gpu_peak_mib'])} | {dash(r['gpu_after_mib'])} | {r['caches_bytes']} | {r['s']} |")
    bad = [r["process"] for r in rows if r["rc"] != 0]
    checks = [(not bad, f"exit status 0 for every process" + (f" (not: {bad})" if bad else ""))]
    checks.append(growth_verdict("peak host RSS per process", [r["peak_rss_kib"] for r in rows], "KiB",
                                 a.warmup, a.rss_slope_kib, a.rss_growth_kib, step="process"))
    # (Descriptors die with each process, and sampling them from outside races with its
    # start and end: the column is for reading, the in-process phase is the check.)
    # The kernel caches fill during the first process; the same run adds nothing after it.
    caches = [r["caches_bytes"] for r in rows]
    checks.append(exact_verdict("kernel caches (bytes)", caches, 1, step="process"))
    if all(r["gpu_after_mib"] is not None for r in rows):
        base = rows[0]["gpu_before_mib"]
        after = [r["gpu_after_mib"] for r in rows]
        worst = max(after) - base
        checks.append((worst <= a.gpu_growth_mib,
                       f"device memory in use after each process: {base} MiB before the first, at most "
                       f"{max(after)} MiB after one (fails above {a.gpu_growth_mib} MiB more)"))
    else:
        checks.append((True, "device memory after each process: not measured (no nvidia-smi)"))
    left = sorted(set(entries(tmp)) - tmp_before)
    shm = sorted(set(entries("/dev/shm")) - shm_before)
    # Other programs may make files there meanwhile: only names that say tribench count.
    ours = [f for f in left + shm if "tribench" in f.lower()]
    checks.append((not ours, f"tribench files left in TMPDIR ({tmp}) or /dev/shm: {ours if ours else 'none'}"))
    return checks


def cuda_available(a):
    try:
        out = subprocess.run([a.tribench, "list"], capture_output=True, text=True, timeout=120, env=a.env).stdout
    except (OSError, subprocess.TimeoutExpired):
        return False
    m = re.search(r"^  cuda-native:(.*)$", out, re.M)
    return bool(m) and "unavailable" not in m.group(1)


def run_sanitizer(a, out, report):
    report.append("### compute-sanitizer, CUDA backends\n")
    tool = shutil.which("compute-sanitizer") or ("/usr/local/cuda/bin/compute-sanitizer"
                                                  if os.path.exists("/usr/local/cuda/bin/compute-sanitizer") else None)
    if not tool:
        report.append("not run: compute-sanitizer not found\n")
        return [(True, "compute-sanitizer: not found, not run")]
    if not cuda_available(a):
        report.append("not run: no CUDA device\n")
        return [(True, "compute-sanitizer: no CUDA device, not run")]
    cmd = [tool, "--tool", "memcheck", "--leak-check", "full", "--error-exitcode", "99",
           a.tribench, "run", *a.run_args, *a.sanitizer_args]
    report.append(f"`{' '.join(cmd)}`\n")
    log_path = os.path.join(out, "sanitizer.log")
    with open(log_path, "w") as log:
        rc = subprocess.run(cmd, stdout=log, stderr=subprocess.STDOUT, env=a.env).returncode
    text = open(log_path, errors="replace").read()
    summary = re.findall(r"=+ (ERROR SUMMARY: .*|LEAK SUMMARY: .*|.*bytes leaked.*)", text)
    report.append("```\n" + ("\n".join(summary[-5:]) if summary else "(no summary lines)") + "\n```\n")
    errors = re.search(r"ERROR SUMMARY: (\d+) error", text)
    ok = rc == 0 and errors is not None and errors.group(1) == "0"
    return [(ok, f"compute-sanitizer memcheck --leak-check full: exit {rc}, "
                 f"{errors.group(0) if errors else 'no ERROR SUMMARY line'} (log: sanitizer.log)")]


# --- Self-test of the verdicts (CTest: e2e.soak_verdicts) -------------------------------------

def self_test():
    flat = [100_000 + (i % 3) * 300 for i in range(20)]
    leak = [100_000 + 400 * i for i in range(20)]
    assert growth_verdict("x", flat, "KiB", 2, 256, 4096)[0], "a flat series failed"
    assert not growth_verdict("x", leak, "KiB", 2, 256, 4096)[0], "a 400 KiB/round leak passed"
    assert growth_verdict("x", [100_000] * 5 + [200_000] + [100_000] * 14, "KiB", 2, 256, 4096)[0], \
        "one high sample failed"
    assert peak_verdict("gpu", [918, 918, 788, 918, 918, 918], "MiB", 2, 2, 16)[0], "a missed peak failed"
    assert not peak_verdict("gpu", [900 + 20 * i for i in range(8)], "MiB", 2, 2, 16)[0], "a 20 MiB/round leak passed"
    assert exact_verdict("fds", [9, 12, 12, 12, 12], 1)[0], "steady descriptors failed"
    assert not exact_verdict("fds", [9, 12, 12, 13, 14], 1)[0], "a leaked descriptor passed"
    assert abs(slope([0, 2, 4, 6]) - 2) < 1e-12
    line = "tribench: round 3 of 20: 12 of 13 benchmarks ok; rss_kib 97548 fds 6"
    m = ROUND_LINE.search(line)
    assert m and m[5] == "97548" and m[6] == "6" and m[7] is None, "a line without heap_kib was misread"
    m = ROUND_LINE.search(line + " heap_kib 35796")
    assert m and m[7] == "35796", "heap_kib was not read"
    print("soak verdicts: ok")
    return 0


# --- Main ------------------------------------------------------------------------------------

def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("outdir", nargs="?")
    ap.add_argument("--tribench", default="build/tribench")
    ap.add_argument("--run-args", default="", help="arguments of every `tribench run` (profile and selection)")
    ap.add_argument("--sanitizer-args", default="-b cuda-native,cuda-prelude,vendor --repeat 2")
    ap.add_argument("--phases", default="inprocess,processes,sanitizer")
    ap.add_argument("--rounds", type=int, default=20)
    ap.add_argument("--processes", type=int, default=20)
    ap.add_argument("--warmup", type=int, default=2, help="rounds not judged (caches, allocator pools fill)")
    ap.add_argument("--rss-slope-kib", type=float, default=256)
    ap.add_argument("--rss-growth-kib", type=float, default=4096)
    ap.add_argument("--heap-slope-kib", type=float, default=256)
    ap.add_argument("--heap-growth-kib", type=float, default=4096)
    ap.add_argument("--gpu-slope-mib", type=float, default=2)
    ap.add_argument("--gpu-growth-mib", type=float, default=16)
    ap.add_argument("--self-test", action="store_true")
    a = ap.parse_args()
    if a.self_test:
        return self_test()
    if not a.outdir:
        ap.error("OUTDIR is required")
    a.run_args = a.run_args.split()
    a.sanitizer_args = a.sanitizer_args.split()
    out = os.path.abspath(a.outdir)
    os.makedirs(out, exist_ok=True)
    # Kernel caches of this soak only: their growth from process to process is one check.
    a.env = dict(os.environ)
    a.caches = [os.path.join(out, "cache", "tribench"), os.path.join(out, "cache", "pocl")]
    a.env.setdefault("TRIBENCH_CACHE_DIR", a.caches[0])
    a.env.setdefault("POCL_CACHE_DIR", a.caches[1])
    a.caches = [a.env["TRIBENCH_CACHE_DIR"], a.env["POCL_CACHE_DIR"]]

    report = ["# tribench soak test", "",
              f"{time.strftime('%Y-%m-%d %H:%M:%S %Z')}, host {os.uname().nodename}, `{a.tribench}`", ""]
    gpus = nvidia_smi("--query-gpu=name,memory.total")
    report.append("GPUs: " + (", ".join(f"{g[0]} ({g[1]} MiB)" for g in gpus) if gpus else "none seen by nvidia-smi"))
    report.append("")
    checks = []
    phases = [p.strip() for p in a.phases.split(",") if p.strip()]
    for name, fn in (("inprocess", run_inprocess), ("processes", run_processes), ("sanitizer", run_sanitizer)):
        if name in phases:
            t0 = time.monotonic()
            got = fn(a, out, report)
            report.append("")
            for ok, line in got:
                report.append(f"- {'ok' if ok else '**FAILED**'}: {line}")
            report.append(f"\n({name}: {time.monotonic() - t0:.0f} s)\n")
            checks += got
            for ok, line in got:
                print(f"soak {name}: {'ok' if ok else 'FAILED'}: {line}", flush=True)
    failed = [line for ok, line in checks if not ok]
    report.append(f"**{'FAILED' if failed else 'passed'}**: {len(checks) - len(failed)} of {len(checks)} checks.")
    with open(os.path.join(out, "summary.md"), "w") as f:
        f.write("\n".join(report) + "\n")
    print(f"soak: {'FAILED' if failed else 'passed'} ({len(checks) - len(failed)} of {len(checks)} checks); "
          f"{os.path.join(out, 'summary.md')}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
