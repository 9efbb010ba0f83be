// When to stop taking samples: nvbench's "stdrel" rule. Stop once there are at least
// `min_samples` samples covering at least `min_time_s` of device time and their relative
// standard deviation is at most `max_noise`; or give up at `timeout_s` of wall time (the
// result is then flagged noisy) or at `max_samples`.
#pragma once

#include <cstddef>
#include <vector>

namespace tb {

struct StoppingRule {
    std::size_t min_samples = 10;
    std::size_t max_samples = 2000;
    double min_time_s = 0.25;  // device time summed over samples
    double max_noise = 0.005;  // relative standard deviation
    double timeout_s = 5.0;    // wall time of the sampling loop
    // Past this wall time (0: never) sampling also ends once the median has settled: its 95%
    // confidence interval (median_ci95) no wider than max_median_spread of it. --budget sets
    // it to a benchmark's share and timeout_s to a few shares, so that a row of few, scattered
    // samples takes more of the budget than one whose median is known.
    double settle_s = 0;
    double max_median_spread = 0.02;
    // The fewest samples a median may settle on: 2 under --budget (a budget cuts samples);
    // tune sets it to min_samples, which its --min-samples promises per configuration.
    std::size_t settle_min_samples = 2;
    // A timeout (not max_samples) stops sampling only once there are floor_samples samples or
    // floor_s of wall time has passed: --budget raises the floor so that cheap rows still get
    // a median of a few samples while one slow row cannot overrun the budget.
    std::size_t floor_samples = 2;
    double floor_s = 0;

    // samples in ms; wall_s = wall time spent sampling so far.
    bool done(const std::vector<double>& samples_ms, double wall_s) const;
    // Whether the samples meet the rule on their own merit: enough of them, enough device
    // time, noise at most max_noise (a stop by timeout or max_samples aside).
    bool met(const std::vector<double>& samples_ms) const;
    // True when sampling ended without reaching max_noise.
    bool noisy(const std::vector<double>& samples_ms) const;
};

// The fewest samples a --budget run gives a benchmark whose samples are cheap (runner.cpp).
inline constexpr std::size_t kBudgetFloorSamples = 5;

double relative_stddev(const std::vector<double>& samples);

// Width of the median's 95% confidence interval over the median (0 for no samples).
double median_spread(const std::vector<double>& samples);

}  // namespace tb
