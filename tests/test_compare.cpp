// Unit tests of comparison: the Mann-Whitney U test, compare of two runs, the backend
// matrix, the Futhark export and the report's data. Reference p-values were computed with
// scipy 1.17 (scipy.stats.mannwhitneyu / permutation_test); the tests do not need scipy.
#include <cmath>
#include <cstdint>
#include <fstream>
#include <iterator>
#include <stdexcept>
#include <map>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "compare/compare.hpp"
#include "report/compare_text.hpp"
#include "report/formats/console.hpp"
#include "report/formats/futhark.hpp"
#include "report/formats/json.hpp"
#include "report/formats/markdown.hpp"
#include "stats/mann_whitney.hpp"
#include "support/gzip_text.hpp"
#include "read_file.hpp"
#include "report/report.hpp"

using namespace tb;

// --- Mann-Whitney U -------------------------------------------------------------------

TEST(MannWhitney, ExactWithoutTiesMatchesScipy) {
    // Complete separation, 4 vs 5: U = 0, p = 2 / C(9, 4) = 2 / 126.
    const MannWhitney a = mann_whitney_u({1.1, 2.3, 3.5, 4.2}, {5.0, 6.1, 7.7, 8.3, 9.9});
    EXPECT_TRUE(a.exact);
    EXPECT_DOUBLE_EQ(a.u, 0);
    EXPECT_NEAR(a.p_value, 0.015873015873015872, 1e-14);
    // scipy.stats.mannwhitneyu([19,22,16,29,24], [20,11,17,12], method='exact'): U 17, p 1/9.
    const MannWhitney b = mann_whitney_u({19, 22, 16, 29, 24}, {20, 11, 17, 12});
    EXPECT_DOUBLE_EQ(b.u, 17);
    EXPECT_NEAR(b.p_value, 0.1111111111111111, 1e-14);
    // 32 vs 32 interleaved, the largest exact case: U 496, p 0.83627.
    std::vector<double> x, y;
    for (int i = 0; i < 64; i += 2) {
        x.push_back(i);
        y.push_back(i + 1.5);
    }
    const MannWhitney c = mann_whitney_u(x, y);
    EXPECT_TRUE(c.exact);
    EXPECT_DOUBLE_EQ(c.u, 496);
    EXPECT_NEAR(c.p_value, 0.8362698549351051, 1e-12);
}

namespace {

// Brute force: every way of splitting the pooled values into groups of the original sizes,
// U counted pair by pair. An independent route to the exact p with ties.
double brute_force_p(const std::vector<double>& x, const std::vector<double>& y) {
    std::vector<double> all = x;
    all.insert(all.end(), y.begin(), y.end());
    const std::size_t n = all.size(), n1 = x.size();
    auto u_of = [&](std::uint32_t mask) {
        double u = 0;
        for (std::size_t i = 0; i < n; ++i)
            for (std::size_t j = 0; j < n; ++j)
                if ((mask >> i & 1) && !(mask >> j & 1)) u += all[i] > all[j] ? 1 : all[i] == all[j] ? 0.5 : 0;
        return u;
    };
    const double observed = u_of((1u << n1) - 1);
    double total = 0, le = 0, ge = 0;
    for (std::uint32_t mask = 0; mask < (1u << n); ++mask) {
        if (std::size_t(__builtin_popcount(mask)) != n1) continue;
        const double u = u_of(mask);
        total += 1;
        le += u <= observed + 1e-9;
        ge += u >= observed - 1e-9;
    }
    return std::min(1.0, 2 * std::min(le, ge) / total);
}

}  // namespace

TEST(MannWhitney, ExactWithTiesIsThePermutationTest) {
    const std::vector<double> a = {0.8, 1.2, 1.2, 1.5, 2.0, 2.0, 2.0, 3.1};
    const std::vector<double> b = {1.2, 2.0, 2.4, 2.9, 3.1, 3.3, 4.0};
    const MannWhitney m = mann_whitney_u(a, b);
    EXPECT_TRUE(m.exact);
    EXPECT_TRUE(m.ties);
    EXPECT_DOUBLE_EQ(m.u, 11);
    // scipy.stats.permutation_test(U, permutation_type='independent', n_resamples=inf).
    EXPECT_NEAR(m.p_value, 0.046620046620046623, 1e-12);
    EXPECT_NEAR(m.p_value, brute_force_p(a, b), 1e-12);
    const std::vector<double> c = {1, 1, 2, 3}, d = {1, 2, 2, 4, 5};
    EXPECT_NEAR(mann_whitney_u(c, d).p_value, brute_force_p(c, d), 1e-12);
}

TEST(MannWhitney, NormalApproximationMatchesScipy) {
    // 40 vs 45 values on a 0.01 grid: many ties. scipy method='asymptotic', continuity on.
    const std::vector<double> x = {1.0,  1.14, 1.05, 1.19, 1.1,  1.01, 1.15, 1.06, 1.2,  1.11, 1.02, 1.16, 1.07, 1.21,
                                   1.12, 1.03, 1.17, 1.08, 1.22, 1.13, 1.04, 1.18, 1.09, 1.0,  1.14, 1.05, 1.19, 1.1,
                                   1.01, 1.15, 1.06, 1.2,  1.11, 1.02, 1.16, 1.07, 1.21, 1.12, 1.03, 1.17};
    const std::vector<double> y = {1.03, 1.13, 1.04, 1.14, 1.05, 1.15, 1.06, 1.16, 1.07, 1.17, 1.08, 1.18,
                                   1.09, 1.19, 1.1,  1.2,  1.11, 1.21, 1.12, 1.03, 1.13, 1.04, 1.14, 1.05,
                                   1.15, 1.06, 1.16, 1.07, 1.17, 1.08, 1.18, 1.09, 1.19, 1.1,  1.2,  1.11,
                                   1.21, 1.12, 1.03, 1.13, 1.04, 1.14, 1.05, 1.15, 1.06};
    const MannWhitney t = mann_whitney_u(x, y);
    EXPECT_FALSE(t.exact);
    EXPECT_TRUE(t.ties);
    EXPECT_DOUBLE_EQ(t.u, 848);
    EXPECT_NEAR(t.p_value, 0.6498781393624417, 1e-12);

    std::vector<double> x2, y2;
    for (int i = 0; i < 50; ++i) {
        x2.push_back(1.0 + 0.001 * ((i * 7919) % 1000) + i * 1e-7);
        y2.push_back(1.0 + 0.001 * ((i * 104729) % 1000) + 0.05 + i * 1e-7);
    }
    const MannWhitney u = mann_whitney_u(x2, y2);
    EXPECT_FALSE(u.ties);
    EXPECT_DOUBLE_EQ(u.u, 1071);
    EXPECT_NEAR(u.p_value, 0.2184923951740556, 1e-12);
}

