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

// The length of the longest common subsequence of two listings: the instructions the two
// have in the same order.
std::size_t common_order(const std::vector<std::string>& a, const std::vector<std::string>& b);

}  // namespace tb::ptx
