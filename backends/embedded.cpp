#include "embedded.hpp"

#include "device.hpp"

namespace tb {

std::string embedded_file(const std::string& path) {
    const auto& files = embedded_files();
    auto it = files.find(path);
    if (it == files.end()) throw Error("no embedded file " + path);
    return std::string(it->second);
}

}  // namespace tb
