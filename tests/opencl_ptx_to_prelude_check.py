#!/usr/bin/env python3
"""scripts/opencl_ptx_to_prelude.py on real NVIDIA OpenCL output (tests/data/ptx/opencl_spmv.ptx):
only the __local parameters and the environment registers change, the result assembles, and
inputs it cannot convert are refused with one line naming the problem.
Usage: opencl_ptx_to_prelude_check.py SCRIPT FIXTURE WORKDIR"""
import os
import re
import shutil
import subprocess
import sys

script, fixture, work = sys.argv[1:4]
os.makedirs(work, exist_ok=True)
failures = []


def check(cond, what):
    if not cond:
        failures.append(what)


def convert(src_text, name):
    src, out = os.path.join(work, name + ".in.ptx"), os.path.join(work, name + ".out.ptx")
    with open(src, "w") as f:
        f.write(src_text)
    if os.path.exists(out):
        os.remove(out)
    r = subprocess.run([sys.executable, script, src, out], capture_output=True, text=True)
    return r, (open(out).read() if os.path.exists(out) else None)


original = open(fixture).read()
r, out = convert(original, "spmv")
check(r.returncode == 0, f"conversion failed: {r.stderr}")
out = out or ""
# Counts taken from the fixture by grep: 3 kernels, spmv_merge_fixup's 2 __local parameters
# loaded once each, %envreg0 twice, %envreg3 and %envreg6 once.
check("3 kernels, 2 __local parameters rewritten" in r.stdout, f"summary line: {r.stdout!r}")
check(".ptr .shared" not in out, "a .ptr .shared parameter is left")
for p in ("spmv_merge_fixup_param_5", "spmv_merge_fixup_param_6"):
    check(re.search(r"\.param \.u32 " + p + r"\b", out), f"{p} is not a .u32 offset")
    check(len(re.findall(r"ld\.param\.u32 %tb_off, \[" + p + r"\];", out)) == 1, f"{p}: not loaded as an offset once")
# Each load of a __local pointer becomes: offset, base, their sum into the same register.
for m in re.finditer(r"(\s*)ld\.param\.u64\s+(%rd\d+), \[(spmv_merge_fixup_param_[56])\];", original):
    ind, reg, p = m.groups()
    block = (f"{ind}ld.param.u32 %tb_off, [{p}];{ind}mov.u32 %tb_base, tb_local_mem;"
             f"{ind}add.u32 %tb_off, %tb_off, %tb_base;{ind}cvt.u64.u32 {reg}, %tb_off;")
    check(block in out, f"{p}: not rewritten as offset + tb_local_mem into {reg}")
check(out.count("mov.u32 %tb_base, tb_local_mem;") == 2, "tb_local_mem added to each offset")
check(out.count(".extern .shared .align 16 .b8 tb_local_mem[];") == 1, "tb_local_mem declared once")
check("%envreg" not in out, "an %envreg is left")
check(len(re.findall(r"mov\.u32 %r\d+, %nctaid\.x;", out)) == 1, "%envreg6 is not the group count")
check(len(re.findall(r"mov\.u32 %r\d+, 0;", out)) >= 3, "%envreg0/3 are not 0")
# Everything else is the input, line for line.
kept = [l for l in original.split("\n") if ".ptr .shared" not in l and "%envreg" not in l
        and not re.search(r"\[spmv_merge_fixup_param_[56]\]", l)]
check(all(l in out.split("\n") for l in kept), "lines other than the rewritten ones changed")
ptxas = shutil.which("ptxas") or ("/usr/local/cuda/bin/ptxas" if os.path.exists("/usr/local/cuda/bin/ptxas") else None)
if ptxas:
    a = subprocess.run([ptxas, "-arch=sm_90", os.path.join(work, "spmv.out.ptx"), "-o", os.devnull],
                       capture_output=True, text=True)
    check(a.returncode == 0, f"ptxas refused the result: {a.stderr}")
else:
    print("ptxas not found: the assembly check is skipped")

# Refused, one line each, nothing written.
for name, text, message in [
        ("twice", out, "already uses tb_local_mem"),
        ("envreg9", original.replace("%envreg3", "%envreg9"), "%envreg9"),
        ("envreg_add", original.replace("mov.b32 \t%r13, %envreg3;", "add.s32 \t%r13, %r13, %envreg3;"), "other than by a mov"),
        ("notptx", "hello\n", "no .entry in it")]:
    r, written = convert(text, name)
    check(r.returncode != 0, f"{name}: accepted")
    check(message in r.stderr and r.stderr.count("\n") == 1, f"{name}: message {r.stderr!r}")
    check(written is None, f"{name}: wrote an output")

for f in failures:
    print("FAIL:", f)
print("ok" if not failures else f"{len(failures)} failures")
sys.exit(1 if failures else 0)
