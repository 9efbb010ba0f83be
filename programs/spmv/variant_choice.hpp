// The `auto` variant: which kernel to run for a matrix, from its row-length statistics
// alone (docs/programs/spmv.md, "Choosing a variant"). The same matrix gets the same kernel
// on every backend, so `auto` rows of different backends compare the same algorithm.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace tb::spmv {

struct RowStats {
    std::int64_t rows = 0;
    std::int64_t nnz = 0;
    double mean = 0;            // non-zeros per row
    std::int64_t max = 0;       // longest row
    double cv = 0;              // coefficient of variation of the row lengths (stddev / mean)
    double empty_fraction = 0;  // rows without non-zeros
    double nonempty_mean = 0;   // non-zeros per row that has any
};

// From the CSR row offsets (rows + 1 of them, non-decreasing).
RowStats row_stats(const std::vector<std::int32_t>& row_ptr);

// Rows spread so unevenly that one work-item or group per row leaves most lanes idle: the
// standard deviation of the lengths above this multiple of their mean.
inline constexpr double kMaxEvenCv = 1.0;
// ... on a matrix of at least this many non-zeros. Below it (about 50 MB with the vectors,
// near an H100's L2) uneven rows cost a row-per-lane kernel less than merge's second
// launch and tiles: on 7-in-8 empty rows vector beat merge by 2.5x at 0.01M non-zeros
// and 4% at 4.2M, merge won by 3% at 8.4M and 26% at 24M (H100, 2026-11-27, docs).
inline constexpr std::int64_t kMinUnevenNonZeros = 6'000'000;
// A longest row that alone outlasts the rest: its batches of one vector group (one
// dependent round trip each, ~0.5-0.75 us on an H100) against the time to stream all
// non-zeros, ~kNonZerosPerRoundTrip of them per round trip (H100: 0.6 us * 3 TB/s / 8 bytes).
inline constexpr double kNonZerosPerRoundTrip = 225000;
// ... and takes at least this many round trips (a few microseconds, a launch's cost): on
// small matrices nothing outlasts the launch.
inline constexpr std::int64_t kMinDominantRoundTrips = 8;
// Mean length of the non-empty rows from which vector (4 or more lanes per row) beats scalar
// (an empty row costs either kernel two offsets read).
inline constexpr double kVectorMinMean = 8;

// Round trips the vector kernel's longest row takes: ceil(max / (G * kVectorBatch)).
std::int64_t longest_row_round_trips(const RowStats& s);

// "merge" for uneven rows (cv > kMaxEvenCv) on at least kMinUnevenNonZeros non-zeros, or a
// dominant longest row (its round trips above nnz / kNonZerosPerRoundTrip and
// kMinDominantRoundTrips); otherwise "scalar" below kVectorMinMean non-zeros per non-empty
// row, else "vector".
std::string pick_variant(const RowStats& s);

// One line for logs and errors: "mean 5.2, max 41943, cv 7.44, 0% empty".
std::string describe(const RowStats& s);

}  // namespace tb::spmv
