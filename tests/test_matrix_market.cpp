// The Matrix Market reader on good files (every supported field and symmetry, comments,
// blank lines, CRLF, duplicates) and on each kind of malformed file, whose message must
// name the file and the line.
#include <string>

#include <gtest/gtest.h>

#include "matrix_market.hpp"

using namespace tb;

namespace {

std::string data(const std::string& name) { return std::string(TRIBENCH_TEST_DATA) + "/mtx/" + name; }

struct Entry {
    int row, col;
    float val;
};

// The matrix as (row, col, value) in CSR order, to compare with what a file says.
std::vector<Entry> entries(const CsrMatrix& m) {
    std::vector<Entry> e;
    for (int r = 0; r < m.rows; ++r)
        for (int k = m.row_ptr[std::size_t(r)]; k < m.row_ptr[std::size_t(r) + 1]; ++k)
            e.push_back({r, m.col[std::size_t(k)], m.val[std::size_t(k)]});
    return e;
}

void expect_entries(const CsrMatrix& m, const std::vector<Entry>& want) {
    const auto got = entries(m);
    ASSERT_EQ(got.size(), want.size());
    for (std::size_t i = 0; i < want.size(); ++i) {
        EXPECT_EQ(got[i].row, want[i].row) << "entry " << i;
        EXPECT_EQ(got[i].col, want[i].col) << "entry " << i;
        EXPECT_EQ(got[i].val, want[i].val) << "entry " << i;
    }
    EXPECT_EQ(m.row_ptr.front(), 0);
    EXPECT_EQ(std::int64_t(m.row_ptr.back()), m.nnz());
}

}  // namespace

TEST(MatrixMarket, GeneralRealSortsRowsAndColumns) {
    const CsrMatrix m = read_matrix_market(data("general.mtx"));
    EXPECT_EQ(m.rows, 4);
    EXPECT_EQ(m.cols, 5);
    expect_entries(m, {{0, 0, 1.5f}, {0, 3, -1e-3f}, {1, 2, -22.5f}, {2, 0, 0.5f}, {3, 1, 7.0f}, {3, 4, 3.0f}});
}

TEST(MatrixMarket, SymmetricIsExpandedToBothTriangles) {
    const CsrMatrix m = read_matrix_market(data("symmetric.mtx"));
    EXPECT_EQ(m.rows, 3);
    expect_entries(m, {{0, 0, 2.f}, {0, 1, -1.f}, {1, 0, -1.f}, {1, 2, -1.f}, {2, 1, -1.f}, {2, 2, 2.f}});
    const MatrixMarketHeader h = read_matrix_market_header(data("symmetric.mtx"));
    EXPECT_EQ(h.symmetry, MmSymmetry::Symmetric);
    EXPECT_EQ(h.entries, 4);
    EXPECT_GE(h.max_nnz(), m.nnz());
}

TEST(MatrixMarket, PatternEntriesAreOne) {
    const CsrMatrix m = read_matrix_market(data("pattern.mtx"));
    expect_entries(m, {{0, 1, 1.f}, {1, 2, 1.f}, {2, 0, 1.f}});
    EXPECT_EQ(read_matrix_market_header(data("pattern.mtx")).field, MmField::Pattern);
}

TEST(MatrixMarket, IntegerValues) {
    const CsrMatrix m = read_matrix_market(data("integer.mtx"));
    EXPECT_EQ(m.rows, 2);
    EXPECT_EQ(m.cols, 3);
    expect_entries(m, {{0, 2, 5.f}, {1, 0, -3.f}, {1, 1, 12.f}});
}

TEST(MatrixMarket, CommentsBlankLinesTabsCrlfAndCase) {
    const CsrMatrix m = read_matrix_market(data("comments_blank.mtx"));
    expect_entries(m, {{0, 0, 1.25f}, {0, 1, 0.5f}, {1, 1, -4.f}});
    const MatrixMarketHeader h = read_matrix_market_header(data("comments_blank.mtx"));
    EXPECT_EQ(h.rows, 2);
    EXPECT_EQ(h.entries, 3);
}

TEST(MatrixMarket, DuplicatesAreSummed) {
    const CsrMatrix m = read_matrix_market(data("duplicates.mtx"));
    expect_entries(m, {{0, 0, 2.5f}, {0, 2, 1.25f}, {1, 1, -1.f}});
}

TEST(MatrixMarket, DuplicatesSummingBeyondFloatAreRejected) {
    try {
        parse_matrix_market("%%MatrixMarket matrix coordinate real general\n2 2 2\n2 1 3e38\n2 1 3e38\n", "dup.mtx");
        FAIL() << "no exception";
    } catch (const Error& e) {
        EXPECT_EQ(std::string(e.what()).rfind("dup.mtx: duplicate entries at (2,1)", 0), 0u) << e.what();
    }
}

TEST(MatrixMarket, MissingFileIsNamed) {
    try {
        read_matrix_market(data("no_such_file.mtx"));
        FAIL() << "no exception";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("cannot open " + data("no_such_file.mtx")), std::string::npos) << e.what();
    }
}

