// kmeans' tuning space and reference constants (the H100's), set here and nowhere else: the
// host (kmeans.cpp) sizes its launches with a configuration of the space, and
// Program::defines(config) passes the kernel-side values to both dialects (kernels.cl and
// kernels.cu) as -D NAME=VALUE. docs/programs/kmeans.md gives the reasons, docs/tuning.md
// the space. KM_KMAX, KM_RUN and the points per work-item are fixed: the kernels hard-wire them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "tuning_space.hpp"

namespace tb::kmeans {

// KM_KMAX: the most clusters. The generic assignment keeps 4 x KM_KMAX distances per
// work-item in registers (4 x KM_KMAX / 2 when k is at most half of it).
inline constexpr int kKmax = 16;
// KM_BLOCK: work-items per work-group of kmeans_assign and kmeans_finalize.
inline constexpr std::uint32_t kBlock = 256;
// KM_ASSIGN_MIN_GROUPS: groups of the _d2/_d4 assignment kept resident per compute unit
// (both dialects' launch bounds): 6 x 256 work-items caps the registers at 42. That kernel
// waits on memory, so occupancy is its speed: unbounded, cuda-native's code took 40 registers
// and cuda-prelude's 48 (5 groups per SM, 2.6% slower); bounded, both take 40
// (docs/programs/kmeans.md).
inline constexpr std::uint32_t kAssignMinGroups = 6;
// KM_PARTIAL_BLOCK: work-items per work-group of kmeans_partial, whose local memory holds a
// copy of every value per work-item: k*(d+1) x 128 floats is 40 KiB for k = 16, d = 4, under
// the 48 KiB an OpenCL device must offer (256 work-items would need 80).
inline constexpr std::uint32_t kPartialBlock = 128;
// KM_RUN: the group sums add runs of this many work-items' copies in a pairwise tree, then
// the runs in order. 32 keeps the tree at 5 levels (written out in the kernels, which check
// the value) and lets KM_RUN values be reduced per round with every work-item busy.
inline constexpr std::uint32_t kRun = 32;
// Host only: points per work-item in kmeans_assign (one float4 of each feature).
inline constexpr int kPointsPerItem = 4;
// Host only, kmeans_partial: at least one float4 step per work-item (small inputs are
// latency-bound: more groups shorten each work-item's chain), at most kMaxGroups groups:
// for 10M points 2,442 per group (~5 steps per work-item), ~6 waves of 5 groups per SM on
// an H100 when k = 16, d = 4 (local memory bound), so the last wave's loss stays small.
inline constexpr std::int64_t kMinChunk = 4 * std::int64_t(kPartialBlock);
inline constexpr std::int64_t kMaxGroups = 4096;

// Local memory of kmeans_assign, in floats: the generic kernel's centroids transposed,
// [f][KM_KMAX]; the _d2/_d4 kernels' staged centroids, KM_KMAX float4s (-2 c_j, with |c_j|^2
// in the third lane for d = 2) and, for d = 4, KM_KMAX norms after them (kernels.cl).
inline constexpr std::size_t assign_local_floats(int d, bool fixed_d) {
    return fixed_d ? std::size_t(4 + (d == 4 ? 1 : 0)) * kKmax : std::size_t(d) * kKmax;
}

// Local memory of kmeans_partial for `values` values per work-item (k*(d+1) for the _d2/_d4
// kernels, k for the generic one, whose passes take one feature at a time), in floats:
// the copies, then one float per work-item for the runs' sums.
inline constexpr std::size_t partial_local_floats(std::size_t values) {
    return (values + 1) * kPartialBlock;
}

// One configuration as the host uses it: block (KM_BLOCK), partial_block (KM_PARTIAL_BLOCK)
// and assign_min_groups (KM_ASSIGN_MIN_GROUPS), which is not tuned but follows the block so
// that the assignment's registers stay capped at the reference's 42 (6 x 256 = 1536
// work-items resident per compute unit).
struct Launch {
    std::uint32_t block = kBlock;
    std::uint32_t partial_block = kPartialBlock;
    std::uint32_t assign_min_groups = kAssignMinGroups;
    std::int64_t min_chunk() const { return 4 * std::int64_t(partial_block); }  // kMinChunk's rule
    std::size_t partial_local_floats(std::size_t values) const { return (values + 1) * partial_block; }
};
Launch launch_of(const TuningConfig& c);

const TuningSpace& tuning_space();
TuningConfig default_config(const DeviceInfo& dev);
std::vector<std::string> kernel_defines(const Launch& l);

}  // namespace tb::kmeans
