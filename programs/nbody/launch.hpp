// How nbody's kernels are launched: the work-group geometry both dialects share, and one
// step's enqueue. Kept apart from the Instance so tests can run any geometry.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "bodies.hpp"
#include "device.hpp"
#include "tuning.hpp"

namespace tb::nbody {

inline constexpr std::uint32_t kMinTile = kUnroll;  // tiles are multiples of the unrolled loop
inline constexpr std::int64_t kMaxBodies = std::int64_t(1) << 30;  // int indices in the kernels

// A work-group is tile x slices items and owns tile * kBodiesPerItem bodies; each super-tile
// stages tile * slices bodies in local memory, and slice s sums over its tile of them.
struct Geometry {
    std::uint32_t tile = 0;    // T: a multiple of the unroll (kMinTile for the reference)
    std::uint32_t slices = 0;  // Q: T * Q <= the group size
    std::uint32_t groups = 0;  // work-groups in the launch
    std::uint32_t bodies_per_item = kBodiesPerItem;
    std::size_t local_bytes() const { return std::size_t(tile) * slices * bodies_per_item * 16; }
};

// Groups of kGroupSize items (fewer if the device's groups are smaller). With `split`, the
// largest tile (fewest slices) that still yields kGroupsPerUnit groups per compute unit, down
// to kMinTile, so large n gets one slice; without, always one slice (the classic tiling).
// Throws tb::Error when n is out of range or the device's groups hold fewer than kMinTile items.
// `s` replaces the reference constants (a tuning configuration, tuning.hpp).
Geometry choose_geometry(std::int64_t n, int compute_units, std::size_t max_group_size, bool split = true,
                         const Launch& s = kReference);

// A given tile and slice count (checked) for n bodies.
Geometry fixed_geometry(std::int64_t n, std::uint32_t tile, std::uint32_t slices, const Launch& s = kReference);

// Defines both dialects are compiled with (Program::defines).
std::vector<std::string> kernel_defines(const Launch& s = kReference);

// One step: forces from pos_in, new state to pos_out/vel_out (never the input buffers).
void enqueue_step(Device& dev, const Kernel& k, const Geometry& g, const Buffer& pos_in, const Buffer& vel_in,
                  const Buffer& pos_out, const Buffer& vel_out, std::int64_t n, const Params& p);

}  // namespace tb::nbody
