// Sub-group built-ins for kernels.cl on the opencl backend: which implementation of
// backends/opencl/subgroups.cl a device gets, and the text put in front of a source that
// uses them (docs/prelude.md, "Sub-groups").
#pragma once

#include <string>

#include "cl_api.hpp"

namespace tb::cl {

enum class SubgroupMode {
    Khr,       // cl_khr_subgroups + cl_khr_subgroup_shuffle(_relative): the device's built-ins
    Nv,        // NVIDIA's OpenCL (warps of 32): inline PTX
    Emulated,  // anything else: sub-groups of 32 in local memory
};
const char* to_string(SubgroupMode m);

// The mode for a device, from its extensions; TRIBENCH_OPENCL_SUBGROUPS=khr|nv|emulated
// overrides it. Throws tb::Error for an unknown value or a mode the device cannot run.
SubgroupMode subgroup_mode(cl_device_id d);

// What goes before a source's #line: the mode's define and subgroups.cl, when the source
// mentions sub-groups (`sub_group`, `TB_SUB_GROUP`, `TB_SG_`); otherwise "".
std::string subgroup_preamble(cl_device_id d, const std::string& source);

}  // namespace tb::cl
