#include "report/compare_format.hpp"

#include <algorithm>
#include <cstdio>
#include <sstream>
#include <string_view>

namespace tb {

using json = nlohmann::ordered_json;

namespace {

const char* const kGreen = "\033[32m";
const char* const kRed = "\033[31m";
const char* const kBoldRed = "\033[1;31m";
const char* const kReset = "\033[0m";

std::string printf_str(const char* f, double v) {
    char buf[64];
    std::snprintf(buf, sizeof buf, f, v);
    return buf;
}

// A text table whose cells may carry a color; widths count only the visible text.
struct Cell {
    std::string text;
    const char* color = nullptr;
};

std::string render(const std::vector<std::string>& head, const std::vector<bool>& right,
                   const std::vector<std::vector<Cell>>& rows, bool color) {
    std::vector<std::size_t> w(head.size());
    for (std::size_t c = 0; c < head.size(); ++c) {
        w[c] = head[c].size();
        for (const auto& r : rows) w[c] = std::max(w[c], r[c].text.size());
    }
    std::ostringstream out;
    auto line = [&](const std::vector<Cell>& cells) {
        std::string s;
        for (std::size_t c = 0; c < cells.size(); ++c) {
            const std::string pad(w[c] - cells[c].text.size(), ' ');
            std::string text = cells[c].text;
            if (color && cells[c].color && !text.empty()) text = cells[c].color + text + kReset;
            s += right[c] ? pad + text : text + (c + 1 < cells.size() ? pad : "");
            if (c + 1 < cells.size()) s += "  ";
        }
        while (!s.empty() && s.back() == ' ') s.pop_back();
        out << s << "\n";
    };
    std::vector<Cell> h;
    for (const auto& t : head) h.push_back({t});
    line(h);
    for (const auto& r : rows) line(r);
    return out.str();
}

const char* verdict_color(Verdict v) {
    switch (v) {
        case Verdict::Faster:
        case Verdict::Fixed: return kGreen;
        case Verdict::Slower: return kRed;
        case Verdict::Regression:
        case Verdict::Broken: return kBoldRed;
        default: return nullptr;
    }
}

std::string change_text(const ComparedBenchmark& b) {
    if (b.speedup <= 0) return "";
    return printf_str("%+.1f%%", b.change_pct);
}

std::string side_text(bool present, Status st, double median) {
    if (!present) return "";
    return st == Status::Ok ? format_ms(median) : to_string(st);
}

// Why a failed or uncompared benchmark is what it is, for the end of its line.
std::string failure_detail(const ComparedBenchmark& b) {
    if (b.verdict == Verdict::Broken) return "NEW: " + b.new_error;
    if (b.verdict == Verdict::NotCompared) {
        if (b.new_status != Status::Ok && !b.new_error.empty()) return "NEW: " + b.new_error;
        if (!b.old_error.empty()) return "OLD: " + b.old_error;
    }
    return "";
}

std::string summary_line(const Comparison& c) {
    std::string s;
    const Verdict order[] = {Verdict::Regression, Verdict::Broken,   Verdict::Slower,      Verdict::Faster, Verdict::Fixed,
                             Verdict::Unchanged,  Verdict::NotCompared, Verdict::OnlyOld, Verdict::OnlyNew};
    for (Verdict v : order) {
        const std::size_t n = c.count(v);
        if (n == 0) continue;
        s += (s.empty() ? "" : ", ") + std::to_string(n) + " " + to_string(v) +
             (v == Verdict::Regression && n > 1 ? "s" : "");
    }
    return s.empty() ? "no benchmarks" : s;
}

std::size_t noise_thresholds(const Comparison& c) {
    return std::size_t(std::count_if(c.benchmarks.begin(), c.benchmarks.end(),
                                     [](const ComparedBenchmark& b) { return b.noise_threshold; }));
}

std::string rule_line(const Comparison& c) {
    const std::size_t noisy = noise_thresholds(c);
    const std::string threshold = noisy ? "its noise-model threshold (" + std::to_string(noisy) + " benchmark" +
                                              (noisy == 1 ? "" : "s") + "; the others " +
                                              printf_str("%g", c.options.threshold_pct) + "%)"
                                        : printf_str("%g", c.options.threshold_pct) + "%";
    return "regression: significantly different (two-sided Mann-Whitney U, p < " + printf_str("%g", c.options.alpha) +
           ") and more than " + threshold + " slower (median), or ok in OLD and failing in NEW; changes under " +
           printf_str("%g", c.options.min_change_pct) + "% count as unchanged";
}

std::size_t untestable(const Comparison& c) {
    return std::size_t(std::count_if(c.benchmarks.begin(), c.benchmarks.end(), [](const ComparedBenchmark& b) {
        return b.old_status == Status::Ok && b.new_status == Status::Ok && b.in_old && b.in_new && !b.testable;
    }));
}

json number_or_null(bool ok, double v) { return ok ? json(v) : json(nullptr); }

}  // namespace

std::string format_ms(double ms) {
    if (ms >= 1000) return printf_str("%.0f", ms);
    if (ms >= 100) return printf_str("%.1f", ms);
    if (ms >= 10) return printf_str("%.2f", ms);
    if (ms >= 1) return printf_str("%.3f", ms);
    return printf_str("%#.3g", ms);  // keeps trailing zeros: 0.300, 0.0420
}

std::string format_p(double p) { return p < 0.001 ? "<0.001" : printf_str("%.3f", p); }

std::string format_speedup(double s) { return printf_str(s >= 100 ? "%.0fx" : "%.2fx", s); }

std::string markdown_escape(const std::string& s) {
    std::string out;
    for (char ch : s) {
        if (std::string_view("|*_`<>~[]").find(ch) != std::string_view::npos) out += '\\';
        out += ch == '\n' ? ' ' : ch;
    }
    return out;
}

std::string describe_run(const Results& r, const std::string& path) {
    std::string d = path;
    std::vector<std::string> parts;
    const nlohmann::json& env = r.environment;
    if (env.is_object()) {
        if (env.contains("tribench_version") && env["tribench_version"].is_string())
            parts.push_back("tribench " + env["tribench_version"].get<std::string>() +
                            (env.contains("tribench_commit") && env["tribench_commit"].is_string()
                                 ? " " + env["tribench_commit"].get<std::string>()
                                 : ""));
        if (env.contains("created_utc") && env["created_utc"].is_string()) parts.push_back(env["created_utc"].get<std::string>());
    }
    for (std::size_t i = 0; i < parts.size(); ++i) d += (i == 0 ? " (" : ", ") + parts[i];
    return parts.empty() ? d : d + ")";
}

// --- two runs ---------------------------------------------------------------------------

std::string comparison_terminal(const Comparison& c, const RunLabels& l, bool color) {
    std::ostringstream out;
    out << "OLD: " << l.old_run << "\nNEW: " << l.new_run << "\n";
    for (const auto& m : c.device_mismatches) out << "warning: --force: " << m << "\n";
    out << "\n";
    std::vector<std::vector<Cell>> rows;
    for (const auto& b : c.benchmarks) {
        const char* col = verdict_color(b.verdict);
        const bool timed = b.verdict == Verdict::Unchanged || b.verdict == Verdict::Faster ||
                           b.verdict == Verdict::Slower || b.verdict == Verdict::Regression;
        std::string verdict = to_string(b.verdict);
        const std::string detail = failure_detail(b);
        if (!detail.empty()) verdict += " (" + detail + ")";
        rows.push_back({{b.name},
                        {side_text(b.in_old, b.old_status, b.old_median_ms)},
                        {side_text(b.in_new, b.new_status, b.new_median_ms)},
                        {timed && b.speedup > 0 ? format_speedup(b.speedup) : "", b.significant ? col : nullptr},
                        {timed ? change_text(b) : ""},
                        {timed ? format_p(b.p_value) : ""},
                        {verdict, col}});
    }
    out << render({"benchmark", "old ms", "new ms", "speedup", "change", "p", "verdict"},
                  {false, true, true, true, true, true, false}, rows, color);
    out << "\n" << rule_line(c) << "\n";
    if (const std::size_t n = untestable(c))
        out << "note: " << n << " benchmark" << (n == 1 ? " has" : "s have")
            << " too few samples to ever reach p < " << printf_str("%g", c.options.alpha) << "\n";
    out << "summary: " << summary_line(c) << "\n";
    return out.str();
}

namespace {

std::string markdown_row(const ComparedBenchmark& b) {
    const bool timed = b.verdict == Verdict::Unchanged || b.verdict == Verdict::Faster || b.verdict == Verdict::Slower ||
                       b.verdict == Verdict::Regression;
    std::string verdict = to_string(b.verdict);
    if (is_failure(b.verdict)) verdict = "**" + verdict + "**";
    const std::string detail = failure_detail(b);
    if (!detail.empty()) verdict += " (" + markdown_escape(detail) + ")";
    return "| " + markdown_escape(b.name) + " | " + side_text(b.in_old, b.old_status, b.old_median_ms) + " | " +
           side_text(b.in_new, b.new_status, b.new_median_ms) + " | " +
           (timed && b.speedup > 0 ? format_speedup(b.speedup) : "") + " | " + (timed ? change_text(b) : "") + " | " +
           (timed ? markdown_escape(format_p(b.p_value)) : "") + " | " + verdict + " |\n";
}

const char* const kMarkdownHead = "| benchmark | old ms | new ms | speedup | change | p | verdict |\n|:--|--:|--:|--:|--:|--:|:--|\n";

// Regressions (largest slowdown first), then broken; the rest in verdict order, each in file order.
std::vector<const ComparedBenchmark*> ordered(const Comparison& c, bool failures) {
    const Verdict order[] = {Verdict::Regression, Verdict::Broken,      Verdict::Slower,  Verdict::Faster, Verdict::Fixed,
                             Verdict::NotCompared, Verdict::Unchanged, Verdict::OnlyOld, Verdict::OnlyNew};
    std::vector<const ComparedBenchmark*> out;
    for (Verdict v : order) {
        if (is_failure(v) != failures) continue;
        const std::size_t first = out.size();
        for (const auto& b : c.benchmarks)
            if (b.verdict == v) out.push_back(&b);
        if (v == Verdict::Regression)
            std::stable_sort(out.begin() + std::ptrdiff_t(first), out.end(),
                             [](const ComparedBenchmark* a, const ComparedBenchmark* b) { return a->change_pct > b->change_pct; });
    }
    return out;
}

std::string headline(const Comparison& c) {
    const std::size_t reg = c.count(Verdict::Regression), broken = c.count(Verdict::Broken);
    if (reg + broken == 0) return "no regression";
    std::string s;
    if (reg) s = std::to_string(reg) + " regression" + (reg > 1 ? "s" : "");
    if (broken) s += (s.empty() ? "" : ", ") + std::to_string(broken) + " broken";
    return s;
}

}  // namespace

std::string comparison_markdown(const Comparison& c, const RunLabels& l, std::size_t max_bytes) {
    std::ostringstream head;
    head << "### tribench compare: " << headline(c) << "\n\n";
    head << "OLD: " << markdown_escape(l.old_run) << "  \nNEW: " << markdown_escape(l.new_run) << "\n\n";
    for (const auto& m : c.device_mismatches) head << "> **warning** (--force): " << markdown_escape(m) << "\n\n";
    std::string tail = "\n**Summary:** " + summary_line(c) + ".  \n" + markdown_escape(rule_line(c)) + ".\n";
    if (const std::size_t n = untestable(c))
        tail += "Note: " + std::to_string(n) + " benchmark" + (n == 1 ? " has" : "s have") +
                " too few samples to ever reach p \\< " + printf_str("%g", c.options.alpha) + ".\n";

    const auto failing = ordered(c, true), rest = ordered(c, false);
    std::string out = head.str();
    // Room kept for closing the folded section and saying how many rows were left out.
    const std::size_t reserve = tail.size() + 200;
    std::size_t left_out = 0;
    auto add_rows = [&](const std::vector<const ComparedBenchmark*>& rows) {
        for (const ComparedBenchmark* b : rows) {
            const std::string r = markdown_row(*b);
            if (max_bytes && out.size() + r.size() + reserve > max_bytes) ++left_out;
            else out += r;
        }
    };
    if (!failing.empty()) {
        out += kMarkdownHead;
        add_rows(failing);
        out += "\n";
    }
    if (!rest.empty()) {
        std::string what;
        const Verdict order[] = {Verdict::Slower,  Verdict::Faster,  Verdict::Fixed,  Verdict::NotCompared,
                                 Verdict::Unchanged, Verdict::OnlyOld, Verdict::OnlyNew};
        for (Verdict v : order)
            if (const std::size_t n = c.count(v)) what += (what.empty() ? "" : ", ") + std::to_string(n) + " " + to_string(v);
        const std::string count = failing.empty() ? std::to_string(rest.size()) + " benchmark" + (rest.size() == 1 ? "" : "s")
                                  : rest.size() == 1 ? "the other benchmark"
                                                     : "the other " + std::to_string(rest.size()) + " benchmarks";
        out += "<details><summary>" + count + ": " + what + "</summary>\n\n" + kMarkdownHead;
        add_rows(rest);
        out += "\n</details>\n";
    }
    if (left_out)
        out += "\n*" + std::to_string(left_out) + " more row" + (left_out == 1 ? "" : "s") +
               " left out to keep this under " + std::to_string(max_bytes) +
               " bytes (`tribench compare --json` lists every benchmark).*\n";
    return out + tail;
}

json comparison_json(const Comparison& c, const RunLabels& l) {
    json j = {{"schema", "tribench-compare"},
              {"version", 1},
              {"old", l.old_run},
              {"new", l.new_run},
              {"test", "two-sided Mann-Whitney U"},
              {"alpha", c.options.alpha},
              {"threshold_pct", c.options.threshold_pct},
              {"forced", c.options.force},
              {"device_mismatches", c.device_mismatches},
              {"exit_code", c.exit_code()}};
    json summary = json::object();
    for (const auto& b : c.benchmarks) summary[to_string(b.verdict)] = c.count(b.verdict);
    j["summary"] = summary;
    j["benchmarks"] = json::array();
    for (const auto& b : c.benchmarks) {
        const bool both_ok = b.in_old && b.in_new && b.old_status == Status::Ok && b.new_status == Status::Ok;
        json e = {{"name", b.name},
                  {"verdict", to_string(b.verdict)},
                  {"old_status", b.in_old ? json(to_string(b.old_status)) : json(nullptr)},
                  {"new_status", b.in_new ? json(to_string(b.new_status)) : json(nullptr)},
                  {"old_median_ms", number_or_null(b.in_old && b.old_status == Status::Ok, b.old_median_ms)},
                  {"new_median_ms", number_or_null(b.in_new && b.new_status == Status::Ok, b.new_median_ms)},
                  {"old_count", b.old_count},
                  {"new_count", b.new_count},
                  {"speedup", number_or_null(both_ok && b.speedup > 0, b.speedup)},
                  {"change_pct", number_or_null(both_ok && b.speedup > 0, b.change_pct)},
                  {"p_value", number_or_null(both_ok, b.p_value)},
                  {"exact", both_ok && b.exact},
                  {"testable", both_ok && b.testable},
                  {"significant", b.significant},
                  {"regression", b.regression},
                  {"threshold_pct", b.threshold_pct},
                  {"threshold_source", b.noise_threshold ? "noise model" : "--threshold"},
                  {"old_device", b.old_device},
                  {"new_device", b.new_device}};
        if (!b.old_error.empty()) e["old_error"] = b.old_error;
        if (!b.new_error.empty()) e["new_error"] = b.new_error;
        j["benchmarks"].push_back(e);
    }
    return j;
}

// --- one run's backends -------------------------------------------------------------------

namespace {

std::string cell_text(const MatrixCell& c, bool is_baseline) {
    if (!c.present) return "";
    if (c.status != Status::Ok) return to_string(c.status);
    if (c.speedup <= 0) return format_ms(c.median_ms) + " ms";  // a row without the baseline (cuSPARSE's own algorithms)
    if (is_baseline) return format_speedup(c.speedup);
    return (c.significant ? "" : "~") + format_speedup(c.speedup);
}

const char* cell_color(const MatrixCell& c) {
    if (!c.present) return nullptr;
    if (c.status == Status::ValidationFailed || c.status == Status::Error) return kRed;
    if (!c.significant || c.speedup <= 0) return nullptr;
    return c.speedup > 1 ? kGreen : kRed;
}

std::string baseline_ms(const BackendMatrix& m, const MatrixRow& r) {
    for (std::size_t ci = 0; ci < m.columns.size(); ++ci) {
        const MatrixCell& c = r.cells[ci];
        if (m.columns[ci].substr(0, m.columns[ci].find('@')) == m.baseline && c.present && c.status == Status::Ok &&
            c.speedup > 0)
            return format_ms(c.median_ms);
    }
    return "";
}

std::string matrix_legend(const BackendMatrix& m) {
    return "speedup vs " + m.baseline + " = " + m.baseline +
           " median / backend median; ~ marks no significant difference (two-sided Mann-Whitney U, p >= " +
           printf_str("%g", m.alpha) + ")";
}

}  // namespace

std::string matrix_terminal(const BackendMatrix& m, const std::string& run, bool color) {
    std::ostringstream out;
    out << "run: " << run << "\n";
    for (const auto& n : m.notes) out << "note: " << n << "\n";
    out << "\n";
    std::vector<std::string> head = {"benchmark", m.baseline + " ms"};
    std::vector<bool> right = {false, true};
    for (const auto& c : m.columns) {
        head.push_back(c);
        right.push_back(true);
    }
    std::vector<std::vector<Cell>> rows;
    for (const auto& r : m.rows) {
        std::vector<Cell> cells = {{r.label()}, {baseline_ms(m, r)}};
        for (std::size_t ci = 0; ci < m.columns.size(); ++ci) {
            const bool is_base = m.columns[ci].substr(0, m.columns[ci].find('@')) == m.baseline;
            cells.push_back({cell_text(r.cells[ci], is_base), is_base ? nullptr : cell_color(r.cells[ci])});
        }
        rows.push_back(cells);
    }
    out << render(head, right, rows, color) << "\n" << matrix_legend(m) << "\n";
    return out.str();
}

std::string matrix_markdown(const BackendMatrix& m, const std::string& run) {
    std::ostringstream out;
    out << "### tribench backends: speedup vs " << markdown_escape(m.baseline) << "\n\n";
    out << "Run: " << markdown_escape(run) << "\n\n";
    for (const auto& n : m.notes) out << "> " << markdown_escape(n) << "\n\n";
    out << "| benchmark | " << markdown_escape(m.baseline) << " ms |";
    for (const auto& c : m.columns) out << " " << markdown_escape(c) << " |";
    out << "\n|:--|--:|";
    for (std::size_t i = 0; i < m.columns.size(); ++i) out << "--:|";
    out << "\n";
    for (const auto& r : m.rows) {
        out << "| " << markdown_escape(r.label()) << " | " << baseline_ms(m, r) << " |";
        for (std::size_t ci = 0; ci < m.columns.size(); ++ci) {
            const bool is_base = m.columns[ci].substr(0, m.columns[ci].find('@')) == m.baseline;
            out << " " << markdown_escape(cell_text(r.cells[ci], is_base)) << " |";
        }
        out << "\n";
    }
    out << "\n" << markdown_escape(matrix_legend(m)) << ".\n";
    return out.str();
}

json matrix_json(const BackendMatrix& m, const std::string& run) {
    json j = {{"schema", "tribench-backend-matrix"}, {"version", 1},          {"run", run},
              {"baseline", m.baseline},              {"alpha", m.alpha},      {"columns", m.columns},
              {"notes", m.notes},                    {"rows", json::array()}};
    for (const auto& r : m.rows) {
        json row = {{"key", r.key}, {"program", r.program}, {"dataset", r.dataset}, {"variant", r.variant},
                    {"launch", r.launch}, {"cells", json::object()}};
        if (!r.picked.empty()) row["picked"] = r.picked;
        for (std::size_t ci = 0; ci < m.columns.size(); ++ci) {
            const MatrixCell& c = r.cells[ci];
            if (!c.present) continue;
            const bool ok = c.status == Status::Ok;
            const bool is_base = m.columns[ci].substr(0, m.columns[ci].find('@')) == m.baseline;
            json cell = {{"status", to_string(c.status)},
                         {"device", c.device},
                         {"count", c.count},
                         {"median_ms", number_or_null(ok, c.median_ms)},
                         {"rsd", number_or_null(ok, c.rsd)},
                         {"speedup", number_or_null(ok && c.speedup > 0, c.speedup)},
                         {"p_value", number_or_null(ok && c.speedup > 0 && !is_base, c.p_value)},
                         {"significant", c.significant}};
            if (!c.error.empty()) cell["error"] = c.error;
            row["cells"][m.columns[ci]] = cell;
        }
        j["rows"].push_back(row);
    }
    return j;
}

}  // namespace tb
