#include "tuning.hpp"
#include <algorithm>

namespace tb::kmeans {

namespace {
constexpr std::int64_t kResidentAssignItems = std::int64_t(kAssignMinGroups) * kBlock;
// The most values per work-item kmeans_partial keeps: k*(d+1) of the _d4 kernel at k = KM_KMAX.
constexpr std::size_t kMostPartialValues = std::size_t(kKmax) * (4 + 1);

std::string fits_group(const char* what, std::int64_t n, const DeviceInfo& d) {
    if (d.max_work_group_size == 0 || n <= std::int64_t(d.max_work_group_size)) return "";
    return std::string(what) + " = " + std::to_string(n) + " exceeds the device's maximum work-group size " +
           std::to_string(d.max_work_group_size);
}
}  // namespace

Launch launch_of(const TuningConfig& c) {
    Launch l;
    l.block = std::uint32_t(c.at("block"));
    l.partial_block = std::uint32_t(c.at("partial_block"));
    l.assign_min_groups = std::uint32_t(std::max<std::int64_t>(1, kResidentAssignItems / l.block));
    return l;
}

const TuningSpace& tuning_space() {
    static const TuningSpace space = [] {
        TuningSpace s;
        s.param("block", {64, 128, 256, 512}, "work-items per group of kmeans_assign and kmeans_finalize (KM_BLOCK)");
        s.param("partial_block", {32, 64, 128, 256}, "work-items per group of kmeans_partial (KM_PARTIAL_BLOCK)");
        s.require_explained("block and partial_block <= the device's maximum work-group size",
                            [](const TuningConfig& c, const DeviceInfo& d) {
                                const std::string why = fits_group("block", c.at("block"), d);
                                return why.empty() ? fits_group("partial_block", c.at("partial_block"), d) : why;
                            });
        s.require_explained("kmeans_partial's copies fit the device's local memory (k = 16, d = 4)",
                            [](const TuningConfig& c, const DeviceInfo& d) {
                                const std::size_t bytes = launch_of(c).partial_local_floats(kMostPartialValues) * sizeof(float);
                                if (d.max_local_mem_bytes == 0 || bytes <= d.max_local_mem_bytes) return std::string();
                                return "partial_block = " + std::to_string(c.at("partial_block")) + " needs " +
                                       std::to_string(bytes) + " bytes of local memory, the device has " +
                                       std::to_string(d.max_local_mem_bytes);
                            });
        return s;
    }();
    return space;
}

// block 256 and partial_block 128 (the reference), each halved while the device's groups are
// smaller or (partial_block) the copies of k = 16, d = 4 would not fit its local memory.
// H100: 256, 128 (assign_min_groups 6). Not a GPU (PoCL on a CPU): 64 and 64, as tunes on
// two CPUs found (docs/tuning.md, "Defaults on CPUs").
TuningConfig default_config(const DeviceInfo& dev) {
    TuningConfig c{{"block", kBlock}, {"partial_block", kPartialBlock}};
    if (is_described_cpu(dev)) c = {{"block", 64}, {"partial_block", 64}};
    while (c["block"] > 64 && !fits_group("block", c["block"], dev).empty()) c["block"] /= 2;
    while (c["partial_block"] > 32 && !tuning_space().refusal(c, dev).empty()) c["partial_block"] /= 2;
    return c;
}

std::vector<std::string> kernel_defines(const Launch& l) {
    return {"KM_KMAX=" + std::to_string(kKmax), "KM_BLOCK=" + std::to_string(l.block),
            "KM_ASSIGN_MIN_GROUPS=" + std::to_string(l.assign_min_groups),
            "KM_PARTIAL_BLOCK=" + std::to_string(l.partial_block), "KM_RUN=" + std::to_string(kRun)};
}

}  // namespace tb::kmeans
