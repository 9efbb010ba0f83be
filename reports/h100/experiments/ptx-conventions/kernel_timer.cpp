// EXPERIMENT ptx-conventions (reports/h100/REPORT.md, "opencl: NVIDIA's PTX conventions,
// another ptxas layout"): fft's 1d-1mx16 and 1d-16m pass chains, the same launches and
// buffers, run from PTX files under the CUDA driver and under NVIDIA's OpenCL, each kernel
// timed from inside (timer_patch.py: first group's start, last group's end, %globaltimer).
// Prints per pass the kernel's span and the gap before it, and the chain's period.
//   build: g++ -O2 -std=c++17 kernel_timer.cpp -o kernel_timer -I$CUDA/include
//            -L$CUDA/lib64/stubs -lcuda -lOpenCL
//   run:   ./kernel_timer CUDA_PTX [OPENCL_PTX...]   (run.sh makes the files)
// CUDA_PTX has cuda-prelude's calling convention (scripts/opencl_ptx_to_prelude.py);
// each OPENCL_PTX NVIDIA OpenCL's, loaded as a program binary. Raw APIs, no tribench code.
#define CL_TARGET_OPENCL_VERSION 300
#include <CL/cl.h>
#include <cuda.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#define CL_CHECK(x) check_cl((x), #x, __LINE__)
#define CU_CHECK(x) check_cu((x), #x, __LINE__)

