// fft: the double-precision reference against transforms known in closed form, the
// tolerance, the pass planner's invariants, the kernels on PoCL for every plan shape (single
// pass, staged and strided multi-pass, 2-D columns), and the cuFFT baseline's refusal of a
// device it cannot use.
#include <cmath>
#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <set>

#include <gtest/gtest.h>

#include "backend.hpp"
#include "fft/instance.hpp"
#include "fft/plan.hpp"
#include "fft/reference.hpp"
#include "oclgrind_log.hpp"
#include "program.hpp"
#include "recording_device.hpp"
#include "rng.hpp"
#include "shared_opencl_device.hpp"

using namespace tb;
using namespace tb::fft;

namespace {

Shape one_d(std::int64_t length, std::int64_t batch) {
    Shape s;
    s.dims = 1;
    s.length = length;
    s.batch = batch;
    return s;
}

Shape two_d(std::int64_t rows, std::int64_t cols) {
    Shape s;
    s.dims = 2;
    s.rows = rows;
    s.cols = cols;
    return s;
}

std::vector<cdouble> noise(std::int64_t n, std::uint64_t seed) {
    Rng rng(seed);
    std::vector<cdouble> v(static_cast<std::size_t>(n));
    for (auto& x : v) x = cdouble(rng.uniform_double() - 0.5, rng.uniform_double() - 0.5);
    return v;
}

double max_abs_diff(const std::vector<cdouble>& a, const std::vector<cdouble>& b) {
    double m = 0;
    for (std::size_t i = 0; i < a.size(); ++i) m = std::max(m, std::abs(a[i] - b[i]));
    return m;
}

using Transform = void (*)(const Shape&, std::vector<cdouble>&, bool);
const Transform kTransforms[] = {&builtin_transform, &reference_transform};

}  // namespace

// ---- reference -----------------------------------------------------------------------------

TEST(FftReference, DeltaGivesAllOnesAndShiftedDeltaALinearPhase) {
    const std::int64_t n = 64, n0 = 5;
    for (Transform f : kTransforms) {
        std::vector<cdouble> x(2 * n, 0.0);
        x[0] = 1.0;       // transform 0: delta at 0
        x[n + n0] = 1.0;  // transform 1: delta at n0
        f(one_d(n, 2), x, false);
        for (std::int64_t k = 0; k < n; ++k) {
            EXPECT_NEAR(std::abs(x[k] - cdouble(1.0, 0.0)), 0.0, 1e-13) << k;
            const double a = -2.0 * M_PI * double(k * n0) / double(n);
            EXPECT_NEAR(std::abs(x[n + k] - cdouble(std::cos(a), std::sin(a))), 0.0, 1e-13) << k;
        }
    }
}

TEST(FftReference, SingleFrequencyGivesOneSpikeAtItsBin) {
    const std::int64_t n = 256, k0 = 37;
    for (Transform f : kTransforms) {
        for (bool inverse : {false, true}) {
            // exp(+-2 pi i k0 n / N) is the forward (inverse) transform's basis vector k0.
            const double sign = inverse ? -1.0 : 1.0;
            std::vector<cdouble> x(n);
            for (std::int64_t j = 0; j < n; ++j) {
                const double a = sign * 2.0 * M_PI * double(k0 * j) / double(n);
                x[j] = cdouble(std::cos(a), std::sin(a));
            }
            f(one_d(n, 1), x, inverse);
            for (std::int64_t k = 0; k < n; ++k)
                EXPECT_NEAR(std::abs(x[k] - cdouble(k == k0 ? double(n) : 0.0, 0.0)), 0.0, 1e-10) << k;
        }
    }
}

TEST(FftReference, TwoDimensionalDeltaAndPlaneWave) {
    const std::int64_t rows = 16, cols = 32, kr = 3, kc = 29;
    for (Transform f : kTransforms) {
        std::vector<cdouble> d(rows * cols, 0.0);
        d[0] = 1.0;
        f(two_d(rows, cols), d, false);
        for (const auto& v : d) EXPECT_NEAR(std::abs(v - cdouble(1.0, 0.0)), 0.0, 1e-13);

        std::vector<cdouble> w(rows * cols);
        for (std::int64_t r = 0; r < rows; ++r)
            for (std::int64_t c = 0; c < cols; ++c) {
                const double a = 2.0 * M_PI * (double(kr * r) / double(rows) + double(kc * c) / double(cols));
                w[r * cols + c] = cdouble(std::cos(a), std::sin(a));
            }
        f(two_d(rows, cols), w, false);
        for (std::int64_t i = 0; i < rows * cols; ++i) {
            const double want = i == kr * cols + kc ? double(rows * cols) : 0.0;
            EXPECT_NEAR(std::abs(w[i] - cdouble(want, 0.0)), 0.0, 1e-10) << i;
        }
    }
}

TEST(FftReference, InverseOfForwardIsNTimesTheInput) {
    const Shape s = one_d(1024, 3);
    const auto x = noise(s.points(), 1);
    auto y = x;
    reference_transform(s, y, false);
    reference_transform(s, y, true);
    for (auto& v : y) v /= double(s.length);
    EXPECT_LT(max_abs_diff(x, y), 1e-14);
}

TEST(FftReference, BuiltInAgreesWithFftw) {
#ifndef TRIBENCH_HAVE_FFTW
    GTEST_SKIP() << "built without FFTW: the reference is the built-in transform";
#else
    for (const Shape& s : {one_d(1 << 12, 2), two_d(64, 128)}) {
        const auto x = noise(s.points(), 2);
        auto a = x, b = x;
        builtin_transform(s, a, false);
        reference_transform(s, b, false);
        EXPECT_LT(max_abs_diff(a, b), 1e-11) << s.describe();
    }
#endif
}

// ---- tolerance and comparison ---------------------------------------------------------------

TEST(FftTolerance, IsTenUnitRoundoffsPerLevel) {
    const double u = std::ldexp(1.0, -24);
    EXPECT_DOUBLE_EQ(tolerance(2), 10.0 * u);
    EXPECT_DOUBLE_EQ(tolerance(1 << 20), 20.0 * tolerance(2));
    EXPECT_LT(tolerance(256), tolerance(1 << 24));
    EXPECT_THROW(tolerance(1000), Error);
}

