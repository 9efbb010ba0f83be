// nbody specifics: the double reference against closed forms and conservation laws, the
// error bound against a float emulation of the kernels (it must hold for a correct float
// evaluation with a worst-case-biased rsqrt, and fail for small bugs), the launch geometry,
// the initial conditions, and the OpenCL kernel under every geometry shape on PoCL.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <numeric>
#include <string>
#include <vector>

#include "backend.hpp"
#include "nbody/bodies.hpp"
#include "nbody/launch.hpp"
#include "nbody/reference.hpp"
#include "oclgrind_log.hpp"
#include "program.hpp"
#include "sample.hpp"
#include "shared_opencl_device.hpp"

using namespace tb;
using namespace tb::nbody;

namespace {

std::vector<std::uint64_t> all_bodies(std::size_t n) {
    std::vector<std::uint64_t> v(n);
    std::iota(v.begin(), v.end(), 0);
    return v;
}

// How the float emulation deviates from the kernels: a correct evaluation (defaults) or a bug.
struct Emulation {
    double rsqrt_bias = 0x1p-22;  // relative error of every rsqrt: 2 ulp, all the same way
    std::size_t skip_last = 0;    // bug: the last bodies are left out of every sum
    float mass_scale = 1.0f;      // bug: masses slightly off
    bool explicit_euler = false;  // bug: r += v_old dt instead of the new v
};

// The kernels' float arithmetic for the listed bodies, sequential sum over j (the order with
// the largest rounding error: one long chain).
void float_step(const InitialState& in, InitialState& out, const std::vector<std::uint64_t>& which, const Params& p,
                const Emulation& e) {
    out = in;
    const std::size_t n = in.pos.size();
    for (std::uint64_t i : which) {
        const Body& pi = in.pos[i];
        float ax = 0, ay = 0, az = 0;
        for (std::size_t j = 0; j + e.skip_last < n; ++j) {
            const Body& q = in.pos[j];
            const float dx = q.x - pi.x, dy = q.y - pi.y, dz = q.z - pi.z;
            const float r2 = dx * dx + dy * dy + dz * dz + p.eps2;
            const float inv = float(double(float(1.0 / std::sqrt(double(r2)))) * (1.0 + e.rsqrt_bias));
            const float s = q.w * e.mass_scale * inv * inv * inv;
            ax += dx * s;
            ay += dy * s;
            az += dz * s;
        }
        Body v = in.vel[i];
        const Body v_old = v;
        v.x += ax * p.dt, v.y += ay * p.dt, v.z += az * p.dt;
        const Body& vs = e.explicit_euler ? v_old : v;
        Body r = pi;
        r.x += vs.x * p.dt, r.y += vs.y * p.dt, r.z += vs.z * p.dt;
        out.pos[i] = r;
        out.vel[i] = v;
    }
}

InitialState float_simulation(const InitialState& in, int steps, const Params& p, const Emulation& e) {
    InitialState s = in, next;
    const auto all = all_bodies(in.pos.size());
    for (int k = 0; k < steps; ++k) {
        float_step(s, next, all, p, e);
        s = next;
    }
    return s;
}

double norm3(double x, double y, double z) { return std::sqrt(x * x + y * y + z * z); }

}  // namespace

// ---- the double reference -------------------------------------------------------------

