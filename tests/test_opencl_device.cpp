// The opencl backend on whatever OpenCL device the machine has (PoCL's CPU device here and in
// CI). TRIBENCH_TEST_OPENCL_DEVICE=<index> picks another device than the first.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <regex>
#include <string>
#include <thread>
#include <vector>

#include <unistd.h>

#include "backend.hpp"
#include "dynlib.hpp"
#include "opencl/cl_api.hpp"
#include "opencl/cl_build.hpp"
#include "opencl/cl_events.hpp"
#include "opencl/opencl_device.hpp"
#include "scoped_env.hpp"

namespace {

using tb::Args;
using tb::Buffer;
using tb::CompileOptions;
using tb::Dim3;
using tb::LocalMem;
using tb::MathMode;
using tb::Source;

constexpr std::uint32_t kBlock = 64;

// Two kernels: a work-group reduction through two __local arrays, and a 2-D index map.
const char* const kSource = R"CL(
__kernel void group_reduce(__global const uint* a, __global const int* b, uint n,
                           __global uint* sums, __global int* maxs,
                           __local uint* lsum, __local int* lmax) {
    const uint lid = get_local_id(0);
    const uint gid = get_global_id(0);
    lsum[lid] = gid < n ? a[gid] : 0u;
    lmax[lid] = gid < n ? b[gid] : INT_MIN;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint s = get_local_size(0) / 2; s > 0; s /= 2) {
        if (lid < s) {
            lsum[lid] += lsum[lid + s];
            lmax[lid] = max(lmax[lid], lmax[lid + s]);
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lid == 0) {
        sums[get_group_id(0)] = lsum[0];
        maxs[get_group_id(0)] = lmax[0];
    }
}

__kernel void coords(__global uint* out, uint width) {
    const uint x = get_global_id(0), y = get_global_id(1);
    out[y * width + x] = x + 1000u * y;
}
)CL";

// Reports how it was built: whether -cl-fast-relaxed-math was applied, and the -D value.
const char* const kFlagsSource = R"CL(
__kernel void build_flags(__global int* out) {
#ifdef __FAST_RELAXED_MATH__
    out[0] = 1;
#else
    out[0] = 0;
#endif
    out[1] = VALUE;
}
)CL";

std::size_t test_device_index() {
    const char* s = std::getenv("TRIBENCH_TEST_OPENCL_DEVICE");
    return s ? std::size_t(std::strtoul(s, nullptr, 10)) : 0;
}

// The device list, or why there is none.
struct Listing {
    std::vector<tb::DeviceInfo> devices;
    std::string why_none;
};

const Listing& listing() {
    static const Listing l = [] {
        Listing out;
        try {
            out.devices = tb::make_backend("opencl")->devices();
        } catch (const tb::Error& e) {
            out.why_none = e.what();
        }
        if (out.devices.empty() && out.why_none.empty()) out.why_none = "no OpenCL device";
        return out;
    }();
    return l;
}

// CI installs PoCL, so a missing device there is a failure rather than a skip.
#define TB_REQUIRE_OPENCL_DEVICE()                                                          \
    do {                                                                                    \
        if (listing().devices.empty()) {                                                    \
            if (std::getenv("CI")) FAIL() << "CI must have an OpenCL device: " << listing().why_none; \
            GTEST_SKIP() << "no OpenCL device: " << listing().why_none;                     \
        }                                                                                   \
    } while (0)

class OpenClDevice : public ::testing::Test {
protected:
    static void SetUpTestSuite() {
        if (listing().devices.empty()) return;
        backend_ = tb::make_backend("opencl");
        dev_ = backend_->open(test_device_index());
        module_ = dev_->compile(Source{"tests/reduce.cl", kSource, tb::Dialect::OpenCL}, CompileOptions{});
    }
    static void TearDownTestSuite() {
        module_.reset();  // kernels and program before the context
        dev_.reset();
        backend_.reset();
    }
    void SetUp() override { TB_REQUIRE_OPENCL_DEVICE(); }

    static std::unique_ptr<tb::Backend> backend_;
    static std::unique_ptr<tb::Device> dev_;
    static std::unique_ptr<tb::Module> module_;
};
std::unique_ptr<tb::Backend> OpenClDevice::backend_;
std::unique_ptr<tb::Device> OpenClDevice::dev_;
std::unique_ptr<tb::Module> OpenClDevice::module_;

std::vector<unsigned char> random_bytes(std::size_t n, unsigned seed) {
    std::mt19937 rng(seed);
    std::vector<unsigned char> v(n);
    for (auto& b : v) b = static_cast<unsigned char>(rng());
    return v;
}

std::string error_of(const std::function<void()>& f) {
    try {
        f();
    } catch (const tb::Error& e) {
        return e.what();
    }
    return "(no tb::Error thrown)";
}

// ---- the API table and error names ----------------------------------------------------

