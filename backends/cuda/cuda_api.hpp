// The CUDA driver API, opened at run time. cuda.h supplies types and declarations only:
// libcuda is never linked, so the binary starts on machines without an NVIDIA driver.
// Every entry point is resolved through cuGetProcAddress_v2 by its base name, so the
// driver hands back the version (_v2, _v3, ...) whose signature matches cuda.h.
#pragma once

#include <cuda.h>

#include <string>

#include "device.hpp"

namespace tb::cuda {

// Entry points resolved by base name. cuda.h #defines several names to their versioned
// symbol (cuMemAlloc -> cuMemAlloc_v2), so a member spelled `cuMemAlloc` really is
// `cuMemAlloc_v2`, with exactly that declaration's type; #name still gives the base name.
#define TB_CUDA_REQUIRED_ENTRY_POINTS(X)                                                       \
    X(cuDeviceGetCount) X(cuDeviceGet) X(cuDeviceGetName) X(cuDeviceGetAttribute)              \
    X(cuDeviceTotalMem) X(cuDevicePrimaryCtxRetain) X(cuDevicePrimaryCtxRelease)                \
    X(cuCtxSetCurrent) X(cuCtxGetCurrent) X(cuCtxPushCurrent) X(cuCtxPopCurrent)                \
    X(cuMemGetInfo) X(cuMemAlloc) X(cuMemFree) X(cuMemcpyHtoDAsync) X(cuMemcpyDtoHAsync)        \
    X(cuMemcpyDtoDAsync) X(cuMemsetD32Async) X(cuStreamCreate) X(cuStreamDestroy)               \
    X(cuStreamSynchronize) X(cuEventCreate) X(cuEventDestroy) X(cuEventRecord)                  \
    X(cuEventSynchronize) X(cuEventElapsedTime) X(cuModuleLoadDataEx) X(cuModuleUnload)         \
    X(cuModuleGetFunction) X(cuFuncGetAttribute) X(cuFuncSetAttribute) X(cuLaunchKernel)        \
    X(cuStreamBeginCapture) X(cuStreamEndCapture) X(cuGraphInstantiateWithFlags)                \
    X(cuGraphLaunch) X(cuGraphExecDestroy) X(cuGraphDestroy) X(cuMemHostAlloc) X(cuMemFreeHost)                 \
    X(cuMemHostGetDevicePointer) X(cuDeviceGetPCIBusId)

// Entry points newer drivers have; nullptr when the driver lacks them.
#define TB_CUDA_OPTIONAL_ENTRY_POINTS(X) X(cuFuncGetParamInfo) /* CUDA 12.4 */

#define TB_CUDA_DECLARE_ENTRY_POINT(name) decltype(&::name) name = nullptr;

struct DriverApi {
    int driver_version = 0;  // cuDriverGetVersion, e.g. 13000
    int api_version = 0;     // the version entry points were resolved for: min(driver, cuda.h)
    // Taken with dlsym: they are needed before cuGetProcAddress_v2 can be used.
    decltype(&::cuInit) cuInit = nullptr;
    decltype(&::cuDriverGetVersion) cuDriverGetVersion = nullptr;
    decltype(&::cuGetErrorName) cuGetErrorName = nullptr;
    decltype(&::cuGetErrorString) cuGetErrorString = nullptr;
    TB_CUDA_REQUIRED_ENTRY_POINTS(TB_CUDA_DECLARE_ENTRY_POINT)
    TB_CUDA_OPTIONAL_ENTRY_POINTS(TB_CUDA_DECLARE_ENTRY_POINT)
};

#undef TB_CUDA_DECLARE_ENTRY_POINT

// Loads libcuda and calls cuInit(0) once per process. Throws tb::Error with the reason
// the CUDA backends are unavailable, e.g. "libcuda.so.1 not found" or
// "cuInit failed: CUDA_ERROR_NO_DEVICE (no CUDA-capable device is detected)".
const DriverApi& driver();

// "CUDA_ERROR_OUT_OF_MEMORY (out of memory)".
std::string describe(CUresult r);

// Throws tb::Error("<call> failed: CUDA_ERROR_... (...)") unless r is CUDA_SUCCESS.
void check(CUresult r, const char* call);

// 13000 -> "13.0", 12040 -> "12.4".
std::string version_string(int cuda_version);

// Calls a driver entry point and throws naming it on failure:
// TB_CU(cuMemAlloc, &ptr, bytes) reports "cuMemAlloc failed: ...".
#define TB_CU(fn, ...) ::tb::cuda::check(::tb::cuda::driver().fn(__VA_ARGS__), #fn)

// What the driver reports about a compiled kernel (register pressure, spills), for the
// PTX/SASS analysis next to the timings.
struct KernelResources {
    int registers = 0;               // per thread
    int static_shared_bytes = 0;     // __shared__ declared in the kernel
    int local_bytes = 0;             // per-thread local memory: spills and local arrays
    int const_bytes = 0;             // user __constant__ memory
    int max_threads_per_block = 0;   // the most threads a block of this kernel can have
    int ptx_version = 0;             // e.g. 90 for PTX ISA targeting compute_90
    int binary_version = 0;          // SASS version, e.g. 90
};

// `k` must come from a live Module of a CUDA backend (its handle is the CUfunction).
KernelResources kernel_resources(const Kernel& k);

}  // namespace tb::cuda
