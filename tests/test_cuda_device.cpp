// The CUDA backends. Without a GPU: the backends report why they are unavailable, and the
// launch-argument layout (LocalMem offsets, signature checks) is checked on its own. With
// a GPU: memory, both dialects' LocalMem conventions, timing, graphs and the clear errors.
#include <dlfcn.h>
#include <gtest/gtest.h>
#include <stdlib.h>

#include <cstring>
#include <filesystem>
#include <regex>
#include <string>
#include <utility>
#include <vector>

#include "backend.hpp"
#include "cuda/cuda_api.hpp"
#include "cuda/cuda_device.hpp"
#include "cuda/cuda_device_impl.hpp"
#include "cuda/kernel_cache.hpp"
#include "cuda/kernel_tracer.hpp"

namespace {

using namespace tb;
using tb::cuda::KernelMeta;
using tb::cuda::PackedArgs;
using tb::cuda::pack_args;

// The names the backend tries, in its order.
bool libcuda_loads() {
    return dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL) != nullptr || dlopen("libcuda.so", RTLD_NOW | RTLD_LOCAL) != nullptr;
}

// ---- availability ------------------------------------------------------------------------------

TEST(CudaBackend, IdsAndDialects) {
    auto native = make_backend("cuda-native");
    auto prelude = make_backend("cuda-prelude");
    EXPECT_EQ(native->id(), "cuda-native");
    EXPECT_EQ(native->dialect(), Dialect::Cuda);
    EXPECT_EQ(prelude->id(), "cuda-prelude");
    EXPECT_EQ(prelude->dialect(), Dialect::OpenCL);
}

TEST(CudaBackend, ListsDevicesOrSaysWhyNot) {
    for (const char* id : {"cuda-native", "cuda-prelude"}) {
        SCOPED_TRACE(id);
        auto b = make_backend(id);
        if (!libcuda_loads()) {
            // The machine without a driver (CI, this project's build machine).
            try {
                b->devices();
                ADD_FAILURE() << "devices() returned without libcuda";
            } catch (const Error& e) {
                EXPECT_STREQ(e.what(), "libcuda.so.1 not found");
            }
            try {
                b->open(0);
                ADD_FAILURE() << "open() returned without libcuda";
            } catch (const Error& e) {
                EXPECT_STREQ(e.what(), "libcuda.so.1 not found");
            }
            continue;
        }
        std::vector<DeviceInfo> devices;
        try {
            devices = b->devices();
        } catch (const Error& e) {
            // A driver without a GPU (a container without one passed in), or the toolkit's stub.
            EXPECT_EQ(std::string(e.what()).rfind("cuInit failed: ", 0), 0u) << e.what();
            continue;
        }
        ASSERT_FALSE(devices.empty());
        for (const auto& d : devices) {
            EXPECT_EQ(d.backend, id);
            EXPECT_FALSE(d.name.empty());
            EXPECT_EQ(d.vendor, "NVIDIA");
            EXPECT_EQ(d.platform, "CUDA");
            EXPECT_TRUE(std::regex_match(d.driver_version, std::regex(R"([0-9]+\.[0-9])"))) << d.driver_version;
            EXPECT_EQ(d.compiler_version.rfind("NVRTC ", 0), 0u) << d.compiler_version;
            EXPECT_GE(d.cc_major, 7);
            EXPECT_GT(d.compute_units, 0);
            EXPECT_GT(d.global_mem_bytes, 0u);
            EXPECT_GT(d.free_mem_bytes, 0u);
            EXPECT_LE(d.free_mem_bytes, d.global_mem_bytes);
            EXPECT_GE(d.max_local_mem_bytes, 48u * 1024);
            EXPECT_GE(d.max_work_group_size, 1024u);
            EXPECT_TRUE(d.is_gpu);
            EXPECT_TRUE(d.is_nvidia);
        }
    }
}

// ---- argument layout (no GPU needed) -----------------------------------------------------------

KernelMeta opencl_kernel(int params, std::vector<int> locals) {
    KernelMeta k;
    k.name = "k";
    k.file = "t/kernels.cl";
    k.dialect = Dialect::OpenCL;
    k.has_signature = true;
    k.signature.name = "k";
    k.signature.param_count = params;
    k.signature.local_params = std::move(locals);
    return k;
}

KernelMeta cuda_kernel() {
    KernelMeta k;
    k.name = "k";
    k.file = "t/kernels.cu";
    k.dialect = Dialect::Cuda;
    return k;
}

std::uint32_t low32(std::uint64_t slot) {
    std::uint32_t v;
    std::memcpy(&v, &slot, sizeof v);
    return v;
}

// A buffer with a made-up handle and no device: its destructor frees nothing.
Buffer fake_buffer(std::uint64_t handle) { return Buffer(nullptr, handle, 256); }