TEST(FftTolerance, AcceptsARoundedExactResultAndRejectsOneWrongPoint) {
    const Shape s = one_d(4096, 2);
    auto want = noise(s.points(), 3);
    reference_transform(s, want, false);
    std::vector<float> got(2 * want.size());
    for (std::size_t i = 0; i < want.size(); ++i) {
        got[2 * i] = float(want[i].real());
        got[2 * i + 1] = float(want[i].imag());
    }
    const double tol = tolerance(s.length);
    const Comparison exact = compare(s, got, want, 1.0);
    EXPECT_LT(exact.worst, tol / 10) << "float rounding alone is far below the tolerance";
    EXPECT_GT(exact.worst, 0.0);

    // One point of transform 1 off by 1% of the transform's rms value: must fail.
    double rms = 0;
    for (std::int64_t i = s.length; i < 2 * s.length; ++i) rms += std::norm(want[std::size_t(i)]);
    rms = std::sqrt(rms / double(s.length));
    auto bad = got;
    bad[std::size_t(2 * (s.length + 100))] += float(0.01 * rms);
    const Comparison c = compare(s, bad, want, 1.0);
    EXPECT_GT(c.worst, tol);
    EXPECT_EQ(c.worst_transform, 1);

    bad = got;
    bad[7] = std::nanf("");
    EXPECT_TRUE(std::isnan(compare(s, bad, want, 1.0).worst));

    // The scale applies to the values compared (cuFFT's unnormalised round trip).
    auto twice = got;
    for (float& f : twice) f *= 2.0f;
    EXPECT_LT(compare(s, twice, want, 0.5).worst, tol / 10);
    EXPECT_GT(compare(s, twice, want, 1.0).worst, 0.5);
}

// ---- plans ----------------------------------------------------------------------------------

namespace {

DeviceInfo device_info(std::size_t local, std::size_t group, int compute_units = 132, bool gpu = true) {
    DeviceInfo i;
    i.max_local_mem_bytes = local;
    i.max_work_group_size = group;
    i.compute_units = compute_units;
    i.is_gpu = gpu;
    return i;
}

const DeviceInfo kH100 = device_info(227 * 1024, 1024);
const DeviceInfo kNvidiaOpenCL = device_info(48 * 1024, 1024);
const DeviceInfo kPocl = device_info(4 << 20, 4096, 2, false);

// Each axis's passes multiply up to its length; every pass obeys the kernel's invariants.
void check_plan(const Shape& s, const std::vector<Pass>& plan, const Tuning& t) {
    SCOPED_TRACE(s.describe());
    ASSERT_FALSE(plan.empty());
    int log2_product = 0;
    for (const Pass& p : plan) {
        log2_product += p.log2R;
        EXPECT_GE(p.log2R, kMinLog2R);
        EXPECT_LE(p.log2R, std::min(kTwiddleLog2, t.log2_group_points()));
        const int log2_group = p.wide ? t.wide_group_log2(p.log2R) : t.log2_group;
        EXPECT_LE(p.local_bytes, p.wide ? t.wide_local_bytes(p.log2R) : t.group_local_limit);
        EXPECT_EQ(p.threads, 1 << log2_group);
        // A group holds C columns of R points, E (or R, if fewer) per work-item.
        EXPECT_EQ(p.log2C + p.log2R, log2_group + std::min(p.log2R, t.log2_points_per_item));
        // A wide pass is strided, at least min_strided_columns wide, and a strided pass of 4096
        // or 1024 points.
        if (p.wide) {
            EXPECT_TRUE(p.log2R == kTwiddleLog2 || p.log2R == kWide1024Log2R) << p.log2R;
            EXPECT_GT(p.log2M, 0);
            EXPECT_GE(1 << p.log2C, t.min_strided_columns);
        }
        EXPECT_EQ(p.columns * (std::int64_t(1) << p.log2R), s.points());
        EXPECT_EQ(p.twiddle_log2B() >= 0, p.log2Ns > 0);
        // A pass over contiguous columns is the whole transform of a row.
        if (p.log2M == 0) EXPECT_EQ(1 << p.log2R, s.dims == 1 ? s.length : s.cols);
    }
    EXPECT_EQ(log2_product, log2_exact(s.transform_size()));
}

}  // namespace

TEST(FftPlan, EveryDatasetObeysTheKernelInvariantsAndDependsOnTheDeviceOnlyThroughWideGroups) {
    // One plan for every GPU of 132 compute units that holds wide groups of 1024 work-items
    // in 48 KiB (CUDA on an H100, NVIDIA's OpenCL, a GPU with more local memory); where groups
    // stop at 256, and on CPUs (PoCL), narrow passes wherever the others take wide ones; PoCL
    // takes the wide ones where asked to (the kernel tests below).
    const Program& p = find_program("fft");
    const DeviceInfo small_groups = device_info(48 * 1024, 256);
    std::vector<std::string> wide;
    for (const auto& d : p.datasets()) {
        const Shape s = shape_of(d);
        const auto plan = make_plan(s, kTuning, kH100);
        check_plan(s, plan, kTuning);
        EXPECT_EQ(describe(make_plan(s, kTuning, device_info(4 << 20, 4096))), describe(plan)) << d.name;
        EXPECT_EQ(describe(make_plan(s, kTuning, kNvidiaOpenCL)), describe(plan)) << d.name;
        const auto narrow = make_plan(s, kTuning, small_groups);
        check_plan(s, narrow, kTuning);
        EXPECT_EQ(describe(narrow), describe(make_plan(s, kTuning, kH100, WidePasses::Never))) << d.name;
        EXPECT_EQ(describe(make_plan(s, kTuning, kPocl)), describe(narrow)) << d.name;
        EXPECT_EQ(describe(make_plan(s, kTuning, device_info(4 << 20, 4096, 132, false), WidePasses::Anywhere)),
                  describe(plan))
            << d.name;
        for (const Pass& pass : narrow) EXPECT_FALSE(pass.wide) << d.name;
        if (describe(narrow) != describe(plan)) wide.push_back(d.name);
    }
    // 2d-4096x4096's columns, 1d-16m's two passes of 4096, 1d-1mx16's two of 1024
    // (2d-1024x1024's one has 128 groups of 8 columns: too few for 132 compute units).
    EXPECT_EQ(wide, (std::vector<std::string>{"1d-1mx16", "1d-16m", "2d-4096x4096"}));
}

