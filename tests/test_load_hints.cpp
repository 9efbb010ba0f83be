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
#include "shared_opencl_device.hpp"
#include "test_data.hpp"

namespace {

using namespace tb;
using tb::test::ScopedEnv;
using tb::test::check_every_device;
using tb::test::compile_error_with;
using tb::test::test_data_source;

constexpr std::uint32_t kN = 1000;  // not a multiple of 7: i * 7 % n is a permutation

Source kernel_source() { return test_data_source("load_hints.cl"); }

// Downloads `count` 32-bit words of `b`.
std::vector<std::uint32_t> words_of(Device& dev, const Buffer& b, std::size_t count) {
    std::vector<std::uint32_t> w(count);
    dev.download(w.data(), b, count * 4);
    return w;
}

// Element i of `got` (vectors of `width` words) must be element (i * 7) % count of `want`:
// returns how many are not, and the first of them in `first`.
int wrong_copies(const std::vector<std::uint32_t>& got, const std::vector<std::uint32_t>& want, std::uint32_t width,
                 const char* what, std::string& first) {
    const std::uint32_t count = std::uint32_t(want.size()) / width;
    int wrong = 0;
    for (std::uint32_t i = 0; i < count; ++i) {
        const std::uint32_t j = i * 7 % count;
        for (std::uint32_t w = 0; w < width; ++w)
            if (got[i * width + w] != want[j * width + w] && wrong++ == 0)
                first = std::string(what) + " element " + std::to_string(i) + " word " + std::to_string(w) + ": got " +
                        std::to_string(got[i * width + w]) + ", want " + std::to_string(want[j * width + w]);
    }
    return wrong;
}

void check_device(Device& dev) {
    auto mod = dev.compile(kernel_source(), CompileOptions{});
    std::vector<std::uint32_t> u(kN), s(kN), f(kN);
    for (std::uint32_t i = 0; i < kN; ++i) {
        u[i] = 0x9E3779B9u * (i + 1);  // all 32 bits in use
        s[i] = i * 2654435761u;        // negative as int too
        const float x = float(i) * -0.375f + 1e-3f * float(i % 13);
        std::memcpy(&f[i], &x, 4);
    }
    Buffer bu = dev.alloc(kN * 4), bs = dev.alloc(kN * 4), bf = dev.alloc(kN * 4);
    dev.upload(bu, u.data(), kN * 4);
    dev.upload(bs, s.data(), kN * 4);
    dev.upload(bf, f.data(), kN * 4);
    const Dim3 grid{(kN + 127) / 128, 1, 1}, group{128, 1, 1};
    for (const char* kernel : {"load_hints", "load_readonly"}) {
        SCOPED_TRACE(kernel);
        const bool readonly = std::string(kernel) == "load_readonly";
        Buffer ou = dev.alloc(kN * 4), os = dev.alloc(kN * 4), of = dev.alloc(kN * 4);
        Buffer of2 = dev.alloc(kN * 4), of4 = dev.alloc(kN * 4), os4 = dev.alloc(kN * 4);
        for (const Buffer* b : {&ou, &os, &of, &of2, &of4, &os4}) dev.fill_u32(*b, 0xDEADBEEFu);
        if (readonly)
            dev.launch(mod->kernel(kernel), grid, group, Args(kN, bu, bs, bf, ou, os, of, of2, of4, os4));
        else
            dev.launch(mod->kernel(kernel), grid, group, Args(kN, bu, bs, bf, ou, os, of));
        dev.synchronize();
        std::string first;
        int wrong = wrong_copies(words_of(dev, ou, kN), u, 1, "uint", first) +
                    wrong_copies(words_of(dev, os, kN), s, 1, "int", first) +
                    wrong_copies(words_of(dev, of, kN), f, 1, "float", first);
        if (readonly)
            wrong += wrong_copies(words_of(dev, of2, kN), f, 2, "float2", first) +
                     wrong_copies(words_of(dev, of4, kN), f, 4, "float4", first) +
                     wrong_copies(words_of(dev, os4, kN), s, 4, "int4", first);
        EXPECT_EQ(wrong, 0) << "first wrong: " << first;
    }
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
    Device* dev = shared_opencl_device().device.get();
    TB_SKIP_WITHOUT_SHARED_OPENCL_DEVICE();
    const auto error_with = [&](const char* mode) {
        return compile_error_with(*dev, "TRIBENCH_OPENCL_LOAD_HINTS", mode, kernel_source());
    };
    EXPECT_EQ(error_with("sometimes"), "TRIBENCH_OPENCL_LOAD_HINTS is 'sometimes'. expected 'ptx' or 'plain'");
    if (!dev->info().is_nvidia)
        EXPECT_EQ(error_with("ptx"), "TRIBENCH_OPENCL_LOAD_HINTS=ptx: the device is not on NVIDIA's OpenCL platform");
    ScopedEnv env("TRIBENCH_OPENCL_LOAD_HINTS", "sometimes");
    EXPECT_NO_THROW(dev->compile(Source{"plain.cl", "__kernel void k(__global int *x) { x[0] = 2; }\n", Dialect::OpenCL},
                                 CompileOptions{}));
}

}  // namespace
