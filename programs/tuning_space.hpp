// A program's tuning space: named integer parameters, the values each may take, and the
// constraints a configuration must meet on a device (docs/tuning.md). A configuration is
// read at run time and handed to both kernel dialects as -D defines, so changing one needs
// no rebuild.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "device.hpp"

namespace tb {

// One point of a space: parameter name -> value, ordered by name.
using TuningConfig = std::map<std::string, std::int64_t>;

// "group_x=32,group_y=8"; "" for the empty configuration.
std::string to_string(const TuningConfig& c);
// The inverse of to_string; throws tb::Error naming a malformed item.
TuningConfig parse_tuning_config(const std::string& text);

struct TuningParam {
    std::string name;
    std::vector<std::int64_t> values;  // allowed values, in the order a search tries them
    std::string doc;                   // one line: what it controls
    // Read only where NVRTC compiles the kernels (cuda-native, cuda-prelude): a launch bound
    // that OpenCL compilers never see. `tune` does not vary it on other backends.
    bool nvrtc_only = false;
};

// A rule a configuration must meet. `check` returns "" when it holds, else one line saying
// why the configuration is refused ("group_x * group_y = 2048 exceeds the device's maximum
// work-group size 1024"). Device fields that are 0 are unknown: a check passes on them.
struct TuningConstraint {
    std::string rule;  // "group_x * group_y <= the device's maximum work-group size"
    std::function<std::string(const TuningConfig&, const DeviceInfo&)> check;
};

class TuningSpace {
public:
    TuningSpace& param(std::string name, std::vector<std::int64_t> values, std::string doc, bool nvrtc_only = false);
    // A constraint whose reason is `rule` followed by the values it was checked on.
    TuningSpace& require(std::string rule, std::function<bool(const TuningConfig&, const DeviceInfo&)> holds);
    // A constraint that words its own reason.
    TuningSpace& require_explained(std::string rule,
                                   std::function<std::string(const TuningConfig&, const DeviceInfo&)> check);

    const std::vector<TuningParam>& params() const { return params_; }
    const std::vector<TuningConstraint>& constraints() const { return constraints_; }
    bool empty() const { return params_.empty(); }
    // The allowed values of parameter `name`; throws tb::Error if the space has none such.
    const std::vector<std::int64_t>& values(const std::string& name) const;

    // "" when c names exactly the space's parameters, each with an allowed value, and meets
    // every constraint on `dev`; else one line: the first reason it is refused.
    std::string refusal(const TuningConfig& c, const DeviceInfo& dev) const;
    // Points of the whole grid, constraints not applied (1 for the empty space).
    std::uint64_t grid_size() const;
    // Point i (0 <= i < grid_size()) of the grid, the first parameter varying slowest.
    TuningConfig point(std::uint64_t i) const;

private:
    std::vector<TuningParam> params_;
    std::vector<TuningConstraint> constraints_;
};

// Helpers for constraints and device-derived defaults.
// A device that described itself and is no GPU (PoCL on a CPU): programs give it the
// defaults tunes found on CPUs (docs/tuning.md, "Defaults on CPUs"). DeviceInfo{}, the device
// of Program::defines()'s reference constants, is none.
inline bool is_described_cpu(const DeviceInfo& d) { return !d.is_gpu && d.compute_units > 0; }

inline bool is_power_of_two(std::int64_t v) { return v > 0 && (v & (v - 1)) == 0; }
// The largest value of `values` that is at most `limit` (the smallest if none is).
std::int64_t largest_at_most(const std::vector<std::int64_t>& values, std::int64_t limit);

}  // namespace tb
