// Sparse matrix generators. Every random choice is drawn from a stream derived from the seed
// and the row (or the unordered index pair, for symmetric values), so a matrix does not
// depend on the order its rows are built in.
#include "sparse_generators.hpp"

#include <algorithm>
#include <cmath>

#include "rng.hpp"

namespace tb::sparse {
namespace {

// Non-zero float of magnitude in [0.5, 1.5) with a random sign, from 64 random bits.
float value_from_bits(std::uint64_t b) {
    const float mag = 0.5f + float((b >> 40) & 0xFFFFFFu) * (1.0f / 16777216.0f);
    return (b >> 63) ? -mag : mag;
}

// The same value for (i, j) and (j, i): symmetric matrices are exactly symmetric.
float symmetric_value(std::uint64_t seed, std::int64_t i, std::int64_t j) {
    const auto lo = std::uint64_t(std::min(i, j)), hi = std::uint64_t(std::max(i, j));
    Rng r(seed ^ (lo * 0xD1B54A32D192ED03ull) ^ ((hi + 1) * 0x9E3779B97F4A7C15ull));
    return value_from_bits(r.next_u64());
}

Rng row_rng(std::uint64_t seed, std::int64_t row) { return Rng(derive_seed(seed, std::uint64_t(row) + 1)); }

// `count` distinct sorted columns in [0, cols) appended to m.col, with random values.
void random_row(CsrMatrix& m, std::int32_t count, std::int32_t cols, Rng& rng, std::vector<std::int32_t>& scratch) {
    if (count > cols)
        throw Error("sparse generator: " + std::to_string(count) + " entries in a row of " + std::to_string(cols) + " columns");
    scratch.clear();
    while (std::int32_t(scratch.size()) < count) {
        while (std::int32_t(scratch.size()) < count) scratch.push_back(std::int32_t(rng.below(std::uint64_t(cols))));
        std::sort(scratch.begin(), scratch.end());
        scratch.erase(std::unique(scratch.begin(), scratch.end()), scratch.end());
    }
    for (std::int32_t c : scratch) {
        m.col.push_back(c);
        m.val.push_back(value_from_bits(rng.next_u64()));
    }
}

void start(CsrMatrix& m, std::int32_t rows, std::int32_t cols, std::int64_t nnz) {
    m.rows = rows;
    m.cols = cols;
    m.row_ptr.assign(std::size_t(rows) + 1, 0);
    m.col.reserve(std::size_t(nnz));
    m.val.reserve(std::size_t(nnz));
}

void end_row(CsrMatrix& m, std::int64_t row) { m.row_ptr[std::size_t(row) + 1] = std::int32_t(m.col.size()); }

// Structured stencil rows: neighbours listed in increasing column order by the caller.
void stencil_entry(CsrMatrix& m, std::uint64_t seed, std::int64_t row, std::int64_t col) {
    m.col.push_back(std::int32_t(col));
    m.val.push_back(symmetric_value(seed, row, col));
}

// floor(cbrt(q)) exactly, for q < 2^63.
std::int64_t icbrt(std::int64_t q) {
    auto r = std::int64_t(std::cbrt(double(q)));
    while (r > 0 && r * r * r > q) --r;
    while ((r + 1) * (r + 1) * (r + 1) <= q) ++r;
    return r;
}

// `count` distinct sorted columns in [0, cols) by selection sampling (Knuth's algorithm S):
// one pass over the columns, exact count, for rows too long for random_row's draw-and-sort.
void sampled_row(CsrMatrix& m, std::int64_t count, std::int32_t cols, Rng& rng) {
    if (count > cols)
        throw Error("sparse generator: " + std::to_string(count) + " entries in a row of " + std::to_string(cols) + " columns");
    std::int64_t needed = count;
    for (std::int64_t c = 0; c < cols && needed > 0; ++c)
        if (std::int64_t(rng.below(std::uint64_t(cols - c))) < needed) {
            m.col.push_back(std::int32_t(c));
            m.val.push_back(value_from_bits(rng.next_u64()));
            --needed;
        }
}

// Seed-independent row lengths of the extreme structures, from a hash of the row number.
std::uint64_t length_hash(std::int64_t row, std::uint64_t structure) {
    return Rng(std::uint64_t(row) * 0x9E3779B97F4A7C15ull ^ structure).next_u64();
}

std::int64_t long_row_position(std::int32_t k, std::int32_t rows, std::int32_t long_count) {
    return (2 * std::int64_t(k) + 1) * rows / (2 * std::int64_t(long_count));
}

}  // namespace

std::int64_t poisson2d_nnz(std::int64_t nx) { return 5 * nx * nx - 4 * nx; }

CsrMatrix poisson2d(std::int32_t nx, std::uint64_t seed) {
    const std::int64_t n = std::int64_t(nx) * nx;
    CsrMatrix m;
    start(m, std::int32_t(n), std::int32_t(n), poisson2d_nnz(nx));
    for (std::int64_t y = 0; y < nx; ++y)
        for (std::int64_t x = 0; x < nx; ++x) {
            const std::int64_t i = y * nx + x;
            if (y > 0) stencil_entry(m, seed, i, i - nx);
            if (x > 0) stencil_entry(m, seed, i, i - 1);
            stencil_entry(m, seed, i, i);
            if (x + 1 < nx) stencil_entry(m, seed, i, i + 1);
            if (y + 1 < nx) stencil_entry(m, seed, i, i + nx);
            end_row(m, i);
        }
    return m;
}

std::int64_t poisson3d_nnz(std::int64_t side) { return 7 * side * side * side - 6 * side * side; }

CsrMatrix poisson3d(std::int32_t side, std::uint64_t seed) {
    const std::int64_t s = side, plane = s * s, n = plane * s;
    CsrMatrix m;
    start(m, std::int32_t(n), std::int32_t(n), poisson3d_nnz(side));
    for (std::int64_t z = 0; z < s; ++z)
        for (std::int64_t y = 0; y < s; ++y)
            for (std::int64_t x = 0; x < s; ++x) {
                const std::int64_t i = (z * s + y) * s + x;
                if (z > 0) stencil_entry(m, seed, i, i - plane);
                if (y > 0) stencil_entry(m, seed, i, i - s);
                if (x > 0) stencil_entry(m, seed, i, i - 1);
                stencil_entry(m, seed, i, i);
                if (x + 1 < s) stencil_entry(m, seed, i, i + 1);
                if (y + 1 < s) stencil_entry(m, seed, i, i + s);
                if (z + 1 < s) stencil_entry(m, seed, i, i + plane);
                end_row(m, i);
            }
    return m;
}

// In one dimension a node has 3 neighbours (itself included) except at the two ends: 3s-2
// neighbour pairs per dimension, each pair of nodes coupling dofs x dofs unknowns.
std::int64_t fem3d_nnz(std::int64_t side, std::int64_t dofs) {
    const std::int64_t pairs = 3 * side - 2;
    return dofs * dofs * pairs * pairs * pairs;
}

CsrMatrix fem3d(std::int32_t side, std::int32_t dofs, std::uint64_t seed) {
    const std::int64_t s = side, d = dofs, n = s * s * s * d;
    CsrMatrix m;
    start(m, std::int32_t(n), std::int32_t(n), fem3d_nnz(side, dofs));
    for (std::int64_t z = 0; z < s; ++z)
        for (std::int64_t y = 0; y < s; ++y)
            for (std::int64_t x = 0; x < s; ++x)
                for (std::int64_t a = 0; a < d; ++a) {
                    const std::int64_t row = ((z * s + y) * s + x) * d + a;
                    // Neighbour nodes in increasing node number, so columns come out sorted.
                    for (std::int64_t nz = std::max<std::int64_t>(z - 1, 0); nz <= std::min(z + 1, s - 1); ++nz)
                        for (std::int64_t ny = std::max<std::int64_t>(y - 1, 0); ny <= std::min(y + 1, s - 1); ++ny)
                            for (std::int64_t nx = std::max<std::int64_t>(x - 1, 0); nx <= std::min(x + 1, s - 1); ++nx)
                                for (std::int64_t b = 0; b < d; ++b)
                                    stencil_entry(m, seed, row, ((nz * s + ny) * s + nx) * d + b);
                    end_row(m, row);
                }
    return m;
}

CsrMatrix random_rows(std::int32_t rows, std::int32_t cols, std::int32_t per_row, std::uint64_t seed) {
    if (per_row > cols) throw Error("random_rows: " + std::to_string(per_row) + " entries per row exceed " + std::to_string(cols) + " columns");
    CsrMatrix m;
    start(m, rows, cols, std::int64_t(rows) * per_row);
    std::vector<std::int32_t> scratch;
    for (std::int64_t i = 0; i < rows; ++i) {
        Rng rng = row_rng(seed, i);
        random_row(m, per_row, cols, rng, scratch);
        end_row(m, i);
    }
    return m;
}

std::int32_t power_law_row_length(std::int64_t rank, std::int32_t dmax, std::int32_t dmin) {
    // floor(dmax / (k+1)^(2/3)) = floor(cbrt(dmax^3 / (k+1)^2)), in exact integer arithmetic so
    // the count is the same on every machine (a libm pow could round differently).
    const std::int64_t d3 = std::int64_t(dmax) * dmax * dmax;
    const std::int64_t k1 = rank + 1;
    const std::int64_t q = k1 > 3037000499 ? 0 : d3 / (k1 * k1);  // (k+1)^2 would overflow
    return std::int32_t(std::max<std::int64_t>(dmin, icbrt(q)));
}

std::int64_t power_law_nnz(std::int32_t rows, std::int32_t dmax, std::int32_t dmin) {
    std::int64_t nnz = 0;
    for (std::int64_t k = 0; k < rows; ++k) nnz += power_law_row_length(k, dmax, dmin);
    return nnz;
}

CsrMatrix power_law(std::int32_t rows, std::int32_t dmax, std::int32_t dmin, std::uint64_t seed) {
    if (dmax > rows) throw Error("power_law: longest row " + std::to_string(dmax) + " exceeds " + std::to_string(rows) + " columns");
    // Which row gets which rank: a seeded Fisher-Yates shuffle.
    std::vector<std::int32_t> rank(static_cast<std::size_t>(rows));
    for (std::int32_t i = 0; i < rows; ++i) rank[std::size_t(i)] = i;
    Rng shuffle(derive_seed(seed, 0));
    for (std::int64_t i = rows - 1; i > 0; --i)
        std::swap(rank[std::size_t(i)], rank[std::size_t(shuffle.below(std::uint64_t(i) + 1))]);
    CsrMatrix m;
    start(m, rows, rows, power_law_nnz(rows, dmax, dmin));
    std::vector<std::int32_t> scratch;
    for (std::int64_t i = 0; i < rows; ++i) {
        Rng rng = row_rng(seed, i);
        random_row(m, power_law_row_length(rank[std::size_t(i)], dmax, dmin), rows, rng, scratch);
        end_row(m, i);
    }
    return m;
}

bool long_rows_is_long(std::int64_t row, std::int32_t rows, std::int32_t long_count) {
    for (std::int32_t k = 0; k < long_count; ++k)
        if (long_row_position(k, rows, long_count) == row) return true;
    return false;
}

std::int32_t long_rows_row_length(std::int64_t row, std::int32_t rows, std::int32_t long_count, std::int32_t long_length) {
    if (long_rows_is_long(row, rows, long_count)) return long_length;
    // Short lengths 4..12 from a fixed (seed-independent) hash, so the count is known.
    return 4 + std::int32_t(Rng(std::uint64_t(row)).next_u64() % 9);
}

std::int64_t long_rows_nnz(std::int32_t rows, std::int32_t long_count, std::int32_t long_length) {
    std::int64_t nnz = 0;
    for (std::int64_t i = 0; i < rows; ++i) nnz += long_rows_row_length(i, rows, long_count, long_length);
    return nnz;
}

CsrMatrix long_rows(std::int32_t rows, std::int32_t long_count, std::int32_t long_length, std::uint64_t seed) {
    if (long_length > rows) throw Error("long_rows: long rows of " + std::to_string(long_length) + " exceed " + std::to_string(rows) + " columns");
    CsrMatrix m;
    start(m, rows, rows, long_rows_nnz(rows, long_count, long_length));
    std::vector<std::int32_t> scratch;
    for (std::int64_t i = 0; i < rows; ++i) {
        Rng rng = row_rng(seed, i);
        random_row(m, long_rows_row_length(i, rows, long_count, long_length), rows, rng, scratch);
        end_row(m, i);
    }
    return m;
}

std::int32_t half_row_short_length(std::int64_t row) { return 1 + std::int32_t(length_hash(row, 0x4841) % 9); }

std::int64_t half_row_long_length(std::int32_t rows) {
    std::int64_t sum = 0;
    for (std::int64_t i = 0; i < rows; ++i)
        if (i != rows / 2) sum += half_row_short_length(i);
    return sum;
}

std::int64_t half_row_nnz(std::int32_t rows) { return 2 * half_row_long_length(rows); }

CsrMatrix half_row(std::int32_t rows, std::int32_t cols, std::uint64_t seed) {
    const std::int64_t long_length = half_row_long_length(rows);
    if (long_length > cols)
        throw Error("half_row: the long row of " + std::to_string(long_length) + " exceeds " + std::to_string(cols) +
                    " columns");
    CsrMatrix m;
    start(m, rows, cols, 2 * long_length);
    std::vector<std::int32_t> scratch;
    for (std::int64_t i = 0; i < rows; ++i) {
        Rng rng = row_rng(seed, i);
        if (i == rows / 2) sampled_row(m, long_length, cols, rng);
        else random_row(m, half_row_short_length(i), cols, rng, scratch);
        end_row(m, i);
    }
    return m;
}

std::int32_t empty_rows_row_length(std::int64_t row, std::int32_t every) {
    const std::uint64_t h = length_hash(row, 0x454D);
    if (h % std::uint64_t(every) != 0) return 0;
    return 8 + std::int32_t((h >> 32) % 33);
}

std::int64_t empty_rows_nnz(std::int32_t rows, std::int32_t every) {
    std::int64_t nnz = 0;
    for (std::int64_t i = 0; i < rows; ++i) nnz += empty_rows_row_length(i, every);
    return nnz;
}

CsrMatrix empty_rows(std::int32_t rows, std::int32_t every, std::uint64_t seed) {
    CsrMatrix m;
    start(m, rows, rows, empty_rows_nnz(rows, every));
    std::vector<std::int32_t> scratch;
    for (std::int64_t i = 0; i < rows; ++i) {
        const std::int32_t length = empty_rows_row_length(i, every);
        if (length > 0) {
            Rng rng = row_rng(seed, i);
            random_row(m, length, rows, rng, scratch);
        }
        end_row(m, i);
    }
    return m;
}

}  // namespace tb::sparse
