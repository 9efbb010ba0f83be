// Private to the CUDA backends: how Args become cuLaunchKernel's parameter array. Kept
// apart from the device so it is tested without a GPU.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "cl_translate.hpp"
#include "device.hpp"

namespace tb::cuda {

// What a launch needs to know about a kernel beyond its CUfunction.
struct KernelMeta {
    std::string name;
    std::string file;                      // the source's file_name, for messages
    Dialect dialect = Dialect::Cuda;       // of the module's source: decides the LocalMem convention
    bool has_signature = false;            // OpenCL sources: the translator's view of the kernel
    KernelSignature signature;
    bool has_param_sizes = false;          // cuFuncGetParamInfo was available
    std::vector<std::size_t> param_sizes;  // bytes of each kernel parameter, from the driver
    int static_shared = 0;                 // CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES
    int max_dynamic_shared = 0;            // current CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES
    // Where the dynamic shared memory of a kernel without static shared memory starts in the
    // shared window: the device's reserved shared memory per block (1 KiB from sm_80 on).
    std::uint64_t dynamic_shared_address = 0;
};

// cuLaunchKernel's view of one call. Reused between launches to avoid allocating.
struct PackedArgs {
    std::vector<std::uint64_t> slots;  // one per kernel parameter, the value in its low bytes
    std::vector<std::size_t> sizes;    // bytes of each parameter as passed
    std::vector<void*> pointers;       // &slots[i]: cuLaunchKernel's kernelParams
    std::size_t shared_bytes = 0;      // dynamic shared memory: every LocalMem, 16-byte aligned
};

// Lays out `args` for `k`:
// - buffers as CUdeviceptr, scalars by value;
// - LocalMem blocks are placed one after the other in the dynamic shared memory, each
//   starting at a multiple of kLocalAlign; for Dialect::OpenCL kernels each LocalMem is
//   passed as the `unsigned int` byte offset of its block (the prelude's rewriting), or,
//   where the kernel's parameter is 8 bytes (given PTX in NVIDIA OpenCL's convention,
//   docs/ptx-tools.md), as its block's shared-window address; for Dialect::Cuda nothing is
//   passed (the kernel carves its own extern __shared__ array).
// Throws tb::Error naming the kernel when the arguments do not fit its signature
// (count, __local positions) or, where known, its parameter sizes.
void pack_args(const Args& args, const KernelMeta& k, PackedArgs& out);

}  // namespace tb::cuda
