// NVRTC, opened at run time. Compiling needs no GPU and no driver, so CI compiles every
// kernel of both CUDA backends and `tribench ptx` works anywhere the toolkit is.
#pragma once

#include <string>
#include <vector>

#include "cl_translate.hpp"
#include "device.hpp"

namespace tb::cuda {

struct PtxBuild {
    std::string ptx;
    std::string log;                       // NVRTC's log (warnings too)
    double compile_ms = 0;                 // time this call took (NVRTC, or reading the cache)
    std::vector<KernelSignature> kernels;  // filled for Dialect::OpenCL sources
    bool from_cache = false;               // PTX came from the kernel cache (kernel_cache.hpp)
};

// "13.0"; throws tb::Error("libnvrtc.so not found ...") when NVRTC cannot be loaded.
std::string nvrtc_version();

// The compute capabilities this NVRTC can target, ascending (e.g. 75, 80, ..., 120).
std::vector<int> nvrtc_supported_archs();

// The NVRTC options a compile uses, e.g. {"--gpu-architecture=compute_90", "-default-device", ...}.
// `arch` is "sm_90" or "compute_90" (both give PTX for compute_90).
std::vector<std::string> nvrtc_options(const CompileOptions& opt, const std::string& arch);

// Translates an OpenCL source (Dialect::OpenCL) or takes a CUDA one as is, and compiles it
// to PTX, through the kernel cache. Throws tb::Error when compilation fails: the first line
// of what() is "<file_name>: NVRTC compilation failed (N errors)", the lines after it the
// compile log, with line numbers of src.file_name.
PtxBuild compile_to_ptx(const Source& src, const CompileOptions& opt, const std::string& arch);

}  // namespace tb::cuda
