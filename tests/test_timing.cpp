// Timing support without a GPU: the gate kernel compiles, clock reasons are named, the new
// result fields survive a round trip, profiles name real datasets, and --metric batch reads
// the batch figures. The gated loop itself is tested on PoCL (test_opencl_device) and with
// fake devices (test_runner).
#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <string>

#include "cli/commands.hpp"
#include "device.hpp"
#include "results/metric.hpp"
#include "cli/profiles.hpp"
#include "program.hpp"
#include "results/results.hpp"
#ifdef TRIBENCH_HAVE_CUDA
#include "cuda/nvrtc_api.hpp"
#include "cuda/stream_gate.hpp"
#endif

namespace {

using namespace tb;

TEST(TimingMode, NamesRoundTripAndUnknownIsRefused) {
    EXPECT_EQ(timing_mode_from_string("gated"), TimingMode::Gated);
    EXPECT_EQ(timing_mode_from_string("plain"), TimingMode::Plain);
    EXPECT_STREQ(to_string(TimingMode::Gated), "gated");
    try {
        timing_mode_from_string("events");
        FAIL() << "no error";
    } catch (const Error& e) {
        EXPECT_STREQ(e.what(), "unknown timing mode 'events' (known: gated, plain)");
    }
}

TEST(ClockReasons, SetBitsAreNamedUnknownOnesToo) {
    EXPECT_TRUE(clock_reason_names(0).empty());
    EXPECT_EQ(clock_reason_names(clock_reason::sw_power_cap | clock_reason::hw_thermal_slowdown),
              (std::vector<std::string>{"sw_power_cap", "hw_thermal_slowdown"}));
    EXPECT_EQ(clock_reason_names(1ull << 40), std::vector<std::string>{"other"});
    EXPECT_TRUE(clock_reason::slowdowns & clock_reason::hw_power_brake_slowdown);
    EXPECT_FALSE(clock_reason::slowdowns & clock_reason::sw_power_cap);
}

#ifdef TRIBENCH_HAVE_CUDA
TEST(StreamGate, KernelCompilesToPtxThatReadsTheGlobalTimer) {
    std::string ptx;
    try {
        ptx = cuda::compile_to_ptx(Source{"tribench/gate.cu", cuda::gate_kernel_source(), Dialect::Cuda},
                                   CompileOptions{}, "sm_90")
                  .ptx;
    } catch (const Error& e) {
        if (std::string(e.what()).find("not found") != std::string::npos) GTEST_SKIP() << e.what();
        throw;
    }
    EXPECT_NE(ptx.find(std::string(".entry ") + cuda::kGateKernelName), std::string::npos);
    EXPECT_NE(ptx.find("%globaltimer"), std::string::npos);
    EXPECT_NE(ptx.find("ld.volatile"), std::string::npos) << "the flag must be re-read on every spin";
}
#endif

BenchmarkResult timed_result() {
    BenchmarkResult b;
    b.name = "p/d/cuda-native";
    b.program = "p";
    b.dataset = "d";
    b.backend = "cuda-native";
    b.device = "cuda-native:0";
    b.status = Status::Ok;
    b.samples_ms = {1.0, 1.1, 0.9};
    b.summary = summarize(b.samples_ms);
    b.timing = "plain";
    b.timing_note = "gate held too long; timed plainly instead";
    b.timing_clock = "cupti";
    b.batch_ms = 0.8;
    b.batch_runs = 13;
    b.batch_samples_ms = {0.7, 0.8, 0.9};
    b.clock = ClockRecord{1700, 1980, 1980, {"sw_power_cap"}};
    b.throttled = true;
    b.budget_cut = true;
    return b;
}

TEST(ResultsFile, TimingFieldsRoundTrip) {
    Results r;
    r.benchmarks.push_back(timed_result());
    const Results back = results_from_json(to_json(r));
    ASSERT_EQ(back.benchmarks.size(), 1u);
    const BenchmarkResult& b = back.benchmarks[0];
    EXPECT_EQ(b.timing, "plain");
    EXPECT_EQ(b.timing_note, "gate held too long; timed plainly instead");
    EXPECT_EQ(b.timing_clock, "cupti");
    EXPECT_DOUBLE_EQ(b.batch_ms, 0.8);
    EXPECT_EQ(b.batch_runs, 13);
    EXPECT_EQ(b.batch_samples_ms, (std::vector<double>{0.7, 0.8, 0.9}));
    EXPECT_EQ(b.clock.sm_mhz_min, 1700);
    EXPECT_EQ(b.clock.max_sm_mhz, 1980);
    EXPECT_EQ(b.clock.reasons, std::vector<std::string>{"sw_power_cap"});
    EXPECT_TRUE(b.throttled);
    EXPECT_TRUE(b.budget_cut);
}

TEST(ResultsFile, OlderFilesWereTimedPlainly) {
    Results r;
    r.benchmarks.push_back(timed_result());
    nlohmann::json j = to_json(r);
    for (auto& b : j["benchmarks"]) {
        for (const char* k : {"timing", "batch", "clock", "throttled", "budget_cut"}) b.erase(k);
    }
    const BenchmarkResult b = results_from_json(j).benchmarks.at(0);
    EXPECT_EQ(b.timing, "plain");
    EXPECT_EQ(b.batch_ms, 0.0);
    EXPECT_FALSE(b.clock.known());
    EXPECT_FALSE(b.throttled);

    j["benchmarks"][0]["timing"] = {{"mode", "sometimes"}};
    EXPECT_THROW(results_from_json(j), Error);
}

TEST(Metric, BatchMakesTheBatchFiguresTheSamples) {
    Results r;
    r.benchmarks.push_back(timed_result());
    BenchmarkResult without = timed_result();
    without.name = "p/e/cuda-native";
    without.batch_samples_ms.clear();
    r.benchmarks.push_back(without);

    Results samples = r;
    select_metric(samples, "samples");
    EXPECT_DOUBLE_EQ(samples.benchmarks[0].summary.median, 1.0);

    select_metric(r, "batch");
    EXPECT_DOUBLE_EQ(r.benchmarks[0].summary.median, 0.8);
    EXPECT_EQ(r.benchmarks[0].samples_ms.size(), 3u);
    EXPECT_EQ(r.benchmarks[1].status, Status::Skipped) << "no batch figures: not comparable";
    EXPECT_THROW(select_metric(r, "fastest"), Error);
}

TEST(Profiles, CiNamesOneExistingDatasetPerProgram) {
    const RunProfile& ci = find_profile("ci");
    std::set<std::string> covered;
    for (const Program* p : all_programs()) {
        const auto sets = p->datasets();
        for (const auto& d : ci.datasets)
            if (std::any_of(sets.begin(), sets.end(), [&](const Dataset& s) { return s.name == d; }))
                covered.insert(p->name());
    }
    EXPECT_EQ(covered.size(), all_programs().size()) << "every program needs its dataset in the ci profile";
    EXPECT_EQ(ci.datasets.size(), all_programs().size());
    EXPECT_THROW(find_profile("nightly"), Error);
}

TEST(Profiles, CommandLineOptionsWinOverTheProfile) {
    RunOptions o;
    o.profile = "ci";
    o.timeout_s = 9;
    apply_profile(o, [](const std::string& flag) { return flag == "--timeout"; });
    EXPECT_EQ(o.datasets, find_profile("ci").datasets);
    EXPECT_EQ(o.launches, std::vector<std::string>{"stream"});
    EXPECT_DOUBLE_EQ(o.timeout_s, 9);
    EXPECT_DOUBLE_EQ(o.min_time_s, find_profile("ci").min_time_s);

    RunOptions narrowed;
    narrowed.profile = "ci";
    narrowed.programs = {"mandelbrot,kmeans"};
    apply_profile(narrowed, [](const std::string&) { return false; });
    EXPECT_EQ(narrowed.datasets, (std::vector<std::string>{"1024x1024", "204800-d34-k5"})) << "-p narrows the profile";

    RunOptions clash;
    clash.profile = "ci";
    clash.datasets = {"n1k"};
    EXPECT_THROW(apply_profile(clash, [](const std::string&) { return false; }), Error);
}

}  // namespace