TEST(MannWhitney, SymmetricInItsArguments) {
    const std::vector<double> a = {3, 1, 4, 1, 5, 9, 2, 6}, b = {2, 7, 1, 8, 2, 8};
    const MannWhitney ab = mann_whitney_u(a, b), ba = mann_whitney_u(b, a);
    EXPECT_DOUBLE_EQ(ab.u + ba.u, double(a.size() * b.size()));
    EXPECT_NEAR(ab.p_value, ba.p_value, 1e-14);
}

TEST(MannWhitney, DegenerateSamples) {
    EXPECT_DOUBLE_EQ(mann_whitney_u({}, {1, 2}).p_value, 1);
    EXPECT_DOUBLE_EQ(mann_whitney_u({2, 2, 2}, {2, 2}).p_value, 1);
    std::vector<double> flat(100, 5.0);
    EXPECT_DOUBLE_EQ(mann_whitney_u(flat, flat).p_value, 1);  // normal branch, zero variance
}

TEST(MannWhitney, SmallestReachablePValue) {
    EXPECT_NEAR(mann_whitney_min_p(3, 3), 0.1, 1e-15);        // 2 / C(6, 3)
    EXPECT_NEAR(mann_whitney_min_p(4, 4), 2.0 / 70, 1e-15);   // 2 / C(8, 4)
    EXPECT_DOUBLE_EQ(mann_whitney_min_p(1, 1), 1);
    EXPECT_LT(mann_whitney_min_p(100, 100), 1e-20);
    // The bound is what separated samples actually reach.
    EXPECT_NEAR(mann_whitney_u({1, 2, 3}, {4, 5, 6}).p_value, mann_whitney_min_p(3, 3), 1e-15);
}

// --- compare two runs -------------------------------------------------------------------

namespace {

// Seeded, portable noise: a 64-bit LCG (Knuth's MMIX constants) and Box-Muller, so the
// samples are the same with every standard library.
struct Noise {
    std::uint64_t state;
    double uniform() {
        state = state * 6364136223846793005ULL + 1442695040888963407ULL;
        return (double(state >> 11) + 0.5) * 0x1.0p-53;
    }
    double normal() { return std::sqrt(-2 * std::log(uniform())) * std::cos(6.283185307179586 * uniform()); }
};

std::vector<double> timings(double median, std::size_t n, std::uint64_t seed, double rsd = 0.02) {
    Noise noise{seed};
    std::vector<double> s;
    for (std::size_t i = 0; i < n; ++i) s.push_back(median * (1 + rsd * noise.normal()));
    return s;
}

BenchmarkResult bench(const std::string& name, std::vector<double> samples, Status st = Status::Ok,
                      const std::string& backend = "cuda-native") {
    BenchmarkResult b;
    b.name = name;
    b.program = name.substr(0, name.find('/'));
    b.dataset = "d";
    b.backend = backend;
    b.launch = "stream";
    b.variant = "default";
    b.device = backend + ":0";
    b.status = st;
    if (st != Status::Ok) b.error = "validation failed: x[3] = 7, expected 8";
    b.samples_ms = st == Status::Ok ? std::move(samples) : std::vector<double>{};
    b.summary = summarize(b.samples_ms);
    return b;
}

Results run_on(const std::string& device, int cc_major, std::vector<BenchmarkResult> bs) {
    Results r;
    r.environment = {{"tribench_version", "0.1.0"}, {"tribench_commit", "abc"}};
    for (const char* backend : {"cuda-native", "cuda-prelude", "opencl"}) {
        DeviceRecord d;
        d.id = std::string(backend) + ":0";
        d.info.name = device;
        d.info.cc_major = cc_major;
        r.devices.push_back(d);
    }
    r.benchmarks = std::move(bs);
    return r;
}

Results h100(std::vector<BenchmarkResult> bs) { return run_on("NVIDIA H100 80GB HBM3", 9, std::move(bs)); }

const ComparedBenchmark& row(const Comparison& c, const std::string& name) {
    for (const auto& b : c.benchmarks)
        if (b.name == name) return b;
    throw std::runtime_error("no row " + name);
}

std::vector<double> times(std::vector<double> s, double f) {
    for (double& x : s) x *= f;
    return s;
}

}  // namespace

TEST(Compare, IdenticalSamplesAreUnchanged) {
    const auto s = timings(1.0, 50, 1);
    const Results r = h100({bench("a/d/cuda-native", s), bench("b/d/cuda-native", timings(2.0, 50, 2))});
    const Comparison c = compare_results(r, r, {});
    ASSERT_EQ(c.benchmarks.size(), 2u);
    for (const auto& b : c.benchmarks) {
        EXPECT_EQ(b.verdict, Verdict::Unchanged) << b.name;
        EXPECT_DOUBLE_EQ(b.speedup, 1);
        EXPECT_NEAR(b.p_value, 1, 1e-12);
        EXPECT_FALSE(b.significant);
    }
    EXPECT_EQ(c.exit_code(), 0);
}

TEST(Compare, NoiseAloneIsNotChange) {
    // Two independent draws from one distribution: a different median, but not significant.
    const Results o = h100({bench("a/d/cuda-native", timings(1.0, 60, 11))});
    const Results n = h100({bench("a/d/cuda-native", timings(1.0, 60, 12))});
    const Comparison c = compare_results(o, n, {});
    EXPECT_NE(c.benchmarks[0].speedup, 1);
    EXPECT_GT(c.benchmarks[0].p_value, 0.05);
    EXPECT_EQ(c.benchmarks[0].verdict, Verdict::Unchanged);
    EXPECT_EQ(c.exit_code(), 0);
}

