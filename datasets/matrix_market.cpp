// Matrix Market coordinate reader. The whole file is read into memory and split into lines
// by hand (string_view, from_chars): files of tens of millions of entries load in seconds,
// and every message can name the line it is about.
#include "matrix_market.hpp"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <numeric>
#include <vector>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "printable.hpp"

namespace tb {
namespace {

// One problem at one line of one file.
[[noreturn]] void fail(const std::string& name, std::int64_t line, const std::string& what) {
    throw Error(printable_path(name) + ":" + std::to_string(line) + ": " + what);
}

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; }

// Whitespace-separated fields of one line.
std::vector<std::string_view> split(std::string_view line) {
    std::vector<std::string_view> out;
    std::size_t i = 0;
    while (i < line.size()) {
        while (i < line.size() && is_space(line[i])) ++i;
        const std::size_t b = i;
        while (i < line.size() && !is_space(line[i])) ++i;
        if (i > b) out.push_back(line.substr(b, i - b));
    }
    return out;
}

// Up to three fields without allocating (entry lines); returns the field count, which may
// exceed 3 (the extra fields are counted, not stored).
int split3(std::string_view line, std::string_view (&f)[3]) {
    int n = 0;
    std::size_t i = 0;
    while (i < line.size()) {
        while (i < line.size() && is_space(line[i])) ++i;
        const std::size_t b = i;
        while (i < line.size() && !is_space(line[i])) ++i;
        if (i > b) {
            if (n < 3) f[n] = line.substr(b, i - b);
            ++n;
        }
    }
    return n;
}

std::string lower(std::string_view s) {
    std::string r(s);
    for (char& c : r) c = char(std::tolower(static_cast<unsigned char>(c)));
    return r;
}

bool blank(std::string_view line) {
    for (char c : line)
        if (!is_space(c)) return false;
    return true;
}

// Comment lines start with '%'; blank lines are allowed anywhere after the banner.
bool skippable(std::string_view line) { return blank(line) || line.front() == '%'; }

bool parse_int(std::string_view s, std::int64_t& v) {
    if (!s.empty() && s.front() == '+') s.remove_prefix(1);
    const auto r = std::from_chars(s.data(), s.data() + s.size(), v);
    return r.ec == std::errc() && r.ptr == s.data() + s.size();
}

// The lines of a text, numbered from 1, with a trailing '\r' dropped.
class Lines {
public:
    explicit Lines(std::string_view text) : text_(text) {}
    bool next(std::string_view& line) {
        if (pos_ >= text_.size()) return false;
        std::size_t end = text_.find('\n', pos_);
        if (end == std::string_view::npos) end = text_.size();
        line = text_.substr(pos_, end - pos_);
        if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
        pos_ = end + 1;
        ++number_;
        return true;
    }
    // Next line that is neither blank nor a comment.
    bool next_content(std::string_view& line) {
        while (next(line))
            if (!skippable(line)) return true;
        return false;
    }
    std::int64_t number() const { return number_; }

private:
    std::string_view text_;
    std::size_t pos_ = 0;
    std::int64_t number_ = 0;
};

void parse_banner(std::string_view line, const std::string& name, MatrixMarketHeader& h) {
    const auto f = split(line);
    if (f.empty() || lower(f[0]) != "%%matrixmarket")
        fail(name, 1, "not a Matrix Market file (missing %%MatrixMarket banner)");
    if (f.size() != 5)
        fail(name, 1, "bad header: expected '%%MatrixMarket matrix coordinate <field> <symmetry>', got " +
                          std::to_string(f.size() - 1) + " words after the banner");
    const std::string object = lower(f[1]), format = lower(f[2]), field = lower(f[3]), sym = lower(f[4]);
    if (object != "matrix") fail(name, 1, "bad header: object '" + printable(f[1]) + "' is not supported (only 'matrix')");
    if (format == "array")
        fail(name, 1, "bad header: dense 'array' format is not supported (only sparse 'coordinate')");
    if (format != "coordinate") fail(name, 1, "bad header: unknown format '" + printable(f[2]) + "'");
    if (field == "real" || field == "double") h.field = MmField::Real;
    else if (field == "integer") h.field = MmField::Integer;
    else if (field == "pattern") h.field = MmField::Pattern;
    else if (field == "complex")
        fail(name, 1, "bad header: complex matrices are not supported (field 'complex'; real, integer or pattern)");
    else fail(name, 1, "bad header: unknown field '" + printable(f[3]) + "' (real, integer or pattern)");
    if (sym == "general") h.symmetry = MmSymmetry::General;
    else if (sym == "symmetric") h.symmetry = MmSymmetry::Symmetric;
    else if (sym == "skew-symmetric" || sym == "hermitian")
        fail(name, 1, "bad header: " + sym + " matrices are not supported (general or symmetric)");
    else fail(name, 1, "bad header: unknown symmetry '" + printable(f[4]) + "' (general or symmetric)");
}

void parse_size(std::string_view line, std::int64_t number, const std::string& name, MatrixMarketHeader& h) {
    const auto f = split(line);
    if (f.size() != 3)
        fail(name, number, "bad size line: expected 'rows columns entries', got " + std::to_string(f.size()) +
                               " fields");
    std::int64_t v[3];
    for (int i = 0; i < 3; ++i)
        if (!parse_int(f[std::size_t(i)], v[i]) || v[i] < 0)
            fail(name, number, "bad size line: '" + printable(f[std::size_t(i)]) + "' is not a non-negative integer");
    if (v[0] == 0 || v[1] == 0) fail(name, number, "bad size line: a matrix needs at least one row and one column");
    h.rows = v[0];
    h.cols = v[1];
    h.entries = v[2];
    // Entries are stored with 32-bit indices: a larger dimension would wrap, not fail.
    constexpr std::int64_t max_dim = std::numeric_limits<std::int32_t>::max();
    if (h.rows > max_dim || h.cols > max_dim)
        fail(name, number, "bad size line: " + std::to_string(h.rows) + "x" + std::to_string(h.cols) +
                               " is larger than the " + std::to_string(max_dim) +
                               " rows or columns that 32-bit indices hold");
    // CSR indices are 32-bit; refusing larger counts here also keeps max_nnz() (2 x entries
    // for symmetric files) far from overflow.
    if (h.entries > kMaxCsrNnz)
        fail(name, number, "bad size line: " + std::to_string(h.entries) + " entries is more than the " +
                               std::to_string(kMaxCsrNnz) + " a CSR matrix with 32-bit indices holds");
    if (h.symmetry == MmSymmetry::Symmetric && h.rows != h.cols)
        fail(name, number, "bad size line: a symmetric matrix must be square, not " + std::to_string(h.rows) + "x" +
                               std::to_string(h.cols));
}

// Banner, comments and size line, whatever feeds the lines.
template <class NextLine>
MatrixMarketHeader parse_header(NextLine&& next, const std::string& name, bool gzip) {
    MatrixMarketHeader h;
    std::string_view line;
    std::int64_t number = 0;
    if (!next(line, number)) fail(name, 1, "empty file (missing %%MatrixMarket banner)");
    if (gzip) fail(name, 1, "compressed file (gzip): decompress it first");
    parse_banner(line, name, h);
    do {
        if (!next(line, number)) fail(name, number + 1, "missing size line (the file ends after the header)");
    } while (skippable(line));
    parse_size(line, number, name, h);
    return h;
}

bool gzip_magic(std::string_view s) { return s.size() >= 2 && s[0] == '\x1f' && s[1] == '\x8b'; }

const char* file_kind(mode_t mode) {
    if (S_ISFIFO(mode)) return "a FIFO";
    if (S_ISCHR(mode)) return "a character device";
    if (S_ISBLK(mode)) return "a block device";
    if (S_ISSOCK(mode)) return "a socket";
    if (S_ISDIR(mode)) return "a directory";
    return "not a regular file";
}

// Opens a regular file for reading. Anything else is refused rather than read: a FIFO
// without a writer would block forever (hence O_NONBLOCK, which makes open() return at
// once), a device may never end, and the header is read before the whole file, which a
// pipe cannot give twice.
class RegularFile {
public:
    explicit RegularFile(const std::string& path) : path_(path) {
        fd_ = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
        if (fd_ < 0) throw Error("cannot open " + printable_path(path) + ": " + std::strerror(errno));
        struct stat st {};
        if (::fstat(fd_, &st) != 0) {
            const int e = errno;
            ::close(fd_);
            throw Error("cannot read " + printable_path(path) + ": " + std::strerror(e));
        }
        if (!S_ISREG(st.st_mode)) {
            ::close(fd_);
            throw Error(printable_path(path) + ": " + file_kind(st.st_mode) +
                        ", not a regular file (a Matrix Market file is read twice: header, then entries)");
        }
        size_ = st.st_size;
        const int flags = ::fcntl(fd_, F_GETFL);
        if (flags < 0 || ::fcntl(fd_, F_SETFL, flags & ~O_NONBLOCK) != 0) {
            const int e = errno;
            ::close(fd_);
            throw Error("cannot read " + printable_path(path) + ": " + std::strerror(e));
        }
    }
    ~RegularFile() {
        if (fd_ >= 0) ::close(fd_);
    }
    RegularFile(const RegularFile&) = delete;
    RegularFile& operator=(const RegularFile&) = delete;

