#!/usr/bin/env python3
"""Moves instructions 8-15 of a cuobjdump -sass listing (each with its encoding line) to just
before the last 10 instructions, and prints the length of the longest common subsequence
of the two listings. Usage: reorder_sass.py IN OUT"""
import re, sys
lines = open(sys.argv[1]).read().split("\n")
starts = [i for i, l in enumerate(lines) if re.match(r"\s*/\*[0-9a-f]{4}\*/", l)]
def block(k):  # instruction k: its line and the encoding line after it
    return lines[starts[k]:starts[k] + 2]
n = len(starts)
moved = [l for k in range(8, 16) for l in block(k)]
keep = [l for i, l in enumerate(lines) if not any(starts[k] <= i < starts[k] + 2 for k in range(8, 16))]
at = keep.index(block(n - 10)[0])
out = keep[:at] + moved + keep[at:]
open(sys.argv[2], "w").write("\n".join(out))
ins = lambda ls: [re.sub(r"\s+", " ", m.group(1)).strip() for l in ls for m in [re.match(r"\s*/\*[0-9a-f]{4}\*/\s+([^;]*\S)\s*;", l)] if m]
a, b = ins(lines), ins(out)
t = [[0] * (len(b) + 1) for _ in range(len(a) + 1)]
for i in range(len(a)):
    for j in range(len(b)):
        t[i + 1][j + 1] = t[i][j] + 1 if a[i] == b[j] else max(t[i][j + 1], t[i + 1][j])
print(f"{len(a)} and {len(b)} instructions, {t[-1][-1]} in common order")
