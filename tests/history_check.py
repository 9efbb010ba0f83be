#!/usr/bin/env python3
"""End-to-end checks of `tribench history`, `compare --noise/--junit/--markdown` and
`export --github-benchmark` on synthetic results files (seeded: the same files every run).

Usage: history_check.py TRIBENCH WORKDIR CASE
CASE: step        a 33-run history with one injected +12% step: exit 1, the step at its commit
      nostep      the same history without the step: exit 0, no step; plots drawn when
                  matplotlib is there
      improvement a -15% step only: exit 0
      badinput    one-line errors, exit 2
      formats     noise model learned by history, used by compare; JUnit XML checked against
                  tests/data/history/junit.xsd (xmllint) and read by junitparser; the
                  github-action-benchmark JSON checked against its documented shape
Exit status 0 when every check holds, 77 (skipped) when a tool a case needs is missing.
"""
import gzip
import json
import math
import os
import random
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "data", "history")
DEVICE = "pthread-haswell-Synthetic CPU"
COMMITS = 32
START = 1795400000  # 2026-11-23T02:13:20Z
SKIP = 77


def commit(i):
    return "c0ffee%06d" % i


def utc(seconds):
    import time
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(seconds))


def benchmark(name, program, dataset, median, rng, status="ok"):
    samples = [round(median * math.exp(0.02 * rng.gauss(0, 1)), 6) for _ in range(30)] if status == "ok" else []
    return {"name": name, "program": program, "dataset": dataset, "variant": "default", "backend": "opencl",
            "launch": "stream", "device": "opencl:0", "math": "default", "status": status,
            "error": "" if status == "ok" else "validation failed: y[3] = 7, expected 4", "samples_ms": samples}


def write_history(folder, step=None, seed=1):
    """33 results files: commits 0..31, commit 5 run twice. step = (commit index, factor)
    applied to mandelbrot; files named so that their names do not sort in time order."""
    os.makedirs(folder, exist_ok=True)
    rng = random.Random(seed)
    plan = [(c, k) for c in range(COMMITS) for k in range(2 if c == 5 else 1)]
    for n, (c, k) in enumerate(plan):
        factor = step[1] if step and c >= step[0] else 1.0
        level = lambda m: m * math.exp(0.01 * rng.gauss(0, 1))  # the run's own offset
        doc = {"schema": "tribench-results", "version": 1,
               "environment": {"tribench_version": "0.1.0", "tribench_commit": commit(c),
                               "created_utc": utc(START + 3600 * n)},
               "devices": [{"id": "opencl:0", "backend": "opencl", "name": DEVICE, "is_gpu": False}],
               "benchmarks": [benchmark("mandelbrot/128x128/opencl", "mandelbrot", "128x128", level(2.0 * factor), rng),
                              benchmark("fft/1d-256x8/forward/opencl", "fft", "1d-256x8", level(0.06), rng),
                              benchmark("spmv/fem-s/scalar/opencl", "spmv", "fem-s", level(0.2), rng)]}
        # Every third file gzip-compressed, as `run --out X.json.gz` writes: a folder holds both.
        name = os.path.join(folder, "run-%02d-%s-%d.json" % ((n * 7) % len(plan), commit(c), k))
        if n % 3 == 2:
            with gzip.open(name + ".gz", "wt") as f:
                json.dump(doc, f)
        else:
            with open(name, "w") as f:
                json.dump(doc, f)
    return len(plan)


def tribench(*args):
    return subprocess.run([TRIBENCH, *args], capture_output=True, text=True, timeout=300)


def have_matplotlib():
    return subprocess.run(["python3", "-c", "import matplotlib"], capture_output=True).returncode == 0


def expect(cond, what, proc=None):
    if not cond:
        detail = "" if proc is None else "\nexit %d\nstdout:\n%s\nstderr:\n%s" % (proc.returncode, proc.stdout, proc.stderr)
        sys.exit("FAILED: " + what + detail)


def case_step():
    hist = os.path.join(WORK, "runs")
    n = write_history(hist, step=(21, 1.12))
    expect(n >= 30, "at least 30 results files")
    p = tribench("history", hist, "--out", os.path.join(WORK, "out"), "--no-git", "--no-plots")
    expect(p.returncode == 1, "history exits 1 when the newest step is a regression", p)
    expect("regression (newest step): mandelbrot/128x128/opencl" in p.stdout and
           "first at %s" % commit(21) in p.stdout, "the step named at its first commit", p)
    data = json.load(open(os.path.join(WORK, "out", "history-data.json")))
    expect(len(data["runs"]) == n, "every run in the data")
    expect([r["commit"] for r in data["runs"]][:7] == [commit(i) for i in (0, 1, 2, 3, 4, 5, 5)], "runs in commit order")
    reported = [(s["name"], data["runs"][st["run"]]["commit"]) for s in data["series"] for st in s["steps"]
                if st["beyond_noise"]]
    expect(reported == [("mandelbrot/128x128/opencl", commit(21))], "exactly the injected step: %s" % reported)
    md = open(os.path.join(WORK, "out", "HISTORY.md")).read()
    expect("`%s`" % commit(21) in md and "**regression (newest step)**" in md, "HISTORY.md lists the step")


