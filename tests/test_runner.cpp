// The runner's device handling, with fake backends that count their live devices: cases run
// backend by backend, and a backend's device is closed before the next one opens (on an H100
// an open device of one backend slowed the other's short launches, reports/h100/REPORT.md).
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <thread>
#include <optional>
#include <memory>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <benchmark/benchmark.h>

#include <sys/wait.h>
#include <unistd.h>

#include "backend.hpp"
#include "program.hpp"
#include "measure/compiler_warnings.hpp"
#include "measure/run_monitor.hpp"
#include "measure/runner.hpp"
#include "results/journal.hpp"

namespace {

using namespace tb;

struct Census {
    int live = 0, most_live = 0, opened = 0;
};
Census census;

// What the fake devices do; each test sets what it needs and the fixture resets it.
struct FakeBehaviour {
    bool can_gate = true;
    bool gate_times_out = false;           // time_ms in gated mode throws GateTimeout
    double ms_per_launch = 0.01;           // device time a sample reports per launch
    std::vector<double> scale;             // the n-th timed region reports scale[n % size] times that
    int sleep_us_per_sample = 0;           // wall time a sample takes
    int sleep_us_per_compile = 0;          // wall time a compile takes (once per run: modules are cached)
    std::optional<ClockSample> clock;      // what clock_sample() returns
    int launches_per_run = 1;
    std::vector<std::string> clocks;       // timing_clock() after the n-th time_ms: clocks[n % size]
    bool warmup = false;                   // needs_warmup_sample()
    std::string timeline;                  // what the device saw: 's' start_timing_series, 't' time_ms,
                                           // 'x' the placement scatter's launch
    bool scatters = false;                 // scatters_placement()
    std::vector<std::uint32_t> scatter_groups;  // the scatter grids' work-groups, in order
    std::string compile_log;               // the compiler's messages each compile returns
    // The first kernel launch blocks until `torn_down` is set, then fails as a CUDA launch
    // does when the context is torn down under it (a hung kernel; on_hang sets the flag).
    bool first_launch_hangs = false;
    std::atomic<bool> torn_down{false};
    int launches_seen = 0;
    int kernel_launches = 0;               // every launch but the scatter's
    bool is_gpu = false;                   // info().is_gpu: the runner calibrates GPUs
};
FakeBehaviour behaviour;

class FakeModule final : public Module {
public:
    Kernel kernel(const std::string& name) override { return Kernel{name, this, 0}; }
};

class FakeDevice final : public Device {
public:
    explicit FakeDevice(const std::string& backend) {
        info_.backend = backend;
        info_.name = "fake";
        info_.global_mem_bytes = 1 << 20;
        info_.max_work_group_size = 256;
        info_.compute_units = 4;
        info_.is_gpu = behaviour.is_gpu;
        ++census.opened;
        census.most_live = std::max(census.most_live, ++census.live);
    }
    ~FakeDevice() override { --census.live; }
    const DeviceInfo& info() const override { return info_; }
    Dialect dialect() const override { return Dialect::OpenCL; }
    void upload(const Buffer&, const void*, std::size_t, std::size_t) override {}
    void download(void*, const Buffer&, std::size_t, std::size_t) override {}
    void copy(const Buffer&, const Buffer&, std::size_t) override {}
    void fill_u32(const Buffer&, std::uint32_t) override {}
    std::unique_ptr<Module> compile(const Source&, const CompileOptions&) override {
        if (behaviour.sleep_us_per_compile) std::this_thread::sleep_for(std::chrono::microseconds(behaviour.sleep_us_per_compile));
        auto m = std::make_unique<FakeModule>();
        m->log = behaviour.compile_log;
        return m;
    }
    void launch(const Kernel& k, Dim3 grid, Dim3, const Args&) override {
        if (k.name == "tribench_scatter") {
            behaviour.timeline += 'x';
            behaviour.scatter_groups.push_back(grid.x);
            ++launches_;
            return;
        }
        ++behaviour.kernel_launches;
        if (behaviour.first_launch_hangs && behaviour.launches_seen++ == 0) {
            while (!behaviour.torn_down.load()) std::this_thread::sleep_for(std::chrono::milliseconds(5));
            throw Error("cuStreamSynchronize failed: CUDA_ERROR_LAUNCH_FAILED (unspecified launch failure)");
        }
        ++region_launches_;
        ++launches_;
    }
    void synchronize() override {}
    std::size_t max_group_size(const Kernel&) override { return 256; }
    double time_ms(const std::function<void()>& work) override {
        if (timing_mode() == TimingMode::Gated && behaviour.gate_times_out) throw GateTimeout("gate held too long");
        region_launches_ = 0;
        ++regions_;
        behaviour.timeline += 't';
        work();
        if (behaviour.sleep_us_per_sample) std::this_thread::sleep_for(std::chrono::microseconds(behaviour.sleep_us_per_sample));
        const double f = behaviour.scale.empty() ? 1.0 : behaviour.scale[std::size_t(regions_ - 1) % behaviour.scale.size()];
        return behaviour.ms_per_launch * double(region_launches_) * f;
    }
    bool supports_gated_timing() const override { return behaviour.can_gate; }
    std::string timing_clock() const override {
        return behaviour.clocks.empty() ? "events" : behaviour.clocks[std::size_t(regions_ - 1) % behaviour.clocks.size()];
    }
    std::optional<ClockSample> clock_sample() override { return behaviour.clock; }
    bool needs_warmup_sample() const override { return behaviour.warmup; }
    bool scatters_placement() const override { return behaviour.scatters; }
    void start_timing_series() override { behaviour.timeline += 's'; }

protected:
    std::uint64_t raw_alloc(std::size_t) override { return ++next_; }
    void raw_free(std::uint64_t) noexcept override {}

private:
    DeviceInfo info_;
    std::uint64_t next_ = 0;
    std::int64_t region_launches_ = 0;
    std::int64_t regions_ = 0;
};

class FakeBackend final : public Backend {
public:
    explicit FakeBackend(std::string id) : id_(std::move(id)) {}
    std::string id() const override { return id_; }
    Dialect dialect() const override { return Dialect::OpenCL; }
    std::vector<DeviceInfo> devices() override { return {FakeDevice(id_).info()}; }
    std::unique_ptr<Device> open(std::size_t) override { return std::make_unique<FakeDevice>(id_); }

private:
    std::string id_;
};

class FakeInstance final : public Instance {
public:
    explicit FakeInstance(Device& dev) : dev_(dev) {}
    void poison() override {}
    void run() override {
        for (int i = 0; i < behaviour.launches_per_run; ++i)
            dev_.launch(Kernel{"k", nullptr, 0}, Dim3{1, 1, 1}, Dim3{1, 1, 1}, Args());
    }
    Validation validate() override { return Validation{true, "fake", 1, false}; }
    WorkModel work() const override { return WorkModel{1, 1, 1, "items"}; }

private:
    Device& dev_;
};

// Named after a real program so that its kernels.cl is found (the fake device ignores it).
class FakeProgram final : public Program {
public:
    std::string name() const override { return "mandelbrot"; }
    std::string description() const override { return "fake"; }
    std::vector<Dataset> datasets() const override { return {Dataset{"tiny", {}, "fake", true, ""}}; }
    std::uint64_t device_bytes(const Dataset&, const std::string&) const override { return 0; }
    std::unique_ptr<Instance> prepare(Device& dev, Module&, const Dataset&, const RunConfig&) const override {
        return std::make_unique<FakeInstance>(dev);
    }
};

void init_google_benchmark() {
    static bool done = false;
    if (done) return;
    done = true;
    int argc = 1;
    char arg0[] = "test_runner";
    char* argv[] = {arg0, nullptr};
    benchmark::Initialize(&argc, argv);
}

// `count` cases of one fake backend, run with `opt`.
Results run_fake(std::size_t count, const RunnerOptions& opt) {
    init_google_benchmark();
    static FakeProgram program;
    std::vector<BackendSlot> slots(1);
    slots[0].id = "fake";
    slots[0].backend = std::make_unique<FakeBackend>("fake");
    slots[0].devices = slots[0].backend->devices();
    std::vector<Case> cases;
    for (std::size_t i = 0; i < count; ++i)
        cases.push_back(Case{&program, program.datasets()[0], "default", LaunchMode::Stream, 0, 0,
                             "fake/tiny/" + std::to_string(i)});
    return run_cases(slots, cases, opt);
}

RunnerOptions quick_options() {
    RunnerOptions opt;
    opt.calibrate = false;
    opt.compile_twice = false;
    opt.rule.min_samples = 2;
    opt.rule.max_samples = 3;
    opt.rule.min_time_s = 0;
    return opt;
}

void reset_behaviour() {
    behaviour.~FakeBehaviour();  // holds an atomic: not assignable
    new (&behaviour) FakeBehaviour();
}

class RunnerTiming : public ::testing::Test {
protected:
    void SetUp() override { reset_behaviour(); }
    void TearDown() override { reset_behaviour(); }
};

TEST_F(RunnerTiming, GatesWhereTheBackendCan) {
    const Results r = run_fake(2, quick_options());
    for (const auto& b : r.benchmarks) {
        EXPECT_EQ(b.status, Status::Ok) << b.error;
        EXPECT_EQ(b.timing, "gated");
        EXPECT_TRUE(b.timing_note.empty());
    }
    RunnerOptions plain = quick_options();
    plain.timing = TimingMode::Plain;
    for (const auto& b : run_fake(1, plain).benchmarks) EXPECT_EQ(b.timing, "plain");
}

// A result's clock is that of most of its samples, and samples read by another clock (CUDA:
// regions CUPTI gave no span for) are counted in the note; one clock leaves the note empty.
TEST_F(RunnerTiming, SamplesReadByDifferentClocksAreCounted) {
    RunnerOptions opt = quick_options();
    opt.rule.min_samples = opt.rule.max_samples = 4;
    opt.batch = false;
    behaviour.clocks = {"cupti", "cupti", "cupti", "events"};  // any 4 regions in a row: one events
    for (const auto& b : run_fake(1, opt).benchmarks) {
        ASSERT_EQ(b.status, Status::Ok) << b.error;
        ASSERT_EQ(b.samples_ms.size(), 4u);
        EXPECT_EQ(b.timing_clock, "cupti");
        EXPECT_EQ(b.timing_note, "clocks of the samples: 3 of 4 cupti 1 of 4 events");
    }
    behaviour.clocks = {"cupti"};
    for (const auto& b : run_fake(1, opt).benchmarks) {
        EXPECT_EQ(b.timing_clock, "cupti");
        EXPECT_TRUE(b.timing_note.empty()) << b.timing_note;
    }
}

// A device whose sample depends on the one before (CUDA: CUPTI tracing follows the last
// region's length) gets one sample first that no result sees.
TEST_F(RunnerTiming, AWarmUpSampleComesFirstWhereTheDeviceNeedsOne) {
    RunnerOptions opt = quick_options();
    opt.rule.min_samples = opt.rule.max_samples = 4;
    opt.batch = false;
    behaviour.clocks = {"events", "cupti", "cupti", "cupti", "cupti"};  // 5 regions a benchmark
    behaviour.warmup = true;
    const auto warmed = run_fake(2, opt).benchmarks;
    ASSERT_FALSE(warmed.empty());
    for (const auto& b : warmed) {
        ASSERT_EQ(b.status, Status::Ok) << b.error;
        EXPECT_EQ(b.samples_ms.size(), 4u);
        EXPECT_EQ(b.timing_clock, "cupti");
        EXPECT_TRUE(b.timing_note.empty()) << b.timing_note;
    }
    behaviour.warmup = false;  // the same device without: the first region is a sample
    for (const auto& b : run_fake(1, opt).benchmarks)
        EXPECT_EQ(b.timing_note, "clocks of the samples: 3 of 4 cupti 1 of 4 events");
}

// Where one region decides how the next is timed (CUDA: no CUPTI tracing after a long
// region), a benchmark's clock would depend on the benchmark before it: the runner starts a
// timing series before each benchmark's first region.
TEST_F(RunnerTiming, EveryBenchmarkIsOneTimingSeries) {
    RunnerOptions opt = quick_options();
    opt.rule.min_samples = opt.rule.max_samples = 3;
    opt.batch = false;
    behaviour.warmup = true;
    ASSERT_EQ(run_fake(3, opt).benchmarks.size(), 3u);
    EXPECT_EQ(behaviour.timeline, "stttt" "stttt" "stttt");  // the warm-up sample, then 3
    behaviour.timeline.clear();
    behaviour.warmup = false;
    ASSERT_EQ(run_fake(2, opt).benchmarks.size(), 2u);
    EXPECT_EQ(behaviour.timeline, "sttt" "sttt");
}

// Before each gated sample on a device that asks for it (the CUDA backends) the runner
// launches an empty grid whose size comes from a fixed sequence, restarted for each benchmark
// (docs/measurement.md, "Where a work-group runs"); not on other devices, not when timed
// plainly, not with --no-scatter.
TEST_F(RunnerTiming, AnEmptyGridOfPseudoRandomSizeGoesBeforeEachGatedSampleWhereTheDeviceAsks) {
    RunnerOptions opt = quick_options();
    opt.rule.min_samples = opt.rule.max_samples = 6;
    opt.batch = false;
    behaviour.scatters = true;
    ASSERT_EQ(run_fake(2, opt).benchmarks.size(), 2u);
    EXPECT_EQ(behaviour.timeline, "sxtxtxtxtxtxt" "sxtxtxtxtxtxt");
    ASSERT_EQ(behaviour.scatter_groups.size(), 12u);
    const std::vector<std::uint32_t> first(behaviour.scatter_groups.begin(), behaviour.scatter_groups.begin() + 6);
    const std::vector<std::uint32_t> second(behaviour.scatter_groups.begin() + 6, behaviour.scatter_groups.end());
    EXPECT_EQ(first, second);  // every benchmark sees the same sequence
    for (std::uint32_t g : first) {
        EXPECT_GE(g, 1u);
        EXPECT_LE(g, 8u);  // 1 to 2 * compute_units
    }
    EXPECT_GT(std::set<std::uint32_t>(first.begin(), first.end()).size(), 1u);

    for (const bool scatter : {false, true}) {
        behaviour.timeline.clear();
        RunnerOptions o = opt;
        o.scatter = scatter;
        if (scatter) o.timing = TimingMode::Plain;
        ASSERT_EQ(run_fake(1, o).benchmarks.size(), 1u);
        EXPECT_EQ(behaviour.timeline, "stttttt") << (scatter ? "timed plainly" : "--no-scatter");
    }
    behaviour.timeline.clear();
    behaviour.scatters = false;
    ASSERT_EQ(run_fake(1, opt).benchmarks.size(), 1u);
    EXPECT_EQ(behaviour.timeline, "stttttt");
}

TEST_F(RunnerTiming, SaysWhyItTimedPlainly) {
    behaviour.can_gate = false;
    for (const auto& b : run_fake(1, quick_options()).benchmarks) {
        EXPECT_EQ(b.timing, "plain");
        EXPECT_NE(b.timing_note.find("cannot gate"), std::string::npos) << b.timing_note;
    }
    behaviour.can_gate = true;
    behaviour.gate_times_out = true;
    for (const auto& b : run_fake(2, quick_options()).benchmarks) {
        EXPECT_EQ(b.status, Status::Ok) << b.error;
        EXPECT_EQ(b.timing, "plain");
        EXPECT_NE(b.timing_note.find("gate held too long"), std::string::npos) << b.timing_note;
        EXPECT_GE(b.samples_ms.size(), 2u) << "the voided sample is taken again, plainly";
    }
}

// A run of more launches than a held queue takes stays gated: the device holds and times it
// in segments (Device::kGatedSegmentCommands), and the result says so.
TEST_F(RunnerTiming, RunsOfManyLaunchesAreGatedInSegments) {
    behaviour.launches_per_run = 300;
    RunnerOptions opt = quick_options();
    opt.batch = false;
    for (const auto& b : run_fake(1, opt).benchmarks) {
        EXPECT_EQ(b.timing, "gated");
        EXPECT_EQ(b.timing_note, "a run makes 300 launches: held and timed in segments of 256 commands");
        EXPECT_EQ(b.launches, 300) << "a result says how many launches a run makes";
    }
    behaviour.launches_per_run = 256;
    for (const auto& b : run_fake(1, opt).benchmarks) {
        EXPECT_EQ(b.timing, "gated");
        EXPECT_TRUE(b.timing_note.empty()) << b.timing_note;
        EXPECT_EQ(b.launches, 256);
    }
}

TEST_F(RunnerTiming, BatchTimesBackToBackRuns) {
    behaviour.ms_per_launch = 0.5;  // one launch per run: 20 runs make the 10 ms batch
    const Results r = run_fake(1, quick_options());
    ASSERT_EQ(r.benchmarks.size(), 1u);
    const auto& b = r.benchmarks[0];
    EXPECT_EQ(b.batch_runs, 20);
    EXPECT_EQ(b.batch_samples_ms.size(), 3u);
    EXPECT_DOUBLE_EQ(b.batch_ms, 0.5);
    RunnerOptions off = quick_options();
    off.batch = false;
    EXPECT_EQ(run_fake(1, off).benchmarks[0].batch_ms, 0.0);
}

TEST_F(RunnerTiming, FlagsAThrottledClock) {
    behaviour.clock = ClockSample{1900, 1980, clock_reason::sw_power_cap};
    auto b = run_fake(1, quick_options()).benchmarks.at(0);
    EXPECT_FALSE(b.throttled) << "a power cap that keeps the clock near its maximum is not throttling";
    EXPECT_EQ(b.clock.sm_mhz_min, 1900);
    EXPECT_EQ(b.clock.max_sm_mhz, 1980);
    EXPECT_EQ(b.clock.reasons, std::vector<std::string>{"sw_power_cap"});

    behaviour.clock = ClockSample{1400, 1980, clock_reason::sw_power_cap};
    EXPECT_TRUE(run_fake(1, quick_options()).benchmarks.at(0).throttled) << "below 75% of the maximum";
    behaviour.clock = ClockSample{1900, 1980, clock_reason::hw_thermal_slowdown};
    EXPECT_TRUE(run_fake(1, quick_options()).benchmarks.at(0).throttled) << "a slowdown reason";
    behaviour.clock.reset();
    EXPECT_FALSE(run_fake(1, quick_options()).benchmarks.at(0).clock.known());
}

// A run under --budget of fake samples that report `sample_ms` and take `wall_ms`, with at
// least 10 and at most 2000 samples and --min-time `min_time_s`.
RunnerOptions budgeted_run(double sample_ms, double wall_ms, double min_time_s, double budget_s) {
    behaviour.ms_per_launch = sample_ms;
    behaviour.sleep_us_per_sample = int(wall_ms * 1000);
    RunnerOptions opt = quick_options();
    opt.batch = false;
    opt.rule.min_samples = 10;
    opt.rule.max_samples = 2000;
    opt.rule.min_time_s = min_time_s;
    opt.budget_s = budget_s;
    return opt;
}

TEST_F(RunnerTiming, BudgetCutsSamplesNotBenchmarks) {
    // Unbudgeted, each benchmark would need 250 samples of 1 ms (--min-time 0.25 s) at
    // 2 ms of wall time each: 3 s for six. A 1 s budget must cut every one, yet time each.
    RunnerOptions opt = budgeted_run(1.0, 2.0, 0.25, 1.0);
    const Results r = run_fake(6, opt);
    ASSERT_EQ(r.benchmarks.size(), 6u);
    for (const auto& b : r.benchmarks) {
        EXPECT_EQ(b.status, Status::Ok) << b.error;
        EXPECT_GE(b.samples_ms.size(), 2u);
        EXPECT_LT(b.samples_ms.size(), 250u);
        EXPECT_TRUE(b.budget_cut);
    }
    opt.budget_s = 0;
    opt.rule.min_time_s = 0.002;
    for (const auto& b : run_fake(2, opt).benchmarks) EXPECT_FALSE(b.budget_cut);
}

TEST_F(RunnerTiming, BudgetPlansTheFirstBenchmarkWithoutItsOneOffSetUp) {
    // The first benchmark's set-up carries the run's one compile (0.5 s); planned as if every
    // one of the 7 after it cost as much (3.5 s of a 3 s budget), its share was nothing and
    // it got 2 samples. Planned without it, its share is about 0.26 s: some 30 samples.
    behaviour.sleep_us_per_compile = 500000;
    const RunnerOptions opt = budgeted_run(8.0, 8.0, 0.08, 3.0);
    const Results r = run_fake(8, opt);
    ASSERT_EQ(r.benchmarks.size(), 8u);
    EXPECT_GE(r.benchmarks[0].samples_ms.size(), 10u);
    for (const auto& b : r.benchmarks) EXPECT_GE(b.samples_ms.size(), 2u);
}

TEST_F(RunnerTiming, BudgetGivesScatteredSamplesMoreTime) {
    // Four benchmarks of 8 ms samples and a 2 s budget: a share is about 0.35 s, less than
    // --min-time, so the budget cuts every one. Samples that agree stop at the share; samples
    // spread over 8-16 ms leave the median unsettled there, and sampling goes on, within the
    // budget.
    RunnerOptions opt = budgeted_run(8.0, 8.0, 5.0, 2.0);
    opt.rule.timeout_s = 5;
    // The first benchmark's share is the same in both runs; the later ones share what is left.
    const std::size_t quiet = run_fake(4, opt).benchmarks.at(0).samples_ms.size();
    behaviour.scale = {1.0, 1.9, 1.1, 1.6, 1.3, 2.0, 1.05, 1.45};
    const auto t0 = std::chrono::steady_clock::now();
    const Results r = run_fake(4, opt);
    const double wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    for (const auto& b : r.benchmarks) {
        EXPECT_TRUE(b.budget_cut);
        EXPECT_GE(b.samples_ms.size(), 2u);
    }
    const std::size_t scattered = r.benchmarks.at(0).samples_ms.size();
    EXPECT_GT(scattered, quiet + quiet / 2) << "quiet " << quiet << ", scattered " << scattered;
    EXPECT_LT(wall_s, opt.budget_s * 1.1);
}

TEST_F(RunnerTiming, ABenchmarkBehindThePlanStillTakesItsFloorOfCheapSamples) {
    // A budget all but spent (1 us for 2 benchmarks): each share is nothing. Samples of 1 ms
    // still get the floor of 5; samples of 40 ms pass the floor's 50 ms of wall time at two.
    RunnerOptions opt = budgeted_run(1.0, 1.0, 0.25, 1e-6);
    for (const auto& b : run_fake(2, opt).benchmarks) {
        EXPECT_EQ(b.status, Status::Ok) << b.error;
        EXPECT_EQ(b.samples_ms.size(), tb::kBudgetFloorSamples);
        EXPECT_TRUE(b.budget_cut);
    }
    opt = budgeted_run(40.0, 40.0, 0.25, 1e-6);
    for (const auto& b : run_fake(2, opt).benchmarks) EXPECT_EQ(b.samples_ms.size(), 2u);
}

// `run --validate-only`: each case is set up as for timing (prepared, poisoned, run once and
// validated), then nothing more reaches the device: no calibration, warm-up sample, samples
// or batch, whatever the other options ask for.
TEST_F(RunnerTiming, ValidateOnlyRunsEachCaseOnceAndTimesNothing) {
    RunnerOptions opt = quick_options();
    opt.calibrate = true;
    opt.budget_s = 60;
    behaviour.is_gpu = true;  // would be calibrated
    behaviour.warmup = true;  // would take a warm-up sample
    opt.validate_only = true;
    const Results r = run_fake(3, opt);
    ASSERT_EQ(r.benchmarks.size(), 3u);
    for (const auto& b : r.benchmarks) {
        EXPECT_EQ(b.status, Status::Ok) << b.error;
        EXPECT_EQ(b.validation.detail, "fake");
        EXPECT_TRUE(b.samples_ms.empty());
        EXPECT_EQ(b.batch_runs, 0);
    }
    EXPECT_EQ(behaviour.kernel_launches, 3) << "one validated run per case and nothing else";
    EXPECT_EQ(behaviour.timeline, "") << "a timing series or timed region was started";
    EXPECT_TRUE(r.calibration.empty());

    // The control: the same cases timed launch more and have samples.
    behaviour.kernel_launches = 0;
    opt.validate_only = false;
    for (const auto& b : run_fake(3, opt).benchmarks) EXPECT_FALSE(b.samples_ms.empty()) << b.name;
    EXPECT_GT(behaviour.kernel_launches, 3);
}

// A compile that succeeds with warnings says so on stderr, once per program and device, each
// distinct warning once; a clean log says nothing.
TEST_F(RunnerTiming, CompilerWarningsReachStderrOncePerModule) {
    behaviour.compile_log =
        "warning: fake/kernels.cl:7:3: loop not unrolled\n"
        "note: source excerpt\n"
        "warning: fake/kernels.cl:7:3: loop not unrolled\n";
    testing::internal::CaptureStderr();
    const Results r = run_fake(2, quick_options());
    const std::string err = testing::internal::GetCapturedStderr();
    for (const auto& b : r.benchmarks) EXPECT_EQ(b.status, Status::Ok) << b.error;
    EXPECT_EQ(err,
              "tribench: fake:0: programs/" + FakeProgram().name() + "/kernels.cl: 2 compiler warnings, 1 distinct:\n"
              "  warning: fake/kernels.cl:7:3: loop not unrolled (x2)\n");

    behaviour.compile_log = "note: nothing to see\n";
    testing::internal::CaptureStderr();
    run_fake(1, quick_options());
    EXPECT_EQ(testing::internal::GetCapturedStderr(), "");
}

TEST(CompilerWarnings, DistinctWarningLinesInFirstSeenOrderWithCounts) {
    // NVRTC's form: a warning line, the source line, a caret, and a remark that mentions
    // warnings (plural) but is none.
    const std::string log =
        "k.cu(3): warning #177-D: variable \"x\" was declared but never referenced\r\n"
        "    int x;\n"
        "        ^\n"
        "\n"
        "Remark: The warnings can be suppressed with \"-diag-suppress <warning-number>\"\n"
        "k.cu(9): Warning: b\n"
        "k.cu(3): warning #177-D: variable \"x\" was declared but never referenced\n"
        "k.cu(4): a line mentioning warnings or a warning\n"
        "ptxas /tmp/k.ptx, line 5; warning : Unresolved texref\n";
    const auto w = distinct_warnings(log);
    ASSERT_EQ(w.size(), 3u);
    EXPECT_EQ(w[0].text, "k.cu(3): warning #177-D: variable \"x\" was declared but never referenced");
    EXPECT_EQ(w[0].count, 2);
    EXPECT_EQ(w[1].text, "k.cu(9): Warning: b");
    EXPECT_EQ(w[1].count, 1);
    EXPECT_EQ(w[2].text, "ptxas /tmp/k.ptx, line 5; warning : Unresolved texref");
    EXPECT_TRUE(distinct_warnings("").empty());
}

TEST(CompilerWarnings, PrintsACountTheFirstFewAndHowManyMore) {
    std::ostringstream none;
    print_compiler_warnings(none, "opencl:0: k.cl", "ptxas info: 0 bytes\n");
    EXPECT_EQ(none.str(), "");

    std::ostringstream one;
    print_compiler_warnings(one, "opencl:0: k.cl", "warning: a\n");
    EXPECT_EQ(one.str(), "tribench: opencl:0: k.cl: 1 compiler warning:\n  warning: a\n");

    std::ostringstream many;
    print_compiler_warnings(many, "cuda-native:0: k.cu", "warning: a\nwarning: b\nwarning: c\nwarning: a\n", 2);
    EXPECT_EQ(many.str(),
              "tribench: cuda-native:0: k.cu: 4 compiler warnings, 3 distinct:\n"
              "  warning: a (x2)\n"
              "  warning: b\n"
              "  and 1 more\n");
}

TEST(Runner, ClosesOneBackendsDeviceBeforeOpeningTheNext) {
    init_google_benchmark();

    FakeProgram program;
    std::vector<BackendSlot> slots;
    std::vector<Case> cases;
    for (const char* id : {"fake-a", "fake-b", "fake-c"}) {
        BackendSlot s;
        s.id = id;
        s.backend = std::make_unique<FakeBackend>(id);
        s.devices = s.backend->devices();
        slots.push_back(std::move(s));
        for (int i = 0; i < 2; ++i)
            cases.push_back(Case{&program, program.datasets()[0], "default", LaunchMode::Stream, slots.size() - 1, 0,
                                 std::string("fake/tiny/") + id + "/" + std::to_string(i)});
    }
    RunnerOptions opt;
    opt.calibrate = false;
    opt.compile_twice = false;
    opt.rule.min_samples = 2;
    opt.rule.max_samples = 3;
    opt.rule.min_time_s = 0;
    census = Census{};

    const Results r = run_cases(slots, cases, opt);

    ASSERT_EQ(r.benchmarks.size(), cases.size());
    for (const auto& b : r.benchmarks) EXPECT_EQ(b.status, Status::Ok) << b.name << ": " << b.error;
    EXPECT_EQ(census.opened, 3) << "each backend's device opens once";
    EXPECT_EQ(census.most_live, 1) << "a device stayed open while the next backend's ran";
    EXPECT_EQ(census.live, 0);
}

}  // namespace