TEST(MatrixMarket, CompressedFileIsRecognised) {
    const std::string gz = std::string("\x1f\x8b\x08\x00", 4) + "rest";
    try {
        parse_matrix_market(gz, "m.mtx.gz");
        FAIL() << "no exception";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("m.mtx.gz:1: compressed file"), std::string::npos) << e.what();
    }
}

TEST(MatrixMarket, FromMemoryUsesTheGivenName) {
    const CsrMatrix m = parse_matrix_market("%%MatrixMarket matrix coordinate real general\n1 2 1\n1 2 3.5", "inline");
    expect_entries(m, {{0, 1, 3.5f}});  // the last line needs no newline
    try {
        parse_matrix_market("%%MatrixMarket matrix coordinate real general\n1 2 1\n", "inline");
        FAIL() << "no exception";
    } catch (const Error& e) {
        EXPECT_EQ(std::string(e.what()).rfind("inline:3: missing entries", 0), 0u) << e.what();
    }
}

namespace {

struct Bad {
    const char* file;
    int line;
    const char* problem;
};

std::ostream& operator<<(std::ostream& o, const Bad& b) { return o << b.file; }

class MalformedFile : public testing::TestWithParam<Bad> {};

}  // namespace

TEST_P(MalformedFile, IsRejectedNamingFileAndLine) {
    const Bad& b = GetParam();
    const std::string path = data(b.file);
    const std::string where = path + ":" + std::to_string(b.line) + ": ";
    for (int header_only = 0; header_only < 2; ++header_only) {
        try {
            if (header_only) read_matrix_market_header(path);
            else read_matrix_market(path);
            // Entry problems are invisible to the header reader; the full reader must throw.
            EXPECT_TRUE(header_only) << "accepted " << b.file;
        } catch (const Error& e) {
            const std::string msg = e.what();
            EXPECT_EQ(msg.rfind(where, 0), 0u) << "message does not start with '" << where << "': " << msg;
            EXPECT_NE(msg.find(b.problem), std::string::npos) << "message lacks '" << b.problem << "': " << msg;
            EXPECT_EQ(msg.find('\n'), std::string::npos) << "not one line: " << msg;
        }
    }
}

INSTANTIATE_TEST_SUITE_P(
    All, MalformedFile,
    testing::Values(Bad{"bad_empty.mtx", 1, "empty file"},
                    Bad{"bad_no_banner.mtx", 1, "not a Matrix Market file (missing %%MatrixMarket banner)"},
                    Bad{"bad_short_header.mtx", 1, "bad header: expected"},
                    Bad{"bad_field.mtx", 1, "unknown field 'float'"},
                    Bad{"bad_complex.mtx", 1, "complex matrices are not supported"},
                    Bad{"bad_array.mtx", 1, "'array' format is not supported"},
                    Bad{"bad_skew.mtx", 1, "skew-symmetric matrices are not supported"},
                    Bad{"bad_hermitian.mtx", 1, "hermitian matrices are not supported"},
                    Bad{"bad_object.mtx", 1, "object 'vector'"},
                    Bad{"bad_size_fields.mtx", 3, "bad size line: expected 'rows columns entries', got 2"},
                    Bad{"bad_size_number.mtx", 2, "'x' is not a non-negative integer"},
                    Bad{"bad_size_negative.mtx", 2, "'-1' is not a non-negative integer"},
                    Bad{"bad_size_huge.mtx", 2, "4x4294967297 is larger than the 2147483647 rows or columns"},
                    Bad{"bad_missing_size.mtx", 4, "missing size line"},
                    Bad{"bad_symmetric_shape.mtx", 2, "must be square, not 3x4"},
                    Bad{"bad_row_range.mtx", 5, "row index 5 out of range 1..4"},
                    Bad{"bad_col_range.mtx", 4, "column index 0 out of range 1..4"},
                    Bad{"bad_index_number.mtx", 4, "row index '1.5' is not an integer"},
                    Bad{"bad_missing_entries.mtx", 5, "missing entries: the file ends after 2 of 3"},
                    Bad{"bad_extra_entries.mtx", 6, "extra entry after the 2 declared entries"},
                    Bad{"bad_entry_fields.mtx", 4, "expected 'row column value', got 2 fields"},
                    Bad{"bad_pattern_fields.mtx", 4, "expected 'row column', got 3 fields"},
                    Bad{"bad_value_text.mtx", 4, "value 'abc' is not a number"},
                    Bad{"bad_value_nan.mtx", 3, "value 'nan' is not finite"},
                    Bad{"bad_value_inf.mtx", 5, "value '-inf' is not finite"},
                    Bad{"bad_value_overflow.mtx", 3, "overflows single precision"},
                    Bad{"bad_value_integer.mtx", 3, "value '1.5' is not an integer"},
                    Bad{"bad_upper_triangle.mtx", 4, "lies above the diagonal"}),
    [](const testing::TestParamInfo<Bad>& i) {
        std::string n = i.param.file;
        return n.substr(4, n.size() - 8);  // "bad_xxx.mtx" -> "xxx"
    });