TEST(NbodyReference, TwoBodiesFollowTheClosedForm) {
    const Params p{0.125f, 0.25f};  // exact binary fractions
    InitialState s;
    s.pos = {{0.0f, 0.0f, 0.0f, 2.0f}, {1.5f, 0.0f, 0.0f, 0.5f}};
    s.vel = {{0.0f, 1.0f, 0.0f, 0.0f}, {0.25f, -0.5f, 0.0f, 0.0f}};
    // By hand, twice: |d|^2 + eps2 = 2.25 + 0.25 = 2.5 at the start.
    double x0[2][3] = {{0, 0, 0}, {1.5, 0, 0}}, v0[2][3] = {{0, 1, 0}, {0.25, -0.5, 0}};
    const double m[2] = {2.0, 0.5};
    for (int step = 0; step < 2; ++step) {
        double d[3];
        for (int c = 0; c < 3; ++c) d[c] = x0[1][c] - x0[0][c];
        const double w = std::pow(d[0] * d[0] + d[1] * d[1] + d[2] * d[2] + 0.25, -1.5);
        for (int c = 0; c < 3; ++c) {
            v0[0][c] += m[1] * d[c] * w * 0.125;
            v0[1][c] -= m[0] * d[c] * w * 0.125;
        }
        for (int b = 0; b < 2; ++b)
            for (int c = 0; c < 3; ++c) x0[b][c] += v0[b][c] * 0.125;
    }
    const auto e = simulate(s, 2, p);
    ASSERT_EQ(e.size(), 2u);
    for (int b = 0; b < 2; ++b)
        for (int c = 0; c < 3; ++c) {
            EXPECT_NEAR(e[b].x[c], x0[b][c], 1e-14) << "body " << b << " component " << c;
            EXPECT_NEAR(e[b].v[c], v0[b][c], 1e-14) << "body " << b << " component " << c;
        }
    // The pair attracts: body 0 moved toward body 1 along x.
    EXPECT_GT(e[0].v[0], 0.0);
    EXPECT_LT(e[1].v[0], 0.25);
    EXPECT_GT(e[0].x_bound, 0.0);
    EXPECT_GT(e[0].v_bound, 0.0);
}

TEST(NbodyReference, ConservesMomentum) {
    const InitialState s = make_initial_state(300, 11);
    const Params p = kParams;
    double before[3] = {0, 0, 0}, after[3] = {0, 0, 0}, scale = 0;
    for (std::size_t i = 0; i < s.pos.size(); ++i) {
        before[0] += double(s.pos[i].w) * s.vel[i].x;
        before[1] += double(s.pos[i].w) * s.vel[i].y;
        before[2] += double(s.pos[i].w) * s.vel[i].z;
        scale += double(s.pos[i].w) * norm3(s.vel[i].x, s.vel[i].y, s.vel[i].z);
    }
    const auto e = simulate(s, 20, p);
    for (std::size_t i = 0; i < e.size(); ++i)
        for (int c = 0; c < 3; ++c) after[c] += double(s.pos[i].w) * e[i].v[c];
    for (int c = 0; c < 3; ++c) EXPECT_NEAR(after[c], before[c], 1e-12 * scale) << "component " << c;
    // And the bodies did move: the forces are not zero.
    double moved = 0;
    for (std::size_t i = 0; i < e.size(); ++i) moved += std::fabs(e[i].v[0] - s.vel[i].x);
    EXPECT_GT(moved, 1e-3);
}

TEST(NbodyReference, SampledFirstStepEqualsFullSimulation) {
    const InitialState s = make_initial_state(500, 3);
    const auto full = simulate(s, 1, kParams);
    const auto idx = sample_indices(500, 40, 9);
    const auto part = first_step(s, idx, kParams);
    ASSERT_EQ(part.size(), idx.size());
    for (std::size_t k = 0; k < idx.size(); ++k) {
        const Expected& a = full[idx[k]];
        const Expected& b = part[k];
        for (int c = 0; c < 3; ++c) {
            EXPECT_DOUBLE_EQ(a.x[c], b.x[c]);
            EXPECT_DOUBLE_EQ(a.v[c], b.v[c]);
        }
        EXPECT_DOUBLE_EQ(a.x_bound, b.x_bound);
        EXPECT_DOUBLE_EQ(a.v_bound, b.v_bound);
    }
}

// ---- the error bound ------------------------------------------------------------------

TEST(NbodyTolerance, GrowsLikeSqrtN) {
    const double u = kUnitRoundoff;
    EXPECT_DOUBLE_EQ(interaction_error(100), u * (kTermUlps + kSumSigmas * 10));
    EXPECT_DOUBLE_EQ(interaction_error(1000000), u * (kTermUlps + kSumSigmas * 1000));
    // Far below the worst case (N u) for large N, and above one term's error.
    EXPECT_LT(interaction_error(1000000), 1000000 * u / 100);
    EXPECT_GT(interaction_error(1), 2 * u);
}

