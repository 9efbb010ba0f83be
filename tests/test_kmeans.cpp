// kmeans: the CPU reference against hand-computed answers, its tolerances against float
// emulations of the kernels, the blob generator, and the kernels on PoCL for shapes the
// suite's smallest dataset does not reach (d = 2, d = 34, n not a multiple of 4, k = 16, k = 1).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <map>
#include <set>

#include "backend.hpp"
#include "kmeans/blobs.hpp"
#include "kmeans/reference.hpp"
#include "kmeans/tuning.hpp"
#include "oclgrind_log.hpp"
#include "program.hpp"
#include "rng.hpp"
#include "shared_opencl_device.hpp"

using namespace tb;
namespace km = tb::kmeans;

namespace {

// ---- Reference: known answers ------------------------------------------------------------

TEST(KmeansReference, LloydOnAHandExample) {
    // 1-D points 0, 1, 10, 11, 12 from centroids {0, 1}:
    // it 1: {0} {1,10,11,12} -> 0, 8.5; it 2: {0,1} {10,11,12} -> 0.5, 11; then stable.
    const std::vector<float> x = {0, 1, 10, 11, 12};
    const km::Shape s{5, 1, 2};
    const auto init = km::first_points(x.data(), s);
    ASSERT_EQ(init, (std::vector<float>{0, 1}));
    std::vector<std::int32_t> labels;
    auto c = km::lloyd(x.data(), s, init.data(), 1, &labels);
    EXPECT_EQ(c, (std::vector<double>{0.0, 8.5}));
    EXPECT_EQ(labels, (std::vector<std::int32_t>{0, 1, 1, 1, 1}));
    c = km::lloyd(x.data(), s, init.data(), 3, &labels);
    EXPECT_EQ(c, (std::vector<double>{0.5, 11.0}));
    EXPECT_EQ(labels, (std::vector<std::int32_t>{0, 0, 1, 1, 1}));
}

TEST(KmeansReference, StepSumsAndFeatureMajorLayout) {
    // 2-D, n = 3: points (0,0) (4,0) (5,1), stored feature-major; centroids (0,0), (5,0).
    const std::vector<float> x = {0, 4, 5, 0, 0, 1};
    const km::Shape s{3, 2, 2};
    const std::vector<float> c = {0, 0, 5, 0};
    std::vector<std::int32_t> near(3);
    const km::Step st = km::assign_step(x.data(), s, c.data(), km::Distance::direct, nullptr, near.data());
    EXPECT_EQ(near, (std::vector<std::int32_t>{0, 1, 1}));
    EXPECT_EQ(st.count, (std::vector<std::int64_t>{1, 2}));
    EXPECT_EQ(st.sum, (std::vector<double>{0, 0, 9, 1}));
    EXPECT_TRUE(st.ambiguous.empty());
}

TEST(KmeansReference, ExactTiesGoToTheLowestIndexAndMayFlip) {
    // Point 1 lies exactly between centroids 0 and 2.
    const std::vector<float> x = {0, 1, 2};
    const km::Shape s{3, 1, 2};
    const std::vector<float> c = {0, 2};
    std::vector<std::int32_t> near(3);
    const km::Step own = km::assign_step(x.data(), s, c.data(), km::Distance::direct, nullptr, near.data());
    EXPECT_EQ(near[1], 0);
    ASSERT_EQ(own.ambiguous.size(), 1u);
    EXPECT_EQ(own.ambiguous[0].point, 1);
    EXPECT_EQ(own.ambiguous[0].allowed, 3u);

    const std::vector<std::int32_t> flipped = {0, 1, 1};
    const km::Step a = km::assign_step(x.data(), s, c.data(), km::Distance::direct, flipped.data());
    EXPECT_EQ(a.mismatches, 0u);
    EXPECT_EQ(a.flips, 1u);
    const std::vector<std::int32_t> wrong = {1, 0, 1};
    const km::Step b = km::assign_step(x.data(), s, c.data(), km::Distance::direct, wrong.data());
    EXPECT_EQ(b.mismatches, 1u);
    EXPECT_EQ(b.first_mismatch, 0);
    const std::vector<std::int32_t> poison = {-1, -1, -1};
    EXPECT_EQ(km::assign_step(x.data(), s, c.data(), km::Distance::direct, poison.data()).mismatches, 3u);
}

// ---- Tolerances against float emulations of the kernels -----------------------------------

// The kernels' distance: differences, squares and the sum in float, fused or not.
int float_nearest(const std::vector<float>& x, std::int64_t n, std::int64_t i, const std::vector<float>& c, int d,
                  int k, bool fused) {
    int best = 0;
    float bd = 0;
    for (int j = 0; j < k; ++j) {
        float s = 0;
        for (int f = 0; f < d; ++f) {
            const float t = x[std::size_t(f) * n + i] - c[std::size_t(j) * d + f];
            s = fused ? std::fma(t, t, s) : s + t * t;
        }
        if (j == 0 || s < bd) bd = s, best = j;
    }
    return best;
}

// n points scattered tightly around the bisector of centroids 0 and 1 (feature-major):
// float rounding decides many of them.
std::vector<float> near_bisector(const std::vector<float>& c, int d, std::int64_t n, Rng& rng) {
    std::vector<float> x(std::size_t(n) * d);
    std::vector<double> dir(d), r(d);
    double len2 = 0;
    for (int f = 0; f < d; ++f) dir[f] = double(c[d + f]) - c[f], len2 += dir[f] * dir[f];
    for (std::int64_t i = 0; i < n; ++i) {
        // The midpoint, moved along the bisector plane by a random vector and across it by
        // a tiny amount.
        double dot = 0;
        for (int f = 0; f < d; ++f) r[f] = rng.uniform_double() * 20 - 10, dot += r[f] * dir[f];
        const double across = (rng.uniform_double() - 0.5) * 1e-8;
        for (int f = 0; f < d; ++f)
            x[std::size_t(f) * n + i] =
                float(0.5 * (double(c[f]) + c[d + f]) + r[f] - dot / len2 * dir[f] + across * dir[f]);
    }
    return x;
}

TEST(KmeansTolerance, FloatLabelsNearTiesStayInTheAllowedSet) {
    std::uint64_t flips = 0;
    for (int d : {1, 2, 4, 34}) {
        SCOPED_TRACE("d=" + std::to_string(d));
        Rng rng(1000 + d);
        const int k = 3;
        std::vector<float> c(std::size_t(k) * d);
        for (auto& v : c) v = rng.uniform_float(0.0f, 100.0f);
        const std::int64_t n = 20000;
        const std::vector<float> x = near_bisector(c, d, n, rng);
        const km::Shape s{n, d, k};
        for (bool fused : {false, true}) {
            std::vector<std::int32_t> labels(n);
            for (std::int64_t i = 0; i < n; ++i) labels[i] = float_nearest(x, n, i, c, d, k, fused);
            const km::Step st = km::assign_step(x.data(), s, c.data(), km::Distance::direct, labels.data());
            EXPECT_EQ(st.mismatches, 0u) << (fused ? "fused" : "unfused");
            flips += st.flips;
        }
    }
    EXPECT_GT(flips, 0u) << "no near tie was decided differently in float: the test exercises nothing";
}

// The _d2/_d4 kernels' ranking, in their order: |c|^2 in float (a product, then fmas), then
// one fma per feature against -2c from it.
int expanded_nearest(const std::vector<float>& x, std::int64_t n, std::int64_t i, const std::vector<float>& c, int d,
                     int k) {
    int best = 0;
    float bs = 0;
    for (int j = 0; j < k; ++j) {
        const float* cj = c.data() + std::size_t(j) * d;
        float cc = cj[0] * cj[0];
        for (int f = 1; f < d; ++f) cc = std::fma(cj[f], cj[f], cc);
        float s = cc;
        for (int f = 0; f < d; ++f) s = std::fma(x[std::size_t(f) * n + i], -2.0f * cj[f], s);
        if (j == 0 || s < bs) bs = s, best = j;
    }
    return best;
}

TEST(KmeansTolerance, ExpandedFormLabelsNeedAndStayInTheirAllowedSet) {
    std::uint64_t flips = 0, outside_direct = 0;
    for (int d : {2, 4}) {
        SCOPED_TRACE("d=" + std::to_string(d));
        Rng rng(2000 + d);
        const int k = 3;
        std::vector<float> c(std::size_t(k) * d);
        // Clusters far from the origin for their size, where this form is weakest.
        for (auto& v : c) v = rng.uniform_float(1000.0f, 1020.0f);
        for (int f = 0; f < d; ++f) c[2 * d + f] += 500.0f;  // centroid 2: far from every point
        const std::int64_t n = 20000;
        const std::vector<float> x = near_bisector(c, d, n, rng);
        const km::Shape s{n, d, k};
        std::vector<std::int32_t> labels(n);
        for (std::int64_t i = 0; i < n; ++i) labels[i] = expanded_nearest(x, n, i, c, d, k);
        const km::Step st = km::assign_step(x.data(), s, c.data(), km::Distance::expanded, labels.data());
        EXPECT_EQ(st.mismatches, 0u);
        flips += st.flips;
        // The form rounds relative to |c|^2 + 2|x.c|, not to the distance: the direct
        // form's tighter set rejects some of its decisions.
        outside_direct += km::assign_step(x.data(), s, c.data(), km::Distance::direct, labels.data()).mismatches;
        // Still no blanket: centroid 2 is nowhere near a tie.
        const std::vector<std::int32_t> far(n, 2);
        EXPECT_EQ(km::assign_step(x.data(), s, c.data(), km::Distance::expanded, far.data()).mismatches,
                  std::uint64_t(n));
    }
    EXPECT_GT(flips, 0u) << "no near tie was decided differently in float: the test exercises nothing";
    EXPECT_GT(outside_direct, 0u) << "the expanded form stayed inside the direct form's bound";
}

// A point's allowed set is its own: the same wherever it lies in the array (the reference
// works in tiles of points; nothing may carry from one tile to the next).
TEST(KmeansTolerance, AllowedSetsDoNotDependOnThePointsPlace) {
    for (const km::Distance form : {km::Distance::direct, km::Distance::expanded}) {
        const int d = 4, k = 3;
        Rng rng(3000);
        std::vector<float> c(std::size_t(k) * d);
        for (auto& v : c) v = rng.uniform_float(1000.0f, 1020.0f);
        const std::int64_t n = 5000;
        const std::vector<float> x = near_bisector(c, d, n, rng);
        std::vector<float> reversed(x.size());
        for (int f = 0; f < d; ++f)
            for (std::int64_t i = 0; i < n; ++i)
                reversed[std::size_t(f) * n + i] = x[std::size_t(f) * n + (n - 1 - i)];
        const km::Shape s{n, d, k};
        std::map<std::int64_t, std::uint32_t> ahead, behind;
        for (const auto& a : km::assign_step(x.data(), s, c.data(), form, nullptr).ambiguous) ahead[a.point] = a.allowed;
        for (const auto& a : km::assign_step(reversed.data(), s, c.data(), form, nullptr).ambiguous)
            behind[n - 1 - a.point] = a.allowed;
        EXPECT_FALSE(ahead.empty()) << "no near tie: the test exercises nothing";
        EXPECT_EQ(ahead, behind) << (form == km::Distance::expanded ? "expanded" : "direct");
    }
}

// The kernels' update, in float and in their order (both dialects): each work-item adds its
// points (4 at a time, strided by 4 x block; one at a time when n % 4 != 0), runs of `run`
// work-items are combined by a pairwise tree (copy l + copy l + run/2, then ...), the runs
// are added in order, and a final work-group of final_block work-items adds the groups:
// each work-item the groups l, l + final_block, ... in order, then a pairwise tree; then
// one division.
float run_tree(std::vector<float> v) {  // v.size() a power of two
    for (std::size_t h = v.size() / 2; h > 0; h /= 2)
        for (std::size_t l = 0; l < h; ++l) v[l] += v[l + h];
    return v[0];
}

std::vector<float> emulate_update(const std::vector<float>& x, km::Shape s, const std::vector<std::int32_t>& labels,
                                  const std::vector<float>& prev, std::int64_t chunk, int block, int final_block,
                                  int run = 32) {
    const int d = s.d, k = s.k;
    const std::int64_t groups = (s.n + chunk - 1) / chunk;
    const std::int64_t step = s.n % 4 == 0 ? 4 : 1;  // float4 steps, or one point at a time
    std::vector<float> psum(std::size_t(groups) * k * d);
    std::vector<int> pcount(std::size_t(groups) * k);
    std::vector<float> acc(static_cast<std::size_t>(final_block));
    std::vector<int> cnt(static_cast<std::size_t>(final_block));
    for (std::int64_t g = 0; g < groups; ++g) {
        const std::int64_t begin = g * chunk, end = std::min(s.n, begin + chunk);
        for (int j = 0; j < k; ++j)
            for (int f = -1; f < d; ++f) {
                std::vector<float> item(static_cast<std::size_t>(block));
                for (int t = 0; t < block; ++t) {
                    float a = 0;
                    for (std::int64_t i = begin + step * t; i < end; i += step * block)
                        for (std::int64_t q = i; q < std::min(i + step, end); ++q)
                            if (labels[q] == j) a += f < 0 ? 1.0f : x[std::size_t(f) * s.n + q];
                    item[t] = a;
                }
                float sum = 0;
                for (int r = 0; r < block / run; ++r) {
                    const float part = run_tree(std::vector<float>(item.begin() + r * run, item.begin() + (r + 1) * run));
                    sum = r == 0 ? part : sum + part;
                }
                if (f < 0) pcount[std::size_t(j) * groups + g] = int(sum);
                else psum[(std::size_t(j) * d + f) * groups + g] = sum;
            }
    }
    std::vector<float> out(std::size_t(k) * d);
    for (int v = 0; v < k * d; ++v) {
        const int j = v / d;
        for (int t = 0; t < final_block; ++t) {
            float a = 0;
            int cn = 0;
            for (std::int64_t g = t; g < groups; g += final_block)
                a += psum[std::size_t(v) * groups + g], cn += pcount[std::size_t(j) * groups + g];
            acc[t] = a;
            cnt[t] = cn;
        }
        for (int h = final_block / 2; h > 0; h /= 2)
            for (int t = 0; t < h; ++t) acc[t] += acc[t + h], cnt[t] += cnt[t + h];
        out[v] = cnt[0] > 0 ? acc[0] / float(cnt[0]) : prev[v];
    }
    return out;
}

TEST(KmeansTolerance, EmulatedFloatUpdatePassesAndAPerturbedOneFails) {
    const km::Shape s{60000, 3, 4};
    const km::Blobs b = km::make_blobs(s.n, s.d, s.k, 5);
    const auto prev = km::first_points(b.points.data(), s);
    std::vector<std::int32_t> labels(s.n);
    const km::Step st =
        km::assign_step(b.points.data(), s, prev.data(), km::Distance::direct, nullptr, labels.data());
    const std::int64_t chunk = 4096;
    const int block = 64;
    const auto got = emulate_update(b.points, s, labels, prev, chunk, block, block);
    const int depth = km::summation_depth(chunk, block, (s.n + chunk - 1) / chunk, block);
    const km::Step own = km::assign_step(b.points.data(), s, prev.data(), km::Distance::direct, labels.data());
    const km::CentroidCheck ok = km::check_centroids(own, b.points.data(), s, prev.data(), got.data(), depth);
    EXPECT_TRUE(ok.ok) << "worst " << ok.worst_err << " > " << ok.worst_tol;
    EXPECT_GT(ok.worst_err, 0.0) << "float and double means agree exactly: the test exercises nothing";
    // The self-labelled step (with near-tie slack) accepts it too.
    EXPECT_TRUE(km::check_centroids(st, b.points.data(), s, prev.data(), got.data(), depth).ok);

    // The tolerance is tight enough to see one coordinate moved by a few ulps' worth more.
    auto bad = got;
    bad[5] += float(4 * ok.worst_tol + 8 * std::fabs(bad[5]) * 0x1p-24);
    EXPECT_FALSE(km::check_centroids(own, b.points.data(), s, prev.data(), bad.data(), depth).ok);
    auto nan = got;
    std::uint32_t bits = 0xFFFFFFFFu;
    std::memcpy(&nan[0], &bits, 4);
    EXPECT_FALSE(km::check_centroids(own, b.points.data(), s, prev.data(), nan.data(), depth).ok);
}

TEST(KmeansTolerance, EmptyClusterKeepsItsCentroidExactly) {
    // Centroid 1 is far from every point: it stays where it was, bit for bit.
    const std::vector<float> x = {0, 1, 2, 3};
    const km::Shape s{4, 1, 2};
    const std::vector<float> prev = {1, 1000};
    const km::Step st = km::assign_step(x.data(), s, prev.data(), km::Distance::direct, nullptr);
    ASSERT_EQ(st.count[1], 0);
    const int depth = km::summation_depth(4, 64, 1, 64);
    std::vector<float> got = {1.5f, 1000.0f};
    EXPECT_TRUE(km::check_centroids(st, x.data(), s, prev.data(), got.data(), depth).ok);
    got[1] = std::nextafter(1000.0f, 2000.0f);
    EXPECT_FALSE(km::check_centroids(st, x.data(), s, prev.data(), got.data(), depth).ok);
}

// ---- Blob generator -----------------------------------------------------------------------

TEST(KmeansBlobs, DeterministicBoundedAndCentred) {
    const std::int64_t n = 40000;
    const int d = 3, blobs = 5;
    const km::Blobs a = km::make_blobs(n, d, blobs, 11, true);
    const km::Blobs again = km::make_blobs(n, d, blobs, 11);
    EXPECT_EQ(a.points, again.points);
    EXPECT_NE(a.points, km::make_blobs(n, d, blobs, 12).points);
    ASSERT_EQ(a.points.size(), std::size_t(n) * d);
    const double reach = 2 * std::sqrt(3.0) * km::kSigma * (1 + 1e-6);
    std::vector<double> mean(std::size_t(blobs) * d, 0.0);
    std::vector<std::int64_t> count(blobs, 0);
    for (std::int64_t i = 0; i < n; ++i) {
        const int b = a.blob_of[i];
        ASSERT_GE(b, 0);
        ASSERT_LT(b, blobs);
        ++count[b];
        for (int f = 0; f < d; ++f) {
            const double v = a.points[std::size_t(f) * n + i], c = a.centres[std::size_t(b) * d + f];
            ASSERT_LE(std::fabs(v - c), reach);
            mean[std::size_t(b) * d + f] += v;
        }
    }
    for (int b = 0; b < blobs; ++b) {
        EXPECT_NEAR(double(count[b]) / n, 1.0 / blobs, 0.02);
        for (int f = 0; f < d; ++f)  // standard error of a blob mean is sigma/sqrt(8000) ~ 0.045
            EXPECT_NEAR(mean[std::size_t(b) * d + f] / count[b], a.centres[std::size_t(b) * d + f], 0.3);
    }
    for (float c : a.centres) {
        EXPECT_GE(c, 0.0f);
        EXPECT_LT(c, float(km::kBox));
    }
}

// ---- Program and kernels on PoCL ----------------------------------------------------------

TEST(KmeansProgram, DatasetsAndVariants) {
    const Program& p = find_program("kmeans");
    EXPECT_EQ(p.variants(), (std::vector<std::string>{"full", "assign"}));
    EXPECT_TRUE(p.iterative());
    std::set<std::string> names;
    bool big = false;
    for (const auto& d : p.datasets()) {
        EXPECT_TRUE(names.insert(d.name).second) << d.name;
        EXPECT_GT(p.device_bytes(d, "full"), p.device_bytes(d, "assign"));
        EXPECT_GE(p.device_bytes(d, "assign"), std::uint64_t(d.param("n")) * (d.param("d") + 1) * 4);
        big = big || d.param("n") >= 10000000;
    }
    EXPECT_TRUE(big) << "no dataset of 10M points";
    Dataset bad{"bad", {{"n", 100}, {"d", 2}, {"k", 17}, {"iters", 1}, {"blobs", 2}}, "", true, ""};
    EXPECT_THROW(p.device_bytes(bad, "full"), Error);
    EXPECT_THROW(p.device_bytes(p.datasets()[0], "nosuch"), Error);
}

class KmeansOnPocl : public testing::Test {
protected:
    static void SetUpTestSuite() {
        device_ = shared_opencl_device().device.get();
        if (device_) {
            const Program& p = find_program("kmeans");
            CompileOptions co;
            co.defines = p.defines();
            module_ = device_->compile(program_source(p, Dialect::OpenCL), co).release();
        }
    }
    static void TearDownTestSuite() {
        delete module_;
        module_ = nullptr;
        device_ = nullptr;
    }
    void SetUp() override { TB_SKIP_WITHOUT_SHARED_OPENCL_DEVICE(); }
    static Device* device_;
    static Module* module_;
};
Device* KmeansOnPocl::device_ = nullptr;
Module* KmeansOnPocl::module_ = nullptr;

Dataset shape(std::int64_t n, int d, int k, int iters) {
    return Dataset{"t", {{"n", n}, {"d", d}, {"k", k}, {"iters", iters}, {"blobs", k}}, "", true, ""};
}

std::map<std::string, NamedArray> run_once(Device& dev, Module& mod, const Dataset& ds, const std::string& variant,
                                           Validation* v) {
    auto inst = find_program("kmeans").prepare(dev, mod, ds, RunConfig{variant, LaunchMode::Stream, 3});
    inst->poison();
    inst->run();
    dev.synchronize();
    *v = inst->validate();
    std::map<std::string, NamedArray> out;
    for (auto& a : inst->arrays()) out[a.name] = std::move(a);
    return out;
}

struct Case {
    std::int64_t n;
    int d, k;
    std::string label() const {
        return "n=" + std::to_string(n) + " d=" + std::to_string(d) + " k=" + std::to_string(k);
    }
};

// Both variants on the points of case c, `iters` iterations: each validates every point.
void expect_both_variants_validate(Device& dev, Module& mod, const Case& c, int iters) {
    for (const std::string variant : {"full", "assign"}) {
        SCOPED_TRACE(c.label() + " " + variant);
        Validation v;
        run_once(dev, mod, shape(c.n, c.d, c.k, iters), variant, &v);
        EXPECT_TRUE(v.ok) << v.detail;
        EXPECT_GT(v.checked, std::size_t(c.n) - 1);
    }
}

TEST_F(KmeansOnPocl, EveryKernelPathValidates) {
    // d=2/d=4 with n % 4 == 0 take the _d2/_d4 kernels, the rest the generic ones.
    for (const Case c : {Case{4096, 2, 5}, Case{4096, 4, 16}, Case{1001, 4, 5}, Case{3000, 34, 5}, Case{2051, 3, 1},
                         Case{6000, 7, 12}})
        expect_both_variants_validate(*device_, *module_, c, 4);
}

// The kernels on Oclgrind, which reports accesses outside a buffer or a work-group's local
// memory and work-items racing on them (PoCL lets both pass): the staged centroids and the
// partial sums' local histograms, on the suite's small dataset's shape (the _d4 kernels), on
// the generic kernels (d = 3, n not a multiple of 4) and on the _d2 ones with k > 8, each
// variant validated, and nothing in Oclgrind's log. Two iterations, not the datasets' ten:
// the later ones repeat the second's accesses, and each took two seconds of simulation.
// tests/oclgrind.cmake runs it (`oclgrind.kmeans`).
TEST_F(KmeansOnPocl, EveryKernelPathKeepsToItsMemoryOnOclgrind) {
    if (!on_oclgrind(*device_)) GTEST_SKIP() << "runs on Oclgrind only: ctest -R oclgrind";
    ASSERT_TRUE(std::getenv("OCLGRIND_LOG")) << "set OCLGRIND_LOG to the file Oclgrind reports to";
    for (const Case c : {Case{8192, 4, 5}, Case{1001, 3, 5}, Case{1024, 2, 12}})
        expect_both_variants_validate(*device_, *module_, c, 2);
    const auto report = oclgrind_report();
    ASSERT_TRUE(report) << "Oclgrind wrote no log to " << std::getenv("OCLGRIND_LOG");
    EXPECT_TRUE(report->empty()) << "Oclgrind reported:\n" << report->substr(0, 3000);
}

// The update's summation order is the documented one (emulate_update): one iteration's
// centroids equal the emulation's bit for bit, for the fixed-d kernels (d = 4, k <= 8 and
// k > 8) and the generic ones (d = 3, n not a multiple of 4). Groups as kmeans.cpp plans them.
TEST_F(KmeansOnPocl, UpdateAddsInTheDocumentedOrder) {
    for (const Case c : {Case{20000, 4, 5}, Case{20000, 4, 12}, Case{9001, 3, 6}}) {
        SCOPED_TRACE(c.label());
        Validation v;
        auto out = run_once(*device_, *module_, shape(c.n, c.d, c.k, 1), "full", &v);
        ASSERT_TRUE(v.ok) << v.detail;
        const km::Shape s{c.n, c.d, c.k};
        std::vector<float> x(std::size_t(s.n) * s.d), init(std::size_t(s.k) * s.d), got(init.size());
        std::vector<std::int32_t> labels(std::size_t(s.n));
        std::memcpy(x.data(), out["points"].data.data(), x.size() * 4);
        std::memcpy(init.data(), out["initial_centroids"].data.data(), init.size() * 4);
        std::memcpy(got.data(), out["centroids"].data.data(), got.size() * 4);
        std::memcpy(labels.data(), out["labels"].data.data(), labels.size() * 4);
        const std::int64_t groups = std::clamp<std::int64_t>((s.n + km::kMinChunk - 1) / km::kMinChunk, 1, km::kMaxGroups);
        const std::int64_t chunk = ((s.n + groups - 1) / groups + 3) / 4 * 4;
        const auto want = emulate_update(x, s, labels, init, chunk, int(km::kPartialBlock), int(km::kBlock), int(km::kRun));
        for (std::size_t i = 0; i < want.size(); ++i) EXPECT_EQ(got[i], want[i]) << "coordinate " << i;
    }
}

// The tuning constants come from tuning.hpp only: each reaches the kernels as a define and
// kernels.cl refuses to build without them.
TEST_F(KmeansOnPocl, TuningConstantsComeFromTheHost) {
    const Program& p = find_program("kmeans");
    const std::vector<std::string> want = {"KM_KMAX=" + std::to_string(km::kKmax),
                                           "KM_BLOCK=" + std::to_string(km::kBlock),
                                           "KM_ASSIGN_MIN_GROUPS=" + std::to_string(km::kAssignMinGroups),
                                           "KM_PARTIAL_BLOCK=" + std::to_string(km::kPartialBlock),
                                           "KM_RUN=" + std::to_string(km::kRun)};
    EXPECT_EQ(p.defines(), want);
    for (std::size_t skip = 0; skip < want.size(); ++skip) {
        CompileOptions co;
        for (std::size_t i = 0; i < want.size(); ++i)
            if (i != skip) co.defines.push_back(want[i]);
        const std::string name = want[skip].substr(0, want[skip].find('='));
        try {
            device_->compile(program_source(p, Dialect::OpenCL), co);
            ADD_FAILURE() << "kernels.cl built without " << name;
        } catch (const Error& e) {
            EXPECT_NE(std::string(e.what()).find(name + " must come from the host"), std::string::npos) << e.what();
        }
    }
}

TEST_F(KmeansOnPocl, RunsAreBitwiseRepeatableAndFindTheBlobs) {
    const Dataset ds = shape(8000, 2, 4, 10);
    Validation v1, v2;
    auto a = run_once(*device_, *module_, ds, "full", &v1);
    auto b = run_once(*device_, *module_, ds, "full", &v2);
    ASSERT_TRUE(v1.ok) << v1.detail;
    ASSERT_TRUE(v2.ok) << v2.detail;
    EXPECT_EQ(a["centroids"].data, b["centroids"].data);  // fixed summation order
    EXPECT_EQ(a["labels"].data, b["labels"].data);

    // An independent double-precision run from the same start lands on the same clustering
    // (up to the few points a near tie may send the other way).
    const km::Shape s{8000, 2, 4};
    std::vector<float> x(s.n * s.d), init(s.k * s.d);
    std::memcpy(x.data(), a["points"].data.data(), x.size() * 4);
    std::memcpy(init.data(), a["initial_centroids"].data.data(), init.size() * 4);
    std::vector<std::int32_t> ref;
    km::lloyd(x.data(), s, init.data(), 10, &ref);
    std::vector<std::int32_t> got(s.n);
    std::memcpy(got.data(), a["labels"].data.data(), got.size() * 4);
    std::int64_t same = 0;
    for (std::int64_t i = 0; i < s.n; ++i) same += got[i] == ref[i];
    EXPECT_GE(same, s.n - 8);
}

}  // namespace
