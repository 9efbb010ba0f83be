// The Markdown format: a comparison sized for a pull-request comment, a backend matrix, and
// the "markdown" reporter that writes them.
#include "report/formats/markdown.hpp"

#include <algorithm>
#include <ostream>
#include <sstream>

#include "report/compare_text.hpp"
#include "report/reporter.hpp"

namespace tb {
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
    for (const auto& m : c.clock_mismatches) head << "> **warning** (different clocks): " << markdown_escape(m) << "\n\n";
    for (const auto& m : first_notes(c.config_mismatches))
        head << "> **note** (different configurations): " << markdown_escape(m) << "\n\n";
    std::string tail = "\n**Summary:** " + summary_line(c) + ".  \n" + markdown_escape(rule_line(c)) + ".\n";
    if (const std::size_t n = untestable(c))
        tail += "Note: " + std::to_string(n) + " benchmark" + (n == 1 ? " has" : "s have") +
                " too few samples to ever reach p \\< " + format_number("%g", c.options.alpha) + ".\n";

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

std::string matrix_markdown(const BackendMatrix& m, const std::string& run) {
    std::ostringstream out;
    out << "### tribench backends: speedup vs " << markdown_escape(m.baseline) << "\n\n";
    out << "Run: " << markdown_escape(run) << "\n\n";
    for (const auto& n : m.notes) out << "> " << markdown_escape(n) << "\n\n";
    const std::vector<MatrixColumn> columns = matrix_columns(m);
    out << "| benchmark | " << markdown_escape(m.baseline) << " ms |";
    for (const auto& c : columns) out << " " << markdown_escape(c.head) << " |";
    out << "\n|:--|--:|";
    for (std::size_t i = 0; i < columns.size(); ++i) out << "--:|";
    out << "\n";
    for (const auto& r : m.rows) {
        out << "| " << markdown_escape(r.label()) << " | " << baseline_ms(m, r) << " |";
        for (const auto& c : columns) out << " " << markdown_escape(matrix_cell_text(r, c)) << " |";
        out << "\n";
    }
    out << "\n" << markdown_escape(matrix_legend(m)) << ".\n";
    return out.str();
}

namespace {

class MarkdownReporter : public Reporter {
public:
    bool supports(ReportSubject s) const override { return s != ReportSubject::Run; }
    void write(const ReportInput& in, std::ostream& out) const override {
        if (in.subject == ReportSubject::Comparison)
            out << comparison_markdown(*in.comparison, in.labels, in.markdown_limit);
        else if (in.subject == ReportSubject::BackendMatrix)
            out << matrix_markdown(*in.matrix, in.run_label);
    }
};

}  // namespace

std::unique_ptr<Reporter> make_markdown_reporter() { return std::make_unique<MarkdownReporter>(); }

}  // namespace tb
