// The console format (reporter "console"): plain-text tables for a terminal, optionally
// colored (failures red, speedups green, like Futhark's cmp-bench-json).
#pragma once

#include <string>

#include "compare/compare.hpp"
#include "report/text_format.hpp"
#include "results/results.hpp"

namespace tb {

// The table printed after a run. One row per benchmark: status, median time, RSD,
// throughput and speedup against the baseline backend (cuda-native when it ran, else the
// first backend that did) of the same program, dataset, variant and launch mode.
std::string format_results_table(const Results& r, bool color);

// Median time of the baseline row for a benchmark, or 0 when none validated.
double baseline_median(const Results& r, const BenchmarkResult& b, std::string* baseline_backend = nullptr);

// Two runs compared: one row per benchmark with its verdict, then the rule and a summary.
std::string comparison_terminal(const Comparison& c, const RunLabels& l, bool color);

// One run's backends against the baseline: one row per program/dataset/variant/launch.
std::string matrix_terminal(const BackendMatrix& m, const std::string& run, bool color);

}  // namespace tb
