#include "variant_choice.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

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

}  // namespace tb::spmv
