#include "stats/change_points.hpp"

#include <algorithm>
#include <cmath>

namespace tb {
namespace {

// 0.6745 = the standard normal's 75% quantile: median |N(0, s)| = 0.6745 s. A difference of
// two independent values has standard deviation sqrt(2) times one value's.
constexpr double kMadToSigma = 0.6744897501960817;

// Keeps the statistic finite when most successive differences are exactly zero (repeated
// identical timings); the permutation test stays exact with any positive scale.
constexpr double kMinScale = 1e-12;

// splitmix64: a small, fully specified generator, so the permutations (and hence p-values)
// are the same with every standard library.
struct SplitMix64 {
    std::uint64_t state;
    std::uint64_t next() {
        std::uint64_t z = (state += 0x9e3779b97f4a7c15ull);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
        return z ^ (z >> 31);
    }
    // Uniform in [0, n), without modulo bias.
    std::size_t below(std::size_t n) {
        const std::uint64_t limit = ~std::uint64_t(0) - (~std::uint64_t(0) % n);
        std::uint64_t x;
        do x = next();
        while (x >= limit);
        return std::size_t(x % n);
    }
};

void shuffle(std::vector<double>& v, SplitMix64& rng) {
    for (std::size_t i = v.size(); i > 1; --i) std::swap(v[i - 1], v[rng.below(i)]);
}

struct Segment {
    std::size_t lo, hi;  // [lo, hi)
};

class Segmenter {
public:
    Segmenter(const std::vector<double>& values, const std::vector<std::size_t>& groups, const ChangePointOptions& o)
        : values_(values), groups_(groups), o_(o) {}

    std::vector<ChangePoint> run() {
        split({0, values_.size()});
        std::sort(found_.begin(), found_.end(), [](const ChangePoint& a, const ChangePoint& b) { return a.index < b.index; });
        return found_;
    }

private:
    void split(Segment s) {
        const std::size_t n = s.hi - s.lo;
        if (n < 2 * std::max<std::size_t>(o_.min_runs, 1)) return;
        const std::vector<double> seg(values_.begin() + std::ptrdiff_t(s.lo), values_.begin() + std::ptrdiff_t(s.hi));
        std::vector<bool> allowed(n, false);
        for (std::size_t i = 1; i < n; ++i) allowed[i] = groups_[s.lo + i] != groups_[s.lo + i - 1];
        const Split best = best_split(seg, allowed, o_.min_runs);
        if (best.index == 0) return;
        const double p = permutation_p(seg, allowed, best.t, s);
        if (!(p < o_.alpha)) return;
        found_.push_back({s.lo + best.index, p, best.t});
        split({s.lo, s.lo + best.index});
        split({s.lo + best.index, s.hi});
    }

    // p = (1 + #{orderings at least as extreme}) / (1 + orderings tried). Stops early once
    // p can no longer fall below alpha.
    double permutation_p(const std::vector<double>& seg, const std::vector<bool>& allowed, double observed, Segment s) {
        SplitMix64 rng{o_.seed ^ (std::uint64_t(s.lo) * 0x100000001b3ull) ^ (std::uint64_t(s.hi) << 32)};
        std::vector<double> shuffled = seg;
        const double at_least = observed * (1 - 1e-12);  // equal statistics count as extreme
        std::size_t extreme = 0;
        const double give_up = o_.alpha * double(o_.permutations + 1);
        for (std::size_t b = 1; b <= o_.permutations; ++b) {
            shuffle(shuffled, rng);
            if (best_split(shuffled, allowed, o_.min_runs).t >= at_least) ++extreme;
            if (double(extreme + 1) > give_up) return double(extreme + 1) / double(b + 1);
        }
        return double(extreme + 1) / double(o_.permutations + 1);
    }

    const std::vector<double>& values_;
    const std::vector<std::size_t>& groups_;
    const ChangePointOptions& o_;
    std::vector<ChangePoint> found_;
};

}  // namespace

double successive_difference_scale(const std::vector<double>& values) {
    if (values.size() < 2) return 0;
    std::vector<double> d;
    d.reserve(values.size() - 1);
    for (std::size_t i = 1; i < values.size(); ++i) d.push_back(std::abs(values[i] - values[i - 1]));
    const std::size_t mid = d.size() / 2;
    std::nth_element(d.begin(), d.begin() + std::ptrdiff_t(mid), d.end());
    double med = d[mid];
    if (d.size() % 2 == 0) med = (med + *std::max_element(d.begin(), d.begin() + std::ptrdiff_t(mid))) / 2;
    return med / (kMadToSigma * std::sqrt(2.0));
}

std::vector<double> running_median3(const std::vector<double>& x) {
    const std::size_t n = x.size();
    if (n < 3) return x;
    auto med3 = [](double a, double b, double c) { return std::max(std::min(a, b), std::min(std::max(a, b), c)); };
    std::vector<double> y(n);
    for (std::size_t i = 1; i + 1 < n; ++i) y[i] = med3(x[i - 1], x[i], x[i + 1]);
    y[0] = med3(x[0], x[1], x[2]);
    y[n - 1] = med3(x[n - 3], x[n - 2], x[n - 1]);
    return y;
}

Split best_split(const std::vector<double>& values, const std::vector<bool>& allowed, std::size_t min_runs) {
    const std::size_t n = values.size();
    const std::size_t m = std::max<std::size_t>(min_runs, 1);
    Split best;
    if (n < 2 * m) return best;
    const double scale = std::max(successive_difference_scale(values), kMinScale);
    const std::vector<double> smooth = running_median3(values);
    double total = 0;
    for (double v : smooth) total += v;
    double left = 0;
    for (std::size_t i = 0; i + m < n; ++i) {
        left += smooth[i];
        const std::size_t nl = i + 1, nr = n - nl;
        if (nl < m || !allowed[nl]) continue;
        const double diff = (total - left) / double(nr) - left / double(nl);
        const double t = std::abs(diff) / (scale * std::sqrt(1.0 / double(nl) + 1.0 / double(nr)));
        if (t > best.t) best = {nl, t};
    }
    return best;
}

std::vector<ChangePoint> find_change_points(const std::vector<double>& values, const std::vector<std::size_t>& groups,
                                            const ChangePointOptions& o) {
    if (groups.size() != values.size()) return {};
    return Segmenter(values, groups, o).run();
}

}  // namespace tb
