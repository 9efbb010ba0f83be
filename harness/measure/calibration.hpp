// The ceilings results are measured against: the device's copy bandwidth and FP32
// throughput, measured at the start of a GPU run with the suite's own kernels through
// the same backend, so every result can carry its fraction of the relevant ceiling.
#pragma once

#include "device.hpp"

namespace tb {

struct Calibration {
    double copy_gbps = 0;    // bytes read + written per second / 1e9 (float4 copy kernel)
    double fp32_gflops = 0;  // FMA chains, 2 flops per FMA
};

// Takes about a second on a GPU. Throws tb::Error when a kernel fails to compile or run.
Calibration calibrate(Device& dev);

}  // namespace tb