def case_nostep():
    hist = os.path.join(WORK, "runs")
    write_history(hist, step=None, seed=2)
    out = os.path.join(WORK, "out")
    plots = have_matplotlib()
    p = tribench("history", hist, "--out", out, "--no-git", *([] if plots else ["--no-plots"]))
    expect(p.returncode == 0, "history exits 0 without a step", p)
    expect("0 steps beyond noise" in p.stdout, "no step reported", p)
    if plots:
        pngs = sorted(f for f in os.listdir(out) if f.endswith(".png"))
        expect(pngs == ["history-fft.png", "history-mandelbrot.png", "history-spmv.png"], "one plot per program: %s" % pngs)
        md = open(os.path.join(out, "HISTORY.md")).read()
        expect("![" in md and "(history-mandelbrot.png)" in md, "HISTORY.md shows the plots")
        with open(os.path.join(out, "history-mandelbrot.png"), "rb") as f:
            expect(f.read(8) == b"\x89PNG\r\n\x1a\n", "a PNG file")


def case_improvement():
    hist = os.path.join(WORK, "runs")
    write_history(hist, step=(12, 0.85), seed=3)
    p = tribench("history", hist, "--out", os.path.join(WORK, "out"), "--no-git", "--no-plots")
    expect(p.returncode == 0, "an improvement does not fail", p)
    expect("improvement: mandelbrot/128x128/opencl" in p.stdout and "first at %s" % commit(12) in p.stdout,
           "the improvement named at its commit", p)


def one_line_error(p, text):
    expect(p.returncode == 2 and p.stderr.count("\n") == 1 and text in p.stderr, "one-line error with '%s'" % text, p)


def case_badinput():
    empty = os.path.join(WORK, "empty")
    os.makedirs(empty, exist_ok=True)
    one_line_error(tribench("history", empty, "--out", os.path.join(WORK, "o")), "no results files found in")
    bad = os.path.join(WORK, "notime.json")
    with open(bad, "w") as f:
        json.dump({"schema": "tribench-results", "version": 1, "environment": {}, "benchmarks": []}, f)
    one_line_error(tribench("history", bad, "--out", os.path.join(WORK, "o")), "environment.created_utc is missing")
    noise = os.path.join(WORK, "noise.json")
    with open(noise, "w") as f:
        json.dump({"schema": "tribench-noise", "version": 2, "devices": {}}, f)
    one_line_error(tribench("history", bad, "--out", os.path.join(WORK, "o"), "--noise", noise),
                   "noise version 2 is not supported")
    one_line_error(tribench("history", bad, "--out", os.path.join(WORK, "o"), "--alpha", "3"), "--alpha must lie")
    one_line_error(tribench("history", bad, "--out", os.path.join(WORK, "o"), "--permutations", "10"),
                   "--permutations must let p fall below --alpha")
    one_line_error(tribench("history", bad, "--out", os.path.join(WORK, "o"), "--git", "/nonexistent"), "--git /nonexistent")


def check_junit(path, failures, skipped, tests):
    """xmllint against our XSD (libxml2-utils), and junitparser (PyPI) reading it."""
    checked = 0
    if shutil.which("xmllint"):
        p = subprocess.run(["xmllint", "--noout", "--schema", os.path.join(DATA, "junit.xsd"), path],
                           capture_output=True, text=True)
        expect(p.returncode == 0, "JUnit XML valid against tests/data/history/junit.xsd", p)
        checked += 1
    try:
        import junitparser
    except ImportError:
        junitparser = None
    if junitparser:
        xml = junitparser.JUnitXml.fromfile(path)
        cases = [c for suite in xml for c in suite]
        expect(len(cases) == tests, "junitparser reads %d test cases" % tests)
        failed = [c.name for c in cases if any(isinstance(r, junitparser.Failure) for r in c.result)]
        skips = [c.name for c in cases if any(isinstance(r, junitparser.Skipped) for r in c.result)]
        expect(len(failed) == failures and len(skips) == skipped, "junitparser: failures %s, skipped %s" % (failed, skips))
        checked += 1
    return checked