    std::string read_all() {
        std::string text;
        text.reserve(std::size_t(size_));
        char buf[1 << 16];
        for (;;) {
            const ssize_t n = ::read(fd_, buf, sizeof buf);
            if (n == 0) return text;
            if (n < 0) {
                if (errno == EINTR) continue;
                throw Error("cannot read " + printable_path(path_) + ": " + std::strerror(errno));
            }
            text.append(buf, std::size_t(n));
        }
    }
    // The stream takes the descriptor over (it closes it).
    std::FILE* release_to_stream() {
        std::FILE* f = ::fdopen(fd_, "rb");
        if (!f) throw Error("cannot read " + printable_path(path_) + ": " + std::strerror(errno));
        fd_ = -1;
        return f;
    }

private:
    std::string path_;
    int fd_ = -1;
    off_t size_ = 0;
};

std::string read_file(const std::string& path) { return RegularFile(path).read_all(); }

}  // namespace

CooMatrix parse_matrix_market_coo(std::string_view text, const std::string& name, MatrixMarketHeader* header) {
    Lines lines(text);
    const auto next = [&](std::string_view& l, std::int64_t& number) {
        const bool ok = lines.next(l);
        number = lines.number();
        return ok;
    };
    const MatrixMarketHeader h = parse_header(next, name, gzip_magic(text));
    if (header) *header = h;

    CooMatrix coo;
    coo.rows = h.rows;
    coo.cols = h.cols;
    // Every entry line takes at least 4 bytes ("1 1\n"): a bogus count cannot over-reserve.
    const std::int64_t plausible = std::min<std::int64_t>(h.entries, std::int64_t(text.size() / 4) + 1);
    const std::size_t reserve = std::size_t(h.symmetry == MmSymmetry::Symmetric ? 2 * plausible : plausible);
    coo.row.reserve(reserve);
    coo.col.reserve(reserve);
    coo.val.reserve(reserve);

    const int want = h.field == MmField::Pattern ? 2 : 3;
    const char* want_text = h.field == MmField::Pattern ? "'row column'" : "'row column value'";
    std::string_view line, f[3];
    for (std::int64_t k = 0; k < h.entries; ++k) {
        if (!lines.next_content(line))
            fail(name, lines.number() + 1,
                 "missing entries: the file ends after " + std::to_string(k) + " of " + std::to_string(h.entries) +
                     " declared entries");
        const std::int64_t at = lines.number();
        const int n = split3(line, f);
        if (n != want)
            fail(name, at, "bad entry: expected " + std::string(want_text) + ", got " + std::to_string(n) + " fields");
        std::int64_t idx[2];
        const char* what[2] = {"row", "column"};
        const std::int64_t limit[2] = {h.rows, h.cols};
        for (int i = 0; i < 2; ++i) {
            if (!parse_int(f[i], idx[i])) fail(name, at, std::string(what[i]) + " index '" + printable(f[i]) + "' is not an integer");
            if (idx[i] < 1 || idx[i] > limit[i])
                fail(name, at, std::string(what[i]) + " index " + std::to_string(idx[i]) + " out of range 1.." +
                                   std::to_string(limit[i]));
        }
        double v = 1.0;
        if (h.field == MmField::Integer) {
            std::int64_t iv = 0;
            if (!parse_int(f[2], iv)) fail(name, at, "value '" + printable(f[2]) + "' is not an integer");
            v = double(iv);
        } else if (h.field == MmField::Real) {
            std::string_view s = f[2];
            if (!s.empty() && s.front() == '+') s.remove_prefix(1);
            const auto r = std::from_chars(s.data(), s.data() + s.size(), v);
            if (r.ec == std::errc::result_out_of_range)
                fail(name, at, "value '" + printable(f[2]) + "' is out of range");
            if (r.ec != std::errc() || r.ptr != s.data() + s.size())
                fail(name, at, "value '" + printable(f[2]) + "' is not a number");
            if (!std::isfinite(v)) fail(name, at, "value '" + printable(f[2]) + "' is not finite");
        }
        if (std::fabs(v) > double(std::numeric_limits<float>::max()))
            fail(name, at, "value '" + printable(f[2]) + "' overflows single precision");
        const auto r = std::int32_t(idx[0] - 1), c = std::int32_t(idx[1] - 1);
        if (h.symmetry == MmSymmetry::Symmetric && c > r)
            fail(name, at, "entry (" + std::to_string(idx[0]) + "," + std::to_string(idx[1]) +
                               ") lies above the diagonal of a symmetric matrix (only the lower triangle is stored)");
        coo.row.push_back(r);
        coo.col.push_back(c);
        coo.val.push_back(v);
        if (h.symmetry == MmSymmetry::Symmetric && c != r) {
            coo.row.push_back(c);
            coo.col.push_back(r);
            coo.val.push_back(v);
        }
    }
    if (lines.next_content(line))
        fail(name, lines.number(), "extra entry after the " + std::to_string(h.entries) + " declared entries");
    return coo;
}

