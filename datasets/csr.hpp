// Compressed sparse row matrices in single precision with 32-bit indices (what the spmv
// kernels and cuSPARSE's CUSPARSE_INDEX_32I read), and the conversion from coordinate
// (COO) triplets that the Matrix Market reader produces.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numeric>
#include <string>
#include <vector>

#include "device.hpp"

namespace tb {

struct CsrMatrix {
    std::int32_t rows = 0;
    std::int32_t cols = 0;
    std::vector<std::int32_t> row_ptr;  // rows + 1 offsets into col/val, row_ptr[0] == 0
    std::vector<std::int32_t> col;      // column of each non-zero, sorted within a row
    std::vector<float> val;

    std::int64_t nnz() const { return std::int64_t(col.size()); }
    std::int32_t row_length(std::int32_t r) const { return row_ptr[r + 1] - row_ptr[r]; }
};

// Coordinate triplets, 0-based. Values stay double until duplicates are summed.
struct CooMatrix {
    std::int64_t rows = 0;
    std::int64_t cols = 0;
    std::vector<std::int32_t> row, col;
    std::vector<double> val;
};

// Largest non-zero count a CSR matrix with int32 row offsets can hold.
inline constexpr std::int64_t kMaxCsrNnz = std::numeric_limits<std::int32_t>::max();

// Sorts each row's columns and sums duplicates (summing in double, rounding once to float).
// Throws tb::Error when the result does not fit 32-bit indices or a sum of duplicates
// overflows float; `what` names the source.
inline CsrMatrix csr_from_coo(const CooMatrix& coo, const std::string& what) {
    const std::int64_t max_dim = std::numeric_limits<std::int32_t>::max();
    if (coo.rows > max_dim || coo.cols > max_dim)
        throw Error(what + ": " + std::to_string(coo.rows) + "x" + std::to_string(coo.cols) +
                    " exceeds the 32-bit index range of the CSR kernels");
    const std::size_t n = coo.row.size();
    CsrMatrix m;
    m.rows = std::int32_t(coo.rows);
    m.cols = std::int32_t(coo.cols);
    // Counting sort by row (stable, so duplicates keep their file order).
    std::vector<std::int64_t> start(std::size_t(m.rows) + 1, 0);
    for (std::int32_t r : coo.row) ++start[std::size_t(r) + 1];
    std::partial_sum(start.begin(), start.end(), start.begin());
    std::vector<std::size_t> order(n);
    {
        std::vector<std::int64_t> next(start.begin(), start.end() - 1);
        for (std::size_t k = 0; k < n; ++k) order[std::size_t(next[std::size_t(coo.row[k])]++)] = k;
    }
    m.row_ptr.assign(std::size_t(m.rows) + 1, 0);
    m.col.reserve(n);
    m.val.reserve(n);
    for (std::int32_t r = 0; r < m.rows; ++r) {
        auto first = order.begin() + start[std::size_t(r)], last = order.begin() + start[std::size_t(r) + 1];
        std::stable_sort(first, last, [&](std::size_t a, std::size_t b) { return coo.col[a] < coo.col[b]; });
        for (auto it = first; it != last;) {
            const std::int32_t c = coo.col[*it];
            double sum = 0;
            for (; it != last && coo.col[*it] == c; ++it) sum += coo.val[*it];
            const auto v = float(sum);
            if (std::isinf(v))
                throw Error(what + ": duplicate entries at (" + std::to_string(r + 1) + "," + std::to_string(c + 1) +
                            ") sum to " + std::to_string(sum) + ", beyond single precision");
            m.col.push_back(c);
            m.val.push_back(v);
        }
        if (std::int64_t(m.col.size()) > kMaxCsrNnz)
            throw Error(what + ": more than " + std::to_string(kMaxCsrNnz) +
                        " non-zeros exceed the 32-bit row offsets of the CSR kernels");
        m.row_ptr[std::size_t(r) + 1] = std::int32_t(m.col.size());
    }
    return m;
}

}  // namespace tb
