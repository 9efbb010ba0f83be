// stencil: the reference against exact Fourier solutions, the stability and norm facts the
// tolerance rests on, the tolerance against float implementations (it must admit every
// rounding order and reject the bugs it exists to catch), dataset generation, layout, and
// runs on PoCL (and on a CUDA device, stream vs graph, when one is present).
#include <algorithm>
#include <cmath>
#include <numbers>
#include <set>

#include <gtest/gtest.h>

#include "backend.hpp"
#include "program.hpp"
#include "stencil/layout.hpp"
#include "stencil/reference.hpp"

using namespace tb;
using namespace tb::stencil;

namespace {

double max_abs_diff(const std::vector<double>& a, const std::vector<float>& b) {
    double m = 0;
    for (std::size_t i = 0; i < a.size(); ++i) m = std::max(m, std::abs(a[i] - double(b[i])));
    return m;
}

// An independent float implementation with periodic indexing (no halo), in one of several
// evaluation orders a compiler may choose, or with a deliberate bug.
enum class Flavor { Plain, FmaReversed, ClampedBoundary };

std::vector<float> float_run(std::vector<float> x, int nx, int ny, int iterations, Flavor f) {
    const auto at = [&](const std::vector<float>& v, int i, int j) {
        if (f == Flavor::ClampedBoundary) {
            i = std::clamp(i, 0, nx - 1);
            j = std::clamp(j, 0, ny - 1);
        } else {
            i = (i + nx) % nx;
            j = (j + ny) % ny;
        }
        return v[std::size_t(j) * nx + i];
    };
    const auto lap = [&](const std::vector<float>& v, int i, int j) {
        const float c = at(v, i, j), w = at(v, i - 1, j), e = at(v, i + 1, j), s = at(v, i, j - 1), n = at(v, i, j + 1);
        if (f == Flavor::FmaReversed) return std::fma(-4.0f, c, ((n + s) + e) + w);
        return -4.0f * c + w + e + s + n;
    };
    std::vector<float> l1(x.size()), out(x.size());
    for (int it = 0; it < iterations; ++it) {
        for (int j = 0; j < ny; ++j)
            for (int i = 0; i < nx; ++i) l1[std::size_t(j) * nx + i] = lap(x, i, j);
        for (int j = 0; j < ny; ++j)
            for (int i = 0; i < nx; ++i) {
                const float c = x[std::size_t(j) * nx + i], l2 = lap(l1, i, j);
                out[std::size_t(j) * nx + i] = f == Flavor::FmaReversed ? std::fma(-kAlpha, l2, c) : c - kAlpha * l2;
            }
        std::swap(x, out);
    }
    return x;
}

}  // namespace

// A Fourier mode is an eigenvector of the filter: after N steps it is g^N times itself.
TEST(StencilReference, MatchesExactFourierSolution) {
    const int nx = 24, ny = 16;  // non-square: catches x/y mix-ups
    const std::pair<int, int> modes[] = {{1, 0}, {0, 1}, {2, 3}, {5, 7}, {11, 8}, {12, 8}};
    for (auto [p, q] : modes)
        for (int steps : {1, 7, 100}) {
            const double tx = 2 * std::numbers::pi * p / nx, ty = 2 * std::numbers::pi * q / ny;
            std::vector<float> init(std::size_t(nx) * ny);
            for (int j = 0; j < ny; ++j)
                for (int i = 0; i < nx; ++i) init[std::size_t(j) * nx + i] = float(std::cos(tx * i + ty * j + 0.3));
            const auto ref = reference_plane(init, nx, ny, steps);
            const double g = std::pow(amplification(tx, ty), steps);
            double err = 0;
            for (int j = 0; j < ny; ++j)
                for (int i = 0; i < nx; ++i)
                    err = std::max(err, std::abs(ref.field[std::size_t(j) * nx + i] - g * std::cos(tx * i + ty * j + 0.3)));
            // The input's float rounding (<= 3e-8) carried by ||M^N||_inf <= 3.
            EXPECT_LT(err, 1e-7) << "mode (" << p << "," << q << ") after " << steps << " steps";
        }
}