TEST(NbodyTolerance, CorrectFloatMultiStepPasses) {
    const InitialState s = make_initial_state(1000, 5);
    const auto expected = simulate(s, 10, kParams);
    for (double bias : {0x1p-22, -0x1p-22, 0.0}) {
        Emulation e;
        e.rsqrt_bias = bias;
        const InitialState f = float_simulation(s, 10, kParams, e);
        const Validation v = compare(s, f.pos, f.vel, all_bodies(1000), expected, "emulated");
        EXPECT_TRUE(v.ok) << "rsqrt bias " << bias << ": " << v.detail;
        EXPECT_FALSE(v.sampled);
        EXPECT_EQ(v.checked, 8000u);
    }
}

TEST(NbodyTolerance, CorrectFloatOneStepPassesForLargeN) {
    for (std::size_t n : {20000u, 200000u}) {
        const InitialState s = make_initial_state(n, 21);
        const auto idx = sample_indices(n, 24, 4);
        InitialState f;
        float_step(s, f, idx, kParams, Emulation{});
        const Validation v = compare(s, f.pos, f.vel, idx, first_step(s, idx, kParams), "emulated");
        EXPECT_TRUE(v.ok) << n << " bodies: " << v.detail;
        EXPECT_TRUE(v.sampled);
    }
}

TEST(NbodyTolerance, SmallBugsFail) {
    const InitialState s = make_initial_state(1000, 5);
    const auto idx = all_bodies(1000);
    const auto one = simulate(s, 1, kParams);
    Emulation skip;
    skip.skip_last = 16;  // one small tile missing
    Emulation mass;
    mass.mass_scale = 1.001f;
    Emulation euler;
    euler.explicit_euler = true;
    for (const Emulation* bug : {&skip, &mass, &euler}) {
        InitialState f;
        float_step(s, f, idx, kParams, *bug);
        const Validation v = compare(s, f.pos, f.vel, idx, one, "bug");
        EXPECT_FALSE(v.ok) << v.detail;
    }
    // A bug that only touches the masses' passage through the step.
    InitialState f;
    float_step(s, f, idx, kParams, Emulation{});
    ASSERT_TRUE(compare(s, f.pos, f.vel, idx, one, "ok").ok);
    f.pos[17].w = std::nextafter(f.pos[17].w, 1.0f);
    EXPECT_FALSE(compare(s, f.pos, f.vel, idx, one, "mass").ok);
    f = InitialState{};
    float_step(s, f, idx, kParams, Emulation{});
    f.vel[999].x = std::nanf("");
    const Validation nan = compare(s, f.pos, f.vel, idx, one, "nan");
    EXPECT_FALSE(nan.ok);
    EXPECT_NE(nan.detail.find("body 999"), std::string::npos) << nan.detail;
}

// ---- initial conditions and geometry --------------------------------------------------

TEST(NbodyData, InitialStateIsDeterministicAndPlausible) {
    const InitialState a = make_initial_state(2000, 42), b = make_initial_state(2000, 42), c = make_initial_state(2000, 43);
    ASSERT_EQ(a.pos.size(), 2000u);
    ASSERT_EQ(a.vel.size(), 2000u);
    EXPECT_EQ(0, std::memcmp(a.pos.data(), b.pos.data(), 2000 * sizeof(Body)));
    EXPECT_EQ(0, std::memcmp(a.vel.data(), b.vel.data(), 2000 * sizeof(Body)));
    EXPECT_NE(0, std::memcmp(a.pos.data(), c.pos.data(), 2000 * sizeof(Body)));
    double mass = 0, mean_r = 0;
    for (std::size_t i = 0; i < a.pos.size(); ++i) {
        const Body& p = a.pos[i];
        const double r = norm3(p.x, p.y, p.z);
        EXPECT_LE(r, 1.0);
        mean_r += r / 2000;
        EXPECT_GE(p.w, 0.5f / 2000);
        EXPECT_LT(p.w, 1.5f / 2000);
        mass += p.w;
        EXPECT_LE(std::fabs(a.vel[i].x), 0.5f);
        EXPECT_EQ(a.vel[i].w, 0.0f);
    }
    EXPECT_NEAR(mass, 1.0, 0.03);
    EXPECT_NEAR(mean_r, 0.75, 0.02);  // uniform in the ball: E|r| = 3/4
}

