// nbody's tuning constants, set here and nowhere else: the host's launch geometry
// (launch.cpp) uses them, and Program::defines() passes the kernel-side ones to both
// dialects (kernels.cl and kernels.cu) as -D NAME=VALUE. docs/programs/nbody.md gives the
// measurements behind each value.
#pragma once

#include <cstdint>

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

}  // namespace tb::nbody
