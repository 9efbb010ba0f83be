#include "launch.hpp"

namespace tb::nbody {
namespace {

void check_bodies(std::int64_t n) {
    if (n < 1 || n >= kMaxBodies)
        throw Error("nbody: " + std::to_string(n) + " bodies is out of range (1 to " + std::to_string(kMaxBodies - 1) +
                    ")");
}

std::uint32_t groups_for(std::int64_t n, std::uint32_t tile) {
    const std::int64_t per_group = std::int64_t(tile) * kBodiesPerItem;
    return std::uint32_t((n + per_group - 1) / per_group);
}

}  // namespace

Geometry choose_geometry(std::int64_t n, int compute_units, std::size_t max_group_size, bool split) {
    check_bodies(n);
    std::uint32_t items = kGroupSize;
    while (items > max_group_size && items > kMinTile) items /= 2;
    if (items > max_group_size)
        throw Error("nbody: the device's work-groups hold " + std::to_string(max_group_size) + " items, fewer than " +
                    std::to_string(kMinTile));
    const std::uint64_t wanted = std::uint64_t(kGroupsPerUnit) * std::uint64_t(compute_units > 0 ? compute_units : 1);
    std::uint32_t tile = items;
    while (split && tile > kMinTile && groups_for(n, tile) < wanted) tile /= 2;
    return fixed_geometry(n, tile, items / tile);
}

Geometry fixed_geometry(std::int64_t n, std::uint32_t tile, std::uint32_t slices) {
    check_bodies(n);
    if (tile < kMinTile || tile % kMinTile != 0 || slices < 1 || std::uint64_t(tile) * slices > kGroupSize)
        throw Error("nbody: work-group geometry " + std::to_string(tile) + "x" + std::to_string(slices) +
                    " is invalid (tile a multiple of " + std::to_string(kMinTile) + ", tile*slices <= " +
                    std::to_string(kGroupSize) + ")");
    return Geometry{tile, slices, groups_for(n, tile)};
}

std::vector<std::string> kernel_defines() {
    return {"NBODY_BODIES_PER_ITEM=" + std::to_string(kBodiesPerItem), "NBODY_GROUP_SIZE=" + std::to_string(kGroupSize),
            "NBODY_UNROLL=" + std::to_string(kUnroll), "NBODY_MIN_GROUPS_PER_UNIT=" + std::to_string(kMinGroupsPerUnit)};
}

void enqueue_step(Device& dev, const Kernel& k, const Geometry& g, const Buffer& pos_in, const Buffer& vel_in,
                  const Buffer& pos_out, const Buffer& vel_out, std::int64_t n, const Params& p) {
    dev.launch(k, Dim3{g.groups, 1, 1}, Dim3{g.tile, g.slices, 1},
               Args(pos_in, vel_in, pos_out, vel_out, std::int32_t(n), p.dt, p.eps2, LocalMem{g.local_bytes()}));
}

}  // namespace tb::nbody
