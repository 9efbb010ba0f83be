// Which figure of a benchmark `compare` and `report` read: the samples (gated, the default)
// or the batch figures (`--metric batch`, docs/measurement.md "Batch timing").
#pragma once

#include <string>

#include "results/results.hpp"

namespace tb {

// "samples" leaves r as loaded; "batch" makes each benchmark's batch figures its samples
// (a benchmark without them becomes not comparable: status skipped, saying why). Throws
// tb::Error on an unknown metric.
void select_metric(Results& r, const std::string& metric);
// load_results then select_metric.
Results load_results_as(const std::string& path, const std::string& metric);

}  // namespace tb
