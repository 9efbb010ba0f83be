#!/usr/bin/env python3
"""EXPERIMENT ptx-conventions: the SASS of each KERNEL in every cubin of a CUDA JIT cache
folder (CUDA_CACHE_PATH: the cubins are ELF images inside its files) and in the given .cubin
files, normalised (no addresses or encodings), and for each pair how many instructions they
share in the same order. Usage: sass_diff.py CACHE_DIR KERNEL... [FILE.cubin...]"""
import difflib, os, re, struct, subprocess, sys, tempfile
cache = sys.argv[1]
kernels = [a for a in sys.argv[2:] if not a.endswith(".cubin")]
extra = [a for a in sys.argv[2:] if a.endswith(".cubin")]
blobs = []
for root, _, files in os.walk(cache):
    for f in files:
        data = open(os.path.join(root, f), "rb").read()
        pos = data.find(b"\x7fELF")
        while pos >= 0:
            h = data[pos:pos + 64]
            if len(h) == 64 and h[4] == 2:
                phoff, shoff = struct.unpack_from("<QQ", h, 0x20)
                phentsize, phnum, shentsize, shnum = struct.unpack_from("<HHHH", h, 0x36)
                blobs.append(data[pos:pos + max(shoff + shnum * shentsize, phoff + phnum * phentsize)])
            pos = data.find(b"\x7fELF", pos + 4)
names = [f"cache{i}" for i in range(len(blobs))] + [os.path.basename(e) for e in extra]
blobs += [open(e, "rb").read() for e in extra]
for k in kernels:
    versions = []
    for i, b in enumerate(blobs):
        path = os.path.join(tempfile.gettempdir(), f"sass_diff_{os.getpid()}_{i}.cubin")
        open(path, "wb").write(b)
        sass = subprocess.run(["cuobjdump", "-sass", path], capture_output=True, text=True).stdout
        m = re.search(r"Function : " + k + r"\n(.*?)(?=\n\s*Function : |\Z)", sass, re.S)
        if not m:
            continue
        ins = [re.sub(r"\s+", " ", x.group(1)).strip() for x in re.finditer(r"/\*[0-9a-f]{4,}\*/\s+([^;]*;)", m.group(1))]
        res = subprocess.run(["cuobjdump", "-res-usage", path], capture_output=True, text=True).stdout
        os.remove(path)
        r = re.search(r"Function " + k + r":\s*\n?\s*REG:(\d+)", res)
        versions.append((names[i], r.group(1) if r else "?", ins))
    print(f"{k}: {len(versions)} versions: " + ", ".join(f"{i}: {len(ins)} instructions, {reg} registers" for i, reg, ins in versions))
    for a in range(len(versions)):
        for b in range(a + 1, len(versions)):
            A, B = versions[a][2], versions[b][2]
            sm = difflib.SequenceMatcher(None, A, B, autojunk=False)
            same = sum(bl.size for bl in sm.get_matching_blocks())
            print(f"  {versions[a][0]} vs {versions[b][0]}: {same} of {len(A)}/{len(B)} instructions in common order")
