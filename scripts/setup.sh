#!/usr/bin/env bash
# Installs what tribench needs on a Debian/Ubuntu machine and builds it into build/.
# Usage: scripts/setup.sh [--no-build] [extra cmake args...]
set -euo pipefail
cd "$(dirname "$0")/.."

DEB_PACKAGES=(
  cmake ninja-build g++ pkg-config
  ocl-icd-opencl-dev opencl-headers pocl-opencl-icd clinfo
  libbenchmark-dev nlohmann-json3-dev libgtest-dev googletest
  libcli11-dev libfftw3-dev zlib1g-dev
  oclgrind               # tests/oclgrind.cmake: kernels' memory accesses and barriers
  python3-matplotlib python3-numpy
  clang libclang-rt-dev lld  # scripts/test.sh: its clang builds (build-test, ASan, libFuzzer), their runtimes and linker
  slurm-wlm munge        # the one-node Slurm cluster of tests/slurm (docs/scale-out.md)
  libxml2-utils libbenchmark-tools  # xmllint for the JUnit check, Google Benchmark's compare.py
)

missing=()
for p in "${DEB_PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  SUDO=""; [[ $(id -u) -ne 0 ]] && SUDO="sudo"
  echo "setup: installing ${missing[*]}"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# The python3 on PATH may not be Debian's (pyenv); give it what the scripts and checks use
# from PyPI if it lacks it (scipy: Google Benchmark's compare.py; junitparser: the JUnit check).
if ! python3 -c 'import matplotlib, numpy, scipy, junitparser' 2>/dev/null; then
  python3 -m pip install -q matplotlib numpy scipy junitparser
fi

[[ "${1:-}" == "--no-build" ]] && exit 0
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release "$@" >/dev/null
cmake --build build
