// spmv: the generators' structures, the reference and its tolerance, the launch geometry,
// the `auto` rule, Matrix Market datasets, and every small dataset and test file run
// through every variant on the opencl backend (PoCL in CI).
#include <algorithm>
#include <cctype>
#include <cfloat>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <map>
#include <numeric>
#include <set>

#include <gtest/gtest.h>

#include "backend.hpp"
#include "program.hpp"
#include "sparse_generators.hpp"
#include "spmv/instance.hpp"
#include "spmv/launch_config.hpp"
#include "spmv/problem.hpp"
#include "spmv/reference.hpp"
#include "spmv/tuning.hpp"
#include "spmv/variant_choice.hpp"
#include "every_device.hpp"
#include "shared_opencl_device.hpp"

using namespace tb;

namespace {

std::string data(const std::string& name) { return std::string(TRIBENCH_TEST_DATA) + "/mtx/" + name; }

const Dataset& dataset(const std::string& name) { return find_dataset(spmv::generated_datasets(), "spmv", name); }

// Sorted, distinct, in-range columns and consistent offsets.
void expect_well_formed(const CsrMatrix& m) {
    ASSERT_EQ(m.row_ptr.size(), std::size_t(m.rows) + 1);
    ASSERT_EQ(m.row_ptr.front(), 0);
    ASSERT_EQ(std::int64_t(m.row_ptr.back()), m.nnz());
    ASSERT_EQ(m.col.size(), m.val.size());
    for (std::int32_t r = 0; r < m.rows; ++r) {
        ASSERT_LE(m.row_ptr[std::size_t(r)], m.row_ptr[std::size_t(r) + 1]);
        for (std::int32_t k = m.row_ptr[std::size_t(r)]; k < m.row_ptr[std::size_t(r) + 1]; ++k) {
            ASSERT_GE(m.col[std::size_t(k)], 0);
            ASSERT_LT(m.col[std::size_t(k)], m.cols);
            if (k > m.row_ptr[std::size_t(r)]) {
                ASSERT_LT(m.col[std::size_t(k) - 1], m.col[std::size_t(k)]) << "row " << r;
            }
            ASSERT_NE(m.val[std::size_t(k)], 0.0f);
        }
    }
}

// A == A^T, values included.
bool symmetric(const CsrMatrix& m) {
    if (m.rows != m.cols) return false;
    for (std::int32_t r = 0; r < m.rows; ++r)
        for (std::int32_t k = m.row_ptr[std::size_t(r)]; k < m.row_ptr[std::size_t(r) + 1]; ++k) {
            const std::int32_t c = m.col[std::size_t(k)];
            const auto first = m.col.begin() + m.row_ptr[std::size_t(c)], last = m.col.begin() + m.row_ptr[std::size_t(c) + 1];
            const auto it = std::lower_bound(first, last, r);
            if (it == last || *it != r || m.val[std::size_t(it - m.col.begin())] != m.val[std::size_t(k)]) return false;
        }
    return true;
}

std::vector<std::int32_t> row_lengths(const CsrMatrix& m) {
    std::vector<std::int32_t> v(static_cast<std::size_t>(m.rows));
    for (std::int32_t r = 0; r < m.rows; ++r) v[std::size_t(r)] = m.row_length(r);
    return v;
}

}  // namespace

// ---- Datasets and generators --------------------------------------------------------------

const char* const kStructures[] = {"poisson2d", "poisson3d", "fem",     "random",
                                   "powerlaw",  "longrows",  "halfrow", "emptyrows"};

TEST(SpmvDatasets, EightStructuresFromSmallToAtLeast20MNonZeros) {
    std::set<std::string> names;
    for (const char* s : kStructures) {
        const std::string base = s;
        const Dataset& small = dataset(base + "-s");
        EXPECT_TRUE(small.small);
        EXPECT_GE(small.param("rows"), 1000);
        EXPECT_LE(small.param("rows"), 10000) << "CI-sized means a few thousand rows";
        EXPECT_FALSE(dataset(base + "-m").small);
        const Dataset& large = dataset(base + "-l");
        EXPECT_FALSE(large.small);
        EXPECT_GE(large.param("nnz"), 20'000'000) << large.name;
        EXPECT_LT(large.param("nnz"), 30'000'000) << large.name;
    }
    EXPECT_EQ(spmv::generated_datasets().size(), 3 * std::size(kStructures));
    for (const auto& d : spmv::generated_datasets()) {
        EXPECT_TRUE(names.insert(d.name).second) << "duplicate " << d.name;
        for (char c : d.name) EXPECT_TRUE(std::islower(static_cast<unsigned char>(c)) || std::isdigit(static_cast<unsigned char>(c)) || c == '-') << d.name;
        EXPECT_TRUE(d.file.empty());
    }
}

TEST(SpmvDatasets, SmallMatricesMatchTheirDeclaredSizes) {
    for (const auto& d : spmv::generated_datasets()) {
        if (!d.small) continue;
        const CsrMatrix m = spmv::generate_matrix(d, 7);
        SCOPED_TRACE(d.name);
        expect_well_formed(m);
        EXPECT_EQ(m.rows, d.param("rows"));
        EXPECT_EQ(m.cols, d.param("cols"));
        EXPECT_EQ(m.nnz(), d.param("nnz"));
        const std::uint64_t bytes = std::uint64_t(m.nnz()) * 8 + std::uint64_t(m.rows + 1) * 4 + std::uint64_t(m.cols) * 4 +
                                    std::uint64_t(m.rows) * 4;
        EXPECT_EQ(spmv::problem_device_bytes(d), bytes);
    }
}

TEST(SpmvGenerators, Poisson2dIsTheSymmetricFivePointStencil) {
    const CsrMatrix m = sparse::poisson2d(20, 3);
    expect_well_formed(m);
    EXPECT_EQ(m.rows, 400);
    EXPECT_EQ(m.nnz(), 5 * 400 - 4 * 20);
    EXPECT_EQ(m.nnz(), sparse::poisson2d_nnz(20));
    EXPECT_TRUE(symmetric(m));
    // Interior point (x=5, y=7): itself and its four neighbours.
    const std::int32_t i = 7 * 20 + 5;
    const std::vector<std::int32_t> cols(m.col.begin() + m.row_ptr[std::size_t(i)], m.col.begin() + m.row_ptr[std::size_t(i) + 1]);
    EXPECT_EQ(cols, (std::vector<std::int32_t>{i - 20, i - 1, i, i + 1, i + 20}));
    EXPECT_EQ(m.row_length(0), 3);  // a corner
    EXPECT_EQ(m.row_length(5), 4);  // an edge
}

TEST(SpmvGenerators, Poisson3dIsTheSymmetricSevenPointStencil) {
    const CsrMatrix m = sparse::poisson3d(9, 3);
    expect_well_formed(m);
    EXPECT_EQ(m.nnz(), 7 * 729 - 6 * 81);
    EXPECT_EQ(m.nnz(), sparse::poisson3d_nnz(9));
    EXPECT_TRUE(symmetric(m));
    const auto len = row_lengths(m);
    EXPECT_EQ(*std::max_element(len.begin(), len.end()), 7);
    EXPECT_EQ(*std::min_element(len.begin(), len.end()), 4);  // corners
}

