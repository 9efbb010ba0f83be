#include "read_file.hpp"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include "device.hpp"
#include "printable.hpp"

namespace tb {

std::string read_file(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw Error("cannot read " + printable_path(path) + ": " + std::strerror(errno));
    std::ostringstream ss;
    ss << in.rdbuf();
    if (in.bad()) throw Error("cannot read " + printable_path(path) + ": read error");
    return std::move(ss).str();
}

}  // namespace tb
