// Unit tests of `tribench history` and the CI formats: step detection, histories built from
// synthetic runs with one injected step (and without), the noise model, compare with
// per-benchmark thresholds, the Markdown comment layout, JUnit XML and
// github-action-benchmark JSON. Seeded, portable noise: every run gives the same answer.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "stats/change_points.hpp"
#include "compare/compare.hpp"
#include "report/formats/console.hpp"
#include "report/formats/github_benchmark.hpp"
#include "report/formats/json.hpp"
#include "report/formats/markdown.hpp"
#include "compare/history.hpp"
#include "report/history_format.hpp"
#include "report/formats/junit.hpp"
#include "compare/noise_model.hpp"

using namespace tb;

namespace {

// A 64-bit LCG (Knuth's MMIX constants) with Box-Muller: the same numbers everywhere.
struct Noise {
    std::uint64_t state;
    double uniform() {
        state = state * 6364136223846793005ull + 1442695040888963407ull;
        return (double(state >> 11) + 0.5) / 9007199254740992.0;
    }
    double gauss() { return std::sqrt(-2 * std::log(uniform())) * std::cos(6.283185307179586 * uniform()); }
};

std::vector<std::size_t> each_its_own(std::size_t n) {
    std::vector<std::size_t> g(n);
    for (std::size_t i = 0; i < n; ++i) g[i] = i;
    return g;
}

// log medians: noise of `sigma` around 0, plus `step` (a log ratio) from index `at` on.
std::vector<double> noisy_steps(std::size_t n, double sigma, std::uint64_t seed,
                                std::vector<std::pair<std::size_t, double>> steps = {}) {
    Noise rng{seed};
    std::vector<double> v(n);
    for (std::size_t i = 0; i < n; ++i) {
        v[i] = sigma * rng.gauss();
        for (const auto& [at, size] : steps)
            if (i >= at) v[i] += size;
    }
    return v;
}

ChangePointOptions cp_options() { return ChangePointOptions{}; }

}  // namespace

// --- change points ----------------------------------------------------------------------

TEST(ChangePoints, BestSplitOfACleanStep) {
    const std::vector<double> v = {0, 0, 0, 1, 1, 1};
    const Split s = best_split(v, std::vector<bool>(6, true), 1);
    EXPECT_EQ(s.index, 3u);
    EXPECT_GT(s.t, 1e6);  // no noise at all: the floor scale makes it huge, not infinite
    EXPECT_TRUE(std::isfinite(s.t));
    // Disallowed there: the next best allowed split.
    std::vector<bool> allowed(6, true);
    allowed[3] = false;
    EXPECT_NE(best_split(v, allowed, 1).index, 3u);
}

TEST(ChangePoints, RunningMedianRemovesASpikeAndKeepsAStep) {
    EXPECT_EQ(running_median3({0, 0, 9, 0, 0, 0}), (std::vector<double>{0, 0, 0, 0, 0, 0}));
    EXPECT_EQ(running_median3({0, 0, 0, 0, 5, 5}), (std::vector<double>{0, 0, 0, 0, 5, 5}));
    EXPECT_EQ(running_median3({0, 0, 0, 0, 0, 7}), (std::vector<double>{0, 0, 0, 0, 0, 0}));
    EXPECT_EQ(running_median3({3, 1}), (std::vector<double>{3, 1}));
}

TEST(ChangePoints, SuccessiveDifferenceScaleIgnoresOneStep) {
    // |differences| 1 1 1 1 11(the step) 1 1: median 1.
    const std::vector<double> v = {0, 1, 0, 1, 0, 11, 10, 11};
    EXPECT_NEAR(successive_difference_scale(v), 1 / (0.6744897501960817 * std::sqrt(2.0)), 1e-12);
    EXPECT_DOUBLE_EQ(successive_difference_scale({1.0}), 0);
}

bool has_index(const std::vector<ChangePoint>& cps, std::size_t i) {
    return std::any_of(cps.begin(), cps.end(), [i](const ChangePoint& c) { return c.index == i; });
}

TEST(ChangePoints, FindsOneStepAtItsIndex) {
    // Binary segmentation tests each segment again at alpha, so a noise-only segment beside
    // the step shows a (small) change point now and then: a few of 10, not most.
    int extra = 0;
    for (std::uint64_t seed = 1; seed <= 10; ++seed) {
        const auto v = noisy_steps(30, 0.01, seed, {{20, std::log(1.10)}});
        const auto cps = find_change_points(v, each_its_own(v.size()), cp_options());
        EXPECT_TRUE(has_index(cps, 20)) << "seed " << seed;
        for (const auto& c : cps) {
            if (c.index == 20) EXPECT_LT(c.p_value, 0.01);
            else ++extra;
        }
    }
    EXPECT_LE(extra, 3);
}

