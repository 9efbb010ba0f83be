// What `run --validate-only` prints instead of the timing table: one line per benchmark and
// a summary, for people checking a device or compiler for correctness, and for CI logs.
#pragma once

#include <string>

#include "results/results.hpp"

namespace tb {

// "STATUS  NAME  DETAIL" per benchmark, columns aligned: the validation's one-line detail
// (ok, validation_failed) or the error (error, skipped); then
// "tribench: K of N benchmarks validated; nothing timed (--validate-only)". With color,
// ok is green and failures red, as in the timing table.
std::string format_validation_lines(const Results& r, bool color);

}  // namespace tb