TEST(Compare, TenPercentSlowerIsASignificantRegression) {
    const auto s = timings(1.0, 50, 3);
    const Results o = h100({bench("a/d/cuda-native", s)});
    const Results n = h100({bench("a/d/cuda-native", times(timings(1.0, 50, 4), 1.1))});
    const Comparison c = compare_results(o, n, {});
    const auto& b = c.benchmarks[0];
    EXPECT_EQ(b.verdict, Verdict::Regression);
    EXPECT_TRUE(b.significant);
    EXPECT_TRUE(b.regression);
    EXPECT_LT(b.p_value, 1e-6);
    EXPECT_NEAR(b.speedup, 1 / 1.1, 0.02);
    EXPECT_NEAR(b.change_pct, 10, 2);
    EXPECT_EQ(c.exit_code(), 1);
}

TEST(Compare, TenPercentFasterIsAnImprovement) {
    const Results o = h100({bench("a/d/cuda-native", timings(1.0, 50, 5))});
    const Results n = h100({bench("a/d/cuda-native", times(timings(1.0, 50, 6), 1 / 1.1))});
    const Comparison c = compare_results(o, n, {});
    EXPECT_EQ(c.benchmarks[0].verdict, Verdict::Faster);
    EXPECT_NEAR(c.benchmarks[0].speedup, 1.1, 0.03);
    EXPECT_LT(c.benchmarks[0].change_pct, 0);
    EXPECT_FALSE(c.benchmarks[0].regression);
    EXPECT_EQ(c.exit_code(), 0);
}

TEST(Compare, ThresholdDecidesWhatIsARegression) {
    const Results o = h100({bench("a/d/cuda-native", timings(1.0, 80, 7, 0.01))});
    const Results slow10 = h100({bench("a/d/cuda-native", times(timings(1.0, 80, 8, 0.01), 1.10))});
    const Results slow3 = h100({bench("a/d/cuda-native", times(timings(1.0, 80, 9, 0.01), 1.03))});
    CompareOptions lenient;
    lenient.threshold_pct = 20;
    const Comparison a = compare_results(o, slow10, lenient);
    EXPECT_EQ(a.benchmarks[0].verdict, Verdict::Slower);  // significant, within 20%
    EXPECT_TRUE(a.benchmarks[0].significant);
    EXPECT_EQ(a.exit_code(), 0);
    const Comparison b = compare_results(o, slow3, {});  // 3% < default 5%
    EXPECT_EQ(b.benchmarks[0].verdict, Verdict::Slower);
    EXPECT_EQ(b.exit_code(), 0);
    CompareOptions strict;
    strict.threshold_pct = 2;
    EXPECT_EQ(compare_results(o, slow3, strict).benchmarks[0].verdict, Verdict::Regression);
    EXPECT_EQ(compare_results(o, slow3, strict).exit_code(), 1);
    // A stricter alpha keeps the same 3% shift significant only while p stays below it.
    CompareOptions tiny_alpha = strict;
    tiny_alpha.alpha = 1e-300;
    EXPECT_EQ(compare_results(o, slow3, tiny_alpha).benchmarks[0].verdict, Verdict::Unchanged);
}

TEST(Compare, TooFewSamplesAreNeverSignificant) {
    // 3 vs 3 samples: the smallest possible p is 0.1, so even a 50% shift is not a change.
    const Results o = h100({bench("a/d/cuda-native", {1.0, 1.01, 0.99})});
    const Results n = h100({bench("a/d/cuda-native", {1.5, 1.51, 1.49})});
    const Comparison c = compare_results(o, n, {});
    EXPECT_NEAR(c.benchmarks[0].p_value, 0.1, 1e-12);
    EXPECT_FALSE(c.benchmarks[0].testable);
    EXPECT_EQ(c.benchmarks[0].verdict, Verdict::Unchanged);
    EXPECT_NE(comparison_terminal(c, {"o", "n"}, false).find("too few samples"), std::string::npos);
}

TEST(Compare, OneSidedBenchmarksAreListed) {
    const auto s = timings(1.0, 20, 10);
    const Results o = h100({bench("a/d/cuda-native", s), bench("gone/d/cuda-native", s)});
    const Results n = h100({bench("new/d/cuda-native", s), bench("a/d/cuda-native", s)});
    const Comparison c = compare_results(o, n, {});
    ASSERT_EQ(c.benchmarks.size(), 3u);
    EXPECT_EQ(c.benchmarks[0].name, "a/d/cuda-native");  // OLD's order, then NEW-only
    EXPECT_EQ(row(c, "gone/d/cuda-native").verdict, Verdict::OnlyOld);
    EXPECT_EQ(c.benchmarks[2].name, "new/d/cuda-native");
    EXPECT_EQ(c.benchmarks[2].verdict, Verdict::OnlyNew);
    EXPECT_EQ(c.exit_code(), 0);
    const std::string text = comparison_terminal(c, {"o", "n"}, false);
    EXPECT_NE(text.find("only in OLD"), std::string::npos);
    EXPECT_NE(text.find("only in NEW"), std::string::npos);
}

TEST(Compare, StatusTransitions) {
    const auto s = timings(1.0, 20, 13);
    const Results o = h100({bench("broke/d/cuda-native", s), bench("fixed/d/cuda-native", s, Status::Error),
                            bench("still/d/cuda-native", s, Status::ValidationFailed),
                            bench("skip/d/cuda-native", s)});
    const Results n = h100({bench("broke/d/cuda-native", s, Status::ValidationFailed), bench("fixed/d/cuda-native", s),
                            bench("still/d/cuda-native", s, Status::ValidationFailed),
                            bench("skip/d/cuda-native", s, Status::Skipped)});
    const Comparison c = compare_results(o, n, {});
    EXPECT_EQ(row(c, "broke/d/cuda-native").verdict, Verdict::Broken);
    EXPECT_TRUE(row(c, "broke/d/cuda-native").regression);
    EXPECT_EQ(row(c, "fixed/d/cuda-native").verdict, Verdict::Fixed);
    EXPECT_EQ(row(c, "still/d/cuda-native").verdict, Verdict::NotCompared);
    EXPECT_EQ(row(c, "skip/d/cuda-native").verdict, Verdict::NotCompared);
    EXPECT_EQ(c.exit_code(), 1);
    const Comparison without_break = compare_results(
        h100({bench("fixed/d/cuda-native", s, Status::Error)}), h100({bench("fixed/d/cuda-native", s)}), {});
    EXPECT_EQ(without_break.exit_code(), 0);
    EXPECT_NE(comparison_terminal(c, {"o", "n"}, false).find("broken (NEW: validation failed: x[3] = 7"),
              std::string::npos);
}