TEST(PackArgs, OpenClPassesAlignedLocalOffsets) {
    const Buffer buf = fake_buffer(0x7f0000001000);
    const Args args(buf, LocalMem{100}, std::uint32_t{3}, LocalMem{64}, 2.5f, LocalMem{16});
    PackedArgs p;
    pack_args(args, opencl_kernel(6, {1, 3, 5}), p);
    ASSERT_EQ(p.sizes, (std::vector<std::size_t>{8, 4, 4, 4, 4, 4}));
    EXPECT_EQ(p.slots[0], 0x7f0000001000u);
    EXPECT_EQ(low32(p.slots[1]), 0u);    // first block at 0
    EXPECT_EQ(low32(p.slots[2]), 3u);
    EXPECT_EQ(low32(p.slots[3]), 112u);  // 100 rounded up to 16
    float f;
    std::memcpy(&f, &p.slots[4], sizeof f);
    EXPECT_EQ(f, 2.5f);
    EXPECT_EQ(low32(p.slots[5]), 176u);  // 112 + 64, already aligned
    EXPECT_EQ(p.shared_bytes, 192u);
    ASSERT_EQ(p.pointers.size(), 6u);
    for (std::size_t i = 0; i < 6; ++i) EXPECT_EQ(p.pointers[i], &p.slots[i]);
}

TEST(PackArgs, CudaPassesNoLocalParametersButTheSameTotal) {
    const Buffer buf = fake_buffer(0x1000);
    const Args args(buf, LocalMem{100}, std::int32_t{-5}, LocalMem{64}, 1.0, std::int64_t{-2});
    PackedArgs p;
    pack_args(args, cuda_kernel(), p);
    ASSERT_EQ(p.sizes, (std::vector<std::size_t>{8, 4, 8, 8}));
    EXPECT_EQ(p.slots[0], 0x1000u);
    EXPECT_EQ(low32(p.slots[1]), 0xfffffffbu);  // -5 as a 32-bit value
    double d;
    std::memcpy(&d, &p.slots[2], sizeof d);
    EXPECT_EQ(d, 1.0);
    EXPECT_EQ(static_cast<std::int64_t>(p.slots[3]), -2);
    EXPECT_EQ(p.shared_bytes, 176u);
}

TEST(PackArgs, NoLocalMemMeansNoSharedMemory) {
    PackedArgs p;
    pack_args(Args(1.0f), cuda_kernel(), p);
    EXPECT_EQ(p.shared_bytes, 0u);
    pack_args(Args(), cuda_kernel(), p);
    EXPECT_TRUE(p.pointers.empty());
}

std::string pack_error(const Args& args, const KernelMeta& k) {
    PackedArgs p;
    try {
        pack_args(args, k, p);
    } catch (const Error& e) {
        return e.what();
    }
    return "";
}

TEST(PackArgs, RejectsArgumentsThatDoNotFitTheOpenClSignature) {
    const Buffer buf = fake_buffer(0x1000);
    EXPECT_EQ(pack_error(Args(buf, LocalMem{16}), opencl_kernel(3, {1})),
              "kernel 'k' (t/kernels.cl) takes 3 arguments but the host passed 2");
    EXPECT_EQ(pack_error(Args(buf, 1.0f, LocalMem{16}), opencl_kernel(3, {1})),
              "kernel 'k' (t/kernels.cl): argument 1 is a __local pointer but the host passed a float");
    EXPECT_EQ(pack_error(Args(buf, LocalMem{16}, LocalMem{16}), opencl_kernel(3, {1})),
              "kernel 'k' (t/kernels.cl): argument 2 is LocalMem but that parameter is not a __local pointer");
    EXPECT_EQ(pack_error(Args(buf, LocalMem{16}, 1.0f), opencl_kernel(3, {1})), "");
}

TEST(PackArgs, ChecksParameterSizesWhenTheDriverGivesThem) {
    const Buffer buf = fake_buffer(0x1000);
    KernelMeta k = cuda_kernel();
    k.has_param_sizes = true;
    k.param_sizes = {8, 4};
    EXPECT_EQ(pack_error(Args(buf, 1.0f), k), "");
    EXPECT_EQ(pack_error(Args(buf, LocalMem{32}, 1.0f), k), "");  // LocalMem is no CUDA parameter
    EXPECT_EQ(pack_error(Args(buf, 1.0), k),
              "kernel 'k' (t/kernels.cu): parameter 1 is 4 bytes but the host passed 8 bytes");
    EXPECT_EQ(pack_error(Args(buf), k),
              "kernel 'k' (t/kernels.cu) has 2 parameters but the host passed 1 values "
              "(LocalMem arguments are not parameters of CUDA kernels)");

    KernelMeta cl = opencl_kernel(2, {1});
    cl.has_param_sizes = true;
    cl.param_sizes = {8, 4};  // the __local pointer became a 32-bit offset
    EXPECT_EQ(pack_error(Args(buf, LocalMem{32}), cl), "");
    cl.param_sizes = {8, 2};
    EXPECT_EQ(pack_error(Args(buf, LocalMem{32}), cl),
              "kernel 'k' (t/kernels.cl): parameter 1 is 2 bytes but the host passed 4 bytes");
}