TEST(FftPlan, SpeedCriticalShapesUseFewWidePasses) {
    // 4096-point groups: 16 x 2^20 in two strided passes of 1024 points, 4 columns (32-byte
    // rows); 2^24 in three of 256 (16 columns, 128-byte rows); 4096 x 4096: rows in one
    // pass, columns in two of 64; transforms of up to 4096 points in one launch. With wide
    // groups, 8 columns of 1024 and two passes of 4096 for 2^24.
    EXPECT_EQ(describe(make_plan(one_d(1 << 20, 16), kTuning, kH100)), "1024sw/8 1024sw/8");
    EXPECT_EQ(describe(make_plan(one_d(1 << 20, 16), kTuning, kH100, WidePasses::Never)), "1024s/4 1024s/4");
    EXPECT_EQ(describe(make_plan(one_d(1 << 24, 1), kTuning, kH100)), "4096sw/4 4096sw/4");
    EXPECT_EQ(describe(make_plan(one_d(1 << 24, 1), kTuning, kH100, WidePasses::Never)), "256s/16 256s/16 256s/16");
    EXPECT_EQ(describe(make_plan(two_d(4096, 4096), kTuning, kH100, WidePasses::Never)), "4096/1 64s/64 64s/64");
    EXPECT_EQ(describe(make_plan(one_d(4096, 1024), kTuning, kH100)), "4096/1");
    EXPECT_EQ(describe(make_plan(one_d(256, 4096), kTuning, kH100)), "256/16");
    const auto p1 = make_plan(one_d(1 << 20, 16), kTuning, kH100);
    EXPECT_EQ(p1[0].log2Nsv, 0) << "first pass writes contiguous rows (staged)";
    EXPECT_EQ(p1[1].log2Ns, 10);
    EXPECT_EQ(p1[1].log2Nsv, 10);
    const auto p2 = make_plan(two_d(4096, 4096), kTuning, kH100, WidePasses::Never);
    EXPECT_EQ(p2[1].log2S, 12);
    EXPECT_EQ(p2[2].log2Nsv, 18);
}

TEST(FftPlan, StridedAxesOf4096PointsTakeOneWidePassWhereTheDeviceHoldsIt) {
    // 1024 work-items, 4 columns of 4096 points (128 KiB) exchanged in phases of 16 KiB: the
    // columns of 4096 x 4096 in one pass, on NVIDIA's OpenCL (48 KiB) as well.
    for (const DeviceInfo& dev : {kH100, kNvidiaOpenCL}) {
        const auto p = make_plan(two_d(4096, 4096), kTuning, dev);
        EXPECT_EQ(describe(p), "4096/1 4096sw/4");
        EXPECT_EQ(p[1].kernel(), "fft_r4096_wide");
        EXPECT_EQ(p[1].threads, 1024);
        EXPECT_EQ(p[1].local_bytes, 16u * 1024);
        EXPECT_EQ(p[1].log2M, 12);
        EXPECT_EQ(p[1].log2Nsv, 12);
        EXPECT_EQ(p[1].twiddle_log2B(), -1);
    }
    EXPECT_EQ(describe(make_plan(two_d(4096, 16), kTuning, kPocl, WidePasses::Anywhere)), "16/256 4096sw/4");
    EXPECT_EQ(describe(make_plan(two_d(4096, 16), kTuning, kPocl)), "16/256 64s/64 64s/64");
    // Not where the device lacks the local memory or the work-items, nor for other lengths,
    // or a tuning without wide groups, nor on a CPU unless asked (above).
    Tuning whole = kTuning;
    whole.group_local_limit = whole.wide_local_limit = 128 * 1024;  // the wide exchange in one phase
    EXPECT_EQ(make_plan(two_d(4096, 4096), whole, kH100).at(1).local_bytes, 128u * 1024);
    EXPECT_EQ(describe(make_plan(two_d(4096, 4096), whole, device_info(127 * 1024, 1024))), "4096/1 64s/64 64s/64");
    EXPECT_EQ(describe(make_plan(two_d(4096, 4096), kTuning, device_info(4 << 20, 512))), "4096/1 64s/64 64s/64");
    EXPECT_EQ(describe(make_plan(two_d(2048, 4096), kTuning, kH100)), "4096/1 64s/64 32s/128");
    Tuning off = kTuning;
    off.log2_wide_group = off.log2_group;
    EXPECT_EQ(off.wide_local_bytes(), 0u);
    EXPECT_EQ(describe(make_plan(two_d(4096, 4096), off, kH100)), "4096/1 64s/64 64s/64");
    EXPECT_EQ(describe(make_plan(one_d(1 << 24, 1), off, kH100)), "256s/16 256s/16 256s/16");
}

TEST(FftPlan, AxesOfWhole4096PointPartsTakeWidePassesOf4096) {
    // 2^24 in two wide passes (cuFFT's shape): the first writes contiguous rows (staged), the
    // second multiplies by the pass twiddles of 2^24 points; on NVIDIA's OpenCL too, and on
    // PoCL where asked to.
    for (const DeviceInfo& dev : {kH100, kNvidiaOpenCL, kPocl}) {
        const auto p = make_plan(one_d(1 << 24, 1), kTuning, dev, WidePasses::Anywhere);
        ASSERT_EQ(describe(p), "4096sw/4 4096sw/4");
        EXPECT_EQ(p[0].kernel(), "fft_r4096_wide");
        EXPECT_EQ(p[0].log2M, 12);
        EXPECT_EQ(p[0].log2Nsv, 0);
        EXPECT_EQ(p[0].twiddle_log2B(), -1);
        EXPECT_EQ(p[1].log2M, 12);
        EXPECT_EQ(p[1].log2Ns, 12);
        EXPECT_EQ(p[1].log2Nsv, 12);
        EXPECT_EQ(p[1].twiddle_log2B(), 12);
    }
    // Other lengths keep their passes; a device without groups of 1024 the narrow ones.
    EXPECT_EQ(describe(make_plan(one_d(1 << 16, 2), kTuning, kH100)), "256s/16 256s/16");
    EXPECT_EQ(describe(make_plan(one_d(1 << 23, 1), kTuning, kH100)), "256s/16 256s/16 128s/32");
    EXPECT_EQ(describe(make_plan(one_d(1 << 24, 1), kTuning, device_info(48 * 1024, 512))),
              "256s/16 256s/16 256s/16");
    EXPECT_EQ(describe(make_plan(one_d(1 << 24, 1), kTuning, kPocl)), "256s/16 256s/16 256s/16");
}

