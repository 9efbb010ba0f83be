// nbody's tuning space and its reference constants (the H100's values), set here and nowhere
// else: the host's launch geometry (launch.cpp) uses a configuration of the space, and
// Program::defines(config) passes the kernel-side values to both dialects (kernels.cl and
// kernels.cu) as -D NAME=VALUE. docs/programs/nbody.md gives the measurements behind each
// reference value, docs/tuning.md the space.
#pragma once

#include <cstdint>

#include "tuning_space.hpp"

namespace tb::nbody {

// NBODY_BODIES_PER_ITEM: bodies each work-item integrates. Every body of a tile loaded from
// local memory serves this many interactions, so its load costs 1/kBodiesPerItem issue
// slots per interaction, and each item has this many independent chains to interleave; 8
// takes 125 registers (4 took 63 and ran 3-4 percent slower on n100k and n1m).
inline constexpr std::uint32_t kBodiesPerItem = 8;
// NBODY_GROUP_SIZE: work-items per work-group (T * Q).
inline constexpr std::uint32_t kGroupSize = 256;
// NBODY_UNROLL: the tile loop is unrolled this many times with a constant trip count, so
// tiles (T) are multiples of it.
inline constexpr std::uint32_t kUnroll = 16;
// NBODY_MIN_GROUPS_PER_UNIT: groups kept resident per compute unit (cuda-native's launch
// bounds; kernels.cl's TB_LAUNCH_BOUNDS): 2 x 256 work-items caps the registers at 128,
// room for kBodiesPerItem = 8 without spills (3 groups, 80 registers, ran 9-10 percent slower).
inline constexpr std::uint32_t kMinGroupsPerUnit = 2;
// Host only: work-groups wanted per compute unit before the sums are split into slices;
// with kMinGroupsPerUnit resident, 16 or more waves keep the last partial wave's loss small.
inline constexpr std::uint32_t kGroupsPerUnit = 32;

// One configuration as the host uses it. min_groups_per_unit is not tuned: it follows the
// group size so that a compute unit's 64K registers leave 128 per work-item
// (min_groups_per_unit * group_size = 512), the room kBodiesPerItem = 8 needs.
struct Launch {
    std::uint32_t bodies_per_item = kBodiesPerItem;
    std::uint32_t group_size = kGroupSize;
    std::uint32_t unroll = kUnroll;
    std::uint32_t min_groups_per_unit = kMinGroupsPerUnit;
    std::uint32_t groups_per_unit = kGroupsPerUnit;
};
inline constexpr Launch kReference{};
Launch launch_of(const TuningConfig& c);

const TuningSpace& tuning_space();
TuningConfig default_config(const DeviceInfo& dev);

}  // namespace tb::nbody
