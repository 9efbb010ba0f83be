// A whole file's bytes, for every layer above (kernel sources and PTX of TRIBENCH_KERNEL_DIR,
// results and noise files, PTX dumps).
#pragma once

#include <string>

namespace tb {

// Throws tb::Error("cannot read <path>: <reason>"), the path printable.
std::string read_file(const std::string& path);

}  // namespace tb
