// Step detection in a sequence of per-run medians (docs/history.md, "Finding steps").
//
// Binary segmentation, as E-divisive does (Matteson & James 2014; MongoDB's performance
// CI), with a permutation test of a max-t scan statistic: for every allowed split of a
// segment, the difference of the two sides' means of the log medians after a running
// median of three (which removes a single outlying run and keeps a step's edge), divided
// by its standard error under a robust noise scale (from successive differences of the
// raw values, which one step barely moves); the largest |t| is compared with the largest
// |t| of random orderings of the same values. The permutation test is exact under "no
// change" whatever the statistic.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace tb {

struct ChangePointOptions {
    double alpha = 0.05;              // significance level of each split's permutation test
    std::size_t permutations = 999;   // random orderings per test (p resolution 1/(N+1))
    std::size_t min_runs = 2;         // points on each side of a split, at least
    std::uint64_t seed = 0x7472696265;  // of the permutations: same input, same answer
};

struct ChangePoint {
    std::size_t index = 0;  // first point after the step
    double p_value = 1;     // permutation p of the split in its segment
    double t = 0;           // the scan statistic there
};

// values: one per run, in time order (log of the run's median, so steps are ratios).
// groups: one id per run; a split may only fall where the id changes (runs of one commit
// are never separated). Returns the significant change points in index order.
std::vector<ChangePoint> find_change_points(const std::vector<double>& values, const std::vector<std::size_t>& groups,
                                            const ChangePointOptions& o);

// The scan of one segment without the test: the best split and its |t| (index 0 when no
// split is allowed). Exposed for tests.
struct Split {
    std::size_t index = 0;
    double t = 0;
};
Split best_split(const std::vector<double>& values, const std::vector<bool>& allowed, std::size_t min_runs);

// Tukey's running median of three; each end is the median of the three values there.
std::vector<double> running_median3(const std::vector<double>& x);

// Robust scale of a sequence's run-to-run noise: median |x[i+1] - x[i]| / (0.6745 * sqrt 2),
// the standard deviation of one value for Gaussian noise.
double successive_difference_scale(const std::vector<double>& values);

}  // namespace tb
