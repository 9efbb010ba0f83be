// The test inputs in tests/data (TRIBENCH_TEST_DATA, set by tests/CMakeLists.txt): read
// whole; a file that cannot be read throws, so a test never runs on an empty source.
#pragma once

#include <fstream>
#include <iterator>
#include <stdexcept>
#include <string>

#include "device.hpp"

namespace tb::test {

inline std::string test_data_text(const std::string& name) {
    const std::string path = std::string(TRIBENCH_TEST_DATA) + "/" + name;
    std::ifstream in(path, std::ios::binary);
    if (!in) throw std::runtime_error("cannot read test data " + path);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// tests/data/<name> as a kernel source, named as the tests' messages expect.
inline Source test_data_source(const std::string& name, Dialect dialect = Dialect::OpenCL) {
    return Source{"tests/data/" + name, test_data_text(name), dialect};
}

}  // namespace tb::test
