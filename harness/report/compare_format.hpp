// Presenting comparisons: a terminal table (colored like Futhark's cmp-bench-json),
// Markdown for a pull-request comment, and JSON for machines (keys in a fixed, readable
// order). Pure string building.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "compare/compare.hpp"

namespace tb {

// "base.json (tribench 0.1.0 abc123def456, 2026-11-23T06:00:00Z)".
std::string describe_run(const Results& r, const std::string& path);

struct RunLabels {
    std::string old_run, new_run;  // describe_run of each side
};

std::string comparison_terminal(const Comparison& c, const RunLabels& l, bool color);
// Sized for a pull-request comment and $GITHUB_STEP_SUMMARY: failing benchmarks first, the
// rest folded in <details>; rows beyond max_bytes (0: no limit) are left out and counted.
std::string comparison_markdown(const Comparison& c, const RunLabels& l, std::size_t max_bytes = 0);
nlohmann::ordered_json comparison_json(const Comparison& c, const RunLabels& l);

std::string matrix_terminal(const BackendMatrix& m, const std::string& run, bool color);
std::string matrix_markdown(const BackendMatrix& m, const std::string& run);
nlohmann::ordered_json matrix_json(const BackendMatrix& m, const std::string& run);

// Number formats shared with the report: "1.234", "0.0123", "1235"; "<0.001", "0.042".
std::string format_ms(double ms);
std::string format_p(double p);
std::string format_speedup(double s);  // "1.10x"
std::string markdown_escape(const std::string& s);

}  // namespace tb
