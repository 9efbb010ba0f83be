#!/usr/bin/env python3
"""Checks a folder written by `tribench report` for tests/data/compare/suite.json.

Usage: check_report.py DIR. Every image REPORT.md links must exist and decode as a PNG of
a readable size, and each kind of plot the suite's data calls for must be there.
"""
import os
import re
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.image as mpimg  # noqa: E402


def main():
    out = sys.argv[1]
    with open(os.path.join(out, "REPORT.md")) as f:
        md = f.read()
    links = re.findall(r"!\[([^\]]*)\]\(([^)]+)\)", md)
    files = [f for _, f in links]
    expected = ["roofline-nvidia-h100-80gb-hbm3.png", "speedup-mandelbrot.png", "time-mandelbrot.png",
                "speedup-fft.png", "speedup-stencil.png", "time-stencil.png", "graph-vs-stream-stencil.png"]
    missing = [e for e in expected if e not in files]
    if missing:
        sys.exit("REPORT.md links no %s" % ", ".join(missing))
    for title, f in links:
        path = os.path.join(out, f)
        with open(path, "rb") as fh:
            if fh.read(8) != b"\x89PNG\r\n\x1a\n":
                sys.exit("%s is not a PNG" % f)
        h, w = mpimg.imread(path).shape[:2]
        if w < 500 or h < 300:
            sys.exit("%s is only %dx%d pixels" % (f, w, h))
        if not title:
            sys.exit("%s has no title in REPORT.md" % f)
    for section in ("## Runs", "## Devices", "### mandelbrot", "### stencil", "## Not ok", "spmv/poisson2d-512/opencl"):
        if section not in md:
            sys.exit("REPORT.md lacks %r" % section)
    print("report ok: %d plots" % len(links))


if __name__ == "__main__":
    main()