TEST(OpenClApi, CheckNamesTheCallAndTheCode) {
    EXPECT_NO_THROW(tb::cl::check(CL_SUCCESS, "clFinish"));
    EXPECT_EQ(error_of([] { tb::cl::check(CL_BUILD_PROGRAM_FAILURE, "clBuildProgram"); }),
              "clBuildProgram failed: CL_BUILD_PROGRAM_FAILURE (-11)");
    EXPECT_EQ(error_of([] { tb::cl::check(-12345, "clFoo"); }), "clFoo failed: CL_UNKNOWN_ERROR (-12345)");
}

TEST(OpenClApi, EveryStandardCodeHasItsName) {
    EXPECT_STREQ(tb::cl::error_name(CL_SUCCESS), "CL_SUCCESS");
    EXPECT_STREQ(tb::cl::error_name(CL_DEVICE_NOT_FOUND), "CL_DEVICE_NOT_FOUND");
    EXPECT_STREQ(tb::cl::error_name(CL_INVALID_KERNEL_NAME), "CL_INVALID_KERNEL_NAME");
    EXPECT_STREQ(tb::cl::error_name(CL_MAX_SIZE_RESTRICTION_EXCEEDED), "CL_MAX_SIZE_RESTRICTION_EXCEEDED");
    EXPECT_STREQ(tb::cl::error_name(-1001), "CL_PLATFORM_NOT_FOUND_KHR");
    // No gaps in the two standard ranges.
    for (cl_int c = 0; c >= -19; --c) EXPECT_STRNE(tb::cl::error_name(c), "CL_UNKNOWN_ERROR") << c;
    for (cl_int c = -30; c >= -72; --c) EXPECT_STRNE(tb::cl::error_name(c), "CL_UNKNOWN_ERROR") << c;
    EXPECT_STREQ(tb::cl::error_name(-20), "CL_UNKNOWN_ERROR");
}

TEST(OpenClApi, BuildOptionsFollowTheMathMode) {
    CompileOptions o;
    EXPECT_EQ(tb::cl::build_options(o), "");
    o.math = MathMode::Precise;
    EXPECT_EQ(tb::cl::build_options(o), "-cl-fp32-correctly-rounded-divide-sqrt");
    o.math = MathMode::Fast;
    o.defines = {"N=4", "USE_X"};
    EXPECT_EQ(tb::cl::build_options(o), "-cl-fast-relaxed-math -DN=4 -DUSE_X");
    o.defines = {"N = 4"};
    EXPECT_NE(error_of([&] { tb::cl::build_options(o); }).find("invalid define 'N = 4'"), std::string::npos);
}

// The loader without any platform: ICD loaders read their vendor list from OCL_ICD_VENDORS.
// The threadsafe style re-runs this test in a fresh process, before libOpenCL is loaded.
TEST(OpenClApiDeathTest, NoPlatformIsOneClearLine) {
    GTEST_FLAG_SET(death_test_style, "threadsafe");
    EXPECT_EXIT(
        {
            char dir[] = "/tmp/tb-no-icd-XXXXXX";
            if (!mkdtemp(dir)) std::_Exit(2);
            setenv("OCL_ICD_VENDORS", dir, 1);
            unsetenv("OCL_ICD_FILENAMES");  // the Khronos loader adds these to the vendor list
            std::string msg = error_of([] { tb::make_backend("opencl")->devices(); });
            rmdir(dir);
            std::fprintf(stderr, "%s\n", msg.c_str());
            std::_Exit(3);
        },
        ::testing::ExitedWithCode(3), "^no OpenCL platform found\n$");
}

// ---- devices -----------------------------------------------------------------------------

TEST(OpenClBackend, ListsDevicesWithSaneInfo) {
    TB_REQUIRE_OPENCL_DEVICE();
    auto backend = tb::make_backend("opencl");
    EXPECT_EQ(backend->id(), "opencl");
    EXPECT_EQ(backend->dialect(), tb::Dialect::OpenCL);
    bool has_cpu = false;
    for (const auto& d : listing().devices) {
        SCOPED_TRACE(d.name);
        EXPECT_EQ(d.backend, "opencl");
        EXPECT_FALSE(d.name.empty());
        EXPECT_FALSE(d.vendor.empty());
        EXPECT_FALSE(d.platform.empty());
        EXPECT_FALSE(d.driver_version.empty());
        EXPECT_EQ(d.runtime_version.rfind("OpenCL ", 0), 0u) << d.runtime_version;
        EXPECT_EQ(d.compiler_version.rfind("OpenCL C ", 0), 0u) << d.compiler_version;
        EXPECT_GT(d.compute_units, 0);
        EXPECT_GT(d.max_alloc_bytes, 0u);
        EXPECT_GE(d.global_mem_bytes, d.max_alloc_bytes);
        EXPECT_GT(d.max_local_mem_bytes, 0u);
        EXPECT_GE(d.max_work_group_size, 1u);
        EXPECT_EQ(d.is_nvidia, d.vendor.find("NVIDIA") != std::string::npos);
        if (d.is_nvidia && d.is_gpu) {
            EXPECT_GE(d.cc_major, 3);
        }
        if (!d.is_nvidia) {
            EXPECT_EQ(d.cc_major, 0);
        }
        has_cpu = has_cpu || !d.is_gpu;
    }
    if (std::getenv("CI")) {
        EXPECT_TRUE(has_cpu) << "CI runs PoCL: a CPU device was expected";
    }
    // open(i) is the i-th listed device.
    const std::size_t last = listing().devices.size() - 1;
    EXPECT_EQ(backend->open(last)->info().name, listing().devices[last].name);
    EXPECT_NE(error_of([&] { backend->open(last + 1); }).find("no device"), std::string::npos);
}

