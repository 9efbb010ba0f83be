// Deterministic sparse matrices with the structures SpMV users meet (docs/programs/spmv.md).
// Structure (and so the non-zero count) depends only on the size parameters; columns of
// random rows and all values come from the seed. Values are non-zero floats of magnitude
// in [0.5, 1.5) with random signs.
#pragma once

#include <cstdint>

#include "csr.hpp"

namespace tb::sparse {

// 5-point Laplacian stencil on an nx x nx grid (nx*nx rows); values symmetric (A == A^T).
CsrMatrix poisson2d(std::int32_t nx, std::uint64_t seed);
std::int64_t poisson2d_nnz(std::int64_t nx);

// 7-point stencil on a side^3 grid; values symmetric.
CsrMatrix poisson3d(std::int32_t side, std::uint64_t seed);
std::int64_t poisson3d_nnz(std::int64_t side);

// FEM-like: trilinear hexahedral elements on a side^3 node grid with `dofs` unknowns per
// node, so each node couples with its 27 neighbours: dense dofs x dofs blocks, up to
// 27 * dofs non-zeros per row (54 for 2 dofs), banded by node numbering; values symmetric.
CsrMatrix fem3d(std::int32_t side, std::int32_t dofs, std::uint64_t seed);
std::int64_t fem3d_nnz(std::int64_t side, std::int64_t dofs);

// Every row has exactly `per_row` distinct, uniformly random columns.
CsrMatrix random_rows(std::int32_t rows, std::int32_t cols, std::int32_t per_row, std::uint64_t seed);

// Zipf-like row lengths (web-graph-like): the row of rank k (0-based, longest first) has
// max(dmin, floor(dmax / (k+1)^(2/3))) entries, so the number of rows with at least L entries
// falls as L^-1.5; ranks are shuffled over the rows and columns are uniformly random.
std::int32_t power_law_row_length(std::int64_t rank, std::int32_t dmax, std::int32_t dmin);
CsrMatrix power_law(std::int32_t rows, std::int32_t dmax, std::int32_t dmin, std::uint64_t seed);
std::int64_t power_law_nnz(std::int32_t rows, std::int32_t dmax, std::int32_t dmin);

// Mostly short rows (4 to 12 entries) with `long_count` rows of `long_length` entries,
// spread evenly; columns uniformly random.
bool long_rows_is_long(std::int64_t row, std::int32_t rows, std::int32_t long_count);
std::int32_t long_rows_row_length(std::int64_t row, std::int32_t rows, std::int32_t long_count, std::int32_t long_length);
CsrMatrix long_rows(std::int32_t rows, std::int32_t long_count, std::int32_t long_length, std::uint64_t seed);
std::int64_t long_rows_nnz(std::int32_t rows, std::int32_t long_count, std::int32_t long_length);

// One row, the middle one (rows / 2), holds half the non-zeros: its length is the sum of
// the other rows' lengths, 1 to 9 each (a fixed hash of the row number). Columns uniformly
// random; cols must be at least the long row's length (about 5 * rows).
std::int32_t half_row_short_length(std::int64_t row);
std::int64_t half_row_long_length(std::int32_t rows);
std::int64_t half_row_nnz(std::int32_t rows);
CsrMatrix half_row(std::int32_t rows, std::int32_t cols, std::uint64_t seed);

// Mostly empty rows: one row in `every` on average (a fixed hash of the row number) holds
// 8 to 40 entries, the others none; square, columns uniformly random.
std::int32_t empty_rows_row_length(std::int64_t row, std::int32_t every);
std::int64_t empty_rows_nnz(std::int32_t rows, std::int32_t every);
CsrMatrix empty_rows(std::int32_t rows, std::int32_t every, std::uint64_t seed);

}  // namespace tb::sparse
