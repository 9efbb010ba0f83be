// Normalising PTX: a module split into its functions, one statement per line, registers
// and labels renumbered by first appearance (rules in ptx_analysis.hpp, docs/ptx-tools.md).
#include "ptx/ptx_analysis.hpp"

#include <algorithm>
#include <cctype>
#include <set>
#include <sstream>
#include <unordered_map>

#include "ptx/ptx_lexing.hpp"

namespace tb::ptx {

const std::set<std::string>& virtual_register_prefixes() {
    // What NVVM names its virtual registers (%rl: 64-bit in older toolkits).
    static const std::set<std::string> p = {"r", "rd", "rs", "rq", "rl", "f", "fd", "h", "hh", "p"};
    return p;
}

namespace {

std::string trim(const std::string& s) {
    std::size_t b = 0, e = s.size();
    while (b < e && is_space(s[b])) ++b;
    while (e > b && is_space(s[e - 1])) --e;
    return s.substr(b, e - b);
}

bool starts_with(const std::string& s, const std::string& p) { return s.rfind(p, 0) == 0; }

// Comments become nothing (newlines stay, so line structure is kept); strings are copied
// as they are, so a "//" inside one is not a comment.
std::string strip_comments(const std::string& in) {
    std::string out;
    out.reserve(in.size());
    for (std::size_t i = 0; i < in.size(); ++i) {
        const char c = in[i];
        if (c == '"') {
            const std::size_t end = in.find('"', i + 1);
            const std::size_t stop = end == std::string::npos ? in.size() : end + 1;
            out.append(in, i, stop - i);
            i = stop - 1;
        } else if (c == '/' && i + 1 < in.size() && in[i + 1] == '/') {
            while (i < in.size() && in[i] != '\n') ++i;
            if (i < in.size()) out += '\n';
        } else if (c == '/' && i + 1 < in.size() && in[i + 1] == '*') {
            const std::size_t end = in.find("*/", i + 2);
            const std::size_t stop = end == std::string::npos ? in.size() : end + 2;
            out.append(std::size_t(std::count(in.begin() + long(i), in.begin() + long(stop), '\n')), '\n');
            i = stop - 1;
        } else {
            out += c;
        }
    }
    return out;
}

// Debug-line directives carry no `;`: they are dropped by line before statements are cut.
std::string drop_debug_lines(const std::string& in) {
    std::istringstream is(in);
    std::string line, out;
    while (std::getline(is, line)) {
        const std::string t = trim(line);
        if (starts_with(t, ".loc") && (t.size() == 4 || is_space(t[4]))) continue;
        if (starts_with(t, ".file") && (t.size() == 5 || is_space(t[5]))) continue;
        out += line;
        out += '\n';
    }
    return out;
}

// Whitespace runs become one space; none just inside brackets or before , and ;; one after
// a comma. Quoted strings are left alone.
std::string collapse_whitespace(const std::string& s) {
    std::string out;
    bool pending_space = false;
    for (std::size_t i = 0; i < s.size(); ++i) {
        const char c = s[i];
        if (is_space(c)) {
            pending_space = !out.empty();
            continue;
        }
        const bool closing = c == ')' || c == ']' || c == '}' || c == ',' || c == ';';
        const bool after_opening = !out.empty() && (out.back() == '(' || out.back() == '[' || out.back() == '{');
        if (pending_space && !closing && !after_opening) out += ' ';
        pending_space = false;
        if (c == '"') {
            const std::size_t end = s.find('"', i + 1);
            const std::size_t stop = end == std::string::npos ? s.size() : end + 1;
            out.append(s, i, stop - i);
            i = stop - 1;
            continue;
        }
        out += c;
        if (c == ',') pending_space = true;
    }
    return out;
}

bool is_plain_identifier(const std::string& s) {
    if (s.empty()) return false;
    return std::all_of(s.begin(), s.end(), is_ident_char);
}

// Cuts a function body into statements: up to each `;`, a label `name:`, or a lone brace.
std::vector<std::string> statements(const std::string& body) {
    std::vector<std::string> out;
    std::string cur;
    auto emit = [&](const std::string& s) {
        const std::string t = collapse_whitespace(trim(s));
        if (!t.empty()) out.push_back(t);
    };
    for (std::size_t i = 0; i < body.size(); ++i) {
        const char c = body[i];
        if (c == '"') {
            const std::size_t end = body.find('"', i + 1);
            const std::size_t stop = end == std::string::npos ? body.size() : end + 1;
            cur.append(body, i, stop - i);
            i = stop - 1;
        } else if ((c == '{' || c == '}') && trim(cur).empty()) {
            cur.clear();
            out.emplace_back(1, c);
        } else if (c == ';') {
            cur += c;
            emit(cur);
            cur.clear();
        } else if (c == ':' && (i + 1 >= body.size() || body[i + 1] != ':') && (i == 0 || body[i - 1] != ':') &&
                   is_plain_identifier(trim(cur))) {
            emit(trim(cur) + ":");
            cur.clear();
        } else {
            cur += c;
        }
    }
    emit(cur);
    return out;
}

// Renames per function: registers per prefix and labels, both by first appearance.
class Renamer {
public:
    std::string apply(const std::string& line) {
        std::string out;
        for (std::size_t i = 0; i < line.size();) {
            const char c = line[i];
            const bool boundary = i == 0 || !is_ident_char(line[i - 1]);
            if (c == '"') {
                const std::size_t end = line.find('"', i + 1);
                const std::size_t stop = end == std::string::npos ? line.size() : end + 1;
                out.append(line, i, stop - i);
                i = stop;
            } else if (c == '%') {
                i = take_register(line, i, out);
            } else if (boundary && line.compare(i, 4, "$L__") == 0) {
                std::size_t j = i + 4;
                while (j < line.size() && is_ident_char(line[j])) ++j;
                out += label(line.substr(i, j - i));
                i = j;
            } else if (boundary && is_old_style_label(line, i)) {
                std::size_t j = i;
                while (j < line.size() && is_ident_char(line[j])) ++j;
                out += label(line.substr(i, j - i));
                i = j;
            } else if (boundary && line.compare(i, 13, "__local_depot") == 0) {
                std::size_t j = i + 13;
                while (j < line.size() && std::isdigit(static_cast<unsigned char>(line[j]))) ++j;
                out += "__local_depot";
                i = j;
            } else {
                out += c;
                ++i;
            }
        }
        return out;
    }

private:
    std::map<std::string, std::map<std::string, int>> regs_;  // prefix -> original -> new
    std::map<std::string, int> labels_;

