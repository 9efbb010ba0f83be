// Diffing normalised PTX: Myers' shortest edit script, alignment on line shapes, and the
// `diff -u` layout.
#include "ptx/ptx_analysis.hpp"

#include <algorithm>
#include <cctype>
#include <sstream>
#include <unordered_map>

#include "ptx/ptx_lexing.hpp"

namespace tb::ptx {

namespace {

// Myers' linear-space refinement: find the middle snake of an optimal path between
// A[a0,a1) and B[b0,b1), recurse on both sides of it.
// Lines are compared as integer ids (equal lines, equal ids): cheaper than strings.
class Differ {
public:
    Differ(const std::vector<int>& a, const std::vector<int>& b) : a_(a), b_(b) {}

    void run(std::size_t a0, std::size_t a1, std::size_t b0, std::size_t b1, std::vector<DiffLine>& out) {
        while (a0 < a1 && b0 < b1 && a_[a0] == b_[b0]) out.push_back({Edit::Same, a0++, b0++});
        std::size_t suffix = 0;
        while (a1 > a0 && b1 > b0 && a_[a1 - 1] == b_[b1 - 1]) --a1, --b1, ++suffix;
        if (a0 == a1) {
            for (std::size_t j = b0; j < b1; ++j) out.push_back({Edit::Added, a0, j});
        } else if (b0 == b1) {
            for (std::size_t i = a0; i < a1; ++i) out.push_back({Edit::Removed, i, b0});
        } else {
            std::size_t x, y, u, v;
            if (!middle_snake(a0, a1, b0, b1, x, y, u, v)) {  // cannot happen; never loop
                for (std::size_t i = a0; i < a1; ++i) out.push_back({Edit::Removed, i, b0});
                for (std::size_t j = b0; j < b1; ++j) out.push_back({Edit::Added, a1, j});
                for (std::size_t s = 0; s < suffix; ++s) out.push_back({Edit::Same, a1 + s, b1 + s});
                return;
            }
            run(a0, x, b0, y, out);
            for (std::size_t i = x, j = y; i < u; ++i, ++j) out.push_back({Edit::Same, i, j});
            run(u, a1, v, b1, out);
        }
        for (std::size_t s = 0; s < suffix; ++s) out.push_back({Edit::Same, a1 + s, b1 + s});
    }

private:
    const std::vector<int>& a_;
    const std::vector<int>& b_;

