// GPU timestamps of the kernels, memsets and copies a timed region ran, from CUPTI's activity
// records (libcupti, opened at run time): the clock Nsight Systems and Nsight Compute report.
// CUDA events also time the GPU's processing of the launch and of the events themselves, about
// 1-2 us per region on an H100 (docs/measurement.md, "Which clock"); within a gated region the
// work runs back to back, so first start to last end is the region's GPU time.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace tb::cuda {

// One activity record of a gated region: a kernel, memset or copy.
struct TracedSpan {
    std::uint64_t start = 0, end = 0;  // 0: CUPTI left the record without timestamps
    bool single_thread_kernel = false;  // a kernel launched as 1 block of 1 thread (the gate's shape)
};

// The region's GPU time from its records, in ns: from the first start to the last end of the
// work, leaving out the gate. The gate is the earliest kernel with the gate's shape; it is
// not found by name, because CUPTI may report a kernel under the name of an unloaded one
// whose function handle it reuses (H100, 2026-11-26: the cuda-prelude gate reported as
// "mandelbrot" in 3 of 8 processes). Records that ended before the gate started were
// enqueued before the region (the runner's placement scatter) and are left out. 0 (read the
// events instead) when no record has the gate's shape, when another record overlaps the
// gate's start, when a record lacks timestamps, or when there is no work.
std::uint64_t region_span_ns(const std::vector<TracedSpan>& records);

class KernelTracer {
public:
    // The process's tracer; `available()` false (with `why()`) when CUPTI cannot be used:
    // no libcupti, or another tool (a profiler) holds CUPTI's activity API.
    static KernelTracer& instance();
    bool available() const { return why_.empty(); }
    const std::string& why() const { return why_; }

    // Tracing costs host time per launch: on for gated regions, off otherwise.
    void enable();
    void disable();
    // Drops every record so far (call before the region's work is enqueued).
    void discard();
    // After the region has completed: region_span_ns of the records since discard().
    std::uint64_t span_ns();
    bool enabled() const { return enabled_; }

private:
    KernelTracer();
    std::string why_;
    bool enabled_ = false;
};

}  // namespace tb::cuda
