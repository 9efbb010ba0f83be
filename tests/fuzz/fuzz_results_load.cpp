// Fuzzes the results-file reader from raw bytes, through load_results() as `tribench
// compare` and `tribench report` call it (read the file, parse JSON, check the schema).
// Contract: one tb::Error for anything that is not a valid results file; an accepted file
// survives being written back and re-read unchanged.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>

#include "results_roundtrip.hpp"

namespace {

const std::string& scratch_path() {
    static const std::string path = "/tmp/tribench-fuzz-results-" + std::to_string(getpid()) + ".json";
    return path;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    std::FILE* f = std::fopen(scratch_path().c_str(), "wb");
    if (!f) tb::fuzz::finding("cannot write " + scratch_path());
    if (size && std::fwrite(data, 1, size, f) != size) tb::fuzz::finding("short write to " + scratch_path());
    std::fclose(f);

    tb::Results r;
    if (tb::fuzz::accepts("load_results", [&] { r = tb::load_results(scratch_path()); })) tb::fuzz::check_roundtrip(r);
    return 0;
}
