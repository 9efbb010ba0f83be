// The `auto` variant: which kernel to run for a matrix (docs/programs/spmv.md, "Choosing a
// variant"). A rule on the row-length statistics gives the prior (pick_variant); `auto`
// then times every candidate kernel on the matrix and the device at hand, as
// inspector-executor libraries do, and keeps the prior unless another is clearly faster
// (inspect, choose_measured). Thresholds tuned on one GPU were 2.5-6.5x off on a CPU.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "device.hpp"

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

// ---- Inspection: the candidates timed on the device at hand ---------------------------------

// The kernels `auto` chooses from, in the order they are timed and that settles exact ties.
inline const std::vector<std::string>& candidate_variants() {
    static const std::vector<std::string> v = {"scalar", "vector", "merge"};
    return v;
}

// Another candidate replaces the prior only when it is faster by more than this fraction of
// the prior's time. Below the 5% by which `auto` may trail the best variant on a GPU (so a
// prior kept within the margin stays within target), and above the spread of the median of
// a few runs (under 1% on an H100): a near tie does not flip the pick from run to run.
inline constexpr double kPickMargin = 0.03;
// Timed runs of each candidate after its warm-up: at least kInspectRuns, and more while a
// candidate still in the race has spent under kInspectMinMs in them, up to kInspectMaxRuns.
// Five runs of a 0.02 ms kernel left its median 12% off the benchmark's on an H100 (opencl,
// powerlaw-s); fifty cost about a millisecond there. Odd, so the median is a run's own time.
inline constexpr int kInspectRuns = 5;
inline constexpr int kInspectMaxRuns = 51;
inline constexpr double kInspectMinMs = 1.0;
// A candidate whose first timed run takes more than this multiple of the fastest first run
// cannot win and is timed no more: scalar on halfrow-l takes ~1 s a run on an H100, 3000x merge.
inline constexpr double kHopelessFactor = 2;

// One candidate's time per run, ms (the median of its timed runs).
struct CandidateTime {
    std::string variant;
    double ms = 0;
};

// The pick from the candidates' times: the fastest, unless the prior is among them and the
// fastest is not below (1 - margin) times the prior's time, then the prior. An exact tie
// goes to the earlier candidate in `times`. Times that are not positive and finite are left
// out; with none left, the prior if it is among the candidates, else the first candidate.
std::string choose_measured(const std::string& prior, const std::vector<CandidateTime>& times,
                            double margin = kPickMargin);

// The median of a candidate's timed runs (0 for none).
double median_ms(std::vector<double> runs);

// A candidate: its name and the launches of one run (y = A x on the device's queue).
struct Candidate {
    std::string variant;
    std::function<void()> run;
};

struct Inspection {
    std::string picked;
    std::vector<CandidateTime> times;  // every candidate's median, in candidate order
    double wall_ms = 0;                // host wall time of the warm-ups and timed runs
};

// Times every candidate on `dev` with the device's clock (Device::time_ms, in the timing mode
// set on it; plainly after a GateTimeout, the mode restored on return): one untimed warm-up
// run each, then rounds that time each candidate once in turn (a drift of the device or the
// host spreads over all of them alike), dropping the hopeless after the first round, as
// many as kInspectRuns..kInspectMaxRuns say; then choose_measured(prior, medians). The
// candidates' outputs are left as they are: the caller poisons them.
Inspection inspect(Device& dev, const std::string& prior, const std::vector<Candidate>& candidates,
                   int runs = kInspectRuns);

}  // namespace tb::spmv
