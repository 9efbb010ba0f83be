#include "clock.hpp"

#include <utility>

namespace tb {

std::vector<std::string> clock_reason_names(std::uint64_t reasons) {
    using namespace clock_reason;
    static const std::pair<std::uint64_t, const char*> names[] = {
        {gpu_idle, "gpu_idle"},
        {applications_clocks_setting, "applications_clocks_setting"},
        {sw_power_cap, "sw_power_cap"},
        {hw_slowdown, "hw_slowdown"},
        {sync_boost, "sync_boost"},
        {sw_thermal_slowdown, "sw_thermal_slowdown"},
        {hw_thermal_slowdown, "hw_thermal_slowdown"},
        {hw_power_brake_slowdown, "hw_power_brake_slowdown"},
        {display_clock_setting, "display_clock_setting"},
    };
    std::vector<std::string> out;
    std::uint64_t known = 0;
    for (const auto& [bit, name] : names) {
        known |= bit;
        if (reasons & bit) out.emplace_back(name);
    }
    if (reasons & ~known) out.emplace_back("other");
    return out;
}

}  // namespace tb