TEST(ChangePoints, FindsTwoSteps) {
    const auto v = noisy_steps(45, 0.01, 7, {{15, std::log(1.10)}, {30, std::log(0.85)}});
    const auto cps = find_change_points(v, each_its_own(v.size()), cp_options());
    EXPECT_TRUE(has_index(cps, 15));
    EXPECT_TRUE(has_index(cps, 30));
    EXPECT_LE(cps.size(), 3u);
}

TEST(ChangePoints, PureNoiseIsRarelySignificant) {
    // The permutation test holds its level: about alpha of pure-noise histories show a
    // change point. Over 60 seeds, 3 are expected; more than 9 would mean a broken test.
    int with_change = 0;
    for (std::uint64_t seed = 100; seed < 160; ++seed) {
        const auto v = noisy_steps(40, 0.01, seed);
        with_change += find_change_points(v, each_its_own(v.size()), cp_options()).empty() ? 0 : 1;
    }
    EXPECT_LE(with_change, 9);
}

TEST(ChangePoints, ASingleOutlyingRunIsNotAStep) {
    // One run 30% slow, in the middle or last: as extreme wherever it falls, so never
    // significant on its own. Two slow runs at the end are a step.
    auto middle = noisy_steps(30, 0.01, 3);
    middle[14] += std::log(1.3);
    EXPECT_TRUE(find_change_points(middle, each_its_own(30), cp_options()).empty());
    auto last = noisy_steps(30, 0.01, 4);
    last[29] += std::log(1.3);
    EXPECT_TRUE(find_change_points(last, each_its_own(30), cp_options()).empty());
    last[28] += std::log(1.3);
    const auto cps = find_change_points(last, each_its_own(30), cp_options());
    ASSERT_EQ(cps.size(), 1u);
    EXPECT_EQ(cps[0].index, 28u);
}

TEST(ChangePoints, NeverSplitsOneCommit) {
    // Runs 14, 15 and 16 are one commit; the step begins at 15, inside it.
    const auto v = noisy_steps(30, 0.005, 5, {{15, std::log(1.2)}});
    std::vector<std::size_t> groups = each_its_own(30);
    groups[15] = groups[16] = groups[14];
    const auto cps = find_change_points(v, groups, cp_options());
    ASSERT_FALSE(cps.empty());
    for (const auto& cp : cps) EXPECT_TRUE(cp.index == 14 || cp.index == 17) << cp.index;
}

TEST(ChangePoints, DeterministicForASeed) {
    const auto v = noisy_steps(25, 0.02, 9, {{12, std::log(1.05)}});
    const auto a = find_change_points(v, each_its_own(25), cp_options());
    const auto b = find_change_points(v, each_its_own(25), cp_options());
    ASSERT_EQ(a.size(), b.size());
    for (std::size_t i = 0; i < a.size(); ++i) EXPECT_DOUBLE_EQ(a[i].p_value, b[i].p_value);
}

// --- helpers of the history --------------------------------------------------------------

TEST(HistoryHelpers, UtcTimes) {
    EXPECT_EQ(parse_utc("1970-01-01T00:00:10Z"), 10);
    EXPECT_EQ(parse_utc("2026-11-23T08:49:37Z"), 1795423777);
    EXPECT_EQ(format_utc(1795423777), "2026-11-23T08:49:37Z");
    for (const char* bad : {"", "2026-11-23 08:49:37", "2026-13-23T08:49:37Z", "2026-11-23T08:49:37+01:00", "yesterday"})
        EXPECT_EQ(parse_utc(bad), -1) << bad;
}

TEST(HistoryHelpers, MedianConfidenceInterval) {
    std::vector<double> x;
    for (int i = 100; i >= 1; --i) x.push_back(i);  // unsorted on purpose
    const MedianCi c = median_ci95(x);
    EXPECT_DOUBLE_EQ(c.median, 50.5);
    EXPECT_DOUBLE_EQ(c.low, 40);   // rank floor(50 - 9.8) = 40
    EXPECT_DOUBLE_EQ(c.high, 61);  // rank ceil(51 + 9.8) = 61
    const MedianCi small = median_ci95({3, 1, 2});
    EXPECT_DOUBLE_EQ(small.median, 2);
    EXPECT_DOUBLE_EQ(small.low, 1);
    EXPECT_DOUBLE_EQ(small.high, 3);
}