// Given PTX in NVIDIA OpenCL's convention (scripts/opencl_ptx_to_prelude.py --addresses):
// a 64-bit __local parameter gets its block's address in the shared window, the offset
// added to where the dynamic shared memory starts.
TEST(PackArgs, OpenClPassesSharedAddressesToSixtyFourBitLocalParameters) {
    const Buffer buf = fake_buffer(0x1000);
    KernelMeta k = opencl_kernel(4, {1, 3});
    k.has_param_sizes = true;
    k.param_sizes = {8, 8, 4, 4};  // one __local parameter an address, the other an offset
    k.dynamic_shared_address = 0x400;
    PackedArgs p;
    pack_args(Args(buf, LocalMem{100}, std::uint32_t{7}, LocalMem{64}), k, p);
    ASSERT_EQ(p.sizes, (std::vector<std::size_t>{8, 8, 4, 4}));
    EXPECT_EQ(p.slots[1], 0x400u);       // the first block, at the start
    EXPECT_EQ(low32(p.slots[3]), 112u);  // the second, as an offset: 100 rounded up to 16
    EXPECT_EQ(p.shared_bytes, 176u);

    k.param_sizes = {8, 4, 4, 8};
    pack_args(Args(buf, LocalMem{100}, std::uint32_t{7}, LocalMem{64}), k, p);
    EXPECT_EQ(p.slots[3], 0x400u + 112u);

    k.static_shared = 48;  // then the dynamic block's address is unknown
    EXPECT_EQ(pack_error(Args(buf, LocalMem{100}, std::uint32_t{7}, LocalMem{64}), k),
              "kernel 'k' (t/kernels.cl): argument 3 is a 64-bit __local address, but the kernel also has 48 "
              "bytes of static shared memory, after which the address of its dynamic shared memory is not known");
}

// ---- a gated region's span from its CUPTI records --------------------------------------------

using tb::cuda::TracedSpan;
using tb::cuda::region_span_ns;

TracedSpan gate_at(std::uint64_t start, std::uint64_t end) { return {start, end, true}; }
TracedSpan work_at(std::uint64_t start, std::uint64_t end) { return {start, end, false}; }

TEST(RegionSpan, LeavesOutTheGateAndSpansTheWork) {
    // In any order the buffers deliver them: the earliest record is the gate.
    EXPECT_EQ(region_span_ns({work_at(1500, 1700), gate_at(1000, 1400), work_at(1450, 1600)}), 250u);
    // A single-thread kernel of the work itself is work: only the earliest record is the gate.
    EXPECT_EQ(region_span_ns({gate_at(1000, 1400), gate_at(1410, 1420), work_at(1430, 1500)}), 90u);
}

TEST(RegionSpan, NoSpanWhenTheEarliestRecordIsNotTheGate) {
    // The gate's record missing (or misread): the work's first kernel must not be dropped.
    EXPECT_EQ(region_span_ns({work_at(1000, 1400), work_at(1450, 1600)}), 0u);
    // Work that overlaps the gate's start cannot be the stream's: no span either.
    EXPECT_EQ(region_span_ns({work_at(900, 1100), gate_at(1000, 1400), work_at(1450, 1600)}), 0u);
}

TEST(RegionSpan, LeavesOutWhatRanBeforeTheGate) {
    // The placement scatter, enqueued before the region and traced with it, ends before the
    // gate starts: the span is the work's alone.
    EXPECT_EQ(region_span_ns({work_at(900, 950), gate_at(1000, 1400), work_at(1450, 1600)}), 150u);
    EXPECT_EQ(region_span_ns({gate_at(1000, 1400), work_at(1450, 1600), work_at(800, 1000)}), 150u);
    // With nothing after the gate there is still no span.
    EXPECT_EQ(region_span_ns({work_at(900, 950), gate_at(1000, 1400)}), 0u);
}

TEST(RegionSpan, NoSpanWithoutWorkOrWithAnUntimedRecord) {
    EXPECT_EQ(region_span_ns({}), 0u);
    EXPECT_EQ(region_span_ns({gate_at(1000, 1400)}), 0u);
    EXPECT_EQ(region_span_ns({gate_at(1000, 1400), work_at(0, 0), work_at(1450, 1600)}), 0u);
    EXPECT_EQ(region_span_ns({gate_at(1000, 1400), work_at(1500, 1450)}), 0u);  // ends before it starts
}

// ---- on a GPU ----------------------------------------------------------------------------------

std::string unavailable(const std::string& id) {
    try {
        return make_backend(id)->devices().empty() ? "no CUDA device" : "";
    } catch (const Error& e) {
        return e.what();
    }
}

class CudaDeviceTest : public ::testing::Test {
protected:
    void SetUp() override {
        if (std::string why = unavailable("cuda-native"); !why.empty()) GTEST_SKIP() << why;
        native = make_backend("cuda-native")->open(0);
        prelude = make_backend("cuda-prelude")->open(0);
    }
    void TearDown() override {
        prelude.reset();
        native.reset();
    }

    std::unique_ptr<Device> native, prelude;
};

std::vector<std::uint32_t> download_u32(Device& d, const Buffer& b) {
    std::vector<std::uint32_t> v(b.bytes() / 4);
    d.download(v.data(), b, b.bytes());
    return v;
}

TEST_F(CudaDeviceTest, OpenDeviceDescribesItself) {
    const DeviceInfo& info = native->info();
    EXPECT_EQ(info.backend, "cuda-native");
    EXPECT_EQ(prelude->info().backend, "cuda-prelude");
    EXPECT_EQ(native->dialect(), Dialect::Cuda);
    EXPECT_EQ(prelude->dialect(), Dialect::OpenCL);
    EXPECT_FALSE(info.name.empty());
    EXPECT_GT(info.free_mem_bytes, 0u);
    EXPECT_TRUE(native->supports_graphs());
}

