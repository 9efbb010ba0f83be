#include "stats/stats.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace tb {

double student_t975(std::size_t dof) {
    // Exact table for small samples, where the normal approximation is too narrow.
    static const double table[] = {0,      12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262,
                                   2.228,  2.201,  2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093,
                                   2.086,  2.080,  2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045,
                                   2.042};
    if (dof == 0) return 0;
    if (dof <= 30) return table[dof];
    // Cornish-Fisher expansion around z = 1.959964; error < 1e-4 for dof > 30.
    const double z = 1.959964, n = double(dof);
    return z + (z * z * z + z) / (4 * n) + (5 * std::pow(z, 5) + 16 * z * z * z + 3 * z) / (96 * n * n);
}

Summary summarize(std::vector<double> s) {
    Summary r;
    r.count = s.size();
    if (s.empty()) return r;
    std::sort(s.begin(), s.end());
    r.min = s.front();
    r.max = s.back();
    const std::size_t n = s.size();
    r.median = n % 2 ? s[n / 2] : 0.5 * (s[n / 2 - 1] + s[n / 2]);
    r.mean = std::accumulate(s.begin(), s.end(), 0.0) / double(n);
    if (n > 1) {
        double ss = 0;
        for (double x : s) ss += (x - r.mean) * (x - r.mean);
        r.stddev = std::sqrt(ss / double(n - 1));
        const double half = student_t975(n - 1) * r.stddev / std::sqrt(double(n));
        r.ci95_low = r.mean - half;
        r.ci95_high = r.mean + half;
    } else {
        r.ci95_low = r.ci95_high = r.mean;
    }
    r.rsd = r.mean > 0 ? r.stddev / r.mean : 0;
    return r;
}

MedianCi median_ci95(std::vector<double> x) {
    MedianCi c;
    if (x.empty()) return c;
    std::sort(x.begin(), x.end());
    const std::size_t n = x.size();
    c.median = n % 2 ? x[n / 2] : (x[n / 2 - 1] + x[n / 2]) / 2;
    // 1-based ranks of the order statistics bounding the interval, clamped to the sample.
    const double half = 1.959963984540054 * std::sqrt(double(n)) / 2;
    const double lo_rank = std::floor(double(n) / 2 - half), hi_rank = std::ceil(double(n) / 2 + 1 + half);
    c.low = x[std::size_t(std::clamp(lo_rank, 1.0, double(n))) - 1];
    c.high = x[std::size_t(std::clamp(hi_rank, 1.0, double(n))) - 1];
    return c;
}

}  // namespace tb
