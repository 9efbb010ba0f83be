// Unit tests of the harness: statistics, results JSON, selection, files.
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

#include "backend.hpp"
#include "measure/calibration.hpp"
#include "support/atomic_file.hpp"
#include "read_file.hpp"
#include "results/npy.hpp"
#include "ptx/ptx_hash.hpp"
#include "results/results.hpp"
#include "plan/selection.hpp"
#include "stats/stats.hpp"
#include "stats/stopping.hpp"
#include "report/formats/console.hpp"
#include "program_registry.hpp"

using namespace tb;

TEST(Stats, KnownValues) {
    // Samples 1..10: mean 5.5, median 5.5, sample stddev sqrt(55/6) = 3.02765.
    std::vector<double> s = {7, 3, 10, 1, 5, 2, 9, 4, 8, 6};
    Summary r = summarize(s);
    EXPECT_EQ(r.count, 10u);
    EXPECT_DOUBLE_EQ(r.min, 1);
    EXPECT_DOUBLE_EQ(r.max, 10);
    EXPECT_DOUBLE_EQ(r.median, 5.5);
    EXPECT_DOUBLE_EQ(r.mean, 5.5);
    EXPECT_NEAR(r.stddev, 3.0276503540974917, 1e-12);
    EXPECT_NEAR(r.rsd, 3.0276503540974917 / 5.5, 1e-12);
    // t(0.975, 9) = 2.262: half width 2.262 * 3.02765 / sqrt(10) = 2.16578.
    EXPECT_NEAR(r.ci95_high - r.mean, 2.262 * 3.0276503540974917 / std::sqrt(10.0), 1e-9);
    EXPECT_NEAR(r.mean - r.ci95_low, r.ci95_high - r.mean, 1e-12);
}

TEST(Stats, OddCountMedianAndSingleSample) {
    EXPECT_DOUBLE_EQ(summarize({3, 1, 2}).median, 2);
    Summary one = summarize({4.0});
    EXPECT_DOUBLE_EQ(one.median, 4);
    EXPECT_DOUBLE_EQ(one.stddev, 0);
    EXPECT_EQ(summarize({}).count, 0u);
}

TEST(Stats, StudentTApproachesNormal) {
    EXPECT_NEAR(student_t975(1), 12.706, 1e-3);
    EXPECT_NEAR(student_t975(30), 2.042, 1e-3);
    EXPECT_NEAR(student_t975(60), 2.0003, 2e-3);
    EXPECT_NEAR(student_t975(100000), 1.96, 1e-3);
    EXPECT_GT(student_t975(31), student_t975(200));
}

namespace {

Results sample_results() {
    Results r;
    r.environment = {{"tribench_version", "0.1.0"}};
    DeviceRecord d;
    d.id = "opencl:0";
    d.info.name = "cpu";
    d.info.cc_major = 9;
    r.devices.push_back(d);
    BenchmarkResult b;
    b.name = "mandelbrot/128x128/opencl";
    b.program = "mandelbrot";
    b.dataset = "128x128";
    b.variant = "default";
    b.backend = "opencl";
    b.launch = "stream";
    b.device = "opencl:0";
    b.status = Status::Ok;
    b.samples_ms = {1.0, 1.5, 2.0};
    b.summary = summarize(b.samples_ms);
    b.work.bytes = 65536;
    b.launches = 17;
    b.ptx_hash = {{"mandelbrot", "0123456789abcdef"}};
    r.benchmarks.push_back(b);
    return r;
}

}  // namespace

TEST(Stopping, MedianSpreadIsItsIntervalOverItself) {
    std::vector<double> s;
    for (int i = 1; i <= 12; ++i) s.push_back(double(i));
    // n = 12: ranks floor(6 - 3.39) = 2 and ceil(7 + 3.39) = 11 bound the interval; median 6.5.
    EXPECT_NEAR(tb::median_spread(s), (11.0 - 2.0) / 6.5, 1e-12);
    EXPECT_EQ(tb::median_spread(std::vector<double>(12, 4.0)), 0.0);
    EXPECT_EQ(tb::median_spread({}), 0.0);
}

TEST(Stopping, UnderABudgetStopsAtTheShareOnlyOnceTheMedianHasSettled) {
    tb::StoppingRule r;
    r.min_samples = 10;
    r.min_time_s = 1.0;  // not met by any of these samples
    r.timeout_s = 3.0;
    r.settle_s = 1.0;
    r.max_median_spread = 0.02;
    std::vector<double> close(12, 10.0);
    close[0] = 10.5;  // outside the median's interval (ranks 2-11)
    std::vector<double> spread;
    for (int i = 0; i < 12; ++i) spread.push_back(10.0 + double(i));
    EXPECT_FALSE(r.done(close, 0.9));
    EXPECT_TRUE(r.done(close, 1.0));
    EXPECT_FALSE(r.done(spread, 1.0));
    EXPECT_FALSE(r.done(spread, 2.9));
    EXPECT_TRUE(r.done(spread, 3.0));
    r.settle_s = 0;  // no budget: the share does not end sampling
    EXPECT_FALSE(r.done(close, 1.0));
    // tune's --min-samples: a settled median still waits for that many samples.
    r.settle_s = 1.0;
    r.settle_min_samples = 13;
    EXPECT_FALSE(r.done(close, 1.0));
    close.push_back(10.0);
    EXPECT_TRUE(r.done(close, 1.0));
}