    // %r12 -> %r<n>; %r<30> (a .reg declaration) -> %r<N>; anything else is copied: the
    // prefix here, the rest by the caller.
    std::size_t take_register(const std::string& line, std::size_t i, std::string& out) {
        auto digits_from = [&](std::size_t p) {
            while (p < line.size() && std::isdigit(static_cast<unsigned char>(line[p]))) ++p;
            return p;
        };
        std::size_t j = i + 1;
        while (j < line.size() && std::isalpha(static_cast<unsigned char>(line[j]))) ++j;
        const std::string prefix = line.substr(i + 1, j - i - 1);
        if (!prefix.empty() && j < line.size() && line[j] == '<') {
            const std::size_t m = digits_from(j + 1);
            if (m > j + 1 && m < line.size() && line[m] == '>') {
                out += "%" + prefix + "<N>";
                return m + 1;
            }
        }
        const std::size_t k = digits_from(j);
        const bool numbered = k > j && (k == line.size() || !is_ident_char(line[k]));
        if (numbered && virtual_register_prefixes().count(prefix)) {
            auto& m = regs_[prefix];
            auto it = m.find(line.substr(j, k - j));
            if (it == m.end()) it = m.emplace(line.substr(j, k - j), int(m.size()) + 1).first;
            out += "%" + prefix + std::to_string(it->second);
            return k;
        }
        out.append(line, i, j - i);
        return j;
    }

    static bool is_old_style_label(const std::string& line, std::size_t i) {
        // BB0_3 (NVVM before CUDA 11.3 wrote labels without the $L__ prefix).
        if (line.compare(i, 2, "BB") != 0) return false;
        std::size_t j = i + 2, d = j;
        while (j < line.size() && std::isdigit(static_cast<unsigned char>(line[j]))) ++j;
        if (j == d || j >= line.size() || line[j] != '_') return false;
        std::size_t k = ++j;
        while (k < line.size() && std::isdigit(static_cast<unsigned char>(line[k]))) ++k;
        return k > j && (k == line.size() || !is_ident_char(line[k]));
    }