// --- synthetic histories ------------------------------------------------------------------

namespace {

constexpr std::int64_t kStart = 1795400000;  // 2026-11-23T02:13:20Z

std::string commit_name(std::size_t i) {
    char buf[16];
    std::snprintf(buf, sizeof buf, "c0ffee%06zu", i);
    return buf;
}

struct SyntheticBenchmark {
    std::string name, program, dataset, backend;
    double median_ms;
    std::size_t step_at = SIZE_MAX;  // commit index where the median changes
    double step = 1;                 // ... by this factor
};

BenchmarkResult synthetic_bench(const SyntheticBenchmark& s, double median, Noise& rng, int samples = 30) {
    BenchmarkResult b;
    b.name = s.name;
    b.program = s.program;
    b.dataset = s.dataset;
    b.backend = s.backend;
    b.launch = "stream";
    b.device = "opencl:0";
    b.math = "default";
    b.status = Status::Ok;
    for (int k = 0; k < samples; ++k) b.samples_ms.push_back(median * std::exp(0.02 * rng.gauss()));
    b.summary = summarize(b.samples_ms);
    return b;
}

// `commits` commits, `per_commit` runs each, one hour apart; a run-level offset of 1%
// (the process, the clocks) on top of 2% sample noise.
std::vector<HistoryRun> synthetic_history(const std::vector<SyntheticBenchmark>& benches, std::size_t commits,
                                          std::size_t per_commit, std::uint64_t seed) {
    Noise rng{seed};
    std::vector<HistoryRun> runs;
    for (std::size_t c = 0; c < commits; ++c) {
        for (std::size_t k = 0; k < per_commit; ++k) {
            Results r;
            r.environment = {{"tribench_commit", commit_name(c)},
                             {"created_utc", format_utc(kStart + std::int64_t(3600 * (c * per_commit + k)))}};
            DeviceRecord d;
            d.id = "opencl:0";
            d.info.name = "pthread-haswell-Test CPU";
            r.devices.push_back(d);
            for (const auto& s : benches) {
                const double level = s.median_ms * (c >= s.step_at ? s.step : 1.0);
                r.benchmarks.push_back(synthetic_bench(s, level * std::exp(0.01 * rng.gauss()), rng));
            }
            runs.push_back(make_history_run("run-" + std::to_string(c) + "-" + std::to_string(k) + ".json", r));
        }
    }
    // Given in scrambled order: history must sort them.
    std::reverse(runs.begin(), runs.end());
    std::rotate(runs.begin(), runs.begin() + std::ptrdiff_t(runs.size() / 3), runs.end());
    return runs;
}

const Series& series_named(const History& h, const std::string& name) {
    for (const auto& s : h.series)
        if (s.name == name) return s;
    throw std::runtime_error("no series " + name);
}

std::vector<SyntheticBenchmark> three_benchmarks(std::size_t step_at, double step) {
    return {{"mandelbrot/128x128/opencl", "mandelbrot", "128x128", "opencl", 2.0, step_at, step},
            {"fft/1d-256x8/forward/opencl", "fft", "1d-256x8", "opencl", 0.06},
            {"spmv/fem-s/scalar/opencl", "spmv", "fem-s", "opencl", 0.2}};
}

}  // namespace

TEST(History, FindsTheInjectedStepAtItsCommit) {
    const History h = build_history(synthetic_history(three_benchmarks(21, 1.12), 32, 1, 11), {});
    ASSERT_EQ(h.runs.size(), 32u);
    for (std::size_t i = 0; i < h.runs.size(); ++i) EXPECT_EQ(h.runs[i].commit, commit_name(i));  // sorted
    const Series& m = series_named(h, "mandelbrot/128x128/opencl");
    const Step* st = m.newest_step();
    ASSERT_NE(st, nullptr);
    EXPECT_EQ(h.runs[st->run].commit, commit_name(21));
    EXPECT_TRUE(st->regression);
    EXPECT_NEAR(st->change_pct, 12, 2);
    EXPECT_EQ(std::count_if(m.steps.begin(), m.steps.end(), [](const Step& s) { return s.beyond_noise; }), 1);
    for (const char* quiet : {"fft/1d-256x8/forward/opencl", "spmv/fem-s/scalar/opencl"})
        EXPECT_EQ(series_named(h, quiet).newest_step(), nullptr) << quiet;
    EXPECT_EQ(h.exit_code(), 1);
    ASSERT_EQ(h.failing().size(), 1u);
    EXPECT_EQ(h.failing()[0]->name, "mandelbrot/128x128/opencl");

    const std::string md = history_markdown(h, {});
    EXPECT_NE(md.find("`" + commit_name(21) + "`"), std::string::npos) << md;
    EXPECT_NE(md.find("**regression (newest step)**"), std::string::npos) << md;
    const std::string summary = history_summary(h);
    EXPECT_NE(summary.find("regression (newest step): mandelbrot/128x128/opencl"), std::string::npos) << summary;
    const auto data = history_plot_data(h);
    EXPECT_EQ(data["schema"], "tribench-history-data");
    EXPECT_EQ(data["runs"].size(), 32u);
}