TEST(Stopping, ATimeoutWaitsForTheFloorSamplesOnlyWhileTheyAreCheap) {
    tb::StoppingRule r;
    r.min_samples = 10;
    r.min_time_s = 1.0;
    r.timeout_s = 0.01;
    r.floor_samples = 5;
    r.floor_s = 0.05;
    const std::vector<double> two{1.0, 1.2}, five{1.0, 1.2, 1.1, 1.3, 1.0};
    EXPECT_FALSE(r.done(two, 0.02)) << "past the timeout, but below the floor and still cheap";
    EXPECT_TRUE(r.done(five, 0.02)) << "the floor reached";
    EXPECT_TRUE(r.done(two, 0.05)) << "the floor's wall time spent: slow samples keep their two";
    r.floor_samples = 2;  // no floor (what run does without --budget)
    EXPECT_TRUE(r.done(two, 0.02));
}

TEST(ResultsJson, RoundTrip) {
    Results r = sample_results();
    Results back = results_from_json(to_json(r));
    ASSERT_EQ(back.benchmarks.size(), 1u);
    const auto& b = back.benchmarks[0];
    EXPECT_EQ(b.name, "mandelbrot/128x128/opencl");
    EXPECT_EQ(b.status, Status::Ok);
    EXPECT_EQ(b.samples_ms, (std::vector<double>{1.0, 1.5, 2.0}));
    EXPECT_DOUBLE_EQ(b.summary.median, 1.5);
    EXPECT_EQ(b.ptx_hash.at("mandelbrot"), "0123456789abcdef");
    EXPECT_EQ(b.launches, 17);
    ASSERT_EQ(back.devices.size(), 1u);
    EXPECT_EQ(back.devices[0].info.cc_major, 9);
    EXPECT_EQ(to_json(back), to_json(r));
}

TEST(ResultsJson, PickedVariantRoundTripsAndIsOmittedWhenEmpty) {
    Results r = sample_results();
    EXPECT_FALSE(to_json(r)["benchmarks"][0].contains("picked"));
    r.benchmarks[0].picked = "merge";
    const auto j = to_json(r);
    EXPECT_EQ(j["benchmarks"][0]["picked"], "merge");
    EXPECT_EQ(results_from_json(j).benchmarks[0].picked, "merge");
    EXPECT_NE(format_results_table(r, false).find("mandelbrot/128x128/opencl -> merge"), std::string::npos);
}

TEST(ResultsJson, RejectsWrongVersionAndSchema) {
    auto j = to_json(sample_results());
    j["version"] = 99;
    try {
        results_from_json(j);
        FAIL() << "accepted version 99";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("results version 99 is not supported"), std::string::npos);
    }
    auto k = to_json(sample_results());
    k.erase("schema");
    EXPECT_THROW(results_from_json(k), Error);
    auto m = to_json(sample_results());
    m["benchmarks"][0].erase("name");
    try {
        results_from_json(m);
        FAIL();
    } catch (const Error& e) {
        EXPECT_EQ(std::string(e.what()), "benchmarks[0]: missing field 'name'");
    }
    auto n = to_json(sample_results());
    n["benchmarks"][0]["samples_ms"] = "fast";
    EXPECT_THROW(results_from_json(n), Error);
    // A version that wraps to the supported one as an int is still another version.
    auto w = to_json(sample_results());
    w["version"] = (std::int64_t{1} << 32) + kResultsVersion;
    EXPECT_THROW(results_from_json(w), Error);
}

// A bad timing mode is named in the one-line error, its bytes escaped (fuzz_results_tree,
// 2026-11-27: raw 0xff bytes reached the message).
TEST(ResultsJson, ABadTimingModeIsNamedPrintably) {
    auto j = to_json(sample_results());
    j["benchmarks"][0]["timing"]["mode"] = std::string("fast\xff\n");
    try {
        results_from_json(j);
        FAIL() << "accepted a timing mode of raw bytes";
    } catch (const Error& e) {
        EXPECT_EQ(std::string(e.what()), "benchmarks[0]: timing.mode 'fast\\xff\\x0a' is neither 'gated' nor 'plain'");
    }
}