TEST(NbodyGeometry, FillsTheDeviceAndKeepsTheKernelsContract) {
    for (std::int64_t n : {1, 15, 1000, 10000, 100000, 1000000, 1 << 24}) {
        for (int units : {1, 2, 132}) {
            for (bool split : {true, false}) {
                const Geometry g = choose_geometry(n, units, 1024, split);
                EXPECT_EQ(g.tile * g.slices, kGroupSize);
                EXPECT_EQ(g.tile % kMinTile, 0u);
                EXPECT_GE(std::int64_t(g.groups) * g.tile * kBodiesPerItem, n);
                EXPECT_LT(std::int64_t(g.groups - 1) * g.tile * kBodiesPerItem, n);
                EXPECT_EQ(g.local_bytes(), std::size_t(kGroupSize) * kBodiesPerItem * 16);
                if (!split) {
                    EXPECT_EQ(g.slices, 1u);
                }
                // Slices only when one slice would leave the device short of groups.
                if (split && g.slices > 1) {
                    EXPECT_LT(std::int64_t(g.groups) / 2, std::int64_t(kGroupsPerUnit) * units);
                }
                if (split && g.tile > kMinTile) {
                    EXPECT_GE(std::int64_t(g.groups), std::int64_t(kGroupsPerUnit) * units);
                }
            }
        }
    }
    EXPECT_EQ(choose_geometry(1 << 24, 132, 1024).slices, 1u);
    EXPECT_EQ(choose_geometry(10000, 132, 1024).tile, kMinTile);
    EXPECT_EQ(choose_geometry(1000000, 132, 1024).tile, 16u);  // docs/programs/nbody.md's H100 example
    const Geometry small_groups = choose_geometry(100000, 4, 64);
    EXPECT_LE(small_groups.tile * small_groups.slices, 64u);
    EXPECT_THROW(choose_geometry(1000, 4, 8), Error);
    EXPECT_THROW(choose_geometry(0, 4, 256), Error);
    EXPECT_THROW(choose_geometry(kMaxBodies, 4, 256), Error);
    EXPECT_THROW(fixed_geometry(1000, 24, 1), Error);
    EXPECT_THROW(fixed_geometry(1000, 128, 4), Error);
    EXPECT_THROW(fixed_geometry(1000, 16, 0), Error);
}

// ---- the OpenCL kernel on PoCL --------------------------------------------------------

class NbodyOnOpenCL : public testing::Test {
protected:
    static void SetUpTestSuite() {
        device_ = shared_opencl_device().device.get();
        reason_ = shared_opencl_device().reason;
    }
    static void TearDownTestSuite() {
        device_ = nullptr;
    }
    static Device* device_;
    static std::string reason_;
};
Device* NbodyOnOpenCL::device_ = nullptr;
std::string NbodyOnOpenCL::reason_;