def check_github_benchmark(path):
    """The documented shape (tests/data/history/github-benchmark.schema.json): with the
    jsonschema package when it is there, and by hand always."""
    doc = json.load(open(path))
    schema = json.load(open(os.path.join(DATA, "github-benchmark.schema.json")))
    try:
        import jsonschema
        jsonschema.validate(doc, schema)
    except ImportError:
        pass
    expect(isinstance(doc, list) and len(doc) >= 1, "a non-empty array")
    allowed = set(schema["items"]["properties"])
    for e in doc:
        expect(isinstance(e, dict) and set(e) <= allowed and {"name", "unit", "value"} <= set(e), "entry keys %s" % e)
        expect(isinstance(e["name"], str) and e["name"] and isinstance(e["unit"], str) and e["unit"], "name and unit")
        expect(isinstance(e["value"], (int, float)) and not isinstance(e["value"], bool) and e["value"] > 0, "value")
        expect(all(isinstance(e[k], str) for k in ("range", "extra") if k in e), "range and extra are strings")
    names = [e["name"] for e in doc]
    expect(len(names) == len(set(names)), "names unique (the action matches entries by name)")
    return doc


def case_formats():
    hist = os.path.join(WORK, "runs")
    write_history(hist, step=None, seed=4)
    noise = os.path.join(WORK, "noise.json")
    p = tribench("history", hist, "--out", os.path.join(WORK, "out"), "--no-git", "--no-plots", "--learn-noise", noise)
    expect(p.returncode == 0 and "noise thresholds of 3 benchmarks" in p.stdout, "noise model learned", p)
    model = json.load(open(noise))
    entry = model["devices"][DEVICE]["mandelbrot/128x128/opencl"]
    expect(model["schema"] == "tribench-noise" and entry["pairs"] >= 25 and 0.005 < entry["sigma"] < 0.02,
           "noise entry %s" % entry)

    # Two runs of the history, the second made 4% slower: beyond a ~4.5%-or-less noise
    # threshold? Build OLD/NEW explicitly: OLD = run of commit 0, NEW = commit 1 scaled.
    files = sorted(os.listdir(hist))
    old = os.path.join(hist, files[0])
    doc = json.load(open(old))
    doc["environment"]["created_utc"] = "2026-11-24T00:00:00Z"
    doc["benchmarks"][0]["samples_ms"] = [x * 1.10 for x in doc["benchmarks"][0]["samples_ms"]]  # mandelbrot +10%
    doc["benchmarks"][2]["status"] = "validation_failed"  # spmv broken
    doc["benchmarks"][2]["error"] = "validation failed: y[3] = 7 <expected 4>"
    doc["benchmarks"][2]["samples_ms"] = []
    doc["benchmarks"] = doc["benchmarks"][:1] + doc["benchmarks"][2:]  # fft only in OLD
    new = os.path.join(WORK, "new.json")
    json.dump(doc, open(new, "w"))
    junit = os.path.join(WORK, "junit.xml")
    p = tribench("compare", old, new, "--noise", noise, "--junit", junit, "--markdown")
    expect(p.returncode == 1, "compare exits 1 (regression and broken)", p)
    expect(p.stdout.startswith("### tribench compare: 1 regression, 1 broken\n"), "Markdown headline", p)
    expect("its noise-model threshold (2 benchmarks; the others 5%)" in p.stdout, "noise thresholds used", p)
    expect(p.stdout.index("| mandelbrot/128x128/opencl |") < p.stdout.index("<details>"), "failures before the fold", p)
    checked = check_junit(junit, failures=2, skipped=1, tests=3)

    gab = os.path.join(WORK, "gab.json")
    p = tribench("export", "--github-benchmark", old, gab)
    expect(p.returncode == 0 and "3 benchmarks for github-action-benchmark" in p.stdout, "export", p)
    doc = check_github_benchmark(gab)
    expect([e["name"] for e in doc][0] == "mandelbrot/128x128/opencl" and doc[0]["unit"] == "ms", "entries")
    one_line_error(tribench("export", "--github-benchmark", new, gab, "--backend", "opencl"), "--backend applies to --futhark only")
    if checked == 0:
        print("note: neither xmllint nor junitparser found; JUnit XML not validated")


def main():
    global TRIBENCH, WORK
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    TRIBENCH, WORK, case = sys.argv[1], os.path.join(sys.argv[2], sys.argv[3]), sys.argv[3]
    shutil.rmtree(WORK, ignore_errors=True)
    os.makedirs(WORK)
    cases = {"step": case_step, "nostep": case_nostep, "improvement": case_improvement, "badinput": case_badinput,
             "formats": case_formats}
    if case not in cases:
        sys.exit("unknown case " + case)
    cases[case]()
    print("history check %s: ok" % case)


if __name__ == "__main__":
    main()