TEST(History, NoStepNoFailure) {
    for (std::uint64_t seed = 20; seed < 30; ++seed) {
        const History h = build_history(synthetic_history(three_benchmarks(SIZE_MAX, 1), 32, 1, seed), {});
        for (const auto& s : h.series) EXPECT_EQ(s.newest_step(), nullptr) << s.name << " seed " << seed;
        EXPECT_EQ(h.exit_code(), 0);
        EXPECT_NE(history_summary(h).find("no benchmark's newest step is a regression"), std::string::npos);
    }
}

TEST(History, AnImprovementIsNotAFailureAndAFixClearsARegression) {
    const History faster = build_history(synthetic_history(three_benchmarks(16, 0.85), 32, 1, 12), {});
    const Step* st = series_named(faster, "mandelbrot/128x128/opencl").newest_step();
    ASSERT_NE(st, nullptr);
    EXPECT_FALSE(st->regression);
    EXPECT_EQ(faster.runs[st->run].commit, commit_name(16));
    EXPECT_EQ(faster.exit_code(), 0);

    // Slower at commit 10, fixed at commit 22: the newest step is the fix.
    auto benches = three_benchmarks(10, 1.15);
    benches.push_back({"kmeans/8k-d4-k5/full/opencl/stream", "kmeans", "8k-d4-k5", "opencl", 7.0});
    std::vector<HistoryRun> runs = synthetic_history(benches, 32, 1, 13);
    for (auto& r : runs) {
        const std::size_t c = std::size_t(std::stoul(r.commit.substr(6)));
        if (c >= 22)
            for (auto& b : r.results.benchmarks)
                if (b.program == "mandelbrot")
                    for (double& x : b.samples_ms) x /= 1.15;
    }
    const History fixed = build_history(runs, {});
    const Series& m = series_named(fixed, "mandelbrot/128x128/opencl");
    ASSERT_EQ(std::count_if(m.steps.begin(), m.steps.end(), [](const Step& s) { return s.beyond_noise; }), 2);
    EXPECT_EQ(fixed.runs[m.newest_step()->run].commit, commit_name(22));
    EXPECT_FALSE(m.newest_step()->regression);
    EXPECT_EQ(fixed.exit_code(), 0);
}

TEST(History, RepeatedRunsOfACommitStayTogether) {
    // 12 commits, 3 runs each: the step is at a commit's first run, never inside one.
    const History h = build_history(synthetic_history(three_benchmarks(7, 1.10), 12, 3, 14), {});
    EXPECT_EQ(h.commit_count(), 12u);
    const Step* st = series_named(h, "mandelbrot/128x128/opencl").newest_step();
    ASSERT_NE(st, nullptr);
    EXPECT_EQ(h.runs[st->run].commit, commit_name(7));
    EXPECT_NE(h.runs[st->run - 1].commit, commit_name(7));
}

TEST(History, OrderedByCommitTimeWhenKnown) {
    std::vector<HistoryRun> runs = synthetic_history(three_benchmarks(SIZE_MAX, 1), 4, 1, 15);
    // Commit 3 is the oldest commit (its run was made last, e.g. a re-run of an old build).
    for (auto& r : runs) r.commit_s = r.commit == commit_name(3) ? kStart - 100 : kStart + 10 * std::int64_t(std::stoul(r.commit.substr(6)));
    const History h = build_history(runs, {});
    EXPECT_EQ(h.runs.front().commit, commit_name(3));
    EXPECT_EQ(h.runs.back().commit, commit_name(2));
}