CsrMatrix parse_matrix_market(std::string_view text, const std::string& name) {
    return csr_from_coo(parse_matrix_market_coo(text, name), printable_path(name));
}

CsrMatrix read_matrix_market(const std::string& path) { return parse_matrix_market(read_file(path), path); }

MatrixMarketHeader check_matrix_market(std::string_view text, const std::string& name) {
    MatrixMarketHeader h;
    const CooMatrix coo = parse_matrix_market_coo(text, name, &h);
    // What csr_from_coo() checks, in its order (row by row, columns ascending, duplicates
    // summed in file order), from the entries alone: its row offsets would take memory in
    // proportion to the declared rows, which a short file can make huge.
    std::vector<std::size_t> order(coo.row.size());
    std::iota(order.begin(), order.end(), std::size_t(0));
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
        return coo.row[a] != coo.row[b] ? coo.row[a] < coo.row[b] : coo.col[a] < coo.col[b];
    });
    const std::string what = printable_path(name);
    std::int64_t stored = 0;
    for (std::size_t k = 0; k < order.size();) {
        const std::int32_t r = coo.row[order[k]], c = coo.col[order[k]];
        double sum = 0;
        for (; k < order.size() && coo.row[order[k]] == r && coo.col[order[k]] == c; ++k) sum += coo.val[order[k]];
        if (std::isinf(float(sum)))
            throw Error(what + ": duplicate entries at (" + std::to_string(r + 1) + "," + std::to_string(c + 1) +
                        ") sum to " + std::to_string(sum) + ", beyond single precision");
        ++stored;
        const bool row_ends = k == order.size() || coo.row[order[k]] != r;
        if (row_ends && stored > kMaxCsrNnz)
            throw Error(what + ": more than " + std::to_string(kMaxCsrNnz) +
                        " non-zeros exceed the 32-bit row offsets of the CSR kernels");
    }
    return h;
}

