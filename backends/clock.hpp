// A GPU's SM clock and why it is held below its maximum (NVML on CUDA devices), read around
// each benchmark so results taken while the GPU throttled are flagged.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace tb {

struct ClockSample {
    int sm_mhz = 0;             // current SM clock
    int max_sm_mhz = 0;         // the highest SM clock the GPU may run at
    std::uint64_t reasons = 0;  // bits of clock_reason (NVML's nvmlClocksEventReasons)
};

// NVML's clock-event reason bits (nvml.h; stable since NVML 3.295).
namespace clock_reason {
inline constexpr std::uint64_t gpu_idle = 0x1;
inline constexpr std::uint64_t applications_clocks_setting = 0x2;
inline constexpr std::uint64_t sw_power_cap = 0x4;
inline constexpr std::uint64_t hw_slowdown = 0x8;
inline constexpr std::uint64_t sync_boost = 0x10;
inline constexpr std::uint64_t sw_thermal_slowdown = 0x20;
inline constexpr std::uint64_t hw_thermal_slowdown = 0x40;
inline constexpr std::uint64_t hw_power_brake_slowdown = 0x80;
inline constexpr std::uint64_t display_clock_setting = 0x100;
// The reasons that mean the GPU slowed down, rather than that it had nothing to do.
inline constexpr std::uint64_t slowdowns = hw_slowdown | sw_thermal_slowdown | hw_thermal_slowdown | hw_power_brake_slowdown;
}  // namespace clock_reason

// Names of the set bits, e.g. {"sw_power_cap", "hw_thermal_slowdown"}; unknown bits as "other".
std::vector<std::string> clock_reason_names(std::uint64_t reasons);

}  // namespace tb
