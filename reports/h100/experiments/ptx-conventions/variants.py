#!/usr/bin/env python3
"""EXPERIMENT ptx-conventions: from the PTX NVIDIA's OpenCL built (`tribench ptx -b opencl`),
the forms kernel_timer runs. Usage: variants.py OPENCL_PTX OUTDIR

  cuda.ptx          scripts/opencl_ptx_to_prelude.py's rewrite, for the CUDA driver
  ocl.ptx           as NVIDIA's OpenCL built it
  ocl-envreg.ptx    %envreg0 (the group-id offset, 0 in these launches) read as 0
  ocl-local.ptx     each __local parameter read as the address of an extern shared array:
                    valid for kernels with one __local argument, which NVIDIA's runtime is
                    assumed to place at the start of the dynamic shared memory
  ocl-both.ptx      both
"""
import importlib.util, os, re, sys

here = os.path.dirname(os.path.abspath(__file__))
spec = importlib.util.spec_from_file_location(
    "convert", os.path.join(here, "..", "..", "..", "..", "scripts", "opencl_ptx_to_prelude.py"))
convert = importlib.util.module_from_spec(spec)
spec.loader.exec_module(convert)


def envreg_zero(ptx):
    return re.sub(r"mov\.b32(\s+%r\d+), %envreg0;", r"mov.u32\1, 0;", ptx)


def local_as_extern(ptx):
    params = set(re.findall(r"\.param\s+\.u64\s+\.ptr\s+\.shared\s+\.align\s+\d+\s+(\w+)", ptx))
    ptx = re.sub(r"ld\.param\.u64(\s+%rd\d+),\s*\[(\w+)\];",
                 lambda m: f"mov.u64{m.group(1)}, tb_local_mem;" if m.group(2) in params else m.group(0), ptx)
    return ptx.replace(".address_size 64", ".address_size 64\n.extern .shared .align 16 .b8 tb_local_mem[];", 1)


src = open(sys.argv[1]).read()
out = sys.argv[2]
os.makedirs(out, exist_ok=True)
forms = {"cuda": convert.convert(src)[0], "ocl": src, "ocl-envreg": envreg_zero(src),
         "ocl-local": local_as_extern(src), "ocl-both": local_as_extern(envreg_zero(src))}
for name, text in forms.items():
    with open(os.path.join(out, name + ".ptx"), "w") as f:
        f.write(text)
print("variants:", ", ".join(forms))
