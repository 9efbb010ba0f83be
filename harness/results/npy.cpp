#include "results/npy.hpp"

#include "support/atomic_file.hpp"

namespace tb {

std::string npy_bytes(const NamedArray& a) {
    std::string shape = "(";
    for (std::size_t i = 0; i < a.shape.size(); ++i) shape += std::to_string(a.shape[i]) + (a.shape.size() == 1 ? "," : (i + 1 < a.shape.size() ? ", " : ""));
    shape += ")";
    std::string header = "{'descr': '" + a.dtype + "', 'fortran_order': False, 'shape': " + shape + ", }";
    // Magic (6) + version (2) + header length (2) + header, padded with spaces to a multiple
    // of 64 and ended by a newline, as the format requires.
    const std::size_t unpadded = 10 + header.size() + 1;
    header.append((64 - unpadded % 64) % 64, ' ');
    header.push_back('\n');
    std::string out("\x93NUMPY\x01\x00", 8);
    out.push_back(char(header.size() & 0xff));
    out.push_back(char(header.size() >> 8));
    out += header;
    out.append(reinterpret_cast<const char*>(a.data.data()), a.data.size());
    return out;
}

void save_npy(const std::string& dir, const std::string& stem, const NamedArray& a) {
    write_file_atomically(dir + "/" + stem + "." + a.name + ".npy", npy_bytes(a));
}

}  // namespace tb
