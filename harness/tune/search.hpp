// Which configurations `tribench tune` tries (docs/tuning.md, "Strategies"): the device
// default first, then every allowed point of a small space, or a seeded random sample of a
// large one. Pure: no device is opened here.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tuning_space.hpp"

namespace tb {

struct SearchSettings {
    std::size_t exhaustive_limit = 64;  // spaces with at most this many allowed points are tried whole
    std::size_t max_points = 32;        // larger spaces: at most this many points, the default included
    std::uint64_t seed = 1;             // of the random order
    // Parameters the backend does not read (TuningParam::nvrtc_only off NVRTC): kept at the
    // start's value, so that no two points run the same kernels.
    std::vector<std::string> pinned;
};

struct RefusedPoint {
    TuningConfig config;
    std::string reason;  // the constraint's one line
};

struct SearchPlan {
    std::vector<TuningConfig> points;  // in the order to try them; points[0] is the start
    std::vector<RefusedPoint> refused; // grid points the constraints refuse on the device
    std::uint64_t allowed = 0;         // grid points the constraints allow
    bool exhaustive = false;
    std::string strategy;              // "exhaustive" or "random (seed S, N of M)"
};

// The plan for `space` on `dev` starting from `start` (tried first when the space allows it).
// Grids of more than 2^20 points are sampled without being enumerated (refused then lists
// only the sampled points it refused).
SearchPlan plan_search(const TuningSpace& space, const TuningConfig& start, const DeviceInfo& dev,
                       const SearchSettings& s);

}  // namespace tb
