#include "reference.hpp"

#include <cfloat>
#include <cmath>
#include <sstream>

#include "internal_error.hpp"

namespace tb::spmv {

double row_bound(std::int64_t len, double abs_sum) {
    return kToleranceC * double(len) * double(FLT_EPSILON) * abs_sum + double(len) * double(FLT_MIN);
}

RowReference reference_row(const CsrMatrix& a, const std::vector<float>& x, std::int32_t row) {
    RowReference r;
    for (std::int32_t k = a.row_ptr[std::size_t(row)]; k < a.row_ptr[std::size_t(row) + 1]; ++k) {
        const double p = double(a.val[std::size_t(k)]) * double(x[std::size_t(a.col[std::size_t(k)])]);
        r.value += p;
        r.abs_sum += std::fabs(p);
    }
    return r;
}

std::vector<RowReference> reference_rows(const CsrMatrix& a, const std::vector<float>& x) {
    std::vector<RowReference> ref(std::size_t(a.rows));
    for (std::int32_t i = 0; i < a.rows; ++i) ref[std::size_t(i)] = reference_row(a, x, i);
    return ref;
}

Comparison compare(const CsrMatrix& a, const std::vector<float>& x, const std::vector<float>& y) {
    return compare(a, reference_rows(a, x), y);
}

Comparison compare(const CsrMatrix& a, const std::vector<RowReference>& refs, const std::vector<float>& y) {
    if (refs.size() != std::size_t(a.rows) || y.size() != std::size_t(a.rows))
        throw InternalError("spmv: " + std::to_string(refs.size()) + " references and " + std::to_string(y.size()) +
                            " results for " + std::to_string(a.rows) + " rows");
    Comparison c;
    c.rows = a.rows;
    double worst_ratio = -1;
    for (std::int32_t i = 0; i < a.rows; ++i) {
        const RowReference& ref = refs[std::size_t(i)];
        const double bound = row_bound(a.row_length(i), ref.abs_sum);
        c.nonzero_rows += ref.abs_sum > 0;
        const double err = std::fabs(double(y[std::size_t(i)]) - ref.value);
        // Written so that a NaN error fails.
        const bool ok = err <= bound;
        const double ratio = !ok ? INFINITY : bound > 0 ? err / bound : 0.0;
        if (!ok && c.bad++ == 0) {
            c.first_bad = i;
            c.first_bad_value = y[std::size_t(i)];
            c.first_bad_ref = ref.value;
        }
        if (ratio > worst_ratio) {
            worst_ratio = ratio;
            c.worst_row = i;
            c.worst_err = err;
            c.worst_bound = bound;
        }
    }
    return c;
}

std::string describe(const Comparison& c) {
    std::ostringstream s;
    s.precision(3);
    s << "y vs double-precision CPU product on all " << c.rows << " rows: " << c.bad << " outside |y-ref| <= "
      << kToleranceC << "*len*FLT_EPSILON*sum|a*x|";
    if (c.bad > 0)
        s << "; first at row " << c.first_bad << ": got " << c.first_bad_value << ", expected " << c.first_bad_ref;
    else if (c.worst_row >= 0)
        s << "; worst error " << c.worst_err << " (bound " << c.worst_bound << ") at row " << c.worst_row;
    return s.str();
}

}  // namespace tb::spmv
