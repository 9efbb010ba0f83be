#include "ptx/ptx_analysis.hpp"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <set>
#include <sstream>
#include <unordered_map>

namespace tb::ptx {

namespace {

bool is_ident_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '$'; }
bool is_space(char c) { return std::isspace(static_cast<unsigned char>(c)) != 0; }

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

const std::set<std::string>& virtual_register_prefixes() {
    // What NVVM names its virtual registers (%rl: 64-bit in older toolkits).
    static const std::set<std::string> p = {"r", "rd", "rs", "rq", "rl", "f", "fd", "h", "hh", "p"};
    return p;
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

std::vector<std::string> split(const std::string& s, char sep) {
    std::vector<std::string> out;
    std::size_t b = 0;
    for (;;) {
        const std::size_t e = s.find(sep, b);
        out.push_back(s.substr(b, e == std::string::npos ? std::string::npos : e - b));
        if (e == std::string::npos) return out;
        b = e + 1;
    }
}

bool has(const std::vector<std::string>& v, const std::string& x) { return std::find(v.begin(), v.end(), x) != v.end(); }

const std::string* first_of(const std::vector<std::string>& mods, const std::set<std::string>& wanted) {
    for (const auto& m : mods)
        if (wanted.count(m)) return &m;
    return nullptr;
}

bool is_int_type(const std::string& t) {
    static const std::set<std::string> ints = {"s8", "s16", "s32", "s64", "u8", "u16", "u32", "u64",
                                               "b8", "b16", "b32", "b64"};
    return ints.count(t) > 0;
}

// "fp32" for f32, "fp64", "fp16" (f16, f16x2), "bf16" (bf16, bf16x2); "" when not a float type.
std::string float_family(const std::string& t) {
    if (t == "f32") return "fp32";
    if (t == "f64") return "fp64";
    if (t == "f16" || t == "f16x2") return "fp16";
    if (t == "bf16" || t == "bf16x2") return "bf16";
    return "";
}

// ld/st/ldu: load.<space>[.nc][.vN]; shared::cta and shared::cluster count as shared.
std::string memory_class(const std::string& kind, const std::vector<std::string>& mods) {
    std::string space = "generic";
    for (const auto& m : mods) {
        const std::string base = m.substr(0, m.find("::"));
        if (base == "global" || base == "shared" || base == "local" || base == "const" || base == "param") {
            space = base;
            break;
        }
    }
    std::string c = kind + "." + space;
    if (has(mods, "nc")) c += ".nc";
    if (const std::string* v = first_of(mods, {"v2", "v4", "v8"})) c += "." + *v;
    return c;
}

std::string atomic_class(const std::string& kind, const std::vector<std::string>& mods) {
    std::string space = "generic";
    if (const std::string* s = first_of(mods, {"global", "shared", "shared::cta", "shared::cluster"}))
        space = s->substr(0, s->find("::"));
    std::string c = kind + "." + space;
    if (const std::string* op = first_of(mods, {"add", "inc", "dec", "min", "max", "and", "or", "xor", "exch", "cas"}))
        c += "." + *op;
    return c;
}

std::string fp_class(const std::string& family, std::string op, const std::vector<std::string>& mods) {
    if (op == "sub") op = "add";
    if (op == "mad") op = "fma";
    std::string c = family + "." + op;
    if (const std::string* r = first_of(mods, {"rn", "rz", "rm", "rp"})) c += "." + *r;
    if (const std::string* a = first_of(mods, {"approx", "full"})) c += "." + *a;
    if (has(mods, "ftz")) c += ".ftz";
    return c;
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

bool is_instruction(const std::string& line) {
    if (line.empty() || line.back() != ';') return false;
    return line[0] != '.' && line[0] != '{' && line[0] != '}';
}

std::string opcode_of(const std::string& instruction) {
    std::size_t i = 0;
    while (i < instruction.size() && is_space(instruction[i])) ++i;
    if (i < instruction.size() && instruction[i] == '@') {  // guard predicate
        while (i < instruction.size() && !is_space(instruction[i])) ++i;
        while (i < instruction.size() && is_space(instruction[i])) ++i;
    }
    std::size_t j = i;
    while (j < instruction.size() && !is_space(instruction[j]) && instruction[j] != ';') ++j;
    return instruction.substr(i, j - i);
}

std::string classify(const std::string& opcode) {
    const std::vector<std::string> parts = split(opcode, '.');
    const std::string& base = parts[0];
    const std::vector<std::string> mods(parts.begin() + 1, parts.end());
    const std::string type = mods.empty() ? "" : mods.back();

    if (base == "ld" || base == "ldu") return memory_class("load", mods) + (base == "ldu" ? ".uniform" : "");
    if (base == "st") return memory_class("store", mods);
    if (base == "atom") return atomic_class("atomic", mods);
    if (base == "red") return atomic_class("reduction", mods);
    if (base == "cp" && has(mods, "async")) return "cp.async";
    if (base == "bar" || base == "barrier") return has(mods, "warp") ? "barrier.warp" : "barrier.cta";
    if (base == "membar" || base == "fence") return opcode;
    if (base == "bra") return has(mods, "uni") ? "branch.uni" : "branch";
    if (base == "brx") return "branch.indirect";
    if (base == "call") return "call";
    if (base == "ret" || base == "exit") return "return";
    if (base == "shfl") {
        if (const std::string* m = first_of(mods, {"up", "down", "bfly", "idx"})) return "shuffle." + *m;
        return "shuffle";
    }
    if (base == "vote") return "vote";
    if (base == "match") return "match";
    if (base == "redux") return "warp.redux";
    if (base == "cvta") return "cvta";
    if (base == "cvt" && mods.size() >= 2) {
        // The last two modifiers are the destination and source types; rounding, ftz and
        // sat stay in the opcode histogram.
        return "cvt." + mods[mods.size() - 2] + "." + mods.back();
    }
    if ((base == "div" || base == "rem") && is_int_type(type)) return "int." + base + "." + type;
    if ((base == "mul" || base == "mad" || base == "mul24" || base == "mad24") && is_int_type(type)) {
        std::string c = "int." + base;
        if (has(mods, "wide")) c += ".wide";
        if (has(mods, "hi")) c += ".hi";
        return c + "." + type;
    }
    static const std::set<std::string> fp_ops = {"add", "sub", "mul", "fma", "mad", "div", "rcp", "sqrt",
                                                 "rsqrt", "ex2", "lg2", "sin", "cos", "tanh"};
    if (const std::string family = float_family(type); !family.empty()) {
        if (fp_ops.count(base)) return fp_class(family, base, mods);
        const std::string ftz = has(mods, "ftz") ? ".ftz" : "";
        if (base == "setp" || base == "set") return family + ".compare" + ftz;
        if (base == "min" || base == "max") return family + ".minmax" + ftz;
        if (base == "abs" || base == "neg" || base == "copysign") return family + ".sign" + ftz;
    }
    if (is_int_type(type)) {
        static const std::set<std::string> bits = {"and", "or", "xor", "not", "cnot", "shl", "shr", "shf", "lop3",
                                                   "bfe", "bfi", "bfind", "brev", "clz", "popc", "prmt"};
        if (base == "add" || base == "sub" || base == "neg" || base == "abs") return "int.add";
        if (base == "setp" || base == "set") return "int.compare";
        if (base == "min" || base == "max") return "int.minmax";
        if (bits.count(base)) return "int.bits";
    }
    if (type == "pred" && (base == "and" || base == "or" || base == "xor" || base == "not")) return "predicate";
    if (base == "mov") return "move";
    if (base == "selp" || base == "slct") return "select";
    return "other";
}

Histogram histogram(const std::vector<std::string>& lines) {
    Histogram h;
    for (const auto& l : lines) {
        if (!is_instruction(l)) continue;
        const std::string op = opcode_of(l);
        if (op.empty()) continue;
        ++h.instructions;
        ++h.opcodes[op];
        ++h.classes[classify(op)];
    }
    return h;
}

std::vector<CountDelta> largest_differences(const std::map<std::string, int>& a,
                                            const std::map<std::string, int>& b, std::size_t top) {
    std::map<std::string, CountDelta> all;
    for (const auto& [k, n] : a) all[k].a = n;
    for (const auto& [k, n] : b) all[k].b = n;
    std::vector<CountDelta> out;
    for (auto& [k, d] : all) {
        d.key = k;
        if (d.delta() != 0) out.push_back(d);
    }
    std::stable_sort(out.begin(), out.end(), [](const CountDelta& x, const CountDelta& y) {
        return std::abs(x.delta()) > std::abs(y.delta());
    });
    if (top && out.size() > top) out.resize(top);
    return out;
}

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