// Every device object of one GPU enqueues on the GPU's one kept stream, also after the others
// are closed (a second round of --repeat): a stream of its own made the later device's short
// kernels 5-11% slower (backends/cuda/cuda_device.cpp, docs/measurement.md).
TEST_F(CudaDeviceTest, EveryDeviceOfAGpuEnqueuesOnOneStream) {
    void* const stream = native->native_queue();
    ASSERT_NE(stream, nullptr);
    EXPECT_EQ(prelude->native_queue(), stream);
    native.reset();
    prelude.reset();
    auto again = make_backend("cuda-native")->open(0);
    EXPECT_EQ(again->native_queue(), stream);
    // Still a working stream after the devices that used it were closed.
    Buffer b = again->alloc(16);
    again->fill_u32(b, 0x12345678u);
    std::vector<std::uint32_t> v(4);
    again->download(v.data(), b, 16);
    EXPECT_EQ(v, std::vector<std::uint32_t>(4, 0x12345678u));
}

TEST_F(CudaDeviceTest, UploadDownloadCopyAndFillWithOffsets) {
    Device& d = *native;
    Buffer a = d.alloc(1024 * 4);
    Buffer b = d.alloc(1024 * 4);
    d.fill_u32(a, 0xdeadbeefu);
    std::vector<std::uint32_t> values(256);
    for (std::uint32_t i = 0; i < 256; ++i) values[i] = i * 2654435761u;
    d.upload(a, values.data(), values.size() * 4, 300 * 4);
    auto got = download_u32(d, a);
    for (std::uint32_t i = 0; i < 1024; ++i) {
        const std::uint32_t want = (i >= 300 && i < 556) ? values[i - 300] : 0xdeadbeefu;
        ASSERT_EQ(got[i], want) << "word " << i;
    }
    std::vector<std::uint32_t> part(100);
    d.download(part.data(), a, 100 * 4, 350 * 4);
    for (std::uint32_t i = 0; i < 100; ++i) ASSERT_EQ(part[i], values[50 + i]);

    d.fill_u32(b, 0x01020304u);
    d.copy(b, a, 512 * 4);
    got = download_u32(d, b);
    for (std::uint32_t i = 0; i < 1024; ++i) {
        const std::uint32_t want = i < 512 ? ((i >= 300) ? values[i - 300] : 0xdeadbeefu) : 0x01020304u;
        ASSERT_EQ(got[i], want) << "word " << i;
    }
    EXPECT_THROW(d.upload(a, values.data(), values.size() * 4, 900 * 4), Error);
    EXPECT_THROW(d.download(part.data(), a, 100 * 4, 1000 * 4), Error);
    EXPECT_THROW(d.copy(a, b, 2048 * 4), Error);
}

// Reverses each work-group's slice through one local block and reads a second local block,
// so overlapping or misplaced blocks give wrong results.
const char* kReverseCl = R"(
__kernel void reverse_tiles(__global const float* in, __global float* out, __local float* tile,
                            uint n, __local int* ids) {
    uint L = get_local_size(0), l = get_local_id(0), g = get_global_id(0);
    tile[l] = g < n ? in[g] : 0.0f;
    ids[l] = (int)(l * 7u);
    barrier(CLK_LOCAL_MEM_FENCE);
    if (g < n) out[g] = tile[L - 1 - l] + 1000.0f * (float)ids[(l + 1) % L];
}
)";

// The same in CUDA: the kernel carves the dynamic shared memory the way the host lays it
// out (16-byte aligned blocks) and reports the size it was given.
const char* kReverseCu = R"(
extern "C" __global__ void reverse_tiles(const float* in, float* out, unsigned int n, unsigned int* smem_size) {
    extern __shared__ __align__(16) unsigned char smem[];
    const unsigned int L = blockDim.x, l = threadIdx.x, g = blockIdx.x * L + l;
    float* tile = reinterpret_cast<float*>(smem);
    int* ids = reinterpret_cast<int*>(smem + (L * 4 + 4 + 15) / 16 * 16);
    tile[l] = g < n ? in[g] : 0.0f;
    ids[l] = (int)(l * 7u);
    __syncthreads();
    if (g < n) out[g] = tile[L - 1 - l] + 1000.0f * (float)ids[(l + 1) % L];
    if (g == 0) {
        unsigned int s;
        asm volatile("mov.u32 %0, %%dynamic_smem_size;" : "=r"(s));
        *smem_size = s;
    }
}
)";

std::vector<float> reverse_reference(const std::vector<float>& in, std::uint32_t L) {
    const std::uint32_t n = static_cast<std::uint32_t>(in.size());
    std::vector<float> out(n);
    for (std::uint32_t g = 0; g < n; ++g) {
        const std::uint32_t l = g % L, src = g - l + (L - 1 - l);
        out[g] = (src < n ? in[src] : 0.0f) + 1000.0f * static_cast<float>(((l + 1) % L) * 7);
    }
    return out;
}

