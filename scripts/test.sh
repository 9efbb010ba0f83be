#!/usr/bin/env bash
# Sets up (packages + build) and runs every test: GoogleTest unit tests and the CTest
# end-to-end tests of the `tribench` command on whatever devices exist (PoCL on a CPU).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
ctest --test-dir build --output-on-failure -j "$(nproc)" "$@"
