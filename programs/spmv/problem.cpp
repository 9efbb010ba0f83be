#include "problem.hpp"

#include <cctype>
#include <filesystem>
#include <map>

#include "host_cache.hpp"
#include "matrix_market.hpp"
#include "rng.hpp"
#include "sparse_generators.hpp"
#include "tuning.hpp"

namespace tb::spmv {
namespace {

// Streams derived from the user's seed.
constexpr std::uint64_t kMatrixStream = 1;
constexpr std::uint64_t kXStream = 2;

// The kernels' loop counters step past the last non-zero by up to a batch of a row group.
constexpr std::int64_t kMaxNnz = kMaxCsrNnz - 1024;

using Params = std::map<std::string, std::int64_t>;

Dataset make(const std::string& structure, const char* size, Params p, std::int64_t rows, std::int64_t nnz,
             const std::string& what, std::int64_t cols = 0) {
    p["rows"] = rows;
    p["cols"] = cols > 0 ? cols : rows;
    p["nnz"] = nnz;
    Dataset d;
    d.name = structure + "-" + size;
    d.small = std::string(size) == "s";
    d.description = what + ": " + std::to_string(rows) + " rows" + (cols > 0 ? " x " + std::to_string(cols) + " columns" : "") +
                    ", " + std::to_string(nnz) + " non-zeros";
    d.params = std::move(p);
    return d;
}

// Sizes small (a few thousand rows), medium (~2M non-zeros) and large (>= 20M).
constexpr const char* kSizes[3] = {"s", "m", "l"};
constexpr std::int64_t kNx[3] = {64, 640, 2048};
constexpr std::int64_t kSide3[3] = {16, 66, 144};
constexpr std::int64_t kFemSide[3] = {12, 28, 60};
constexpr std::int64_t kRandomRows[3] = {4096, 100000, 1048576};
constexpr std::int64_t kPowerRows[3] = {4096, 524288, 4194304};
constexpr std::int64_t kPowerMax[3] = {410, 5243, 41943};
constexpr std::int64_t kLongRows[3] = {4096, 250000, 2500000};
constexpr std::int64_t kLongCount[3] = {4, 8, 8};
constexpr std::int64_t kHalfRowRows[3] = {4096, 200000, 2200000};
constexpr std::int64_t kHalfRowColsPerRow = 8;  // the long row (~5 per row) needs the columns
constexpr std::int64_t kEmptyRowsRows[3] = {4096, 700000, 8000000};
constexpr std::int64_t kEmptyRowsEvery = 8;

std::vector<Dataset> build_table() {
    std::vector<Dataset> v;
    // 2-D Poisson: 5 per row. Grids of 64^2, 640^2, 2048^2.
    for (int i = 0; i < 3; ++i) {
        const std::int64_t nx = kNx[i];
        v.push_back(make("poisson2d", kSizes[i], {{"nx", nx}}, nx * nx, sparse::poisson2d_nnz(nx),
                         "2-D 5-point Poisson stencil on a " + std::to_string(nx) + "^2 grid"));
    }
    // 3-D Poisson: 7 per row. Grids of 16^3, 66^3, 144^3.
    for (int i = 0; i < 3; ++i) {
        const std::int64_t s = kSide3[i];
        v.push_back(make("poisson3d", kSizes[i], {{"side", s}}, s * s * s, sparse::poisson3d_nnz(s),
                         "3-D 7-point Poisson stencil on a " + std::to_string(s) + "^3 grid"));
    }
    // FEM-like: hexahedral elements, 2 unknowns per node, up to 54 per row.
    for (int i = 0; i < 3; ++i) {
        const std::int64_t s = kFemSide[i];
        v.push_back(make("fem", kSizes[i], {{"side", s}, {"dofs", 2}}, 2 * s * s * s, sparse::fem3d_nnz(s, 2),
                         "banded FEM-like matrix, 27-node coupling with 2 unknowns per node on a " +
                             std::to_string(s) + "^3 node grid"));
    }
    // Uniform random: 20 random columns in every row.
    for (int i = 0; i < 3; ++i) {
        const std::int64_t rows = kRandomRows[i];
        v.push_back(make("random", kSizes[i], {{"per_row", 20}}, rows, rows * 20,
                         "uniform random rows, 20 random columns each"));
    }
    // Power law: Zipf-like lengths from 3 up to rows/10 (small) or rows/100.
    for (int i = 0; i < 3; ++i) {
        const std::int64_t rows = kPowerRows[i], dmax = kPowerMax[i], dmin = 3;
        v.push_back(make("powerlaw", kSizes[i], {{"dmax", dmax}, {"dmin", dmin}}, rows,
                         sparse::power_law_nnz(std::int32_t(rows), std::int32_t(dmax), std::int32_t(dmin)),
                         "power-law (web-graph-like) row lengths, " + std::to_string(dmin) + " to " +
                             std::to_string(dmax) + " per row"));
    }
    // A few very long rows (rows/10 entries) among rows of 4 to 12.
    for (int i = 0; i < 3; ++i) {
        const std::int64_t rows = kLongRows[i], count = kLongCount[i], length = rows / 10;
        v.push_back(make("longrows", kSizes[i], {{"long_rows", count}, {"long_length", length}}, rows,
                         sparse::long_rows_nnz(std::int32_t(rows), std::int32_t(count), std::int32_t(length)),
                         std::to_string(count) + " rows of " + std::to_string(length) +
                             " entries among rows of 4 to 12"));
    }
    // Extreme: one row holds half the non-zeros, the others 1 to 9 entries.
    for (int i = 0; i < 3; ++i) {
        const std::int64_t rows = kHalfRowRows[i], cols = kHalfRowColsPerRow * rows;
        const std::int64_t length = sparse::half_row_long_length(std::int32_t(rows));
        v.push_back(make("halfrow", kSizes[i], {}, rows, sparse::half_row_nnz(std::int32_t(rows)),
                         "one row of " + std::to_string(length) + " entries (half the non-zeros) among rows of 1 to 9",
                         cols));
    }
    // Extreme: 7 rows in 8 empty, the others 8 to 40 entries.
    for (int i = 0; i < 3; ++i) {
        const std::int64_t rows = kEmptyRowsRows[i], every = kEmptyRowsEvery;
        v.push_back(make("emptyrows", kSizes[i], {{"every", every}}, rows,
                         sparse::empty_rows_nnz(std::int32_t(rows), std::int32_t(every)),
                         "one row in " + std::to_string(every) + " holds 8 to 40 entries, the others none"));
    }
    return v;
}

std::string structure_of(const Dataset& d) { return d.name.substr(0, d.name.rfind('-')); }

std::vector<float> make_x(std::int32_t cols, std::uint64_t seed) {
    Rng rng(derive_seed(seed, kXStream));
    std::vector<float> x(std::size_t(cols), 0.0f);
    for (float& v : x) v = rng.uniform_float(-1.0f, 1.0f);
    return x;
}

// File names become dataset names: lowercase, and nothing a file name or benchmark
// name would trip over.
std::string name_from_stem(const std::string& path) {
    std::string s = std::filesystem::path(path).stem().string();
    for (char& c : s) {
        c = char(std::tolower(static_cast<unsigned char>(c)));
        if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-' && c != '_' && c != '.') c = '-';
    }
    return s.empty() ? "matrix" : s;
}

}  // namespace

const std::vector<Dataset>& generated_datasets() {
    static const std::vector<Dataset> table = build_table();
    return table;
}

Dataset file_dataset(const std::string& path) {
    const MatrixMarketHeader h = read_matrix_market_header(path);
    Dataset d;
    d.name = name_from_stem(path);
    d.file = path;
    d.params = {{"rows", h.rows}, {"cols", h.cols}, {"nnz", h.max_nnz()}};
    d.description = "Matrix Market file " + path + ": " + std::to_string(h.rows) + "x" + std::to_string(h.cols) +
                    ", " + std::to_string(h.entries) + " entries" +
                    (h.symmetry == MmSymmetry::Symmetric ? " (symmetric, both triangles stored)" : "");
    return d;
}

namespace {

struct Sizes {
    std::int64_t rows = 0, cols = 0, nnz = 0;
};

Sizes sizes_of(const Dataset& d) {
    Sizes s;
    if (d.params.count("nnz")) {
        s.rows = d.param("rows");
        s.cols = d.param("cols");
        s.nnz = d.param("nnz");
    } else if (!d.file.empty()) {  // a dataset made by hand from a file name
        const MatrixMarketHeader h = read_matrix_market_header(d.file);
        s.rows = h.rows;
        s.cols = h.cols;
        s.nnz = h.max_nnz();
    } else {
        throw Error("spmv dataset " + d.name + " has neither sizes nor a file");
    }
    return s;
}

}  // namespace

std::uint64_t problem_device_bytes(const Dataset& d) {
    const Sizes s = sizes_of(d);
    return std::uint64_t(s.nnz) * (sizeof(std::int32_t) + sizeof(float)) +
           std::uint64_t(s.rows + 1) * sizeof(std::int32_t) + std::uint64_t(s.cols) * sizeof(float) +
           std::uint64_t(s.rows) * sizeof(float);
}

std::uint64_t merge_device_bytes(const Dataset& d) {
    const Sizes s = sizes_of(d);
    // Tiles of at least 32 * kMergeItems steps (the smallest work-group the kernel takes):
    // a start row and a carry (row, value) each, plus the fix-up windows' carries.
    const std::uint64_t tiles = (std::uint64_t(s.rows) + std::uint64_t(s.nnz)) / (32 * kMergeItems) + 2;
    return tiles * (sizeof(std::int32_t) + sizeof(std::int32_t) + sizeof(float)) * 2;
}

CsrMatrix generate_matrix(const Dataset& d, std::uint64_t seed) {
    const std::uint64_t s = derive_seed(seed, kMatrixStream);
    const std::string kind = structure_of(d);
    const auto p = [&](const char* key) { return std::int32_t(d.param(key)); };
    if (kind == "poisson2d") return sparse::poisson2d(p("nx"), s);
    if (kind == "poisson3d") return sparse::poisson3d(p("side"), s);
    if (kind == "fem") return sparse::fem3d(p("side"), p("dofs"), s);
    if (kind == "random") return sparse::random_rows(p("rows"), p("cols"), p("per_row"), s);
    if (kind == "powerlaw") return sparse::power_law(p("rows"), p("dmax"), p("dmin"), s);
    if (kind == "longrows") return sparse::long_rows(p("rows"), p("long_rows"), p("long_length"), s);
    if (kind == "halfrow") return sparse::half_row(p("rows"), p("cols"), s);
    if (kind == "emptyrows") return sparse::empty_rows(p("rows"), p("every"), s);
    throw Error("spmv: no generator for dataset " + d.name);
}

std::shared_ptr<const Problem> load_problem(const Dataset& d, std::uint64_t seed) {
    return HostCache::global().get<Problem>(
        "spmv/problem/" + dataset_key(d) + "/seed" + std::to_string(seed),
        [&] {
            Problem p;
            p.name = d.file.empty() ? d.name : d.file;
            p.a = d.file.empty() ? generate_matrix(d, seed) : read_matrix_market(d.file);
            if (p.a.nnz() == 0) throw Error(p.name + ": the matrix has no non-zeros (nothing to multiply)");
            if (p.a.nnz() > kMaxNnz)
                throw Error(p.name + ": " + std::to_string(p.a.nnz()) +
                            " non-zeros exceed the kernels' 32-bit offsets (at most " + std::to_string(kMaxNnz) + ")");
            p.x = make_x(p.a.cols, seed);
            p.reference = reference_rows(p.a, p.x);
            return p;
        },
        [](const Problem& p) {
            return p.a.row_ptr.size() * sizeof(p.a.row_ptr[0]) + p.a.col.size() * sizeof(p.a.col[0]) +
                   p.a.val.size() * sizeof(p.a.val[0]) + p.x.size() * sizeof(float) +
                   p.reference.size() * sizeof(RowReference);
        });
}

}  // namespace tb::spmv