TEST_F(CudaDeviceTest, LocalMemoryInBothDialects) {
    const std::uint32_t n = 1000, L = 128;  // n is no multiple of L: the last group is partial
    std::vector<float> in(n);
    for (std::uint32_t i = 0; i < n; ++i) in[i] = 0.5f * static_cast<float>(i) + 1.0f;
    const auto want = reverse_reference(in, L);
    const Dim3 grid{(n + L - 1) / L}, block{L};
    const LocalMem tile{L * 4 + 4}, ids{L * 4};  // tile's size is no multiple of 16

    for (Device* d : {native.get(), prelude.get()}) {
        const bool cl = d->dialect() == Dialect::OpenCL;
        SCOPED_TRACE(d->info().backend);
        Buffer bin = d->alloc(n * 4), bout = d->alloc(n * 4), bsize = d->alloc(4);
        d->upload(bin, in.data(), n * 4);
        d->fill_u32(bout, 0xffffffffu);  // NaN everywhere: unwritten outputs fail
        d->fill_u32(bsize, 0);
        auto m = d->compile(Source{cl ? "inline/kernels.cl" : "inline/kernels.cu", cl ? kReverseCl : kReverseCu,
                                   cl ? Dialect::OpenCL : Dialect::Cuda},
                            {});
        EXPECT_FALSE(m->ptx.empty());
        EXPECT_GT(m->compile_ms, 0.0);
        const Kernel k = m->kernel("reverse_tiles");
        if (cl) d->launch(k, grid, block, Args(bin, bout, tile, n, ids));
        else d->launch(k, grid, block, Args(bin, bout, tile, n, ids, bsize));
        std::vector<float> got(n);
        d->download(got.data(), bout, n * 4);
        for (std::uint32_t i = 0; i < n; ++i) ASSERT_EQ(got[i], want[i]) << "element " << i;
        if (!cl) {
            EXPECT_EQ(download_u32(*d, bsize)[0], (L * 4 + 4 + 15) / 16 * 16 + L * 4);
        }
    }
}

// kReverseCl's kernel as NVIDIA's OpenCL passes __local buffers: 64-bit shared-window
// addresses (given PTX after scripts/opencl_ptx_to_prelude.py --addresses). It fills the
// dynamic shared memory with -1 through its own symbol, writes through the addresses it was
// given, and reads back through the symbol: a wrong address leaves -1 or misplaced values.
const char* kReverseByAddress = R"(
extern "C" __global__ void reverse_tiles(const float* in, float* out, unsigned long long tile, unsigned int n,
                                         unsigned long long ids) {
    extern __shared__ __align__(16) unsigned char smem[];
    const unsigned int L = blockDim.x, l = threadIdx.x, g = blockIdx.x * L + l;
    float* tile_sym = reinterpret_cast<float*>(smem);
    int* ids_sym = reinterpret_cast<int*>(smem + (L * 4 + 4 + 15) / 16 * 16);
    tile_sym[l] = -1.0f;
    ids_sym[l] = -1;
    __syncthreads();
    asm volatile("st.shared.f32 [%0], %1;" ::"l"(tile + 4ull * l), "f"(g < n ? in[g] : 0.0f) : "memory");
    asm volatile("st.shared.s32 [%0], %1;" ::"l"(ids + 4ull * l), "r"((int)(l * 7u)) : "memory");
    __syncthreads();
    if (g < n) out[g] = tile_sym[L - 1 - l] + 1000.0f * (float)ids_sym[(l + 1) % L];
}
)";

TEST_F(CudaDeviceTest, GivenPtxTakesLocalMemoryAsSharedAddresses) {
    const std::uint32_t n = 1000, L = 128;
    std::vector<float> in(n);
    for (std::uint32_t i = 0; i < n; ++i) in[i] = 0.25f * static_cast<float>(i) + 3.0f;
    const auto want = reverse_reference(in, L);
    const auto cu = native->compile(Source{"inline/by_address.cu", kReverseByAddress, Dialect::Cuda}, {});
    Source given{"inline/kernels.cl", kReverseCl, Dialect::OpenCL};  // the signature: which parameters are __local
    given.ptx_file = "inline/by_address.ptx";
    given.ptx = cu->ptx;
    auto m = prelude->compile(given, {});
    Buffer bin = prelude->alloc(n * 4), bout = prelude->alloc(n * 4);
    prelude->upload(bin, in.data(), n * 4);
    prelude->fill_u32(bout, 0xffffffffu);
    prelude->launch(m->kernel("reverse_tiles"), Dim3{(n + L - 1) / L}, Dim3{L},
                    Args(bin, bout, LocalMem{L * 4 + 4}, n, LocalMem{L * 4}));
    std::vector<float> got(n);
    prelude->download(got.data(), bout, n * 4);
    for (std::uint32_t i = 0; i < n; ++i) ASSERT_EQ(got[i], want[i]) << "element " << i;
}

TEST_F(CudaDeviceTest, LocalMemoryAbove48KiB) {
    const std::uint32_t words = 20480, L = 256;  // 80 KiB
    if (native->info().max_local_mem_bytes < words * 4 + 1024) GTEST_SKIP() << "device allows less shared memory";
    const char* cl_src = R"(
__kernel void big_tile(__global float* out, __local float* big, uint words) {
    for (uint i = get_local_id(0); i < words; i += get_local_size(0)) big[i] = (float)i;
    barrier(CLK_LOCAL_MEM_FENCE);
    out[get_local_id(0)] = big[words - 1 - get_local_id(0)];
}
)";
    const char* cu_src = R"(
