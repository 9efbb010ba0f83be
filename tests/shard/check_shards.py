#!/usr/bin/env python3
"""End-to-end check of `run --shard`, `merge` and `run --parallel-devices` on PoCL
(docs/scale-out.md): the shards of a run hold exactly the benchmarks of the unsharded run,
the merged file works with compare, report and export, and merge refuses what does not fit.

Usage: check_shards.py TRIBENCH WORKDIR
"""
import json
import os
import shutil
import subprocess
import sys

TB, WORK = sys.argv[1], sys.argv[2]
POCL = "Portable Computing Language"  # a CPU device even where opencl also has a GPU
# Variants pinned: the counts below must not change when a program gains a variant.
RUN = ["run", "--program", "mandelbrot,spmv", "--dataset", "128x128,poisson2d-s,fem-s", "--variant", "default,scalar,vector",
       "--backend", "opencl",
       "--device", POCL, "--min-time", "0.01", "--timeout", "0.2", "--min-samples", "2", "--no-calibrate"]
failures = []


def tb(args, env=None):
    e = dict(os.environ)
    e.update(env or {})
    p = subprocess.run([TB] + args, capture_output=True, text=True, env=e, timeout=600)
    return p.returncode, p.stdout, p.stderr


def check(cond, what):
    print(("ok   " if cond else "FAIL ") + what)
    if not cond:
        failures.append(what)


def path(name):
    return os.path.join(WORK, name)


def names(file):
    with open(file) as f:
        return [b["name"] for b in json.load(f)["benchmarks"]]


def one_line_error(rc, err, text):
    return rc == 2 and err.count("\n") == 1 and text in err


shutil.rmtree(WORK, ignore_errors=True)
os.makedirs(WORK)

rc, out, err = tb(RUN + ["--out", path("full.json")])
check(rc == 0, f"unsharded run exits 0 (got {rc}: {err.strip()[-300:]})")
full = names(path("full.json"))
check(len(full) == 5, f"the selection has 5 benchmarks ({full})")

# Three shards: each benchmark in exactly one, the merge equals the unsharded run.
for k in (1, 2, 3):
    rc, out, err = tb(RUN + ["--shard", f"{k}/3", "--out", path(f"s{k}.json")])
    check(rc == 0, f"shard {k}/3 exits 0 (got {rc}: {err.strip()[-300:]})")
parts = [names(path(f"s{k}.json")) for k in (1, 2, 3)]
check(sorted(sum(parts, [])) == sorted(full), f"the shards together hold the selection once ({parts})")
with open(path("s2.json")) as f:
    s2 = json.load(f)
check(s2["shard"]["index"] == 2 and s2["shard"]["count"] == 3 and s2["selection"] == full,
      "a shard records its shard and the whole selection")
check(all(b["wall_ms"] > 0 for b in s2["benchmarks"]), "every benchmark records its wall time")

rc, out, err = tb(["merge", path("s3.json"), path("s1.json"), path("s2.json"), "-o", path("merged.json")])
check(rc == 0 and "merged 3 files: 5 benchmarks (5 ok)" in out, f"merge exits 0 ({rc}: {out}{err})")
check(names(path("merged.json")) == full, "the merged file lists the benchmarks in the unsharded run's order")
rc, out, err = tb(["compare", path("full.json"), path("merged.json")])
check(rc in (0, 1) and "summary:" in out, f"compare takes the merged file ({rc}: {err.strip()})")
rc, out, err = tb(["report", path("merged.json"), "--no-plots", "--out", path("report")])
check(rc == 0, f"report takes the merged file ({rc}: {err.strip()})")
rc, out, err = tb(["export", "--futhark", path("merged.json"), path("futhark.json")])
check(rc == 0, f"export takes the merged file ({rc}: {err.strip()})")

# Refusals: exit 2, one line, no output file.
rc, out, err = tb(["merge", path("s1.json"), path("s3.json"), "-o", path("partial.json")])
check(one_line_error(rc, err, "selected benchmarks are missing") and "no file holds shard 2 of 3" in err
      and not os.path.exists(path("partial.json")), f"merge refuses a missing shard ({rc}: {err.strip()})")
rc, out, err = tb(["merge", path("s1.json"), path("s3.json"), "-o", path("partial.json"), "--allow-missing"])
with open(path("partial.json")) as f:
    partial = json.load(f)
check(rc == 0 and sorted(partial["missing"]) == sorted(parts[1]), "--allow-missing lists the missing benchmarks")
rc, out, err = tb(["merge", path("s1.json"), path("s1.json"), path("s2.json"), path("s3.json"), "-o", path("dup.json")])
check(one_line_error(rc, err, "are both shard 1/3"), f"merge refuses a shard given twice ({rc}: {err.strip()})")

rc, out, err = tb(RUN + ["--shard", "2/3", "--math", "fast", "--out", path("s2fast.json")])
rc, out, err = tb(["merge", path("s1.json"), path("s2fast.json"), path("s3.json"), "-o", path("mixed.json")])
check(one_line_error(rc, err, "shards used different math modes") and "--ignore-math" in err,
      f"merge refuses shards of different math modes ({rc}: {err.strip()})")
rc, out, err = tb(["merge", path("s1.json"), path("s2fast.json"), path("s3.json"), "-o", path("mixed.json"),
                   "--ignore-math"])
check(rc == 0 and "warning: shards used different math modes" in err, "--ignore-math merges with a warning")

# --cost-from: the previous run's times balance the split; the plan says where costs came from.
rc, out, err = tb(RUN + ["--shard", "1/2", "--cost-from", path("full.json"), "--dry-run"])
check(rc == 0 and "costs from results full.json" in out, f"--dry-run shows the split ({rc}: {out}{err})")
for k in (1, 2):
    tb(RUN + ["--shard", f"{k}/2", "--cost-from", path("full.json"), "--out", path(f"c{k}.json")])
