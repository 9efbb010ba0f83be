#!/usr/bin/env python3
"""Writes the synthetic results files of tests/data/compare (deterministic: seeded).

Run from anywhere: python3 tests/data/compare/make_data.py. The files are committed; this
script documents how they were made. Samples are lognormal-ish noise around a median so
that the Mann-Whitney U test has something realistic to chew on.
"""
import copy
import json
import os
import random

HERE = os.path.dirname(os.path.abspath(__file__))
N_SAMPLES = 40

H100 = {"name": "NVIDIA H100 80GB HBM3", "cc": "9.0", "vendor": "NVIDIA", "platform": "CUDA", "gpu": True}
A100 = {"name": "NVIDIA A100-SXM4-80GB", "cc": "8.0", "vendor": "NVIDIA", "platform": "CUDA", "gpu": True}


def device(backend, dev):
    platform = "NVIDIA CUDA" if backend == "opencl" else dev["platform"]
    return {"id": backend + ":0", "backend": backend, "name": dev["name"], "vendor": dev["vendor"],
            "platform": platform, "driver_version": "580.65", "runtime_version": "13.0",
            "compiler_version": "NVRTC 13.0", "compute_capability": dev["cc"], "compute_units": 132,
            "global_mem_bytes": 85017853952, "free_mem_bytes": 84000000000, "max_alloc_bytes": 0,
            "max_local_mem_bytes": 232448, "max_work_group_size": 1024, "clock_mhz": 1980,
            "mem_clock_mhz": 2619, "mem_bus_width_bits": 5120, "is_gpu": dev["gpu"], "is_nvidia": True}


def samples(rng, median, rsd=0.02):
    # Mostly tight, with a long right tail as GPU timings have.
    out = []
    for _ in range(N_SAMPLES):
        x = median * (1 + rsd * rng.gauss(0, 1))
        if rng.random() < 0.05:
            x *= 1 + 0.1 * rng.random()
        out.append(round(x, 6))
    return out


def bench(program, dataset, backend, launch, median, work, rng, variant="default", iterative=False,
          show_variant=False, status="ok", error=""):
    name = program + "/" + dataset + ("/" + variant if show_variant else "") + "/" + backend
    if iterative:
        name += "/" + launch
    device_id = ("cuda-native" if backend == "vendor" else backend) + ":0"
    s = samples(rng, median) if status == "ok" else []
    b = {"name": name, "program": program, "dataset": dataset, "variant": variant, "backend": backend,
         "launch": launch, "device": device_id, "math": "default", "status": status, "error": error,
         "validation": {"ok": status == "ok", "detail": "max rel err 2.1e-06 (tol 1.0e-04)" if status == "ok"
                        else error, "checked": 4096, "sampled": False},
         "compile": {"ms": 120.0, "cached": False}, "graph_capture_ms": 0.4 if launch == "graph" else 0.0,
         "transfer": {"upload_ms": 0.0, "download_ms": 0.0}, "samples_ms": s,
         "work": {"bytes": work[0], "flops": work[1], "items": work[2], "item_name": work[3]}}
    return b


def results(benchmarks, dev=H100, calibration=None):
    backends = sorted({("cuda-native" if b["backend"] == "vendor" else b["backend"]) for b in benchmarks})
    return {"schema": "tribench-results", "version": 1,
            "environment": {"tribench_version": "0.1.0", "tribench_commit": "0123456789ab",
                            "created_utc": "2026-01-01T00:00:00Z", "hostname": "synthetic", "os": "Linux 6.1.0",
                            "cpu": "synthetic CPU", "cpu_count": 16, "compiler": "g++ 12.2.0",
                            "command_line": ["tribench", "run", "--out", "synthetic.json"],
                            "options": {"math": "default", "seed": 42, "min_time_s": 0.25}},
            "calibration": calibration or {},
            "devices": [device(b, dev) for b in backends],
            "benchmarks": benchmarks}


def base_benchmarks(rng, scale=1.0):
    """A small run: mandelbrot and stencil on three backends."""
    out = []
    mandel = (1024 * 1024 * 4.0, 1024 * 1024 * 256 * 8.0, 1024 * 1024.0, "pixels")
    for backend, med in (("cuda-native", 0.80), ("cuda-prelude", 0.84), ("opencl", 0.88)):
        out.append(bench("mandelbrot", "1024x1024", backend, "stream", med * scale, mandel, rng))
    sten = (128 * 128 * 64 * 8.0 * 10, 128 * 128 * 64 * 8.0 * 10, 128 * 128 * 64 * 10.0, "cell-updates")
    for backend, med in (("cuda-native", 0.30), ("cuda-prelude", 0.32)):
        for launch, f in (("stream", 1.0), ("graph", 0.8)):
            out.append(bench("stencil", "128x128x64-i10", backend, launch, med * f * scale, sten, rng,
                             iterative=True))
    out.append(bench("stencil", "128x128x64-i10", "opencl", "stream", 0.35 * scale, sten, rng, iterative=True))
    return out


