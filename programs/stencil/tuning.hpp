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
// diffusion_fused: cells of the tile a group computes per plane. Each work-item of a warp
// loads two adjacent cells (a float2) of a tile row, so a tile row is 2 * kGroupX cells.
inline constexpr int kTileX = 64;  // STENCIL_TILE_X
inline constexpr int kTileY = 32;  // STENCIL_TILE_Y
// Host only: planes per fused group are chosen to keep at least this many groups per
// compute unit (stencil.cpp, planes_per_group).
inline constexpr int kGroupsPerUnit = 16;

static_assert(kGroupX == 32, "one warp per group row");
static_assert(kTileX == 2 * kGroupX, "each work-item loads a float2 of a tile row");
static_assert(kTileY % kGroupY == 0, "whole tile rows per work-item");
static_assert(2 * (kTileY + 4) <= kGroupX * kGroupY, "one apron float2 per work-item at most");

inline std::vector<std::string> kernel_defines() {
    return {"STENCIL_GROUP_X=" + std::to_string(kGroupX), "STENCIL_GROUP_Y=" + std::to_string(kGroupY),
            "STENCIL_HALO_GROUP=" + std::to_string(kHaloGroup), "STENCIL_TILE_X=" + std::to_string(kTileX),
            "STENCIL_TILE_Y=" + std::to_string(kTileY)};
}

}  // namespace tb::stencil
