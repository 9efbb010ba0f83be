// Taking samples of one prepared, validated instance (docs/measurement.md): a timed run
// (gated, falling back to plain), the L2 flush before a sample, the SM clock after one, and
// batch timing. The sampling loop and its stopping rule are the runner's (runner.cpp).
#pragma once

#include <chrono>
#include <cstdint>

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
