// Turns a program's OpenCL C (kernels.cl) into CUDA C++ that NVRTC compiles: the prelude
// (prelude.cuh) supplies the OpenCL built-ins, and each `__local` pointer parameter of a
// kernel becomes a byte offset into one `extern __shared__` buffer, so the host passes
// local-memory sizes exactly as it does for OpenCL. Translation keeps line numbers, so
// compiler messages point at the user's kernels.cl.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace tb::cuda {

// Every local-memory block starts at a multiple of this many bytes.
inline constexpr std::size_t kLocalAlign = 16;

struct KernelSignature {
    std::string name;
    int param_count = 0;             // parameters in the OpenCL signature
    std::vector<int> local_params;   // positions (0-based) of the __local pointer parameters
};

struct Translation {
    std::string text;  // CUDA C++ for NVRTC
    std::vector<KernelSignature> kernels;
};

// Only the source rewriting (no prelude): same number of lines as the input. Besides the
// __local parameters it renames `kernel`/`global`/`local`/`constant`/`private` to their `__`
// spellings, drops `__local` from other pointer types, turns program-scope `__constant`
// into `__constant__` and blanks `#pragma OPENCL` lines (docs/prelude.md). Throws tb::Error
// on a kernel signature it cannot rewrite (names the kernel and the parameter).
Translation rewrite_local_params(const std::string& cl_source);

// The full NVRTC input: prelude, then `#line 1 "<file_name>"`, then the rewritten source.
Translation translate_opencl(const std::string& cl_source, const std::string& file_name);

}  // namespace tb::cuda
