// CPU reference for spmv (a double-precision product) and the per-row tolerance.
//
// Tolerance. Every backend computes y_i = sum_j a_ij * x_j in float: n = len_i products,
// each rounded once, summed in some order (sequential, a tree of shuffles, a split row) with
// or without fused multiply-adds. For any such order the classical bound (Higham, Accuracy
// and Stability of Numerical Algorithms, 3.1) is
//     |y_i - ref_i| <= gamma_n * sum_j |a_ij x_j|,   gamma_n = n*u / (1 - n*u),  u = 2^-24,
// with ref_i the exact product, which the double-precision reference matches to ~n * 2^-53.
// We allow c * len_i * FLT_EPSILON * sum_j |a_ij x_j| with c = 1: FLT_EPSILON = 2u, so this is
// twice n*u, which covers the 1/(1 - n*u) factor while n*u <= 1/2 (rows up to 2^23
// entries) and the reference's own rounding. Flush-to-zero (fast math) can lose a subnormal product or
// partial sum per operation, so len_i * FLT_MIN is added (negligible for normal data).
// A row of length 0 must be exactly 0. The bound is a worst case: a missing or wrong term
// is caught on short rows, whose error budget is a few ulps, but may hide in a row of
// ~10^5 entries, where the budget is ~1% of sum |a_ij x_j|.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "csr.hpp"

namespace tb::spmv {

inline constexpr double kToleranceC = 1.0;

// Allowed |y_i - ref_i| for a row of `len` entries with sum |a_ij x_j| = abs_sum.
double row_bound(std::int64_t len, double abs_sum);

struct RowReference {
    double value = 0;    // sum a_ij x_j in double
    double abs_sum = 0;  // sum |a_ij x_j|
};
RowReference reference_row(const CsrMatrix& a, const std::vector<float>& x, std::int32_t row);

struct Comparison {
    std::int64_t rows = 0;          // rows compared
    std::int64_t nonzero_rows = 0;  // rows whose reference has a non-zero term
    std::int64_t bad = 0;           // rows outside the bound (NaN counts as outside)
    std::int64_t first_bad = -1;
    float first_bad_value = 0;
    double first_bad_ref = 0;
    std::int64_t worst_row = -1;    // row with the largest error / bound
    double worst_err = 0, worst_bound = 0;
};

// Compares every row of y (device result) against the double-precision product.
// Every row's reference, in row order.
std::vector<RowReference> reference_rows(const CsrMatrix& a, const std::vector<float>& x);

Comparison compare(const CsrMatrix& a, const std::vector<float>& x, const std::vector<float>& y);
// The same against references made once (reference_rows of a and x), as a suite shares them.
Comparison compare(const CsrMatrix& a, const std::vector<RowReference>& ref, const std::vector<float>& y);

// One line: what was compared, how many failed, the worst error and its bound.
std::string describe(const Comparison& c);

}  // namespace tb::spmv
