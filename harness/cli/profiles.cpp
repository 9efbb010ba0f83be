#include "cli/profiles.hpp"

#include "device.hpp"

namespace tb {

const std::vector<RunProfile>& all_profiles() {
    // ci: every program on every backend (and vendor) at one mid-size dataset: large enough
    // that each kernel takes tens of microseconds or more on an H100, so no backend's launch
    // rate sets a region's time (regions of many 5-10 us kernels on NVIDIA's OpenCL moved 5-24%
    // between processes: reports/h100/timing/ci_aa.md), small enough that PoCL on two cores
    // finishes in minutes. Stream launches only; every variant.
    static const std::vector<RunProfile> profiles = {
        {"ci",
         "one mid-size dataset per program, every backend and variant, stream launches; for CI regression runs",
         {"1024x1024", "n10k", "1d-1mx16", "204800-d34-k5", "512x512x64-i2", "poisson2d-l"},
         {"stream"},
         /*min_time_s=*/0.05,
         /*timeout_s=*/1.0,
         /*min_samples=*/5,
         /*budget_s=*/0},
    };
    return profiles;
}

const RunProfile& find_profile(const std::string& name) {
    std::string known;
    for (const auto& p : all_profiles()) {
        if (p.name == name) return p;
        known += (known.empty() ? "" : ", ") + p.name;
    }
    throw Error("unknown profile '" + name + "' (known: " + known + ")");
}

}  // namespace tb
