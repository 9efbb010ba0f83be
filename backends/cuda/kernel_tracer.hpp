// GPU timestamps of the kernels, memsets and copies a timed region ran, from CUPTI's activity
// records (libcupti, opened at run time): the clock Nsight Systems and Nsight Compute report.
// CUDA events also time the GPU's processing of the launch and of the events themselves, about
// 1-2 us per region on an H100 (docs/measurement.md, "Which clock"); within a gated region the
// work runs back to back, so first start to last end is the region's GPU time.
#pragma once

#include <cstdint>
#include <string>

namespace tb::cuda {

class KernelTracer {
public:
    // The process's tracer; `available()` false (with `why()`) when CUPTI cannot be used:
    // no libcupti, or another tool (a profiler) holds CUPTI's activity API.
    static KernelTracer& instance();
    bool available() const { return why_.empty(); }
    const std::string& why() const { return why_; }

    // Tracing costs host time per launch: on for gated regions, off otherwise. Kernels named
    // `skip` (the gate's) are left out of spans.
    void enable(const char* skip);
    void disable();
    // Drops every record so far (call before the region's work is enqueued).
    void discard();
    // After the region has completed: nanoseconds from the first start to the last end of the
    // records since discard(); 0 if there was none or one was left without timestamps.
    std::uint64_t span_ns();
    bool enabled() const { return enabled_; }

private:
    KernelTracer();
    std::string why_;
    bool enabled_ = false;
};

}  // namespace tb::cuda
