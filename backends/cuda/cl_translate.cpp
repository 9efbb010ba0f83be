// OpenCL C -> CUDA C++ source translation (see cl_translate.hpp and docs/prelude.md).
//
// The prelude's macros handle most of OpenCL C; this file does the few rewrites a macro
// cannot, all without changing the line of any token:
//   - each `__local T *p` kernel parameter becomes `unsigned int p_tb_off`, and the body
//     gains `T *p = (T *)(tb_local_mem + p_tb_off);` right after its `{`;
//   - other pointers to local memory (helper-function parameters, casts, pointer variables)
//     lose the qualifier, because `__local` -> `__shared__` is only right for variables;
//   - program-scope `__constant` variables become `__constant__` (the macro gives `const`,
//     which is right for pointer parameters but not device-visible for arrays);
//   - `kernel`, `global`, `local`, `constant`, `private` get their `__` spelling (the
//     prelude must not define the short names as macros);
//   - `#pragma OPENCL ...` lines are blanked (NVRTC would warn about each).
#include "cl_translate.hpp"

#include "internal_error.hpp"
#include "printable.hpp"

#include <algorithm>
#include <cctype>
#include <cstddef>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "device.hpp"
#include "embedded.hpp"

namespace tb::cuda {
namespace {

enum class Kind { Ident, Punct, Other };

struct Token {
    Kind kind;
    std::size_t begin, end;  // byte range in the source
};

// A preprocessor directive, from its '#' up to (not including) its final newline.
struct Directive {
    std::size_t begin, end;
};

struct Lexed {
    std::vector<Token> tokens;
    std::vector<Directive> directives;
};

int line_of(const std::string& s, std::size_t pos) {
    return 1 + static_cast<int>(std::count(s.begin(), s.begin() + static_cast<std::ptrdiff_t>(pos), '\n'));
}

bool ident_start(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool ident_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// Length of a backslash-newline splice at i (0 if none).
std::size_t splice_at(const std::string& s, std::size_t i) {
    if (s[i] != '\\') return 0;
    if (i + 1 < s.size() && s[i + 1] == '\n') return 2;
    if (i + 2 < s.size() && s[i + 1] == '\r' && s[i + 2] == '\n') return 3;
    return 0;
}

// Index just past the end of the block comment starting at i ("/*").
std::size_t skip_block_comment(const std::string& s, std::size_t i) {
    std::size_t close = s.find("*/", i + 2);
    if (close == std::string::npos) throw Error("line " + std::to_string(line_of(s, i)) + ": unterminated comment");
    return close + 2;
}

// Index of the newline ending the line comment starting at i (splices continue it).
std::size_t skip_line_comment(const std::string& s, std::size_t i) {
    while (i < s.size() && s[i] != '\n') {
        std::size_t sp = splice_at(s, i);
        i += sp ? sp : 1;
    }
    return i;
}

// Index just past the string or character literal starting at i; stops at a newline when
// the literal is unterminated (the compiler reports that, not us).
std::size_t skip_literal(const std::string& s, std::size_t i) {
    const char quote = s[i++];
    while (i < s.size() && s[i] != '\n') {
        if (s[i] == '\\' && i + 1 < s.size()) { i += 2; continue; }
        if (s[i++] == quote) break;
    }
    return i;
}

// Splits the source into the tokens the rewriter looks at. Comments, literals and
// preprocessor directives are never mistaken for code.
Lexed lex(const std::string& s) {
    Lexed out;
    bool line_start = true;
    std::size_t i = 0;
    while (i < s.size()) {
        const char c = s[i];
        if (c == '\n') { line_start = true; ++i; continue; }
        if (c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f') { ++i; continue; }
        if (std::size_t sp = splice_at(s, i)) { i += sp; continue; }
        if (c == '/' && i + 1 < s.size() && s[i + 1] == '*') { i = skip_block_comment(s, i); continue; }
        if (c == '/' && i + 1 < s.size() && s[i + 1] == '/') { i = skip_line_comment(s, i); continue; }
        if (c == '#' && line_start) {
            const std::size_t begin = i;
            while (i < s.size() && s[i] != '\n') {
                if (std::size_t sp = splice_at(s, i)) { i += sp; continue; }
                if (s[i] == '/' && i + 1 < s.size() && s[i + 1] == '*') { i = skip_block_comment(s, i); continue; }
                if (s[i] == '/' && i + 1 < s.size() && s[i + 1] == '/') { i = skip_line_comment(s, i); continue; }
                if (s[i] == '"' || s[i] == '\'') { i = skip_literal(s, i); continue; }
                ++i;
            }
            out.directives.push_back({begin, i});
            line_start = false;
            continue;
        }
        line_start = false;
        const std::size_t begin = i;
        if (c == '"' || c == '\'') {
            i = skip_literal(s, i);
            out.tokens.push_back({Kind::Other, begin, i});
        } else if (ident_start(c)) {
            while (i < s.size() && ident_char(s[i])) ++i;
            out.tokens.push_back({Kind::Ident, begin, i});
        } else if (std::isdigit(static_cast<unsigned char>(c)) ||
                   (c == '.' && i + 1 < s.size() && std::isdigit(static_cast<unsigned char>(s[i + 1])))) {
            // A preprocessing number: digits, letters, '.', and a sign after an exponent.
            while (i < s.size()) {
                const char d = s[i];
                if ((d == '+' || d == '-') && std::string_view("eEpP").find(s[i - 1]) != std::string_view::npos) { ++i; continue; }
                if (!ident_char(d) && d != '.') break;
                ++i;
            }
            out.tokens.push_back({Kind::Other, begin, i});
        } else {
            out.tokens.push_back({Kind::Punct, begin, i + 1});
            ++i;
        }
    }
    return out;
}

struct Edit {
    std::size_t pos, len;
    std::string text;
    bool weak = false;  // dropped when a stronger edit already covers its position
};

bool is_local_kw(std::string_view w) { return w == "__local" || w == "local"; }
bool is_restrict_kw(std::string_view w) { return w == "restrict" || w == "__restrict" || w == "__restrict__"; }
bool is_cv_kw(std::string_view w) { return w == "const" || w == "volatile"; }
bool is_other_space_kw(std::string_view w) {
    return w == "__global" || w == "global" || w == "__constant" || w == "constant" || w == "__private" || w == "private";
}

class Rewriter {
public:
    explicit Rewriter(const std::string& src) : s_(src), lexed_(lex(src)), t_(lexed_.tokens) {}

    Translation run() {
        blank_opencl_pragmas();
        rename_lowercase_qualifiers();
        int paren = 0, brace = 0;
        std::size_t i = 0;
        while (i < t_.size()) {
            const std::string_view w = text(i);
            if (t_[i].kind == Kind::Ident && (w == "__kernel" || w == "kernel")) {
                i = rewrite_kernel(i);  // resumes at the body's '{'
                continue;
            }
            if (t_[i].kind == Kind::Ident && is_local_kw(w)) {
                // `__local` -> `__shared__` is right for a variable only; in a pointer type
                // (or any parenthesised context: parameters, casts) the pointer is generic.
                if (paren > 0 || next_after_idents_is_star(i)) blank(i);
            } else if (t_[i].kind == Kind::Ident && (w == "__constant" || w == "constant") && paren == 0 &&
                       brace == 0 && !next_after_idents_is_star(i)) {
                edits_.push_back({t_[i].begin, t_[i].end - t_[i].begin, "__constant__"});
            } else if (t_[i].kind == Kind::Punct) {
                const char c = s_[t_[i].begin];
                paren += c == '(' ? 1 : c == ')' ? -1 : 0;
                brace += c == '{' ? 1 : c == '}' ? -1 : 0;
            }
            ++i;
        }
        out_.text = apply_edits();
        if (std::count(out_.text.begin(), out_.text.end(), '\n') != std::count(s_.begin(), s_.end(), '\n'))
            throw InternalError("cl_translate: the rewrite changed the number of lines");
        return std::move(out_);
    }

private:
    std::string_view text(std::size_t i) const {
        if (i >= t_.size()) return {};
        return std::string_view(s_).substr(t_[i].begin, t_[i].end - t_[i].begin);
    }
    bool is_punct(std::size_t i, char c) const {
        return i < t_.size() && t_[i].kind == Kind::Punct && s_[t_[i].begin] == c;
    }
    bool is_ident(std::size_t i) const { return i < t_.size() && t_[i].kind == Kind::Ident; }
    int line(std::size_t i) const { return line_of(s_, i < t_.size() ? t_[i].begin : s_.size()); }

    // Index of the ')' closing the '(' at i, or npos.
    std::size_t matching_paren(std::size_t i) const {
        int depth = 0;
        for (std::size_t k = i; k < t_.size(); ++k) {
            if (is_punct(k, '(')) ++depth;
            if (is_punct(k, ')') && --depth == 0) return k;
        }
        return std::string::npos;
    }

    // Skips any `__attribute__((...))` or `TB_LAUNCH_BOUNDS(...)` (prelude.cuh) starting at i.
    std::size_t skip_attributes(std::size_t i) const {
        while ((text(i) == "__attribute__" || text(i) == "TB_LAUNCH_BOUNDS") && is_punct(i + 1, '(')) {
            const std::size_t close = matching_paren(i + 1);
            if (close == std::string::npos) return t_.size();
            i = close + 1;
        }
        return i;
    }

    bool next_after_idents_is_star(std::size_t i) const {
        std::size_t k = i + 1;
        while (is_ident(k)) ++k;
        return is_punct(k, '*');
    }

    void blank(std::size_t i) {
        edits_.push_back({t_[i].begin, t_[i].end - t_[i].begin, std::string(t_[i].end - t_[i].begin, ' ')});
    }

    // `kernel`, `global`, `local`, `constant`, `private` -> their `__` spellings. The prelude
    // cannot define the short ones as macros: NVRTC's own `__global__` and `__constant__`
    // expand to `__location__(global)` and `__location__(constant)`, which such macros would
    // break. Weak, so a rewrite of the whole token or parameter wins.
    void rename_lowercase_qualifiers() {
        for (std::size_t i = 0; i < t_.size(); ++i) {
            const std::string_view w = text(i);
            if (t_[i].kind == Kind::Ident &&
                (w == "kernel" || w == "global" || w == "local" || w == "constant" || w == "private"))
                edits_.push_back({t_[i].begin, w.size(), "__" + std::string(w), true});
        }
    }

    void blank_opencl_pragmas() {
        for (const Directive& d : lexed_.directives) {
            std::string_view dir = std::string_view(s_).substr(d.begin, d.end - d.begin);
            std::size_t k = 1;  // past '#'
            auto skip_space = [&] { while (k < dir.size() && (dir[k] == ' ' || dir[k] == '\t')) ++k; };
            skip_space();
            if (dir.substr(k, 6) != "pragma" || (k + 6 < dir.size() && ident_char(dir[k + 6]))) continue;
            k += 6;
            skip_space();
            if (dir.substr(k, 6) != "OPENCL" || (k + 6 < dir.size() && ident_char(dir[k + 6]))) continue;
            // Keep only the newlines of spliced lines, so every later line stays put.
            const auto newlines = static_cast<std::size_t>(std::count(dir.begin(), dir.end(), '\n'));
            edits_.push_back({d.begin, dir.size(), std::string(newlines, '\n')});
        }
    }

    [[noreturn]] void fail_kernel(const std::string& kernel, std::size_t at, const std::string& what) const {
        const std::string who = kernel.empty() ? "'__kernel'" : "kernel '" + printable(kernel) + "'";
        throw Error("cl_translate: " + who + " (line " + std::to_string(line(at)) + "): " + what);
    }
    [[noreturn]] void fail_param(const std::string& kernel, const std::string& param, std::size_t at,
                                 const std::string& what) const {
        throw Error("cl_translate: kernel '" + printable(kernel) + "' parameter '" + printable(param) + "' (line " +
                    std::to_string(line(at)) + "): " + what);
    }

    // Parses `__kernel [attrs] void [attrs] name(params) [attrs] {`, rewrites its __local
    // parameters and records its signature. Returns the index of the body's '{'.
    std::size_t rewrite_kernel(std::size_t kw) {
        std::size_t j = skip_attributes(kw + 1);
        if (text(j) != "void")
            fail_kernel("", kw, "expected 'void <name>(' after '" + printable(text(kw)) +
                                     "' (kernel signatures generated by macros are not supported)");
        j = skip_attributes(j + 1);
        if (!is_ident(j) || !is_punct(j + 1, '('))
            fail_kernel("", kw, "expected '<name>(' after '" + printable(text(kw)) + " void'");
        KernelSignature sig;
        sig.name = std::string(text(j));
        const std::size_t open = j + 1;
        const std::size_t close = matching_paren(open);
        if (close == std::string::npos) fail_kernel(sig.name, open, "parameter list is not closed");
        const std::size_t body = skip_attributes(close + 1);
        if (!is_punct(body, '{'))
            fail_kernel(sig.name, close, "no '{' after the parameter list (kernel declarations without a body are not supported)");

        const auto params = split_params(sig.name, open, close);
        sig.param_count = static_cast<int>(params.size());
        std::string decls;
        for (std::size_t p = 0; p < params.size(); ++p) {
            if (rewrite_local_param(sig.name, static_cast<int>(p), params[p].first, params[p].second, decls))
                sig.local_params.push_back(static_cast<int>(p));
        }
        if (!decls.empty()) edits_.push_back({t_[body].end, 0, decls});
        out_.kernels.push_back(std::move(sig));
        return body;
    }

    // Token ranges [first, last) of the parameters between the parentheses at open/close.
    std::vector<std::pair<std::size_t, std::size_t>> split_params(const std::string& kernel, std::size_t open,
                                                                  std::size_t close) const {
        std::vector<std::pair<std::size_t, std::size_t>> out;
        if (close == open + 1) return out;                                   // f()
        if (close == open + 2 && text(open + 1) == "void") return out;      // f(void)
        int depth = 0;
        std::size_t first = open + 1;
        for (std::size_t k = open + 1; k <= close; ++k) {
            if (k < close && t_[k].kind == Kind::Punct) {
                const char c = s_[t_[k].begin];
                if (c == '(' || c == '[' || c == '{') ++depth;
                if (c == ')' || c == ']' || c == '}') --depth;
            }
            if (k == close || (depth == 0 && is_punct(k, ','))) {
                if (k == first) fail_kernel(kernel, k, "empty parameter in the parameter list");
                out.emplace_back(first, k);
                first = k + 1;
            }
        }
        return out;
    }

    // If parameter [b, e) is a __local pointer, replaces it by `unsigned int <name>_tb_off`
    // (keeping its newlines) and appends its pointer declaration to `decls`.
    bool rewrite_local_param(const std::string& kernel, int index, std::size_t b, std::size_t e, std::string& decls) {
        bool local = false;
        for (std::size_t k = b; k < e; ++k) local = local || (is_ident(k) && is_local_kw(text(k)));
        if (!local) return false;

        auto is_keyword = [&](std::size_t k) {
            return is_local_kw(text(k)) || is_cv_kw(text(k)) || is_restrict_kw(text(k));
        };
        // For messages: the last identifier before any '[' or '(' (the declarator's name).
        std::string name = "#" + std::to_string(index + 1);
        for (std::size_t k = b; k < e && !is_punct(k, '[') && !is_punct(k, '('); ++k)
            if (k > b && is_ident(k) && !is_keyword(k)) name = std::string(text(k));

        std::vector<std::size_t> stars;
        for (std::size_t k = b; k < e; ++k) {
            if (is_punct(k, '[') || is_punct(k, '('))
                fail_param(kernel, name, k, "declare __local parameters as pointers ('__local T *" + name + "')");
            if (is_punct(k, '*')) stars.push_back(k);
        }
        if (!is_ident(e - 1) || is_keyword(e - 1) || e - 1 == b)
            fail_param(kernel, "#" + std::to_string(index + 1), b, "a __local parameter needs a name");
        if (stars.empty()) fail_param(kernel, name, b, "a __local parameter that is not a pointer is not supported");
        if (stars.size() > 1) fail_param(kernel, name, b, "a __local pointer to pointer is not supported");

        // Element type: everything before '*' but the address space and restrict.
        std::string type;
        for (std::size_t k = b; k < stars[0]; ++k) {
            const std::string_view w = text(k);
            if (!is_ident(k)) fail_param(kernel, name, k, "cannot parse the element type near '" + printable(w) + "'");
            if (is_other_space_kw(w)) fail_param(kernel, name, k, "conflicting address space '" + printable(w) + "'");
            if (is_local_kw(w) || is_restrict_kw(w)) continue;
            type += (type.empty() ? "" : " ") + std::string(w);
        }
        if (type.empty() || type == "const" || type == "volatile" || type == "const volatile" || type == "volatile const")
            fail_param(kernel, name, b, "the __local pointer has no element type");

        // Qualifiers of the pointer itself: const/volatile kept, restrict dropped.
        std::string pointer_quals;
        for (std::size_t k = stars[0] + 1; k < e - 1; ++k) {
            const std::string_view w = text(k);
            if (is_cv_kw(w)) pointer_quals += std::string(w) + " ";
            else if (!is_restrict_kw(w) && !is_local_kw(w))
                fail_param(kernel, name, k, "cannot parse '" + printable(w) + "' after '*'");
        }

        // The parameter's text is replaced whole: a directive inside it would be lost (or,
        // an #if, both its branches taken as the type).
        const std::size_t from = t_[b].begin, to = t_[e - 1].end;
        for (const Directive& d : lexed_.directives)
            if (d.begin >= from && d.begin < to)
                fail_param(kernel, name, b, "a preprocessor directive inside a __local parameter is not supported");
        const auto newlines = static_cast<std::size_t>(std::count(s_.begin() + static_cast<std::ptrdiff_t>(from),
                                                                  s_.begin() + static_cast<std::ptrdiff_t>(to), '\n'));
        const std::string offset = name + "_tb_off";
        edits_.push_back({from, to - from, "unsigned int " + offset + std::string(newlines, '\n')});
        decls += " " + type + " *" + pointer_quals + name + " = (" + type + " *)(tb_local_mem + " + offset + ");";
        return true;
    }

    std::string apply_edits() {
        // At one position: insertions first, then strong edits, then weak ones.
        std::stable_sort(edits_.begin(), edits_.end(), [](const Edit& a, const Edit& b) {
            if (a.pos != b.pos) return a.pos < b.pos;
            if ((a.len == 0) != (b.len == 0)) return a.len == 0;
            return !a.weak && b.weak;
        });
        std::string out;
        out.reserve(s_.size() + 256);
        std::size_t at = 0;
        for (const Edit& e : edits_) {
            if (e.pos < at && e.weak) continue;
            if (e.pos < at) throw InternalError("cl_translate: overlapping rewrites");
            out.append(s_, at, e.pos - at);
            out += e.text;
            at = e.pos + e.len;
        }
        out.append(s_, at, std::string::npos);
        return out;
    }

    const std::string& s_;
    Lexed lexed_;
    const std::vector<Token>& t_;
    std::vector<Edit> edits_;
    Translation out_;
};

// A file name as a string literal for #line.
std::string quoted(const std::string& s) {
    std::string q = "\"";
    for (char c : s) {
        if (c == '"' || c == '\\') q += '\\';
        if (c == '\n') { q += "\\n"; continue; }
        q += c;
    }
    return q + "\"";
}

}  // namespace

Translation rewrite_local_params(const std::string& cl_source) { return Rewriter(cl_source).run(); }

Translation translate_opencl(const std::string& cl_source, const std::string& file_name) {
    Translation t;
    try {
        t = rewrite_local_params(cl_source);
    } catch (const Error& e) {
        throw Error(file_name + ": " + e.what());
    }
    t.text = embedded_file("backends/cuda/prelude.cuh") + "\n#line 1 " + quoted(file_name) + "\n" + t.text;
    return t;
}

}  // namespace tb::cuda
