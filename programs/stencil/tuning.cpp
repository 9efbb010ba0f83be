#include "tuning.hpp"

#include <algorithm>

namespace tb::stencil {

Shape shape_of(const TuningConfig& c) {
    return Shape{std::uint32_t(c.at("group_x")), std::uint32_t(c.at("group_y")), std::uint32_t(c.at("halo_group")),
                 std::uint32_t(c.at("tile_x")),  std::uint32_t(c.at("tile_y")),  int(c.at("groups_per_unit"))};
}

std::size_t fused_tile_bytes(const Shape& s) { return 2 * std::size_t(s.tile_x + 4) * (s.tile_y + 4) * sizeof(float); }
std::size_t fused_lap_bytes(const Shape& s) { return std::size_t(s.tile_x + 2) * (s.tile_y + 2) * sizeof(float); }

namespace {

std::string fits_group(const char* what, std::int64_t n, const DeviceInfo& d) {
    if (d.max_work_group_size == 0 || n <= std::int64_t(d.max_work_group_size)) return "";
    return std::string(what) + " = " + std::to_string(n) + " exceeds the device's maximum work-group size " +
           std::to_string(d.max_work_group_size);
}

}  // namespace

// The kernels' own checks (kernels.cl, "tile and group do not fit") and the device's limits.
const TuningSpace& tuning_space() {
    static const TuningSpace space = [] {
        TuningSpace s;
        s.param("group_x", {16, 32, 64}, "work-items of a group along a field row");
        s.param("group_y", {2, 4, 8, 16}, "rows of a group");
        s.param("halo_group", {64, 128, 256, 512}, "work-items of a halo_update group");
        s.param("tile_x", {32, 64, 128}, "cells of a fused tile along a row");
        s.param("tile_y", {16, 32, 64}, "rows of a fused tile");
        s.param("groups_per_unit", {4, 8, 16, 32}, "fused groups wanted per compute unit (host only)");
        s.require("group_x * group_y is a multiple of tile_x (whole tile rows per load pass)",
                  [](const TuningConfig& c, const DeviceInfo&) { return (c.at("group_x") * c.at("group_y")) % c.at("tile_x") == 0; });
        s.require("tile_x is a multiple of group_x and tile_y of group_y (whole tile columns and rows per work-item)",
                  [](const TuningConfig& c, const DeviceInfo&) {
                      return c.at("tile_x") % c.at("group_x") == 0 && c.at("tile_y") % c.at("group_y") == 0;
                  });
        s.require("4 * (tile_y + 4) <= group_x * group_y (one apron cell per work-item at most)",
                  [](const TuningConfig& c, const DeviceInfo&) { return 4 * (c.at("tile_y") + 4) <= c.at("group_x") * c.at("group_y"); });
        s.require_explained("group_x * group_y and halo_group <= the device's maximum work-group size",
                            [](const TuningConfig& c, const DeviceInfo& d) {
                                const std::string why = fits_group("group_x * group_y", c.at("group_x") * c.at("group_y"), d);
                                return why.empty() ? fits_group("halo_group", c.at("halo_group"), d) : why;
                            });
        s.require_explained("the fused tile fits the device's local memory", [](const TuningConfig& c, const DeviceInfo& d) {
            const Shape sh = shape_of(c);
            const std::size_t bytes = fused_tile_bytes(sh) + fused_lap_bytes(sh);
            if (d.max_local_mem_bytes == 0 || bytes <= d.max_local_mem_bytes) return std::string();
            return "the fused tile needs " + std::to_string(bytes) + " bytes of local memory, the device has " +
                   std::to_string(d.max_local_mem_bytes);
        });
        return s;
    }();
    return space;
}

// group_x: one SIMD unit (warp) per group row where the device reports its width, else 32.
// group_y: rows making 256 work-items, capped by the maximum work-group size. halo_group:
// 256, capped likewise. tile_x: 64 (256-byte rows). tile_y: 4 group rows per tile, halved
// until the tile fits local memory and the apron rule holds. groups_per_unit: 16.
// H100 (warp 32, 1024 work-items, 227 KiB): 32 x 8, 256, 64 x 32, 16.
// Not a GPU (PoCL on a CPU): groups of 128 work-items, tile_x 32 and 4 groups a compute
// unit, so 32 x 4, 256, 32 x 16, 4, as the tune of one CPU found; the 32 x 16 tiles, as two
// did (docs/tuning.md, "Defaults on CPUs").
TuningConfig default_config(const DeviceInfo& dev) {
    const TuningSpace& s = tuning_space();
    const bool cpu = is_described_cpu(dev);
    const std::int64_t max_group = dev.max_work_group_size > 0 ? std::int64_t(dev.max_work_group_size) : 1024;
    const std::int64_t items = cpu ? 128 : 256;
    TuningConfig c;
    c["group_x"] = largest_at_most(s.values("group_x"), dev.simd_width > 0 ? dev.simd_width : 32);
    c["group_y"] = largest_at_most(s.values("group_y"), std::max<std::int64_t>(1, std::min<std::int64_t>(items, max_group) / c["group_x"]));
    c["halo_group"] = largest_at_most(s.values("halo_group"), std::min<std::int64_t>(256, max_group));
    c["tile_x"] = largest_at_most(s.values("tile_x"), cpu ? 32 : 64);
    c["groups_per_unit"] = cpu ? 4 : 16;
    for (std::int64_t ty : {64, 32, 16}) {
        c["tile_y"] = ty;
        if (ty <= 4 * c["group_y"] && s.refusal(c, dev).empty()) break;
    }
    return c;
}

std::vector<std::string> kernel_defines(const TuningConfig& c) {
    return {"STENCIL_GROUP_X=" + std::to_string(c.at("group_x")), "STENCIL_GROUP_Y=" + std::to_string(c.at("group_y")),
            "STENCIL_HALO_GROUP=" + std::to_string(c.at("halo_group")), "STENCIL_TILE_X=" + std::to_string(c.at("tile_x")),
            "STENCIL_TILE_Y=" + std::to_string(c.at("tile_y"))};
}

}  // namespace tb::stencil
