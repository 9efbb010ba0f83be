// Matrix Market reader (docs/matrix-market.md): coordinate format with real, integer or
// pattern values, general or symmetric (expanded to both triangles). Anything else, and
// every malformed file, is rejected with one tb::Error line "FILE:LINE: problem". Only
// regular files are read (a FIFO or a device is refused, never waited on).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "csr.hpp"

namespace tb {

enum class MmField { Real, Integer, Pattern };
enum class MmSymmetry { General, Symmetric };

struct MatrixMarketHeader {
    MmField field = MmField::Real;
    MmSymmetry symmetry = MmSymmetry::General;
    std::int64_t rows = 0, cols = 0;
    std::int64_t entries = 0;  // as declared on the size line (one triangle if symmetric)
    // Upper bound on the stored non-zeros after symmetric expansion.
    std::int64_t max_nnz() const { return symmetry == MmSymmetry::Symmetric ? 2 * entries : entries; }
};

// Reads only the banner, comments and size line (to size a dataset before loading it).
MatrixMarketHeader read_matrix_market_header(const std::string& path);

// Reads and converts the whole file: CSR with sorted columns, duplicates summed, symmetric
// files expanded, pattern entries set to 1.
CsrMatrix read_matrix_market(const std::string& path);

// Everything read_matrix_market() checks, with the same "FILE:LINE: problem" messages, but
// without building the CSR form: memory in proportion to the file's entries, not to the
// declared rows. `tribench run` checks each --matrix file this way before opening a device.
// Returns the header.
MatrixMarketHeader check_matrix_market_file(const std::string& path);
MatrixMarketHeader check_matrix_market(std::string_view text, const std::string& name);

// The same from text in memory; `name` stands for the file in messages.
CsrMatrix parse_matrix_market(std::string_view text, const std::string& name);
CooMatrix parse_matrix_market_coo(std::string_view text, const std::string& name,
                                  MatrixMarketHeader* header = nullptr);

}  // namespace tb