TEST(Compare, DifferentDevicesRefusedUnlessForced) {
    const auto s = timings(1.0, 20, 14);
    const Results o = h100({bench("a/d/cuda-native", s)});
    const Results a100 = run_on("NVIDIA A100-SXM4-80GB", 8, {bench("a/d/cuda-native", s)});
    try {
        compare_results(o, a100, {});
        FAIL() << "compared results of different devices";
    } catch (const Error& e) {
        const std::string msg = e.what();
        EXPECT_NE(msg.find("different devices"), std::string::npos) << msg;
        EXPECT_NE(msg.find("NVIDIA A100-SXM4-80GB (cc 8.0)"), std::string::npos) << msg;
        EXPECT_NE(msg.find("--force"), std::string::npos) << msg;
        EXPECT_EQ(msg.find('\n'), std::string::npos);
    }
    // Same name, other compute capability: also a different device.
    EXPECT_THROW(compare_results(o, run_on("NVIDIA H100 80GB HBM3", 8, {bench("a/d/cuda-native", s)}), {}), Error);
    CompareOptions force;
    force.force = true;
    const Comparison c = compare_results(o, a100, force);
    ASSERT_EQ(c.device_mismatches.size(), 1u);
    EXPECT_EQ(c.benchmarks[0].verdict, Verdict::Unchanged);
    EXPECT_NE(comparison_terminal(c, {"o", "n"}, false).find("warning: --force"), std::string::npos);
}

// A benchmark timed by CUPTI in one run and by events in the other reads the clocks' offset
// (about 3 us on an H100) on top of any change: compare says so in every format.
TEST(Compare, BenchmarksTimedByDifferentClocksAreNamed) {
    const auto s = timings(1.0, 5, 15);
    BenchmarkResult a = bench("a/d/cuda-native", s), b = bench("b/d/cuda-native", s);
    a.timing = b.timing = "gated";
    a.timing_clock = b.timing_clock = "cupti";
    BenchmarkResult a2 = a, b2 = b;
    b2.timing_clock = "events";
    const Comparison c = compare_results(h100({a, b}), h100({a2, b2}), {});
    ASSERT_EQ(c.clock_mismatches.size(), 1u);
    EXPECT_EQ(c.clock_mismatches[0], "b/d/cuda-native: timed by cupti in OLD and by events in NEW");
    EXPECT_NE(comparison_terminal(c, {"o", "n"}, false).find("warning: different clocks: b/d/cuda-native"),
              std::string::npos);
    EXPECT_TRUE(compare_results(h100({a, b}), h100({a, b}), {}).clock_mismatches.empty());
}

// So is one timed plainly in one run and gated in the other, even by the same clock: before
// 2026-11-27 runs of more than 256 launches were timed plainly (the host's launch loop).
TEST(Compare, BenchmarksTimedPlainlyInOneRunAreNamed) {
    const auto s = timings(1.0, 5, 15);
    BenchmarkResult a = bench("a/d/cuda-native", s);
    a.timing = "plain";
    a.timing_clock = "events";
    BenchmarkResult a2 = a;
    a2.timing = "gated";
    const Comparison c = compare_results(h100({a}), h100({a2}), {});
    ASSERT_EQ(c.clock_mismatches.size(), 1u);
    EXPECT_EQ(c.clock_mismatches[0], "a/d/cuda-native: timed plainly by events in OLD and by events in NEW");
    EXPECT_TRUE(compare_results(h100({a}), h100({a}), {}).clock_mismatches.empty());
}

TEST(Compare, DuplicateNamesAreBadInput) {
    const auto s = timings(1.0, 5, 15);
    const Results twice = h100({bench("a/d/cuda-native", s), bench("a/d/cuda-native", s)});
    EXPECT_THROW(compare_results(twice, h100({}), {}), Error);
}

TEST(Compare, FormatsCarryTheVerdicts) {
    const Results o = h100({bench("a/d/cuda-native", timings(1.0, 50, 16)), bench("b/d/cuda-native", timings(1.0, 50, 17))});
    const Results n = h100({bench("a/d/cuda-native", times(timings(1.0, 50, 18), 1.2)),
                            bench("b/d/cuda-native", times(timings(1.0, 50, 19), 0.8))});
    const Comparison c = compare_results(o, n, {});
    const RunLabels labels{"old.json", "new.json"};
    const std::string plain = comparison_terminal(c, labels, false);
    EXPECT_EQ(plain.find('\033'), std::string::npos);
    EXPECT_NE(plain.find("regression"), std::string::npos);
    EXPECT_NE(plain.find("summary: 1 regression, 1 faster"), std::string::npos) << plain;
    const std::string colored = comparison_terminal(c, labels, true);
    EXPECT_NE(colored.find("\033[32m"), std::string::npos);    // green: faster
    EXPECT_NE(colored.find("\033[1;31m"), std::string::npos);  // bold red: regression

    const std::string md = comparison_markdown(c, labels);
    EXPECT_NE(md.find("| benchmark | old ms | new ms | speedup | change | p | verdict |"), std::string::npos);
    EXPECT_NE(md.find("| **regression** |"), std::string::npos) << md;
    EXPECT_NE(md.find("a/d/cuda-native"), std::string::npos);

    const nlohmann::json j = comparison_json(c, labels);
    EXPECT_EQ(j["schema"], "tribench-compare");
    EXPECT_EQ(j["exit_code"], 1);
    ASSERT_EQ(j["benchmarks"].size(), 2u);
    const auto& a = j["benchmarks"][0];
    EXPECT_EQ(a["name"], "a/d/cuda-native");
    EXPECT_EQ(a["verdict"], "regression");
    EXPECT_TRUE(a["regression"].get<bool>());
    EXPECT_TRUE(a["significant"].get<bool>());
    EXPECT_LT(a["p_value"].get<double>(), 0.05);
    EXPECT_NEAR(a["speedup"].get<double>(), a["old_median_ms"].get<double>() / a["new_median_ms"].get<double>(), 1e-12);
    EXPECT_EQ(j["benchmarks"][1]["verdict"], "faster");
}

