#!/usr/bin/env python3
"""Checks that `tribench run --save-outputs DIR` dumps mean what docs/save-outputs.md says,
for every backend that ran, independently of tribench's own validation (numpy, float64).

  save_outputs_check.py DIR RESULTS.json
  save_outputs_check.py --run TRIBENCH [run args...] -- DIR   (runs tribench first, then checks)

A dump must mean the same thing whichever backend wrote it (vendor included): an fft
`output` of a round trip is the input again, not N times it; an spmv `y` is A x. Where
several backends ran the same benchmark, each is held to the same meaning, so they agree
with each other as well. Tolerances are the programs' own (docs/programs/*.md). Exit 1
on any mismatch, naming the benchmark and the array.
"""
import json
import math
import os
import shutil
import subprocess
import sys

import numpy as np

U = 2.0 ** -24  # unit roundoff of float32
failures = []
checked = []


def fail(bench, msg):
    failures.append(f"{bench}: {msg}")


def expect(bench, arrays, name, dtype, shape=None):
    a = arrays.get(name)
    if a is None:
        fail(bench, f"no {name}.npy")
        return None
    if a.dtype != np.dtype(dtype):
        fail(bench, f"{name} has dtype {a.dtype}, expected {dtype}")
        return None
    if shape is not None and tuple(a.shape) != tuple(shape):
        fail(bench, f"{name} has shape {a.shape}, expected {shape}")
        return None
    return a


def check_fft(b, arrays):
    # input, output: complex64; 1-D datasets (batch, length), transformed along the length;
    # 2-D datasets (rows, cols), one 2-D transform.
    x = expect(b["name"], arrays, "input", "<c8")
    y = expect(b["name"], arrays, "output", "<c8", None if x is None else x.shape)
    if x is None or y is None:
        return
    two_d = b["dataset"].startswith("2d-")
    n = x.size if two_d else x.shape[1]
    xd = x.astype(np.complex128)
    if b["variant"] == "forward":
        want = np.fft.fft2(xd)[None] if two_d else np.fft.fft(xd, axis=1)
        tol = 10 * U * math.log2(n)
    else:  # roundtrip: inverse(forward(x)) / N, i.e. x again
        want = xd[None] if two_d else xd
        tol = 20 * U * math.log2(n)
    got = y.astype(np.complex128)[None] if two_d else y.astype(np.complex128)
    err = max(np.linalg.norm(g - w) / max(np.linalg.norm(w), 1e-300) for g, w in zip(got, want))
    if not err <= tol:
        scale = np.vdot(want.ravel(), got.ravel()) / np.vdot(want.ravel(), want.ravel())
        fail(b["name"], f"output is not the {b['variant']} transform of input: relative L2 error {err:.3g} > "
                        f"{tol:.3g} (output / expected ~ {abs(scale):.4g})")


def check_spmv(b, arrays):
    rp = expect(b["name"], arrays, "row_ptr", "<i4")
    col = expect(b["name"], arrays, "col", "<i4")
    val = expect(b["name"], arrays, "val", "<f4")
    x = expect(b["name"], arrays, "x", "<f4")
    if rp is None or col is None or val is None or x is None:
        return
    rows = rp.size - 1
    y = expect(b["name"], arrays, "y", "<f4", (rows,))
    if y is None:
        return
    if rp[0] != 0 or rp[-1] != col.size or col.size != val.size or np.any(np.diff(rp) < 0):
        fail(b["name"], "row_ptr, col and val are not a CSR matrix")
        return
    if col.size and (col.min() < 0 or col.max() >= x.size):
        fail(b["name"], "a column index is outside x")
        return
    prod = val.astype(np.float64) * x.astype(np.float64)[col]
    row = np.repeat(np.arange(rows), np.diff(rp))
    ref = np.bincount(row, weights=prod, minlength=rows)
    mag = np.bincount(row, weights=np.abs(prod), minlength=rows)
    length = np.diff(rp).astype(np.float64)
    # docs/programs/spmv.md: |y - ref| <= len * FLT_EPSILON * sum|a x| + len * FLT_MIN
    bound = length * 2 * U * mag + length * np.finfo(np.float32).tiny
    bad = ~(np.abs(y.astype(np.float64) - ref) <= bound)
    if bad.any():
        i = int(np.argmax(bad))
        fail(b["name"], f"y is not A x in {int(bad.sum())} rows; first row {i}: {y[i]} vs {ref[i]}")


def assignment(points_dn, centroids):
    """Nearest centroid of each point (points stored feature-major, d x n), and how close the
    runner-up was (for ties within rounding)."""
    p = points_dn.T.astype(np.float64)
    d = ((p[:, None, :] - centroids.astype(np.float64)[None, :, :]) ** 2).sum(-1)
    order = np.sort(d, axis=1)
    return d.argmin(1), order[:, 1] - order[:, 0], d


