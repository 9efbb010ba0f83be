// What the PTX readers (ptx_normalise.cpp, ptx_classes.cpp, ptx_line_diff.cpp) share:
// character classes and the names of virtual registers. Internal to ptx/.
#pragma once

#include <cctype>
#include <set>
#include <string>

namespace tb::ptx {

inline bool is_ident_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '$'; }
inline bool is_space(char c) { return std::isspace(static_cast<unsigned char>(c)) != 0; }

// The prefixes of virtual registers ("r" of %r12, "rd", "f", ...).
const std::set<std::string>& virtual_register_prefixes();

}  // namespace tb::ptx
