#include "cl_launch_bounds.hpp"

#include <cctype>
#include <regex>

#include "cl_info.hpp"

namespace tb::cl {
namespace {

bool ident_start(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool ident_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

int line_at(const std::string& s, std::size_t i) {
    int line = 1;
    for (std::size_t k = 0; k < i && k < s.size(); ++k) line += s[k] == '\n';
    return line;
}

// The source with comments, string and character literals and preprocessor lines blanked
// (newlines kept): a scan of it sees only code, at the source's own offsets.
std::string code_only(const std::string& s) {
    std::string out = s;
    std::size_t i = 0;
    bool line_start = true;
    while (i < s.size()) {
        const char c = s[i];
        if (c == '\n') {
            line_start = true;
            ++i;
        } else if (line_start && (c == ' ' || c == '\t')) {
            ++i;
        } else if (line_start && c == '#') {  // to the end of the line, across splices
            while (i < s.size() && s[i] != '\n') {
                const bool splice = s[i] == '\\' && i + 1 < s.size() && s[i + 1] == '\n';
                out[i] = ' ';
                i += splice ? 2 : 1;
            }
        } else if (c == '/' && i + 1 < s.size() && s[i + 1] == '/') {
            line_start = false;
            while (i < s.size() && s[i] != '\n') out[i++] = ' ';
        } else if (c == '/' && i + 1 < s.size() && s[i + 1] == '*') {
            line_start = false;
            const std::size_t close = s.find("*/", i + 2);
            const std::size_t end = close == std::string::npos ? s.size() : close + 2;
            for (; i < end; ++i)
                if (s[i] != '\n') out[i] = ' ';
        } else if (c == '"' || c == '\'') {
            line_start = false;
            out[i++] = ' ';
            while (i < s.size() && s[i] != c && s[i] != '\n') {
                if (s[i] == '\\' && i + 1 < s.size()) out[i++] = ' ';
                out[i++] = ' ';
            }
            if (i < s.size() && s[i] == c) out[i++] = ' ';
        } else {
            line_start = false;
            ++i;
        }
    }
    return out;
}

std::size_t skip_space(const std::string& c, std::size_t i) {
    while (i < c.size() && std::isspace(static_cast<unsigned char>(c[i]))) ++i;
    return i;
}

// Index of the ')' closing the '(' at `open`, or npos.
std::size_t matching_paren(const std::string& c, std::size_t open) {
    int depth = 0;
    for (std::size_t k = open; k < c.size(); ++k) {
        if (c[k] == '(') ++depth;
        if (c[k] == ')' && --depth == 0) return k;
    }
    return std::string::npos;
}

std::string trimmed(const std::string& s) {
    const std::size_t b = s.find_first_not_of(" \t\r\n");
    if (b == std::string::npos) return "";
    return s.substr(b, s.find_last_not_of(" \t\r\n") - b + 1);
}

// The arguments between the parentheses at open/close, split at top-level commas.
std::vector<std::string> split_arguments(const std::string& c, std::size_t open, std::size_t close) {
    std::vector<std::string> args;
    int depth = 0;
    std::size_t first = open + 1;
    for (std::size_t k = open + 1; k <= close; ++k) {
        if (k < close && c[k] == '(') ++depth;
        if (k < close && c[k] == ')') --depth;
        if (k == close || (depth == 0 && c[k] == ',')) {
            args.push_back(trimmed(c.substr(first, k - first)));
            first = k + 1;
        }
    }
    return args;
}

// The kernel a TB_LAUNCH_BOUNDS(...) ending at `from` stands before: the next identifier
// followed by '(' other than __attribute__. "" if there is none.
std::string kernel_after(const std::string& c, std::size_t from) {
    std::size_t j = skip_space(c, from);
    while (j < c.size() && ident_start(c[j])) {
        std::size_t end = j;
        while (end < c.size() && ident_char(c[end])) ++end;
        const std::string word = c.substr(j, end - j);
        const std::size_t next = skip_space(c, end);
        if (next < c.size() && c[next] == '(') {
            if (word != "__attribute__") return word;
            const std::size_t close = matching_paren(c, next);
            if (close == std::string::npos) return "";
            j = skip_space(c, close + 1);
        } else {
            j = next;
        }
    }
    return "";
}

std::vector<std::string> lines_of(const std::string& text) {
    std::vector<std::string> lines;
    std::size_t begin = 0;
    while (begin < text.size()) {
        const std::size_t nl = text.find('\n', begin);
        const std::size_t end = nl == std::string::npos ? text.size() : nl + 1;
        lines.push_back(text.substr(begin, end - begin));
        begin = end;
    }
    return lines;
}

std::string joined(const std::vector<std::string>& lines) {
    std::string out;
    for (const auto& l : lines) out += l;
    return out;
}

// `[.visible|.weak ...] .entry NAME(` on a line; the name in group 1.
const std::regex& entry_line() {
    static const std::regex re(R"(^\s*(?:\.\w+\s+)*\.entry\s+(\w+)\s*(?:\(|$))");
    return re;
}

// Index of the first line at or after `from` whose text starts with '{' (an entry's body).
std::size_t body_line(const std::vector<std::string>& lines, std::size_t from) {
    for (std::size_t k = from; k < lines.size(); ++k)
        if (trimmed(lines[k]).rfind('{', 0) == 0) return k;
    return lines.size();
}

// Index of the line that declares entry `kernel`, or lines.size() when it is not an entry.
std::size_t entry_header(const std::vector<std::string>& lines, const std::string& kernel) {
    std::smatch m;
    for (std::size_t k = 0; k < lines.size(); ++k)
        if (std::regex_search(lines[k], m, entry_line()) && m[1] == kernel) return k;
    return lines.size();
}

}  // namespace

LaunchBoundsMode launch_bounds_mode(cl_device_id d) {
    return ptx_feature_on(d, "TRIBENCH_OPENCL_LAUNCH_BOUNDS", "none") ? LaunchBoundsMode::Ptx : LaunchBoundsMode::None;
}

std::vector<DeclaredBounds> declared_launch_bounds(const std::string& source) {
    static const std::string kMacro = "TB_LAUNCH_BOUNDS";
    const std::string code = code_only(source);
    std::vector<DeclaredBounds> out;
    for (std::size_t at = code.find(kMacro); at != std::string::npos; at = code.find(kMacro, at + kMacro.size())) {
        const std::size_t end = at + kMacro.size();
        if ((at > 0 && ident_char(code[at - 1])) || (end < code.size() && ident_char(code[end]))) continue;
        const std::string where = "line " + std::to_string(line_at(source, at)) + ": TB_LAUNCH_BOUNDS";
        const std::size_t open = skip_space(code, end);
        const std::size_t close = open < code.size() && code[open] == '(' ? matching_paren(code, open) : std::string::npos;
        if (close == std::string::npos) throw Error(where + " without a closed argument list");
        const auto args = split_arguments(code, open, close);
        if (args.size() != 2 || args[0].empty() || args[1].empty())
            throw Error(where + " takes two arguments (max_items, min_groups_per_cu)");
        DeclaredBounds b{kernel_after(code, close + 1), args[0], args[1]};
        if (b.kernel.empty()) throw Error(where + " is not followed by a kernel");
        out.push_back(std::move(b));
    }
    return out;
}

std::string bounds_probe_name(const std::string& kernel, const char* which) {
    return std::string(kBoundsProbePrefix) + which + "_" + kernel;
}

std::string bounds_probe_source(const std::vector<DeclaredBounds>& bounds) {
    std::string s = "\n#line 1 \"tribench/launch_bounds_probe.cl\"\n";
    for (const auto& b : bounds) {
        s += "__kernel __attribute__((reqd_work_group_size((" + b.max_items + "), 1, 1))) void " +
             bounds_probe_name(b.kernel, "max") + "(void) {}\n";
        s += "__kernel __attribute__((reqd_work_group_size((" + b.min_groups + "), 1, 1))) void " +
             bounds_probe_name(b.kernel, "min") + "(void) {}\n";
    }
    return s;
}

std::string add_launch_bounds_to_ptx(const std::string& ptx, const std::vector<EntryBounds>& bounds) {
    std::vector<std::string> lines = lines_of(ptx);
    for (const auto& b : bounds) {
        const std::size_t header = entry_header(lines, b.kernel);
        const std::size_t body = body_line(lines, header);
        if (header == lines.size() || body == lines.size())
            throw Error("launch bounds: kernel '" + b.kernel + "' is not an entry of the program's PTX");
        bool has_threads = false, has_min = false;
        for (std::size_t k = header; k < body; ++k) {
            const std::string t = trimmed(lines[k]);
            has_threads = has_threads || t.rfind(".reqntid", 0) == 0 || t.rfind(".maxntid", 0) == 0;
            has_min = has_min || t.rfind(".minnctapersm", 0) == 0;
        }
        std::string directives;
        if (!has_threads) directives += ".maxntid " + std::to_string(b.max_items) + ", 1, 1\n";
        if (!has_min) directives += ".minnctapersm " + std::to_string(b.min_groups) + "\n";
        lines.insert(lines.begin() + static_cast<std::ptrdiff_t>(body), directives);
    }
    return joined(lines);
}

std::uint64_t ptx_entry_max_items(const std::string& ptx, const std::string& kernel) {
    static const std::regex threads(R"(^\.(?:reqntid|maxntid)\s+(\d{1,9})(?:\s*,\s*(\d{1,9}))?(?:\s*,\s*(\d{1,9}))?)");
    const std::vector<std::string> lines = lines_of(ptx);
    const std::size_t header = entry_header(lines, kernel);
    const std::size_t body = body_line(lines, header);
    for (std::size_t k = header; k < body; ++k) {
        const std::string t = trimmed(lines[k]);
        std::smatch d;
        if (!std::regex_search(t, d, threads)) continue;
        std::uint64_t items = 1;
        for (int i = 1; i <= 3; ++i)
            if (d[i].matched) items *= std::stoull(d[i].str());
        return items;
    }
    return 0;
}

}  // namespace tb::cl