TEST(StencilReference, FilterIsStableWithTwoUndampedModes) {
    for (int a = 0; a <= 256; ++a)
        for (int b = 0; b <= 256; ++b) {
            const double g = amplification(std::numbers::pi * a / 128, std::numbers::pi * b / 128);
            ASSERT_LE(std::abs(g), 1.0 + 1e-15) << a << "," << b;
        }
    EXPECT_DOUBLE_EQ(amplification(0, 0), 1.0);
    EXPECT_DOUBLE_EQ(amplification(std::numbers::pi, std::numbers::pi), -1.0);  // the checkerboard flips
}

// ||M^m||_inf is the l1 norm of the m-step impulse response (on a plane wide enough that
// the periodic wrap does not touch it); the tolerance assumes it never exceeds kPowerNormBound.
TEST(StencilReference, PowerNormStaysBelowTheBound) {
    for (int m : {1, 2, 3, 4, 8, 16, 32, 64}) {
        const int side = 4 * m + 2;
        std::vector<float> delta(std::size_t(side) * side, 0.0f);
        delta[std::size_t(side / 2) * side + side / 2] = 1.0f;
        const auto ref = reference_plane(delta, side, side, m);
        double l1 = 0, sum = 0;
        for (double v : ref.field) {
            l1 += std::abs(v);
            sum += v;
        }
        EXPECT_NEAR(sum, 1.0, 1e-12) << m;  // the filter conserves the mean
        EXPECT_LE(l1, kPowerNormBound) << m;
        if (m == 1) {
            EXPECT_NEAR(l1, 1.75, 1e-12);  // 0.375 + 4 * 0.25 + 4 / 16 + 4 / 32
        }
        if (m == 2) {
            EXPECT_NEAR(l1, 1.875, 1e-12);
        }
    }
}

// The tolerance admits float implementations in different orders, and rejects the results
// of the bugs it exists to catch: one step too few (the odd tail of graph replay dropped),
// one step only (the pointer swap frozen into a graph), a non-periodic boundary.
TEST(StencilReference, ToleranceAdmitsRoundingAndRejectsBugs) {
    const int nx = 32, ny = 24, steps = 1025;
    const auto init = initial_plane(nx, ny, 3, 42);
    const auto ref = reference_plane(init, nx, ny, steps);
    ASSERT_GT(ref.tolerance, 0);
    const double plain = max_abs_diff(ref.field, float_run(init, nx, ny, steps, Flavor::Plain));
    const double fma = max_abs_diff(ref.field, float_run(init, nx, ny, steps, Flavor::FmaReversed));
    EXPECT_LE(plain, ref.tolerance);
    EXPECT_LE(fma, ref.tolerance);
    EXPECT_GT(std::max(plain, fma), 0.0);  // float really differs from the double reference
    EXPECT_GT(max_abs_diff(ref.field, float_run(init, nx, ny, steps - 1, Flavor::Plain)), 10 * ref.tolerance);
    EXPECT_GT(max_abs_diff(ref.field, float_run(init, nx, ny, 1, Flavor::Plain)), 10 * ref.tolerance);
    EXPECT_GT(max_abs_diff(ref.field, float_run(init, nx, ny, steps, Flavor::ClampedBoundary)), 10 * ref.tolerance);
}

// The largest iteration count of any dataset still leaves the tolerance far below the
// 2 * kMarker a parity error moves each cell by.
TEST(StencilReference, ToleranceStaysSmallForTheLongestSweep) {
    const auto ref = reference_plane(initial_plane(64, 64, 0, 42), 64, 64, 4096);
    EXPECT_LT(ref.tolerance, 0.05 * 2 * kMarker);
}

