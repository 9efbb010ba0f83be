// Launch geometry of the spmv kernels, chosen on the host from the matrix and device.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>

namespace tb::spmv {

// Work-items per work-group: 256 (eight warps, the kernels' launch bounds), or the largest
// power of two the device allows if that is less.
inline std::uint32_t block_size(std::size_t max_work_group_size) {
    std::uint32_t b = 256;
    if (max_work_group_size == 0) return b;  // unknown: every GPU and CPU runtime allows 256
    while (b > 1 && b > max_work_group_size) b /= 2;
    return b;
}

// Work-items per row for the vector kernel: the largest power of two <= half the mean row
// length, clamped to [2, 32] (and to the block). Each lane then holds about 2-4 non-zeros,
// one batch of loads: rows of 5 (2-D Poisson) get 2 lanes, 20 (random) 8, 54 (FEM) 16,
// 64 and more a whole warp. Fewer lanes per row put more rows, so more bytes, in flight
// per warp; more lanes shorten long rows. Skewed matrices (power law, a few very long rows)
// defeat any single choice: their long rows run on one small group.
inline std::uint32_t vector_group_size(double mean_row_length, std::uint32_t block) {
    std::uint32_t g = 2;
    while (g < 32 && 2.0 * (2 * g) <= mean_row_length) g *= 2;
    return std::min(g, std::max<std::uint32_t>(block, 1));
}

// Work-groups per compute unit at most; the kernels stride over the remaining rows. 32
// groups of 256 are four full waves on a GPU that holds 2048 threads per SM (H100): every
// thread gets several rows, so prefetching the next row's offsets pays, and on GPUs that
// hold fewer blocks the last partial wave costs little.
inline constexpr std::uint64_t kGroupsPerComputeUnit = 32;

// Work-groups to launch for `needed` (enough for one row per work-item or group).
inline std::uint32_t launch_groups(std::uint64_t needed, int compute_units) {
    std::uint64_t g = needed;
    if (compute_units > 0) g = std::min<std::uint64_t>(g, kGroupsPerComputeUnit * std::uint64_t(compute_units));
    return std::uint32_t(std::max<std::uint64_t>(g, 1));
}

}  // namespace tb::spmv
