#!/usr/bin/env python3
"""Rewrite the PTX NVIDIA's OpenCL made of a kernels.cl so that cuda-prelude can load it.

Usage: scripts/opencl_ptx_to_prelude.py [--addresses [--opencl-twin TWIN_PTX]] OPENCL_PTX OUT_PTX

OPENCL_PTX is what `tribench ptx -b opencl` writes on an NVIDIA GPU (<p>/opencl.ptx). Put
OUT_PTX at DIR/programs/<p>/kernels.cl.ptx and run cuda-prelude with TRIBENCH_KERNEL_DIR=DIR:
it then runs opencl's code through the CUDA driver (docs/ptx-tools.md, "Running other PTX":
what that tells and what it does not).

The two calling conventions differ in two places:
- a `__local` pointer parameter is, to NVIDIA's OpenCL, a shared-window address
  (`.param .u64 .ptr .shared`); to cuda-prelude, a 32-bit byte offset into the one
  `extern __shared__ tb_local_mem` block (backends/cuda/cl_translate.hpp). By default each
  becomes `.param .u32` and each load of it yields tb_local_mem + offset. With --addresses
  it stays a 64-bit address, which tribench's CUDA backends pass to a 64-bit __local
  parameter; only its `.ptr .shared .align N` attribute goes, and the target's
  `texmode_independent` (the CUDA driver refused the module with both: CUDA_ERROR_INVALID_IMAGE).
  ptxas makes the same machine code of it as of OPENCL_PTX less its %envreg reads.
- the OpenCL runtime fills environment registers: %envreg0-2 the offset of the group ids and
  %envreg3-5 the global offset (both 0 in a plain launch), %envreg6-8 the number of groups
  (%nctaid). They become those values (under the CUDA driver they hold other numbers). Any
  other use of %envreg is refused.

--opencl-twin TWIN_PTX (with --addresses) also writes OPENCL_PTX with only its %envreg reads
changed, for DIR/programs/<p>/kernels.cl.opencl.ptx: the opencl backend then runs under
NVIDIA's OpenCL the same machine code as cuda-prelude runs under the CUDA driver.
"""
import argparse
import re
import sys

ENTRY = re.compile(r"\s*(?:\.visible\s+)?\.entry\s+(\w+)\s*\(")
LOCAL_PARAM = re.compile(r"(\s*)\.param\s+\.[ub](?:32|64)\s+\.ptr\s+\.shared\s+(?:\.align\s+\d+\s+)?(\w+)(,?)\s*$")
PARAM_LOAD = re.compile(r"(\s*)ld\.param\.([ub](?:32|64))\s+(%\w+),\s*\[(\w+)\];\s*$")
ENVREG_MOV = re.compile(r"(\s*)mov\.[ub]32\s+(%\w+),\s*%envreg(\d+);\s*$")


# What convert() does with the two conventions: OFFSETS rewrites both for cuda-prelude,
# ADDRESSES keeps the __local addresses (the CUDA driver's form), ENVREG_ONLY changes only
# the %envreg reads (the OpenCL twin).
OFFSETS, ADDRESSES, ENVREG_ONLY = "offsets", "addresses", "envreg-only"
TEXMODE = re.compile(r"^(\.target\s+\w+)\s*,\s*texmode_independent\s*$")


