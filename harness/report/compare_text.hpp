// Phrases the console and Markdown formats of a comparison and a backend matrix share, so
// that both say the same thing in the same words (formats/console.cpp, formats/markdown.cpp).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "compare/compare.hpp"

namespace tb {

// --- two runs ---
// One side's median ("0.806") or its status when not ok; "" when the benchmark is absent.
std::string side_text(bool present, Status st, double median);
// "+10.0%"; "" without a speedup.
std::string change_text(const ComparedBenchmark& b);
// Why a failed or uncompared benchmark is what it is ("NEW: <error>"), for the end of its line.
std::string failure_detail(const ComparedBenchmark& b);
// "8 regressions, 2 unchanged"; "no benchmarks".
std::string summary_line(const Comparison& c);
// What counted as a regression: the test, alpha, threshold and minimum change.
std::string rule_line(const Comparison& c);
// Benchmarks ok on both sides with too few samples to ever reach p < alpha.
std::size_t untestable(const Comparison& c);

// At most the first `shown` of `notes`, then "... and N more (tribench compare --json lists
// them all)": a tuned run against an untuned one differs in every benchmark's configuration.
std::vector<std::string> first_notes(const std::vector<std::string>& notes, std::size_t shown = 5);

// --- one run's backends ---
// A cell: the speedup against the baseline ("1.02x", "~0.98x" when not significant), the
// median where the row has no baseline, or the status.
std::string cell_text(const MatrixCell& c, bool is_baseline);
// The same cell in the each-at-its-own-best view: the speedup, the baseline's median, or the
// status; "" when that run lacks the cell.
std::string best_cell_text(const MatrixCell& c, bool is_baseline);
// The matrix's table columns after "benchmark" and the baseline's ms: each backend column,
// followed by its "<column> best" one when the matrix has the each-at-its-best view.
struct MatrixColumn {
    std::string head;
    std::size_t cell = 0;  // index into MatrixRow::cells
    bool best = false;
    bool is_baseline = false;
};
std::vector<MatrixColumn> matrix_columns(const BackendMatrix& m);
std::string matrix_cell_text(const MatrixRow& r, const MatrixColumn& c);
// The baseline column's median in a row; "" when it did not run ok.
std::string baseline_ms(const BackendMatrix& m, const MatrixRow& r);
// What the speedups mean.
std::string matrix_legend(const BackendMatrix& m);

}  // namespace tb
