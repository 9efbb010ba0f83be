// The Futhark format (reporter "futhark"): our results in the layout `futhark bench --json`
// writes, so Futhark's tools (e.g. tools/cmp-bench-json.py) read them:
//   {"<program path>": {"datasets": {"<dataset>": {"runtimes": [us...], "bytes": {}, "stderr": ""}}}}
// A failed dataset is a string, as Futhark writes it. Mapping documented in docs/compare.md.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "results/results.hpp"

namespace tb {

struct FutharkExportOptions {
    // Empty: every benchmark, keyed "<program>[/<variant>]/<backend>[/<launch>]".
    // A backend id: only its benchmarks, keyed without it, so that two exports (one per
    // backend) compare backends with cmp-bench-json.py.
    std::string backend;
};

// The program key of one benchmark (see FutharkExportOptions).
std::string futhark_program_key(const BenchmarkResult& b, bool with_backend);
// Microseconds as integers, rounded to nearest, at least 1 (cmp-bench-json divides by means).
long long futhark_runtime_us(double ms);

// Throws tb::Error when two benchmarks would land on the same program and dataset, or when
// options.backend selects nothing.
nlohmann::json futhark_bench_json(const Results& r, const FutharkExportOptions& o);

}  // namespace tb
