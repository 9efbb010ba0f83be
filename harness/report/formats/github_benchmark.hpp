// Reporter "github-benchmark": one run as github-action-benchmark's "customSmallerIsBetter"
// input: a JSON array of {"name", "unit", "value", "range", "extra"} (the BenchmarkResult
// shape of the action's src/extract.ts), so the action keeps the history, draws its charts and
// comments on alerts. Worked example: docs/compare.md.
#pragma once

#include <nlohmann/json.hpp>

#include "results/results.hpp"

namespace tb {

// Every validated benchmark: name = the benchmark name, unit "ms" for all (the action
// compares values of one name across commits without converting units), value = median,
// range = "± " the half width of the median's 95% confidence interval, extra = device,
// samples, RSD, commit. Throws tb::Error when no benchmark validated (the action refuses an
// empty array).
nlohmann::ordered_json github_benchmark_json(const Results& r);

}  // namespace tb
