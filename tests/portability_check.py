#!/usr/bin/env python3
"""scripts/portability.py end to end on PoCL: a two-point tune of this device merged with a
foreign device's tuning file and a twin of this device's entry under another device's name,
each device's configurations run here, and the table: one row for this device, a column per
device tuned on, 100% on the diagonal, a percentage for the foreign configuration, and 100%
"same" for the twin's (one configuration, whatever its two runs read).
Usage: portability_check.py TRIBENCH FOREIGN_TUNING.json WORKDIR"""
import json
import os
import re
import shutil
import subprocess
import sys

tribench, foreign, work = sys.argv[1:4]
script = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "scripts", "portability.py")
shutil.rmtree(work, ignore_errors=True)
os.makedirs(work)
tuning = os.path.join(work, "tuning.json")
shutil.copy(foreign, tuning)
SELECTION = ["-p", "mandelbrot", "-d", "128x128", "-b", "opencl", "--timeout", "0.5"]


def check(cmd, **kw):
    res = subprocess.run(cmd, capture_output=True, text=True, **kw)
    if res.returncode != 0:
        sys.exit(f"FAIL: {' '.join(cmd)}: exit {res.returncode}\n{res.stdout}{res.stderr}")
    return res.stdout


check([tribench, "tune", *SELECTION, "--exhaustive", "0", "--max-points", "2", "--min-time", "0.02", "-o", tuning])
# The twin: this device's tuned entry under another device's name.
with open(tuning) as f:
    merged = json.load(f)
mine = [e for e in merged["entries"] if e["device"] != "Imaginary GPU 9000"]
if len(mine) != 1:
    sys.exit(f"FAIL: expected one entry of this device after the tune, got {mine}")
merged["entries"].append({**mine[0], "device": "Imaginary twin"})
with open(tuning, "w") as f:
    json.dump(merged, f)
check([sys.executable, script, "run", tuning, os.path.join(work, "runs"), *SELECTION, "--min-time", "0.02", "--no-batch"],
      env={**os.environ, "TRIBENCH": tribench})
runs = sorted(os.path.join(work, "runs", f) for f in os.listdir(os.path.join(work, "runs")))
if len(runs) != 3:
    sys.exit(f"FAIL: expected one run per device tuned on (3), got {runs}")
for stat in ("median", "min"):
    table = check([sys.executable, script, "table", "--stat", stat, *runs])
    lines = [l for l in table.splitlines() if l.startswith("| ")]
    head, rows = lines[0], lines[1:]
    columns = [c.strip() for c in head.strip("|").split("|")][2:]
    if len(columns) != 3 or "tuned on Imaginary GPU 9000" not in columns or len(rows) != 1:
        sys.exit(f"FAIL: expected one row and columns for the three devices:\n{table}")
    cells = [c.strip() for c in rows[0].strip("|").split("|")]
    here = cells[0]
    by_column = dict(zip(columns, cells[2:]))
    if by_column.get(f"tuned on {here}") != "100% (1)":
        sys.exit(f"FAIL: the diagonal cell ({here}) is not 100% (1):\n{table}")
    if not re.fullmatch(r"[0-9]+% \(1\)", by_column["tuned on Imaginary GPU 9000"]):
        sys.exit(f"FAIL: no percentage for the foreign configuration:\n{table}")
    if by_column.get("tuned on Imaginary twin") != "100% (1, 1 same)":
        sys.exit(f"FAIL: the twin's configuration is this device's own, yet not 100% (1, 1 same):\n{table}")
    if f"the {stat if stat == 'median' else 'minimum'} under" not in table:
        sys.exit(f"FAIL: the table does not say it compares the {stat}:\n{table}")
# Not results files: a one-line error, exit 2.
res = subprocess.run([sys.executable, script, "table", foreign], capture_output=True, text=True)
if res.returncode != 2 or "not a tribench results file" not in res.stderr:
    sys.exit(f"FAIL: a tuning file given as results: exit {res.returncode}: {res.stderr}")
print(table)