// ---- memory ------------------------------------------------------------------------------

TEST_F(OpenClDevice, UploadDownloadWithOffsets) {
    const std::size_t n = 4099;  // not a multiple of anything convenient
    const auto data = random_bytes(n, 1);
    Buffer buf = dev_->alloc(n);
    ASSERT_EQ(buf.bytes(), n);
    dev_->upload(buf, data.data(), n);

    std::vector<unsigned char> expect = data;
    const auto patch = random_bytes(301, 2);
    dev_->upload(buf, patch.data(), patch.size(), 777);
    std::copy(patch.begin(), patch.end(), expect.begin() + 777);

    std::vector<unsigned char> part(500);
    dev_->download(part.data(), buf, part.size(), 700);
    EXPECT_TRUE(std::equal(part.begin(), part.end(), expect.begin() + 700));

    std::vector<unsigned char> all(n);
    dev_->download(all.data(), buf, n);
    EXPECT_EQ(all, expect);

    EXPECT_NE(error_of([&] { dev_->download(part.data(), buf, 500, n - 499); }).find("exceeds the buffer's 4099 bytes"),
              std::string::npos);
}

TEST_F(OpenClDevice, FillSetsEveryWholeWordAndCopyMovesBytes) {
    const std::size_t n = 1003;  // 250 whole words and 3 bytes the fill must leave alone
    const auto data = random_bytes(n, 3);
    Buffer a = dev_->alloc(n);
    dev_->upload(a, data.data(), n);
    dev_->fill_u32(a, 0xDEADBEEFu);
    std::vector<unsigned char> got(n);
    dev_->download(got.data(), a, n);
    for (std::size_t w = 0; w < 250; ++w) {
        std::uint32_t v;
        std::memcpy(&v, got.data() + 4 * w, 4);
        ASSERT_EQ(v, 0xDEADBEEFu) << "word " << w;
    }
    EXPECT_TRUE(std::equal(got.begin() + 1000, got.end(), data.begin() + 1000));

    Buffer b = dev_->alloc(n);
    dev_->upload(b, data.data(), n);
    dev_->copy(a, b, 600);
    dev_->download(got.data(), a, n);
    EXPECT_TRUE(std::equal(got.begin(), got.begin() + 600, data.begin()));
    std::uint32_t v;
    std::memcpy(&v, got.data() + 600, 4);
    EXPECT_EQ(v, 0xDEADBEEFu);  // beyond the copied range the fill stays
}

TEST_F(OpenClDevice, TooLargeAllocationIsRefusedClearly) {
    const auto& info = dev_->info();
    const std::string msg = error_of([&] { dev_->alloc(std::size_t(info.max_alloc_bytes) + 1); });
    EXPECT_EQ(msg.rfind("opencl: dataset needs ", 0), 0u) << msg;
    EXPECT_NE(msg.find("MiB in one buffer but the device allows"), std::string::npos) << msg;
    EXPECT_NE(msg.find("CL_DEVICE_MAX_MEM_ALLOC_SIZE"), std::string::npos) << msg;
    EXPECT_NE(error_of([&] { dev_->alloc(0); }).find("0-byte"), std::string::npos);
}

// ---- kernels -----------------------------------------------------------------------------

TEST_F(OpenClDevice, WorkGroupReductionWithTwoLocalArrays) {
    const std::uint32_t n = 5000;  // the last group is partial
    const std::uint32_t groups = (n + kBlock - 1) / kBlock;
    std::mt19937 rng(4);
    std::vector<std::uint32_t> a(n);
    std::vector<std::int32_t> b(n);
    for (auto& x : a) x = rng();
    for (auto& x : b) x = static_cast<std::int32_t>(rng());

    Buffer da = dev_->alloc(n * 4), db = dev_->alloc(n * 4);
    Buffer sums = dev_->alloc(groups * 4), maxs = dev_->alloc(groups * 4);
    dev_->upload(da, a.data(), n * 4);
    dev_->upload(db, b.data(), n * 4);
    dev_->fill_u32(sums, 0xFFFFFFFFu);
    dev_->fill_u32(maxs, 0xFFFFFFFFu);

    tb::Kernel k = module_->kernel("group_reduce");
    EXPECT_EQ(module_->kernel("group_reduce").handle, k.handle);  // cached
    Args args(da, db, n, sums, maxs, LocalMem{kBlock * 4}, LocalMem{kBlock * 4});
    dev_->launch(k, Dim3{groups}, Dim3{kBlock}, args);
    dev_->synchronize();

    std::vector<std::uint32_t> got_sums(groups);
    std::vector<std::int32_t> got_maxs(groups);
    dev_->download(got_sums.data(), sums, groups * 4);
    dev_->download(got_maxs.data(), maxs, groups * 4);
    for (std::uint32_t g = 0; g < groups; ++g) {
        std::uint32_t s = 0;  // unsigned sums wrap identically in any order
        std::int32_t m = INT_MIN;
        for (std::uint32_t i = g * kBlock; i < std::min(n, (g + 1) * kBlock); ++i) {
            s += a[i];
            m = std::max(m, b[i]);
        }
        ASSERT_EQ(got_sums[g], s) << "group " << g;
        ASSERT_EQ(got_maxs[g], m) << "group " << g;
    }
}

