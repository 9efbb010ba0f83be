#include "stats/stopping.hpp"

#include "stats/stats.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace tb {

double relative_stddev(const std::vector<double>& s) {
    if (s.size() < 2) return 0;
    const double mean = std::accumulate(s.begin(), s.end(), 0.0) / double(s.size());
    double ss = 0;
    for (double x : s) ss += (x - mean) * (x - mean);
    return mean > 0 ? std::sqrt(ss / double(s.size() - 1)) / mean : 0;
}

double median_spread(const std::vector<double>& s) {
    const MedianCi c = median_ci95(s);
    return c.median > 0 ? (c.high - c.low) / c.median : 0;
}

bool StoppingRule::done(const std::vector<double>& s, double wall_s) const {
    if (s.size() >= max_samples) return true;
    const bool floor_reached = s.size() >= floor_samples || wall_s >= floor_s;
    if (wall_s >= timeout_s && s.size() >= 2 && floor_reached) return true;
    if (settle_s > 0 && wall_s >= settle_s && s.size() >= std::max<std::size_t>(2, settle_min_samples) &&
        median_spread(s) <= max_median_spread)
        return true;
    return met(s);
}

bool StoppingRule::met(const std::vector<double>& s) const {
    if (s.size() < min_samples) return false;
    const double total_s = std::accumulate(s.begin(), s.end(), 0.0) * 1e-3;
    return total_s >= min_time_s && relative_stddev(s) <= max_noise;
}

bool StoppingRule::noisy(const std::vector<double>& s) const { return relative_stddev(s) > max_noise; }

}  // namespace tb
