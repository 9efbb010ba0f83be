#include "stats/mann_whitney.hpp"

#include <algorithm>
#include <cmath>
#include <utility>

namespace tb {
namespace {

struct Ranked {
    std::vector<long> doubled_rank;  // 2 x mid-rank: integers even with ties
    std::vector<bool> first;         // the value came from x
    double tie_term = 0;             // sum over tie groups of t^3 - t
    bool ties = false;
};

Ranked rank_pooled(const std::vector<double>& x, const std::vector<double>& y) {
    std::vector<std::pair<double, bool>> pooled;
    pooled.reserve(x.size() + y.size());
    for (double v : x) pooled.emplace_back(v, true);
    for (double v : y) pooled.emplace_back(v, false);
    std::sort(pooled.begin(), pooled.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    Ranked r;
    const std::size_t n = pooled.size();
    r.doubled_rank.resize(n);
    r.first.resize(n);
    for (std::size_t i = 0; i < n;) {
        std::size_t j = i + 1;
        while (j < n && pooled[j].first == pooled[i].first) ++j;
        // Ranks i+1 .. j share their mean (i+1+j)/2; doubled it is the integer i+1+j.
        for (std::size_t k = i; k < j; ++k) {
            r.doubled_rank[k] = long(i + 1 + j);
            r.first[k] = pooled[k].second;
        }
        const double t = double(j - i);
        if (j - i > 1) {
            r.ties = true;
            r.tie_term += t * t * t - t;
        }
        i = j;
    }
    return r;
}

// Exact two-sided p: the distribution of the first sample's rank sum over every way of
// choosing n1 of the pooled (mid-)ranks, counted by dynamic programming over the sum.
double exact_p(const Ranked& r, std::size_t n1, long observed) {
    long max_sum = 0;
    for (long v : r.doubled_rank) max_sum += v;
    const std::size_t width = std::size_t(max_sum) + 1;
    // ways[k * width + s]: subsets of size k with doubled rank sum s (as doubles: the
    // counts reach C(64, 32) ~ 1.8e18, beyond 2^53, but only their ratios matter).
    std::vector<double> ways((n1 + 1) * width, 0.0);
    ways[0] = 1;
    std::size_t seen = 0;
    for (long v : r.doubled_rank) {
        ++seen;
        for (std::size_t k = std::min(seen, n1); k >= 1; --k) {
            double* to = &ways[k * width];
            const double* from = &ways[(k - 1) * width];
            for (long s = max_sum; s >= v; --s) to[s] += from[s - v];
        }
    }
    double total = 0, below = 0, above = 0;
    const double* last = &ways[n1 * width];
    for (long s = 0; s <= max_sum; ++s) {
        total += last[s];
        if (s <= observed) below += last[s];
        if (s >= observed) above += last[s];
    }
    return std::min(1.0, 2 * std::min(below, above) / total);
}

double binomial(std::size_t n, std::size_t k) {
    double c = 1;
    for (std::size_t i = 1; i <= k; ++i) c = c * double(n - k + i) / double(i);
    return c;
}

}  // namespace

MannWhitney mann_whitney_u(const std::vector<double>& x, const std::vector<double>& y) {
    MannWhitney m;
    const std::size_t n1 = x.size(), n2 = y.size(), n = n1 + n2;
    if (n1 == 0 || n2 == 0) return m;
    const Ranked r = rank_pooled(x, y);
    m.ties = r.ties;
    long rank_sum2 = 0;  // doubled rank sum of x
    for (std::size_t i = 0; i < n; ++i)
        if (r.first[i]) rank_sum2 += r.doubled_rank[i];
    m.u = 0.5 * double(rank_sum2) - 0.5 * double(n1 * (n1 + 1));
    if (n <= kExactMannWhitneyMaxN) {
        m.exact = true;
        m.p_value = exact_p(r, n1, rank_sum2);
        return m;
    }
    const double mean = 0.5 * double(n1) * double(n2);
    const double nd = double(n);
    const double var = double(n1) * double(n2) / 12.0 * ((nd + 1) - r.tie_term / (nd * (nd - 1)));
    if (var <= 0) return m;  // every value equal: no evidence of a shift
    // Continuity correction: U moves in steps of 1/2 (ties) or 1, the normal curve does not.
    m.z = std::max(0.0, std::fabs(m.u - mean) - 0.5) / std::sqrt(var);
    m.p_value = std::min(1.0, std::erfc(m.z / std::sqrt(2.0)));
    return m;
}

double mann_whitney_min_p(std::size_t n1, std::size_t n2) {
    if (n1 == 0 || n2 == 0) return 1;
    const std::size_t n = n1 + n2;
    if (n <= kExactMannWhitneyMaxN) return std::min(1.0, 2 / binomial(n, std::min(n1, n2)));
    const double mean = 0.5 * double(n1) * double(n2);
    const double sd = std::sqrt(double(n1) * double(n2) * double(n + 1) / 12.0);
    return std::min(1.0, std::erfc((mean - 0.5) / sd / std::sqrt(2.0)));
}

}  // namespace tb
