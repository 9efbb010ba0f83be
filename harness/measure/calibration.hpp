// The ceilings results are measured against: the device's copy bandwidth and FP32
// throughput, measured at the start of a GPU run with the suite's own kernels through
// the same backend, so every result can carry its fraction of the relevant ceiling; and
// the floor of the backend's clock, the time it gives a kernel that does nothing.
#pragma once

#include <string>

#include "device.hpp"

namespace tb {

struct Calibration {
    double copy_gbps = 0;    // bytes read + written per second / 1e9 (float4 copy kernel)
    double fp32_gflops = 0;  // FMA chains, 2 flops per FMA
    double empty_kernel_us = 0;  // best time of a one-item kernel that does nothing
    std::string timing;          // the device's timing mode while calibrating ("gated" or "plain")
};

// Takes about a second on a GPU. Throws tb::Error when a kernel fails to compile or run.
Calibration calibrate(Device& dev);

}  // namespace tb