TEST(History, RunsOfOneCommitStayTogetherWithoutCommitTimes) {
    // Three rounds interleaved across four commits (c0 c1 c2 c3 c0 c1 ...), no git: each
    // commit goes where its first run was, its runs together.
    std::vector<HistoryRun> runs = synthetic_history(three_benchmarks(SIZE_MAX, 1), 12, 1, 19);
    for (auto& r : runs) {
        const std::size_t i = std::size_t(std::stoul(r.commit.substr(6)));
        r.commit = commit_name(i % 4);
    }
    const History h = build_history(runs, {});
    EXPECT_EQ(h.commit_count(), 4u);
    for (std::size_t i = 0; i < h.runs.size(); ++i) EXPECT_EQ(h.runs[i].commit, commit_name(i / 3)) << i;
    EXPECT_LT(h.runs[0].created_s, h.runs[1].created_s);  // within a commit, by run time
}

TEST(History, BrokenInTheNewestRunFails) {
    std::vector<HistoryRun> runs = synthetic_history(three_benchmarks(SIZE_MAX, 1), 10, 1, 16);
    for (auto& r : runs)
        if (r.commit == commit_name(9)) {
            r.results.benchmarks[1].status = Status::ValidationFailed;
            r.results.benchmarks[1].error = "validation failed: x[3] = 7";
            r.results.benchmarks[1].samples_ms.clear();
        }
    const History h = build_history(runs, {});
    EXPECT_EQ(h.exit_code(), 1);
    ASSERT_EQ(h.failing().size(), 1u);
    EXPECT_TRUE(h.failing()[0]->broken);
    EXPECT_NE(history_summary(h).find("broken: fft/1d-256x8/forward/opencl"), std::string::npos);
}

TEST(History, RunWithoutTimeIsBadInput) {
    Results r;
    r.environment = {{"tribench_commit", "abc"}};
    EXPECT_THROW(make_history_run("x.json", r), Error);
    r.environment["created_utc"] = "23 Nov 2026";
    try {
        make_history_run("x.json", r);
        FAIL();
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("x.json: environment.created_utc is '23 Nov 2026'"), std::string::npos);
    }
}

// --- noise model ------------------------------------------------------------------------

TEST(Noise, ThresholdFromSigma) {
    EXPECT_DOUBLE_EQ(noise_threshold_pct(0, 3, 1), 1);  // the floor
    EXPECT_NEAR(noise_threshold_pct(0.01, 3, 1), 100 * (std::exp(0.03 * std::sqrt(2.0)) - 1), 1e-12);
    // Five ratios: the largest (0.5, an outlying run) dropped, the mean of the other four scaled.
    EXPECT_NEAR(sigma_from_log_ratios({-0.02, 0.01, 0.5, 0.03, -0.02}), 0.02 / (0.5586098711723646 * std::sqrt(2.0)), 1e-15);
    // Normal noise of known sigma comes back.
    Noise rng{77};
    std::vector<double> r;
    for (int i = 0; i < 20000; ++i) r.push_back(0.01 * std::sqrt(2.0) * rng.gauss());
    EXPECT_NEAR(sigma_from_log_ratios(r), 0.01, 0.0003);
}

TEST(Noise, LearnedFromAQuietHistory) {
    // Run-level noise 1%, plus the median's own sampling noise of 2% / sqrt(30) * 1.25:
    // about 1.06% per run median.
    const History h = build_history(synthetic_history(three_benchmarks(21, 1.12), 32, 1, 17), {});
    NoiseLearnOptions lo;
    const NoiseModel m = learn_noise_model(noise_pairs(h), lo);
    EXPECT_EQ(m.size(), 3u);
    const NoiseEntry* e = m.find("pthread-haswell-Test CPU", "mandelbrot/128x128/opencl");
    ASSERT_NE(e, nullptr);
    EXPECT_EQ(e->pairs, 30u);  // 31 consecutive pairs, less the one across the step
    EXPECT_GT(e->sigma, 0.006);
    EXPECT_LT(e->sigma, 0.017);
    EXPECT_NEAR(e->threshold_pct, noise_threshold_pct(e->sigma, 3, 1), 1e-12);
    EXPECT_EQ(m.find("other device", "mandelbrot/128x128/opencl"), nullptr);

    // Round trip through the file format.
    const NoiseModel back = noise_model_from_json(nlohmann::json::parse(to_json(m).dump()));
    ASSERT_NE(back.find("pthread-haswell-Test CPU", "fft/1d-256x8/forward/opencl"), nullptr);
    EXPECT_NEAR(back.find("pthread-haswell-Test CPU", "mandelbrot/128x128/opencl")->threshold_pct, e->threshold_pct, 1e-3);
    EXPECT_EQ(back.z, 3);
}