extern "C" __global__ void big_tile(float* out, unsigned int words) {
    extern __shared__ float big[];
    for (unsigned int i = threadIdx.x; i < words; i += blockDim.x) big[i] = (float)i;
    __syncthreads();
    out[threadIdx.x] = big[words - 1 - threadIdx.x];
}
)";
    for (Device* d : {native.get(), prelude.get()}) {
        const bool cl = d->dialect() == Dialect::OpenCL;
        SCOPED_TRACE(d->info().backend);
        Buffer out = d->alloc(L * 4);
        d->fill_u32(out, 0xffffffffu);
        auto m = d->compile(Source{"inline/big", cl ? cl_src : cu_src, cl ? Dialect::OpenCL : Dialect::Cuda}, {});
        d->launch(m->kernel("big_tile"), Dim3{1}, Dim3{L}, Args(out, LocalMem{words * 4}, words));
        std::vector<float> got(L);
        d->download(got.data(), out, L * 4);
        for (std::uint32_t t = 0; t < L; ++t) ASSERT_EQ(got[t], static_cast<float>(words - 1 - t)) << "thread " << t;
    }
}

const char* kScaleAdd = R"(
extern "C" __global__ void scale_add(float* x, const float* y, float a, unsigned int n) {
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] = x[i] * a + y[i];
}
)";

// kScaleAdd compiled on a device with zeroed x and y of n floats; launch(items) enqueues
// x = x * 1 + y over the first `items` (a multiple of 256).
struct ScaleAdd {
    ScaleAdd(Device& d, std::uint32_t n)
        : dev(d), x(d.alloc(n * 4)), y(d.alloc(n * 4)),
          module(d.compile(Source{"inline/scale_add.cu", kScaleAdd, Dialect::Cuda}, {})),
          kernel(module->kernel("scale_add")) {
        d.fill_u32(x, 0);
        d.fill_u32(y, 0);
    }
    void launch(std::uint32_t items) { dev.launch(kernel, Dim3{items / 256}, Dim3{256}, Args(x, y, 1.0f, items)); }
    // One timed region of `launches` launches: its time and the clock that read it.
    std::pair<double, std::string> timed(int launches, std::uint32_t items) {
        const double ms = dev.time_ms([&] {
            for (int i = 0; i < launches; ++i) launch(items);
        });
        return {ms, dev.timing_clock()};
    }
    Device& dev;
    Buffer x, y;
    std::unique_ptr<Module> module;
    Kernel kernel;
};

TEST_F(CudaDeviceTest, TimeMsMeasuresDeviceWork) {
    Device& d = *native;
    const std::uint32_t n = 1u << 24;
    ScaleAdd sa(d, n);
    const double ms = d.time_ms([&] {
        for (int i = 0; i < 10; ++i) sa.launch(n);
    });
    EXPECT_GT(ms, 0.0);
    EXPECT_LT(ms, 10000.0);
}

TEST_F(CudaDeviceTest, GraphReplayMatchesStreamLaunches) {
    Device& d = *native;
    const std::uint32_t n = 4096;
    // Small integers and factors 0.5 and 2: every step is exact, so results compare exactly.
    std::vector<float> x0(n), y(n);
    for (std::uint32_t i = 0; i < n; ++i) x0[i] = static_cast<float>(i % 97), y[i] = static_cast<float>(i % 13);
    Buffer xg = d.alloc(n * 4), xs = d.alloc(n * 4), by = d.alloc(n * 4), snap_g = d.alloc(n * 4), snap_s = d.alloc(n * 4);
    d.upload(xg, x0.data(), n * 4);
    d.upload(xs, x0.data(), n * 4);
    d.upload(by, y.data(), n * 4);
    d.fill_u32(snap_g, 0xffffffffu);
    d.fill_u32(snap_s, 0xffffffffu);
    auto m = d.compile(Source{"inline/scale_add.cu", kScaleAdd, Dialect::Cuda}, {});
    const Kernel k = m->kernel("scale_add");
    const Dim3 grid{n / 256}, block{256};
    auto steps = [&](const Buffer& x, const Buffer& snap) {
        d.launch(k, grid, block, Args(x, by, 0.5f, n));
        d.launch(k, grid, block, Args(x, by, 2.0f, n));
        d.copy(snap, x, n * 4);
    };
    auto graph = d.capture([&] { steps(xg, snap_g); });
    ASSERT_NE(graph, nullptr);
    // Capturing records; it must not have run anything.
    std::vector<float> got(n);
    d.download(got.data(), xg, n * 4);
    EXPECT_EQ(got, x0);
    for (int r = 0; r < 3; ++r) graph->launch();
    for (int r = 0; r < 3; ++r) steps(xs, snap_s);
    d.synchronize();

    std::vector<float> want = x0;
    for (int r = 0; r < 3; ++r)
        for (std::uint32_t i = 0; i < n; ++i) want[i] = (want[i] * 0.5f + y[i]) * 2.0f + y[i];
    for (const Buffer* b : {&xg, &xs, &snap_g, &snap_s}) {
        d.download(got.data(), *b, n * 4);
        EXPECT_EQ(got, want);
    }
}

