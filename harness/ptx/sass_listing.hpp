// SASS as `cuobjdump -sass` prints it, read per function, and how much of two listings
// runs in the same order: two builds of one kernel can have the same instructions and
// registers laid out differently, and run at different speeds (docs/ptx-tools.md).
#pragma once

#include <cstddef>
#include <map>
#include <string>
#include <vector>

namespace tb::ptx {

// Each function's instructions in address order, without addresses, encodings or the
// final " ;": "IMAD.WIDE R8, R13, 0x4, R2". Text outside "Function : NAME" sections is
// ignored, so a file of several modules or none gives what it holds.
std::map<std::string, std::vector<std::string>> sass_functions(const std::string& cuobjdump_text);

// How often each opcode occurs in a listing, by its name without modifiers or predicate
// ("@!P0 LDG.E.128 R4, ..." counts as "LDG"): where two layouts of one kernel differ in
// kind (constant-bank reloads, warp-synchronisation sequences), not only in order.
std::map<std::string, int> sass_opcode_counts(const std::vector<std::string>& listing);

// The length of the longest common subsequence of two listings: the instructions the two
// have in the same order.
std::size_t common_order(const std::vector<std::string>& a, const std::vector<std::string>& b);

}  // namespace tb::ptx