TEST(Noise, ThresholdsDecideHistorySteps) {
    const std::vector<HistoryRun> runs = synthetic_history(three_benchmarks(21, 1.12), 32, 1, 18);
    NoiseModel wide;
    wide.devices["pthread-haswell-Test CPU"]["mandelbrot/128x128/opencl"] = {0.05, 20, 20.0};
    HistoryOptions o;
    o.noise = &wide;
    const History h = build_history(runs, o);
    const Series& m = series_named(h, "mandelbrot/128x128/opencl");
    EXPECT_EQ(m.threshold_source, "noise model");
    EXPECT_DOUBLE_EQ(m.threshold_pct, 20);
    EXPECT_EQ(m.newest_step(), nullptr);  // 12% is within this benchmark's noise
    EXPECT_FALSE(m.steps.empty());        // ... though still a significant change point
    EXPECT_EQ(h.exit_code(), 0);
    EXPECT_EQ(series_named(h, "fft/1d-256x8/forward/opencl").threshold_source, "--threshold");
}

TEST(Noise, BadFilesAreOneLineErrors) {
    const std::pair<nlohmann::json, const char*> cases[] = {
        {{{"schema", "tribench-results"}}, "not a tribench noise file"},
        {{{"schema", "tribench-noise"}, {"version", 9}, {"devices", nlohmann::json::object()}}, "noise version 9 is not supported"},
        {{{"schema", "tribench-noise"}, {"version", 1}}, "no \"devices\" object"},
        {{{"schema", "tribench-noise"}, {"version", 1}, {"devices", {{"gpu", {{"a/b/c", {{"threshold_pct", -1}}}}}}}},
         "devices.gpu.a/b/c: threshold_pct must be a positive number"},
        {{{"schema", "tribench-noise"}, {"version", 1}, {"z", "three"}, {"devices", nlohmann::json::object()}},
         "z must be a positive number"},
        // Counts are whole: 1e300 as a size_t would be an undefined conversion, and a version
        // of 2^32 + 1 read as an int would wrap to the supported 1.
        {{{"schema", "tribench-noise"}, {"version", 1}, {"min_pairs", 1e300}, {"devices", nlohmann::json::object()}},
         "noise file: min_pairs must be a non-negative integer"},
        {{{"schema", "tribench-noise"}, {"version", 1}, {"devices", {{"gpu", {{"a/b/c", {{"threshold_pct", 2}, {"pairs", 2.5}}}}}}}},
         "devices.gpu.a/b/c: pairs must be a non-negative integer"},
        {{{"schema", "tribench-noise"}, {"version", 1}, {"devices", {{"gpu", {{"a/b/c", {{"threshold_pct", 2}, {"pairs", -3}}}}}}}},
         "devices.gpu.a/b/c: pairs must be a non-negative integer"},
        {{{"schema", "tribench-noise"}, {"version", (std::int64_t{1} << 32) + 1}, {"devices", nlohmann::json::object()}},
         "noise version 4294967297 is not supported"},
    };
    for (const auto& [j, expect] : cases) {
        try {
            noise_model_from_json(j);
            ADD_FAILURE() << j.dump() << " was accepted";
        } catch (const Error& e) {
            EXPECT_NE(std::string(e.what()).find(expect), std::string::npos) << e.what();
        }
    }
}

TEST(Noise, WholeCountsAreRead) {
    const auto j = nlohmann::json::parse(
        R"({"schema": "tribench-noise", "version": 1, "min_pairs": 7,
            "devices": {"gpu": {"a/b/c": {"threshold_pct": 2, "pairs": 12, "sigma": 0.01}}}})");
    const NoiseModel m = noise_model_from_json(j);
    EXPECT_EQ(m.min_pairs, 7u);
    ASSERT_NE(m.find("gpu", "a/b/c"), nullptr);
    EXPECT_EQ(m.find("gpu", "a/b/c")->pairs, 12u);
}

// --- compare with the noise model, and the CI formats ---------------------------------------

namespace {

Results one_run(const std::vector<std::pair<std::string, double>>& medians, std::uint64_t seed,
                Status status_of_last = Status::Ok) {
    Noise rng{seed};
    Results r;
    r.environment = {{"tribench_version", "0.1.0"}, {"tribench_commit", "abc123def456"}, {"created_utc", "2026-11-23T08:00:00Z"}};
    DeviceRecord d;
    d.id = "cuda-native:0";
    d.info.name = "NVIDIA H100 80GB HBM3";
    d.info.cc_major = 9;
    r.devices.push_back(d);
    for (std::size_t i = 0; i < medians.size(); ++i) {
        SyntheticBenchmark s{medians[i].first, medians[i].first.substr(0, medians[i].first.find('/')), "d", "cuda-native",
                             medians[i].second};
        // 40 samples a side: the Mann-Whitney normal approximation, quick for 600 benchmarks.
        BenchmarkResult b = synthetic_bench(s, s.median_ms, rng, 40);
        b.device = "cuda-native:0";
        for (double& x : b.samples_ms) x = s.median_ms * (1 + (x / s.median_ms - 1) * 0.1);  // 0.2% noise
        b.summary = summarize(b.samples_ms);
        if (i + 1 == medians.size() && status_of_last != Status::Ok) {
            b.status = status_of_last;
            b.error = "validation failed: <3 & \"4\">";
            b.samples_ms.clear();
        }
        r.benchmarks.push_back(b);
    }
    return r;
}

}  // namespace