TEST(FftPlan, WideExchangePhasesFollowTheLocalLimit) {
    // 128 KiB of points: the parts in turn from 64 KiB down, then each in 2, 4, 8, 16 rounds;
    // the wide groups' own limit counts up to group_local_limit.
    struct Case {
        std::size_t wide_limit, group_limit;
        int phases, rounds;
        bool split;
    };
    for (const Case c : {Case{256 << 10, 256 << 10, 0, 0, false}, Case{128 << 10, 128 << 10, 0, 0, false},
                         Case{127 << 10, 128 << 10, 1, 0, true}, Case{64 << 10, 128 << 10, 1, 0, true},
                         Case{128 << 10, 48 << 10, 2, 1, true}, Case{32 << 10, 48 << 10, 2, 1, true},
                         Case{16 << 10, 48 << 10, 3, 2, true}, Case{48 << 10, 16 << 10, 3, 2, true},
                         Case{4 << 10, 48 << 10, 5, 4, true}}) {
        Tuning t = kTuning;
        t.wide_local_limit = c.wide_limit;
        t.group_local_limit = c.group_limit;
        SCOPED_TRACE(std::to_string(c.wide_limit) + " / " + std::to_string(c.group_limit));
        EXPECT_EQ(t.wide_log2_phases(), c.phases);
        EXPECT_EQ(t.wide_log2_rounds(), c.rounds);
        EXPECT_EQ(t.wide_split_exchange(), c.split);
        EXPECT_EQ(t.wide_local_bytes(), std::size_t(128 << 10) >> c.phases);
        EXPECT_LE(t.wide_local_bytes(), std::min(c.wide_limit, c.group_limit));
    }
    // The defaults: each part in 4 rounds, 16 KiB of 128 and 8 KiB of 64.
    EXPECT_EQ(kTuning.wide_log2_rounds(), 2);
    EXPECT_EQ(kTuning.wide_local_bytes(), 16u << 10);
    EXPECT_EQ(kTuning.wide_log2_rounds(kWide1024Log2R), 2);
    EXPECT_EQ(kTuning.wide_local_bytes(kWide1024Log2R), 8u << 10);
    // More than 16 rounds: no wide groups.
    Tuning tiny = kTuning;
    tiny.wide_local_limit = 2 << 10;
    EXPECT_EQ(tiny.wide_log2_phases(), -1);
    EXPECT_EQ(tiny.wide_local_bytes(), 0u);
}

TEST(FftPlan, StridedPassesOf1024PointsGoWideWhereTheirGroupsFillTheDevice) {
    // 512 work-items, 8 columns (64-byte rows), 64 KiB of points exchanged as the real and
    // then the imaginary parts, each in 4 rounds (8 KiB), where the pass has at least compute
    // units x 2 groups.
    const auto p = make_plan(one_d(1 << 20, 16), kTuning, kNvidiaOpenCL);
    ASSERT_EQ(p.size(), 2u);
    for (const Pass& pass : p) {
        EXPECT_EQ(pass.kernel(), "fft_r1024_wide");
        EXPECT_EQ(pass.threads, 512);
        EXPECT_EQ(pass.log2C, 3);
        EXPECT_EQ(pass.local_bytes, 8u * 1024);
        EXPECT_EQ(pass.groups(), 2048u);
    }
    EXPECT_EQ(p[0].log2Nsv, 0) << "the first pass still writes contiguous rows (staged)";
    EXPECT_TRUE(kTuning.wide_split_exchange(kWide1024Log2R));
    EXPECT_EQ(kTuning.wide_log2_rounds(kWide1024Log2R), 2);
    // 2d-1024x1024's column pass: 128 groups of 8, too few for 132 compute units, enough for 64.
    EXPECT_EQ(describe(make_plan(two_d(1024, 1024), kTuning, kH100)), "1024/4 1024s/4");
    EXPECT_EQ(describe(make_plan(two_d(1024, 1024), kTuning, device_info(48 * 1024, 1024, 64))), "1024/4 1024sw/8");
    // Not where groups stop below 512, nor without wide groups.
    EXPECT_EQ(describe(make_plan(one_d(1 << 20, 16), kTuning, device_info(48 * 1024, 256))), "1024s/4 1024s/4");
    Tuning off = kTuning;
    off.log2_wide1024_group = off.log2_group;
    EXPECT_EQ(off.wide_local_bytes(kWide1024Log2R), 0u);
    EXPECT_EQ(describe(make_plan(one_d(1 << 20, 16), off, kH100)), "1024s/4 1024s/4");
}

TEST(FftPlan, FallsBackToNarrowPassesWhereTheWideKernelAllowsFewerWorkItems) {
    // The device's limits allow a wide group, but the compiled kernel may not (registers):
    // the instance then plans without wide passes instead of failing.
    for (std::size_t limit : {std::size_t(1024), std::size_t(512)}) {
        test::RecordingDevice dev(Dialect::OpenCL, test::h100_info("cuda-prelude"));
        dev.kernel_group_limits["fft_r4096_wide"] = limit;
        CompileOptions co;
        co.defines = kernel_defines(kTuning);
        auto mod = dev.compile(program_source(find_program("fft"), Dialect::OpenCL), co);
        auto inst = make_kernel_instance(dev, *mod, two_d(4096, 16), Variant::Forward, 1);
        EXPECT_EQ(inst->picked_variant(), limit == 1024 ? "16/256 4096sw/4" : "16/256 64s/64 64s/64") << limit;
    }
}

