// Reading PTX for comparison (`tribench ptxdiff`, docs/ptx-tools.md): split a module into
// its functions, normalise away what differs between two compilers without meaning
// anything (register numbers, label names, comments, debug lines, whitespace), count
// instructions by opcode and by class, and diff two normalised texts line by line.
// Pure functions: no I/O, so every rule is unit-tested on checked-in PTX.
#pragma once

#include <cstddef>
#include <map>
#include <string>
#include <vector>

namespace tb::ptx {

// One function of a module, normalised: one statement per line (a multi-line `call` is
// joined, two statements on a line are split), in source order.
struct Function {
    std::string name;
    bool entry = false;              // .entry (a kernel) rather than .func
    std::vector<std::string> lines;  // header lines, then body statements
};

// Every function with a body (.entry and .func; prototypes are skipped), normalised by the
// rules of docs/ptx-tools.md:
//   - comments, blank lines, .loc and .file lines dropped; whitespace collapsed;
//   - virtual registers (%r, %rd, %rs, %rq, %f, %fd, %h, %hh, %p followed by digits)
//     renumbered per prefix by first appearance in the function: %r1, %r2, ...;
//     special registers (%tid.x, %clock64, %envreg3, ...) untouched;
//   - .reg declaration counts written %r<N>; labels $L__... renamed L1, L2, ... by first
//     appearance; __local_depotK written __local_depot.
std::vector<Function> parse_functions(const std::string& ptx);

// The `.target` of a module ("sm_90" from ".target sm_90, texmode_independent"), or "".
std::string ptx_target(const std::string& ptx);

// True for a normalised line that is an instruction (not a directive, label or brace).
bool is_instruction(const std::string& line);
// "ld.global.nc.v4.f32" from "@!%p1 ld.global.nc.v4.f32 {%f1, ...}, [%rd1];".
std::string opcode_of(const std::string& instruction);
// The class of an opcode (docs/ptx-tools.md): "load.global.nc.v4", "fp32.div.rn",
// "int.rem.u32", "cvt.f32.s32", "barrier.cta", "atomic.global.add", "branch.uni",
// "shuffle.down", ... and "other" for everything not singled out.
std::string classify(const std::string& opcode);

struct Histogram {
    int instructions = 0;
    std::map<std::string, int> opcodes;
    std::map<std::string, int> classes;
};
Histogram histogram(const std::vector<std::string>& lines);

// A count on both sides: B - A is the delta.
struct CountDelta {
    std::string key;
    int a = 0, b = 0;
    int delta() const { return b - a; }
};
// Keys whose counts differ, largest |delta| first (ties by key), at most `top` of them
// (0: all).
std::vector<CountDelta> largest_differences(const std::map<std::string, int>& a,
                                            const std::map<std::string, int>& b, std::size_t top);

// A shortest edit script between two line sequences (Myers' algorithm, linear space).
enum class Edit { Same, Removed, Added };
struct DiffLine {
    Edit edit;
    std::size_t a = 0;  // index into A (Same, Removed)
    std::size_t b = 0;  // index into B (Same, Added)
};
std::vector<DiffLine> diff_lines(const std::vector<std::string>& a, const std::vector<std::string>& b);

// A normalised line without its register and label numbers ("add.f32 %f, %f, %f;",
// "@%p bra L;"). Numbering by first appearance drifts after the first instruction one side
// has more of, so ptxdiff aligns two functions on these shapes, not on the numbered text.
std::string shape_of(const std::string& line);
// diff_lines on the shapes of the lines.
std::vector<DiffLine> diff_shapes(const std::vector<std::string>& a, const std::vector<std::string>& b);

// `diff -u` layout of the edit script `ops` of A and B: "--- label_a", "+++ label_b", then
// hunks "@@ -l,n +l,n @@" with `context` unchanged lines (shown as in A) around each change.
// Empty when there is no change.
std::string format_unified(const std::vector<std::string>& a, const std::vector<std::string>& b,
                           const std::vector<DiffLine>& ops, const std::string& label_a,
                           const std::string& label_b, std::size_t context = 3);
// format_unified(a, b, diff_lines(a, b), ...).
std::string unified_diff(const std::vector<std::string>& a, const std::vector<std::string>& b,
                         const std::string& label_a, const std::string& label_b, std::size_t context = 3);

}  // namespace tb::ptx
