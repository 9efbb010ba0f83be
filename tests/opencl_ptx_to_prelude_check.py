#!/usr/bin/env python3
"""scripts/opencl_ptx_to_prelude.py on real NVIDIA OpenCL output (tests/data/ptx/opencl_spmv.ptx):
only the __local parameters and the environment registers change, the result assembles, and
inputs it cannot convert are refused with one line naming the problem. With --addresses the
__local parameters stay 64-bit addresses, and the output and its --opencl-twin assemble to
the same machine code.
Usage: opencl_ptx_to_prelude_check.py SCRIPT FIXTURE WORKDIR"""
import os
import re
import shutil
import struct
import subprocess
import sys

script, fixture, work = sys.argv[1:4]
os.makedirs(work, exist_ok=True)
failures = []


def check(cond, what):
    if not cond:
        failures.append(what)


def convert(src_text, name, options=()):
    src, out = os.path.join(work, name + ".in.ptx"), os.path.join(work, name + ".out.ptx")
    with open(src, "w") as f:
        f.write(src_text)
    if os.path.exists(out):
        os.remove(out)
    r = subprocess.run([sys.executable, script, *options, src, out], capture_output=True, text=True)
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


# --addresses: the __local parameters stay 64-bit (attribute dropped), their loads and the
# target's other lines as they were, no tb_local_mem; the twin changes only the %envreg reads.
twin_path = os.path.join(work, "spmv.twin.ptx")
r, addr = convert(original, "spmv_addr", ("--addresses", "--opencl-twin", twin_path))
check(r.returncode == 0, f"--addresses failed: {r.stderr}")
addr = addr or ""
check("3 kernels, 2 __local parameters kept as shared addresses" in r.stdout, f"summary line: {r.stdout!r}")
for p in ("spmv_merge_fixup_param_5", "spmv_merge_fixup_param_6"):
    check(re.search(r"^\s*\.param \.u64 " + p + r",?$", addr, re.M), f"{p} is not a plain .u64 parameter")
    check(len(re.findall(r"ld\.param\.u64\s+%rd\d+, \[" + p + r"\];", addr)) == 1, f"{p}: its load changed")
check(".ptr .shared" not in addr and "tb_local_mem" not in addr and "%envreg" not in addr, "--addresses left a detail")
check(re.search(r"^\.target sm_90$", addr, re.M), "texmode_independent is left on the target")
twin = open(twin_path).read() if os.path.exists(twin_path) else ""
check(twin.count(".ptr .shared") == 2 and "texmode_independent" in twin, "the twin lost its OpenCL details")
check("%envreg" not in twin, "the twin kept an %envreg")
diff = [(a, b) for a, b in zip(original.split("\n"), twin.split("\n")) if a != b]
check(len(diff) == 4 and all("%envreg" in a for a, _ in diff), f"the twin changes other lines: {diff[:3]}")
check(len(twin.split("\n")) == len(original.split("\n")), "the twin's line count differs")


def text_sections(cubin):
    """The .text.<kernel> sections of an ELF64 cubin: the machine code, without the attributes."""
    data = open(cubin, "rb").read()
    shoff, = struct.unpack_from("<Q", data, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 0x3A)
    sections = [struct.unpack_from("<IIQQQQIIQQ", data, shoff + i * shentsize) for i in range(shnum)]
    names = sections[shstrndx]
    def name(sh):
        start = names[4] + sh[0]
        return data[start:data.index(b"\0", start)].decode()
    return {name(sh): data[sh[4]:sh[4] + sh[5]] for sh in sections if name(sh).startswith(".text.")}


if ptxas:
    code = {}
    for tag, path in (("addresses", os.path.join(work, "spmv_addr.out.ptx")), ("twin", twin_path)):
        cubin = os.path.join(work, tag + ".cubin")
        a = subprocess.run([ptxas, "-arch=sm_90", path, "-o", cubin], capture_output=True, text=True)
        check(a.returncode == 0, f"ptxas refused the {tag} form: {a.stderr}")
        code[tag] = text_sections(cubin) if a.returncode == 0 else {}
    check(len(code["addresses"]) == 3, f"kernels in the cubin: {sorted(code['addresses'])}")
    check(code["addresses"] == code["twin"], "the two forms assemble to different machine code")

r, written = convert(original, "twin_alone", ("--opencl-twin", twin_path))
check(r.returncode != 0 and "--opencl-twin goes with --addresses" in r.stderr and written is None,
      f"--opencl-twin without --addresses: {r.returncode} {r.stderr!r}")

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