TEST(Compare, SyntheticFilesFromTestData) {
    const std::string dir = std::string(TRIBENCH_TEST_DATA) + "/compare/";
    const Results old_r = load_results(dir + "old.json");
    EXPECT_EQ(compare_results(old_r, load_results(dir + "same.json"), {}).exit_code(), 0);
    const Comparison slow = compare_results(old_r, load_results(dir + "slower10.json"), {});
    EXPECT_EQ(slow.exit_code(), 1);
    EXPECT_EQ(slow.count(Verdict::Regression), old_r.benchmarks.size());
    const Comparison fast = compare_results(old_r, load_results(dir + "faster10.json"), {});
    EXPECT_EQ(fast.exit_code(), 0);
    EXPECT_EQ(fast.count(Verdict::Faster), old_r.benchmarks.size());
    EXPECT_EQ(compare_results(old_r, load_results(dir + "broken.json"), {}).count(Verdict::Broken), 1u);
}

// reports/ keeps large results files gzip-compressed: they load as their JSON does, told
// apart by content, and a damaged one is a one-line error naming the file.
TEST(Compare, GzipResultsLoadAsTheirJson) {
#if !TRIBENCH_HAVE_ZLIB
    GTEST_SKIP() << "built without zlib";
#endif
    const std::string dir = std::string(TRIBENCH_TEST_DATA) + "/compare/";
    const Results plain = load_results(dir + "old.json");
    const Results packed = load_results(dir + "old.json.gz");
    ASSERT_EQ(packed.benchmarks.size(), plain.benchmarks.size());
    ASSERT_FALSE(plain.benchmarks.empty());
    for (std::size_t i = 0; i < plain.benchmarks.size(); ++i) {
        EXPECT_EQ(packed.benchmarks[i].name, plain.benchmarks[i].name);
        EXPECT_EQ(packed.benchmarks[i].samples_ms, plain.benchmarks[i].samples_ms);
    }
    EXPECT_EQ(compare_results(plain, packed, {}).exit_code(), 0);

    std::ifstream in(dir + "old.json.gz", std::ios::binary);
    const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const std::string cut = ::testing::TempDir() + "cut.json";  // the name does not matter
    std::ofstream(cut, std::ios::binary) << bytes.substr(0, bytes.size() / 2);
    try {
        load_results(cut);
        FAIL() << "a truncated gzip file loaded";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("cut.json: corrupt or truncated gzip data"), std::string::npos) << e.what();
    }
}

// `--out NAME.json.gz` writes gzip, which loads back as the plain file does.
TEST(Compare, ResultsSavedUnderAGzNameAreCompressed) {
#if !TRIBENCH_HAVE_ZLIB
    GTEST_SKIP() << "built without zlib";
#endif
    const Results r = load_results(std::string(TRIBENCH_TEST_DATA) + "/compare/old.json");
    const std::string path = ::testing::TempDir() + "saved.json.gz";
    save_results(path, r);
    const std::string bytes = read_file(path);
    ASSERT_GE(bytes.size(), 2u);
    EXPECT_TRUE(is_gzip(bytes));
    EXPECT_LT(bytes.size(), results_file_text(r).size());
    EXPECT_EQ(results_file_text(load_results(path)), results_file_text(r));
}

TEST(Compare, BadFilesAreOneLineErrors) {
    const std::string dir = std::string(TRIBENCH_TEST_DATA) + "/compare/";
    const std::pair<const char*, const char*> cases[] = {
        {"truncated.json", "malformed JSON"},
        {"wrong_version.json", "results version 99 is not supported"},
        {"not_results.json", "not a tribench results file"},
        {"no-such-file.json", "cannot read"},
    };
    for (const auto& [file, expect] : cases) {
        try {
            load_results(dir + file);
            ADD_FAILURE() << file << " was accepted";
        } catch (const Error& e) {
            const std::string msg = e.what();
            EXPECT_NE(msg.find(expect), std::string::npos) << msg;
            EXPECT_EQ(msg.find('\n'), std::string::npos) << msg;
        }
    }
}

// --- backend matrix -----------------------------------------------------------------------

TEST(BackendMatrix, SpeedupsAgainstTheBaseline) {
    auto b = [](const std::string& backend, double median, std::uint64_t seed, Status st = Status::Ok) {
        BenchmarkResult r = ::bench("mandelbrot/d/" + backend, timings(median, 40, seed), st, backend);
        return r;
    };
    BenchmarkResult graph = ::bench("stencil/d/cuda-native/graph", timings(1.0, 40, 25));
    graph.launch = "graph";
    const Results r = h100({b("opencl", 0.8, 21), b("cuda-native", 1.0, 22), b("cuda-prelude", 1.25, 23),
                            b("vendor", 1.0, 24, Status::Error), graph});
    const BackendMatrix m = backend_matrix(r, "cuda-native");
    EXPECT_EQ(m.columns, (std::vector<std::string>{"cuda-native", "cuda-prelude", "opencl", "vendor"}));
    ASSERT_EQ(m.rows.size(), 2u);
    EXPECT_EQ(m.rows[0].key, "mandelbrot/d/stream");
    EXPECT_EQ(m.rows[1].key, "stencil/d/graph");
    const auto& cells = m.rows[0].cells;
    EXPECT_DOUBLE_EQ(cells[0].speedup, 1);
    EXPECT_NEAR(cells[1].speedup, cells[0].median_ms / cells[1].median_ms, 1e-12);
    EXPECT_NEAR(cells[1].speedup, 0.8, 0.03);
    EXPECT_NEAR(cells[2].speedup, 1.25, 0.04);
    EXPECT_TRUE(cells[2].significant);
    EXPECT_EQ(cells[3].status, Status::Error);
    EXPECT_DOUBLE_EQ(cells[3].speedup, 0);
    EXPECT_FALSE(m.rows[1].cells[2].present);  // opencl has no graph row

    const std::string text = matrix_terminal(m, "run.json", false);
    EXPECT_NE(text.find("  " + format_speedup(cells[2].speedup) + "  "), std::string::npos) << text;
    EXPECT_NE(text.find("error"), std::string::npos);
    const std::string md = matrix_markdown(m, "run.json");
    EXPECT_NE(md.find("| benchmark | cuda-native ms | cuda-native | cuda-prelude | opencl | vendor |"), std::string::npos) << md;
    const nlohmann::json j = matrix_json(m, "run.json");
    EXPECT_NEAR(j["rows"][0]["cells"]["opencl"]["speedup"].get<double>(), cells[2].speedup, 1e-12);
    EXPECT_EQ(j["rows"][0]["cells"]["vendor"]["status"], "error");

    // Another baseline flips the ratios; an absent one is bad input.
    const BackendMatrix o = backend_matrix(r, "opencl");
    EXPECT_NEAR(o.rows[0].cells[0].speedup, 1 / cells[2].speedup, 1e-12);
    try {
        backend_matrix(r, "cuda-magic");
        FAIL();
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("baseline backend 'cuda-magic' has no benchmarks"), std::string::npos);
    }
}

