// Load hints for kernels.cl on the opencl backend: which implementation of
// backends/opencl/load_hints.cl a device gets, and the text put in front of a source that
// uses them (docs/prelude.md, "Load hints").
#pragma once

#include <string>

#include "cl_api.hpp"

namespace tb::cl {

enum class LoadHintMode {
    Ptx,    // NVIDIA's OpenCL: ld.global.cs through inline PTX, as cuda-prelude's __ldcs
    Plain,  // anything else: plain loads
};

// The mode for a device: Ptx on NVIDIA's platform, else Plain; TRIBENCH_OPENCL_LOAD_HINTS=
// ptx|plain overrides it (plain on NVIDIA measures what the hint is worth). Throws
// tb::Error for an unknown value or ptx on a platform that does not take PTX.
LoadHintMode load_hint_mode(cl_device_id d);

// What goes before a source's #line: the mode's define and load_hints.cl, when the source
// mentions `tb_load_`; otherwise "".
std::string load_hint_preamble(cl_device_id d, const std::string& source);

}  // namespace tb::cl