MatrixMarketHeader check_matrix_market_file(const std::string& path) { return check_matrix_market(read_file(path), path); }

MatrixMarketHeader read_matrix_market_header(const std::string& path) {
    // Line by line: only the first lines of a large file are read.
    struct Stream {
        std::FILE* file;
        char* line = nullptr;  // getline's buffer
        std::size_t cap = 0;
        ~Stream() {
            std::free(line);
            std::fclose(file);
        }
    } in{RegularFile(path).release_to_stream()};
    const auto failed = [&] { return Error("cannot read " + printable_path(path) + ": " + std::strerror(errno)); };
    std::int64_t count = 0;
    const auto next = [&](std::string_view& l, std::int64_t& number) {
        const ssize_t n = ::getline(&in.line, &in.cap, in.file);
        if (n < 0) {
            if (std::ferror(in.file)) throw failed();
            return false;
        }
        l = std::string_view(in.line, std::size_t(n));
        if (!l.empty() && l.back() == '\n') l.remove_suffix(1);
        if (!l.empty() && l.back() == '\r') l.remove_suffix(1);
        number = ++count;
        return true;
    };
    // A compressed file is recognised by its first two bytes.
    char magic[2] = {0, 0};
    const bool gzip = std::fread(magic, 1, 2, in.file) == 2 && gzip_magic(std::string_view(magic, 2));
    if (std::fseek(in.file, 0, SEEK_SET) != 0) throw failed();
    return parse_header(next, path, gzip);
}

}  // namespace tb