// A hung kernel on a GPU: the watchdog declares the hang, journals it and replaces the
// process; tearing the context down on the way wakes the measuring thread's driver call with
// an error. That thread must then record nothing and run nothing more (the H100 showed a
// second, wrong entry and the next benchmark run on the dead context). In a child process,
// since the measuring thread never returns: on_hang wakes the driver call, waits, and exits
// with the journal's verdict.
TEST_F(RunnerTiming, AfterAHangTheMeasuringThreadRecordsNothingMore) {
    const std::string path = ::testing::TempDir() + "hang_park.journal";
    std::remove(path.c_str());
    const pid_t pid = fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
        behaviour.first_launch_hangs = true;
        auto journal = Journal::create(path, nlohmann::json{{"run", "test"}});
        RunnerOptions opt = quick_options();
        opt.batch = false;
        opt.journal = journal.get();
        opt.kernel_timeout_s = 0.3;
        opt.on_hang = [&](const BenchmarkResult&) {
            behaviour.torn_down = true;  // what closing the driver's descriptors does
            std::this_thread::sleep_for(std::chrono::milliseconds(800));
            const JournalContents j = read_journal(path);
            const bool only_the_hang = j.benchmarks.size() == 1 && j.benchmarks[0].name == "fake/tiny/0" &&
                                       j.benchmarks[0].error.find("did not finish within") != std::string::npos;
            std::_Exit(only_the_hang ? 0 : 3);
        };
        run_fake(2, opt);
        std::_Exit(4);  // the run ended: the hang was never declared
    }
    int status = 0;
    ASSERT_EQ(waitpid(pid, &status, 0), pid);
    ASSERT_TRUE(WIFEXITED(status));
    EXPECT_EQ(WEXITSTATUS(status), 0) << "3: the journal holds more than the hang's entry; 4: no hang declared";
    std::remove(path.c_str());
}

