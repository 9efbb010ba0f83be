// Shared by the results-file fuzz targets: what a results file that was accepted must
// satisfy. Writing it back (to_json) and reading that again gives the same document:
// whatever the reader accepts, tribench itself can write and re-read.
#pragma once

#include <string>

#include "fuzz_common.hpp"
#include "results/results.hpp"

namespace tb::fuzz {

inline std::string canonical(const nlohmann::json& j) {
    // NaN and infinity print as null; invalid UTF-8 (only the tree fuzzer makes it) as U+FFFD.
    return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

inline void check_roundtrip(const Results& r) {
    for (const auto& b : r.benchmarks)
        for (double s : b.samples_ms) check(s >= 0, "an accepted sample is negative or NaN");
    nlohmann::json first, second;
    try {
        first = to_json(r);
        second = to_json(results_from_json(first));
    } catch (const std::exception& e) {
        finding(std::string("re-reading an accepted results file failed: ") + e.what());
    }
    check(canonical(first) == canonical(second), "results differ after writing and re-reading them");
}

}  // namespace tb::fuzz