namespace {

// Runs `steps` steps of n bodies with geometry g and compares every body with the reference.
Validation run_on_device(Device& dev, const Kernel& k, const Geometry& g, const InitialState& s, int steps,
                         const std::vector<Expected>& expected) {
    const std::int64_t n = std::int64_t(s.pos.size());
    const std::size_t bytes = s.pos.size() * sizeof(Body);
    Buffer p0 = dev.alloc(bytes), v0 = dev.alloc(bytes);
    Buffer p[2] = {dev.alloc(bytes), dev.alloc(bytes)}, v[2] = {dev.alloc(bytes), dev.alloc(bytes)};
    dev.upload(p0, s.pos.data(), bytes);
    dev.upload(v0, s.vel.data(), bytes);
    for (int b = 0; b < 2; ++b) dev.fill_u32(p[b], 0xFFFFFFFFu), dev.fill_u32(v[b], 0xFFFFFFFFu);
    for (int st = 0; st < steps; ++st)
        enqueue_step(dev, k, g, st == 0 ? p0 : p[(st - 1) % 2], st == 0 ? v0 : v[(st - 1) % 2], p[st % 2], v[st % 2], n,
                     kParams);
    dev.synchronize();
    std::vector<Body> pos(s.pos.size()), vel(s.pos.size());
    dev.download(pos.data(), p[(steps - 1) % 2], bytes);
    dev.download(vel.data(), v[(steps - 1) % 2], bytes);
    return compare(s, pos, vel, all_bodies(s.pos.size()), expected, "opencl");
}

// Tiles and slices of a work-group that the tests launch: whole groups, split ones, and the
// smallest tile alone.
struct Shape {
    std::uint32_t tile, slices;
};
constexpr Shape kShapes[] = {{256, 1}, {128, 2}, {64, 1}, {32, 8}, {16, 16}, {16, 1}};

}  // namespace

TEST_F(NbodyOnOpenCL, EveryGeometryMatchesTheReference) {
    TB_SKIP_WITHOUT_OPENCL_DEVICE(device_, reason_);
    CompileOptions co;
    co.defines = kernel_defines();
    auto module = device_->compile(program_source(find_program("nbody"), Dialect::OpenCL), co);
    const Kernel k = module->kernel("nbody_step");
    for (std::int64_t n : {333, 1000}) {
        const InitialState s = make_initial_state(std::size_t(n), 77);
        for (int steps : {1, 3}) {
            const auto expected = simulate(s, steps, kParams);
            for (const Shape& sh : kShapes) {
                SCOPED_TRACE(std::to_string(n) + " bodies, " + std::to_string(steps) + " steps, " +
                             std::to_string(sh.tile) + "x" + std::to_string(sh.slices));
                const Validation v = run_on_device(*device_, k, fixed_geometry(n, sh.tile, sh.slices), s, steps, expected);
                EXPECT_TRUE(v.ok) << v.detail;
            }
        }
    }
}

// Every shape on Oclgrind, which reports accesses outside a work-group's local memory and
// work-items racing on it (PoCL lets both pass): the tiles staged in local memory and the
// slices' partial sums, one step of 333 bodies (the last tile partly empty), validated, and
// nothing in Oclgrind's log. tests/oclgrind.cmake runs it.
TEST_F(NbodyOnOpenCL, EveryGeometryKeepsToItsLocalMemoryOnOclgrind) {
    TB_SKIP_WITHOUT_OPENCL_DEVICE(device_, reason_);
    if (!on_oclgrind(*device_)) GTEST_SKIP() << "runs on Oclgrind only: ctest -R oclgrind";
    ASSERT_TRUE(std::getenv("OCLGRIND_LOG")) << "set OCLGRIND_LOG to the file Oclgrind reports to";
    CompileOptions co;
    co.defines = kernel_defines();
    auto module = device_->compile(program_source(find_program("nbody"), Dialect::OpenCL), co);
    const Kernel k = module->kernel("nbody_step");
    const std::int64_t n = 333;
    const InitialState s = make_initial_state(std::size_t(n), 77);
    const auto expected = simulate(s, 1, kParams);
    for (const Shape& sh : kShapes) {
        SCOPED_TRACE(std::to_string(sh.tile) + "x" + std::to_string(sh.slices));
        const Validation v = run_on_device(*device_, k, fixed_geometry(n, sh.tile, sh.slices), s, 1, expected);
        EXPECT_TRUE(v.ok) << v.detail;
    }
    const auto report = oclgrind_report();
    ASSERT_TRUE(report) << "Oclgrind wrote no log to " << std::getenv("OCLGRIND_LOG");
    EXPECT_TRUE(report->empty()) << "Oclgrind reported:\n" << report->substr(0, 3000);
}

