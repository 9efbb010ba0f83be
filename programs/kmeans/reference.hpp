// CPU reference for kmeans (Lloyd's algorithm, evaluated in double precision) and the
// reasoning behind its tolerances.
//
// Layouts (as on the device): points are feature-major, feature f of point i at
// x[f * n + i]; centroids are cluster-major, feature f of centroid j at c[j * d + f].
//
// Why the reference is anchored on the device's own centroids. Lloyd's algorithm is a
// fixed-point iteration: a point whose distances to its two nearest centroids are equal
// up to float rounding may legitimately go either way, which moves both centroids by a
// tiny amount, which can move other near-tie points in the next iteration, and so on. An
// independent double-precision trajectory therefore cannot be compared with a float one by
// an error bound. Instead every iteration t is checked on its own: from the centroids the
// device started iteration t with (its output of iteration t-1, or the initial ones), the
// reference recomputes in double the assignment and the new centroids, and the device's
// new centroids must match within the bounds below. Errors cannot accumulate, and every
// bound is derived, not tuned.
#pragma once

#include <cstdint>
#include <vector>

namespace tb::kmeans {

struct Shape {
    std::int64_t n = 0;  // points
    int d = 0;           // features per point
    int k = 0;           // clusters, 1..32
};

// gamma_m = m u / (1 - m u), u = 2^-24: the bound on the relative error of m successive
// float roundings (Higham, Accuracy and Stability of Numerical Algorithms, 3.1).
double gamma_float(int m);

// ---- Assignment tolerance ---------------------------------------------------------------
// How the device computes the distances it ranks (kernels.cl):
//   direct   (kmeans_assign): D_j = sum_f (x_f - c_jf)^2 in float: one rounding for each
//            difference, square and addition (an fma merges the last two; any order has the
//            same bound). All terms are non-negative, so the float result lies within
//            gamma_{d+2} * D_j of the exact value.
//   expanded (kmeans_assign_d2/_d4): s_j = |c_j|^2 - 2 x.c_j = D_j - |x|^2, |c_j|^2 summed
//            in float (gamma_d |c_j|^2), then d fmas against -2 c_j (exact) from it: a sum
//            of d+1 terms, within gamma_{d+1} (|c_j|^2 + 2 sum_f |x_f c_jf|) (Higham 3.1), so
//            the float s_j lies within gamma_{2d+1} A_j of the exact one, A_j = |c_j|^2 +
//            2 sum_f |x_f c_jf|. This bound is not relative to D_j: points far from the
//            origin next to a near tie may flip where the direct form would not.
// The double-precision reference is off by at most gamma^double_{d+4} * D_j. The device may
// therefore pick centroid j instead of the exact nearest b only when
//     D_j - D_b <= g (D_j + D_b) + h (A_j + A_b),
//     direct:   g = tie_bound(d) = gamma_{d+2} + 2 gamma^double_{d+4},  h = 0
//     expanded: g = 2 gamma^double_{d+4},  h = expanded_bound(d) = gamma_{2d+2} (one rounding
//               more than the bound, for the reference's own error in A_j).
// Those centroids form a point's allowed set; a device label outside it is a mismatch, and
// mismatches must be zero. A label inside it that differs from the double-precision
// nearest centroid (ties to the lowest index, as on the device) is a "flip" and is legal.
enum class Distance { direct, expanded };
double tie_bound(int d);
double expanded_bound(int d);

// A point whose allowed set has more than one centroid: bit j of `allowed` set when
// centroid j is allowed.
struct Ambiguous {
    std::int64_t point;
    std::uint32_t allowed;
};

// One assignment step in double precision and the per-cluster sums it induces.
struct Step {
    std::vector<double> sum;          // k*d: sum of the points of each cluster
    std::vector<double> abs_sum;      // k*d: sum of their absolute values
    std::vector<std::int64_t> count;  // k
    std::vector<Ambiguous> ambiguous;  // near-tie points (only when clustering by own labels)
    std::uint64_t mismatches = 0;      // given labels outside the allowed set (or out of range)
    std::uint64_t flips = 0;           // given labels inside it but not the nearest centroid
    std::int64_t first_mismatch = -1;  // a point index, or -1
};

// labels == nullptr: clusters each point by its double-precision nearest centroid and
// lists the near-tie points. labels != nullptr (the device's): checks each label against
// the allowed set and clusters by the given labels. nearest, when given, receives the
// double-precision nearest centroid of every point. Uses every hardware thread.
Step assign_step(const float* x, Shape s, const float* centroids, Distance form, const std::int32_t* labels,
                 std::int32_t* nearest = nullptr);

// ---- Centroid tolerance -----------------------------------------------------------------
// The device sums each cluster's coordinates in float through a fixed tree: each
// work-item adds its points sequentially, the work-group combines the work-items, and a
// final work-group combines the groups. A value passes through at most h additions (the
// depth of that tree, `summation_depth`), so |float sum - exact sum| <= gamma_h * sum|x|.
// Dividing by the count costs at most 2 ulp (4u relative; fast math's approximate
// division included), converting the count to float at most u, storing at most u more:
// hence 5u * |mean| on top. Near-tie points of that iteration may sit in either of their
// allowed clusters on the device: moving m points in or out of a set of c points changes
// its mean by at most sum |x_p - mean| / (c - m) over the moved points, so every near-tie
// point that may belong to cluster j adds |x_pf - mean_jf| / (c_j - A_j) to the tolerance of
// coordinate (j, f), A_j being the number of such points. A cluster that is empty keeps
// its previous centroid (exactly); a cluster that may be empty or not depending on near
// ties (c_j <= A_j) is not checked and is counted as such.
int summation_depth(std::int64_t points_per_group, int group_size, std::int64_t groups, int final_group_size);

struct CentroidCheck {
    bool ok = true;
    double worst_err = 0, worst_tol = 0;  // at the coordinate with the largest err/tol
    int worst_cluster = -1, worst_feature = -1;
    int unchecked = 0;  // clusters left out (see above)
};

// Compares the device's centroids `got` (k*d) with the step's means; `prev` are the
// centroids the step started from (kept by empty clusters).
CentroidCheck check_centroids(const Step& st, const float* x, Shape s, const float* prev, const float* got,
                              int depth);

// ---- Plain Lloyd --------------------------------------------------------------------------
// The first k points as centroids (Rodinia's deterministic initialisation).
std::vector<float> first_points(const float* x, Shape s);

// An independent double-precision run of `iters` iterations (tests use it as the answer
// the device should approach); returns the final centroids, writes the final labels.
std::vector<double> lloyd(const float* x, Shape s, const float* init, int iters, std::vector<std::int32_t>* labels);

}  // namespace tb::kmeans
