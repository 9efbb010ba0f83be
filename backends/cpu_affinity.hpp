// The CPUs this process may run on. Thread pools size themselves by it and
// `run --parallel-devices` splits it between its shards, so that taskset, cgroups and
// Slurm's CPU binding are respected instead of the machine's core count (which
// std::thread::hardware_concurrency reports). Here rather than in harness/ because the
// programs' CPU references use it too.
#pragma once

#include <string>
#include <vector>

namespace tb {

// The calling thread's affinity mask, ascending; empty where it cannot be read.
std::vector<int> allowed_cpus();

// How many threads a CPU-bound pool should use: the size of the affinity mask, else
// std::thread::hardware_concurrency(), at least 1.
unsigned usable_cpu_count();

// `cpus` cut into `parts` consecutive slices whose sizes differ by at most one (the first
// ones larger); empty when there are fewer CPUs than parts, so that no slice is shared.
std::vector<std::vector<int>> split_cpus(const std::vector<int>& cpus, int parts);

// Binds the calling thread (and the processes it starts from now on) to `cpus`; throws
// tb::Error naming the reason when the kernel refuses.
void set_cpu_affinity(const std::vector<int>& cpus);

// "0-3,8,10-11": the form taskset -c and Slurm print.
std::string cpu_list_text(const std::vector<int>& cpus);

}  // namespace tb