rc, out, err = tb(["merge", path("c1.json"), path("c2.json"), "-o", path("cmerged.json")])
check(rc == 0 and sorted(names(path("cmerged.json"))) == sorted(full), f"shards balanced by --cost-from merge ({err})")
rc, out, err = tb(["merge", path("c1.json"), path("s2.json"), path("s3.json"), "-o", path("x.json")])
check(one_line_error(rc, err, "shards come from different splits"), f"merge refuses mixed splits ({err.strip()})")

# More shards than benchmarks: an empty shard still writes its file.
rc, out, err = tb(RUN + ["--shard", "7/7", "--out", path("e7.json")])
with open(path("e7.json")) as f:
    e7 = json.load(f)
check(rc == 0 and e7["benchmarks"] == [] and e7["selection"] == full, f"an empty shard writes its file ({rc}: {err})")

# --parallel-devices: one process per CUDA_VISIBLE_DEVICES entry (both on PoCL here).
rc, out, err = tb(RUN + ["--parallel-devices", "--out", path("par.json")], env={"CUDA_VISIBLE_DEVICES": "0,1"})
check(rc == 0, f"--parallel-devices exits 0 ({rc}: {err.strip()[-400:]})")
check("[GPU 0 |" in err and "[GPU 1 |" in err, "one progress display shows both processes")
check(names(path("par.json")) == full, "--parallel-devices measures the unsharded selection")
with open(path("par.json")) as f:
    par = json.load(f)
check([m["shard"]["visible_devices"] for m in par["merged_from"]] == ["0", "1"],
      "each shard process saw its own CUDA_VISIBLE_DEVICES")
check(os.path.exists(path("par.json.shards/shard-2-of-2.log")), "the shard logs are kept beside the results")

# SIGTERM to --parallel-devices: passed on to both shards, which write what they finished; the
# parent merges that and exits 143, and --resume carries each shard on from its journal.
slow = [a if a != "0.01" else "0.4" for a in RUN]
proc = subprocess.Popen([TB] + slow + ["--parallel-devices", "--out", path("sig.json")],
                        env=dict(os.environ, CUDA_VISIBLE_DEVICES="0,1"), stdout=subprocess.PIPE,
                        stderr=subprocess.PIPE, text=True)
err = ""
while "done: ok" not in err:  # a shard finished a benchmark: stop the run then
    line = proc.stderr.readline()
    if not line:
        break
    err += line
proc.terminate()
_, rest = proc.communicate(timeout=120)
err += rest
with open(path("sig.json")) as f:
    sig = json.load(f)
statuses = [b["status"] for b in sig["benchmarks"]]
check(proc.returncode == 143 and "stopped by SIGTERM" in err,
      f"--parallel-devices passes SIGTERM on and exits 143 ({proc.returncode}: {err.strip()[-300:]})")
check("ok" in statuses and "skipped" in statuses, f"the merge keeps what the shards finished ({statuses})")
rc, out, err = tb(slow + ["--parallel-devices", "--resume", path("sig.json")], env={"CUDA_VISIBLE_DEVICES": "0,1"})
with open(path("sig.json")) as f:
    resumed = json.load(f)
check(rc == 0 and [b["name"] for b in resumed["benchmarks"]] == full and
      all(b["status"] == "ok" for b in resumed["benchmarks"]),
      f"--parallel-devices --resume completes the run ({rc}: {err.strip()[-300:]})")
check(not any(f.endswith(".journal") for f in os.listdir(path("sig.json.shards"))),
      "the shards' journals are gone once the run is complete")


def shard_cpus(stem, k):
    with open(path(f"{stem}.json.shards/shard-{k}-of-2.json")) as f:
        return json.load(f)["environment"]["cpu_affinity"]


def cpu_text(cpus):
    """The affinity as tribench records it: "0-3,8"."""
    runs, cpus = [], sorted(cpus)
    for c in cpus:
        if runs and c == runs[-1][1] + 1:
            runs[-1][1] = c
        else:
            runs.append([c, c])
    return ",".join(str(a) if a == b else f"{a}-{b}" for a, b in runs)


# Without --pin-cpus each shard may use every CPU this process may; with it, its own share.
allowed = sorted(os.sched_getaffinity(0))
check([shard_cpus("par", k) for k in (1, 2)] == [cpu_text(allowed)] * 2,
      f"unpinned shards record this process's CPUs ({cpu_text(allowed)})")
rc, out, err = tb(RUN + ["--parallel-devices", "--pin-cpus", "--out", path("pin.json")],
                  env={"CUDA_VISIBLE_DEVICES": "0,1"})
check(rc == 0 and names(path("pin.json")) == full, f"--parallel-devices --pin-cpus exits 0 ({rc}: {err.strip()[-400:]})")
if len(allowed) >= 2:
    half = (len(allowed) + 1) // 2
    expect = [cpu_text(allowed[:half]), cpu_text(allowed[half:])]
    check([shard_cpus("pin", k) for k in (1, 2)] == expect, f"--pin-cpus gives each shard its own CPUs ({expect})")
    check(f"CPUs {expect[0]}|{expect[1]}" in err, "--pin-cpus says which CPUs each shard got")
    with open(path("pin.json")) as f:
        check([m["cpu_affinity"] for m in json.load(f)["merged_from"]] == expect,
              "the merged file records each shard's CPUs")
else:
    check("not pinned: 1 CPUs for 2 shards" in err, "--pin-cpus with one CPU says it cannot pin")

if failures:
    print(f"{len(failures)} check(s) failed")
    sys.exit(1)
print("all checks passed")
