// For tests that run only on Oclgrind (tests/oclgrind.cmake gives them it as their only
// OpenCL platform): whether a device is Oclgrind, and what Oclgrind reported.
#pragma once

#include <cstdlib>
#include <fstream>
#include <iterator>
#include <optional>
#include <string>

#include "device.hpp"

namespace tb {

inline bool on_oclgrind(const Device& dev) {
    return dev.info().platform == "Oclgrind";
}

// The text of OCLGRIND_LOG (empty: nothing reported), or nullopt when OCLGRIND_LOG is unset
// or the file cannot be read. Oclgrind truncates the file when the process opens its first
// context, so the text is this process's.
inline std::optional<std::string> oclgrind_report() {
    const char* path = std::getenv("OCLGRIND_LOG");
    if (!path || !*path) return std::nullopt;
    std::ifstream in(path);
    if (!in) return std::nullopt;
    return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

}  // namespace tb
