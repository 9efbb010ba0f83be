// CPU reference for kmeans; the reasoning behind every bound is in reference.hpp.
#include "reference.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>
#include <thread>

#include "cpu_affinity.hpp"
#include "device.hpp"

namespace tb::kmeans {
namespace {

constexpr double kU = 0x1p-24;        // unit roundoff of float
constexpr double kUDouble = 0x1p-53;  // unit roundoff of double
constexpr int kTile = 64;             // points whose distances are computed together

double gamma_double(int m) { return m * kUDouble / (1.0 - m * kUDouble); }

// What one thread accumulates over its range of points.
struct Partial {
    std::vector<double> sum, abs_sum;
    std::vector<std::int64_t> count;
    std::vector<Ambiguous> ambiguous;
    std::uint64_t mismatches = 0, flips = 0;
    std::int64_t first_mismatch = -1;
};

void step_range(const float* x, Shape s, const double* c, const std::int32_t* labels, std::int32_t* nearest,
                std::int64_t lo, std::int64_t hi, double g, double h, Partial& out) {
    const int d = s.d, k = s.k;
    out.sum.assign(std::size_t(k) * d, 0.0);
    out.abs_sum.assign(std::size_t(k) * d, 0.0);
    out.count.assign(k, 0);
    std::vector<double> dist(std::size_t(kTile) * k);  // dist[j * kTile + ii]
    // The expanded form's error scale A_j = |c_j|^2 + 2 sum_f |x_f c_jf| (h > 0 only).
    std::vector<double> scale(h > 0 ? std::size_t(kTile) * k : 0);
    std::vector<double> norm2(k, 0.0);
    for (int j = 0; j < k; ++j)
        for (int f = 0; f < d; ++f) norm2[j] += c[std::size_t(j) * d + f] * c[std::size_t(j) * d + f];
    double best_d[kTile];
    int best_j[kTile], label[kTile];
    std::uint32_t allowed[kTile];
    for (std::int64_t i0 = lo; i0 < hi; i0 += kTile) {
        const int m = int(std::min<std::int64_t>(kTile, hi - i0));
        std::fill(dist.begin(), dist.end(), 0.0);
        std::fill(scale.begin(), scale.end(), 0.0);
        // Feature-major tiles: each row of the tile is contiguous in memory.
        for (int f = 0; f < d; ++f) {
            const float* row = x + std::size_t(f) * s.n + i0;
            for (int j = 0; j < k; ++j) {
                const double cj = c[std::size_t(j) * d + f];
                double* dj = dist.data() + std::size_t(j) * kTile;
                for (int ii = 0; ii < m; ++ii) {
                    const double t = double(row[ii]) - cj;
                    dj[ii] += t * t;
                }
                if (h > 0) {
                    double* aj = scale.data() + std::size_t(j) * kTile;
                    const double two_cj = 2 * std::fabs(cj);
                    for (int ii = 0; ii < m; ++ii) aj[ii] += two_cj * std::fabs(double(row[ii]));
                }
            }
        }
        if (h > 0)
            for (int j = 0; j < k; ++j)
                for (int ii = 0; ii < m; ++ii) scale[std::size_t(j) * kTile + ii] += norm2[j];
        // Nearest centroid (strict <: ties keep the lowest index, as the kernels do) and
        // the allowed set, centroid-major so the loops over the tile vectorise.
        for (int ii = 0; ii < m; ++ii) best_d[ii] = dist[ii], best_j[ii] = 0, allowed[ii] = 0;
        for (int j = 1; j < k; ++j) {
            const double* dj = dist.data() + std::size_t(j) * kTile;
            for (int ii = 0; ii < m; ++ii) {
                const bool closer = dj[ii] < best_d[ii];
                best_d[ii] = closer ? dj[ii] : best_d[ii];
                best_j[ii] = closer ? j : best_j[ii];
            }
        }
        for (int j = 0; j < k; ++j) {
            const double* dj = dist.data() + std::size_t(j) * kTile;
            if (h > 0) {
                const double* aj = scale.data() + std::size_t(j) * kTile;
                for (int ii = 0; ii < m; ++ii) {
                    const double ab = scale[std::size_t(best_j[ii]) * kTile + ii];
                    allowed[ii] |= std::uint32_t(dj[ii] - best_d[ii] <= g * (dj[ii] + best_d[ii]) + h * (aj[ii] + ab))
                                   << j;
                }
            } else {
                for (int ii = 0; ii < m; ++ii)
                    allowed[ii] |= std::uint32_t(dj[ii] - best_d[ii] <= g * (dj[ii] + best_d[ii])) << j;
            }
        }
        for (int ii = 0; ii < m; ++ii) {
            const std::int64_t i = i0 + ii;
            const int best = best_j[ii];
            if (nearest) nearest[i] = best;
            label[ii] = best;
            if (labels) {
                const std::int32_t l = labels[i];
                if (l < 0 || l >= k || !((allowed[ii] >> l) & 1u)) {
                    ++out.mismatches;
                    if (out.first_mismatch < 0) out.first_mismatch = i;
                    label[ii] = -1;  // left out of the sums
                    continue;
                }
                out.flips += l != best;
                label[ii] = l;
            } else if (std::popcount(allowed[ii]) > 1) {
                out.ambiguous.push_back({i, allowed[ii]});
            }
            ++out.count[label[ii]];
        }
        for (int f = 0; f < d; ++f) {
            const float* row = x + std::size_t(f) * s.n + i0;
            for (int ii = 0; ii < m; ++ii) {
                if (label[ii] < 0) continue;
                const double v = row[ii];
                out.sum[std::size_t(label[ii]) * d + f] += v;
                out.abs_sum[std::size_t(label[ii]) * d + f] += std::fabs(v);
            }
        }
    }
}

void check_shape(Shape s) {
    if (s.n < 1 || s.d < 1 || s.k < 1 || s.k > 32)
        throw Error("kmeans reference: unsupported shape n=" + std::to_string(s.n) + " d=" + std::to_string(s.d) +
                    " k=" + std::to_string(s.k) + " (k must be 1..32)");
}

int ceil_log2(int v) {
    int r = 0;
    while ((1 << r) < v) ++r;
    return r;
}

// Additions a value passes through inside one work-group's combine: kmeans_partial's runs of
// 32 work-items in a pairwise tree, then the B/32 runs in sequence; kmeans_finalize's
// pairwise tree of log2(B) levels. The larger of the two bounds either.
int group_depth(int group_size) { return std::max(ceil_log2(group_size), 5 + (group_size + 31) / 32); }

}  // namespace

double gamma_float(int m) { return m * kU / (1.0 - m * kU); }

double tie_bound(int d) { return gamma_float(d + 2) + 2.0 * gamma_double(d + 4); }

double expanded_bound(int d) { return gamma_float(2 * d + 2); }

Step assign_step(const float* x, Shape s, const float* centroids, Distance form, const std::int32_t* labels,
                 std::int32_t* nearest) {
    check_shape(s);
    std::vector<double> c(centroids, centroids + std::size_t(s.k) * s.d);
    const bool expanded = form == Distance::expanded;
    const double g = expanded ? 2.0 * gamma_double(s.d + 4) : tie_bound(s.d);
    const double h = expanded ? expanded_bound(s.d) : 0.0;
    const std::int64_t per_thread_min = 16384;
    const unsigned hw = usable_cpu_count();
    const int threads = int(std::clamp<std::int64_t>(s.n / per_thread_min, 1, hw));
    std::vector<Partial> parts(threads);
    std::vector<std::thread> pool;
    const std::int64_t span = (s.n + threads - 1) / threads;
    for (int t = 0; t < threads; ++t) {
        const std::int64_t lo = std::min(s.n, t * span), hi = std::min(s.n, lo + span);
        pool.emplace_back(step_range, x, s, c.data(), labels, nearest, lo, hi, g, h, std::ref(parts[t]));
    }
    for (auto& th : pool) th.join();

    // Merged in range order, so the result does not depend on thread timing.
    Step st;
    st.sum.assign(std::size_t(s.k) * s.d, 0.0);
    st.abs_sum.assign(std::size_t(s.k) * s.d, 0.0);
    st.count.assign(s.k, 0);
    for (const Partial& p : parts) {
        for (std::size_t i = 0; i < st.sum.size(); ++i) {
            st.sum[i] += p.sum[i];
            st.abs_sum[i] += p.abs_sum[i];
        }
        for (int j = 0; j < s.k; ++j) st.count[j] += p.count[j];
        st.ambiguous.insert(st.ambiguous.end(), p.ambiguous.begin(), p.ambiguous.end());
        st.mismatches += p.mismatches;
        st.flips += p.flips;
        if (st.first_mismatch < 0) st.first_mismatch = p.first_mismatch;
    }
    return st;
}

int summation_depth(std::int64_t points_per_group, int group_size, std::int64_t groups, int final_group_size) {
    // A work-item adds at most ceil(points/B) + 3 values (it steps 4 points at a time).
    const std::int64_t item = (points_per_group + group_size - 1) / group_size + 3;
    const std::int64_t final_item = (groups + final_group_size - 1) / final_group_size;
    return int(item + group_depth(group_size) + final_item + group_depth(final_group_size));
}

CentroidCheck check_centroids(const Step& st, const float* x, Shape s, const float* prev, const float* got,
                              int depth) {
    check_shape(s);
    const int d = s.d, k = s.k;
    const std::size_t kd = std::size_t(k) * d;
    std::vector<double> mean(kd, 0.0), slack(kd, 0.0), extra_abs(kd, 0.0);
    std::vector<std::int64_t> may_move(k, 0);  // A_j
    for (int j = 0; j < k; ++j)
        if (st.count[j] > 0)
            for (int f = 0; f < d; ++f) mean[j * d + f] = st.sum[j * d + f] / double(st.count[j]);
    for (const Ambiguous& a : st.ambiguous)
        for (int j = 0; j < k; ++j) {
            if (!((a.allowed >> j) & 1u)) continue;
            ++may_move[j];
            for (int f = 0; f < d; ++f) {
                const double v = x[std::size_t(f) * s.n + a.point];
                slack[j * d + f] += std::fabs(v - mean[j * d + f]);
                extra_abs[j * d + f] += std::fabs(v);
            }
        }

    CentroidCheck cc;
    double worst_ratio = -1;
    const double gh = gamma_float(depth);
    auto record = [&](int j, int f, double err, double tol) {
        const double ratio = tol > 0 ? err / tol : (err == 0 ? 0.0 : std::numeric_limits<double>::infinity());
        const bool pass = err <= tol;  // false for NaN
        if (!pass) cc.ok = false;
        const double r = std::isnan(ratio) || !pass ? std::numeric_limits<double>::infinity() : ratio;
        if (r > worst_ratio || (cc.worst_cluster < 0)) {
            worst_ratio = r;
            cc.worst_err = err;
            cc.worst_tol = tol;
            cc.worst_cluster = j;
            cc.worst_feature = f;
        }
    };
    for (int j = 0; j < k; ++j) {
        if (st.count[j] <= may_move[j]) {
            if (may_move[j] > 0) {
                ++cc.unchecked;
                continue;
            }
            // Certainly empty: the device keeps the previous centroid, exactly.
            for (int f = 0; f < d; ++f) record(j, f, std::fabs(double(got[j * d + f]) - prev[j * d + f]), 0.0);
            continue;
        }
        const double nmin = double(st.count[j] - may_move[j]);
        for (int f = 0; f < d; ++f) {
            const std::size_t q = std::size_t(j) * d + f;
            const double moved = slack[q] / nmin;
            const double rounding = gh * (st.abs_sum[q] + extra_abs[q]) / nmin;
            const double tol = moved + rounding + 5 * kU * (std::fabs(mean[q]) + moved + rounding);
            record(j, f, std::fabs(double(got[q]) - mean[q]), tol);
        }
    }
    return cc;
}

std::vector<float> first_points(const float* x, Shape s) {
    check_shape(s);
    if (s.n < s.k) throw Error("kmeans: fewer points than clusters");
    std::vector<float> c(std::size_t(s.k) * s.d);
    for (int j = 0; j < s.k; ++j)
        for (int f = 0; f < s.d; ++f) c[std::size_t(j) * s.d + f] = x[std::size_t(f) * s.n + j];
    return c;
}

std::vector<double> lloyd(const float* x, Shape s, const float* init, int iters, std::vector<std::int32_t>* labels) {
    check_shape(s);
    const std::size_t kd = std::size_t(s.k) * s.d;
    std::vector<double> c(init, init + kd);
    std::vector<std::int32_t> near(s.n);
    for (int it = 0; it < iters; ++it) {
        std::vector<double> sum(kd, 0.0);
        std::vector<std::int64_t> count(s.k, 0);
        for (std::int64_t i = 0; i < s.n; ++i) {
            int best = 0;
            double bd = std::numeric_limits<double>::infinity();
            for (int j = 0; j < s.k; ++j) {
                double dist = 0;
                for (int f = 0; f < s.d; ++f) {
                    const double t = double(x[std::size_t(f) * s.n + i]) - c[std::size_t(j) * s.d + f];
                    dist += t * t;
                }
                if (dist < bd) bd = dist, best = j;
            }
            near[i] = best;
            ++count[best];
            for (int f = 0; f < s.d; ++f) sum[std::size_t(best) * s.d + f] += x[std::size_t(f) * s.n + i];
        }
        for (int j = 0; j < s.k; ++j)
            if (count[j] > 0)
                for (int f = 0; f < s.d; ++f) c[std::size_t(j) * s.d + f] = sum[std::size_t(j) * s.d + f] / double(count[j]);
    }
    if (labels) *labels = std::move(near);
    return c;
}

}  // namespace tb::kmeans
