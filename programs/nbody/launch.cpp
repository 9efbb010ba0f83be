#include "launch.hpp"

namespace tb::nbody {
namespace {

void check_bodies(std::int64_t n) {
    if (n < 1 || n >= kMaxBodies)
        throw Error("nbody: " + std::to_string(n) + " bodies is out of range (1 to " + std::to_string(kMaxBodies - 1) +
                    ")");
}

std::uint32_t groups_for(std::int64_t n, std::uint32_t tile, std::uint32_t bodies_per_item) {
    const std::int64_t per_group = std::int64_t(tile) * bodies_per_item;
    return std::uint32_t((n + per_group - 1) / per_group);
}

}  // namespace

Geometry choose_geometry(std::int64_t n, int compute_units, std::size_t max_group_size, bool split, const Launch& s) {
    check_bodies(n);
    const std::uint32_t min_tile = s.unroll;  // tiles are multiples of the unrolled loop
    std::uint32_t items = s.group_size;
    while (items > max_group_size && items > min_tile) items /= 2;
    if (items > max_group_size)
        throw Error("nbody: the device's work-groups hold " + std::to_string(max_group_size) + " items, fewer than " +
                    std::to_string(min_tile));
    const std::uint64_t wanted = std::uint64_t(s.groups_per_unit) * std::uint64_t(compute_units > 0 ? compute_units : 1);
    std::uint32_t tile = items;
    while (split && tile > min_tile && groups_for(n, tile, s.bodies_per_item) < wanted) tile /= 2;
    return fixed_geometry(n, tile, items / tile, s);
}

Geometry fixed_geometry(std::int64_t n, std::uint32_t tile, std::uint32_t slices, const Launch& s) {
    check_bodies(n);
    if (tile < s.unroll || tile % s.unroll != 0 || slices < 1 || std::uint64_t(tile) * slices > s.group_size)
        throw Error("nbody: work-group geometry " + std::to_string(tile) + "x" + std::to_string(slices) +
                    " is invalid (tile a multiple of " + std::to_string(s.unroll) + ", tile*slices <= " +
                    std::to_string(s.group_size) + ")");
    return Geometry{tile, slices, groups_for(n, tile, s.bodies_per_item), s.bodies_per_item};
}

std::vector<std::string> kernel_defines(const Launch& s) {
    return {"NBODY_BODIES_PER_ITEM=" + std::to_string(s.bodies_per_item), "NBODY_GROUP_SIZE=" + std::to_string(s.group_size),
            "NBODY_UNROLL=" + std::to_string(s.unroll), "NBODY_MIN_GROUPS_PER_UNIT=" + std::to_string(s.min_groups_per_unit)};
}

void enqueue_step(Device& dev, const Kernel& k, const Geometry& g, const Buffer& pos_in, const Buffer& vel_in,
                  const Buffer& pos_out, const Buffer& vel_out, std::int64_t n, const Params& p) {
    dev.launch(k, Dim3{g.groups, 1, 1}, Dim3{g.tile, g.slices, 1},
               Args(pos_in, vel_in, pos_out, vel_out, std::int32_t(n), p.dt, p.eps2, LocalMem{g.local_bytes()}));
}

}  // namespace tb::nbody
