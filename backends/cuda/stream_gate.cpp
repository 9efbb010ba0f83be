#include "stream_gate.hpp"

#include <atomic>
#include <cstdio>

#include "cuda_api.hpp"
#include "device.hpp"

namespace tb::cuda {

const std::string& gate_kernel_source() {
    // %globaltimer counts nanoseconds on every GPU since Kepler; volatile loads go to the
    // mapped host page each time, so the host's store is seen within a PCIe round trip.
    static const std::string src = R"(
extern "C" __global__ void tribench_gate(const volatile unsigned int* release, volatile unsigned int* timed_out,
                                         unsigned long long timeout_ns) {
    unsigned long long t0, now;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
    while (release[0] == 0u) {
        asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
        if (now - t0 > timeout_ns) {
            timed_out[0] = 1u;
            return;
        }
    }
}
)";
    return src;
}

StreamGate::StreamGate(const std::string& ptx) {
    const auto& api = driver();
    TB_CU(cuModuleLoadDataEx, &module_, ptx.c_str(), 0, nullptr, nullptr);
    void* host = nullptr;
    try {
        TB_CU(cuModuleGetFunction, &kernel_, module_, kGateKernelName);
        TB_CU(cuMemHostAlloc, &host, 2 * sizeof(std::uint32_t), CU_MEMHOSTALLOC_DEVICEMAP | CU_MEMHOSTALLOC_PORTABLE);
        flags_ = static_cast<volatile std::uint32_t*>(host);
        flags_[0] = 1;
        flags_[1] = 0;
        TB_CU(cuMemHostGetDevicePointer, &device_flags_, host, 0);
    } catch (...) {
        if (host) api.cuMemFreeHost(host);
        api.cuModuleUnload(module_);
        throw;
    }
}

StreamGate::~StreamGate() {
    const auto& api = driver();
    if (flags_) {
        flags_[0] = 1;  // never leave a kernel spinning on memory about to be freed
        if (CUresult r = api.cuMemFreeHost(const_cast<std::uint32_t*>(flags_)); r != CUDA_SUCCESS)
            std::fprintf(stderr, "tribench: warning: cuMemFreeHost failed: %s\n", describe(r).c_str());
    }
    if (CUresult r = api.cuModuleUnload(module_); r != CUDA_SUCCESS)
        std::fprintf(stderr, "tribench: warning: cuModuleUnload failed: %s\n", describe(r).c_str());
}

void StreamGate::hold(CUstream stream, std::uint64_t timeout_ns) {
    flags_[0] = 0;
    flags_[1] = 0;
    std::atomic_thread_fence(std::memory_order_seq_cst);
    CUdeviceptr release = device_flags_;
    CUdeviceptr timed_out = device_flags_ + sizeof(std::uint32_t);
    unsigned long long timeout = timeout_ns;
    void* params[] = {&release, &timed_out, &timeout};
    if (CUresult r = driver().cuLaunchKernel(kernel_, 1, 1, 1, 1, 1, 1, 0, stream, params, nullptr);
        r != CUDA_SUCCESS) {
        flags_[0] = 1;
        check(r, "cuLaunchKernel(tribench_gate)");
    }
}

void StreamGate::release() {
    std::atomic_thread_fence(std::memory_order_seq_cst);
    flags_[0] = 1;
    std::atomic_thread_fence(std::memory_order_seq_cst);
}

bool StreamGate::timed_out() const { return flags_[1] != 0; }

}  // namespace tb::cuda
