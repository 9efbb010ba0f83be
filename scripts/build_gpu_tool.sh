# Sourced by the GPU-side scripts that need only the `tribench` binary: configures build-gpu/
# (Release, Ninja, .deps/usr as CMAKE_PREFIX_PATH when present, $SUITE_CMAKE_ARGS) unless it is
# configured already, e.g. by scripts/gpu_suite.sh, then builds the tool incrementally.
# Usage: build_gpu_tool LOGFILE   (run from the repository root; returns non-zero on failure)
build_gpu_tool() {
  local log=$1 prefix=()
  [[ -d .deps/usr ]] && prefix=(-DCMAKE_PREFIX_PATH="$PWD/.deps/usr")
  if [[ ! -f build-gpu/CMakeCache.txt ]]; then
    # shellcheck disable=SC2086  # SUITE_CMAKE_ARGS holds several words on purpose
    cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release "${prefix[@]}" ${SUITE_CMAKE_ARGS:-} >"$log" 2>&1 ||
      { tail -20 "$log"; echo "configure FAILED"; return 1; }
  fi
  cmake --build build-gpu --target tribench >>"$log" 2>&1 || { tail -30 "$log"; echo "build FAILED"; return 1; }
}
