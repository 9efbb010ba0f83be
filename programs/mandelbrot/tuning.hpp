// mandelbrot's tuning space: the one place its parameters are declared. The host launches
// with a configuration of it and Program::defines(config) passes the same values to both
// kernel files, which refuse to compile without them (docs/programs/mandelbrot.md,
// docs/tuning.md).
#pragma once

#include <string>
#include <vector>

#include "tuning_space.hpp"

namespace tb::mandelbrot {

// group_x x group_y pixels per work-group (MANDELBROT_GROUP_X, MANDELBROT_GROUP_Y). The
// reference, 32 x 8: one warp per row of the group, so a warp's stores are one 128-byte
// line of a pixel row.
const TuningSpace& tuning_space();
TuningConfig default_config(const DeviceInfo& dev);
std::vector<std::string> kernel_defines(const TuningConfig& c);

}  // namespace tb::mandelbrot