def scaled(res, factor, seed):
    """The same run, every median times factor, fresh noise."""
    rng = random.Random(seed)
    r = copy.deepcopy(res)
    for b in r["benchmarks"]:
        if b["status"] == "ok":
            med = sorted(b["samples_ms"])[len(b["samples_ms"]) // 2]
            b["samples_ms"] = samples(rng, med * factor)
    return r


def suite(rng):
    """A richer run for the backend matrix and the report: sizes, variants, a sweep, a failure."""
    out = []
    for n, med in (("512x512", 0.21), ("1024x1024", 0.80), ("2048x2048", 3.1)):
        px = float(int(n.split("x")[0]) ** 2)
        w = (px * 4, px * 256 * 8, px, "pixels")
        for backend, f in (("cuda-native", 1.0), ("cuda-prelude", 1.05), ("opencl", 1.1)):
            out.append(bench("mandelbrot", n, backend, "stream", med * f, w, rng))
    for n, med in (("n16k", 1.4), ("n64k", 20.0)):
        k = float(n[1:-1]) * 1024
        w = (k * 16 * 2, k * k * 20, k * k, "interactions")
        for variant in ("tiled", "naive"):
            vf = 1.0 if variant == "tiled" else 1.6
            for backend, f in (("cuda-native", 1.0), ("cuda-prelude", 1.02), ("opencl", 1.08)):
                out.append(bench("nbody", n, backend, "stream", med * vf * f, w, rng, variant=variant,
                                 show_variant=True))
    for n, med in (("4096x1024", 0.5),):
        w = (4096 * 1024 * 16.0, 4096 * 1024 * 5 * 12.0, 4096 * 1024.0, "points")
        for backend, f in (("cuda-native", 1.0), ("cuda-prelude", 1.1), ("opencl", 1.2), ("vendor", 0.7)):
            out.append(bench("fft", n, backend, "stream", med * f, w, rng))
    for iters in (1, 10, 100):
        cells = 128 * 128 * 64.0 * iters
        w = (cells * 8, cells * 8, cells, "cell-updates")
        for backend, f in (("cuda-native", 1.0), ("cuda-prelude", 1.05)):
            per_iter = 0.004 * f
            launch_overhead = 0.006
            out.append(bench("stencil", "128x128x64-i%d" % iters, backend, "stream",
                             iters * (per_iter + launch_overhead), w, rng, iterative=True))
            out.append(bench("stencil", "128x128x64-i%d" % iters, backend, "graph",
                             iters * (per_iter + 0.2 * launch_overhead) + 0.003, w, rng, iterative=True))
        out.append(bench("stencil", "128x128x64-i%d" % iters, "opencl", "stream", iters * 0.0115, w, rng,
                         iterative=True))
    out.append(bench("spmv", "poisson2d-512", "cuda-native", "stream", 0.05,
                     (512 * 512 * 5 * 12.0, 512 * 512 * 5 * 2.0, 512 * 512 * 5.0, "non-zeros"), rng))
    out.append(bench("spmv", "poisson2d-512", "opencl", "stream", 0.0, (0, 0, 0, ""), rng,
                     status="validation_failed", error="validation failed: y[17] = 3.5, expected 4 (tol 1e-5)"))
    return out


def write(name, obj):
    with open(os.path.join(HERE, name), "w") as f:
        json.dump(obj, f, indent=1)
        f.write("\n")


def main():
    rng = random.Random(1234)
    old = results(base_benchmarks(rng))
    write("old.json", old)
    write("same.json", old)  # identical samples
    write("slower10.json", scaled(old, 1.10, 1))
    write("faster10.json", scaled(old, 1 / 1.10, 2))
    write("slower3.json", scaled(old, 1.03, 3))
    broken = copy.deepcopy(old)
    b = broken["benchmarks"][1]
    b.update(status="validation_failed", error="validation failed: 12 of 1048576 pixels differ", samples_ms=[])
    write("broken.json", broken)
    changed = copy.deepcopy(old)
    dropped = changed["benchmarks"].pop(2)
    extra = copy.deepcopy(changed["benchmarks"][0])
    extra["name"] = extra["name"].replace("1024x1024", "2048x2048")
    extra["dataset"] = "2048x2048"
    changed["benchmarks"].append(extra)
    assert dropped["backend"] == "opencl"
    write("changed_set.json", changed)
    other = copy.deepcopy(old)
    other["devices"] = [dict(d, name=A100["name"], compute_capability=A100["cc"]) for d in other["devices"]]
    write("other_device.json", other)
    wrong = copy.deepcopy(old)
    wrong["version"] = 99
    write("wrong_version.json", wrong)
    text = json.dumps(old, indent=1)
    with open(os.path.join(HERE, "truncated.json"), "w") as f:
        f.write(text[: len(text) // 2])
    write("not_results.json", {"benchmarks": []})
    rng = random.Random(99)
    write("suite.json", results(suite(rng),
                                calibration={"cuda-native:0": {"copy_gbps": 3000.0, "fp32_gflops": 60000.0}}))


if __name__ == "__main__":
    main()
