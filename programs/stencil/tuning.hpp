// stencil's tuning space: the one place its parameters are declared. The host launches with
// a configuration of it and Program::defines(config) passes the kernel-side values to both
// kernel files, which refuse to compile without them and check again what they assume
// (docs/programs/stencil.md, docs/tuning.md).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tuning_space.hpp"

namespace tb::stencil {

// One configuration, as the host uses it. The reference (H100) values:
//  - group_x x group_y = 32 x 8 (STENCIL_GROUP_X/Y): the group of laplacian,
//    diffusion_update and diffusion_fused; one warp per group row, so a warp's accesses are
//    whole 128-byte lines of a field row.
//  - halo_group = 256 (STENCIL_HALO_GROUP): work-items per (1-D) group of halo_update.
//  - tile_x x tile_y = 64 x 32 (STENCIL_TILE_X/Y): the cells of the tile diffusion_fused
//    computes per plane; a 64-cell row is 256 bytes, so each load pass reads whole rows.
//  - groups_per_unit = 16 (host only): planes per fused group are chosen to keep at least
//    this many groups per compute unit (stencil.cpp, planes_per_group).
struct Shape {
    std::uint32_t group_x, group_y, halo_group, tile_x, tile_y;
    int groups_per_unit;
};
Shape shape_of(const TuningConfig& c);

const TuningSpace& tuning_space();
TuningConfig default_config(const DeviceInfo& dev);
std::vector<std::string> kernel_defines(const TuningConfig& c);
// Local memory of a diffusion_fused group: the input tile with its 2-cell apron, twice
// (kernels.cl), then the first Laplacian one cell around the tile.
std::size_t fused_tile_bytes(const Shape& s);
std::size_t fused_lap_bytes(const Shape& s);

}  // namespace tb::stencil