TEST(FftPlan, RefusesDevicesThatCannotHoldAGroup) {
    const Shape s = one_d(4096, 2);
    EXPECT_THROW(make_plan(s, kTuning, device_info(16 * 1024, 1024)), Error);  // 32 KiB of local memory
    EXPECT_THROW(make_plan(s, kTuning, device_info(48 * 1024, 128)), Error);   // 256 work-items
    Tuning split = kTuning;
    split.group_local_limit = 16 * 1024;  // one plane, real and imaginary parts in turn
    EXPECT_TRUE(split.split_exchange());
    EXPECT_EQ(make_plan(s, split, device_info(16 * 1024, 1024)).at(0).local_bytes, 16u * 1024);
}

TEST(FftPlan, DefinesCarryTheTuning) {
    Tuning t = kTuning;
    t.log2_points_per_item = 3;
    t.log2_group = 6;
    t.group_local_limit = 1024;
    t.cuda_min_groups_per_sm_r4096 = 5;
    const auto d = kernel_defines(t);
    // 2^(10 + 3) points hold fewer than 4 columns of 4096: no wide groups, an empty wide kernel.
    for (const char* want : {"FFT_LOG2_E=3", "FFT_LOG2_GROUP=6", "FFT_SPLIT_EXCHANGE=1", "FFT_CU_MIN_GROUPS=4",
                             "FFT_CU_MIN_GROUPS_R4096=5", "FFT_LOG2_WIDE_GROUP=0", "FFT_WIDE_SPLIT_EXCHANGE=0",
                             "FFT_WIDE_LOG2_ROUNDS=0"})
        EXPECT_NE(std::find(d.begin(), d.end(), std::string(want)), d.end()) << want;
    const auto k = kernel_defines(kTuning);
    for (const char* want : {"FFT_LOG2_WIDE_GROUP=10", "FFT_WIDE_SPLIT_EXCHANGE=1", "FFT_WIDE_LOG2_ROUNDS=2",
                             "FFT_LOG2_WIDE1024_GROUP=9", "FFT_WIDE1024_SPLIT_EXCHANGE=1", "FFT_WIDE1024_LOG2_ROUNDS=2",
                             "FFT_CU_MIN_GROUPS_WIDE1024=2"})
        EXPECT_NE(std::find(k.begin(), k.end(), std::string(want)), k.end()) << want;
    EXPECT_EQ(find_program("fft").defines(), k);
}

TEST(FftPlan, TuningTextChangesNamedFieldsAndRefusesTheRest) {
    const Tuning t = parse_tuning(
        "log2_group=9,min_strided_columns=2,cuda_min_groups_per_sm_r4096=1,log2_wide_group=0,wide1024_local_limit=32768");
    EXPECT_EQ(t.cuda_min_groups_per_sm_r4096, 1);
    EXPECT_EQ(t.log2_wide_group, 0);
    EXPECT_EQ(t.wide1024_local_limit, 32768u);
    EXPECT_EQ(t.wide_local_limit, kTuning.wide_local_limit);
    EXPECT_EQ(t.wide_local_bytes(), 0u);
    EXPECT_EQ(t.log2_group, 9);
    EXPECT_EQ(t.min_strided_columns, 2);
    EXPECT_EQ(t.log2_points_per_item, kTuning.log2_points_per_item);
    EXPECT_TRUE(t.split_exchange()) << "8192 points of 8 bytes exceed 48 KiB";
    EXPECT_EQ(parse_tuning("").log2_group, kTuning.log2_group);
    for (const char* bad : {"log2_group", "log2_group=", "log2_group=9x", "log2_group=11", "log2_wide_group=11", "radix=16",
                            "log2_points_per_item=0", "min_strided_columns=-1"})
        EXPECT_THROW(parse_tuning(bad), Error) << bad;
}

TEST(FftPlan, TwiddleTablesHoldTheRightRoots) {
    // Stage table, radix 16: level 4 (16 rows of 16: W_256^(k j)), then level 8 (16 rows of
    // 256: W_4096^(k j)); entry [k][j] of a level is at level offset + k Ns + j.
    const auto inner = inner_twiddles(kTuning);
    ASSERT_EQ(kTuning.log2_points_per_item, 4);
    ASSERT_EQ(inner_twiddle_entries(kTuning), 16u * 16 + 16u * 256);
    ASSERT_EQ(inner.size(), 2 * inner_twiddle_entries(kTuning));
    const auto root = [](std::int64_t e, std::int64_t L) {
        const double a = -2.0 * M_PI * double(e) / double(L);
        return std::complex<double>(std::cos(a), std::sin(a));
    };
    const auto entry = [&](std::size_t i) { return std::complex<double>(inner[2 * i], inner[2 * i + 1]); };
    EXPECT_LT(std::abs(entry(3 * 16 + 5) - root(15, 256)), 1e-7);
    EXPECT_LT(std::abs(entry(256 + 15 * 256 + 255) - root(15 * 255, 4096)), 1e-7);
    EXPECT_FLOAT_EQ(inner[2 * (256 + 8 * 256 + 64)], float(std::sqrt(0.5)));  // W_4096^512 = (1 - i) / sqrt 2
    EXPECT_FLOAT_EQ(inner[2 * (256 + 8 * 256 + 64) + 1], -float(std::sqrt(0.5)));
    for (std::size_t j = 0; j < 256; ++j) EXPECT_EQ(entry(256 + j), std::complex<double>(1, 0)) << j;  // row 0
    // Radix 8: levels 3, 6 and 9.
    Tuning radix8 = kTuning;
    radix8.log2_points_per_item = 3;
    EXPECT_EQ(inner_twiddle_entries(radix8), 8u * (8 + 64 + 512));
    Pass p;
    p.log2R = 10;
    p.log2Ns = 10;  // L = 2^20, B = 2^10
    const auto t = pass_twiddles(p);
    ASSERT_EQ(t.size(), 2u * (1024 + 1024));
    // W_L^e = lo[e mod B] * hi[e / B] for e = 123456.
    const std::int64_t e = 123456, B = 1024;
    const std::complex<double> lo(t[2 * (e % B)], t[2 * (e % B) + 1]);
    const std::complex<double> hi(t[2 * (B + e / B)], t[2 * (B + e / B) + 1]);
    const double a = -2.0 * M_PI * double(e) / double(1 << 20);
    EXPECT_LT(std::abs(lo * hi - std::complex<double>(std::cos(a), std::sin(a))), 3 * std::ldexp(1.0, -24));
    Pass none;
    none.log2R = 8;
    EXPECT_TRUE(pass_twiddles(none).empty());
}