def check_kmeans(b, arrays):
    pts = expect(b["name"], arrays, "points", "<f4")
    c0 = expect(b["name"], arrays, "initial_centroids", "<f4")
    if pts is None or c0 is None:
        return
    d, n = pts.shape
    k = c0.shape[0]
    labels = expect(b["name"], arrays, "labels", "<i4", (n,))
    if labels is None:
        return
    if labels.min() < 0 or labels.max() >= k:
        fail(b["name"], "a label is outside 0..k-1")
        return
    inputs = c0
    if b["variant"] == "full":
        hist = expect(b["name"], arrays, "centroids", "<f4")
        if hist is None:
            return
        # centroids[t] = mean of the points nearest to the centroids iteration t started from.
        prev = c0
        for t in range(hist.shape[0]):
            near, _, _ = assignment(pts, prev)
            for c in range(k):
                members = pts.T[near == c].astype(np.float64)
                if len(members) == 0:  # an empty cluster keeps its centroid, bit for bit
                    if not np.array_equal(hist[t, c], prev[c]):
                        fail(b["name"], f"centroids[{t}][{c}] has no points but moved")
                        return
                    continue
                mean = members.mean(0)
                # a float sum of m terms is within m u sum|x| (Higham 3.1): divided by m.
                bound = len(members) * 2 * U * np.abs(members).mean(0) + 2 * U * np.abs(mean)
                if not np.all(np.abs(hist[t, c] - mean) <= bound):
                    fail(b["name"], f"centroids[{t}][{c}] is not the mean of its points")
                    return
            prev = hist[t]
        inputs = hist[-2] if hist.shape[0] > 1 else c0  # labels: the last iteration's assignment
    near, _, dist = assignment(pts, inputs)
    wrong = labels != near
    rows = np.arange(n)
    d_got, d_best = dist[rows, labels], dist[rows, near]
    # A point whose two nearest centroids tie within float rounding may go either way
    # (docs/save-outputs.md): within 8u of the distances, and for the d = 2 and 4 kernels,
    # which rank by |c|^2 - 2 x.c, within (2d+2)u of |c|^2 + 2 sum_f |x_f c_f| of either.
    slack = 8 * U * (d_got + d_best) + 1e-30
    if d in (2, 4) and n % 4 == 0:
        c = inputs.astype(np.float64)
        scale = (c ** 2).sum(1)[None, :] + 2 * (np.abs(pts.T.astype(np.float64)) @ np.abs(c).T)
        slack = slack + (2 * d + 2) * U * (scale[rows, labels] + scale[rows, near])
    tie = d_got - d_best <= slack
    if np.any(wrong & ~tie):
        fail(b["name"], f"{int(np.sum(wrong & ~tie))} labels are not the nearest centroid")


def check_mandelbrot(b, arrays):
    w, h = (int(v) for v in b["dataset"].split("x"))
    it = expect(b["name"], arrays, "iterations", "<i4", (h, w))
    if it is not None and (it.min() < 0 or it.max() > 256):
        fail(b["name"], "an iteration count outside 0..256")


def check_nbody(b, arrays):
    ip = expect(b["name"], arrays, "initial_positions", "<f4")
    if ip is None:
        return
    n = ip.shape[0]
    iv = expect(b["name"], arrays, "initial_velocities", "<f4", (n, 4))
    p = expect(b["name"], arrays, "positions", "<f4", (n, 4))
    v = expect(b["name"], arrays, "velocities", "<f4", (n, 4))
    if iv is None or p is None or v is None:
        return
    if not (np.isfinite(p).all() and np.isfinite(v).all()):
        fail(b["name"], "positions or velocities not finite")
    if not np.array_equal(p[:, 3], ip[:, 3]):
        fail(b["name"], "positions[:, 3] (the masses) changed")


def check_stencil(b, arrays):
    x = expect(b["name"], arrays, "input", "<f4")
    y = expect(b["name"], arrays, "output", "<f4", None if x is None else x.shape)
    if x is not None and y is not None and not np.isfinite(y).all():
        fail(b["name"], "output not finite")


CHECKS = {"fft": check_fft, "spmv": check_spmv, "kmeans": check_kmeans, "mandelbrot": check_mandelbrot,
          "nbody": check_nbody, "stencil": check_stencil}


def main():
    argv = sys.argv[1:]
    if argv[:1] == ["--run"]:
        sep = argv.index("--")
        cmd, rest = argv[1:sep], argv[sep + 1:]
        folder = rest[0]
        shutil.rmtree(folder, ignore_errors=True)  # no dump of an earlier run may be checked
        results = os.path.join(folder, "results.json")
        p = subprocess.run(cmd + ["--save-outputs", folder, "--out", results])
        if p.returncode != 0:
            print(f"FAIL: tribench exited {p.returncode}", file=sys.stderr)
            return 1
    else:
        folder, results = argv[0], argv[1]
    doc = json.load(open(results))
    for b in doc["benchmarks"]:
        if b["status"] != "ok":
            continue
        stem = b["name"].replace("/", "_").replace("@", "_")
        arrays = {}
        for f in os.listdir(folder):
            if f.startswith(stem + ".") and f.endswith(".npy"):
                arrays[f[len(stem) + 1:-4]] = np.load(os.path.join(folder, f))
        check = CHECKS.get(b["program"])
        if not arrays:
            fail(b["name"], "no dumps")
        elif check:
            check(b, arrays)
            checked.append(b["name"])
    backends = sorted({b["backend"] for b in doc["benchmarks"] if b["status"] == "ok"})
    print(f"save-outputs: {len(checked)} benchmarks checked on {', '.join(backends)}; {len(failures)} failures")
    for f in failures:
        print("FAIL: " + f, file=sys.stderr)
    return 1 if failures or not checked else 0


if __name__ == "__main__":
    sys.exit(main())
