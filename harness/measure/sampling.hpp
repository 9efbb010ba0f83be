// Taking samples of one prepared, validated instance (docs/measurement.md): a timed run
// (gated, falling back to plain), the L2 flush before a sample, the SM clock after one, and
// batch timing. The sampling loop and its stopping rule are the runner's (runner.cpp).
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>

#include "device.hpp"
#include "program.hpp"
#include "results/results.hpp"

namespace tb {

// One timed run of inst. Gated where the device gates; a region that cannot be held
// (GateTimeout) voids the sample and the benchmark is timed plainly from then on, saying
// why in r.timing_note.
double timed_run(Device& dev, Instance& inst, BenchmarkResult& r);

// --l2-flush: a buffer larger than any current L2 overwritten before each sample, so L2
// starts cold; outside the timed region.
class L2Flush {
public:
    void before_sample(Device& dev);
    // Drops the buffer when it lives on dev (dev is about to close); nullptr: whichever.
    void release(const Device* dev);

private:
    Buffer buffer_;
    Device* device_ = nullptr;
    std::uint32_t pattern_ = 0;
};

// Before each gated sample on a device that asks for it (Device::scatters_placement: the CUDA
// backends; unless --no-scatter): an empty grid of a pseudo-random number of work-groups, so
// that the SMs the sample's work-groups land on do not follow from what the GPU ran before.
// On an H100 the SM sets a dependent L2 load's latency (272-306 cycles), and a benchmark
// whose time is one work-group's chain of such loads read up to 7% apart between processes,
// and between backends, with the same kernel (docs/measurement.md, "Where a work-group
// runs"). The sizes come from a fixed seed, restarted for each benchmark, so every benchmark
// and backend sees the same sequence; outside the timed region.
class PlacementScatter {
public:
    void restart() { state_ = kSeed; }
    void before_sample(Device& dev);
    // Drops the kernel when it lives on dev (dev is about to close); nullptr: whichever.
    void release(const Device* dev);

private:
    // The next grid: 1 to 2 * compute_units work-groups.
    std::uint32_t next_groups(std::uint32_t compute_units);

    static constexpr std::uint64_t kSeed = 0x7472696265u;  // "tribe"
    static constexpr std::uint32_t kGroupSize = 32;
    std::uint64_t state_ = kSeed;
    std::unique_ptr<Module> module_;
    Kernel kernel_;
    Device* device_ = nullptr;
};

// The SM clock after a sample (NVML); flags the benchmark when it ran throttled. An NVML
// query costs tens of microseconds: at most one per kPeriodMs unless `force`d (the first
// and last sample of a benchmark).
class ClockWatch {
public:
    void observe(Device& dev, BenchmarkResult& r, bool force = false);

private:
    static constexpr int kPeriodMs = 20;
    std::chrono::steady_clock::time_point last_read_{};
};

// Batch timing (nvbench's "batch"): runs back to back between one pair of events, no gate,
// so launch overhead overlaps execution; one run's share is reported beside the gated
// median (r.batch_ms, r.batch_samples_ms, r.batch_runs). Needs r.samples_ms.
void measure_batch(Device& dev, Instance& inst, BenchmarkResult& r);

}  // namespace tb