TEST(BackendMatrix, VariantsShowInRowKeysAsInNames) {
    BenchmarkResult t = ::bench("nbody/d/tiled/cuda-native", timings(1.0, 10, 31));
    t.variant = "tiled";
    BenchmarkResult n = ::bench("nbody/d/naive/cuda-native", timings(2.0, 10, 32));
    n.variant = "naive";
    const BackendMatrix m = backend_matrix(h100({t, n}), "cuda-native");
    ASSERT_EQ(m.rows.size(), 2u);
    EXPECT_EQ(m.rows[0].key, "nbody/d/tiled/stream");
    EXPECT_EQ(m.rows[1].key, "nbody/d/naive/stream");
}

TEST(BackendMatrix, RowsShowWhatAutoPickedAndVendorOnlyRowsTheirTime) {
    BenchmarkResult n = ::bench("spmv/d/auto/cuda-native", timings(1.0, 10, 41), Status::Ok, "cuda-native");
    BenchmarkResult o = ::bench("spmv/d/auto/opencl", timings(1.1, 10, 42), Status::Ok, "opencl");
    n.variant = o.variant = "auto";
    n.picked = o.picked = "merge";
    BenchmarkResult v = ::bench("spmv/d/csr-alg2/vendor", timings(0.9, 10, 43), Status::Ok, "vendor");
    v.variant = "csr-alg2";
    v.device = "cuda-native:0";  // vendor rows run on a cuda-native device
    const BackendMatrix m = backend_matrix(h100({n, o, v}), "cuda-native");
    ASSERT_EQ(m.rows.size(), 2u);
    EXPECT_EQ(m.rows[0].key, "spmv/d/auto/stream");
    EXPECT_EQ(m.rows[0].picked, "merge");
    EXPECT_EQ(m.rows[0].label(), "spmv/d/auto/stream -> merge");
    EXPECT_EQ(m.rows[1].picked, "");
    EXPECT_NE(matrix_terminal(m, "run.json", false).find("spmv/d/auto/stream -> merge"), std::string::npos);
    EXPECT_NE(matrix_markdown(m, "run.json").find(markdown_escape("spmv/d/auto/stream -> merge")), std::string::npos);
    EXPECT_EQ(matrix_json(m, "run.json")["rows"][0]["picked"], "merge");
    EXPECT_FALSE(matrix_json(m, "run.json")["rows"][1].contains("picked"));
    // The vendor-only row has no baseline to divide by: it shows its median instead.
    ASSERT_EQ(m.columns, (std::vector<std::string>{"cuda-native", "opencl", "vendor"}));
    const std::string text = matrix_terminal(m, "run.json", false);
    EXPECT_NE(text.find(format_ms(m.rows[1].cells[2].median_ms) + " ms"), std::string::npos) << text;
    // Backends that picked differently are all named.
    o.picked = "vector";
    EXPECT_EQ(backend_matrix(h100({n, o}), "cuda-native").rows[0].picked, "merge,vector");
}

// A CUDA cell read by the events where its baseline read CUPTI (or the other way) carries the
// events' 2-3 us in its ratio: the matrix says so. opencl always reads its own events, so its
// cells are not flagged.
TEST(BackendMatrix, NotesCellsTimedByAnotherClockThanTheirBaseline) {
    auto b = [](const std::string& program, const std::string& backend, const std::string& clock, std::uint64_t seed) {
        BenchmarkResult r = ::bench(program + "/d/" + backend, timings(0.24, 20, seed), Status::Ok, backend);
        r.timing_clock = clock;
        return r;
    };
    const Results r = h100({b("fft", "cuda-native", "cupti", 51), b("fft", "cuda-prelude", "events", 52),
                            b("fft", "opencl", "events", 53), b("kmeans", "cuda-native", "cupti", 54),
                            b("kmeans", "cuda-prelude", "cupti", 55), b("kmeans", "opencl", "events", 56)});
    const BackendMatrix m = backend_matrix(r, "cuda-native");
    ASSERT_EQ(m.rows.size(), 2u);
    EXPECT_TRUE(m.rows[0].cells[1].clock_differs);
    EXPECT_FALSE(m.rows[0].cells[2].clock_differs) << "opencl reads its events always";
    EXPECT_FALSE(m.rows[1].cells[1].clock_differs);
    ASSERT_EQ(m.notes.size(), 1u);
    EXPECT_NE(m.notes[0].find("1 cell was timed by another clock"), std::string::npos) << m.notes[0];
    EXPECT_NE(m.notes[0].find("fft/d/stream cuda-prelude (events against cupti)"), std::string::npos) << m.notes[0];
    EXPECT_NE(matrix_markdown(m, "run.json").find("fft/d/stream cuda-prelude"), std::string::npos);
    const nlohmann::json j = matrix_json(m, "run.json");
    EXPECT_EQ(j["rows"][0]["cells"]["cuda-prelude"]["clock"], "events");
    EXPECT_TRUE(j["rows"][0]["cells"]["cuda-prelude"]["clock_differs"].get<bool>());
    EXPECT_FALSE(j["rows"][1]["cells"]["cuda-prelude"].contains("clock_differs"));
    // The same clocks everywhere: no note.
    const Results same = h100({b("fft", "cuda-native", "cupti", 57), b("fft", "cuda-prelude", "cupti", 58)});
    EXPECT_TRUE(backend_matrix(same, "cuda-native").notes.empty());
}