TEST(CompareNoise, PerBenchmarkThresholds) {
    const Results o = one_run({{"a/d/cuda-native", 1.0}, {"b/d/cuda-native", 1.0}}, 1);
    const Results n = one_run({{"a/d/cuda-native", 1.03}, {"b/d/cuda-native", 1.03}}, 2);
    CompareOptions co;
    EXPECT_EQ(compare_results(o, n, co).count(Verdict::Slower), 2u);  // 3% < the global 5%
    NoiseModel m;
    m.devices["NVIDIA H100 80GB HBM3"]["a/d/cuda-native"] = {0.004, 10, 1.7};
    co.threshold_of = [&m](const std::string& device, const std::string& name) {
        const NoiseEntry* e = m.find(device, name);
        return e ? e->threshold_pct : -1.0;
    };
    const Comparison c = compare_results(o, n, co);
    EXPECT_EQ(c.benchmarks[0].verdict, Verdict::Regression);  // 3% > its 1.7%
    EXPECT_TRUE(c.benchmarks[0].noise_threshold);
    EXPECT_DOUBLE_EQ(c.benchmarks[0].threshold_pct, 1.7);
    EXPECT_EQ(c.benchmarks[1].verdict, Verdict::Slower);  // not in the model: 5%
    EXPECT_DOUBLE_EQ(c.benchmarks[1].threshold_pct, 5);
    EXPECT_EQ(c.exit_code(), 1);
    const auto j = comparison_json(c, {"o", "n"});
    EXPECT_EQ(j["benchmarks"][0]["threshold_source"], "noise model");
    EXPECT_EQ(j["benchmarks"][1]["threshold_source"], "--threshold");
    EXPECT_NE(comparison_terminal(c, {"o", "n"}, false).find("its noise-model threshold (1 benchmark; the others 5%)"),
              std::string::npos);
}

namespace {

Comparison mixed_comparison() {
    std::vector<std::pair<std::string, double>> olds = {{"reg/d/cuda-native", 1.0}, {"fast/d/cuda-native", 1.0},
                                                        {"same/d/cuda-native", 1.0}, {"gone/d/cuda-native", 1.0},
                                                        {"broke/d/cuda-native", 1.0}};
    std::vector<std::pair<std::string, double>> news = {{"reg/d/cuda-native", 1.2}, {"fast/d/cuda-native", 0.8},
                                                        {"same/d/cuda-native", 1.0}, {"broke/d/cuda-native", 1.0}};
    return compare_results(one_run(olds, 3), one_run(news, 4, Status::ValidationFailed), {});
}

}  // namespace

TEST(Formats, MarkdownPutsFailuresFirstAndFoldsTheRest) {
    const Comparison c = mixed_comparison();
    const std::string md = comparison_markdown(c, {"base.json", "pr.json"});
    EXPECT_EQ(md.rfind("### tribench compare: 1 regression, 1 broken\n", 0), 0u) << md;
    const auto reg = md.find("| reg/d/cuda-native |"), broke = md.find("| broke/d/cuda-native |");
    const auto details = md.find("<details><summary>the other 3 benchmarks: 1 faster, 1 unchanged, 1 only in OLD</summary>");
    const auto fast = md.find("| fast/d/cuda-native |"), end = md.find("</details>");
    ASSERT_NE(details, std::string::npos) << md;
    EXPECT_LT(reg, broke);
    EXPECT_LT(broke, details);
    EXPECT_LT(details, fast);
    EXPECT_LT(fast, end);
    EXPECT_NE(md.find("<summary>the other 3 benchmarks: 1 faster, 1 unchanged, 1 only in OLD</summary>\n\n| benchmark |"),
              std::string::npos);  // GitHub renders a table in <details> only after a blank line
    EXPECT_NE(md.find("**Summary:** 1 regression, 1 broken, 1 faster, 1 unchanged, 1 only in OLD."), std::string::npos);

    // Nothing failing: everything folded.
    const Comparison ok = compare_results(one_run({{"a/d/cuda-native", 1.0}}, 5), one_run({{"a/d/cuda-native", 1.0}}, 6), {});
    const std::string quiet = comparison_markdown(ok, {"o", "n"});
    EXPECT_EQ(quiet.rfind("### tribench compare: no regression\n", 0), 0u);
    EXPECT_NE(quiet.find("<details><summary>1 benchmark: 1 unchanged</summary>"), std::string::npos) << quiet;
}