TEST(SpmvGenerators, FemIsBandedSymmetricWith54PerInteriorRow) {
    const std::int32_t s = 6, d = 2;
    const CsrMatrix m = sparse::fem3d(s, d, 5);
    expect_well_formed(m);
    EXPECT_EQ(m.rows, s * s * s * d);
    EXPECT_EQ(m.nnz(), sparse::fem3d_nnz(s, d));
    EXPECT_TRUE(symmetric(m));
    const auto len = row_lengths(m);
    EXPECT_EQ(*std::max_element(len.begin(), len.end()), 54);
    EXPECT_EQ(*std::min_element(len.begin(), len.end()), 16);  // a corner node: 8 nodes x 2
    // Band: a node couples only with nodes one plane, row and column away.
    const std::int32_t band = ((s * s) + s + 1) * d + d - 1;
    for (std::int32_t r = 0; r < m.rows; ++r)
        for (std::int32_t k = m.row_ptr[std::size_t(r)]; k < m.row_ptr[std::size_t(r) + 1]; ++k)
            ASSERT_LE(std::abs(m.col[std::size_t(k)] - r), band);
}

TEST(SpmvGenerators, RandomRowsHaveExactlyKUniformColumns) {
    const CsrMatrix m = sparse::random_rows(3000, 5000, 20, 11);
    expect_well_formed(m);
    EXPECT_EQ(m.nnz(), 3000 * 20);
    for (std::int32_t r = 0; r < m.rows; ++r) ASSERT_EQ(m.row_length(r), 20);
    // Uniform columns: mean near cols/2, each tenth of the range holds ~10%.
    double mean = 0;
    std::vector<int> decile(10, 0);
    for (std::int32_t c : m.col) {
        mean += c;
        ++decile[std::size_t(c / 500)];
    }
    mean /= double(m.nnz());
    EXPECT_NEAR(mean, 2500, 50);
    for (int n : decile) EXPECT_NEAR(n, 6000, 400);
}

TEST(SpmvGenerators, PowerLawRowLengthsFollowTheRankLaw) {
    const std::int32_t rows = 4096, dmax = 410, dmin = 3;
    const CsrMatrix m = sparse::power_law(rows, dmax, dmin, 9);
    expect_well_formed(m);
    EXPECT_EQ(m.nnz(), sparse::power_law_nnz(rows, dmax, dmin));
    auto len = row_lengths(m);
    // Shuffled: the long rows are not all at the top.
    EXPECT_FALSE(std::is_sorted(len.rbegin(), len.rend()));
    std::sort(len.rbegin(), len.rend());
    EXPECT_EQ(len.front(), dmax);
    EXPECT_EQ(len.back(), dmin);
    // Rows with at least L entries: exactly floor((dmax/L)^1.5) for L above dmin, i.e.
    // a power-law tail P(len >= L) ~ L^-1.5.
    for (std::int32_t L : {4, 10, 50, 200, 410}) {
        const auto count = std::count_if(len.begin(), len.end(), [&](std::int32_t l) { return l >= L; });
        const double d3 = double(dmax) * dmax * dmax, l3 = double(L) * L * L;
        EXPECT_EQ(count, std::int64_t(std::floor(std::sqrt(std::floor(d3 / l3))))) << "L = " << L;
    }
    // Heavy tail: the longest 1% of rows hold over ten times their share of the non-zeros.
    const std::int64_t top = std::accumulate(len.begin(), len.begin() + rows / 100, std::int64_t(0));
    EXPECT_GT(double(top), 0.1 * double(m.nnz()));
    // Independent check of the integer formula against floating point away from ties.
    EXPECT_EQ(sparse::power_law_row_length(0, dmax, dmin), dmax);
    EXPECT_EQ(sparse::power_law_row_length(7, 400, 1), 100);  // 400 / 8^(2/3) = 100 exactly
    EXPECT_EQ(sparse::power_law_row_length(26, 900, 1), 100);  // 900 / 27^(2/3) = 100 exactly
}

TEST(SpmvGenerators, LongRowsAreAFewAmongShortOnes) {
    const std::int32_t rows = 5000, count = 4, length = 500;
    const CsrMatrix m = sparse::long_rows(rows, count, length, 13);
    expect_well_formed(m);
    EXPECT_EQ(m.nnz(), sparse::long_rows_nnz(rows, count, length));
    int long_seen = 0;
    for (std::int32_t r = 0; r < rows; ++r) {
        const auto l = m.row_length(r);
        if (l == length) {
            ++long_seen;
            EXPECT_TRUE(sparse::long_rows_is_long(r, rows, count));
        } else {
            EXPECT_GE(l, 4);
            EXPECT_LE(l, 12);
        }
    }
    EXPECT_EQ(long_seen, count);
}

TEST(SpmvGenerators, HalfRowHoldsHalfTheNonZerosInOneRow) {
    const std::int32_t rows = 3000, cols = 24000;
    const CsrMatrix m = sparse::half_row(rows, cols, 17);
    expect_well_formed(m);
    EXPECT_EQ(m.cols, cols);
    EXPECT_EQ(m.nnz(), sparse::half_row_nnz(rows));
    const auto len = row_lengths(m);
    const auto longest = std::max_element(len.begin(), len.end());
    EXPECT_EQ(longest - len.begin(), rows / 2);
    EXPECT_EQ(2 * std::int64_t(*longest), m.nnz()) << "exactly half";
    for (std::int32_t r = 0; r < rows; ++r)
        if (r != rows / 2) {
            ASSERT_GE(len[std::size_t(r)], 1);
            ASSERT_LE(len[std::size_t(r)], 9);
        }
    // The long row's columns spread over the whole range (selection sampling, not a prefix).
    const auto first = m.col.begin() + m.row_ptr[rows / 2], last = m.col.begin() + m.row_ptr[rows / 2 + 1];
    EXPECT_LT(*first, cols / 100);
    EXPECT_GT(*(last - 1), cols - cols / 100);
    EXPECT_THROW(sparse::half_row(3000, 1000, 1), Error);  // the long row cannot fit
}

TEST(SpmvGenerators, EmptyRowsAreSevenInEight) {
    const std::int32_t rows = 8000, every = 8;
    const CsrMatrix m = sparse::empty_rows(rows, every, 19);
    expect_well_formed(m);
    EXPECT_EQ(m.nnz(), sparse::empty_rows_nnz(rows, every));
    const auto len = row_lengths(m);
    const auto empty = std::count(len.begin(), len.end(), 0);
    EXPECT_NEAR(double(empty) / rows, 7.0 / 8.0, 0.02);
    for (std::int32_t l : len)
        if (l > 0) {
            ASSERT_GE(l, 8);
            ASSERT_LE(l, 40);
        }
    // Runs of empty rows longer than a merge tile's worth of rows exist at this density only
    // by chance; what matters is that empty rows sit between non-empty ones.
    EXPECT_GT(std::count_if(len.begin() + 1, len.end(), [](std::int32_t l) { return l > 0; }), 500);
}

TEST(SpmvGenerators, DeterministicFromTheSeed) {
    const Dataset& d = dataset("random-s");
    const CsrMatrix a = spmv::generate_matrix(d, 1), b = spmv::generate_matrix(d, 1), c = spmv::generate_matrix(d, 2);
    EXPECT_EQ(a.col, b.col);
    EXPECT_EQ(a.val, b.val);
    EXPECT_NE(a.col, c.col);
    EXPECT_NE(a.val, c.val);
    // Stencils keep their structure; only the values follow the seed.
    const CsrMatrix p = sparse::poisson2d(16, 1), q = sparse::poisson2d(16, 2);
    EXPECT_EQ(p.col, q.col);
    EXPECT_NE(p.val, q.val);
    // x too: same seed, same vector; never all zero.
    const auto x1 = spmv::load_problem(d, 5)->x;
    spmv::load_problem(dataset("poisson2d-s"), 5);  // evicts the cache
    const auto x3 = spmv::load_problem(d, 5)->x;
    EXPECT_EQ(x1, x3);
    EXPECT_TRUE(std::any_of(x1.begin(), x1.end(), [](float v) { return v != 0.0f; }));
}

