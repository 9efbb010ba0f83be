// Per-kernel fingerprints of PTX, recorded in results so that a speed change can be tied
// to a code-generation change.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>

#include "fnv1a.hpp"

namespace tb {

// Kernel name -> FNV-1a 64 (hex) of that kernel's `.entry` text; empty map for empty PTX.
std::map<std::string, std::string> ptx_hashes(const std::string& ptx);

}  // namespace tb