// Launches `coords` of `mod` over grid x block and expects every element to be
// x + row_factor * y (kSource's kernel says 1000).
static void expect_coords(tb::Device& dev, tb::Module& mod, Dim3 grid, Dim3 block, std::uint32_t row_factor) {
    const std::uint32_t w = grid.x * block.x, h = grid.y * block.y;
    Buffer out = dev.alloc(w * h * 4);
    dev.fill_u32(out, 0xFFFFFFFFu);
    dev.launch(mod.kernel("coords"), grid, block, Args(out, w));
    std::vector<std::uint32_t> got(w * h);
    dev.download(got.data(), out, got.size() * 4);
    for (std::uint32_t y = 0; y < h; ++y)
        for (std::uint32_t x = 0; x < w; ++x) ASSERT_EQ(got[y * w + x], x + row_factor * y) << x << "," << y;
}

TEST_F(OpenClDevice, TwoDimensionalLaunchCoversGridTimesBlock) {
    expect_coords(*dev_, *module_, Dim3{3, 5}, Dim3{8, 4}, 1000);
}

// TB_LAUNCH_BOUNDS compiles and runs on every OpenCL device (docs/prelude.md; what it puts in
// NVIDIA's PTX: test_launch_bounds).
TEST_F(OpenClDevice, LaunchBoundsCompileToNothing) {
    auto mod = dev_->compile(Source{"tests/bounds.cl",
                                    "__kernel __attribute__((reqd_work_group_size(64, 1, 1))) TB_LAUNCH_BOUNDS(64, 8)\n"
                                    "void bounded(__global uint *x) { x[get_global_id(0)] = 7u * (uint)get_global_id(0); }\n",
                                    tb::Dialect::OpenCL},
                             CompileOptions{});
    Buffer out = dev_->alloc(128 * 4);
    dev_->fill_u32(out, 0xFFFFFFFFu);
    dev_->launch(mod->kernel("bounded"), Dim3{2}, Dim3{64}, Args(out));
    std::vector<std::uint32_t> got(128);
    dev_->download(got.data(), out, got.size() * 4);
    for (std::uint32_t i = 0; i < 128; ++i) ASSERT_EQ(got[i], 7u * i) << i;
}

