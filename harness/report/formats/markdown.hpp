// The Markdown format (reporter "markdown"), for a pull-request comment and
// $GITHUB_STEP_SUMMARY.
#pragma once

#include <cstddef>
#include <string>

#include "compare/compare.hpp"
#include "report/text_format.hpp"

namespace tb {

// Failing benchmarks first, the rest folded in <details>; rows beyond max_bytes (0: no
// limit) are left out and counted.
std::string comparison_markdown(const Comparison& c, const RunLabels& l, std::size_t max_bytes = 0);
std::string matrix_markdown(const BackendMatrix& m, const std::string& run);

}  // namespace tb
