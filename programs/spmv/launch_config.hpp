// Launch geometry of the spmv kernels, chosen on the host from the matrix and device.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>

#include "device.hpp"
#include "tuning.hpp"

namespace tb::spmv {

// Work-items per work-group: kBlock (eight warps, the kernels' launch bounds), or the
// largest power of two the device allows if that is less.
inline std::uint32_t block_size(std::size_t max_work_group_size) {
    std::uint32_t b = kBlock;
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

// Work-groups to launch for `needed` (enough for one row per work-item or group), at most
// kGroupsPerComputeUnit per compute unit.
inline std::uint32_t launch_groups(std::uint64_t needed, int compute_units) {
    std::uint64_t g = needed;
    if (compute_units > 0) g = std::min<std::uint64_t>(g, kGroupsPerComputeUnit * std::uint64_t(compute_units));
    return std::uint32_t(std::max<std::uint64_t>(g, 1));
}

// The merge kernels' split of the rows + nnz steps of the merge path: one work-group per
// tile of block * kMergeItems steps, one carry per tile; the fix-up takes windows of
// block * fixup_items carries, one work-group each, in one launch.
struct MergeGeometry {
    std::uint32_t block = 0;
    std::uint32_t tile_items = 0;
    std::uint32_t tiles = 0;
    std::uint32_t windows = 0;  // fix-up work-groups
    // Local memory of spmv_merge's four blocks: words, done, scan values, scan flags.
    std::size_t words_bytes() const { return (std::size_t(tile_items) + 1) * 4; }
    std::size_t done_bytes() const { return std::size_t(tile_items) * 4; }
    std::size_t scan_bytes() const { return std::size_t(block) * 4; }
};

// `fixup_items` is the SPMV_FIXUP_ITEMS the kernels were compiled with (tests use small
// windows). Throws tb::Error when the merge path does not fit the kernels' 32-bit step
// counters or the block is not made of whole scan slices.
inline MergeGeometry merge_geometry(std::int64_t rows, std::int64_t nnz, std::uint32_t block,
                                    int fixup_items = kFixupItems) {
    if (block < std::uint32_t(kScanWidth) || block % kScanWidth != 0)
        throw Error("spmv merge: a work-group of " + std::to_string(block) + " is not a multiple of the scan width " +
                    std::to_string(kScanWidth));
    MergeGeometry g;
    g.block = block;
    g.tile_items = block * std::uint32_t(kMergeItems);
    const std::uint64_t steps = std::uint64_t(rows) + std::uint64_t(nnz);
    const std::uint64_t limit = std::numeric_limits<std::uint32_t>::max() - std::uint64_t(g.tile_items);
    if (steps > limit)
        throw Error("spmv merge: rows + non-zeros = " + std::to_string(steps) + " exceed the merge kernel's 32-bit steps (" +
                    std::to_string(limit) + ")");
    g.tiles = std::uint32_t(std::max<std::uint64_t>((steps + g.tile_items - 1) / g.tile_items, 1));
    const std::uint64_t window = std::uint64_t(block) * std::uint64_t(std::max(fixup_items, 1));
    g.windows = std::uint32_t((g.tiles + window - 1) / window);
    return g;
}

}  // namespace tb::spmv