TEST(Formats, MarkdownStaysUnderItsLimit) {
    std::vector<std::pair<std::string, double>> olds, news;
    for (int i = 0; i < 600; ++i) {
        const std::string name = "program" + std::to_string(i) + "/dataset-with-a-long-name/variant/cuda-native/stream";
        olds.push_back({name, 1.0});
        news.push_back({name, i < 3 ? 1.3 : 1.0});
    }
    const Comparison c = compare_results(one_run(olds, 7), one_run(news, 8), {});
    const std::string full = comparison_markdown(c, {"o", "n"});
    ASSERT_GT(full.size(), 65536u);  // too long for a GitHub comment
    const std::string md = comparison_markdown(c, {"o", "n"}, 60000);
    EXPECT_LE(md.size(), 60000u);
    EXPECT_NE(md.find("| program0/"), std::string::npos);  // the regressions are kept
    EXPECT_NE(md.find("</details>"), std::string::npos);
    EXPECT_NE(md.find("more rows left out to keep this under 60000 bytes"), std::string::npos);
}

TEST(Formats, JUnitOneCasePerBenchmark) {
    const Comparison c = mixed_comparison();
    const std::string x = comparison_junit(c, {"base.json", "pr.json"}, "2026-11-23T08:00:00");
    EXPECT_EQ(x.rfind("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites", 0), 0u);
    EXPECT_NE(x.find("tests=\"5\" failures=\"2\" errors=\"0\" skipped=\"1\""), std::string::npos) << x;
    EXPECT_NE(x.find("<testcase classname=\"tribench.reg\" name=\"reg/d/cuda-native\" time=\"0.001"), std::string::npos) << x;
    const auto failure = x.find("<failure type=\"regression\" message=\"regression: +20.");
    ASSERT_NE(failure, std::string::npos) << x;
    EXPECT_NE(x.find(" ms -&gt; 1.20", failure), std::string::npos) << x;  // escaped, not raw markup
    EXPECT_NE(x.find("p &lt;0.001), more than the 5% threshold\">", failure), std::string::npos) << x;
    // The error text is escaped, never raw markup.
    EXPECT_NE(x.find("<failure type=\"broken\" message=\"broken: ok in OLD, validation_failed in NEW: validation "
                     "failed: &lt;3 &amp; &quot;4&quot;&gt;\""),
              std::string::npos)
        << x;
    EXPECT_NE(x.find("<skipped message=\"only in OLD\"/>"), std::string::npos);
    EXPECT_NE(x.find("<system-out>faster: -"), std::string::npos);
    EXPECT_EQ(xml_escape(std::string("a\x01") + "b\tc"), "a?b\tc");
}

TEST(Formats, GithubBenchmarkJson) {
    const Results r = one_run({{"a/d/cuda-native", 0.5}, {"b/d/cuda-native", 2.0}, {"c/d/cuda-native", 1.0}}, 9,
                              Status::ValidationFailed);
    const auto j = github_benchmark_json(r);
    ASSERT_TRUE(j.is_array());
    ASSERT_EQ(j.size(), 2u);  // the failed one has no value
    const auto& a = j[0];
    EXPECT_EQ(a["name"], "a/d/cuda-native");
    EXPECT_EQ(a["unit"], "ms");
    EXPECT_NEAR(a["value"].get<double>(), 0.5, 0.01);
    EXPECT_EQ(a["range"].get<std::string>().rfind("± ", 0), 0u);
    EXPECT_NE(a["extra"].get<std::string>().find("device: NVIDIA H100 80GB HBM3 (cc 9.0)\nsamples: 40"), std::string::npos)
        << a["extra"];
    std::vector<std::string> keys;
    for (const auto& [k, v] : a.items()) keys.push_back(k);
    EXPECT_EQ(keys, (std::vector<std::string>{"name", "unit", "value", "range", "extra"}));
    EXPECT_THROW(github_benchmark_json(one_run({{"x/d/cuda-native", 1.0}}, 10, Status::ValidationFailed)), Error);
}
