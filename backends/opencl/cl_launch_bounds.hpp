// Launch bounds for kernels.cl on the opencl backend (docs/prelude.md, "Launch bounds").
// TB_LAUNCH_BOUNDS(max_items, min_groups_per_cu) gives cuda-prelude CUDA's __launch_bounds__;
// OpenCL C has no way to say it. NVIDIA's platform compiles OpenCL C to PTX and takes PTX back
// as a program binary, and PTX can say it (.maxntid, .minnctapersm). So there the backend
// builds the source, evaluates each kernel's two expressions (with the program's own defines,
// through probe kernels, built apart, whose reqd_work_group_size the runtime reports), writes
// the directives into the program's PTX and builds that: ptxas then plans registers as it
// does for cuda-prelude and cuda-native.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "cl_api.hpp"

namespace tb::cl {

enum class LaunchBoundsMode {
    Ptx,   // NVIDIA's OpenCL: the bounds written into the program's PTX
    None,  // anything else: TB_LAUNCH_BOUNDS says nothing
};

// The mode for a device: Ptx on NVIDIA's platform, else None; TRIBENCH_OPENCL_LAUNCH_BOUNDS=
// ptx|none overrides it (none on NVIDIA measures what the bounds are worth). Throws tb::Error
// for an unknown value or ptx on a platform that does not take PTX.
LaunchBoundsMode launch_bounds_mode(cl_device_id d);

// One TB_LAUNCH_BOUNDS(max_items, min_groups) of a source, its arguments as written.
struct DeclaredBounds {
    std::string kernel;
    std::string max_items, min_groups;
};

// Every TB_LAUNCH_BOUNDS(...) outside comments, string literals and preprocessor lines, with
// the kernel it stands before (the identifier followed by '(' that comes next, past any
// `__attribute__((...))` and `void`). Throws tb::Error naming the line for a use without
// two arguments or without a kernel after it.
std::vector<DeclaredBounds> declared_launch_bounds(const std::string& source);

// Name prefix of the probe kernels; they are built apart and never reach the program.
inline constexpr const char* kBoundsProbePrefix = "tb_launch_bounds_probe_";
// The probe kernel that evaluates `which` ("max" or "min") of a kernel's bounds.
std::string bounds_probe_name(const std::string& kernel, const char* which);
// OpenCL C of the probe kernels, to append to the source: for each kernel two empty kernels
// whose reqd_work_group_size is (max_items, 1, 1) and (min_groups, 1, 1).
std::string bounds_probe_source(const std::vector<DeclaredBounds>& bounds);

// Evaluated bounds of one kernel.
struct EntryBounds {
    std::string kernel;
    std::uint64_t max_items = 0, min_groups = 0;
};

// The PTX with `.maxntid max_items, 1, 1` (unless the entry already has .reqntid or
// .maxntid) and `.minnctapersm min_groups` (unless it has one) before the body of each
// listed entry. Throws tb::Error when an entry is not in the PTX.
std::string add_launch_bounds_to_ptx(const std::string& ptx, const std::vector<EntryBounds>& bounds);

// The work-items an entry of `ptx` may be launched with by its own directives: the product of
// its .reqntid or .maxntid dimensions (ptxas fits the entry's registers to them); 0 when it
// has neither, or is not an entry of the PTX.
std::uint64_t ptx_entry_max_items(const std::string& ptx, const std::string& kernel);

}  // namespace tb::cl
