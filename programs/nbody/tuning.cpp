#include "tuning.hpp"

#include <algorithm>

namespace tb::nbody {

namespace {
// min_groups_per_unit * group_size: a compute unit's 64K registers, 128 per work-item.
constexpr std::int64_t kResidentItems = kMinGroupsPerUnit * kGroupSize;
}  // namespace

Launch launch_of(const TuningConfig& c) {
    Launch s;
    s.bodies_per_item = std::uint32_t(c.at("bodies_per_item"));
    s.group_size = std::uint32_t(c.at("group_size"));
    s.unroll = std::uint32_t(c.at("unroll"));
    s.groups_per_unit = std::uint32_t(c.at("groups_per_unit"));
    s.min_groups_per_unit = std::uint32_t(std::max<std::int64_t>(1, kResidentItems / s.group_size));
    return s;
}

const TuningSpace& tuning_space() {
    static const TuningSpace space = [] {
        TuningSpace s;
        s.param("bodies_per_item", {1, 2, 4, 8}, "bodies each work-item integrates (NBODY_BODIES_PER_ITEM)");
        s.param("group_size", {64, 128, 256, 512, 1024}, "work-items per group, tile x slices (NBODY_GROUP_SIZE)");
        s.param("unroll", {4, 8, 16}, "tile loop unrolling; tiles are multiples of it (NBODY_UNROLL)");
        s.param("groups_per_unit", {8, 16, 32, 64}, "groups wanted per compute unit before slices split the sums (host)");
        s.require_explained("group_size <= the device's maximum work-group size", [](const TuningConfig& c, const DeviceInfo& d) {
            if (d.max_work_group_size == 0 || c.at("group_size") <= std::int64_t(d.max_work_group_size)) return std::string();
            return "group_size = " + std::to_string(c.at("group_size")) + " exceeds the device's maximum work-group size " +
                   std::to_string(d.max_work_group_size);
        });
        s.require_explained("a group's bodies fit the device's local memory", [](const TuningConfig& c, const DeviceInfo& d) {
            const std::int64_t bytes = c.at("group_size") * c.at("bodies_per_item") * 16;  // one float4 per body
            if (d.max_local_mem_bytes == 0 || bytes <= std::int64_t(d.max_local_mem_bytes)) return std::string();
            return "group_size * bodies_per_item needs " + std::to_string(bytes) + " bytes of local memory, the device has " +
                   std::to_string(d.max_local_mem_bytes);
        });
        return s;
    }();
    return space;
}

// bodies_per_item 8, unroll 16, groups_per_unit 32: the reference (docs/programs/nbody.md).
// group_size: 256, halved while the device's groups are smaller or a group's bodies would
// not fit its local memory. H100: 8, 256, 16, 32 (and min_groups_per_unit 2).
// Not a GPU (PoCL on a CPU): 4 bodies an item, groups of 128, the tile loop unrolled 4 times,
// 8 groups a compute unit, as tunes on two CPUs found (docs/tuning.md, "Defaults on CPUs").
TuningConfig default_config(const DeviceInfo& dev) {
    TuningConfig c{{"bodies_per_item", kBodiesPerItem}, {"group_size", kGroupSize}, {"unroll", kUnroll},
                   {"groups_per_unit", kGroupsPerUnit}};
    if (is_described_cpu(dev)) c = {{"bodies_per_item", 4}, {"group_size", 128}, {"unroll", 4}, {"groups_per_unit", 8}};
    while (c["group_size"] > 64 && !tuning_space().refusal(c, dev).empty()) c["group_size"] /= 2;
    return c;
}

}  // namespace tb::nbody