// Integer fields hold integers in range: a float there would be an undefined conversion
// (fuzz_results_tree found launches = 1.02e308, 2026-11-27).
TEST(ResultsJson, LaunchesMustBeAnIntegerInRange) {
    for (const nlohmann::json& bad : {nlohmann::json(1.02222e308), nlohmann::json(2.5), nlohmann::json("many")}) {
        auto j = to_json(sample_results());
        j["benchmarks"][0]["launches"] = bad;
        try {
            results_from_json(j);
            ADD_FAILURE() << "accepted launches = " << bad.dump();
        } catch (const Error& e) {
            EXPECT_EQ(std::string(e.what()), "benchmarks[0]: field 'launches' has the wrong type or is out of range");
        }
    }
    auto j = to_json(sample_results());
    j["benchmarks"][0]["launches"] = 3;
    EXPECT_EQ(results_from_json(j).benchmarks[0].launches, 3);
    j["benchmarks"][0].erase("launches");
    EXPECT_EQ(results_from_json(j).benchmarks[0].launches, 0);  // files before 2026-11-26
}

TEST(ResultsJson, LoadRejectsTruncatedFile) {
    const std::string path = testing::TempDir() + "/truncated.json";
    const std::string full = to_json(sample_results()).dump();
    write_file_atomically(path, full.substr(0, full.size() / 2));
    try {
        load_results(path);
        FAIL();
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("malformed JSON"), std::string::npos);
    }
}

TEST(AtomicFile, ReplacesWholeAndFailsCleanly) {
    const std::string path = testing::TempDir() + "/atomic.txt";
    write_file_atomically(path, "first");
    write_file_atomically(path, "second");
    EXPECT_EQ(read_file(path), "second");
    EXPECT_THROW(write_file_atomically("/nonexistent-dir/x.json", "y"), Error);
    EXPECT_FALSE(std::filesystem::exists("/nonexistent-dir/x.json"));
}

TEST(Selection, SplitList) {
    EXPECT_EQ(split_list({"a,b", "c", ",d,"}), (std::vector<std::string>{"a", "b", "c", "d"}));
    EXPECT_TRUE(split_list({}).empty());
}

TEST(Selection, DevicesDefaultToGpusAndMatchByNameOrIndex) {
    DeviceInfo cpu, gpu;
    cpu.name = "pthread-haswell";
    cpu.platform = "Portable Computing Language";
    gpu.name = "NVIDIA H100 80GB HBM3";
    gpu.platform = "NVIDIA CUDA";
    gpu.is_gpu = true;
    EXPECT_EQ(select_devices({cpu, gpu}, {}), (std::vector<std::size_t>{1}));
    EXPECT_EQ(select_devices({cpu}, {}), (std::vector<std::size_t>{0}));
    EXPECT_EQ(select_devices({cpu, gpu}, {"pocl"}), (std::vector<std::size_t>{0}));
    EXPECT_EQ(select_devices({cpu, gpu}, {"rocm"}), std::vector<std::size_t>{});
    EXPECT_EQ(select_devices({cpu, gpu}, {"portable"}), (std::vector<std::size_t>{0}));
    EXPECT_EQ(select_devices({cpu, gpu}, {"h100"}), (std::vector<std::size_t>{1}));
    EXPECT_EQ(select_devices({cpu, gpu}, {"0", "1"}), (std::vector<std::size_t>{0, 1}));
}

namespace {

// A program whose vendor library has algorithms of its own (like spmv's cuSPARSE rows).
class VendorAlgorithms final : public Program {
public:
    std::string name() const override { return "vendoralgs"; }
    std::string description() const override { return "test"; }
    std::vector<Dataset> datasets() const override { return {Dataset{"d", {}, "test", true, ""}}; }
    std::vector<std::string> variants() const override { return {"a", "b"}; }
    std::vector<std::string> vendor_variants() const override { return {"lib1", "lib2"}; }
    bool has_vendor_baseline() const override { return true; }
    std::uint64_t device_bytes(const Dataset&, const std::string&) const override { return 0; }
    std::unique_ptr<Instance> prepare(Device&, Module&, const Dataset&, const RunConfig&) const override {
        return nullptr;
    }
};
const ProgramRegistration vendor_algorithms(std::make_unique<VendorAlgorithms>());

std::vector<std::string> names(const std::vector<Case>& cases) {
    std::vector<std::string> v;
    for (const auto& c : cases) v.push_back(c.name + (c.vendor ? " (vendor)" : ""));
    return v;
}

}  // namespace

