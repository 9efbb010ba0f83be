// NVML (libnvidia-ml.so.1), opened at run time like libcuda: the SM clock and the reasons
// it is held below its maximum, read around each benchmark so results taken while the GPU
// throttled are flagged (docs/measurement.md, "Clock and throttle state").
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "device.hpp"

namespace tb::cuda {

// Reads the clock of the GPU at `pci_bus_id` (cuDeviceGetPCIBusId's form). Nothing when NVML
// is missing or does not know the device; the reason is kept for clock_unavailable_reason().
std::optional<ClockSample> read_gpu_clock(const std::string& pci_bus_id);
std::string clock_unavailable_reason();

}  // namespace tb::cuda