// Gated timing of a graph launch is plausible: CUPTI's records of graph kernels are used when
// they have timestamps (serial tracing leaves them without: events then), never a span from
// a missing start (that reads as a timestamp).
TEST_F(CudaDeviceTest, GatedTimingOfAGraphLaunchIsPlausible) {
    Device& d = *native;
    const std::uint32_t n = 1u << 20;
    ScaleAdd sa(d, n);
    auto graph = d.capture([&] {
        for (int i = 0; i < 4; ++i) sa.launch(n);
    });
    ASSERT_NE(graph, nullptr);
    d.set_timing_mode(TimingMode::Gated);
    const double graph_ms = d.time_ms([&] { graph->launch(); });
    const std::string graph_clock = d.timing_clock();
    const double stream_ms = d.time_ms([&] {
        for (int i = 0; i < 4; ++i) sa.launch(n);
    });
    d.set_timing_mode(TimingMode::Plain);
    EXPECT_GT(graph_ms, 0.0);
    EXPECT_LT(graph_ms, 10 * stream_ms + 0.05) << "clock " << graph_clock;  // the same four launches
    EXPECT_TRUE(graph_clock == "events" || graph_clock == "cupti") << graph_clock;
}

// CUPTI tracing slows kernels of many blocks by up to ~2%; after a gated region of 0.25 ms or
// more the next is read by the events alone, until one is shorter than 0.2 ms again (the
// runner's warm-up sample puts a benchmark's samples on one side).
TEST_F(CudaDeviceTest, RegionsAfterALongOneAreTimedUntraced) {
    if (!tb::cuda::KernelTracer::instance().available())
        GTEST_SKIP() << "no CUPTI: " << tb::cuda::KernelTracer::instance().why();
    Device& d = *native;
    const std::uint32_t n = 1u << 24;
    ScaleAdd sa(d, n);
    d.set_timing_mode(TimingMode::Gated);
    EXPECT_TRUE(d.needs_warmup_sample());
    std::vector<std::pair<double, std::string>> seen;
    for (int i = 0; i < 2; ++i) seen.push_back(sa.timed(2, 1u << 16));  // a few us
    for (int i = 0; i < 2; ++i) seen.push_back(sa.timed(40, n));         // milliseconds
    for (int i = 0; i < 2; ++i) seen.push_back(sa.timed(2, 1u << 16));
    d.set_timing_mode(TimingMode::Plain);
    EXPECT_FALSE(d.needs_warmup_sample());
    std::string trace;
    for (const auto& [ms, clock] : seen) trace += std::to_string(ms) + " ms " + clock + "; ";
    const std::vector<std::string> want = {"cupti", "cupti", "cupti", "events", "events", "cupti"};
    ASSERT_EQ(seen.size(), want.size());
    for (std::size_t i = 0; i < want.size(); ++i) EXPECT_EQ(seen[i].second, want[i]) << "region " << i << ": " << trace;
    EXPECT_GT(seen[2].first, 0.25) << trace;
    EXPECT_LT(seen[5].first, 0.2) << trace;
}

// A timing series (the runner starts one for each benchmark) is traced from its first region
// on and stays traced once any of its regions took under 0.25 ms: neither the regions before
// the series nor a long region inside it switch it to the events. Before, fft 1d-1mx16 (0.237
// ms) read CUPTI on cuda-native and the events on cuda-prelude, after one slow region (H100
// suites of 6af96be and 3df45c9).
TEST_F(CudaDeviceTest, ATimingSeriesIsTracedOnceARegionWasShort) {
    if (!tb::cuda::KernelTracer::instance().available())
        GTEST_SKIP() << "no CUPTI: " << tb::cuda::KernelTracer::instance().why();
    Device& d = *native;
    const std::uint32_t n = 1u << 24;
    ScaleAdd sa(d, n);
    std::string trace;
    auto clock_of = [&](int launches, std::uint32_t items) {
        const auto [ms, clock] = sa.timed(launches, items);
        trace += std::to_string(ms) + " ms " + clock + "; ";
        return clock;
    };
    d.set_timing_mode(TimingMode::Gated);
    clock_of(40, n);  // a long region: outside a series the next would be untraced
    d.start_timing_series();
    const std::vector<std::string> short_series = {clock_of(2, 1u << 16), clock_of(40, n), clock_of(2, 1u << 16)};
    d.start_timing_series();
    const std::vector<std::string> long_series = {clock_of(40, n), clock_of(40, n), clock_of(2, 1u << 16),
                                                  clock_of(2, 1u << 16)};
    d.set_timing_mode(TimingMode::Plain);
    EXPECT_EQ(short_series, (std::vector<std::string>{"cupti", "cupti", "cupti"})) << trace;
    // long_series[0] is traced, but CUPTI's span is trusted only inside the events' bracket.
    EXPECT_EQ(std::vector<std::string>(long_series.begin() + 1, long_series.end()),
              (std::vector<std::string>{"events", "events", "cupti"}))
        << trace;
}