TEST(Selection, VendorRowsRunTheLibrarysOwnVariants) {
    std::vector<BackendSlot> slots(2);
    slots[0].id = "cuda-native";
    slots[1].id = "opencl";
    DeviceInfo gpu;
    gpu.name = "NVIDIA H100";
    gpu.is_gpu = gpu.is_nvidia = true;
    slots[0].devices = slots[1].devices = {gpu};
    SelectionRequest req;
    req.programs = {"vendoralgs"};
    req.vendor = true;
    EXPECT_EQ(names(plan_cases(req, slots)),
              (std::vector<std::string>{"vendoralgs/d/a/cuda-native", "vendoralgs/d/b/cuda-native",
                                        "vendoralgs/d/lib1/vendor (vendor)", "vendoralgs/d/lib2/vendor (vendor)",
                                        "vendoralgs/d/a/opencl", "vendoralgs/d/b/opencl"}));
    req.variants = {"lib2"};
    EXPECT_EQ(names(plan_cases(req, slots)), (std::vector<std::string>{"vendoralgs/d/lib2/vendor (vendor)"}));
    req.variants = {"b"};
    EXPECT_EQ(names(plan_cases(req, slots)), (std::vector<std::string>{"vendoralgs/d/b/cuda-native", "vendoralgs/d/b/opencl"}));
    req.variants = {"lib3"};
    try {
        plan_cases(req, slots);
        FAIL() << "an unknown variant was accepted";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("vendoralgs:lib2"), std::string::npos) << e.what();
    }
}

TEST(Npy, HeaderIsAlignedAndDescribesArray) {
    NamedArray a{"x", "<f4", {2, 3}, std::vector<unsigned char>(24, 1)};
    const std::string bytes = npy_bytes(a);
    ASSERT_EQ(bytes.substr(0, 6), "\x93NUMPY");
    const std::size_t header_len = std::size_t(static_cast<unsigned char>(bytes[8])) | (std::size_t(static_cast<unsigned char>(bytes[9])) << 8);
    EXPECT_EQ((10 + header_len) % 64, 0u);
    const std::string header = bytes.substr(10, header_len);
    EXPECT_NE(header.find("'descr': '<f4'"), std::string::npos);
    EXPECT_NE(header.find("'shape': (2, 3)"), std::string::npos);
    EXPECT_EQ(header.back(), '\n');
    EXPECT_EQ(bytes.size(), 10 + header_len + 24);
    NamedArray v{"v", "<i4", {5}, std::vector<unsigned char>(20, 0)};
    EXPECT_NE(npy_bytes(v).find("'shape': (5,)"), std::string::npos);
}

TEST(PtxHash, OnePerKernelAndSensitiveToBody) {
    const std::string ptx =
        ".version 8.0\n.visible .entry a(\n.param .u64 p)\n{ add.s32 %r1, %r2, 1; }\n"
        ".visible .entry b(\n.param .u64 p)\n{ ret; }\n";
    auto h = ptx_hashes(ptx);
    ASSERT_EQ(h.size(), 2u);
    EXPECT_NE(h["a"], h["b"]);
    std::string changed = ptx;
    changed.replace(changed.find("1;"), 2, "2;");
    auto h2 = ptx_hashes(changed);
    EXPECT_NE(h2["a"], h["a"]);
    EXPECT_EQ(h2["b"], h["b"]);
    EXPECT_EQ(hex64(fnv1a64("")), "cbf29ce484222325");
}

// On a CUDA GPU (skipped elsewhere): the calibration's clock floor is a real, small time, the
// same for the two CUDA backends, which share the clock, and lower gated than plain (gated
// timing leaves the launch latency out).
TEST(Calibration, EmptyKernelIsTheClockFloorOnCudaBackends) {
    std::unique_ptr<tb::Device> native, prelude;
    try {
        if (tb::make_backend("cuda-native")->devices().empty()) GTEST_SKIP() << "no CUDA device";
        native = tb::make_backend("cuda-native")->open(0);
        prelude = tb::make_backend("cuda-prelude")->open(0);
    } catch (const tb::Error& e) {
        GTEST_SKIP() << e.what();
    }
    native->set_timing_mode(tb::TimingMode::Plain);
    const tb::Calibration plain = tb::calibrate(*native);
    native->set_timing_mode(tb::TimingMode::Gated);
    prelude->set_timing_mode(tb::TimingMode::Gated);
    const tb::Calibration a = tb::calibrate(*native), b = tb::calibrate(*prelude);
    EXPECT_EQ(plain.timing, "plain");
    EXPECT_EQ(a.timing, "gated");
    for (const tb::Calibration& c : {plain, a, b}) {
        EXPECT_GT(c.empty_kernel_us, 0.1);
        EXPECT_LT(c.empty_kernel_us, 50.0);
        EXPECT_GT(c.copy_gbps, 0.0);
        EXPECT_GT(c.fp32_gflops, 0.0);
    }
    EXPECT_LT(a.empty_kernel_us, plain.empty_kernel_us);
    EXPECT_NEAR(a.empty_kernel_us, b.empty_kernel_us, 0.5 * std::max(a.empty_kernel_us, b.empty_kernel_us));
}