// ---- the kernels on PoCL --------------------------------------------------------------------

namespace {

class FftOnOpenCL : public testing::Test {
protected:
    static void SetUpTestSuite() {
        device_ = shared_opencl_device().device.get();
        reason_ = shared_opencl_device().reason;
    }
    static void TearDownTestSuite() {
        modules_.clear();
        device_ = nullptr;
    }
    void SetUp() override {
        TB_SKIP_WITHOUT_OPENCL_DEVICE(device_, reason_);
    }

    // kernels.cl compiled with the defines of `t` (once per distinct tuning).
    static Module& module_for(const Tuning& t) {
        const auto defines = kernel_defines(t);
        std::string key;
        for (const auto& d : defines) key += d + " ";
        auto it = modules_.find(key);
        if (it == modules_.end()) {
            CompileOptions co;
            co.defines = defines;
            it = modules_.emplace(key, device_->compile(program_source(find_program("fft"), Dialect::OpenCL), co)).first;
        }
        return *it->second;
    }

    // Runs both variants of `s` planned with `t`: they validate, and a poisoned, not computed
    // output does not. Wide passes wherever the device holds them, PoCL included: these tests
    // are the wide kernels' check on a CPU.
    static void run_and_validate(const Shape& s, const Tuning& t = kTuning, WidePasses wide = WidePasses::Anywhere) {
        for (Variant v : {Variant::Forward, Variant::Roundtrip}) {
            auto inst = make_kernel_instance(*device_, module_for(t), s, v, 11, t, wide);
            SCOPED_TRACE(s.describe() + (v == Variant::Forward ? " forward" : " roundtrip") + ", plan " +
                         inst->picked_variant());
            inst->poison();
            inst->run();
            device_->synchronize();
            const Validation ok = inst->validate();
            EXPECT_TRUE(ok.ok) << ok.detail;
            EXPECT_EQ(ok.checked, std::size_t(s.points()));
            inst->poison();
            EXPECT_FALSE(inst->validate().ok);
        }
    }

    // The plan this device gets for `s` with `t` (as run_and_validate plans it).
    static std::string plan_on_device(const Shape& s, const Tuning& t = kTuning, WidePasses wide = WidePasses::Anywhere) {
        return make_kernel_instance(*device_, module_for(t), s, Variant::Forward, 3, t, wide)->picked_variant();
    }

    // A shape whose wide passes run with the wide groups' local memory at `local_limit`
    // (group_local_limit at least as large), and the plan that must give.
    struct WideCase {
        Shape shape;
        std::size_t local_limit;
        const char* plan;
    };
    // Runs each case's forward transform on Oclgrind (the round trip's inverse runs the same
    // kernels on the same indices), then fails on anything Oclgrind reported; skips elsewhere.
    static void run_wide_cases_on_oclgrind(const std::vector<WideCase>& cases) {
        if (!on_oclgrind(*device_)) GTEST_SKIP() << "runs on Oclgrind only: ctest -R oclgrind";
        ASSERT_TRUE(std::getenv("OCLGRIND_LOG")) << "set OCLGRIND_LOG to the file Oclgrind reports to";
        for (const WideCase& c : cases) {
            Tuning t = kTuning;
            t.wide_local_limit = t.wide1024_local_limit = c.local_limit;
            t.group_local_limit = std::max(t.group_local_limit, c.local_limit);
            auto inst = make_kernel_instance(*device_, module_for(t), c.shape, Variant::Forward, 3, t, WidePasses::Anywhere);
            EXPECT_EQ(inst->picked_variant(), c.plan) << c.shape.describe() << ", limit " << c.local_limit;
            inst->poison();
            inst->run();
            device_->synchronize();
        }
        const auto report = oclgrind_report();
        ASSERT_TRUE(report) << "Oclgrind wrote no log to " << std::getenv("OCLGRIND_LOG");
        EXPECT_TRUE(report->empty()) << "Oclgrind reported:\n" << report->substr(0, 3000);
    }

    static Device* device_;
    static std::map<std::string, std::unique_ptr<Module>> modules_;
    static std::string reason_;
};
Device* FftOnOpenCL::device_ = nullptr;
std::map<std::string, std::unique_ptr<Module>> FftOnOpenCL::modules_;
std::string FftOnOpenCL::reason_;

}  // namespace

TEST_F(FftOnOpenCL, SmallDatasetsValidate) {
    for (const auto& d : find_program("fft").datasets())
        if (d.small) run_and_validate(shape_of(d));
}

TEST_F(FftOnOpenCL, MultiPassAxesValidate) {
    // Staged and strided passes (2^17: three of 64, 64, 32), rows longer than one group,
    // 2-D columns in one pass (in two: the test below), a 2-D image smaller than one group, every
    // remainder radix (2^13 = 16 x 16 x 2 x ..., 2^14, 2^15 in two passes).
    for (const Shape& s : {one_d(1 << 17, 1), one_d(1 << 13, 2), one_d(1 << 14, 1), one_d(1 << 15, 1),
                           two_d(16, 8192), two_d(8, 8), one_d(8, 64), one_d(32, 3),
                           one_d(2048, 2), one_d(512, 5)})
        run_and_validate(s);
}

