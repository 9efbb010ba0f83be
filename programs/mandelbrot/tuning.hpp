// mandelbrot's tuning constants: the one place they are written. The host launches with
// them and Program::defines() passes them to both kernel files, which refuse to compile
// without them (docs/programs/mandelbrot.md).
#pragma once

#include <string>
#include <vector>

namespace tb::mandelbrot {

// Work-group shape: 32 x 8 pixels, one warp per row of the group, so a warp's stores are one
// 128-byte line of a pixel row.
inline constexpr int kGroupX = 32;  // MANDELBROT_GROUP_X
inline constexpr int kGroupY = 8;   // MANDELBROT_GROUP_Y

inline std::vector<std::string> kernel_defines() {
    return {"MANDELBROT_GROUP_X=" + std::to_string(kGroupX), "MANDELBROT_GROUP_Y=" + std::to_string(kGroupY)};
}

}  // namespace tb::mandelbrot
