// Text every output format shares: how a run is named and how numbers are written, so that a
// median reads the same in the console table, the Markdown comment and REPORT.md.
#pragma once

#include <string>

#include "results/results.hpp"

namespace tb {

// "base.json (tribench 0.1.0 abc123def456, 2026-11-23T06:00:00Z)".
std::string describe_run(const Results& r, const std::string& path);

struct RunLabels {
    std::string old_run, new_run;  // describe_run of each side
};

// Number formats: "1.234", "0.0123", "1235"; "<0.001", "0.042"; "1.10x".
std::string format_ms(double ms);
std::string format_p(double p);
std::string format_speedup(double s);
// One number through a printf format ("%+.1f%%").
std::string format_number(const char* printf_format, double v);
// Markdown's table and emphasis characters escaped, newlines made spaces.
std::string markdown_escape(const std::string& s);

}  // namespace tb
