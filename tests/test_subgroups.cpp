// Sub-group built-ins for kernels.cl (docs/prelude.md, "Sub-groups"): tests/data/subgroups.cl
// runs on every OpenCL device, in its default sub-group mode and emulated, and on every
// cuda-prelude device, and each result is compared with a CPU model of sub-groups of 32
// consecutive work-items. Results OpenCL leaves undefined (a shuffle from a lane outside the
// sub-group) are not compared. Inputs are small integers, so sums are exact in any order.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <sstream>
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

constexpr int kOps = 14, kIds = 8;  // NOPS, NIDS of subgroups.cl

Source kernel_source() { return tb::test::test_data_source("subgroups.cl"); }

struct Launch {
    Dim3 grid, block;
    std::uint32_t shift;
    std::uint32_t items() const { return block.x * block.y * block.z; }
    std::uint32_t total() const { return std::uint32_t(grid.count()) * items(); }
};

// Each group shape is a separate kernel compile on PoCL (~10 s cold), so few of them.
const Launch kLaunches[] = {
    {{3, 1, 1}, {128, 1, 1}, 1},  // whole sub-groups
    {{2, 2, 1}, {8, 5, 2}, 16},   // 3-D groups of 80 in linear order (x fastest): 32 + 32 + a partial 16
    {{2, 1, 1}, {20, 1, 1}, 3},   // one partial sub-group per group
};

// The members of work-item w's sub-group: [base, base + size), w at base + lane.
struct SubGroup {
    std::uint32_t base, size, lane, id;
};
SubGroup sub_group_of(const Launch& l, std::uint32_t w) {
    const std::uint32_t items = l.items(), local = w % items, group = w / items;
    SubGroup s;
    s.id = local / 32;
    s.lane = local % 32;
    s.base = group * items + s.id * 32;
    s.size = std::min<std::uint32_t>(32, items - s.id * 32);
    return s;
}

template <class T>
T identity_min() { return std::numeric_limits<T>::has_infinity ? std::numeric_limits<T>::infinity() : std::numeric_limits<T>::max(); }
template <class T>
T identity_max() { return std::numeric_limits<T>::has_infinity ? -std::numeric_limits<T>::infinity() : std::numeric_limits<T>::lowest(); }

// Expected value of op for work-item w; false when OpenCL leaves it undefined.
template <class T>
bool expected(const Launch& l, const std::vector<T>& x, std::uint32_t w, int op, T& out) {
    const SubGroup s = sub_group_of(l, w);
    const auto at = [&](std::uint32_t lane) { return x[s.base + lane]; };
    const auto fold = [&](std::uint32_t from, std::uint32_t to, T init, int kind) {
        T r = init;
        for (std::uint32_t i = from; i < to; ++i)
            r = kind == 0 ? T(r + at(i)) : kind == 1 ? std::min(r, at(i)) : std::max(r, at(i));
        return r;
    };
    switch (op) {
        case 0: out = at(s.size - 1); return true;
        case 1: out = at((s.lane * 7 + 3) % s.size); return true;
        case 2: if ((s.lane ^ l.shift) >= s.size) return false; out = at(s.lane ^ l.shift); return true;
        case 3: if (s.lane < l.shift) return false; out = at(s.lane - l.shift); return true;
        case 4: if (s.lane + l.shift >= s.size) return false; out = at(s.lane + l.shift); return true;
        case 5: out = fold(1, s.size, at(0), 0); return true;
        case 6: out = fold(1, s.size, at(0), 1); return true;
        case 7: out = fold(1, s.size, at(0), 2); return true;
        case 8: out = fold(1, s.lane + 1, at(0), 0); return true;
        case 9: out = fold(1, s.lane + 1, at(0), 1); return true;
        case 10: out = fold(1, s.lane + 1, at(0), 2); return true;
        case 11: out = fold(0, s.lane, T(0), 0); return true;
        case 12: out = fold(0, s.lane, identity_min<T>(), 1); return true;
        case 13: out = fold(0, s.lane, identity_max<T>(), 2); return true;
    }
    return false;
}

const char* const kOpNames[kOps] = {"broadcast",     "shuffle",       "shuffle_xor",   "shuffle_up",    "shuffle_down",
                                    "reduce_add",    "reduce_min",    "reduce_max",    "scan_inc_add",  "scan_inc_min",
                                    "scan_inc_max",  "scan_exc_add",  "scan_exc_min",  "scan_exc_max"};

template <class T>
void compare_ops(const Launch& l, const std::vector<T>& x, const std::vector<T>& got, const char* type,
                 std::vector<std::string>& errors) {
    for (std::uint32_t w = 0; w < l.total(); ++w)
        for (int op = 0; op < kOps; ++op) {
            T want;
            if (!expected(l, x, w, op, want)) continue;
            const T g = got[std::size_t(w) * kOps + op];
            if (!(g == want) && errors.size() < 8) {
                std::ostringstream m;
                m << type << " " << kOpNames[op] << " at work-item " << w << ": got " << g << ", want " << want;
                errors.push_back(m.str());
            }
        }
}

