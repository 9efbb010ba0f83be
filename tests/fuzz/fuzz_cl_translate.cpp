// Fuzzes the OpenCL C -> CUDA rewriter (backends/cuda/cl_translate.cpp) with arbitrary
// source text. Contract: it returns a translation with exactly as many lines as the input
// and kernel signatures whose __local positions lie within the parameter list, or throws
// one tb::Error that is not an "internal error".
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>

#include "cl_translate.hpp"
#include "fuzz_common.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string src(reinterpret_cast<const char*>(data), size);
    tb::cuda::Translation t;
    if (!tb::fuzz::accepts("rewrite_local_params", [&] { t = tb::cuda::rewrite_local_params(src); })) return 0;
    using tb::fuzz::check;
    check(std::count(t.text.begin(), t.text.end(), '\n') == std::count(src.begin(), src.end(), '\n'),
          "the translation changed the number of lines");
    for (const auto& k : t.kernels) {
        check(!k.name.empty(), "a kernel without a name");
        check(std::is_sorted(k.local_params.begin(), k.local_params.end()), "__local positions out of order");
        for (int p : k.local_params)
            check(p >= 0 && p < k.param_count, "__local position " + std::to_string(p) + " outside the " +
                                                   std::to_string(k.param_count) + " parameters of " + k.name);
    }
    return 0;
}