// Same-configuration run: opencl 1.25x slower than cuda-native; each at its best: opencl's own
// configuration closes most of the gap. Each best cell is the best run's cell of the same row
// and column, against that run's baseline.
TEST(BackendMatrix, EachAtItsOwnBestBesideTheSameConfiguration) {
    auto b = [](const std::string& backend, double median, std::uint64_t seed, const std::string& group_x,
                const std::string& source) {
        BenchmarkResult r = ::bench("mandelbrot/d/" + backend, timings(median, 40, seed), Status::Ok, backend);
        r.config = {{"group_x", std::stoll(group_x)}};
        r.config_source = source;
        return r;
    };
    BackendMatrix same = backend_matrix(h100({b("cuda-native", 1.0, 61, "32", "tuned for cuda-native"),
                                              b("opencl", 1.25, 62, "32", "tuned for cuda-native")}),
                                        "cuda-native");
    BenchmarkResult failed = b("cuda-prelude", 1.0, 63, "64", "tuned");
    failed.status = Status::ValidationFailed;
    const BackendMatrix best = backend_matrix(h100({b("cuda-native", 0.9, 64, "64", "tuned"),
                                                    b("opencl", 0.95, 65, "16", "tuned"), failed}),
                                              "cuda-native");
    EXPECT_FALSE(same.has_best);
    add_best_view(same, best);
    ASSERT_TRUE(same.has_best);
    ASSERT_EQ(same.columns, (std::vector<std::string>{"cuda-native", "opencl"}));  // best's extra column is not added
    const auto& cells = same.rows[0].cells;
    EXPECT_NEAR(cells[1].speedup, 0.8, 0.03);
    ASSERT_TRUE(cells[1].best);
    EXPECT_NEAR(cells[1].best->speedup, 0.9 / 0.95, 0.04);
    EXPECT_DOUBLE_EQ(cells[1].best->speedup, best.rows[0].cells[2].speedup);
    EXPECT_EQ(cells[1].best->config, "group_x=16");
    EXPECT_EQ(cells[1].best->config_source, "tuned");
    EXPECT_EQ(cells[1].config_source, "tuned for cuda-native");
    EXPECT_TRUE(same.notes.empty()) << same.notes[0];  // one configuration per row in `same`

    const std::string text = matrix_terminal(same, "same.json", false);
    EXPECT_NE(text.find("opencl best"), std::string::npos) << text;
    EXPECT_NE(text.find(format_ms(cells[0].best->median_ms) + " ms"), std::string::npos) << text;  // the baseline's best
    EXPECT_NE(text.find((cells[1].best->significant ? "" : "~") + format_speedup(cells[1].best->speedup)), std::string::npos)
        << text;
    const std::string md = matrix_markdown(same, "same.json");
    EXPECT_NE(md.find("| cuda-native | cuda-native best | opencl | opencl best |"), std::string::npos) << md;
    const nlohmann::json j = matrix_json(same, "same.json");
    EXPECT_EQ(j["views"], nlohmann::json({"same-configuration", "each-at-its-own-best"}));
    EXPECT_DOUBLE_EQ(j["rows"][0]["cells"]["opencl"]["best"]["speedup"].get<double>(), cells[1].best->speedup);
    EXPECT_EQ(j["rows"][0]["cells"]["opencl"]["config_source"], "tuned for cuda-native");

    // A "same-configuration" run whose backends ran different configurations is named.
    BackendMatrix mixed = backend_matrix(h100({b("cuda-native", 1.0, 66, "32", "device-default"),
                                               b("opencl", 1.0, 67, "16", "tuned")}),
                                         "cuda-native");
    add_best_view(mixed, best);
    ASSERT_EQ(mixed.notes.size(), 1u);
    EXPECT_NE(mixed.notes[0].find("different configurations across backends in 1 row (mandelbrot/d/stream)"),
              std::string::npos) << mixed.notes[0];
    // The views need one baseline.
    EXPECT_THROW(add_best_view(mixed, backend_matrix(h100({b("opencl", 1.0, 68, "16", "tuned")}), "opencl")), Error);

    // The report shows both views per program: `report SAME --best BEST`.
    const std::vector<LoadedResults> same_files = {
        {"same.json", h100({b("cuda-native", 1.0, 61, "32", "device-default"), b("opencl", 1.25, 62, "32", "device-default")})}};
    const std::vector<LoadedResults> best_files = {
        {"best.json", h100({b("cuda-native", 0.9, 64, "64", "tuned"), b("opencl", 0.95, 65, "16", "tuned")})}};
    const ReportOptions ro;
    const std::string report = report_markdown(same_files, group_by_device(same_files, ro), ro, {},
                                           group_by_device(best_files, ro));
    EXPECT_NE(report.find("| dataset | cuda-native | cuda-native best | opencl | opencl best |"), std::string::npos) << report;
    const std::string plain = report_markdown(same_files, group_by_device(same_files, ro), ro, {});
    EXPECT_EQ(plain.find("opencl best"), std::string::npos) << plain;
}

// A tuned run against an untuned one differs in every configuration: five notes, then a count.
TEST(Compare, LongNoteListsEndInACount) {
    std::vector<std::string> notes;
    for (int i = 0; i < 7; ++i) notes.push_back("b" + std::to_string(i));
    const auto shown = first_notes(notes);
    ASSERT_EQ(shown.size(), 6u);
    EXPECT_EQ(shown[4], "b4");
    EXPECT_EQ(shown[5], "... and 2 more (tribench compare --json lists them all)");
    notes.pop_back();
    EXPECT_EQ(first_notes(notes), notes) << "one more note than shown is shown, not counted";
}

// --- Futhark export ---------------------------------------------------------------------------

TEST(FutharkExport, KeysFollowTheBenchmarkNames) {
    BenchmarkResult s = ::bench("stencil/128x128x64-i10/cuda-native/graph", {0.25});
    s.dataset = "128x128x64-i10";
    s.launch = "graph";
    EXPECT_EQ(futhark_program_key(s, true), "stencil/cuda-native/graph");
    EXPECT_EQ(futhark_program_key(s, false), "stencil/graph");
    BenchmarkResult v = ::bench("nbody/n16k/tiled/opencl@1", {0.25}, Status::Ok, "opencl");
    v.dataset = "n16k";
    v.variant = "tiled";
    EXPECT_EQ(futhark_program_key(v, true), "nbody/tiled/opencl@1");
    EXPECT_EQ(futhark_program_key(v, false), "nbody/tiled@1");
    EXPECT_EQ(futhark_runtime_us(0.25), 250);
    EXPECT_EQ(futhark_runtime_us(1.0006), 1001);
    EXPECT_EQ(futhark_runtime_us(0.0001), 1);  // never 0: cmp-bench-json divides by means
}