// One launch of subgroups.cl on dev, checked against the model.
void check_launch(Device& dev, Module& mod, const Launch& l, std::uint64_t seed) {
    const std::uint32_t n = l.total();
    std::mt19937 rng{std::uint32_t(seed)};
    std::vector<float> fin(n);
    std::vector<std::int32_t> iin(n);
    std::vector<std::uint32_t> uin(n);
    for (std::uint32_t w = 0; w < n; ++w) {
        const SubGroup s = sub_group_of(l, w);
        fin[w] = float(int(rng() % 201) - 100);
        // Sub-group 0 of every group: all positive, none above 900 (sub_group_all true, _any false).
        iin[w] = s.id == 0 ? 1 + int(rng() % 800) : int(rng() % 2001) - 1000;
        uin[w] = rng() % 100001;
    }
    Buffer bf = dev.alloc(n * 4), bi = dev.alloc(n * 4), bu = dev.alloc(n * 4);
    Buffer of = dev.alloc(std::size_t(n) * kOps * 4), oi = dev.alloc(std::size_t(n) * kOps * 4),
           ou = dev.alloc(std::size_t(n) * kOps * 4), ids = dev.alloc(std::size_t(n) * kIds * 4);
    dev.upload(bf, fin.data(), n * 4);
    dev.upload(bi, iin.data(), n * 4);
    dev.upload(bu, uin.data(), n * 4);
    for (const Buffer* b : {&of, &oi, &ou, &ids}) dev.fill_u32(*b, 0xDEADBEEFu);
    dev.launch(mod.kernel("sub_group_ops"), l.grid, l.block, Args(bf, bi, bu, of, oi, ou, ids, l.shift));
    dev.synchronize();
    std::vector<float> gf(std::size_t(n) * kOps);
    std::vector<std::int32_t> gi(gf.size());
    std::vector<std::uint32_t> gu(gf.size()), gid(std::size_t(n) * kIds);
    dev.download(gf.data(), of, gf.size() * 4);
    dev.download(gi.data(), oi, gi.size() * 4);
    dev.download(gu.data(), ou, gu.size() * 4);
    dev.download(gid.data(), ids, gid.size() * 4);

    std::vector<std::string> errors;
    compare_ops(l, fin, gf, "float", errors);
    compare_ops(l, iin, gi, "int", errors);
    compare_ops(l, uin, gu, "uint", errors);
    const std::uint32_t items = l.items();
    for (std::uint32_t w = 0; w < n && errors.size() < 8; ++w) {
        const SubGroup s = sub_group_of(l, w);
        bool all = true, any = false;
        for (std::uint32_t i = 0; i < s.size; ++i) {
            all = all && iin[s.base + i] > 0;
            any = any || iin[s.base + i] > 900;
        }
        const std::uint32_t want[kIds] = {s.size, std::min<std::uint32_t>(items, 32), (items + 31) / 32, s.id, s.lane,
                                          all, any, std::uint32_t(iin[s.base + (s.lane + 1) % s.size])};
        const char* names[kIds] = {"get_sub_group_size", "get_max_sub_group_size", "get_num_sub_groups",
                                   "get_sub_group_id",   "get_sub_group_local_id", "sub_group_all",
                                   "sub_group_any",      "sub_group_barrier exchange"};
        for (int k = 0; k < kIds; ++k)
            if (gid[std::size_t(w) * kIds + k] != want[k])
                errors.push_back(std::string(names[k]) + " at work-item " + std::to_string(w) + ": got " +
                                 std::to_string(gid[std::size_t(w) * kIds + k]) + ", want " + std::to_string(want[k]));
    }
    std::string all_errors;
    for (const auto& e : errors) all_errors += "\n  " + e;
    EXPECT_TRUE(errors.empty()) << "group " << l.block.x << "x" << l.block.y << "x" << l.block.z << ", " << l.grid.count()
                                << " groups, shift " << l.shift << ":" << all_errors;
}

void check_device(Device& dev) {
    auto mod = dev.compile(kernel_source(), CompileOptions{});
    std::uint64_t seed = 1;
    for (const Launch& l : kLaunches) check_launch(dev, *mod, l, seed++);
}

// Devices other than NVIDIA's emulate sub-groups anyway (unless they have the extensions,
// which PoCL has not): NVIDIA's alone is checked emulated as well.
TEST(SubGroups, OnEveryOpenClDeviceInItsOwnModeAndOnNvidiaAlsoEmulated) {
    const std::string none = check_every_device("opencl", "TRIBENCH_OPENCL_SUBGROUPS", "emulated", check_device);
    if (!none.empty()) GTEST_SKIP() << none;
}

TEST(SubGroups, OnEveryCudaPreludeDevice) {
    const std::string none = check_every_device("cuda-prelude", nullptr, nullptr, check_device);
    if (!none.empty()) GTEST_SKIP() << none;
}

// The mode is chosen from the device's extensions unless asked for; a mode the device cannot
// run, or an unknown one, is one clear error at compile time.
TEST(SubGroups, ModeOverrideIsChecked) {
    Device* dev = shared_opencl_device().device.get();
    TB_SKIP_WITHOUT_SHARED_OPENCL_DEVICE();
    const auto error_with = [&](const char* mode) {
        return compile_error_with(*dev, "TRIBENCH_OPENCL_SUBGROUPS", mode, kernel_source());
    };
    EXPECT_EQ(error_with("sometimes"), "TRIBENCH_OPENCL_SUBGROUPS is 'sometimes'. expected 'khr', 'nv' or 'emulated'");
    if (!dev->info().is_nvidia)
        EXPECT_EQ(error_with("nv"), "TRIBENCH_OPENCL_SUBGROUPS=nv: the device is not an NVIDIA GPU with warps of 32");
    // A source that never mentions sub-groups does not get the shim, so any value is ignored.
    ScopedEnv env("TRIBENCH_OPENCL_SUBGROUPS", "sometimes");
    EXPECT_NO_THROW(dev->compile(Source{"plain.cl", "__kernel void k(__global int *x) { x[0] = 1; }\n", Dialect::OpenCL},
                                 CompileOptions{}));
}

}  // namespace