    std::string label(const std::string& orig) {
        auto it = labels_.find(orig);
        if (it == labels_.end()) it = labels_.emplace(orig, int(labels_.size()) + 1).first;
        return "L" + std::to_string(it->second);
    }
};

// Position just after the brace matching the one at `open`, skipping strings.
std::size_t matching_brace(const std::string& s, std::size_t open) {
    int depth = 0;
    for (std::size_t i = open; i < s.size(); ++i) {
        if (s[i] == '"') {
            const std::size_t end = s.find('"', i + 1);
            if (end == std::string::npos) return s.size();
            i = end;
        } else if (s[i] == '{') {
            ++depth;
        } else if (s[i] == '}' && --depth == 0) {
            return i + 1;
        }
    }
    return s.size();
}

bool word_at(const std::string& s, std::size_t i, const std::string& w) {
    if (s.compare(i, w.size(), w) != 0) return false;
    const std::size_t e = i + w.size();
    return e == s.size() || !is_ident_char(s[e]);
}

std::string read_identifier(const std::string& s, std::size_t& i) {
    while (i < s.size() && is_space(s[i])) ++i;
    std::size_t b = i;
    while (i < s.size() && (is_ident_char(s[i]) || s[i] == '.')) ++i;
    return s.substr(b, i - b);
}

// The function name after `.entry` or `.func` (skipping `.func`'s return parameters).
std::string function_name(const std::string& s, std::size_t after_keyword) {
    std::size_t i = after_keyword;
    while (i < s.size() && is_space(s[i])) ++i;
    if (i < s.size() && s[i] == '(') {
        const std::size_t close = s.find(')', i);
        i = close == std::string::npos ? s.size() : close + 1;
    }
    return read_identifier(s, i);
}

std::vector<std::string> header_lines(const std::string& header) {
    std::vector<std::string> out;
    std::istringstream is(header);
    std::string line;
    while (std::getline(is, line)) {
        const std::string t = collapse_whitespace(trim(line));
        if (!t.empty()) out.push_back(t);
    }
    return out;
}

}  // namespace

std::vector<Function> parse_functions(const std::string& ptx) {
    const std::string text = drop_debug_lines(strip_comments(ptx));
    std::vector<Function> out;
    std::size_t i = 0;
    while (i < text.size()) {
        const char c = text[i];
        if (c == '"') {
            const std::size_t end = text.find('"', i + 1);
            i = end == std::string::npos ? text.size() : end + 1;
            continue;
        }
        if (c == '{') {  // a module-scope block (.section, an initializer): not a function
            i = matching_brace(text, i);
            continue;
        }
        const bool boundary = i == 0 || !is_ident_char(text[i - 1]);
        const bool entry = boundary && word_at(text, i, ".entry");
        const bool func = boundary && !entry && word_at(text, i, ".func");
        if (!entry && !func) {
            ++i;
            continue;
        }
        // The header starts at its line (to keep .visible/.weak) and ends at `{` or `;`.
        const std::size_t line_start = text.rfind('\n', i) == std::string::npos ? 0 : text.rfind('\n', i) + 1;
        std::size_t j = i;
        int parens = 0;
        while (j < text.size() && !(parens == 0 && (text[j] == '{' || text[j] == ';'))) {
            if (text[j] == '(') ++parens;
            if (text[j] == ')') --parens;
            ++j;
        }
        if (j >= text.size() || text[j] == ';') {  // a prototype: no body
            i = j + 1;
            continue;
        }
        Function f;
        f.entry = entry;
        f.name = function_name(text, i + (entry ? 6 : 5));
        const std::size_t body_end = matching_brace(text, j);
        Renamer rename;
        for (const auto& h : header_lines(text.substr(line_start, j - line_start))) f.lines.push_back(rename.apply(h));
        f.lines.emplace_back("{");
        const std::size_t inner_end = body_end > j + 1 ? body_end - 1 : j + 1;
        for (const auto& s : statements(text.substr(j + 1, inner_end - j - 1))) f.lines.push_back(rename.apply(s));
        f.lines.emplace_back("}");
        out.push_back(std::move(f));
        i = body_end;
    }
    return out;
}

std::string ptx_target(const std::string& ptx) {
    const std::string text = strip_comments(ptx);
    std::size_t i = 0;
    while ((i = text.find(".target", i)) != std::string::npos) {
        if (word_at(text, i, ".target") && (i == 0 || !is_ident_char(text[i - 1]))) {
            std::size_t j = i + 7;
            std::string t = read_identifier(text, j);
            return t;
        }
        i += 7;
    }
    return "";
}

}  // namespace tb::ptx
