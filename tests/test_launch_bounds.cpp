// Launch bounds for kernels.cl (docs/prelude.md, "Launch bounds"): the opencl backend's
// reading of TB_LAUNCH_BOUNDS and its PTX edits (no device needed), then
// tests/data/launch_bounds.cl on every OpenCL and cuda-prelude device: the kernels compute
// the same, and where the PTX can carry bounds it carries the evaluated ones.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "backend.hpp"
#include "every_device.hpp"
#include "opencl/cl_launch_bounds.hpp"
#include "shared_opencl_device.hpp"
#include "test_data.hpp"

namespace {

using namespace tb;
using tb::cl::DeclaredBounds;
using tb::cl::EntryBounds;
using tb::test::check_every_device;
using tb::test::compile_error_with;
using tb::test::test_data_source;

std::string error_of(const std::string& source) {
    try {
        cl::declared_launch_bounds(source);
    } catch (const Error& e) {
        return e.what();
    }
    return "";
}

// ---- reading the source ---------------------------------------------------------------------

TEST(DeclaredLaunchBounds, FindsEachKernelAndItsArgumentsAsWritten) {
    const std::string src =
        "// TB_LAUNCH_BOUNDS(1, 1) in a comment\n"
        "#define TB_LAUNCH_BOUNDS_TOO(a) a\n"
        "#define TWICE(x) (2 * (x))\n"
        "__kernel TB_LAUNCH_BOUNDS(GROUP, TWICE(MIN))\nvoid first(__global int *x) { x[0] = 1; }\n"
        "__kernel __attribute__((reqd_work_group_size(256, 1, 1))) TB_LAUNCH_BOUNDS( 256 , 4 ) void\n"
        "    second(__global int *x) { const char *s = \"TB_LAUNCH_BOUNDS(9, 9) void no(\"; }\n"
        "__kernel void third(__global int *x) { }\n"
        "__kernel void TB_LAUNCH_BOUNDS(64, 2) __attribute__((unused)) fourth(void) { }\n";
    const auto b = cl::declared_launch_bounds(src);
    ASSERT_EQ(b.size(), 3u);
    EXPECT_EQ(b[0].kernel, "first");
    EXPECT_EQ(b[0].max_items, "GROUP");
    EXPECT_EQ(b[0].min_groups, "TWICE(MIN)");
    EXPECT_EQ(b[1].kernel, "second");
    EXPECT_EQ(b[1].max_items, "256");
    EXPECT_EQ(b[1].min_groups, "4");
    EXPECT_EQ(b[2].kernel, "fourth");
    EXPECT_TRUE(cl::declared_launch_bounds("__kernel void k(__global int *x) { }\n").empty());
}

TEST(DeclaredLaunchBounds, BadUsesAreOneErrorNamingTheLine) {
    EXPECT_EQ(error_of("\n__kernel TB_LAUNCH_BOUNDS(256) void k(void) { }\n"),
              "line 2: TB_LAUNCH_BOUNDS takes two arguments (max_items, min_groups_per_cu)");
    EXPECT_EQ(error_of("__kernel TB_LAUNCH_BOUNDS(256, ) void k(void) { }\n"),
              "line 1: TB_LAUNCH_BOUNDS takes two arguments (max_items, min_groups_per_cu)");
    EXPECT_EQ(error_of("__kernel TB_LAUNCH_BOUNDS(256, 2 void k(void) { }\n"),
              "line 1: TB_LAUNCH_BOUNDS without a closed argument list");
    EXPECT_EQ(error_of("__kernel TB_LAUNCH_BOUNDS void k(void) { }\n"),
              "line 1: TB_LAUNCH_BOUNDS without a closed argument list");
    EXPECT_EQ(error_of("int x;\n\n__kernel TB_LAUNCH_BOUNDS(256, 2);\n"), "line 3: TB_LAUNCH_BOUNDS is not followed by a kernel");
}

TEST(DeclaredLaunchBounds, ProbeKernelsEvaluateBothExpressions) {
    const std::string probes = cl::bounds_probe_source({DeclaredBounds{"k", "GROUP", "TWICE(MIN)"}});
    EXPECT_NE(probes.find("reqd_work_group_size((GROUP), 1, 1))) void " + cl::bounds_probe_name("k", "max") + "(void)"),
              std::string::npos) << probes;
    EXPECT_NE(probes.find("reqd_work_group_size((TWICE(MIN)), 1, 1))) void " + cl::bounds_probe_name("k", "min") + "(void)"),
              std::string::npos) << probes;
    EXPECT_EQ(cl::bounds_probe_name("k", "min").rfind(cl::kBoundsProbePrefix, 0), 0u);
}

// ---- editing the PTX --------------------------------------------------------------------------

// Entries as NVIDIA's OpenCL writes them: with and without .reqntid, one whose name another
// extends.
const std::string kPtx =
    ".version 9.0\n.target sm_90, texmode_independent\n.address_size 64\n\n"
    "\t// .globl\tfft_r8\n.entry fft_r8(\n\t.param .u64 .ptr .global .align 8 fft_r8_param_0\n)\n.reqntid 256, 1, 1\n"
    "{\n\t.reg .b32 \t%r<4>;\n\tmov.u32 \t%r1, %tid.x;\n\tret;\n}\n"
    "\t// .globl\tfft_r8x\n.entry fft_r8x(\n\t.param .u32 fft_r8x_param_0\n)\n{\n\tret;\n}\n"
    "\t// .globl\tstep\n.visible .entry step(\n\t.param .u32 step_param_0\n)\n{\n\tret;\n}\n";

TEST(LaunchBoundsPtx, DirectivesGoBeforeEachListedBody) {
    const std::string out = cl::add_launch_bounds_to_ptx(kPtx, {EntryBounds{"fft_r8x", 128, 3}, EntryBounds{"fft_r8", 256, 4},
                                                               EntryBounds{"step", 64, 2}});
    // .reqntid already bounds the threads: only the minimum is added.
    EXPECT_NE(out.find(".entry fft_r8(\n\t.param .u64 .ptr .global .align 8 fft_r8_param_0\n)\n.reqntid 256, 1, 1\n"
                       ".minnctapersm 4\n{\n"),
              std::string::npos) << out;
    EXPECT_NE(out.find(".entry fft_r8x(\n\t.param .u32 fft_r8x_param_0\n)\n.maxntid 128, 1, 1\n.minnctapersm 3\n{\n"),
              std::string::npos) << out;
    EXPECT_NE(out.find(".visible .entry step(\n\t.param .u32 step_param_0\n)\n.maxntid 64, 1, 1\n.minnctapersm 2\n{\n"),
              std::string::npos) << out;
    // Bounds already there stay as they are.
    EXPECT_EQ(cl::add_launch_bounds_to_ptx(out, {EntryBounds{"step", 32, 8}}), out);
}

TEST(LaunchBoundsPtx, AKernelMissingFromThePtxIsAnError) {
    try {
        cl::add_launch_bounds_to_ptx(kPtx, {EntryBounds{"fft_r", 256, 4}});
        FAIL() << "no error";
    } catch (const Error& e) {
        EXPECT_STREQ(e.what(), "launch bounds: kernel 'fft_r' is not an entry of the program's PTX");
    }
}

// NVIDIA's runtime under-reports CL_KERNEL_WORK_GROUP_SIZE for kernels built from PTX, so
// the backend reads an entry's own limit from the PTX (docs/opencl-backend.md).
TEST(LaunchBoundsPtx, EntryLimitIsTheProductOfItsThreadDirective) {
    const std::string out = cl::add_launch_bounds_to_ptx(kPtx, {EntryBounds{"fft_r8x", 1024, 1}, EntryBounds{"step", 64, 2}});
    EXPECT_EQ(cl::ptx_entry_max_items(out, "fft_r8x"), 1024u);
    EXPECT_EQ(cl::ptx_entry_max_items(out, "fft_r8"), 256u);  // .reqntid 256, 1, 1
    EXPECT_EQ(cl::ptx_entry_max_items(out, "step"), 64u);
    EXPECT_EQ(cl::ptx_entry_max_items(kPtx, "fft_r8x"), 0u) << "no directive: nothing to say";
    EXPECT_EQ(cl::ptx_entry_max_items(out, "fft_r"), 0u) << "not an entry (a prefix of one)";
    EXPECT_EQ(cl::ptx_entry_max_items(".entry k(\n)\n.maxntid 16, 8, 2\n{\n}\n", "k"), 256u);
    EXPECT_EQ(cl::ptx_entry_max_items(".entry k(\n)\n.reqntid 32, 4\n{\n}\n", "k"), 128u);
}

// ---- on every device ----------------------------------------------------------------------------

constexpr std::uint32_t kN = 1000, kGroup = 128;

Source kernel_source() { return test_data_source("launch_bounds.cl"); }

// The text of a PTX entry from its header to the body's '{'.
std::string entry_head(const std::string& ptx, const std::string& name) {
    const std::size_t at = ptx.find(".entry " + name + "(");
    if (at == std::string::npos) return "(no entry " + name + ")";
    return ptx.substr(at, ptx.find('{', at) - at);
}

// Bounds reach the PTX on cuda-prelude and on NVIDIA's OpenCL unless turned off.
bool expects_bounds(const Device& dev) {
    if (dev.info().backend != "opencl") return true;
    const char* mode = std::getenv("TRIBENCH_OPENCL_LAUNCH_BOUNDS");
    return dev.info().is_nvidia && !(mode && std::strcmp(mode, "none") == 0);
}

void check_device(Device& dev) {
    CompileOptions opt;
    opt.defines = {"LB_GROUP=" + std::to_string(kGroup)};
    auto mod = dev.compile(kernel_source(), opt);
    Buffer out = dev.alloc(kN * 4);
    const struct {
        const char* kernel;
        std::uint32_t (*want)(std::uint32_t);
    } cases[] = {{"bounded", [](std::uint32_t i) { return i * 3u + 1u; }},
                 {"fixed", [](std::uint32_t i) { return i ^ 0x5A5Au; }},
                 {"unbounded", [](std::uint32_t i) { return ~i; }}};
    for (const auto& c : cases) {
        dev.fill_u32(out, 0xDEADBEEFu);
        dev.launch(mod->kernel(c.kernel), Dim3{(kN + kGroup - 1) / kGroup, 1, 1}, Dim3{kGroup, 1, 1}, Args(kN, out));
        dev.synchronize();
        std::vector<std::uint32_t> got(kN);
        dev.download(got.data(), out, kN * 4);
        int wrong = 0;
        for (std::uint32_t i = 0; i < kN; ++i) wrong += got[i] != c.want(i);
        EXPECT_EQ(wrong, 0) << c.kernel;
    }
    if (mod->ptx.empty()) return;  // PoCL: no PTX, and the bounds mean nothing there
    EXPECT_EQ(mod->ptx.find("tb_launch_bounds_probe"), std::string::npos);
    const std::string bounded = entry_head(mod->ptx, "bounded"), fixed = entry_head(mod->ptx, "fixed");
    if (expects_bounds(dev)) {
        EXPECT_NE(bounded.find(".maxntid 128, 1, 1"), std::string::npos) << bounded;
        EXPECT_NE(bounded.find(".minnctapersm 3"), std::string::npos) << bounded;
        EXPECT_NE(fixed.find("ntid 128, 1, 1"), std::string::npos) << fixed;
        EXPECT_NE(fixed.find(".minnctapersm 2"), std::string::npos) << fixed;
    } else {
        EXPECT_EQ(mod->ptx.find(".minnctapersm"), std::string::npos) << bounded << fixed;
    }
    EXPECT_EQ(entry_head(mod->ptx, "unbounded").find(".minnctapersm"), std::string::npos);
}

TEST(LaunchBounds, OnEveryOpenClDeviceAndOnNvidiaAlsoWithout) {
    const std::string none = check_every_device("opencl", "TRIBENCH_OPENCL_LAUNCH_BOUNDS", "none", check_device);
    if (!none.empty()) GTEST_SKIP() << none;
}

TEST(LaunchBounds, OnEveryCudaPreludeDevice) {
    const std::string none = check_every_device("cuda-prelude", nullptr, nullptr, check_device);
    if (!none.empty()) GTEST_SKIP() << none;
}

// The mode follows the platform unless asked for; an unknown mode, or ptx where the platform
// takes no PTX, is one clear error at compile time.
TEST(LaunchBounds, ModeOverrideIsChecked) {
    Device* dev = shared_opencl_device().device.get();
    TB_SKIP_WITHOUT_SHARED_OPENCL_DEVICE();
    const auto error_with = [&](const char* mode) {
        return compile_error_with(*dev, "TRIBENCH_OPENCL_LAUNCH_BOUNDS", mode, kernel_source());
    };
    EXPECT_EQ(error_with("always"), "TRIBENCH_OPENCL_LAUNCH_BOUNDS is 'always'. expected 'ptx' or 'none'");
    if (!dev->info().is_nvidia)
        EXPECT_EQ(error_with("ptx"), "TRIBENCH_OPENCL_LAUNCH_BOUNDS=ptx: the device is not on NVIDIA's OpenCL platform");
    EXPECT_EQ(error_with("none"), "");
}

}  // namespace
