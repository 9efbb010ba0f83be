#include "measure/sampling.hpp"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "measure/interrupt.hpp"
#include "stats/stats.hpp"

namespace tb {
namespace {

constexpr double kBatchTargetMs = 10;
constexpr std::int64_t kMaxBatchRuns = 1000;
constexpr double kLongRunMs = 50;

}  // namespace

double timed_run(Device& dev, Instance& inst, BenchmarkResult& r) {
    try {
        return dev.time_ms([&inst] { inst.run(); });
    } catch (const GateTimeout& e) {
        dev.set_timing_mode(TimingMode::Plain);
        r.timing = "plain";
        r.timing_note = std::string(e.what()) + "; timed plainly instead";
        return dev.time_ms([&inst] { inst.run(); });
    }
}

void L2Flush::before_sample(Device& dev) {
    if (!buffer_ || device_ != &dev) {
        buffer_ = Buffer();
        buffer_ = dev.alloc(std::size_t(256) << 20);  // > any current L2
        device_ = &dev;
    }
    dev.fill_u32(buffer_, ++pattern_);
}

void L2Flush::release(const Device* dev) {
    if (dev && dev != device_) return;
    buffer_ = Buffer();
    device_ = nullptr;
}

std::uint32_t PlacementScatter::next_groups(std::uint32_t compute_units) {
    // splitmix64: the same numbers on every platform and compiler.
    std::uint64_t z = (state_ += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    z ^= z >> 31;
    return 1 + std::uint32_t(z % (2ull * std::max<std::uint32_t>(compute_units, 1)));
}

void PlacementScatter::before_sample(Device& dev) {
    if (!dev.scatters_placement()) return;
    if (!module_ || device_ != &dev) {
        release(nullptr);
        const bool cuda = dev.dialect() == Dialect::Cuda;
        module_ = dev.compile(Source{cuda ? "tribench/scatter.cu" : "tribench/scatter.cl",
                                     cuda ? "extern \"C\" __global__ void tribench_scatter() {}\n"
                                          : "__kernel void tribench_scatter(void) {}\n",
                                     dev.dialect()},
                              CompileOptions{});
        kernel_ = module_->kernel("tribench_scatter");
        device_ = &dev;
    }
    const std::uint32_t groups = next_groups(std::uint32_t(std::max(dev.info().compute_units, 1)));
    dev.launch(kernel_, Dim3{groups, 1, 1}, Dim3{kGroupSize, 1, 1}, Args());
}

void PlacementScatter::release(const Device* dev) {
    if (dev && dev != device_) return;
    kernel_ = Kernel{};
    module_.reset();
    device_ = nullptr;
}

void ClockWatch::observe(Device& dev, BenchmarkResult& r, bool force) {
    const auto now = std::chrono::steady_clock::now();
    if (!force && now - last_read_ < std::chrono::milliseconds(kPeriodMs)) return;
    last_read_ = now;
    const auto c = dev.clock_sample();
    if (!c || c->max_sm_mhz <= 0) return;
    ClockRecord& k = r.clock;
    k.sm_mhz_min = k.known() ? std::min(k.sm_mhz_min, c->sm_mhz) : c->sm_mhz;
    k.sm_mhz_max = k.known() ? std::max(k.sm_mhz_max, c->sm_mhz) : c->sm_mhz;
    k.max_sm_mhz = c->max_sm_mhz;
    for (const auto& reason : clock_reason_names(c->reasons))
        if (std::find(k.reasons.begin(), k.reasons.end(), reason) == k.reasons.end()) k.reasons.push_back(reason);
    // nvbench's rule: a sample is suspect below 75% of the maximum clock; slowdowns are named.
    const bool slowdown = (c->reasons & clock_reason::slowdowns) != 0;
    if (c->sm_mhz < c->max_sm_mhz * 3 / 4 || slowdown) r.throttled = true;
}

// Aimed at kBatchTargetMs per batch. A run of kLongRunMs or more is its own batch, and
// launch overhead is lost in it: its samples stand for its batches.
void measure_batch(Device& dev, Instance& inst, BenchmarkResult& r) {
    const Summary sum = summarize(r.samples_ms);
    if (!(sum.median > 0)) return;
    if (sum.median >= kLongRunMs) {
        r.batch_samples_ms = r.samples_ms;
        r.batch_ms = sum.median;
        r.batch_runs = 1;
        return;
    }
    const auto runs = static_cast<std::int64_t>(
        std::clamp(std::ceil(kBatchTargetMs / sum.median), 1.0, double(kMaxBatchRuns)));
    const int batches = 3;
    const TimingMode mode = dev.timing_mode();
    dev.set_timing_mode(TimingMode::Plain);
    std::vector<double> per_run;
    try {
        for (int b = 0; b < batches && !interrupted(); ++b) {
            const double ms = dev.time_ms([&] {
                for (std::int64_t k = 0; k < runs; ++k) inst.run();
            });
            per_run.push_back(ms / double(runs));
        }
    } catch (...) {
        dev.set_timing_mode(mode);
        throw;
    }
    dev.set_timing_mode(mode);
    if (per_run.empty()) return;
    r.batch_samples_ms = per_run;
    std::sort(per_run.begin(), per_run.end());
    r.batch_ms = per_run[per_run.size() / 2];
    r.batch_runs = runs;
}

}  // namespace tb
