// The console format: the run table, a comparison's and a backend matrix's tables, and the
// "console" reporter that writes them.
#include "report/formats/console.hpp"

#include <algorithm>
#include <ostream>
#include <sstream>

#include "backend.hpp"
#include "report/compare_text.hpp"
#include "report/reporter.hpp"

namespace tb {

double baseline_median(const Results& r, const BenchmarkResult& b, std::string* baseline_backend) {
    for (const auto& id : backend_ids()) {
        for (const auto& o : r.benchmarks) {
            if (o.backend != id || o.status != Status::Ok) continue;
            if (o.program != b.program || o.dataset != b.dataset || o.variant != b.variant || o.launch != b.launch)
                continue;
            if (baseline_backend) *baseline_backend = id;
            return o.summary.median;
        }
    }
    return 0;
}

namespace {

std::string throughput_text(const BenchmarkResult& b) {
    if (b.work.flops > 0 && b.throughput.gflops >= 1 && b.work.bytes > 0 &&
        b.work.flops / b.work.bytes > 4)  // compute-bound work: report GFLOP/s
        return format_number("%.1f GFLOP/s", b.throughput.gflops);
    if (b.work.bytes > 0) return format_number("%.1f GB/s", b.throughput.gbps);
    return "";
}

// n: noisy, t: throttled, b: budget cut, p: plain timing where gated was asked for.
std::string result_flags(const BenchmarkResult& b) {
    std::string f;
    if (b.noisy) f += 'n';
    if (b.throttled) f += 't';
    if (b.budget_cut) f += 'b';
    if (b.timing == "plain" && !b.timing_note.empty()) f += 'p';
    return f;
}

}  // namespace

std::string format_results_table(const Results& r, bool color) {
    struct Row {
        std::string cells[9];
        bool bad;
    };
    constexpr int kCols = 9;
    const char* head[kCols] = {"benchmark", "device", "status", "median ms", "rsd", "batch ms", "throughput", "speedup", "flags"};
    bool any_flag = false;
    std::vector<Row> rows;
    for (const auto& b : r.benchmarks) {
        Row row{};
        row.cells[0] = b.picked.empty() ? b.name : b.name + " -> " + b.picked;
        row.cells[1] = b.device;
        row.cells[2] = to_string(b.status);
        row.bad = b.status == Status::ValidationFailed || b.status == Status::Error;
        if (b.status == Status::Ok) {
            row.cells[3] = format_number("%.4f", b.summary.median);
            row.cells[4] = format_number("%.1f%%", 100 * b.summary.rsd);
            if (b.batch_ms > 0) row.cells[5] = format_number("%.4f", b.batch_ms);
            row.cells[6] = throughput_text(b);
            std::string base_id;
            const double base = baseline_median(r, b, &base_id);
            if (base > 0 && b.summary.median > 0)
                row.cells[7] = format_number("%.2fx", base / b.summary.median) + (base_id == "cuda-native" ? "" : " vs " + base_id);
            row.cells[8] = result_flags(b);
            any_flag = any_flag || !row.cells[8].empty();
        }
        rows.push_back(row);
    }
    std::size_t w[kCols];
    for (int c = 0; c < kCols; ++c) {
        w[c] = std::string(head[c]).size();
        for (const auto& row : rows) w[c] = std::max(w[c], row.cells[c].size());
    }
    std::ostringstream out;
    auto line = [&](const std::string* cells, const char* on, const char* off) {
        const int last = kCols - 1;
        for (int c = 0; c < kCols; ++c) {
            const bool right = c >= 3 && c < last;
            std::string cell = cells[c];
            std::string pad(w[c] - cell.size(), ' ');
            if (c == 2 && on) cell = on + cell + off;
            if (c == last) out << cell << "\n";
            else out << (right ? pad + cell : cell + pad) << "  ";
        }
    };
    std::string h[kCols];
    for (int c = 0; c < kCols; ++c) h[c] = head[c];
    line(h, nullptr, nullptr);
    for (const auto& row : rows) {
        const bool ok = row.cells[2] == "ok";
        if (color && (row.bad || ok))
            line(row.cells, row.bad ? "\033[31m" : "\033[32m", "\033[0m");
        else
            line(row.cells, nullptr, nullptr);
    }
    out << "speedup: baseline median / this median, against cuda-native of the same program, dataset, variant and launch\n";
    out << "batch ms: one run's share of back-to-back runs (launch overhead overlapped); median ms is gated unless flagged p\n";
    if (any_flag)
        out << "flags: n noisy (stopping rule timed out), t GPU clock throttled, b sampling cut by --budget, "
               "p timed plainly (gated timing unavailable)\n";
    return out.str();
}

namespace {

const char* const kGreen = "\033[32m";
const char* const kRed = "\033[31m";
const char* const kBoldRed = "\033[1;31m";
const char* const kReset = "\033[0m";

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

const char* cell_color(const MatrixCell& c) {
    if (!c.present) return nullptr;
    if (c.status == Status::ValidationFailed || c.status == Status::Error) return kRed;
    if (!c.significant || c.speedup <= 0) return nullptr;
    return c.speedup > 1 ? kGreen : kRed;
}

}  // namespace

std::string comparison_terminal(const Comparison& c, const RunLabels& l, bool color) {
    std::ostringstream out;
    out << "OLD: " << l.old_run << "\nNEW: " << l.new_run << "\n";
    for (const auto& m : c.device_mismatches) out << "warning: --force: " << m << "\n";
    for (const auto& m : c.clock_mismatches) out << "warning: different clocks: " << m << "\n";
    for (const auto& m : first_notes(c.config_mismatches)) out << "note: different configurations: " << m << "\n";
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
            << " too few samples to ever reach p < " << format_number("%g", c.options.alpha) << "\n";
    out << "summary: " << summary_line(c) << "\n";
    return out.str();
}

std::string matrix_terminal(const BackendMatrix& m, const std::string& run, bool color) {
    std::ostringstream out;
    out << "run: " << run << "\n";
    for (const auto& n : m.notes) out << "note: " << n << "\n";
    out << "\n";
    std::vector<std::string> head = {"benchmark", m.baseline + " ms"};
    std::vector<bool> right = {false, true};
    const std::vector<MatrixColumn> columns = matrix_columns(m);
    for (const auto& c : columns) {
        head.push_back(c.head);
        right.push_back(true);
    }
    std::vector<std::vector<Cell>> rows;
    for (const auto& r : m.rows) {
        std::vector<Cell> cells = {{r.label()}, {baseline_ms(m, r)}};
        for (const auto& c : columns) {
            const bool plain = c.is_baseline || c.best;  // colors mark the same-configuration verdict
            cells.push_back({matrix_cell_text(r, c), plain ? nullptr : cell_color(r.cells[c.cell])});
        }
        rows.push_back(cells);
    }
    out << render(head, right, rows, color) << "\n" << matrix_legend(m) << "\n";
    return out.str();
}

namespace {

class ConsoleReporter : public Reporter {
public:
    bool supports(ReportSubject) const override { return true; }
    void write(const ReportInput& in, std::ostream& out) const override {
        switch (in.subject) {
            case ReportSubject::Run: out << format_results_table(*in.run, in.color); return;
            case ReportSubject::Comparison: out << comparison_terminal(*in.comparison, in.labels, in.color); return;
            case ReportSubject::BackendMatrix: out << matrix_terminal(*in.matrix, in.run_label, in.color); return;
        }
    }
};

}  // namespace

std::unique_ptr<Reporter> make_console_reporter() { return std::make_unique<ConsoleReporter>(); }

}  // namespace tb
