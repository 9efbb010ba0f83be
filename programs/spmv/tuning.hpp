// The spmv kernels' tuning constants, set here and nowhere else: the host sizes its launches
// from them and kernel_defines() hands them to both kernel compilers as -D NAME=VALUE, so
// kernels.cl and kernels.cu cannot disagree (docs/programs/spmv.md, "Tuning constants").
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tuning_space.hpp"

namespace tb::spmv {

// Work-items per work-group of every kernel: eight warps. kernels.cu's launch bounds.
inline constexpr std::uint32_t kBlock = 256;

// Non-zeros a scalar work-item loads per batch, all in flight together. 8, not 4: on rows
// longer than a batch the number of round trips per row decides (H100, kernels.cl with 8
// against 4: fem-l 1.17x, powerlaw-l 1.08x, longrows-l 1.09x faster; experiment
// spmv-cl-batch8 of reports/h100/REPORT.md).
inline constexpr int kScalarBatch = 8;

// Non-zeros per lane and batch in the vector kernel (G lanes per row): with G chosen so
// that a lane holds 2-4 non-zeros, one batch covers a row.
inline constexpr int kVectorBatch = 4;

// Merge-path items (row ends plus non-zeros) per work-item; a tile is kBlock * kMergeItems.
// Odd, so that the work-items of a warp start their items on different local-memory banks.
inline constexpr int kMergeItems = 7;

// Width of the first level of the merge kernels' segmented scan: a warp in kernels.cu, a
// 32-wide Hillis-Steele tree in local memory in kernels.cl (same additions in the same order).
inline constexpr int kScanWidth = 32;

// Work-groups per compute unit at most for scalar and vector; the kernels stride over the
// remaining rows. 32 groups of 256 are four waves of a GPU that holds 2048 threads per SM
// (H100), so every work-item has several rows and prefetching the next row's offsets pays.
inline constexpr std::uint64_t kGroupsPerComputeUnit = 32;

// Work-groups of the vector kernel a compute unit must hold at once: kernels.cu's
// __launch_bounds__(kBlock, this) and kernels.cl's TB_LAUNCH_BOUNDS: 2048 threads (an H100
// SM's) in groups of kBlock, so 32 registers at 256 work-items.
inline constexpr int kVectorMinGroups = int(2048 / kBlock);

// Carries (one per merge tile) each work-item of the merge fix-up takes; a work-group's
// window is kBlock * kFixupItems of them (the 12k-18k tiles of the -l matrices: 48-70
// windows). One, not 16: the fix-up is latency-bound, so more work-groups finish sooner.
// H100, 2026-11-26, merge on powerlaw-l, longrows-l, emptyrows-l, cuda-native, with the
// two-pass fix-up of that day (ms): 1: 0.2146 0.1999 0.3436; 2: 0.2153 0.2005 0.3443;
// 4: 0.2169 0.2022 0.3461; 16: 0.2276 0.2128 0.3567 (its first pass alone took 16 us in ncu).
inline constexpr int kFixupItems = 1;

static_assert(kBlock % kScanWidth == 0, "the merge scan works on whole warps");
static_assert(kVectorMinGroups >= 1, "a compute unit holds at least one vector work-group");
static_assert(kMergeItems >= 1 && kFixupItems >= 1 && kScalarBatch >= 1 && kVectorBatch >= 1,
              "batches hold at least one item");

// The tuning space (docs/tuning.md): scalar_batch (SPMV_SCALAR_BATCH), which only the scalar
// kernel reads. The others stay fixed: kBlock and kVectorBatch feed `auto`'s choice
// (variant_choice.cpp), kMergeItems the merge buffers' size (problem.cpp), kScanWidth is a
// warp, kVectorMinGroups follows kBlock.
const TuningSpace& tuning_space();
TuningConfig default_config(const DeviceInfo& dev);

// The -D definitions both kernel files are compiled with.
inline std::vector<std::string> kernel_defines(int scalar_batch = kScalarBatch) {
    return {"SPMV_BLOCK=" + std::to_string(kBlock),
            "SPMV_SCALAR_BATCH=" + std::to_string(scalar_batch),
            "SPMV_VECTOR_BATCH=" + std::to_string(kVectorBatch),
            "SPMV_MERGE_ITEMS=" + std::to_string(kMergeItems),
            "SPMV_SCAN_WIDTH=" + std::to_string(kScanWidth),
            "SPMV_FIXUP_ITEMS=" + std::to_string(kFixupItems),
            "SPMV_VECTOR_MIN_GROUPS=" + std::to_string(kVectorMinGroups)};
}

}  // namespace tb::spmv