    // The snake (x,y)->(u,v) in absolute coordinates. Both ranges are non-empty and differ
    // at both ends, so the edit distance is at least 2 and each half is strictly smaller.
    bool middle_snake(std::size_t a0, std::size_t a1, std::size_t b0, std::size_t b1, std::size_t& x_out,
                      std::size_t& y_out, std::size_t& u_out, std::size_t& v_out) const {
        const long n = long(a1 - a0), m = long(b1 - b0);
        const long delta = n - m;
        const bool odd = (delta & 1) != 0;
        const long dmax = (n + m + 1) / 2;
        const long off = dmax + 1;
        std::vector<long> vf(std::size_t(2 * dmax + 3), 0), vb(std::size_t(2 * dmax + 3), 0);
        auto A = [&](long i) { return a_[a0 + std::size_t(i)]; };
        auto B = [&](long j) { return b_[b0 + std::size_t(j)]; };
        for (long d = 0; d <= dmax; ++d) {
            for (long k = -d; k <= d; k += 2) {  // forward paths
                long x = (k == -d || (k != d && vf[std::size_t(off + k - 1)] < vf[std::size_t(off + k + 1)]))
                             ? vf[std::size_t(off + k + 1)]
                             : vf[std::size_t(off + k - 1)] + 1;
                long y = x - k;
                const long x0 = x, y0 = y;
                while (x < n && y < m && A(x) == B(y)) ++x, ++y;
                vf[std::size_t(off + k)] = x;
                const long kr = delta - k;  // the same diagonal, seen from the end
                if (odd && kr >= -(d - 1) && kr <= d - 1 && x + vb[std::size_t(off + kr)] >= n) {
                    x_out = a0 + std::size_t(x0), y_out = b0 + std::size_t(y0);
                    u_out = a0 + std::size_t(x), v_out = b0 + std::size_t(y);
                    return true;
                }
            }
            for (long k = -d; k <= d; k += 2) {  // reverse paths, on the reversed sequences
                long x = (k == -d || (k != d && vb[std::size_t(off + k - 1)] < vb[std::size_t(off + k + 1)]))
                             ? vb[std::size_t(off + k + 1)]
                             : vb[std::size_t(off + k - 1)] + 1;
                long y = x - k;
                const long x0 = x, y0 = y;
                while (x < n && y < m && A(n - 1 - x) == B(m - 1 - y)) ++x, ++y;
                vb[std::size_t(off + k)] = x;
                const long kf = delta - k;
                if (!odd && kf >= -d && kf <= d && x + vf[std::size_t(off + kf)] >= n) {
                    x_out = a0 + std::size_t(n - x), y_out = b0 + std::size_t(m - y);
                    u_out = a0 + std::size_t(n - x0), v_out = b0 + std::size_t(m - y0);
                    return true;
                }
            }
        }
        return false;  // the paths always meet by dmax
    }
};

}  // namespace

std::vector<DiffLine> diff_lines(const std::vector<std::string>& a, const std::vector<std::string>& b) {
    std::unordered_map<std::string, int> ids;
    auto to_ids = [&](const std::vector<std::string>& lines) {
        std::vector<int> out;
        out.reserve(lines.size());
        for (const auto& l : lines) out.push_back(ids.emplace(l, int(ids.size())).first->second);
        return out;
    };
    const std::vector<int> ia = to_ids(a), ib = to_ids(b);
    std::vector<DiffLine> raw;
    Differ(ia, ib).run(0, a.size(), 0, b.size(), raw);
    // Within each run of changes, removals first, as `diff -u` shows them.
    std::vector<DiffLine> out;
    out.reserve(raw.size());
    for (std::size_t i = 0; i < raw.size();) {
        if (raw[i].edit == Edit::Same) {
            out.push_back(raw[i++]);
            continue;
        }
        std::size_t j = i;
        while (j < raw.size() && raw[j].edit != Edit::Same) ++j;
        for (std::size_t k = i; k < j; ++k)
            if (raw[k].edit == Edit::Removed) out.push_back(raw[k]);
        for (std::size_t k = i; k < j; ++k)
            if (raw[k].edit == Edit::Added) out.push_back(raw[k]);
        i = j;
    }
    return out;
}

std::string shape_of(const std::string& line) {
    std::string out;
    for (std::size_t i = 0; i < line.size();) {
        const bool boundary = i == 0 || !is_ident_char(line[i - 1]);
        std::size_t j = i + 1;
        if (line[i] == '%') {  // %r12 -> %r for virtual registers
            while (j < line.size() && std::isalpha(static_cast<unsigned char>(line[j]))) ++j;
            std::size_t k = j;
            while (k < line.size() && std::isdigit(static_cast<unsigned char>(line[k]))) ++k;
            if (k > j && (k == line.size() || !is_ident_char(line[k])) &&
                virtual_register_prefixes().count(line.substr(i + 1, j - i - 1))) {
                out.append(line, i, j - i);
                i = k;
                continue;
            }
        } else if (boundary && line[i] == 'L' && (i == 0 || line[i - 1] != '.')) {  // L12 -> L (not .L1::)
            while (j < line.size() && std::isdigit(static_cast<unsigned char>(line[j]))) ++j;
            if (j > i + 1 && (j == line.size() || !is_ident_char(line[j]))) {
                out += 'L';
                i = j;
                continue;
            }
        }
        out += line[i++];
    }
    return out;
}

std::vector<DiffLine> diff_shapes(const std::vector<std::string>& a, const std::vector<std::string>& b) {
    std::vector<std::string> sa, sb;
    for (const auto& l : a) sa.push_back(shape_of(l));
    for (const auto& l : b) sb.push_back(shape_of(l));
    return diff_lines(sa, sb);
}

std::string unified_diff(const std::vector<std::string>& a, const std::vector<std::string>& b,
                         const std::string& label_a, const std::string& label_b, std::size_t context) {
    return format_unified(a, b, diff_lines(a, b), label_a, label_b, context);
}

std::string format_unified(const std::vector<std::string>& a, const std::vector<std::string>& b,
                           const std::vector<DiffLine>& ops, const std::string& label_a,
                           const std::string& label_b, std::size_t context) {
    std::vector<std::size_t> changes;
    for (std::size_t i = 0; i < ops.size(); ++i)
        if (ops[i].edit != Edit::Same) changes.push_back(i);
    if (changes.empty()) return "";

    std::ostringstream os;
    os << "--- " << label_a << "\n+++ " << label_b << "\n";
    // Lines of A and B before each op, for hunk headers.
    std::vector<std::size_t> a_before(ops.size() + 1, 0), b_before(ops.size() + 1, 0);
    for (std::size_t i = 0; i < ops.size(); ++i) {
        a_before[i + 1] = a_before[i] + (ops[i].edit != Edit::Added);
        b_before[i + 1] = b_before[i] + (ops[i].edit != Edit::Removed);
    }
    for (std::size_t c = 0; c < changes.size();) {
        // A hunk: changes whose gaps of unchanged lines are at most 2 * context.
        std::size_t last = c;
        while (last + 1 < changes.size() && changes[last + 1] - changes[last] <= 2 * context + 1) ++last;
        const std::size_t begin = changes[c] > context ? changes[c] - context : 0;
        const std::size_t end = std::min(ops.size(), changes[last] + context + 1);
        const std::size_t na = a_before[end] - a_before[begin], nb = b_before[end] - b_before[begin];
        os << "@@ -" << (na ? a_before[begin] + 1 : a_before[begin]) << "," << na << " +"
           << (nb ? b_before[begin] + 1 : b_before[begin]) << "," << nb << " @@\n";
        for (std::size_t i = begin; i < end; ++i) {
            const DiffLine& d = ops[i];
            if (d.edit == Edit::Same) os << " " << a[d.a] << "\n";
            else if (d.edit == Edit::Removed) os << "-" << a[d.a] << "\n";
            else os << "+" << b[d.b] << "\n";
        }
        c = last + 1;
    }
    return os.str();
}

}  // namespace tb::ptx
