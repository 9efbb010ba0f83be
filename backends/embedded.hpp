// Files compiled into the binary (kernel sources, the prelude), keyed by their path
// relative to the repository root, e.g. "programs/mandelbrot/kernels.cl".
#pragma once

#include <map>
#include <string>
#include <string_view>

namespace tb {

const std::map<std::string, std::string_view>& embedded_files();
// Throws tb::Error if the file was not embedded.
std::string embedded_file(const std::string& path);

}  // namespace tb
