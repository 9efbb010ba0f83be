// NumPy .npy (format 1.0) writer, so anyone can check inputs and outputs independently.
#pragma once

#include <string>

#include "program.hpp"

namespace tb {

std::string npy_bytes(const NamedArray& a);
// Writes DIR/<stem>.<array name>.npy atomically.
void save_npy(const std::string& dir, const std::string& stem, const NamedArray& a);

}  // namespace tb