TEST(StencilInput, DeterministicPerPlaneAndCarriesTheMarker) {
    const auto a = initial_plane(64, 32, 5, 42);
    EXPECT_EQ(a, initial_plane(64, 32, 5, 42));
    EXPECT_NE(a, initial_plane(64, 32, 6, 42));
    EXPECT_NE(a, initial_plane(64, 32, 5, 43));
    double checker = 0;
    bool nonzero = false;
    for (int j = 0; j < 32; ++j)
        for (int i = 0; i < 64; ++i) {
            const float v = a[std::size_t(j) * 64 + i];
            EXPECT_LE(std::abs(v), 1.0f + kMarker);
            nonzero = nonzero || v != 0.0f;
            checker += ((i + j) % 2 ? -v : v);
        }
    EXPECT_TRUE(nonzero);
    EXPECT_NEAR(checker / (64 * 32), kMarker, 0.05);  // the noise averages out to ~0.01
}

TEST(StencilSampling, AllPlanesWithinBudgetElseSeededSample) {
    const auto all = sample_planes(128, 128, 64, 1025, 42);
    ASSERT_EQ(all.size(), 64u);
    for (int k = 0; k < 64; ++k) EXPECT_EQ(all[k], k);
    const auto some = sample_planes(1024, 1024, 64, 1025, 42);
    EXPECT_GE(some.size(), 4u);
    EXPECT_LT(some.size(), 64u);
    EXPECT_TRUE(std::is_sorted(some.begin(), some.end()));
    EXPECT_EQ(std::set<int>(some.begin(), some.end()).size(), some.size());
    EXPECT_EQ(some, sample_planes(1024, 1024, 64, 1025, 42));
    for (int k : some) EXPECT_TRUE(k >= 0 && k < 64);
}

TEST(StencilLayout, InteriorRowsAlignedAndHaloInside) {
    for (int n : {16, 32, 64, 128, 256, 512, 1024, 48, 130}) {
        const Layout l = make_layout(n, n + 2, 3);
        EXPECT_EQ(l.pitch % kAlign, 0) << n;
        EXPECT_GE(l.pitch, n + 4) << n;
        for (int k = 0; k < 3; ++k)
            for (int j = -2; j < n + 4; ++j) {
                EXPECT_EQ(l.at(0, j, k) % kAlign, 0) << n;
                EXPECT_GE(l.at(-2, j, k), 0);
                EXPECT_LT(l.at(n + 1, j, k), l.total);
                if (j > -2) {
                    EXPECT_LT(l.at(n + 1, j - 1, k), l.at(-2, j, k));  // rows do not overlap
                }
            }
    }
    EXPECT_THROW(make_layout(15, 16, 1), Error);
    EXPECT_THROW(make_layout(16, 2, 1), Error);
    EXPECT_THROW(make_layout(16, 16, 0), Error);
    EXPECT_THROW(make_layout(65536, 65536, 1), Error);
}

TEST(StencilProgram, DatasetsAndDeviceBytes) {
    const Program& p = find_program("stencil");
    EXPECT_TRUE(p.iterative());
    std::set<std::string> names;
    int small = 0;
    for (const auto& d : p.datasets()) {
        EXPECT_TRUE(names.insert(d.name).second) << d.name;
        small += d.small;
        if (d.small) {
            EXPECT_LE(d.param("nx") * d.param("ny") * d.param("nz") * d.param("iterations"), 1 << 14);
        }
        EXPECT_EQ(p.device_bytes(d, "fused") * 5, p.device_bytes(d, "unfused") * 3);
    }
    EXPECT_EQ(small, 1);
    for (const char* n : {"32x32x64", "1024x1024x64", "128x128x64-i1", "128x128x64-i256"}) EXPECT_TRUE(names.count(n)) << n;
    EXPECT_EQ(find_dataset(p.datasets(), "stencil", "1024x1024x64").param("iterations"), 1025);
}

// ---- on devices -------------------------------------------------------------------------