TEST_F(OpenClDevice, TimeMsMeasuresEnqueuedWork) {
    const std::uint32_t w = 256, h = 64;
    Buffer out = dev_->alloc(w * h * 4);
    tb::Kernel k = module_->kernel("coords");
    const double ms = dev_->time_ms([&] {
        for (int i = 0; i < 3; ++i) dev_->launch(k, Dim3{w / 16, h / 16}, Dim3{16, 16}, Args(out, w));
    });
    EXPECT_GT(ms, 0.0);
    EXPECT_LT(ms, 60'000.0);
    EXPECT_GT(dev_->time_ms([&] { dev_->fill_u32(out, 7u); }), 0.0);
    EXPECT_NE(error_of([&] { dev_->time_ms([] {}); }).find("enqueued nothing"), std::string::npos);
}

// Timed regions of `coords` launches over a side x side grid.
struct CoordsRegions {
    CoordsRegions(tb::Device& d, tb::Module& m, std::uint32_t side)
        : dev(d), kernel(m.kernel("coords")), side(side), out(d.alloc(std::size_t(side) * side * 4)) {}
    double region(int launches) {
        return dev.time_ms([&] {
            for (int i = 0; i < launches; ++i)
                dev.launch(kernel, Dim3{side / 16, side / 16}, Dim3{16, 16}, Args(out, side));
        });
    }
    // The fastest of three one-launch regions of a timing series of their own.
    double fastest_single() {
        dev.start_timing_series();
        double one = 1e300;
        for (int i = 0; i < 3; ++i) one = std::min(one, region(1));
        return one;
    }
    tb::Device& dev;
    tb::Kernel kernel;
    std::uint32_t side;
    Buffer out;
};

// The span of many launches must cover all of them: with `bracket` timing only the first
// command has an event and a marker closes the region, so a span that stopped at the first
// launch would be about 1/20 of the real one.
double min_span_ms(tb::Device& dev, tb::Module& mod, int launches) {
    CoordsRegions regions(dev, mod, 1024);
    double best = 1e300;
    for (int trial = 0; trial < 5; ++trial) best = std::min(best, regions.region(launches));
    return best;
}

TEST_F(OpenClDevice, TimeMsSpansEveryLaunchOfTheRegion) {
    const double one = min_span_ms(*dev_, *module_, 1), twenty = min_span_ms(*dev_, *module_, 20);
    EXPECT_GT(one, 0.0);
    EXPECT_GT(twenty, 5.0 * one) << "1 launch " << one << " ms, 20 launches " << twenty << " ms";
}

// Gated regions put events on the first command and the one the timing series' last region
// ended with (`ends`): every region of a series, the first (closed by a marker), those that
// end where expected, and one with fewer launches than the last, must span all its launches
// (a quarter of launches x one launch, as TimeMsSpansEveryLaunchOfTheRegion allows; a span
// that stopped at the first command would be one launch).
TEST_F(OpenClDevice, GatedTimingSeriesSpansEveryLaunch) {
    if (!dev_->supports_gated_timing()) GTEST_SKIP() << "this platform cannot gate (no user events)";
    CoordsRegions regions(*dev_, *module_, 1024);
    dev_->set_timing_mode(tb::TimingMode::Gated);
    const double one = regions.fastest_single();
    dev_->start_timing_series();
    for (int launches : {20, 20, 20, 12}) {
        const double ms = regions.region(launches);
        EXPECT_GT(ms, 0.25 * launches * one) << launches << " launches: " << ms << " ms, one launch " << one << " ms";
    }
    dev_->set_timing_mode(tb::TimingMode::Plain);
}

// A gated region of more commands than a held queue should take is held, run and timed in
// segments of Device::kGatedSegmentCommands, and time_ms sums them: 4 full segments and 10
// launches make 5, and the sum spans every launch (over twice the fastest one-segment
// region: a sum that kept one segment would be one at most). A region that fills its last
// segment exactly leaves no empty segment to time. Against one segment, not one launch: a
// one-launch region on PoCL carries a fixed cost that a launch inside a long region does not
// (under ASan on 2 busy cores 0.092 ms against 0.029 a launch of 1034, 2026-11-27).
TEST_F(OpenClDevice, GatedRegionsOfManyLaunchesAreTimedInSegments) {
    if (!dev_->supports_gated_timing()) GTEST_SKIP() << "this platform cannot gate (no user events)";
    constexpr int kSegment = int(tb::Device::kGatedSegmentCommands);
    CoordsRegions regions(*dev_, *module_, 256);
    dev_->set_timing_mode(tb::TimingMode::Gated);
    dev_->start_timing_series();
    double segment = 1e300;
    for (int i = 0; i < 3; ++i) {
        segment = std::min(segment, regions.region(kSegment));
        EXPECT_EQ(dev_->last_region_segments(), 1u);
    }
    dev_->start_timing_series();
    const int many = 4 * kSegment + 10;
    for (int trial = 0; trial < 2; ++trial) {  // the second ends where the first did (`ends`)
        const double ms = regions.region(many);
        EXPECT_EQ(dev_->last_region_segments(), 5u);
        EXPECT_GT(ms, 2.0 * segment) << many << " launches: " << ms << " ms, one segment " << segment << " ms";
    }
    EXPECT_GT(regions.region(2 * kSegment), 0.0);
    EXPECT_EQ(dev_->last_region_segments(), 2u);
    dev_->set_timing_mode(tb::TimingMode::Plain);
    EXPECT_GT(regions.region(many), 0.0);
    EXPECT_EQ(dev_->last_region_segments(), 1u) << "plain regions are not held, so not cut";
}

// Gated timing holds the queue while the region is enqueued: host time spent enqueuing (here
// a 300 ms pause after the launch) is not in the span. Plain timing's end marker is only
// enqueued after the pause, so its span includes it.
TEST_F(OpenClDevice, GatedTimingLeavesOutTheTimeSpentEnqueuing) {
    if (!dev_->supports_gated_timing()) GTEST_SKIP() << "this platform cannot gate (no user events)";
    const std::uint32_t w = 256, h = 64;
    Buffer out = dev_->alloc(w * h * 4);
    tb::Kernel k = module_->kernel("coords");
    auto region = [&] {
        dev_->launch(k, Dim3{w / 16, h / 16}, Dim3{16, 16}, Args(out, w));
        std::this_thread::sleep_for(std::chrono::milliseconds(300));
    };
    dev_->set_timing_mode(tb::TimingMode::Gated);
    const double gated = dev_->time_ms(region);
    dev_->set_timing_mode(tb::TimingMode::Plain);
    const double plain = dev_->time_ms(region);
    EXPECT_GT(gated, 0.0);
    EXPECT_LT(gated, 150.0) << "the span covered the host's pause: the queue was not held";
    EXPECT_GE(plain, 290.0) << "plain timing ends at a marker enqueued after the pause";
}

// A blocking call inside a gated region would wait forever for the held queue: the gate
// opens, the sample is void (GateTimeout), and the device stays usable.
TEST_F(OpenClDevice, BlockingCallInsideAGatedRegionVoidsTheSample) {
    if (!dev_->supports_gated_timing()) GTEST_SKIP() << "this platform cannot gate (no user events)";
    const std::uint32_t w = 256, h = 64;
    Buffer out = dev_->alloc(w * h * 4);
    tb::Kernel k = module_->kernel("coords");
    std::vector<std::uint32_t> got(w * h);
    dev_->set_timing_mode(tb::TimingMode::Gated);
    EXPECT_THROW(dev_->time_ms([&] {
        dev_->launch(k, Dim3{w / 16, h / 16}, Dim3{16, 16}, Args(out, w));
        dev_->download(got.data(), out, got.size() * 4);
    }),
                 tb::GateTimeout);
    EXPECT_EQ(got[w + 3], 3u + 1000u) << "the download after the opened gate saw the kernel's output";
    EXPECT_GT(dev_->time_ms([&] { dev_->launch(k, Dim3{w / 16, h / 16}, Dim3{16, 16}, Args(out, w)); }), 0.0);
    dev_->set_timing_mode(tb::TimingMode::Plain);
}

using tb::test::ScopedEnv;

TEST(OpenClTiming, ModeComesFromTheEnvironment) {
    using tb::cl::SpanMode;
    {
        ScopedEnv env("TRIBENCH_OPENCL_TIMING", nullptr);
        EXPECT_EQ(tb::cl::span_mode_from_environment(), SpanMode::bracket);
    }
    {
        ScopedEnv env("TRIBENCH_OPENCL_TIMING", "each");
        EXPECT_EQ(tb::cl::span_mode_from_environment(), SpanMode::each);
    }
    {
        ScopedEnv env("TRIBENCH_OPENCL_TIMING", "sometimes");
        EXPECT_EQ(error_of([] { tb::cl::span_mode_from_environment(); }),
                  "TRIBENCH_OPENCL_TIMING is 'sometimes'; expected 'bracket' or 'each'");
    }
}

// Which commands of a region get an event ('E') and whether a marker closes it ("+m").
TEST(OpenClTiming, EachBracketAndEndsPutEventsWhereTheySay) {
    using tb::cl::EventSpan;
    using tb::cl::SpanMode;
    const auto pattern = [](SpanMode mode, std::size_t expected, std::size_t commands) {
        EventSpan span(mode, expected);
        std::string p;
        for (std::size_t i = 0; i < commands; ++i) p += span.next_wants_event() ? 'E' : '.';
        EXPECT_EQ(span.commands(), commands);
        return p + (span.needs_end_marker() ? "+m" : "");
    };
    EXPECT_EQ(pattern(SpanMode::each, 0, 3), "EEE");
    EXPECT_EQ(pattern(SpanMode::bracket, 0, 1), "E+m");
    EXPECT_EQ(pattern(SpanMode::bracket, 3, 3), "E..+m");
    EXPECT_EQ(pattern(SpanMode::ends, 0, 1), "E");      // one command: its own event ends the span
    EXPECT_EQ(pattern(SpanMode::ends, 1, 1), "E");
    EXPECT_EQ(pattern(SpanMode::ends, 0, 3), "E..+m");  // the series' first region: a marker
    EXPECT_EQ(pattern(SpanMode::ends, 3, 3), "E.E");    // first and last, nothing between
    EXPECT_EQ(pattern(SpanMode::ends, 3, 4), "E.E.+m");  // more commands than the last region
    EXPECT_EQ(pattern(SpanMode::ends, 3, 2), "E.+m");    // fewer
    EXPECT_EQ(pattern(SpanMode::ends, 2, 0), "");
}

TEST(OpenClTiming, EventPerCommandModeAgreesWithBracket) {
    TB_REQUIRE_OPENCL_DEVICE();
    ScopedEnv env("TRIBENCH_OPENCL_TIMING", "each");
    auto backend = tb::make_backend("opencl");
    auto dev = backend->open(test_device_index());
    auto mod = dev->compile(Source{"tests/reduce.cl", kSource, tb::Dialect::OpenCL}, CompileOptions{});
    const double one = min_span_ms(*dev, *mod, 1), twenty = min_span_ms(*dev, *mod, 20);
    EXPECT_GT(one, 0.0);
    EXPECT_GT(twenty, 5.0 * one) << "1 launch " << one << " ms, 20 launches " << twenty << " ms";
    mod.reset();
}

TEST_F(OpenClDevice, ArgumentMistakesAreNamed) {
    tb::Kernel k = module_->kernel("coords");
    Buffer out = dev_->alloc(64);
    EXPECT_EQ(error_of([&] { dev_->launch(k, Dim3{1}, Dim3{1}, Args(out)); }),
              "opencl: kernel 'coords' takes 2 arguments, 1 given");
    const std::string msg = error_of([&] { module_->kernel("no_such_kernel"); });
    EXPECT_EQ(msg, "opencl: kernel 'no_such_kernel' not found in tests/reduce.cl");
}

TEST_F(OpenClDevice, ProgramBinaryIsPtxOnNvidiaOnly) {
    if (dev_->info().is_nvidia) {
        EXPECT_NE(module_->ptx.find(".entry group_reduce"), std::string::npos);
    } else {
        EXPECT_TRUE(module_->ptx.empty());
    }
    EXPECT_GT(module_->compile_ms, 0.0);
}

// PTX given with the source (TRIBENCH_KERNEL_DIR's kernels.cl.opencl.ptx, docs/ptx-tools.md)
// is what NVIDIA's platform builds and runs, instead of compiling the source; another
// platform refuses it with one line naming the file.
TEST_F(OpenClDevice, GivenPtxIsBuiltInsteadOfTheSourceOnNvidiaOnly) {
    Source src{"tests/reduce.cl", kSource, tb::Dialect::OpenCL};
    src.opencl_ptx_file = "given/kernels.cl.opencl.ptx";
    if (!dev_->info().is_nvidia) {
        src.opencl_ptx = ".version 8.0\n.target sm_90\n.address_size 64\n.entry coords()\n{\n\tret;\n}\n";
        EXPECT_EQ(error_of([&] { dev_->compile(src, CompileOptions{}); }),
                  "given/kernels.cl.opencl.ptx: PTX for NVIDIA's OpenCL, and " + dev_->info().name +
                      " is on another platform (remove the file to compile tests/reduce.cl)");
        return;
    }
    // The platform's own PTX of the source with coords' row factor 1000 made 2000: if the
    // given text is what runs, the rows come out twice as far apart.
    std::string ptx = module_->ptx;
    const std::size_t entry = ptx.find(".entry coords");
    ASSERT_NE(entry, std::string::npos) << ptx;
    std::smatch m;  // the immediate operand 1000 (mul.lo or mad.lo), the first after the entry
    const std::string body = ptx.substr(entry);
    ASSERT_TRUE(std::regex_search(body, m, std::regex(R"(([ ,])1000([,;]))"))) << "no 1000 in coords' PTX:\n" << body;
    ptx.replace(entry + std::size_t(m.position(0)), std::size_t(m.length(0)), m[1].str() + "2000" + m[2].str());
    src.opencl_ptx = ptx;
    auto given = dev_->compile(src, CompileOptions{});
    EXPECT_EQ(given->ptx, ptx);
    EXPECT_NE(given->log.find("PTX read from given/kernels.cl.opencl.ptx"), std::string::npos) << given->log;
    expect_coords(*dev_, *given, Dim3{2, 3}, Dim3{4, 2}, 2000);
}

// ---- build options and build errors ----------------------------------------------------

TEST_F(OpenClDevice, MathModeAndDefinesReachTheCompiler) {
    Buffer out = dev_->alloc(8);
    auto flags = [&](MathMode m, const std::string& value) {
        CompileOptions opt;
        opt.math = m;
        opt.defines = {"VALUE=" + value};
        auto mod = dev_->compile(Source{"tests/flags.cl", kFlagsSource, tb::Dialect::OpenCL}, opt);
        dev_->fill_u32(out, 0xFFFFFFFFu);
        dev_->launch(mod->kernel("build_flags"), Dim3{1}, Dim3{1}, Args(out));
        std::vector<std::int32_t> got(2);
        dev_->download(got.data(), out, 8);
        return got;
    };
    EXPECT_EQ(flags(MathMode::Fast, "41"), (std::vector<std::int32_t>{1, 41}));
    EXPECT_EQ(flags(MathMode::Default, "-7"), (std::vector<std::int32_t>{0, -7}));
}

TEST_F(OpenClDevice, BuildErrorNamesFileDeviceAndLine) {
    const char* broken =
        "__kernel void broken(__global int* out) {\n"
        "    int x = 1;\n"
        "    out[0] = x;\n"
        "    out[1] = undefined_name;\n"
        "}\n";
    const std::string msg =
        error_of([&] { dev_->compile(Source{"tests/broken.cl", broken, tb::Dialect::OpenCL}, CompileOptions{}); });
    const std::string first_line = msg.substr(0, msg.find('\n'));
    EXPECT_EQ(first_line, "tests/broken.cl: OpenCL build failed on " + dev_->info().name);
    EXPECT_NE(msg.find("undefined_name"), std::string::npos) << msg;
    EXPECT_NE(msg.find("broken.cl:4:"), std::string::npos) << msg;  // the file's own line number
}


// ---- every OpenCL object released (soak tests, docs/robustness.md) --------------------

// The reference counts OpenCL offers for finding leaks. On PoCL a command's event holds its
// queue, and buffers, programs (which their kernels hold) and user events hold the context;
// a platform that counts fewer internal references only makes this check weaker.
struct ClRefCounts {
    tb::DynLib lib = tb::DynLib::open({"libOpenCL.so.1", "libOpenCL.so"});
    decltype(&::clRetainContext) retain_context = fn<decltype(&::clRetainContext)>("clRetainContext");
    decltype(&::clRetainCommandQueue) retain_queue = fn<decltype(&::clRetainCommandQueue)>("clRetainCommandQueue");
    decltype(&::clGetContextInfo) context_info = fn<decltype(&::clGetContextInfo)>("clGetContextInfo");
    decltype(&::clGetCommandQueueInfo) queue_info = fn<decltype(&::clGetCommandQueueInfo)>("clGetCommandQueueInfo");

    template <class F>
    F fn(const char* name) {
        return reinterpret_cast<F>(lib.require(name));
    }
    cl_uint of(cl_context c) const {
        cl_uint n = 0;
        tb::cl::check(context_info(c, CL_CONTEXT_REFERENCE_COUNT, sizeof n, &n, nullptr), "clGetContextInfo");
        return n;
    }
    cl_uint of(cl_command_queue q) const {
        cl_uint n = 0;
        tb::cl::check(queue_info(q, CL_QUEUE_REFERENCE_COUNT, sizeof n, &n, nullptr), "clGetCommandQueueInfo");
        return n;
    }
};

// What a benchmark round does to a device, the ways it can fail included: copies, kernels,
// plain and gated timed regions, regions that throw, a blocking call in a gated region, a
// failed build, an unknown kernel.
void exercise(tb::Device& dev) {
    const std::uint32_t w = 64, h = 16;
    std::vector<std::uint32_t> host(w * h, 5u);
    Buffer a = dev.alloc(w * h * 4), b = dev.alloc(w * h * 4);
    dev.upload(a, host.data(), host.size() * 4);
    dev.copy(b, a, host.size() * 4);
    dev.fill_u32(a, 3u);
    dev.download(host.data(), b, host.size() * 4);
    auto mod = dev.compile(Source{"tests/reduce.cl", kSource, tb::Dialect::OpenCL}, CompileOptions{});
    const tb::Kernel k = mod->kernel("coords");
    mod->kernel("group_reduce");
    const auto launch = [&] { dev.launch(k, Dim3{w / 16, h / 16}, Dim3{16, 16}, Args(a, w)); };
    launch();
    for (const auto mode : {tb::TimingMode::Plain, tb::TimingMode::Gated}) {
        dev.set_timing_mode(mode);
        EXPECT_GT(dev.time_ms([&] {
            launch();
            dev.fill_u32(b, 1u);
            dev.copy(b, a, 64);
            launch();
        }), 0.0);
        if (mode == tb::TimingMode::Plain)  // a blocking copy: a region of its own
            EXPECT_GT(dev.time_ms([&] { dev.upload(a, host.data(), 64); }), 0.0);
        EXPECT_THROW(dev.time_ms([&] {
            launch();
            launch();
            throw tb::Error("the region's work failed");
        }),
                     tb::Error);
        EXPECT_THROW(dev.time_ms([] {}), tb::Error);
    }
    if (dev.supports_gated_timing())  // gated still: the gate opens early, the sample is void
        EXPECT_THROW(dev.time_ms([&] {
            launch();
            dev.download(host.data(), a, 64);
        }),
                     tb::GateTimeout);
    dev.set_timing_mode(tb::TimingMode::Plain);
    EXPECT_THROW(mod->kernel("no_such_kernel"), tb::Error);
    EXPECT_THROW(dev.compile(Source{"tests/broken.cl", "__kernel void broken() { undefined_name; }", tb::Dialect::OpenCL},
                             CompileOptions{}),
                 tb::Error);
    dev.synchronize();
}

TEST(OpenClHandles, ADeviceReleasesEveryObjectItMade) {
    TB_REQUIRE_OPENCL_DEVICE();
    ClRefCounts refs;
    for (const char* span_mode : {"bracket", "each"}) {
        SCOPED_TRACE(std::string("TRIBENCH_OPENCL_TIMING=") + span_mode);
        ScopedEnv env("TRIBENCH_OPENCL_TIMING", span_mode);
        auto dev = tb::make_backend("opencl")->open(test_device_index());
        // Held past the device, so that whatever still refers to them can be counted.
        auto queue = static_cast<cl_command_queue>(dev->native_queue());
        cl_context ctx = nullptr;
        tb::cl::check(refs.queue_info(queue, CL_QUEUE_CONTEXT, sizeof ctx, &ctx, nullptr), "clGetCommandQueueInfo");
        tb::cl::check(refs.retain_queue(queue), "clRetainCommandQueue");
        tb::cl::check(refs.retain_context(ctx), "clRetainContext");
        exercise(*dev);
        dev.reset();
        EXPECT_EQ(refs.of(queue), 1u) << "an event or another object still holds the device's queue";
        tb::cl::check(tb::cl::api().ReleaseCommandQueue(queue), "clReleaseCommandQueue");
        EXPECT_EQ(refs.of(ctx), 1u) << "a buffer, program, kernel, queue or user event of the device was not released";
        tb::cl::check(tb::cl::api().ReleaseContext(ctx), "clReleaseContext");
    }
}

}  // namespace
