// Two-sided Mann-Whitney U test (Wilcoxon rank-sum): is one sample of timings shifted
// against the other? Rank based, so it assumes no distribution and shrugs off the long
// right tail that GPU timings have. docs/compare.md explains the choices.
#pragma once

#include <cstddef>
#include <vector>

namespace tb {

struct MannWhitney {
    double u = 0;        // U of the first sample: pairs (x, y) with x > y, plus half the ties
    double p_value = 1;  // two-sided; 1 when either sample is empty
    double z = 0;        // standardised |U - mean| after continuity correction (normal method)
    bool exact = false;  // p from the exact permutation distribution, not the normal one
    bool ties = false;   // some value occurs more than once in the pooled samples
};

// Pooled sizes up to this use the exact distribution of U (conditional on ties); larger
// ones the normal approximation with tie and continuity correction.
inline constexpr std::size_t kExactMannWhitneyMaxN = 64;

MannWhitney mann_whitney_u(const std::vector<double>& x, const std::vector<double>& y);

// The smallest two-sided p-value samples of these sizes can reach (no ties): a test on
// fewer samples than this allows can never be significant at alpha.
double mann_whitney_min_p(std::size_t n1, std::size_t n2);

}  // namespace tb
