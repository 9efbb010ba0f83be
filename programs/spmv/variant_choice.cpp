#include "variant_choice.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <limits>
#include <numeric>

#include "launch_config.hpp"

namespace tb::spmv {

RowStats row_stats(const std::vector<std::int32_t>& row_ptr) {
    RowStats s;
    if (row_ptr.size() < 2) return s;
    s.rows = std::int64_t(row_ptr.size()) - 1;
    s.nnz = std::int64_t(row_ptr.back()) - row_ptr.front();
    double sum_sq = 0;
    std::int64_t empty = 0;
    for (std::size_t i = 0; i + 1 < row_ptr.size(); ++i) {
        const std::int64_t len = std::int64_t(row_ptr[i + 1]) - row_ptr[i];
        s.max = std::max(s.max, len);
        sum_sq += double(len) * double(len);
        empty += len == 0;
    }
    s.mean = double(s.nnz) / double(s.rows);
    const double variance = std::max(sum_sq / double(s.rows) - s.mean * s.mean, 0.0);
    s.cv = s.mean > 0 ? std::sqrt(variance) / s.mean : 0;
    s.empty_fraction = double(empty) / double(s.rows);
    s.nonempty_mean = empty < s.rows ? double(s.nnz) / double(s.rows - empty) : 0;
    return s;
}

std::int64_t longest_row_round_trips(const RowStats& s) {
    const std::int64_t lanes = std::int64_t(vector_group_size(s.mean, kBlock)) * kVectorBatch;
    return (s.max + lanes - 1) / lanes;
}

std::string pick_variant(const RowStats& s) {
    if (s.cv > kMaxEvenCv && s.nnz >= kMinUnevenNonZeros) return "merge";
    const std::int64_t trips = longest_row_round_trips(s);
    if (trips >= kMinDominantRoundTrips && double(trips) > double(s.nnz) / kNonZerosPerRoundTrip) return "merge";
    return s.nonempty_mean < kVectorMinMean ? "scalar" : "vector";
}

std::string describe(const RowStats& s) {
    char buf[160];
    std::snprintf(buf, sizeof buf, "mean %.3g, max %lld, cv %.3g, %.0f%% empty", s.mean, static_cast<long long>(s.max),
                  s.cv, 100 * s.empty_fraction);
    return buf;
}

std::string choose_measured(const std::string& prior, const std::vector<CandidateTime>& times, double margin) {
    const CandidateTime* fastest = nullptr;
    const CandidateTime* prior_time = nullptr;
    bool prior_is_candidate = false;
    for (const auto& t : times) {
        prior_is_candidate = prior_is_candidate || t.variant == prior;
        if (!(t.ms > 0) || !std::isfinite(t.ms)) continue;
        if (!fastest || t.ms < fastest->ms) fastest = &t;  // strict: a tie stays with the earlier
        if (t.variant == prior) prior_time = &t;
    }
    if (!fastest) return prior_is_candidate || times.empty() ? prior : times.front().variant;
    if (prior_time && !(fastest->ms < prior_time->ms * (1 - margin))) return prior;
    return fastest->variant;
}

// The median, not the minimum: the benchmark reports each variant's median, and the minimum
// favours a kernel whose time spreads (on PoCL one with barriers waits for the group's slowest
// thread, so a preempted thread stretches its runs): the median of five runs ignores two
// disturbed ones and estimates what the benchmark will report.
double median_ms(std::vector<double> runs) {
    if (runs.empty()) return 0;
    std::sort(runs.begin(), runs.end());
    const std::size_t n = runs.size();
    return n % 2 ? runs[n / 2] : (runs[n / 2 - 1] + runs[n / 2]) / 2;
}

namespace {

// Restores the device's timing mode when the inspection ends, however it ends.
class TimingModeGuard {
public:
    explicit TimingModeGuard(Device& dev) : dev_(dev), mode_(dev.timing_mode()) {}
    ~TimingModeGuard() { dev_.set_timing_mode(mode_); }
    TimingModeGuard(const TimingModeGuard&) = delete;
    TimingModeGuard& operator=(const TimingModeGuard&) = delete;

private:
    Device& dev_;
    TimingMode mode_;
};

// Each candidate's timed runs, interleaved round by round (throws GateTimeout).
std::vector<std::vector<double>> time_rounds(Device& dev, const std::vector<Candidate>& candidates, int runs) {
    // One series: the CUDA backends pick their clock (CUPTI or events) from the series' own
    // regions, so every candidate is read by the same clock whatever ran before.
    dev.start_timing_series();
    std::vector<std::vector<double>> times(candidates.size());
    std::vector<bool> active(candidates.size(), true);
    // More rounds while an active candidate has spent too little time to give a stable
    // median; the count stays odd.
    const auto wants_more = [&](int done) {
        if (done < runs) return true;
        if (done >= kInspectMaxRuns) return false;
        if (done % 2 == 0) return true;
        for (std::size_t i = 0; i < candidates.size(); ++i)
            if (active[i] && std::accumulate(times[i].begin(), times[i].end(), 0.0) < kInspectMinMs) return true;
        return false;
    };
    for (int round = 0; wants_more(round); ++round) {
        for (std::size_t i = 0; i < candidates.size(); ++i)
            if (active[i]) times[i].push_back(dev.time_ms(candidates[i].run));
        if (round > 0) continue;
        double fastest = std::numeric_limits<double>::infinity();
        for (const auto& t : times) fastest = std::min(fastest, t.front());
        for (std::size_t i = 0; i < candidates.size(); ++i)
            if (times[i].front() > kHopelessFactor * fastest) active[i] = false;
    }
    return times;
}

}  // namespace

Inspection inspect(Device& dev, const std::string& prior, const std::vector<Candidate>& candidates, int runs) {
    const auto t0 = std::chrono::steady_clock::now();
    Inspection ins;
    // Untimed warm-ups, as the benchmark's validation run is: a first launch loads the module
    // (CUDA) or builds the kernel for its work-group size (PoCL), and the matrix reaches the
    // caches. Not inside time_ms: a first launch that blocks would void a gated region.
    for (const auto& c : candidates) c.run();
    dev.synchronize();
    std::vector<std::vector<double>> times;
    {
        TimingModeGuard guard(dev);
        try {
            times = time_rounds(dev, candidates, runs);
        } catch (const GateTimeout&) {
            dev.set_timing_mode(TimingMode::Plain);  // as the runner does; all candidates alike
            times = time_rounds(dev, candidates, runs);
        }
    }
    for (std::size_t i = 0; i < candidates.size(); ++i) ins.times.push_back({candidates[i].variant, median_ms(times[i])});
    ins.picked = choose_measured(prior, ins.times);
    ins.wall_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    return ins;
}

}  // namespace tb::spmv
