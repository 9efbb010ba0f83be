// Load hints for kernels.cl (docs/prelude.md, "Load hints"): tests/data/load_hints.cl runs
// on every OpenCL device in its own mode (and on NVIDIA's also plain) and on every
// cuda-prelude device; every element must arrive unchanged, bit for bit.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "backend.hpp"
#include "every_device.hpp"
#include "scoped_env.hpp"
#include "test_data.hpp"

namespace {

using namespace tb;
using tb::test::ScopedEnv;
using tb::test::check_every_device;
using tb::test::compile_error_with;
using tb::test::devices_of;
using tb::test::test_data_source;

constexpr std::uint32_t kN = 1000;  // not a multiple of 7: i * 7 % n is a permutation

Source kernel_source() { return test_data_source("load_hints.cl"); }

void check_device(Device& dev) {
    auto mod = dev.compile(kernel_source(), CompileOptions{});
    std::vector<std::uint32_t> u(kN);
    std::vector<std::int32_t> s(kN);
    std::vector<float> f(kN);
    for (std::uint32_t i = 0; i < kN; ++i) {
        u[i] = 0x9E3779B9u * (i + 1);            // all 32 bits in use
        s[i] = std::int32_t(i * 2654435761u);  // negative values too
        f[i] = float(i) * -0.375f + 1e-3f * float(i % 13);
    }
    Buffer bu = dev.alloc(kN * 4), bs = dev.alloc(kN * 4), bf = dev.alloc(kN * 4);
    Buffer ou = dev.alloc(kN * 4), os = dev.alloc(kN * 4), of = dev.alloc(kN * 4);
    dev.upload(bu, u.data(), kN * 4);
    dev.upload(bs, s.data(), kN * 4);
    dev.upload(bf, f.data(), kN * 4);
    for (const Buffer* b : {&ou, &os, &of}) dev.fill_u32(*b, 0xDEADBEEFu);
    dev.launch(mod->kernel("load_hints"), Dim3{(kN + 127) / 128, 1, 1}, Dim3{128, 1, 1}, Args(kN, bu, bs, bf, ou, os, of));
    dev.synchronize();
    std::vector<std::uint32_t> gu(kN), gs(kN), gf(kN);
    dev.download(gu.data(), ou, kN * 4);
    dev.download(gs.data(), os, kN * 4);
    dev.download(gf.data(), of, kN * 4);
    std::string first;
    int wrong = 0;
    for (std::uint32_t i = 0; i < kN; ++i) {
        const std::uint32_t j = i * 7 % kN;
        std::uint32_t fbits = 0;
        std::memcpy(&fbits, &f[j], 4);
        const bool ok = gu[i] == u[j] && gs[i] == std::uint32_t(s[j]) && gf[i] == fbits;
        if (!ok && wrong++ == 0)
            first = "element " + std::to_string(i) + ": got " + std::to_string(gu[i]) + "/" + std::to_string(gs[i]) + "/" +
                    std::to_string(gf[i]) + ", want " + std::to_string(u[j]) + "/" + std::to_string(std::uint32_t(s[j])) +
                    "/" + std::to_string(fbits);
    }
    EXPECT_EQ(wrong, 0) << "first wrong " << first;
}

// Plain loads are what devices other than NVIDIA's get anyway: NVIDIA's alone is checked
// with them as well.
TEST(LoadHints, OnEveryOpenClDeviceInItsOwnModeAndOnNvidiaAlsoPlain) {
    const std::string none = check_every_device("opencl", "TRIBENCH_OPENCL_LOAD_HINTS", "plain", check_device);
    if (!none.empty()) GTEST_SKIP() << none;
}

TEST(LoadHints, OnEveryCudaPreludeDevice) {
    const std::string none = check_every_device("cuda-prelude", nullptr, nullptr, check_device);
    if (!none.empty()) GTEST_SKIP() << none;
}

// The mode follows the platform unless asked for; an unknown mode, or ptx where the platform
// takes no PTX, is one clear error at compile time. A source without load hints ignores it.
TEST(LoadHints, ModeOverrideIsChecked) {
    auto backend = make_backend("opencl");
    std::string why;
    const auto infos = devices_of(*backend, why);
    if (infos.empty()) GTEST_SKIP() << "no OpenCL device: " << why;
    auto dev = backend->open(0);
    const auto error_with = [&](const char* mode) {
        return compile_error_with(*dev, "TRIBENCH_OPENCL_LOAD_HINTS", mode, kernel_source());
    };
    EXPECT_EQ(error_with("sometimes"), "TRIBENCH_OPENCL_LOAD_HINTS is 'sometimes'. expected 'ptx' or 'plain'");
    if (!infos[0].is_nvidia)
        EXPECT_EQ(error_with("ptx"), "TRIBENCH_OPENCL_LOAD_HINTS=ptx: the device is not on NVIDIA's OpenCL platform");
    ScopedEnv env("TRIBENCH_OPENCL_LOAD_HINTS", "sometimes");
    EXPECT_NO_THROW(dev->compile(Source{"plain.cl", "__kernel void k(__global int *x) { x[0] = 2; }\n", Dialect::OpenCL},
                                 CompileOptions{}));
}

}  // namespace
