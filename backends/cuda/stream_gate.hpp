// Gated timing for the CUDA backends (nvbench's "blocking kernel"): a one-thread kernel
// holds the stream by spinning on a flag in mapped host memory while the start event, the
// timed work and the stop event are enqueued behind it; then the host sets the flag. The
// GPU runs the work back to back and the events see execution, not launch latency.
// If the flag is not set within the timeout (the host blocked while enqueuing: a
// synchronising call, or a full launch queue) the kernel gives up and says so.
#pragma once

#include <cuda.h>

#include <cstdint>
#include <string>

namespace tb::cuda {

// CUDA C++ of the spinning kernel, compiled by NVRTC like every other kernel.
const std::string& gate_kernel_source();
inline constexpr const char* kGateKernelName = "tribench_gate";

class StreamGate {
public:
    // `ptx` is gate_kernel_source() compiled for the device; the context must be current.
    explicit StreamGate(const std::string& ptx);
    ~StreamGate();
    StreamGate(const StreamGate&) = delete;
    StreamGate& operator=(const StreamGate&) = delete;

    // Enqueues the spinning kernel on `stream`; it returns once release() is called or
    // after `timeout_ns` of GPU time.
    void hold(CUstream stream, std::uint64_t timeout_ns);
    void release();
    // After the stream has passed the gate: whether the kernel gave up waiting.
    bool timed_out() const;

private:
    CUmodule module_ = nullptr;
    CUfunction kernel_ = nullptr;
    volatile std::uint32_t* flags_ = nullptr;  // [0] release, [1] timed out; mapped host memory
    CUdeviceptr device_flags_ = 0;
};

}  // namespace tb::cuda