TEST(FutharkExport, LayoutOfFutharkBenchJson) {
    BenchmarkResult a = ::bench("mandelbrot/d/cuda-native", {0.25, 0.5, 1.25});
    BenchmarkResult b = ::bench("mandelbrot/d/opencl", {}, Status::ValidationFailed, "opencl");
    const Results r = h100({a, b});
    const nlohmann::json j = futhark_bench_json(r, {});
    ASSERT_TRUE(j.contains("mandelbrot/cuda-native"));
    const auto& ds = j["mandelbrot/cuda-native"]["datasets"]["d"];
    EXPECT_EQ(ds["runtimes"], nlohmann::json::array({250, 500, 1250}));
    EXPECT_TRUE(ds["runtimes"][0].is_number_integer());
    EXPECT_TRUE(ds["bytes"].is_object());
    EXPECT_EQ(ds["stderr"], "");
    // A failure is the error text, as futhark bench writes it.
    const auto& failed = j["mandelbrot/opencl"]["datasets"]["d"];
    ASSERT_TRUE(failed.is_string());
    EXPECT_EQ(failed.get<std::string>(), "validation_failed: validation failed: x[3] = 7, expected 8");

    FutharkExportOptions only;
    only.backend = "cuda-native";
    const nlohmann::json k = futhark_bench_json(r, only);
    EXPECT_EQ(k.size(), 1u);
    EXPECT_TRUE(k.contains("mandelbrot"));
    only.backend = "cuda-magic";
    EXPECT_THROW(futhark_bench_json(r, only), Error);
    // Two devices of one backend without a distinguishing suffix collide: refused.
    EXPECT_THROW(futhark_bench_json(h100({a, a}), {}), Error);
}

// --- report -------------------------------------------------------------------------------

TEST(Report, GroupsByDeviceAndComputesSpeedups) {
    Results one = h100({::bench("mandelbrot/d/cuda-native", timings(1.0, 20, 41)),
                        ::bench("mandelbrot/d/opencl", timings(2.0, 20, 42), Status::Ok, "opencl")});
    one.calibration = {{"cuda-native:0", {{"copy_gbps", 3000.0}, {"fp32_gflops", 60000.0}, {"empty_kernel_us", 1.6}}},
                       {"opencl:0", {{"copy_gbps", 2900.0}, {"fp32_gflops", 59000.0}, {"empty_kernel_us", 6.5}}}};
    Results two = run_on("pthread-cpu", 0, {::bench("mandelbrot/d/opencl", timings(50.0, 20, 43), Status::Ok, "opencl"),
                                            ::bench("mandelbrot/d/cuda-native", timings(1.0, 20, 44))});
    two.devices[0].info.name = "NVIDIA H100 80GB HBM3";  // cuda-native:0 of file two: the same GPU
    ReportOptions ro;
    ro.peak_gbps = 100;
    const std::vector<LoadedResults> files = {{"one.json", one}, {"two.json", two}};
    const auto groups = group_by_device(files, ro);
    ASSERT_EQ(groups.size(), 2u);
    EXPECT_EQ(groups[0].device, "NVIDIA H100 80GB HBM3");
    EXPECT_EQ(groups[0].merged.benchmarks.size(), 2u);
    ASSERT_EQ(groups[0].duplicates.size(), 1u);  // two.json's cuda-native row repeats one.json's
    EXPECT_EQ(groups[0].duplicates[0], "mandelbrot/d/cuda-native (two.json)");
    EXPECT_DOUBLE_EQ(groups[0].copy_gbps, 3000);
    EXPECT_EQ(groups[0].ceiling_source, "calibration");
    EXPECT_EQ(groups[0].empty_kernel_us, (std::map<std::string, double>{{"cuda-native", 1.6}, {"opencl", 6.5}}));
    EXPECT_TRUE(groups[1].empty_kernel_us.empty());  // no calibration on the CPU
    EXPECT_EQ(groups[1].device, "pthread-cpu");
    EXPECT_DOUBLE_EQ(groups[1].copy_gbps, 100);  // from --peak-gbps
    EXPECT_DOUBLE_EQ(groups[1].fp32_gflops, 0);

    const nlohmann::json data = report_plot_data(groups, ro);
    EXPECT_EQ(data["schema"], "tribench-report-data");
    ASSERT_EQ(data["benchmarks"].size(), 3u);
    const auto& ocl = data["benchmarks"][1];
    EXPECT_EQ(ocl["backend"], "opencl");
    EXPECT_NEAR(ocl["speedup"].get<double>(), one.benchmarks[0].summary.median / one.benchmarks[1].summary.median, 1e-12);
    // No cuda-native on the CPU: its own first backend is the baseline there.
    EXPECT_EQ(data["benchmarks"][2]["baseline"], "opencl");
    EXPECT_EQ(program_baseline(groups[1].merged, "mandelbrot", "cuda-native"), "opencl");

    const auto plots = parse_plot_manifest("warning: x\nplot\tspeedup-mandelbrot.png\tNVIDIA H100 80GB HBM3\tmandelbrot\tmandelbrot: speedup\n"
                                           "plot\troofline.png\tNVIDIA H100 80GB HBM3\t\tRoofline: H100\n");
    ASSERT_EQ(plots.size(), 2u);
    EXPECT_EQ(plots[0].file, "speedup-mandelbrot.png");
    EXPECT_EQ(plots[0].program, "mandelbrot");
    EXPECT_EQ(plots[1].program, "");
    EXPECT_EQ(plots[1].title, "Roofline: H100");

    const std::string md = report_markdown(files, groups, ro, plots);
    EXPECT_NE(md.find("## Runs"), std::string::npos);
    EXPECT_NE(md.find("## NVIDIA H100 80GB HBM3"), std::string::npos);
    EXPECT_NE(md.find("### mandelbrot"), std::string::npos);
    EXPECT_NE(md.find("![mandelbrot: speedup](speedup-mandelbrot.png)"), std::string::npos) << md;
    EXPECT_NE(md.find("![Roofline: H100](roofline.png)"), std::string::npos);
    EXPECT_NE(md.find("speedups are against opencl"), std::string::npos);
    EXPECT_NE(md.find("Clock floor on NVIDIA H100 80GB HBM3 (an empty kernel, timed like the benchmarks): "
                      "cuda-native 1.60 us, opencl 6.50 us."),
              std::string::npos) << md;
    EXPECT_EQ(md.find("Clock floor on pthread-cpu"), std::string::npos);
}