TEST_F(FftOnOpenCL, StridedPassesOf1024PointsValidateWide) {
    // 2 x 2^20 points: two strided passes of 1024 in groups of 8 columns (256 groups a pass:
    // wide on devices of up to 128 compute units, PoCL's CPUs; on an H100 the suite's 1d-1mx16
    // validates them), exchanged as the parts in turn in 4 rounds each (kTuning); and in one.
    // The first pass stages its store through local memory, round by round.
    const Shape s = one_d(1 << 20, 2);
    const std::string plan = plan_on_device(s);
    if (plan != "1024sw/8 1024sw/8") GTEST_SKIP() << "this device plans " << plan;
    run_and_validate(s);
    Tuning whole = kTuning;
    whole.wide1024_local_limit = 32 << 10;  // 64 KiB of points: the parts in turn, no rounds
    whole.log2_wide_group = whole.log2_group;  // (no 4096-point wide kernel to build)
    ASSERT_EQ(whole.wide_log2_rounds(kWide1024Log2R), 0);
    EXPECT_EQ(plan_on_device(s, whole), "1024sw/8 1024sw/8");
    run_and_validate(s, whole);
}

TEST_F(FftOnOpenCL, StridedAxesOf4096PointsValidateWithAndWithoutTheWidePass) {
    // PoCL holds wide groups: the columns of 4096 x 16 in one wide pass (4 groups of 4
    // columns), and in two narrow ones as where groups stop at 512 work-items.
    const Shape s = two_d(4096, 16);
    for (WidePasses wide : {WidePasses::Anywhere, WidePasses::Never}) {
        EXPECT_EQ(plan_on_device(s, kTuning, wide), wide == WidePasses::Anywhere ? "16/256 4096sw/4" : "16/256 64s/64 64s/64");
        run_and_validate(s, kTuning, wide);
    }
}

TEST_F(FftOnOpenCL, TheWidePassValidatesInEveryExchangePhasing) {
    // The default (the parts in turn, each in 4 rounds) ran above; here the whole exchange at
    // once, the parts in turn, and 2 rounds each (tuning.hpp, wide_log2_phases).
    for (std::size_t limit : {std::size_t(128) << 10, std::size_t(64) << 10, std::size_t(32) << 10}) {
        Tuning t = kTuning;
        t.group_local_limit = t.wide_local_limit = limit;
        SCOPED_TRACE("wide_local_limit " + std::to_string(limit));
        ASSERT_GT(t.wide_local_bytes(), 0u);
        EXPECT_EQ(plan_on_device(two_d(4096, 16), t), "16/256 4096sw/4");
        run_and_validate(two_d(4096, 16), t);
    }
}

namespace {

// The kernels and the planner under other tunings: the real and imaginary parts exchanged in
// turn through one plane; radix-8 work-items; small groups (many passes, several columns per
// group, 2 points per row of a strided pass). One test per tuning, so that ctest runs them in
// parallel: each builds kernels.cl for its tuning on PoCL, the gate's longest test when they
// were one (54 s under ASan).
struct OtherTuning {
    std::string name;
    Tuning tuning;
};
void PrintTo(const OtherTuning& t, std::ostream* os) { *os << t.name; }

std::vector<OtherTuning> other_tunings() {
    Tuning split = kTuning;
    split.group_local_limit = 16 * 1024;
    Tuning radix8 = kTuning;
    radix8.log2_points_per_item = 3;
    radix8.log2_group = 7;
    Tuning small = kTuning;
    small.log2_points_per_item = 3;
    small.log2_group = 5;
    small.min_strided_columns = 2;
    small.group_local_limit = 1024;  // split as well
    return {{"split_exchange", split}, {"radix8", radix8}, {"small_groups", small}};
}

class FftTuningOnOpenCL : public FftOnOpenCL, public testing::WithParamInterface<OtherTuning> {};

}  // namespace

TEST_P(FftTuningOnOpenCL, Validates) {
    const Tuning& t = GetParam().tuning;
    SCOPED_TRACE("E = " + std::to_string(1 << t.log2_points_per_item) + ", group " + std::to_string(1 << t.log2_group) +
                 (t.split_exchange() ? ", split exchange" : ""));
    for (const Shape& s : {one_d(4096, 3), one_d(1 << 16, 1), one_d(1 << 13, 1), two_d(64, 256), two_d(8, 8),
                           one_d(8, 3)})
        run_and_validate(s, t);
}

INSTANTIATE_TEST_SUITE_P(OtherTunings, FftTuningOnOpenCL, testing::ValuesIn(other_tunings()),
                         [](const testing::TestParamInfo<OtherTuning>& i) { return i.param.name; });

// ---- local memory and barriers, checked by Oclgrind ----------------------------------------

// Oclgrind (an OpenCL simulator, Debian's `oclgrind`) reports every access outside a kernel's
// local memory and every pair of work-items racing on it, which PoCL lets pass: the
// 1024-point wide pass once staged its store of a whole plane in a round's share, which
// validated on PoCL and faulted on the H100. ctest runs these tests on Oclgrind alone
// (tests/oclgrind.cmake) with OCLGRIND_QUICK, so only each launch's first and last group run
// and the results are not validated here (the tests above do that on PoCL); they read
// Oclgrind's log afterwards (run_wide_cases_on_oclgrind).

// With OCLGRIND_DATA_RACES (`oclgrind.fft_wide_passes`): the wide 1024-point passes (2 x 2^20:
// the first stages its store, the second does not) with the parts in turn, in 2 rounds and
// in 4 (kTuning); the wide 4096-point pass at once, the parts in turn, in 2 rounds, 4
// (kTuning) and 8.
TEST_F(FftOnOpenCL, WidePassesKeepToTheirLocalMemoryAndBarriersInEveryPhasing) {
    run_wide_cases_on_oclgrind({{one_d(1 << 20, 2), 32 << 10, "1024sw/8 1024sw/8"},
                                {one_d(1 << 20, 2), 16 << 10, "1024sw/8 1024sw/8"},
                                {one_d(1 << 20, 2), 8 << 10, "1024sw/8 1024sw/8"},
                                {two_d(4096, 16), 128 << 10, "16/256 4096sw/4"},
                                {two_d(4096, 16), 64 << 10, "16/256 4096sw/4"},
                                {two_d(4096, 16), 32 << 10, "16/256 4096sw/4"},
                                {two_d(4096, 16), 16 << 10, "16/256 4096sw/4"},
                                {two_d(4096, 16), 8 << 10, "16/256 4096sw/4"}});
}