// Opening a device and compiling run none of the benchmark's kernels: they get at least
// RunMonitor::kSetUpFloorS whatever --kernel-timeout says, so a short limit meant for kernels
// does not fail a slow compile (PoCL under ASan with a cold cache took over 2 s for the
// spinning kernel's Mandelbrot, 2026-12-07) as a hung kernel. The kernel steps keep the limit.
TEST(RunMonitorLimits, SetUpStepsGetAtLeastTheFloor) {
    EXPECT_EQ(RunMonitor::step_limit(2, false), 2);
    EXPECT_EQ(RunMonitor::step_limit(2, true), RunMonitor::kSetUpFloorS);
    EXPECT_EQ(RunMonitor::step_limit(2 * RunMonitor::kSetUpFloorS, true), 2 * RunMonitor::kSetUpFloorS);
    EXPECT_EQ(RunMonitor::step_limit(0, true), 0) << "0: no limit, for set-up steps too";
}

// A compile three times the kernel timeout: the benchmark validates and is timed. In a child
// process, since a declared hang would park the measuring thread for good.
TEST_F(RunnerTiming, ACompileLongerThanTheKernelTimeoutIsNoHang) {
    const pid_t pid = fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
        behaviour.sleep_us_per_compile = 900000;
        RunnerOptions opt = quick_options();
        opt.kernel_timeout_s = 0.3;
        opt.on_hang = [](const BenchmarkResult&) { std::_Exit(3); };
        const Results r = run_fake(1, opt);
        const bool ok = r.benchmarks.size() == 1 && r.benchmarks[0].status == Status::Ok &&
                        !r.benchmarks[0].samples_ms.empty();
        std::_Exit(ok ? 0 : 4);
    }
    int status = 0;
    ASSERT_EQ(waitpid(pid, &status, 0), pid);
    ASSERT_TRUE(WIFEXITED(status));
    EXPECT_EQ(WEXITSTATUS(status), 0) << "3: the compile was declared a hung kernel; 4: the benchmark did not run";
}