// The tuning constants come from tuning.hpp only: every one reaches the kernels as a define,
// kernels.cl refuses to build without them, and a kernel built for another bodies-per-item
// count than the host launches with is caught by validation.
TEST_F(NbodyOnOpenCL, TuningConstantsComeFromTheHost) {
    TB_SKIP_WITHOUT_OPENCL_DEVICE(device_, reason_);
    const std::vector<std::string> defines = kernel_defines();
    for (const std::string want : {"NBODY_BODIES_PER_ITEM=" + std::to_string(kBodiesPerItem),
                                   "NBODY_GROUP_SIZE=" + std::to_string(kGroupSize),
                                   "NBODY_UNROLL=" + std::to_string(kUnroll),
                                   "NBODY_MIN_GROUPS_PER_UNIT=" + std::to_string(kMinGroupsPerUnit)})
        EXPECT_NE(std::find(defines.begin(), defines.end(), want), defines.end()) << want;
    EXPECT_EQ(find_program("nbody").defines(), defines);

    const Source src = program_source(find_program("nbody"), Dialect::OpenCL);
    try {
        device_->compile(src, CompileOptions{});
        ADD_FAILURE() << "kernels.cl built without the host's defines";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("NBODY_BODIES_PER_ITEM must come from the host"), std::string::npos)
            << e.what();
    }

    CompileOptions two;
    for (const std::string& d : defines)
        two.defines.push_back(d.rfind("NBODY_BODIES_PER_ITEM=", 0) == 0 ? "NBODY_BODIES_PER_ITEM=2" : d);
    auto module = device_->compile(src, two);
    const InitialState s = make_initial_state(1000, 79);
    const Validation v =
        run_on_device(*device_, module->kernel("nbody_step"), fixed_geometry(1000, 16, 16), s, 1, simulate(s, 1, kParams));
    EXPECT_FALSE(v.ok) << "a kernel integrating 2 bodies per item validated under a host that launches for "
                       << kBodiesPerItem;
}

// The bound must hold under fast math too (-cl-fast-relaxed-math: approximations, reassociation).
TEST_F(NbodyOnOpenCL, FastMathStaysWithinTheBound) {
    TB_SKIP_WITHOUT_OPENCL_DEVICE(device_, reason_);
    CompileOptions co;
    co.defines = kernel_defines();
    co.math = MathMode::Fast;
    auto module = device_->compile(program_source(find_program("nbody"), Dialect::OpenCL), co);
    const Kernel k = module->kernel("nbody_step");
    const InitialState s = make_initial_state(1000, 78);
    const auto expected = simulate(s, 10, kParams);
    for (std::uint32_t tile : {256u, 16u}) {
        const Validation v = run_on_device(*device_, k, fixed_geometry(1000, tile, kGroupSize / tile), s, 10, expected);
        EXPECT_TRUE(v.ok) << v.detail;
    }
}

// Sampled validation is exact only after one step: a dataset that would need it with more
// steps is refused, as is an unknown variant.
TEST_F(NbodyOnOpenCL, RefusesWhatItCannotValidate) {
    TB_SKIP_WITHOUT_OPENCL_DEVICE(device_, reason_);
    const Program& p = find_program("nbody");
    CompileOptions co;
    co.defines = p.defines();
    auto module = device_->compile(program_source(p, Dialect::OpenCL), co);
    const Dataset big{"big", {{"bodies", 40000}, {"steps", 2}}, "", false, ""};
    EXPECT_THROW(p.prepare(*device_, *module, big, RunConfig{"default", LaunchMode::Stream, 1}), Error);
    const Dataset ok{"ok", {{"bodies", 100}, {"steps", 2}}, "", false, ""};
    EXPECT_NO_THROW(p.prepare(*device_, *module, ok, RunConfig{"default", LaunchMode::Stream, 1}));
    EXPECT_THROW(p.prepare(*device_, *module, ok, RunConfig{"nosuch", LaunchMode::Stream, 1}), Error);
    // Graphs are a CUDA feature; the opencl backend has none.
    auto inst = p.prepare(*device_, *module, ok, RunConfig{"default", LaunchMode::Graph, 1});
    EXPECT_THROW(inst->prepare_graph(), Error);
}