// A gated region of more launches than a segment takes (Device::kGatedSegmentCommands) is
// held, run and timed segment by segment, and time_ms sums them: 4 full segments and 10
// launches make 5, and the sum spans every launch (0.4 x launches x one launch: a sum that
// kept one segment would be a fifth at most). Each segment's gate is left out of CUPTI's
// span, so a traced series stays on CUPTI; a region that fills its last segment exactly
// leaves no empty segment (which CUPTI would find no work in).
TEST_F(CudaDeviceTest, GatedRegionsOfManyLaunchesAreTimedInSegments) {
    Device& d = *native;
    constexpr int kSegment = int(Device::kGatedSegmentCommands);
    const std::uint32_t items = 1u << 16;
    ScaleAdd sa(d, items);
    const bool traced = tb::cuda::KernelTracer::instance().available();
    const std::string want_clock = traced ? "cupti" : "events";
    d.set_timing_mode(TimingMode::Gated);
    d.start_timing_series();
    double one = 1e300;
    for (int i = 0; i < 3; ++i) one = std::min(one, sa.timed(1, items).first);
    EXPECT_EQ(d.last_region_segments(), 1u);
    const int many = 4 * kSegment + 10;
    const auto [ms, clock] = sa.timed(many, items);
    EXPECT_EQ(d.last_region_segments(), 5u);
    EXPECT_EQ(clock, want_clock);
    EXPECT_GT(ms, 0.4 * many * one) << many << " launches: " << ms << " ms, one launch " << one << " ms";
    const auto [exact_ms, exact_clock] = sa.timed(2 * kSegment, items);
    EXPECT_EQ(d.last_region_segments(), 2u);
    EXPECT_EQ(exact_clock, want_clock);
    EXPECT_GT(exact_ms, 0.4 * 2 * kSegment * one);
    d.set_timing_mode(TimingMode::Plain);
    EXPECT_GT(sa.timed(many, items).first, 0.0);
    EXPECT_EQ(d.last_region_segments(), 1u) << "plain regions are not held, so not cut";
}

TEST_F(CudaDeviceTest, AllocationLargerThanFreeMemoryIsAClearError) {
    const std::size_t too_much = native->info().global_mem_bytes + (std::size_t{1} << 30);
    try {
        native->alloc(too_much);
        FAIL() << "allocated more than the device has";
    } catch (const Error& e) {
        EXPECT_TRUE(std::regex_match(e.what(), std::regex("dataset needs [0-9]+ MiB but the device has [0-9]+ MiB free")))
            << e.what();
    }
}

TEST_F(CudaDeviceTest, MissingKernelAndMismatchedArgumentsAreClearErrors) {
    auto m = native->compile(Source{"inline/scale_add.cu", kScaleAdd, Dialect::Cuda}, {});
    try {
        m->kernel("nope");
        FAIL();
    } catch (const Error& e) {
        EXPECT_STREQ(e.what(), "kernel 'nope' not found in inline/scale_add.cu");
    }
    Buffer x = native->alloc(1024);
    const Kernel k = m->kernel("scale_add");
    EXPECT_THROW(native->launch(k, Dim3{1}, Dim3{32}, Args(x, x, 1.0f)), Error);  // one argument short

    auto cl = prelude->compile(Source{"inline/kernels.cl", kReverseCl, Dialect::OpenCL}, {});
    Buffer y = prelude->alloc(1024);
    const Kernel rk = cl->kernel("reverse_tiles");
    EXPECT_THROW(prelude->launch(rk, Dim3{1}, Dim3{32}, Args(y, y, LocalMem{128}, 8u)), Error);
    EXPECT_THROW(prelude->launch(rk, Dim3{1}, Dim3{32}, Args(y, y, 8u, 8u, LocalMem{128})), Error);
}

TEST_F(CudaDeviceTest, CompileErrorsNameTheFile) {
    try {
        native->compile(Source{"inline/bad.cu", "extern \"C\" __global__ void k() {\n  nope();\n}\n", Dialect::Cuda}, {});
        FAIL();
    } catch (const Error& e) {
        const std::string msg = e.what();
        EXPECT_EQ(msg.substr(0, msg.find('\n')), "inline/bad.cu: NVRTC compilation failed (1 error)");
        EXPECT_NE(msg.find("inline/bad.cu(2)"), std::string::npos) << msg;
    }
}

TEST_F(CudaDeviceTest, SecondCompileComesFromTheCache) {
    char tmpl[] = "/tmp/tribench-cuda-cache-XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    setenv("TRIBENCH_CACHE_DIR", tmpl, 1);
    unsetenv("TRIBENCH_NO_CACHE");
    auto cold = native->compile(Source{"inline/scale_add.cu", kScaleAdd, Dialect::Cuda}, {});
    auto warm = native->compile(Source{"inline/scale_add.cu", kScaleAdd, Dialect::Cuda}, {});
    std::filesystem::remove_all(tmpl);
    EXPECT_FALSE(cold->from_cache);
    EXPECT_TRUE(warm->from_cache);
    EXPECT_EQ(cold->ptx, warm->ptx);
    EXPECT_GT(warm->compile_ms, 0.0);
    warm->kernel("scale_add");
}

TEST_F(CudaDeviceTest, KernelResourcesAreReported) {
    auto m = native->compile(Source{"inline/scale_add.cu", kScaleAdd, Dialect::Cuda}, {});
    const auto r = tb::cuda::kernel_resources(m->kernel("scale_add"));
    EXPECT_GT(r.registers, 0);
    EXPECT_GE(r.max_threads_per_block, 256);
    EXPECT_EQ(r.static_shared_bytes, 0);
    EXPECT_GT(r.ptx_version, 0);
}

}  // namespace
