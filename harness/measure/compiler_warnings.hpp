// The warnings in a kernel compiler's log (NVRTC's, an OpenCL platform's), boiled down for
// the terminal: a compile that succeeds with warnings says so, each distinct one once.
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

namespace tb {

struct CompilerWarning {
    std::string text;  // the log's line, as the compiler wrote it
    int count = 0;     // how many times the log has it (once per kernel it was inlined into, say)
};

// The log's warning lines (those with "warning:", "warning #N-D:" or "warning :"), each
// distinct line once, in the order first seen. Lines around them (source excerpts, carets,
// notes, "Remark: The warnings can be suppressed ...") are left out.
std::vector<CompilerWarning> distinct_warnings(const std::string& log);

// Nothing when the log has no warning; else "tribench: WHERE: N compiler warning(s)[, K
// distinct]:" and the first `most` distinct ones, indented, with "(xC)" where repeated.
void print_compiler_warnings(std::ostream& os, const std::string& where, const std::string& log, std::size_t most = 5);

}  // namespace tb
