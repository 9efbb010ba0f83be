#include "tuning.hpp"

#include <algorithm>

namespace tb::mandelbrot {

namespace {
// Work-items a default group holds: 8 warps of 32, the reference group.
constexpr std::int64_t kDefaultGroupItems = 256;
}  // namespace

const TuningSpace& tuning_space() {
    static const TuningSpace space = [] {
        TuningSpace s;
        s.param("group_x", {8, 16, 32, 64, 128}, "work-items of a group along a pixel row");
        s.param("group_y", {1, 2, 4, 8, 16, 32}, "rows of a group");
        s.require_explained("group_x * group_y <= the device's maximum work-group size",
                            [](const TuningConfig& c, const DeviceInfo& d) {
                                const std::int64_t n = c.at("group_x") * c.at("group_y");
                                if (d.max_work_group_size == 0 || n <= std::int64_t(d.max_work_group_size)) return std::string();
                                return "group_x * group_y = " + std::to_string(n) + " exceeds the device's maximum work-group size " +
                                       std::to_string(d.max_work_group_size);
                            });
        return s;
    }();
    return space;
}

// group_x: one SIMD unit (warp) per group row where the device reports its width, else 32,
// so a row's stores stay one line. group_y: as many rows as make 256 work-items, capped by
// the device's maximum work-group size. H100 (warp 32, 1024 work-items): 32 x 8.
TuningConfig default_config(const DeviceInfo& dev) {
    const auto& x_values = tuning_space().values("group_x");
    const auto& y_values = tuning_space().values("group_y");
    const std::int64_t x = largest_at_most(x_values, dev.simd_width > 0 ? dev.simd_width : 32);
    std::int64_t items = kDefaultGroupItems;
    if (dev.max_work_group_size > 0) items = std::min<std::int64_t>(items, std::int64_t(dev.max_work_group_size));
    return {{"group_x", x}, {"group_y", largest_at_most(y_values, std::max<std::int64_t>(1, items / x))}};
}

std::vector<std::string> kernel_defines(const TuningConfig& c) {
    return {"MANDELBROT_GROUP_X=" + std::to_string(c.at("group_x")),
            "MANDELBROT_GROUP_Y=" + std::to_string(c.at("group_y"))};
}

}  // namespace tb::mandelbrot