// 2^24's two wide 4096-point passes (the first stages its store, the second multiplies by
// pass twiddles) in kTuning's phases (`oclgrind.fft_wide_16m`): without race detection,
// whose shadow of the 256 MiB of buffers took a minute (the exchange's barriers are the
// 2-D pass's, checked above).
TEST_F(FftOnOpenCL, TwoWidePassesOf4096KeepToTheirLocalMemory) {
    run_wide_cases_on_oclgrind({{one_d(1 << 24, 1), kTuning.wide_local_limit, "4096sw/4 4096sw/4"}});
}

// ---- --save-outputs: one meaning on every backend ----------------------------------------

namespace {

// Stands in for cuFFT's unnormalised round trip on any device: leaves N x in out.
class UnnormalisedRoundtrip final : public FftInstance {
public:
    UnnormalisedRoundtrip(Device& dev, const Shape& s) : FftInstance(dev, s, Variant::Roundtrip, 5) {
        output_scale_ = 1.0 / double(s.transform_size());
    }
    void run() override {
        std::vector<float> y = input();
        for (float& f : y) f *= float(shape_.transform_size());
        dev_.upload(out_, y.data(), y.size() * sizeof(float));
    }
};

std::vector<float> floats_of(const std::vector<NamedArray>& arrays, const std::string& name) {
    for (const NamedArray& a : arrays)
        if (a.name == name) {
            EXPECT_EQ(a.dtype, "<c8");
            std::vector<float> v(a.data.size() / sizeof(float));
            std::memcpy(v.data(), a.data.data(), a.data.size());
            return v;
        }
    ADD_FAILURE() << "no array " << name;
    return {};
}

// Relative L2 distance of the saved output from the saved input (a round trip's dump).
double roundtrip_dump_error(Instance& inst) {
    inst.poison();
    inst.run();
    const auto arrays = inst.arrays();
    const auto in = floats_of(arrays, "input"), out = floats_of(arrays, "output");
    EXPECT_EQ(in.size(), out.size());
    double num = 0, den = 0;
    for (std::size_t i = 0; i < std::min(in.size(), out.size()); ++i) {
        num += (double(out[i]) - in[i]) * (double(out[i]) - in[i]);
        den += double(in[i]) * in[i];
    }
    return std::sqrt(num / den);
}

}  // namespace

TEST_F(FftOnOpenCL, SavedRoundtripOutputIsTheNormalisedResult) {
    // The program's passes normalise on their last store; an unnormalised round trip (cuFFT's)
    // is scaled by 1/N when dumped, exactly as validation scales it.
    for (const Shape& s : {one_d(4096, 2), two_d(64, 64)}) {
        SCOPED_TRACE(s.describe());
        auto ours = make_kernel_instance(*device_, module_for(kTuning), s, Variant::Roundtrip, 5);
        EXPECT_LT(roundtrip_dump_error(*ours), 2 * tolerance(s.transform_size()));
        UnnormalisedRoundtrip scaled(*device_, s);
        EXPECT_EQ(roundtrip_dump_error(scaled), 0.0) << "the dump must be x, not N x";
        EXPECT_TRUE(scaled.validate().ok) << "and validation must agree";
    }
}

TEST(FftProgram, SavedVendorRoundtripOutputIsTheNormalisedResult) {
    const Program& p = find_program("fft");
    std::unique_ptr<Device> dev;
    try {
        auto backend = make_backend("cuda-native");
        if (!backend->devices().empty()) dev = backend->open(0);
    } catch (const Error&) {
    }
    if (!dev) GTEST_SKIP() << "no CUDA device for cuFFT";
    for (const char* name : {"1d-4kx4", "2d-64x64"}) {
        SCOPED_TRACE(name);
        std::unique_ptr<Instance> inst;
        try {
            inst = p.prepare_vendor(*dev, find_dataset(p.datasets(), "fft", name), RunConfig{"roundtrip", LaunchMode::Stream, 1});
        } catch (const Error& e) {
            GTEST_SKIP() << e.what();
        }
        EXPECT_LT(roundtrip_dump_error(*inst), 2 * tolerance(shape_of(find_dataset(p.datasets(), "fft", name)).transform_size()));
    }
}

// ---- the program and its vendor baseline ----------------------------------------------------

TEST(FftProgram, DatasetsVariantsAndWorkModel) {
    const Program& p = find_program("fft");
    std::set<std::string> names;
    for (const auto& d : p.datasets()) {
        EXPECT_TRUE(names.insert(d.name).second) << "duplicate dataset " << d.name;
        const Shape s = shape_of(d);
        EXPECT_GE(p.device_bytes(d, "forward"), std::uint64_t(3 * s.points() * 8));
    }
    for (const char* required : {"1d-256x8", "2d-64x64", "1d-1mx16", "2d-4096x4096", "1d-16m", "1d-256x4096"})
        EXPECT_TRUE(names.count(required)) << required;
    EXPECT_EQ(p.variants(), (std::vector<std::string>{"forward", "roundtrip"}));
    EXPECT_THROW(parse_variant("inverse"), Error);
    EXPECT_THROW(p.device_bytes(p.datasets()[0], "nosuch"), Error);
    EXPECT_EQ(shape_of(find_dataset(p.datasets(), "fft", "1d-1mx16")).points(), std::int64_t(16) << 20);
    EXPECT_EQ(shape_of(find_dataset(p.datasets(), "fft", "2d-64x256")).cols, 256);
}

TEST(FftProgram, VendorBaselineIsCufftAndRefusesNonCudaDevices) {
    const Program& p = find_program("fft");
    EXPECT_TRUE(p.has_vendor_baseline());
    EXPECT_EQ(p.vendor_library(), "cuFFT");
    TB_SKIP_WITHOUT_SHARED_OPENCL_DEVICE();
    Device* const dev = shared_opencl_device().device.get();
    const Dataset d = find_dataset(p.datasets(), "fft", "1d-256x8");
    try {
        p.prepare_vendor(*dev, d, RunConfig{"forward", LaunchMode::Stream, 1});
        FAIL() << "prepare_vendor accepted an OpenCL device";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("cuda-native"), std::string::npos) << e.what();
    }
}