def convert(ptx, mode=OFFSETS):
    out, local_params, in_entry, counts = [], set(), False, {"kernels": 0, "local parameters": 0}
    address_size = False
    for line in ptx.split("\n"):
        if ENTRY.match(line):
            in_entry, local_params = True, set()
            counts["kernels"] += 1
        m = LOCAL_PARAM.match(line)
        if m and in_entry:
            counts["local parameters"] += 1
            if mode == OFFSETS:
                local_params.add(m.group(2))
                out.append(f"{m.group(1)}.param .u32 {m.group(2)}{m.group(3)}")
            elif mode == ADDRESSES:
                if not line.lstrip().startswith(".param .u64"):
                    raise ValueError(f"a 32-bit __local parameter: {line.strip()}")
                out.append(f"{m.group(1)}.param .u64 {m.group(2)}{m.group(3)}")
            else:
                out.append(line)
            continue
        if in_entry and line.strip() == "{":
            out.append(line)
            if mode == OFFSETS:
                out.append("\t.reg .b32 \t%tb_off, %tb_base;")
            in_entry = False  # the body: parameters end here
            continue
        m = PARAM_LOAD.match(line)
        if m and m.group(4) in local_params:
            indent, width, reg, param = m.groups()
            out += [f"{indent}ld.param.u32 %tb_off, [{param}];", f"{indent}mov.u32 %tb_base, tb_local_mem;"]
            if width.endswith("64"):
                out += [f"{indent}add.u32 %tb_off, %tb_off, %tb_base;", f"{indent}cvt.u64.u32 {reg}, %tb_off;"]
            else:
                out.append(f"{indent}add.u32 {reg}, %tb_off, %tb_base;")
            continue
        m = ENVREG_MOV.match(line)
        if m:
            indent, reg, n = m.group(1), m.group(2), int(m.group(3))
            if n <= 5:
                line = f"{indent}mov.u32 {reg}, 0;"
            elif n <= 8:
                line = f"{indent}mov.u32 {reg}, %nctaid.{'xyz'[n - 6]};"
            else:
                raise ValueError(f"%envreg{n}: not one of the registers this script knows (0-8)")
        elif "%envreg" in line:
            raise ValueError(f"%envreg used other than by a mov: {line.strip()}")
        if mode == ADDRESSES and TEXMODE.match(line):
            line = TEXMODE.match(line).group(1)
        out.append(line)
        if line.startswith(".address_size") and not address_size:
            address_size = True
            if mode == OFFSETS:
                out.append(".extern .shared .align 16 .b8 tb_local_mem[];")
    if counts["kernels"] == 0:
        raise ValueError("no .entry in it: not PTX")
    if not address_size:
        raise ValueError("no .address_size line: not PTX as NVIDIA's OpenCL writes it")
    if "tb_local_mem" in ptx:
        raise ValueError("it already uses tb_local_mem: cuda-prelude's PTX, or converted before")
    return "\n".join(out), counts


def write(path, text):
    try:
        with open(path, "w") as f:
            f.write(text)
    except OSError as e:
        sys.exit(f"opencl_ptx_to_prelude: cannot write {path}: {e}")


def main(argv):
    parser = argparse.ArgumentParser(prog="opencl_ptx_to_prelude.py", usage=__doc__.split("\n\n")[1][7:])
    parser.add_argument("--addresses", action="store_true")
    parser.add_argument("--opencl-twin", metavar="TWIN_PTX")
    parser.add_argument("opencl_ptx")
    parser.add_argument("out_ptx")
    args = parser.parse_args(argv[1:])
    if args.opencl_twin and not args.addresses:
        parser.error("--opencl-twin goes with --addresses")
    try:
        with open(args.opencl_ptx) as f:
            text = f.read()
        converted, counts = convert(text, ADDRESSES if args.addresses else OFFSETS)
        twin = convert(text, ENVREG_ONLY)[0] if args.opencl_twin else None
    except (OSError, UnicodeDecodeError, ValueError) as e:
        sys.exit(f"opencl_ptx_to_prelude: {args.opencl_ptx}: {e}")
    write(args.out_ptx, converted)
    how = "kept as shared addresses" if args.addresses else "rewritten"
    print(f"{args.out_ptx}: {counts['kernels']} kernels, {counts['local parameters']} __local parameters {how}")
    if twin is not None:
        write(args.opencl_twin, twin)
        print(f"{args.opencl_twin}: the same, for NVIDIA's OpenCL (only %envreg changed)")


if __name__ == "__main__":
    main(sys.argv)
