// PoCL's CPU device runs a kernel on one worker thread per CPU, which the OS moves around.
// On a 2-vCPU VM (2026-12-07) the default suite's medians then moved by up to 81% between
// two runs, the samples falling into two modes in blocks; with POCL_AFFINITY=1, which pins
// worker i to CPU i, by at most 12% (docs/measurement.md, "PoCL's worker threads").
// PoCL pins to CPU i whatever CPUs the process may use: under `taskset -c 1` one worker
// ran on CPU 0, and inside a cgroup's cpuset the call fails. So tribench sets it only where
// the process may use every online CPU, numbered 0 to N-1 (not under taskset, a cpuset,
// Slurm's binding or a --parallel-devices shard), and where the user has not set it.
#pragma once

#include <string>
#include <vector>

namespace tb::cl {

// Set beside POCL_AFFINITY when tribench set it, so that a process that inherits it (a
// --parallel-devices shard, bound to a slice) can tell it from the user's.
inline constexpr const char* kPoclAffinityMarker = "TRIBENCH_SET_POCL_AFFINITY";

// Whether pinning PoCL's worker i to CPU i is safe: `allowed` (this process's CPUs,
// ascending) is exactly 0 .. online-1, and nothing resizes PoCL's thread pool.
bool pocl_pinning_is_safe(const std::vector<int>& allowed, long online_cpus, bool pool_resized);

// Called before this process's first OpenCL call: sets POCL_AFFINITY=1 (and the marker)
// where the user left it unset and pinning is safe; unsets an inherited one that tribench
// had set where it is not safe here. A user's POCL_AFFINITY is left alone.
void prepare_pocl_affinity();

// What the results record: "pinned by tribench", "POCL_AFFINITY=<value> (user)" or "unpinned".
std::string pocl_affinity_state();

}  // namespace tb::cl
