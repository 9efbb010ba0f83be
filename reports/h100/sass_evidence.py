#!/usr/bin/env python3
"""SASS facts from the GPU run's dumps, for reports/h100/REPORT.md (evidence/gpu-sass.txt).

Usage: python3 reports/h100/sass_evidence.py INV_DIR > reports/h100/evidence/gpu-sass.txt
INV_DIR is the output folder of scripts/investigate_gpu.sh (its ptx-*/<program>/<backend>.sass
files from `tribench ptx`, which include NVIDIA's OpenCL compiler's code; the .sass files are
not committed: ~59 MB).
"""
import collections
import json
import os
import re
import sys

INSTR = re.compile(r"/\*([0-9a-f]{4,})\*/\s+(.*?);")


def functions(path):
    """name -> [(address, opcode, text)] of every function in a cuobjdump -sass file."""
    text = open(path).read()
    parts = re.split(r"\n\s*Function : (\S+)\n", text)
    out = {}
    for i in range(1, len(parts), 2):
        ins = []
        for m in INSTR.finditer(parts[i + 1]):
            t = m.group(2).strip()
            op = re.sub(r"^@!?U?P\w+\s+", "", t).split()[0]
            ins.append((int(m.group(1), 16), op, t))
        out[parts[i]] = ins
    return out


def hist(ops, top=10):
    c = collections.Counter(ops)
    return ", ".join(f"{k} {v}" for k, v in c.most_common(top))


def loops(ins):
    """(start, end, opcodes) of every backward branch's body."""
    out = []
    for addr, op, text in ins:
        if not op.startswith("BRA"):
            continue
        m = re.search(r"(0x[0-9a-f]+)", text)
        if m and int(m.group(1), 16) < addr:
            start = int(m.group(1), 16)
            out.append((start, addr, [o for a, o, _ in ins if start <= a <= addr]))
    return out


def nbody(inv):
    print("## 1. nbody_step: SASS loops that contain MUFU.RSQ (one per interaction), per backend")
    print("##    in address order of their backward branch: the innermost tile loop comes first; a loop")
    print("##    listed after it that spans it is the enclosing loop (inner loop + remainder code);")
    print("##    short ones are remainder loops. FSETP.GEU.AND + 2 FMUL per MUFU.RSQ = the denormal")
    print("##    fix-up of a non-.ftz rsqrt.approx.f32; CALL.REL.NOINC = IEEE sqrt/rcp slow paths.")
    dumps = [("ptx-default", "baseline, default"), ("ptx-fast", "baseline, fast")]
    for v in ["nbody-cl-native-rsqrt", "nbody-cl-all", "nbody-cl-div-sqrt"]:
        for m in ["default", "precise", "fast"]:
            dumps.append((f"ptx-{v}-{m}", f"{v}, {m}"))
    for d, label in dumps:
        for b in ["cuda-native", "cuda-prelude", "opencl"]:
            path = os.path.join(inv, d, "nbody", b + ".sass")
            if not os.path.exists(path):
                continue
            ins = functions(path).get("nbody_step", [])
            for start, end, ops in loops(ins):
                rsq = ops.count("MUFU.RSQ")
                if rsq == 0 and "CALL.REL.NOINC" not in ops:
                    continue
                per = f"{len(ops) / rsq:.2f} per interaction" if rsq else ""
                print(f"{label:32s} {b:13s} loop {start:#06x}-{end:#06x}: {len(ops)} instr "
                      f"({per}): {hist(ops)}")
    print()


def kmeans(inv):
    print("## 2. kmeans_assign_d4: position (instruction index) of the global loads and the barrier,")
    print("##    and registers (ptxas -v); LDG.E.128 = one float4 of a point")
    for d in ["ptx-default", "ptx-fast", "ptx-kmeans-cl-unroll-f-default"]:
        for b in ["cuda-native", "cuda-prelude", "opencl"]:
            path = os.path.join(inv, d, "kmeans", b + ".sass")
            if not os.path.exists(path):
                continue
            ins = functions(path)["kmeans_assign_d4"]
            pos = [f"{i}:{o}" for i, (_, o, _) in enumerate(ins) if o.startswith("LDG.E.128") or o.startswith("BAR")]
            res = json.load(open(os.path.join(inv, d, "kmeans", b + ".resources.json")))
            regs = res["kernels"]["kmeans_assign_d4"]["ptxas"]["registers"]
            print(f"{d:32s} {b:13s} {regs} registers, {len(ins)} instr; {' '.join(pos)}")
    print()


def fft(inv):
    print("## 3. fft: registers (ptxas -v) and, for the CUDA backends, the driver's")
    print("##    CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK of each kernel (ptx-default/fft/*.resources.json)")
    for b in ["cuda-native", "cuda-prelude", "opencl"]:
        res = json.load(open(os.path.join(inv, "ptx-default", "fft", b + ".resources.json")))
        ks = sorted(res["kernels"].items(), key=lambda kv: int(kv[0][5:]))
        cells = []
        for name, k in ks:
            drv = (k.get("driver") or {}).get("max_threads_per_block")
            cells.append(f"{name[5:]}:{k['ptxas']['registers']}" + (f"/{drv}" if drv else ""))
        print(f"{b:13s} " + " ".join(cells))
    print()
    print("## 4. fft_r64, SASS opcode counts that differ, cuda-prelude vs opencl (same kernels.cl)")
    h = {}
    for b in ["cuda-prelude", "opencl"]:
        ins = functions(os.path.join(inv, "ptx-default", "fft", b + ".sass"))["fft_r64"]
        h[b] = collections.Counter(o for _, o, _ in ins)
    total = {b: sum(c.values()) for b, c in h.items()}
    print(f"total: cuda-prelude {total['cuda-prelude']}, opencl {total['opencl']}")
    keys = set(h["cuda-prelude"]) | set(h["opencl"])
    for k in sorted(keys, key=lambda k: (-abs(h["cuda-prelude"][k] - h["opencl"][k]), k)):
        d = h["cuda-prelude"][k] - h["opencl"][k]
        if abs(d) >= 4:
            print(f"  {k:20s} {h['cuda-prelude'][k]:4d} {h['opencl'][k]:4d} {d:+d}")
    fp = [k for k in keys if k.startswith(("F", "MUFU", "LDG", "STG", "LDS", "STS", "BAR"))
          and h["cuda-prelude"][k] != h["opencl"][k]]
    print(f"  floating-point, memory and barrier opcodes that differ: {sorted(fp) or 'none'}")
    print()


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    inv = sys.argv[1]
    print("# SASS evidence from the H100 run of scripts/investigate_gpu.sh (2026-11-23, CUDA 13.0,")
    print("# driver 580.159.04). Generated by: python3 reports/h100/sass_evidence.py INV_DIR")
    print()
    nbody(inv)
    kmeans(inv)
    fft(inv)


if __name__ == "__main__":
    main()
