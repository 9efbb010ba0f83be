#!/usr/bin/env python3
"""Rewrite the PTX NVIDIA's OpenCL made of a kernels.cl so that cuda-prelude can load it.

Usage: scripts/opencl_ptx_to_prelude.py OPENCL_PTX OUT_PTX

OPENCL_PTX is what `tribench ptx -b opencl` writes on an NVIDIA GPU (<p>/opencl.ptx). Put
OUT_PTX at DIR/programs/<p>/kernels.cl.ptx and run cuda-prelude with TRIBENCH_KERNEL_DIR=DIR:
it then runs opencl's code, less the two details below, through the CUDA driver
(docs/ptx-tools.md, "Running other PTX": what that tells and what it does not).

The two calling conventions differ in two places, and only those are rewritten:
- a `__local` pointer parameter is, to NVIDIA's OpenCL, a shared-window address
  (`.param .u64 .ptr .shared`); to cuda-prelude, a 32-bit byte offset into the one
  `extern __shared__ tb_local_mem` block (backends/cuda/cl_translate.hpp). Each becomes
  `.param .u32` and each load of it yields tb_local_mem + offset.
- the OpenCL runtime fills environment registers: %envreg0-2 the offset of the group ids and
  %envreg3-5 the global offset (both 0 in a plain launch), %envreg6-8 the number of groups
  (%nctaid). Any other use of %envreg is refused.
"""
import re
import sys

ENTRY = re.compile(r"\s*(?:\.visible\s+)?\.entry\s+(\w+)\s*\(")
LOCAL_PARAM = re.compile(r"(\s*)\.param\s+\.[ub](?:32|64)\s+\.ptr\s+\.shared\s+(?:\.align\s+\d+\s+)?(\w+)(,?)\s*$")
PARAM_LOAD = re.compile(r"(\s*)ld\.param\.([ub](?:32|64))\s+(%\w+),\s*\[(\w+)\];\s*$")
ENVREG_MOV = re.compile(r"(\s*)mov\.[ub]32\s+(%\w+),\s*%envreg(\d+);\s*$")


def convert(ptx):
    out, local_params, in_entry, counts = [], set(), False, {"kernels": 0, "local parameters": 0}
    declared = False
    for line in ptx.split("\n"):
        if ENTRY.match(line):
            in_entry, local_params = True, set()
            counts["kernels"] += 1
        m = LOCAL_PARAM.match(line)
        if m and in_entry:
            local_params.add(m.group(2))
            counts["local parameters"] += 1
            out.append(f"{m.group(1)}.param .u32 {m.group(2)}{m.group(3)}")
            continue
        if in_entry and line.strip() == "{":
            out += [line, "\t.reg .b32 \t%tb_off, %tb_base;"]
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
        out.append(line)
        if line.startswith(".address_size") and not declared:
            out.append(".extern .shared .align 16 .b8 tb_local_mem[];")
            declared = True
    if counts["kernels"] == 0:
        raise ValueError("no .entry in it: not PTX")
    if not declared:
        raise ValueError("no .address_size line: not PTX as NVIDIA's OpenCL writes it")
    if "tb_local_mem" in ptx:
        raise ValueError("it already uses tb_local_mem: cuda-prelude's PTX, or converted before")
    return "\n".join(out), counts


def main(argv):
    if len(argv) != 3:
        sys.exit(__doc__.split("\n\n")[1])
    try:
        with open(argv[1]) as f:
            text = f.read()
        converted, counts = convert(text)
    except (OSError, UnicodeDecodeError, ValueError) as e:
        sys.exit(f"opencl_ptx_to_prelude: {argv[1]}: {e}")
    try:
        with open(argv[2], "w") as f:
            f.write(converted)
    except OSError as e:
        sys.exit(f"opencl_ptx_to_prelude: cannot write {argv[2]}: {e}")
    print(f"{argv[2]}: {counts['kernels']} kernels, {counts['local parameters']} __local parameters rewritten")


if __name__ == "__main__":
    main(sys.argv)
