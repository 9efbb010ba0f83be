// kmeans' tuning constants, set here and nowhere else: the host (kmeans.cpp) sizes its
// launches with them, and Program::defines() passes the kernel-side ones to both dialects
// (kernels.cl and kernels.cu) as -D NAME=VALUE. docs/programs/kmeans.md gives the reasons.
#pragma once

#include <cstddef>
#include <cstdint>

namespace tb::kmeans {

// KM_KMAX: the most clusters; the update keeps KM_KMAX x (d+1) sums per work-item in
// registers (KM_KMAX / 2 when k is at most half of it).
inline constexpr int kKmax = 16;
// KM_BLOCK: work-items per work-group of every kernel; a multiple of KM_RUN.
inline constexpr std::uint32_t kBlock = 256;
// KM_RUN: the group sums add runs of this many work-items' values in a pairwise tree (in
// local memory, padded against bank conflicts), then the runs in order. 32 keeps the tree
// at 5 levels (written out in the kernels, which check the value) and lets KM_RUN values be
// reduced per round with every work-item busy.
inline constexpr std::uint32_t kRun = 32;
// Host only: points per work-item in kmeans_assign (one float4 of each feature).
inline constexpr int kPointsPerItem = 4;
// Host only, kmeans_partial: at least one float4 step per work-item (small inputs are
// latency-bound: more groups shorten each work-item's chain), at most kMaxGroups groups
// (large inputs: enough points per work-item to amortise the group's reduction, and a few
// partials per work-item in kmeans_finalize).
inline constexpr std::int64_t kMinChunk = 4 * std::int64_t(kBlock);
inline constexpr std::int64_t kMaxGroups = 1024;

// Local memory of the group sums: KM_RUN values per round, each as kBlock / kRun runs of
// kRun + 1 floats (the pad puts the items reading one run's values in different banks),
// plus one float per run and value for the runs' sums.
inline constexpr std::size_t kReduceFloats = std::size_t(kRun) * (kBlock / kRun) * (kRun + 1) + kBlock;

}  // namespace tb::kmeans