// ---- Reference and tolerance ----------------------------------------------------------------

TEST(SpmvReference, KnownProduct) {
    // [2 0 -1; 0 0 0; 0.5 3 0] * [1, 2, 4] = [-2, 0, 6.5]
    CooMatrix coo;
    coo.rows = coo.cols = 3;
    coo.row = {0, 0, 2, 2};
    coo.col = {0, 2, 0, 1};
    coo.val = {2, -1, 0.5, 3};
    const CsrMatrix a = csr_from_coo(coo, "test");
    const std::vector<float> x = {1, 2, 4};
    EXPECT_EQ(spmv::reference_row(a, x, 0).value, -2.0);
    EXPECT_EQ(spmv::reference_row(a, x, 0).abs_sum, 6.0);
    EXPECT_EQ(spmv::reference_row(a, x, 1).value, 0.0);
    EXPECT_EQ(spmv::reference_row(a, x, 2).value, 6.5);
    const auto c = spmv::compare(a, x, {-2.0f, 0.0f, 6.5f});
    EXPECT_EQ(c.bad, 0);
    EXPECT_EQ(c.nonzero_rows, 2);
    // The empty row must be exactly zero.
    EXPECT_EQ(spmv::compare(a, x, {-2.0f, 1e-30f, 6.5f}).bad, 1);
}

TEST(SpmvReference, BoundIsCTimesLengthTimesEpsilonTimesAbsoluteSum) {
    EXPECT_DOUBLE_EQ(spmv::row_bound(10, 3.0),
                     spmv::kToleranceC * 10 * double(FLT_EPSILON) * 3.0 + 10 * double(FLT_MIN));
    EXPECT_EQ(spmv::row_bound(0, 0.0), 0.0);
}

namespace {

// y computed in float in three orders a device might use.
enum class Order { Sequential, Reversed, Pairwise };

float float_row(const CsrMatrix& a, const std::vector<float>& x, std::int32_t r, Order o) {
    std::vector<float> p;
    for (std::int32_t k = a.row_ptr[std::size_t(r)]; k < a.row_ptr[std::size_t(r) + 1]; ++k)
        p.push_back(a.val[std::size_t(k)] * x[std::size_t(a.col[std::size_t(k)])]);
    if (o == Order::Reversed) std::reverse(p.begin(), p.end());
    if (o != Order::Pairwise) {
        float s = 0;
        for (float v : p) s += v;
        return s;
    }
    while (p.size() > 1) {
        std::vector<float> q;
        for (std::size_t i = 0; i < p.size(); i += 2) q.push_back(i + 1 < p.size() ? p[i] + p[i + 1] : p[i]);
        p.swap(q);
    }
    return p.empty() ? 0.0f : p[0];
}

}  // namespace

TEST(SpmvReference, FloatSumsInAnyOrderPass) {
    for (const char* name : {"fem-s", "powerlaw-s", "longrows-s"}) {
        auto p = spmv::load_problem(dataset(name), 3);
        for (Order o : {Order::Sequential, Order::Reversed, Order::Pairwise}) {
            std::vector<float> y(std::size_t(p->a.rows));
            for (std::int32_t r = 0; r < p->a.rows; ++r) y[std::size_t(r)] = float_row(p->a, p->x, r, o);
            const auto c = spmv::compare(p->a, p->x, y);
            EXPECT_EQ(c.bad, 0) << name << " order " << int(o) << ": " << spmv::describe(c);
        }
    }
}

TEST(SpmvReference, CatchesWrongResults) {
    auto p = spmv::load_problem(dataset("poisson2d-s"), 3);
    const auto& a = p->a;
    std::vector<float> good(std::size_t(a.rows));
    for (std::int32_t r = 0; r < a.rows; ++r) good[std::size_t(r)] = float_row(a, p->x, r, Order::Sequential);
    ASSERT_EQ(spmv::compare(a, p->x, good).bad, 0);

    // A row missing its diagonal term.
    const std::int32_t row = 1000;
    std::vector<float> y = good;
    for (std::int32_t k = a.row_ptr[row]; k < a.row_ptr[row + 1]; ++k)
        if (a.col[std::size_t(k)] == row) y[row] -= a.val[std::size_t(k)] * p->x[std::size_t(row)];
    auto c = spmv::compare(a, p->x, y);
    EXPECT_EQ(c.bad, 1);
    EXPECT_EQ(c.first_bad, row);
    EXPECT_NE(spmv::describe(c).find("first at row 1000"), std::string::npos) << spmv::describe(c);

    // Just inside the bound passes, twice the bound fails (a short row's bound is a few ulps
    // of sum |a_ij x_j|; float rounding of the shifted value adds at most 0.2 of it here).
    const auto ref = spmv::reference_row(a, p->x, row);
    const double bound = spmv::row_bound(a.row_length(row), ref.abs_sum);
    y = good;
    y[row] = float(ref.value + 0.5 * bound);
    EXPECT_EQ(spmv::compare(a, p->x, y).bad, 0);
    y[row] = float(ref.value + 2.0 * bound);
    EXPECT_EQ(spmv::compare(a, p->x, y).bad, 1);
    EXPECT_LT(bound, 1e-5 * ref.abs_sum) << "a row of 5 allows only a few ulps";

    // NaN (the poison) and an all-zero output fail.
    y = good;
    y[7] = NAN;
    EXPECT_EQ(spmv::compare(a, p->x, y).bad, 1);
    EXPECT_EQ(spmv::compare(a, p->x, std::vector<float>(good.size(), 0.0f)).bad, a.rows);
}

// ---- Launch geometry -------------------------------------------------------------------------

TEST(SpmvLaunch, GroupSizeFollowsTheMeanRowLength) {
    EXPECT_EQ(spmv::vector_group_size(1.0, 256), 2u);
    EXPECT_EQ(spmv::vector_group_size(5.0, 256), 2u);   // 2-D Poisson
    EXPECT_EQ(spmv::vector_group_size(7.0, 256), 2u);   // 3-D Poisson
    EXPECT_EQ(spmv::vector_group_size(8.8, 256), 4u);   // long rows
    EXPECT_EQ(spmv::vector_group_size(20.0, 256), 8u);  // uniform random
    EXPECT_EQ(spmv::vector_group_size(52.0, 256), 16u); // FEM
    EXPECT_EQ(spmv::vector_group_size(64.0, 256), 32u);
    EXPECT_EQ(spmv::vector_group_size(5000.0, 256), 32u);
    EXPECT_EQ(spmv::vector_group_size(5000.0, 16), 16u);  // never more than the block
    EXPECT_EQ(spmv::block_size(4096), 256u);
    EXPECT_EQ(spmv::block_size(100), 64u);
    EXPECT_EQ(spmv::block_size(0), 256u);  // unknown limit
}

