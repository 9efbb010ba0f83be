// Fuzzes the Matrix Market reader (datasets/matrix_market.cpp) with arbitrary file bytes.
// Contract: a file is either rejected with one tb::Error, or read into a matrix whose
// indices are in range and whose values are finite single-precision numbers. Also checked:
// the header-only reader (used to size a dataset before loading it, from a file) and the
// up-front check (check_matrix_market, run before a device opens) agree with the full
// in-memory parse and conversion, message for message; every message is one printable line.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>

#include "csr.hpp"
#include "fuzz_common.hpp"
#include "matrix_market.hpp"

namespace {

using tb::fuzz::check;

// The file both readers read, rewritten for each input.
tb::fuzz::ScratchFile& scratch() {
    static tb::fuzz::ScratchFile file;
    return file;
}

// Rows of the CSR conversion are allocated up front (by design: a matrix of N rows needs
// N+1 offsets); beyond this the conversion is skipped so one input cannot exhaust memory.
constexpr std::int64_t kMaxConvertedRows = 1 << 16;

void check_coo(const tb::CooMatrix& coo, const tb::MatrixMarketHeader& h) {
    check(h.rows >= 1 && h.cols >= 1 && h.entries >= 0, "header sizes");
    check(coo.rows == h.rows && coo.cols == h.cols, "COO sizes differ from the header");
    check(coo.row.size() == coo.col.size() && coo.col.size() == coo.val.size(), "COO arrays of different lengths");
    const auto n = std::int64_t(coo.row.size());
    if (h.symmetry == tb::MmSymmetry::General) check(n == h.entries, "general matrix: entries != declared");
    else check(n >= h.entries && n <= h.max_nnz(), "symmetric matrix: entries outside [declared, 2*declared]");
    for (std::size_t k = 0; k < coo.row.size(); ++k) {
        check(coo.row[k] >= 0 && coo.row[k] < coo.rows, "row index out of range");
        check(coo.col[k] >= 0 && coo.col[k] < coo.cols, "column index out of range");
        check(std::isfinite(coo.val[k]) && std::fabs(coo.val[k]) <= std::numeric_limits<float>::max(),
              "value not a finite float");
    }
}

void check_csr(const tb::CsrMatrix& m, const tb::CooMatrix& coo) {
    check(m.rows == coo.rows && m.cols == coo.cols, "CSR sizes");
    check(m.row_ptr.size() == std::size_t(m.rows) + 1 && m.row_ptr[0] == 0, "row_ptr shape");
    check(std::size_t(m.row_ptr.back()) == m.col.size() && m.col.size() == m.val.size(), "row_ptr end");
    check(m.col.size() <= coo.col.size(), "CSR holds more non-zeros than the file");
    for (std::int32_t r = 0; r < m.rows; ++r) {
        check(m.row_ptr[r] <= m.row_ptr[r + 1], "row_ptr decreasing");
        for (std::int32_t k = m.row_ptr[r]; k < m.row_ptr[r + 1]; ++k) {
            check(m.col[k] >= 0 && m.col[k] < m.cols, "CSR column out of range");
            check(k == m.row_ptr[r] || m.col[k - 1] < m.col[k], "CSR columns not strictly increasing in a row");
            check(std::isfinite(m.val[k]), "CSR value not finite (duplicates summed beyond float range?)");
        }
    }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    const std::string& name = scratch().path();  // both readers name the same file

    tb::MatrixMarketHeader h;
    tb::CooMatrix coo;
    std::string parse_error;
    bool parsed = false;
    try {
        coo = tb::parse_matrix_market_coo(text, name, &h);
        parsed = true;
    } catch (const tb::Error& e) {
        parse_error = e.what();
        tb::fuzz::check_message("parse_matrix_market_coo", parse_error);
    } catch (const std::exception& e) {
        tb::fuzz::finding(std::string("parse_matrix_market_coo threw a non-tb::Error exception: ") + e.what());
    }

    // The check `tribench run` makes before opening a device (no CSR built) agrees with the
    // full read: same verdict, same message.
    std::string check_error;
    try {
        tb::check_matrix_market(text, name);
    } catch (const tb::Error& e) {
        check_error = e.what();
    } catch (const std::exception& e) {
        tb::fuzz::finding(std::string("check_matrix_market threw a non-tb::Error exception: ") + e.what());
    }
    if (!parsed)
        check(check_error == parse_error, "check_matrix_market says '" + check_error + "' where the parse says '" +
                                              parse_error + "'");

    scratch().write(data, size);
    tb::MatrixMarketHeader fh;
    std::string header_error;
    try {
        fh = tb::read_matrix_market_header(name);
    } catch (const tb::Error& e) {
        header_error = e.what();
        tb::fuzz::check_message("read_matrix_market_header", header_error);
    } catch (const std::exception& e) {
        tb::fuzz::finding(std::string("read_matrix_market_header threw a non-tb::Error exception: ") + e.what());
    }
    // spmv sizes a dataset from an accepted header's max_nnz() (UBSan flags an overflow).
    if (header_error.empty()) check(fh.max_nnz() >= fh.entries, "max_nnz() below the declared entries");
    if (!header_error.empty())
        check(header_error == parse_error, "the header reader rejects the file ('" + header_error +
                                               "') but the full parse says '" + parse_error + "'");

    if (!parsed) return 0;
    check(header_error.empty(), "the header reader rejects a file the full parse accepts");
    check(fh.rows == h.rows && fh.cols == h.cols && fh.entries == h.entries && fh.field == h.field &&
              fh.symmetry == h.symmetry,
          "the header reader and the full parse disagree on the header");
    check_coo(coo, h);
    if (coo.rows > kMaxConvertedRows) return 0;
    tb::CsrMatrix m;
    std::string csr_error;
    try {
        m = tb::csr_from_coo(coo, name);
        check_csr(m, coo);
    } catch (const tb::Error& e) {
        csr_error = e.what();
        tb::fuzz::check_message("csr_from_coo", csr_error);
    } catch (const std::exception& e) {
        tb::fuzz::finding(std::string("csr_from_coo threw a non-tb::Error exception: ") + e.what());
    }
    check(check_error == csr_error, "check_matrix_market says '" + check_error + "' where the conversion says '" +
                                        csr_error + "'");
    return 0;
}
