#include "measure/calibration.hpp"

#include <algorithm>
#include <cstdint>
#include <vector>

namespace tb {
namespace {

// One OpenCL C source serves opencl and cuda-prelude; cuda-native gets its own.
constexpr const char* kOpenCl = R"CL(
__kernel void tb_copy(__global const float4 *restrict in, __global float4 *restrict out, uint n)
{
    uint stride = get_global_size(0);
    for (uint i = get_global_id(0); i < n; i += stride) out[i] = in[i];
}
__kernel void tb_fma(__global float *out, float a, float b, int iters)
{
    float x0 = get_global_id(0) * 1e-7f, x1 = x0 + 1.0f, x2 = x0 + 2.0f, x3 = x0 + 3.0f;
    float x4 = x0 + 4.0f, x5 = x0 + 5.0f, x6 = x0 + 6.0f, x7 = x0 + 7.0f;
    for (int i = 0; i < iters; ++i) {
        x0 = fma(x0, a, b); x1 = fma(x1, a, b); x2 = fma(x2, a, b); x3 = fma(x3, a, b);
        x4 = fma(x4, a, b); x5 = fma(x5, a, b); x6 = fma(x6, a, b); x7 = fma(x7, a, b);
    }
    out[get_global_id(0)] = x0 + x1 + x2 + x3 + x4 + x5 + x6 + x7;
}
__kernel void tb_empty(__global int *out, int write)
{
    if (write) out[0] = 1;
}
)CL";

constexpr const char* kCuda = R"CU(
extern "C" __global__ void tb_copy(const float4* __restrict__ in, float4* __restrict__ out, unsigned n)
{
    for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) out[i] = in[i];
}
extern "C" __global__ void tb_fma(float* out, float a, float b, int iters)
{
    const unsigned id = blockIdx.x * blockDim.x + threadIdx.x;
    float x[8];
    #pragma unroll
    for (int k = 0; k < 8; ++k) x[k] = id * 1e-7f + k;
    for (int i = 0; i < iters; ++i) {
        #pragma unroll
        for (int k = 0; k < 8; ++k) x[k] = fmaf(x[k], a, b);
    }
    out[id] = x[0] + x[1] + x[2] + x[3] + x[4] + x[5] + x[6] + x[7];
}
extern "C" __global__ void tb_empty(int* out, int write)
{
    if (write) out[0] = 1;
}
)CU";

double best_of(Device& dev, int reps, const std::function<void()>& work) {
    work();  // warm-up
    double best = 1e300;
    for (int i = 0; i < reps; ++i) best = std::min(best, dev.time_ms(work));
    return best;
}

}  // namespace

Calibration calibrate(Device& dev) {
    const bool cuda = dev.dialect() == Dialect::Cuda;
    auto mod = dev.compile(Source{"calibration/kernels" + std::string(cuda ? ".cu" : ".cl"), cuda ? kCuda : kOpenCl,
                                  dev.dialect()},
                           CompileOptions{});
    const DeviceInfo& info = dev.info();
    const std::uint32_t units = std::uint32_t(std::max(1, info.compute_units));
    Calibration c;
    c.timing = to_string(dev.timing_mode());

    // Copy: 256 MiB each way, far beyond any L2, so DRAM bandwidth is what is measured.
    const std::size_t bytes = std::size_t(256) << 20;
    Buffer in = dev.alloc(bytes), out = dev.alloc(bytes);
    dev.fill_u32(in, 0x3f800000u);
    const std::uint32_t n4 = std::uint32_t(bytes / 16);
    Kernel copy = mod->kernel("tb_copy");
    const Dim3 block{256, 1, 1}, grid{units * 8, 1, 1};
    const double copy_ms = best_of(dev, 10, [&] { dev.launch(copy, grid, block, Args(in, out, n4)); });
    c.copy_gbps = 2.0 * double(bytes) / (copy_ms * 1e-3) * 1e-9;

    // FP32: 8 independent FMA chains per thread, enough threads to fill every SM.
    Kernel fma = mod->kernel("tb_fma");
    const std::uint32_t threads = units * 2048;
    const std::int32_t iters = 4096;
    Buffer sink = dev.alloc(std::size_t(threads) * 4);
    const Dim3 fgrid{threads / 256, 1, 1};
    const double fma_ms =
        best_of(dev, 5, [&] { dev.launch(fma, fgrid, block, Args(sink, 0.999f, 0.001f, iters)); });
    c.fp32_gflops = 2.0 * 8.0 * double(threads) * iters / (fma_ms * 1e-3) * 1e-9;

    // Clock floor: one work-item that does nothing (the argument keeps the launch from
    // being optimised away), timed as every benchmark is. No kernel can read less.
    Kernel empty = mod->kernel("tb_empty");
    const double empty_ms =
        best_of(dev, 50, [&] { dev.launch(empty, Dim3{1, 1, 1}, Dim3{1, 1, 1}, Args(sink, std::int32_t(0))); });
    c.empty_kernel_us = empty_ms * 1e3;
    dev.synchronize();
    return c;
}

}  // namespace tb
