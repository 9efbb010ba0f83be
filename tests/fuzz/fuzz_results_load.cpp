// Fuzzes the results-file reader from raw bytes, through load_results() as `tribench
// compare` and `tribench report` call it (read the file, parse JSON, check the schema).
// Contract: one tb::Error for anything that is not a valid results file; an accepted file
// survives being written back and re-read unchanged.
#include <cstddef>
#include <cstdint>
#include <string>

#include "results_roundtrip.hpp"

namespace {

tb::fuzz::ScratchFile& scratch() {
    static tb::fuzz::ScratchFile file;
    return file;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    scratch().write(data, size);

    tb::Results r;
    if (tb::fuzz::accepts("load_results", [&] { r = tb::load_results(scratch().path()); })) tb::fuzz::check_roundtrip(r);
    return 0;
}