namespace {

void check_cl(cl_int e, const char *what, int line) {
    if (e != CL_SUCCESS) { std::fprintf(stderr, "line %d: %s -> %d\n", line, what, e); std::exit(1); }
}
void check_cu(CUresult e, const char *what, int line) {
    if (e != CUDA_SUCCESS) { std::fprintf(stderr, "line %d: %s -> %d\n", line, what, int(e)); std::exit(1); }
}

// One pass's arguments, from make_plan (programs/fft/plan.cpp) for the H100's default tuning:
// 4096 groups of 256 work-items, 32 KiB of local memory each.
struct Pass { const char *kernel; int columns, log2M, log2Nsv, log2S, tw_log2B; };
struct Chain { const char *name; std::vector<Pass> passes; };
const std::vector<Chain> kChains = {
    {"1d-1mx16", {{"fft_r1024", 16384, 10, 0, 0, -1}, {"fft_r1024", 16384, 10, 10, 0, 10}}},
    {"1d-16m", {{"fft_r256", 65536, 16, 0, 0, -1}, {"fft_r256", 65536, 16, 8, 0, 8}, {"fft_r256", 65536, 16, 16, 0, 12}}},
};
constexpr int kReps = 12;              // chains back to back; the first warms up
constexpr size_t kSlotBytes = 4096;    // one (start, end) pair per launch, sub-buffer aligned
constexpr size_t kSlots = kReps * 3;
constexpr unsigned kGroups = 4096, kItems = 256, kLocal = 32768;
constexpr size_t kData = (size_t(1) << 24) * 8, kTwiddles = 1 << 20;
constexpr float kOne = 1.0f, kHalf = 0.5f, kTw = 0.7f;  // values do not change the timing

std::string slurp(const char *path) {
    std::ifstream f(path);
    if (!f) { std::fprintf(stderr, "cannot read %s\n", path); std::exit(1); }
    std::stringstream s;
    s << f.rdbuf();
    return s.str();
}

std::vector<uint64_t> fresh_slots() {
    std::vector<uint64_t> v(kSlots * kSlotBytes / 8, 0);
    for (size_t i = 0; i < kSlots; ++i) v[i * kSlotBytes / 8] = ~0ull;  // start: atom.min
    return v;
}

double median(std::vector<double> v) { std::sort(v.begin(), v.end()); return v[v.size() / 2]; }

void report(const std::string &label, const Chain &c, const std::vector<uint64_t> &slot) {
    const size_t P = c.passes.size(), W = kSlotBytes / 8;
    auto start = [&](size_t i) { return double(slot[i * W]); };
    auto end = [&](size_t i) { return double(slot[i * W + 1]); };
    std::printf("%-22s %-9s", label.c_str(), c.name);
    for (size_t p = 0; p < P; ++p) {
        std::vector<double> span, gap;
        for (int r = 1; r < kReps; ++r) {
            const size_t i = r * P + p;
            span.push_back((end(i) - start(i)) / 1e3);
            gap.push_back((start(i) - end(i - 1)) / 1e3);
        }
        std::printf("  pass %zu %7.2f us (gap %4.2f)", p + 1, median(span), median(gap));
    }
    std::vector<double> period;
    for (int r = 1; r + 1 < kReps; ++r) period.push_back((start((r + 1) * P) - start(r * P)) / 1e3);
    std::printf("  chain %7.2f us\n", median(period));
}

void run_opencl(const std::string &ptx, const std::string &label) {
    cl_uint n = 0;
    CL_CHECK(clGetPlatformIDs(0, nullptr, &n));
    std::vector<cl_platform_id> platforms(n);
    CL_CHECK(clGetPlatformIDs(n, platforms.data(), nullptr));
    cl_platform_id platform = nullptr;
    for (auto p : platforms) {
        char name[256] = {};
        clGetPlatformInfo(p, CL_PLATFORM_NAME, sizeof name, name, nullptr);
        if (std::strstr(name, "NVIDIA")) platform = p;
    }
    if (!platform) { std::fprintf(stderr, "no NVIDIA OpenCL platform\n"); std::exit(1); }
    cl_device_id dev;
    CL_CHECK(clGetDeviceIDs(platform, CL_DEVICE_TYPE_GPU, 1, &dev, nullptr));
    cl_int err;
    cl_context ctx = clCreateContext(nullptr, 1, &dev, nullptr, nullptr, &err);
    CL_CHECK(err);
    cl_command_queue q = clCreateCommandQueueWithProperties(ctx, dev, nullptr, &err);
    CL_CHECK(err);
    const unsigned char *bin = reinterpret_cast<const unsigned char *>(ptx.c_str());
    size_t len = ptx.size() + 1;
    cl_int status;
    cl_program prog = clCreateProgramWithBinary(ctx, 1, &dev, &len, &bin, &status, &err);
    CL_CHECK(err);
    CL_CHECK(status);
    if (clBuildProgram(prog, 1, &dev, "", nullptr, nullptr) != CL_SUCCESS) {
        std::vector<char> log(1 << 16);
        clGetProgramBuildInfo(prog, dev, CL_PROGRAM_BUILD_LOG, log.size(), log.data(), nullptr);
        std::fprintf(stderr, "%s: build failed\n%s\n", label.c_str(), log.data());
        std::exit(1);
    }
    cl_mem a = clCreateBuffer(ctx, CL_MEM_READ_WRITE, kData, nullptr, &err); CL_CHECK(err);
    cl_mem b = clCreateBuffer(ctx, CL_MEM_READ_WRITE, kData, nullptr, &err); CL_CHECK(err);
    cl_mem tw = clCreateBuffer(ctx, CL_MEM_READ_WRITE, kTwiddles, nullptr, &err); CL_CHECK(err);
    std::vector<uint64_t> slots = fresh_slots();
    cl_mem slot_buf = clCreateBuffer(ctx, CL_MEM_READ_WRITE, slots.size() * 8, nullptr, &err); CL_CHECK(err);
    CL_CHECK(clEnqueueFillBuffer(q, a, &kHalf, 4, 0, kData, 0, nullptr, nullptr));
    CL_CHECK(clEnqueueFillBuffer(q, b, &kHalf, 4, 0, kData, 0, nullptr, nullptr));
    CL_CHECK(clEnqueueFillBuffer(q, tw, &kTw, 4, 0, kTwiddles, 0, nullptr, nullptr));
    std::vector<cl_mem> slot(kSlots);  // the kernel takes a pointer, so one sub-buffer a launch
    for (size_t i = 0; i < kSlots; ++i) {
        cl_buffer_region r{i * kSlotBytes, 16};
        slot[i] = clCreateSubBuffer(slot_buf, CL_MEM_READ_WRITE, CL_BUFFER_CREATE_TYPE_REGION, &r, &err);
        CL_CHECK(err);
    }
    for (const Chain &c : kChains) {
        CL_CHECK(clEnqueueWriteBuffer(q, slot_buf, CL_TRUE, 0, slots.size() * 8, slots.data(), 0, nullptr, nullptr));
        size_t i = 0;
        for (int r = 0; r < kReps; ++r)
            for (const Pass &p : c.passes) {
                cl_kernel k = clCreateKernel(prog, p.kernel, &err);
                CL_CHECK(err);
                cl_mem src = i % 2 ? b : a, dst = i % 2 ? a : b;
                const int ints[] = {p.columns, p.log2M, p.log2Nsv, p.log2S, p.tw_log2B};
                CL_CHECK(clSetKernelArg(k, 0, sizeof src, &src));
                CL_CHECK(clSetKernelArg(k, 1, sizeof dst, &dst));
                CL_CHECK(clSetKernelArg(k, 2, sizeof tw, &tw));
                CL_CHECK(clSetKernelArg(k, 3, sizeof tw, &tw));
                for (int j = 0; j < 5; ++j) CL_CHECK(clSetKernelArg(k, 4 + j, 4, &ints[j]));
                for (int j = 9; j < 12; ++j) CL_CHECK(clSetKernelArg(k, j, 4, &kOne));
                CL_CHECK(clSetKernelArg(k, 12, kLocal, nullptr));
                CL_CHECK(clSetKernelArg(k, 13, sizeof(cl_mem), &slot[i]));
                const size_t global = size_t(kGroups) * kItems, local = kItems;
                CL_CHECK(clEnqueueNDRangeKernel(q, k, 1, nullptr, &global, &local, 0, nullptr, nullptr));
                clReleaseKernel(k);  // the queue keeps it until it has run
                ++i;
            }
        CL_CHECK(clFinish(q));
        std::vector<uint64_t> out(slots.size());
        CL_CHECK(clEnqueueReadBuffer(q, slot_buf, CL_TRUE, 0, out.size() * 8, out.data(), 0, nullptr, nullptr));
        report("opencl " + label, c, out);
    }
    for (cl_mem m : slot) clReleaseMemObject(m);
    for (cl_mem m : {slot_buf, tw, b, a}) clReleaseMemObject(m);
    clReleaseProgram(prog);
    clReleaseCommandQueue(q);
    clReleaseContext(ctx);
}

void run_cuda(const std::string &ptx, const std::string &label) {
    CU_CHECK(cuInit(0));
    CUdevice dev;
    CU_CHECK(cuDeviceGet(&dev, 0));
    CUcontext ctx;
    CU_CHECK(cuDevicePrimaryCtxRetain(&ctx, dev));
    CU_CHECK(cuCtxSetCurrent(ctx));
    CUmodule mod;
    CU_CHECK(cuModuleLoadData(&mod, ptx.c_str()));
    CUdeviceptr a, b, tw, slot_buf;
    CU_CHECK(cuMemAlloc(&a, kData));
    CU_CHECK(cuMemAlloc(&b, kData));
    CU_CHECK(cuMemAlloc(&tw, kTwiddles));
    std::vector<uint64_t> slots = fresh_slots();
    CU_CHECK(cuMemAlloc(&slot_buf, slots.size() * 8));
    unsigned half, twv;
    std::memcpy(&half, &kHalf, 4);
    std::memcpy(&twv, &kTw, 4);
    CU_CHECK(cuMemsetD32(a, half, kData / 4));
    CU_CHECK(cuMemsetD32(b, half, kData / 4));
    CU_CHECK(cuMemsetD32(tw, twv, kTwiddles / 4));
    for (const Chain &c : kChains) {
        CU_CHECK(cuMemcpyHtoD(slot_buf, slots.data(), slots.size() * 8));
        size_t i = 0;
        for (int r = 0; r < kReps; ++r)
            for (const Pass &p : c.passes) {
                CUfunction f;
                CU_CHECK(cuModuleGetFunction(&f, mod, p.kernel));
                CUdeviceptr src = i % 2 ? b : a, dst = i % 2 ? a : b, slot = slot_buf + i * kSlotBytes;
                unsigned local_offset = 0;  // cuda-prelude's __local parameter: an offset into tb_local_mem
                float one = kOne;
                int ints[] = {p.columns, p.log2M, p.log2Nsv, p.log2S, p.tw_log2B};
                void *args[] = {&src, &dst, &tw, &tw, &ints[0], &ints[1], &ints[2], &ints[3], &ints[4],
                                &one, &one, &one, &local_offset, &slot};
                CU_CHECK(cuLaunchKernel(f, kGroups, 1, 1, kItems, 1, 1, kLocal, nullptr, args, nullptr));
                ++i;
            }
        CU_CHECK(cuCtxSynchronize());
        std::vector<uint64_t> out(slots.size());
        CU_CHECK(cuMemcpyDtoH(out.data(), slot_buf, out.size() * 8));
        report("cuda " + label, c, out);
    }
    for (CUdeviceptr p : {slot_buf, tw, b, a}) cuMemFree(p);
    cuModuleUnload(mod);
    CU_CHECK(cuDevicePrimaryCtxRelease(dev));
}

std::string base_name(const char *path) {
    std::string s(path);
    return s.substr(s.find_last_of('/') + 1);
}

}  // namespace

int main(int argc, char **argv) {
    if (argc < 2) { std::fprintf(stderr, "usage: kernel_timer CUDA_PTX [OPENCL_PTX...]\n"); return 2; }
    for (int round = 0; round < 2; ++round) {  // two alternations
        run_cuda(slurp(argv[1]), base_name(argv[1]));
        for (int i = 2; i < argc; ++i) run_opencl(slurp(argv[i]), base_name(argv[i]));
    }
}
