// The terminal table printed after a run.
#pragma once

#include <string>

#include "results/results.hpp"

namespace tb {

// One row per benchmark: status, median time, RSD, throughput and speedup against the
// baseline backend (cuda-native when it ran, else the first backend that did) of the same
// program, dataset, variant and launch mode.
std::string format_results_table(const Results& r, bool color);

// Median time of the baseline row for a benchmark, or 0 when none validated.
double baseline_median(const Results& r, const BenchmarkResult& b, std::string* baseline_backend = nullptr);

}  // namespace tb
