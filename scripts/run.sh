#!/usr/bin/env bash
# Sets up (packages + build) and runs the default suite on every available device:
# GPUs when there are any, else the CPU through PoCL with the small datasets.
# Extra arguments go to `tribench run` (e.g. --program mandelbrot --out results.json).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
exec build/tribench run "$@"