TEST(SpmvLaunch, MergeTilesCoverTheMergePath) {
    // 1000 rows + 9000 non-zeros = 10000 steps in tiles of 256 * kMergeItems.
    const auto g = spmv::merge_geometry(1000, 9000, 256);
    EXPECT_EQ(g.block, 256u);
    EXPECT_EQ(g.tile_items, 256u * spmv::kMergeItems);
    EXPECT_EQ(g.tiles, (10000 + g.tile_items - 1) / g.tile_items);
    EXPECT_EQ(g.windows, 1u);
    EXPECT_EQ(g.words_bytes(), (g.tile_items + 1) * 4u);
    EXPECT_EQ(g.done_bytes(), g.tile_items * 4u);
    EXPECT_EQ(g.scan_bytes(), 256u * 4);
    // A 20M non-zero matrix: about 12k tiles, a few fix-up windows of 256 * kFixupItems.
    const auto l = spmv::merge_geometry(2'000'000, 20'000'000, 256);
    EXPECT_EQ(l.tiles, (22'000'000u + l.tile_items - 1) / l.tile_items);
    EXPECT_EQ(l.windows, (l.tiles + 256u * spmv::kFixupItems - 1) / (256u * spmv::kFixupItems));
    EXPECT_GT(l.windows, 1u);
    EXPECT_EQ(spmv::merge_geometry(2'000'000, 20'000'000, 256, 16).windows, (l.tiles + 4095) / 4096);
    // Work-groups of 32: 98,215 tiles of 224 steps, windows of 32 carries.
    const auto w = spmv::merge_geometry(2'000'000, 20'000'000, 32, 1);
    EXPECT_EQ(w.tiles, 98'215u);
    EXPECT_EQ(w.windows, 3'070u);
    EXPECT_EQ(spmv::merge_geometry(1, 1, 64).tiles, 1u);
    // Steps beyond 32 bits and blocks that are not whole scan slices are refused.
    EXPECT_THROW(spmv::merge_geometry(std::int64_t(1) << 31, std::int64_t(1) << 31, 256), Error);
    EXPECT_THROW(spmv::merge_geometry(100, 100, 16), Error);
    EXPECT_THROW(spmv::merge_geometry(100, 100, 48), Error);
}

TEST(SpmvLaunch, DefinesCarryEveryTuningConstant) {
    const auto defs = find_program("spmv").defines();
    EXPECT_EQ(defs, spmv::kernel_defines());
    for (const std::string d : {"SPMV_BLOCK=" + std::to_string(spmv::kBlock),
                                "SPMV_SCALAR_BATCH=" + std::to_string(spmv::kScalarBatch),
                                "SPMV_VECTOR_BATCH=" + std::to_string(spmv::kVectorBatch),
                                "SPMV_MERGE_ITEMS=" + std::to_string(spmv::kMergeItems),
                                "SPMV_SCAN_WIDTH=" + std::to_string(spmv::kScanWidth),
                                "SPMV_FIXUP_ITEMS=" + std::to_string(spmv::kFixupItems),
                                "SPMV_VECTOR_MIN_GROUPS=" + std::to_string(spmv::kVectorMinGroups)})
        EXPECT_NE(std::find(defs.begin(), defs.end(), d), defs.end()) << d;
    // Neither kernel file sets a value of its own.
    for (Dialect dialect : {Dialect::OpenCL, Dialect::Cuda}) {
        const std::string text = program_source(find_program("spmv"), dialect).text;
        for (const char* name :
             {"SPMV_SCALAR_BATCH", "SPMV_VECTOR_BATCH", "SPMV_MERGE_ITEMS", "SPMV_FIXUP_ITEMS", "SPMV_VECTOR_MIN_GROUPS"}) {
            EXPECT_EQ(text.find(std::string("#define ") + name), std::string::npos) << name;
            EXPECT_NE(text.find(std::string("#ifndef ") + name), std::string::npos) << name;
        }
    }
}

// ---- The auto rule ---------------------------------------------------------------------------

namespace {

std::vector<std::int32_t> offsets(const std::vector<std::int32_t>& lengths) {
    std::vector<std::int32_t> p(1, 0);
    for (std::int32_t l : lengths) p.push_back(p.back() + l);
    return p;
}

template <class F>
spmv::RowStats stats_of_lengths(std::int64_t rows, F length) {
    std::vector<std::int32_t> lengths(static_cast<std::size_t>(rows));
    for (std::int64_t i = 0; i < rows; ++i) lengths[std::size_t(i)] = std::int32_t(length(i));
    return spmv::row_stats(offsets(lengths));
}

}  // namespace

TEST(SpmvAuto, RowStatsOfAKnownMatrix) {
    // Lengths 0, 2, 4, 6: mean 3, population stddev sqrt(5), one empty row in four.
    const spmv::RowStats s = spmv::row_stats(offsets({0, 2, 4, 6}));
    EXPECT_EQ(s.rows, 4);
    EXPECT_EQ(s.nnz, 12);
    EXPECT_DOUBLE_EQ(s.mean, 3);
    EXPECT_EQ(s.max, 6);
    EXPECT_NEAR(s.cv, std::sqrt(5.0) / 3, 1e-12);
    EXPECT_DOUBLE_EQ(s.empty_fraction, 0.25);
    EXPECT_DOUBLE_EQ(s.nonempty_mean, 4);  // 12 non-zeros in the 3 rows that have any
    EXPECT_EQ(spmv::describe(s), "mean 3, max 6, cv 0.745, 25% empty");
    const spmv::RowStats even = spmv::row_stats(offsets(std::vector<std::int32_t>(100, 5)));
    EXPECT_DOUBLE_EQ(even.cv, 0);
    EXPECT_EQ(spmv::row_stats({0}).rows, 0);  // no rows: all zero, no division
    EXPECT_DOUBLE_EQ(spmv::row_stats(offsets({0, 0})).nonempty_mean, 0);  // no non-empty row
}

TEST(SpmvAuto, RuleOnSyntheticStatistics) {
    spmv::RowStats s;
    s.rows = 1'000'000;
    s.mean = s.nonempty_mean = 5;
    s.nnz = 5'000'000;
    s.max = 5;
    EXPECT_EQ(spmv::pick_variant(s), "scalar");   // short, even rows
    s.mean = s.nonempty_mean = spmv::kVectorMinMean;
    s.max = 8;
    EXPECT_EQ(spmv::pick_variant(s), "vector");   // from the threshold on
    s.mean = s.nonempty_mean = 20;
    s.max = 20;
    s.nnz = 20'000'000;
    EXPECT_EQ(spmv::pick_variant(s), "vector");
    s.cv = spmv::kMaxEvenCv;
    EXPECT_EQ(spmv::pick_variant(s), "vector");   // at the bound: still even
    s.cv = spmv::kMaxEvenCv * 1.01;
    EXPECT_EQ(spmv::pick_variant(s), "merge");    // uneven
    // A dominant longest row with an otherwise low spread: G = 8 for a mean of 20, so
    // 32 non-zeros per round trip; 22.5M non-zeros stream in 100 round trips.
    s.cv = 0.5;
    s.nnz = std::int64_t(100 * spmv::kNonZerosPerRoundTrip);
    EXPECT_EQ(spmv::longest_row_round_trips(s), 1);
    s.max = 32 * 100;
    EXPECT_EQ(spmv::longest_row_round_trips(s), 100);
    EXPECT_EQ(spmv::pick_variant(s), "vector");
    s.max = 32 * 100 + 1;
    EXPECT_EQ(spmv::longest_row_round_trips(s), 101);
    EXPECT_EQ(spmv::pick_variant(s), "merge");
    // On a small matrix a few round trips never dominate: the launch does.
    spmv::RowStats small;
    small.rows = 4096;
    small.nnz = 20'000;
    small.mean = small.nonempty_mean = 4.9;
    small.max = 8 * (spmv::kMinDominantRoundTrips - 1);
    EXPECT_EQ(spmv::pick_variant(small), "scalar");
    small.max = 8 * spmv::kMinDominantRoundTrips;
    EXPECT_EQ(spmv::pick_variant(small), "merge");
}

TEST(SpmvAuto, UnevenRowsPickMergeOnlyFromTheSizeOn) {
    // Most rows empty, the others 24 long: cv > 1 from the empty rows alone, and no dominant
    // row (a few round trips for the longest).
    spmv::RowStats s;
    s.rows = 2 * spmv::kMinUnevenNonZeros / 3;
    s.nnz = spmv::kMinUnevenNonZeros - 1;
    s.mean = double(s.nnz) / double(s.rows);
    s.nonempty_mean = 24;
    s.max = 24;
    s.cv = 2.6;
    s.empty_fraction = 0.875;
    EXPECT_LT(spmv::longest_row_round_trips(s), spmv::kMinDominantRoundTrips);
    EXPECT_EQ(spmv::pick_variant(s), "vector");  // by the non-empty rows' mean, not the 1.5 of all rows
    s.nonempty_mean = spmv::kVectorMinMean * 0.99;
    EXPECT_EQ(spmv::pick_variant(s), "scalar");
    s.nnz = spmv::kMinUnevenNonZeros;
    EXPECT_EQ(spmv::pick_variant(s), "merge");   // from the size on
    s.cv = spmv::kMaxEvenCv;
    EXPECT_EQ(spmv::pick_variant(s), "scalar");  // even enough at any size
}

TEST(SpmvAuto, PicksOfTheGeneratedMatrices) {
    // Small and medium: from the generated matrices (emptyrows-s and -m are below
    // kMinUnevenNonZeros: vector, by their non-empty rows' mean of 24).
    const std::map<std::string, std::string> expected = {
        {"poisson2d", "scalar"}, {"poisson3d", "scalar"}, {"fem", "vector"},    {"random", "vector"},
        {"powerlaw", "merge"},   {"longrows", "merge"},   {"halfrow", "merge"}, {"emptyrows", "vector"}};
    for (const auto& d : spmv::generated_datasets()) {
        if (d.name.back() == 'l') continue;
        const std::string structure = d.name.substr(0, d.name.rfind('-'));
        const spmv::RowStats s = spmv::row_stats(spmv::generate_matrix(d, 3).row_ptr);
        EXPECT_EQ(spmv::pick_variant(s), expected.at(structure)) << d.name << ": " << spmv::describe(s);
    }
    // Large skewed ones from their row lengths alone (no columns to draw).
    const Dataset& pl = dataset("powerlaw-l");
    EXPECT_EQ(spmv::pick_variant(stats_of_lengths(pl.param("rows"), [&](std::int64_t k) {
                  return sparse::power_law_row_length(k, std::int32_t(pl.param("dmax")), std::int32_t(pl.param("dmin")));
              })),
              "merge");
    const Dataset& lr = dataset("longrows-l");
    EXPECT_EQ(spmv::pick_variant(stats_of_lengths(lr.param("rows"), [&](std::int64_t k) {
                  return sparse::long_rows_row_length(k, std::int32_t(lr.param("rows")), std::int32_t(lr.param("long_rows")),
                                                      std::int32_t(lr.param("long_length")));
              })),
              "merge");
    const Dataset& er = dataset("emptyrows-l");
    EXPECT_EQ(spmv::pick_variant(stats_of_lengths(er.param("rows"), [&](std::int64_t k) {
                  return sparse::empty_rows_row_length(k, std::int32_t(er.param("every")));
              })),
              "merge");
}

// ---- `auto` on the device at hand: the candidates timed ---------------------------------------

TEST(SpmvAuto, TheFastestCandidateWinsByMoreThanTheMargin) {
    const double m = spmv::kPickMargin;
    EXPECT_EQ(spmv::choose_measured("scalar", {{"scalar", 1.0}, {"vector", 0.5}, {"merge", 0.8}}), "vector");
    EXPECT_EQ(spmv::choose_measured("merge", {{"scalar", 0.029}, {"vector", 0.308}, {"merge", 0.104}}), "scalar");
    // Just below (1 - margin) times the prior's time: the faster one; at it: the prior.
    EXPECT_EQ(spmv::choose_measured("vector", {{"scalar", 2.0}, {"vector", 1.0}, {"merge", (1 - m) * 0.999}}), "merge");
    EXPECT_EQ(spmv::choose_measured("vector", {{"scalar", 2.0}, {"vector", 1.0}, {"merge", 1 - m}}), "vector");
    EXPECT_EQ(spmv::choose_measured("vector", {{"scalar", 2.0}, {"vector", 1.0}, {"merge", 0.99}}), "vector");
    // The margin is a parameter: none, and the fastest wins by any amount.
    EXPECT_EQ(spmv::choose_measured("vector", {{"vector", 1.0}, {"merge", 0.99}}, 0.0), "merge");
    // The prior kept within the margin even when it is the slowest but one.
    EXPECT_EQ(spmv::choose_measured("merge", {{"scalar", 3.0}, {"vector", 1.0}, {"merge", 1.02}}), "merge");
}

TEST(SpmvAuto, ExactTiesAreDeterministic) {
    // The prior wins a tie with any other.
    EXPECT_EQ(spmv::choose_measured("merge", {{"scalar", 0.5}, {"vector", 0.5}, {"merge", 0.5}}), "merge");
    // Between two others that both beat the prior: the earlier in the list, in any order.
    EXPECT_EQ(spmv::choose_measured("merge", {{"scalar", 0.5}, {"vector", 0.5}, {"merge", 1.0}}), "scalar");
    EXPECT_EQ(spmv::choose_measured("merge", {{"vector", 0.5}, {"scalar", 0.5}, {"merge", 1.0}}), "vector");
    for (int i = 0; i < 3; ++i)  // and again: nothing but the times decides
        EXPECT_EQ(spmv::choose_measured("merge", {{"scalar", 0.5}, {"vector", 0.5}, {"merge", 1.0}}), "scalar");
}

TEST(SpmvAuto, UnusableTimesAreLeftOut) {
    const double nan = std::nan(""), inf = HUGE_VAL;
    EXPECT_EQ(spmv::choose_measured("scalar", {{"scalar", nan}, {"vector", 0.5}, {"merge", 0.8}}), "vector");
    EXPECT_EQ(spmv::choose_measured("scalar", {{"scalar", 1.0}, {"vector", 0.0}, {"merge", -1.0}}), "scalar");
    EXPECT_EQ(spmv::choose_measured("scalar", {{"scalar", inf}, {"vector", 2.0}}), "vector");
    // Nothing usable: the prior when it is a candidate, else the first candidate.
    EXPECT_EQ(spmv::choose_measured("vector", {{"scalar", 0.0}, {"vector", nan}}), "vector");
    EXPECT_EQ(spmv::choose_measured("merge", {{"scalar", 0.0}, {"vector", nan}}), "scalar");
    // A prior that could not be measured (not a candidate): the fastest.
    EXPECT_EQ(spmv::choose_measured("merge", {{"scalar", 0.7}, {"vector", 0.6}}), "vector");
}

TEST(SpmvAuto, MedianOfTheTimedRuns) {
    EXPECT_EQ(spmv::median_ms({}), 0.0);
    EXPECT_EQ(spmv::median_ms({0.3}), 0.3);
    EXPECT_EQ(spmv::median_ms({3, 1, 2}), 2.0);
    EXPECT_EQ(spmv::median_ms({4, 1, 3, 2}), 2.5);
    EXPECT_EQ(spmv::median_ms({0.1, 5, 5, 9, 5}), 5.0);  // one fast outlier is not the estimate
}

namespace {

// A device that runs nothing and reads, for each timed region, the time scripted for the
// candidate that ran in it (each candidate's run() says its name): spmv::inspect alone.
class ScriptedClockDevice final : public Device {
public:
    std::map<std::string, std::vector<double>> script;  // each candidate's successive times; the last repeats
    std::string running;                                 // set by the candidates' run()
    std::vector<std::string> timed;                      // the candidate of every timed region, in order
    std::map<std::string, int> runs;                     // every run, timed or not
    int series = 0;                                      // start_timing_series calls
    bool gate_times_out = false;                         // gated regions throw GateTimeout

    spmv::Candidate candidate(const std::string& v) {
        return {v, [this, v] {
                    running = v;
                    ++runs[v];
                }};
    }

    const DeviceInfo& info() const override { return info_; }
    Dialect dialect() const override { return Dialect::OpenCL; }
    void upload(const Buffer&, const void*, std::size_t, std::size_t) override {}
    void download(void*, const Buffer&, std::size_t, std::size_t) override {}
    void copy(const Buffer&, const Buffer&, std::size_t) override {}
    void fill_u32(const Buffer&, std::uint32_t) override {}
    std::unique_ptr<Module> compile(const Source&, const CompileOptions&) override {
        throw Error("scripted clock device: no compiler");
    }
    void launch(const Kernel&, Dim3, Dim3, const Args&) override {}
    void synchronize() override {}
    std::size_t max_group_size(const Kernel&) override { return 256; }
    bool supports_gated_timing() const override { return true; }
    void start_timing_series() override { ++series; }
    double time_ms(const std::function<void()>& work) override {
        if (timing_mode() == TimingMode::Gated && gate_times_out) {
            work();
            throw GateTimeout("scripted: the gate was held too long");
        }
        running.clear();
        work();
        timed.push_back(running);
        const std::vector<double>& s = script.at(running);
        const std::size_t k = std::size_t(std::count(timed.begin(), timed.end(), running)) - 1;
        return s[std::min(k, s.size() - 1)];
    }

private:
    std::uint64_t raw_alloc(std::size_t) override { return ++next_; }
    void raw_free(std::uint64_t) noexcept override {}
    DeviceInfo info_;
    std::uint64_t next_ = 0;
};

std::vector<spmv::Candidate> candidates_of(ScriptedClockDevice& dev) {
    std::vector<spmv::Candidate> c;
    for (const auto& v : spmv::candidate_variants()) c.push_back(dev.candidate(v));
    return c;
}

}  // namespace

TEST(SpmvAuto, InspectionTimesEachCandidateInTurnAndDropsTheHopeless) {
    ScriptedClockDevice dev;
    dev.script = {{"scalar", {1.0}}, {"vector", {0.40}}, {"merge", {0.45}}};
    const spmv::Inspection ins = spmv::inspect(dev, "scalar", candidates_of(dev));
    EXPECT_EQ(ins.picked, "vector");
    ASSERT_EQ(ins.times.size(), 3u);
    EXPECT_EQ(ins.times[0].variant, "scalar");
    EXPECT_EQ(ins.times[0].ms, 1.0);
    EXPECT_EQ(ins.times[1].ms, 0.40);
    EXPECT_EQ(ins.times[2].ms, 0.45);
    EXPECT_GE(ins.wall_ms, 0.0);
    // A warm-up each, then rounds in candidate order; scalar (over kHopelessFactor times
    // vector's first run) is timed once.
    std::vector<std::string> expected = {"scalar", "vector", "merge"};
    for (int r = 1; r < spmv::kInspectRuns; ++r) expected.insert(expected.end(), {"vector", "merge"});
    EXPECT_EQ(dev.timed, expected);
    EXPECT_EQ(dev.runs["scalar"], 2);
    EXPECT_EQ(dev.runs["vector"], 1 + spmv::kInspectRuns);
    EXPECT_EQ(dev.series, 1);  // one series: the candidates read by one clock
}

TEST(SpmvAuto, InspectionTimesShortKernelsMoreOften) {
    // 0.15 ms a run: seven rounds reach kInspectMinMs (1.05 ms), an odd count.
    ScriptedClockDevice dev;
    dev.script = {{"scalar", {0.15}}, {"vector", {0.16}}, {"merge", {0.2}}};
    spmv::inspect(dev, "scalar", candidates_of(dev));
    EXPECT_EQ(dev.timed.size(), std::size_t(3 * 7));
    // A 0.01 ms kernel stops at the cap; a hopeless candidate does not keep the rounds going.
    ScriptedClockDevice tiny;
    tiny.script = {{"scalar", {0.01}}, {"vector", {0.011}}, {"merge", {5.0}}};
    const spmv::Inspection ins = spmv::inspect(tiny, "vector", candidates_of(tiny));
    EXPECT_EQ(tiny.runs["merge"], 2);  // its warm-up and one timed run
    EXPECT_EQ(tiny.timed.size(), std::size_t(1 + 2 * spmv::kInspectMaxRuns));
    EXPECT_EQ(ins.picked, "scalar");
    // Long kernels keep the minimum of kInspectRuns.
    ScriptedClockDevice slow;
    slow.script = {{"scalar", {3.0}}, {"vector", {2.5}}, {"merge", {2.6}}};
    spmv::inspect(slow, "scalar", candidates_of(slow));
    EXPECT_EQ(slow.timed.size(), std::size_t(3 * spmv::kInspectRuns));
}

TEST(SpmvAuto, InspectionKeepsThePriorWithinTheMarginAndTakesTheMedian) {
    ScriptedClockDevice dev;
    dev.script = {{"scalar", {0.50}}, {"vector", {0.49}}, {"merge", {1.2}}};
    EXPECT_EQ(spmv::inspect(dev, "scalar", candidates_of(dev)).picked, "scalar");  // 2% faster: noise
    // merge's runs: 0.45, 0.30, then 1.0: its minimum would win, its median (1.0) does not.
    ScriptedClockDevice noisy;
    noisy.script = {{"scalar", {0.50}}, {"vector", {0.9}}, {"merge", {0.45, 0.30, 1.0}}};
    const spmv::Inspection ins = spmv::inspect(noisy, "vector", candidates_of(noisy));
    EXPECT_EQ(ins.times[2].ms, 1.0);
    EXPECT_EQ(ins.picked, "scalar");
}

TEST(SpmvAuto, InspectionFallsBackToPlainTimingAndRestoresTheMode) {
    ScriptedClockDevice dev;
    dev.script = {{"scalar", {0.3}}, {"vector", {0.2}}, {"merge", {0.25}}};
    dev.gate_times_out = true;
    dev.set_timing_mode(TimingMode::Gated);
    const spmv::Inspection ins = spmv::inspect(dev, "scalar", candidates_of(dev));
    EXPECT_EQ(ins.picked, "vector");
    EXPECT_EQ(dev.timed.size(), std::size_t(3 * spmv::kInspectRuns));  // every run timed plainly, none mixed in
    EXPECT_EQ(dev.timing_mode(), TimingMode::Gated);
    dev.gate_times_out = false;
    dev.set_timing_mode(TimingMode::Plain);
    spmv::inspect(dev, "scalar", candidates_of(dev));
    EXPECT_EQ(dev.timing_mode(), TimingMode::Plain);
}

TEST(SpmvLaunch, GridIsCappedPerComputeUnit) {
    EXPECT_EQ(spmv::launch_groups(100, 132), 100u);
    EXPECT_EQ(spmv::launch_groups(1'000'000, 132), 132u * spmv::kGroupsPerComputeUnit);
    EXPECT_EQ(spmv::launch_groups(1'000'000, 0), 1'000'000u);  // unknown: one group per chunk of rows
    EXPECT_EQ(spmv::launch_groups(0, 4), 1u);
}

// ---- Matrix Market datasets ------------------------------------------------------------------

TEST(SpmvFiles, DatasetFromFile) {
    const Program& p = find_program("spmv");
    EXPECT_TRUE(p.takes_matrix_file());
    EXPECT_EQ(p.variants(), (std::vector<std::string>{"scalar", "vector", "merge", "auto"}));
    EXPECT_TRUE(p.has_vendor_baseline());
    EXPECT_EQ(p.vendor_library(), "cuSPARSE");
    EXPECT_EQ(p.vendor_variants(), (std::vector<std::string>{"csr-alg1", "csr-alg2"}));

    const Dataset d = p.dataset_from_file(data("CamelCase.mtx"));
    EXPECT_EQ(d.name, "camelcase");
    EXPECT_EQ(d.file, data("CamelCase.mtx"));
    EXPECT_EQ(d.param("rows"), 4);
    EXPECT_EQ(d.param("nnz"), 12);  // 6 entries, symmetric: at most twice
    auto prob = spmv::load_problem(d, 1);
    EXPECT_EQ(prob->a.nnz(), 8);  // 4 diagonal + 2 mirrored pairs
    EXPECT_GE(p.device_bytes(d, "scalar"), std::uint64_t(prob->a.nnz()) * 8 + 5 * 4 + 4 * 4 + 4 * 4);

    // A hand-made dataset with only the file set is sized from the header.
    Dataset bare;
    bare.name = "bare";
    bare.file = data("general.mtx");
    EXPECT_EQ(p.device_bytes(bare, "vector"), std::uint64_t(6 * 8 + 5 * 4 + 5 * 4 + 4 * 4));
    EXPECT_GT(p.device_bytes(bare, "merge"), p.device_bytes(bare, "vector"));  // tiles and carries
    EXPECT_EQ(p.device_bytes(bare, "auto"), p.device_bytes(bare, "merge"));

    EXPECT_THROW(p.dataset_from_file(data("bad_field.mtx")), Error);
    try {
        spmv::load_problem(p.dataset_from_file(data("zero_entries.mtx")), 1);
        FAIL() << "a matrix without non-zeros was accepted";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("no non-zeros"), std::string::npos) << e.what();
    }
}

// ---- Every variant on the opencl backend ------------------------------------------------------

namespace {

struct RunCase {
    std::string dataset;  // generated name, or a file under tests/data/mtx
    std::string variant;
};

void PrintTo(const RunCase& c, std::ostream* os) { *os << c.dataset << "/" << c.variant; }

class SpmvOnOpenCL : public testing::TestWithParam<RunCase> {
protected:
    static void SetUpTestSuite() {
        device_ = shared_opencl_device().device.get();
        reason_ = shared_opencl_device().reason;
        try {
            if (device_) {
                const Program& p = find_program("spmv");
                CompileOptions co;
                co.defines = p.defines();
                module_ = device_->compile(program_source(p, Dialect::OpenCL), co).release();
            }
        } catch (const Error& e) {
            reason_ = e.what();
        }
    }
    static void TearDownTestSuite() {
        delete module_;
        module_ = nullptr;
        device_ = nullptr;
    }
    static Device* device_;
    static Module* module_;
    static std::string reason_;
};
Device* SpmvOnOpenCL::device_ = nullptr;
Module* SpmvOnOpenCL::module_ = nullptr;
std::string SpmvOnOpenCL::reason_;

// Variants innermost, so each dataset is built once (load_problem keeps the last one).
std::vector<RunCase> run_cases() {
    std::vector<std::string> sets;
    for (const auto& d : spmv::generated_datasets())
        if (d.small) sets.push_back(d.name);
    // Medium sets need more work-groups than the launch cap on a CPU: the kernels'
    // row-striding loops (and the vector kernel's barriers in them) run many times; merge
    // gets rows that cross many tiles (halfrow-m's long row spans ~560) and long runs of
    // empty rows.
    for (const char* m : {"powerlaw-m", "fem-m", "halfrow-m", "emptyrows-m"}) sets.push_back(m);
    for (const char* f : {"general.mtx", "symmetric.mtx", "empty_row.mtx", "pattern.mtx"}) sets.push_back(f);
    std::vector<RunCase> v;
    for (const auto& s : sets)
        for (const char* variant : {"scalar", "vector", "merge", "auto"}) v.push_back({s, variant});
    return v;
}

}  // namespace

TEST_P(SpmvOnOpenCL, ValidatesAndDetectsUncomputedRows) {
    TB_SKIP_WITHOUT_OPENCL_DEVICE(device_ && module_, reason_);
    const Program& p = find_program("spmv");
    const RunCase& rc = GetParam();
    const bool file = rc.dataset.find(".mtx") != std::string::npos;
    const Dataset d = file ? p.dataset_from_file(data(rc.dataset)) : dataset(rc.dataset);
    auto inst = p.prepare(*device_, *module_, d, RunConfig{rc.variant, LaunchMode::Stream, 21});
    if (rc.variant == "auto") {
        // Which candidate is fastest here is this machine's business: only that one of them
        // was picked, each was timed, the choice cost something, and (below) it validates.
        const std::string picked = inst->picked_variant();
        const auto& candidates = spmv::candidate_variants();
        EXPECT_NE(std::find(candidates.begin(), candidates.end(), picked), candidates.end()) << picked;
        EXPECT_GT(inst->pick_cost_ms(), 0.0);
        const std::map<std::string, double> measured = inst->pick_candidates_ms();
        EXPECT_EQ(measured.size(), candidates.size());
        for (const auto& [variant, ms] : measured) {
            EXPECT_GT(ms, 0.0) << variant;
            EXPECT_LT(ms, inst->pick_cost_ms()) << variant << ": a run took longer than the whole choice";
        }
        // The candidates' outputs do not survive the inspection: y is poisoned until run.
        device_->synchronize();
        EXPECT_FALSE(inst->validate().ok) << "the inspection left a result in y";
    } else {
        EXPECT_EQ(inst->picked_variant(), "");
        EXPECT_EQ(inst->pick_cost_ms(), 0.0);
        EXPECT_TRUE(inst->pick_candidates_ms().empty());
    }
    for (int round = 0; round < 2; ++round) {  // repeatable
        inst->poison();
        inst->run();
        device_->synchronize();
        const Validation v = inst->validate();
        EXPECT_TRUE(v.ok) << d.name << "/" << rc.variant << ": " << v.detail;
        EXPECT_EQ(v.checked, std::size_t(d.param("rows")));
        EXPECT_FALSE(v.sampled);
    }
    inst->poison();
    device_->synchronize();
    EXPECT_FALSE(inst->validate().ok) << "an uncomputed (poisoned) output passed";

    const WorkModel w = inst->work();
    const auto prob = spmv::load_problem(d, 21);
    EXPECT_EQ(w.items, double(prob->a.nnz()));
    EXPECT_EQ(w.flops, 2.0 * double(prob->a.nnz()));
    EXPECT_EQ(w.bytes, double(prob->a.nnz()) * 8 + double(prob->a.rows + 1) * 4 + double(prob->a.cols) * 4 +
                           double(prob->a.rows) * 4);
    EXPECT_EQ(w.item_name, "non-zeros");
}

INSTANTIATE_TEST_SUITE_P(All, SpmvOnOpenCL, testing::ValuesIn(run_cases()), [](const testing::TestParamInfo<RunCase>& i) {
    std::string n = i.param.dataset + "_" + i.param.variant;
    for (char& c : n)
        if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
    return n;
});

// kernels.cl's sub-group paths (vector's row sums, merge's first scan level) compile only
// where sub-groups are warps: cuda-prelude and NVIDIA's OpenCL. SpmvOnOpenCL runs the
// local-memory paths (PoCL); this runs every variant on those devices, validated, repeatable
// and with an uncomputed output detected.
TEST(SpmvSubGroupPaths, EveryVariantValidatesWhereSubGroupsAreWarps) {
    const Program& p = find_program("spmv");
    std::vector<std::string> sets;
    for (const auto& d : spmv::generated_datasets())
        if (d.small) sets.push_back(d.name);
    sets.push_back("halfrow-m");  // a row across ~560 merge tiles: carries through the fix-up
    const auto check = [&](Device& dev) {
        CompileOptions co;
        co.defines = p.defines();
        const auto module = dev.compile(program_source(p, Dialect::OpenCL), co);
        for (const auto& name : sets)
            for (const char* variant : {"scalar", "vector", "merge"}) {
                SCOPED_TRACE(name + "/" + variant);
                auto inst = p.prepare(dev, *module, dataset(name), RunConfig{variant, LaunchMode::Stream, 21});
                for (int round = 0; round < 2; ++round) {
                    inst->poison();
                    inst->run();
                    dev.synchronize();
                    const Validation v = inst->validate();
                    EXPECT_TRUE(v.ok) << v.detail;
                }
                inst->poison();
                dev.synchronize();
                EXPECT_FALSE(inst->validate().ok) << "an uncomputed (poisoned) output passed";
            }
    };
    int checked = 0;
    for (const char* backend : {"cuda-prelude", "opencl"})
        // Other devices run the local-memory paths: SpmvOnOpenCL.
        checked += tb::test::check_every_device(backend, nullptr, nullptr, check,
                                                [](const DeviceInfo& i) { return i.is_nvidia; }).empty();
    if (checked == 0) GTEST_SKIP() << "no NVIDIA device through cuda-prelude or opencl";
}

namespace {

std::vector<float> y_of(Instance& inst) {
    for (const auto& a : inst.arrays())
        if (a.name == "y") {
            std::vector<float> y(a.data.size() / sizeof(float));
            std::memcpy(y.data(), a.data.data(), a.data.size());
            return y;
        }
    return {};
}

// A problem whose every partial sum is an exact small integer (values and x in {1, 2}, rows
// below 2^22 entries): any float summation order gives exactly the integer product, so a
// lost or doubled carry shows even in a row of a million entries, where the general
// tolerance (len * FLT_EPSILON * sum|a x|) could hide it.
std::shared_ptr<const spmv::Problem> integer_problem(const std::string& name) {
    auto p = std::make_shared<spmv::Problem>();
    p->name = name + " (integer values)";
    p->a = spmv::generate_matrix(dataset(name), 29);
    for (std::size_t k = 0; k < p->a.val.size(); ++k) p->a.val[k] = float(1 + (k % 3 == 0));
    p->x.resize(std::size_t(p->a.cols));
    for (std::size_t c = 0; c < p->x.size(); ++c) p->x[c] = float(1 + (c % 5 == 0));
    p->reference = spmv::reference_rows(p->a, p->x);
    return p;
}

std::vector<float> exact_product(const spmv::Problem& p) {
    std::vector<float> y(std::size_t(p.a.rows));
    for (std::int32_t r = 0; r < p.a.rows; ++r) {
        std::int64_t sum = 0;
        for (std::int32_t k = p.a.row_ptr[std::size_t(r)]; k < p.a.row_ptr[std::size_t(r) + 1]; ++k)
            sum += std::int64_t(p.a.val[std::size_t(k)]) * std::int64_t(p.x[std::size_t(p.a.col[std::size_t(k)])]);
        y[std::size_t(r)] = float(sum);
    }
    return y;
}

}  // namespace

// merge on matrices whose rows cross tiles and fix-up windows: with tuning.hpp's windows of
// one carry per work-item (halfrow-m's long row crosses many windows, so the window it ends
// in sums the earlier windows' part), with wide windows (SPMV_FIXUP_ITEMS = 16), and in
// work-groups of 32 (windows of 32 carries, the search and sum over the most windows):
// exact, and bit-for-bit the same from run to run.
TEST_F(SpmvOnOpenCL, MergeIsExactAcrossTilesAndFixupWindows) {
    TB_SKIP_WITHOUT_OPENCL_DEVICE(device_ && module_, reason_);
    static_assert(spmv::kFixupItems != 16, "the wide windows below must differ from the default");
    const Program& p = find_program("spmv");
    CompileOptions co;
    for (std::string d : p.defines())
        co.defines.push_back(d.rfind("SPMV_FIXUP_ITEMS=", 0) == 0 ? "SPMV_FIXUP_ITEMS=16" : d);
    const auto wide_windows = device_->compile(program_source(p, Dialect::OpenCL), co);
    const std::uint32_t block = spmv::block_size(device_->info().max_work_group_size);
    for (const char* name : {"halfrow-s", "longrows-s", "emptyrows-s", "halfrow-m", "powerlaw-m", "emptyrows-m"}) {
        const auto prob = integer_problem(name);
        const std::vector<float> expected = exact_product(*prob);
        const struct {
            int items;
            std::uint32_t block;
        } setups[] = {{spmv::kFixupItems, block}, {16, block}, {spmv::kFixupItems, 32}};
        for (const auto [items, group] : setups) {
            SCOPED_TRACE(std::string(name) + ", SPMV_FIXUP_ITEMS=" + std::to_string(items) + ", work-groups of " +
                         std::to_string(group));
            const auto geo = spmv::merge_geometry(prob->a.rows, prob->a.nnz(), group, items);
            if (items == 1 && std::string(name).back() == 'm') ASSERT_GT(geo.windows, 1u) << "runs must cross windows";
            auto inst = spmv::make_merge_instance(*device_, items == 16 ? *wide_windows : *module_, prob, items, group);
            std::vector<float> first;
            for (int round = 0; round < 2; ++round) {
                inst->poison();
                inst->run();
                device_->synchronize();
                const std::vector<float> y = y_of(*inst);
                ASSERT_EQ(y.size(), expected.size());
                std::size_t wrong = 0, first_wrong = 0;
                for (std::size_t r = 0; r < y.size(); ++r)
                    if (y[r] != expected[r] && wrong++ == 0) first_wrong = r;
                ASSERT_EQ(wrong, 0u) << "first at row " << first_wrong << ": " << y[first_wrong] << ", expected "
                                     << expected[first_wrong];
                if (round == 0) first = y;
                else EXPECT_EQ(std::memcmp(y.data(), first.data(), y.size() * sizeof(float)), 0);
            }
        }
    }
}

TEST(SpmvVendor, RefusedOffCuda) {
    TB_SKIP_WITHOUT_SHARED_OPENCL_DEVICE();
    Device* const dev = shared_opencl_device().device.get();
    const Program& p = find_program("spmv");
    try {
        p.prepare_vendor(*dev, dataset("poisson2d-s"), RunConfig{"csr-alg1", LaunchMode::Stream, 1});
        FAIL() << "cuSPARSE ran on " << dev->info().name;
    } catch (const Error& e) {
        EXPECT_EQ(std::string(e.what()).rfind("cuSPARSE not available", 0), 0u) << e.what();
    }
}
