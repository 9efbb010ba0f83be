#include "report/compare_text.hpp"

#include <algorithm>

#include "report/text_format.hpp"

namespace tb {

std::string change_text(const ComparedBenchmark& b) {
    if (b.speedup <= 0) return "";
    return format_number("%+.1f%%", b.change_pct);
}

std::string side_text(bool present, Status st, double median) {
    if (!present) return "";
    return st == Status::Ok ? format_ms(median) : to_string(st);
}

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

namespace {

std::size_t noise_thresholds(const Comparison& c) {
    return std::size_t(std::count_if(c.benchmarks.begin(), c.benchmarks.end(),
                                     [](const ComparedBenchmark& b) { return b.noise_threshold; }));
}

}  // namespace

std::string rule_line(const Comparison& c) {
    const std::size_t noisy = noise_thresholds(c);
    const std::string threshold = noisy ? "its noise-model threshold (" + std::to_string(noisy) + " benchmark" +
                                              (noisy == 1 ? "" : "s") + "; the others " +
                                              format_number("%g", c.options.threshold_pct) + "%)"
                                        : format_number("%g", c.options.threshold_pct) + "%";
    return "regression: significantly different (two-sided Mann-Whitney U, p < " + format_number("%g", c.options.alpha) +
           ") and more than " + threshold + " slower (median), or ok in OLD and failing in NEW; changes under " +
           format_number("%g", c.options.min_change_pct) + "% count as unchanged";
}

std::size_t untestable(const Comparison& c) {
    return std::size_t(std::count_if(c.benchmarks.begin(), c.benchmarks.end(), [](const ComparedBenchmark& b) {
        return b.old_status == Status::Ok && b.new_status == Status::Ok && b.in_old && b.in_new && !b.testable;
    }));
}

std::vector<std::string> first_notes(const std::vector<std::string>& notes, std::size_t shown) {
    if (notes.size() <= shown + 1) return notes;
    std::vector<std::string> out(notes.begin(), notes.begin() + std::ptrdiff_t(shown));
    out.push_back("... and " + std::to_string(notes.size() - shown) + " more (tribench compare --json lists them all)");
    return out;
}

std::string cell_text(const MatrixCell& c, bool is_baseline) {
    if (!c.present) return "";
    if (c.status != Status::Ok) return to_string(c.status);
    if (c.speedup <= 0) return format_ms(c.median_ms) + " ms";  // a row without the baseline (cuSPARSE's own algorithms)
    if (is_baseline) return format_speedup(c.speedup);
    return (c.significant ? "" : "~") + format_speedup(c.speedup);
}

std::string best_cell_text(const MatrixCell& c, bool is_baseline) {
    if (!c.best) return "";
    const MatrixCell& b = *c.best;
    // The baseline's best is 1.00x by definition: its median says more.
    if (b.status == Status::Ok && is_baseline) return format_ms(b.median_ms) + " ms";
    return cell_text(b, is_baseline);
}

std::vector<MatrixColumn> matrix_columns(const BackendMatrix& m) {
    std::vector<MatrixColumn> cols;
    for (std::size_t ci = 0; ci < m.columns.size(); ++ci) {
        const bool base = m.columns[ci].substr(0, m.columns[ci].find('@')) == m.baseline;
        cols.push_back({m.columns[ci], ci, false, base});
        if (m.has_best) cols.push_back({m.columns[ci] + " best", ci, true, base});
    }
    return cols;
}

std::string matrix_cell_text(const MatrixRow& r, const MatrixColumn& c) {
    return c.best ? best_cell_text(r.cells[c.cell], c.is_baseline) : cell_text(r.cells[c.cell], c.is_baseline);
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
           format_number("%g", m.alpha) + ")" +
           (m.has_best ? "; each \"best\" column: the backend with the configuration tuned for it, against " +
                             m.baseline + " with its own (the baseline's best column: its median); the gap between a "
                             "column and its best is what configuration explains"
                       : "");
}

}  // namespace tb
