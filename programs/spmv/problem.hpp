// The spmv inputs: the named generated matrices, Matrix Market files given on the command
// line, and the host-side problem (A in CSR, x) built from either.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "csr.hpp"
#include "program.hpp"
#include "reference.hpp"

namespace tb::spmv {

struct Problem {
    std::string name;
    CsrMatrix a;
    std::vector<float> x;  // a.cols random floats in [-1, 1)
    std::vector<RowReference> reference;  // every row of a x in double (reference.hpp)
};

// Every generated dataset: eight structures, each small (CI), medium and large (>= 20M
// non-zeros). Params hold rows, cols and the exact nnz, plus the generator's sizes.
const std::vector<Dataset>& generated_datasets();

// A dataset for a Matrix Market file: name from the lowercased file stem, sizes from its
// header (nnz is an upper bound for symmetric files). Throws tb::Error on a bad header.
Dataset file_dataset(const std::string& path);

// Device memory for A (row offsets, columns, values), x and y.
std::uint64_t problem_device_bytes(const Dataset& d);
// What the merge variant adds: tile start rows and one carry per work-group (an upper bound).
std::uint64_t merge_device_bytes(const Dataset& d);

// Builds (or reads) the problem, kept in HostCache, so preparing the same dataset for
// several backends and variants generates or parses it once. Throws tb::Error for unusable
// input.
std::shared_ptr<const Problem> load_problem(const Dataset& d, std::uint64_t seed);

// The matrix of a generated dataset (no cache), for tests.
CsrMatrix generate_matrix(const Dataset& d, std::uint64_t seed);

}  // namespace tb::spmv
