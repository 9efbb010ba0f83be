// stencil's tuning constants: the one place they are written. The host launches with them
// and Program::defines() passes them to both kernel files, which refuse to compile without
// them (docs/programs/stencil.md).
#pragma once

#include <string>
#include <vector>

namespace tb::stencil {

// Work-group shape of laplacian, diffusion_update and diffusion_fused: one warp per row of
// the group, so a warp's accesses are whole 128-byte lines of a field row.
inline constexpr int kGroupX = 32;  // STENCIL_GROUP_X
inline constexpr int kGroupY = 8;   // STENCIL_GROUP_Y
// halo_update: work-items per (1-D) group.
inline constexpr int kHaloGroup = 256;  // STENCIL_HALO_GROUP
// diffusion_fused: cells of the tile a group computes per plane. A tile row is 256 bytes,
// so each load pass of the group reads whole rows (kGroupX * kGroupY / kTileX of them).
inline constexpr int kTileX = 64;  // STENCIL_TILE_X
inline constexpr int kTileY = 32;  // STENCIL_TILE_Y
// Host only: planes per fused group are chosen to keep at least this many groups per
// compute unit (stencil.cpp, planes_per_group).
inline constexpr int kGroupsPerUnit = 16;

// What the kernels assume (both files check it again with the values they are given).
static_assert((kGroupX * kGroupY) % kTileX == 0, "whole tile rows per load pass");
static_assert(kTileX % kGroupX == 0 && kTileY % kGroupY == 0, "whole tile columns and rows per work-item");
static_assert(4 * (kTileY + 4) <= kGroupX * kGroupY, "one apron cell per work-item at most");

inline std::vector<std::string> kernel_defines() {
    return {"STENCIL_GROUP_X=" + std::to_string(kGroupX), "STENCIL_GROUP_Y=" + std::to_string(kGroupY),
            "STENCIL_HALO_GROUP=" + std::to_string(kHaloGroup), "STENCIL_TILE_X=" + std::to_string(kTileX),
            "STENCIL_TILE_Y=" + std::to_string(kTileY)};
}

}  // namespace tb::stencil