namespace {

Dataset grid(int nx, int ny, int nz, int iterations) {
    return Dataset{"test", {{"nx", nx}, {"ny", ny}, {"nz", nz}, {"iterations", iterations}}, "", true, ""};
}

std::unique_ptr<Device> first_device(const std::string& backend, std::string& why) {
    try {
        auto b = make_backend(backend);
        if (b->devices().empty()) {
            why = "no " + backend + " device";
            return nullptr;
        }
        return b->open(0);
    } catch (const Error& e) {
        why = e.what();
        return nullptr;
    }
}

}  // namespace

// Partial tiles (nx, ny not multiples of the tile), several tiles, even and odd counts, and
// (16x16x201 on a 2-core CPU) several planes per fused work-group with a short last chunk.
TEST(StencilOnOpenCL, VariantsValidateOnOddShapesAndCounts) {
    std::string why;
    auto dev = first_device("opencl", why);
    if (!dev) GTEST_SKIP() << why;
    const Program& p = find_program("stencil");
    CompileOptions co;
    co.defines = p.defines();
    auto mod = dev->compile(program_source(p, Dialect::OpenCL), co);
    for (const Dataset& d : {grid(48, 20, 3, 1), grid(48, 20, 3, 2), grid(130, 36, 2, 3), grid(4, 6, 2, 4),
                             grid(16, 16, 201, 3)})
        for (const char* variant : {"unfused", "fused"}) {
            auto inst = p.prepare(*dev, *mod, d, RunConfig{variant, LaunchMode::Stream, 11});
            inst->poison();
            inst->run();
            dev->synchronize();
            const Validation v = inst->validate();
            EXPECT_TRUE(v.ok) << variant << " " << d.param("nx") << "x" << d.param("ny") << " i" << d.param("iterations")
                              << ": " << v.detail;
            EXPECT_FALSE(v.sampled);
            const WorkModel w = inst->work();
            const double updates = double(d.param("nx") * d.param("ny") * d.param("nz") * d.param("iterations"));
            EXPECT_EQ(w.items, updates);
            EXPECT_EQ(w.bytes, 8 * updates);  // one float read and one written per cell-update
            EXPECT_EQ(w.flops, 12 * updates);
        }
}

// On a CUDA device: graph replay gives bit-for-bit the stream result, for even and odd counts
// (520x264x71 on an H100: partial tiles, 2 planes per fused block, a short last chunk).
TEST(StencilOnCuda, GraphReplayMatchesStreamLaunches) {
    std::string why;
    auto dev = first_device("cuda-native", why);
    if (!dev) GTEST_SKIP() << why;
    const Program& p = find_program("stencil");
    CompileOptions co;
    co.defines = p.defines();
    auto mod = dev->compile(program_source(p, Dialect::Cuda), co);
    for (const Dataset& d : {grid(96, 40, 5, 1), grid(96, 40, 5, 2), grid(96, 40, 5, 5), grid(520, 264, 71, 3)})
        for (const char* variant : {"unfused", "fused"}) {
            const auto iterations = d.param("iterations");
            std::vector<std::vector<NamedArray>> outs;
            for (LaunchMode lm : {LaunchMode::Stream, LaunchMode::Graph}) {
                auto inst = p.prepare(*dev, *mod, d, RunConfig{variant, lm, 5});
                if (lm == LaunchMode::Graph) {
                    EXPECT_GE(inst->prepare_graph(), 0.0);
                }
                for (int rep = 0; rep < 2; ++rep) {
                    inst->poison();
                    inst->run();
                    dev->synchronize();
                    const Validation v = inst->validate();
                    EXPECT_TRUE(v.ok) << variant << " " << to_string(lm) << " i" << iterations << ": " << v.detail;
                }
                outs.push_back(inst->arrays());
            }
            ASSERT_EQ(outs[0].size(), 2u);
            EXPECT_EQ(outs[0][1].data, outs[1][1].data) << variant << " i" << iterations;
        }
}
