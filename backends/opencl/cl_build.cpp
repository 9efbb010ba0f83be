#include "cl_build.hpp"

#include <chrono>
#include <vector>

#include "cl_info.hpp"
#include "cl_load_hints.hpp"
#include "cl_subgroups.hpp"

namespace tb::cl {
namespace {

std::string trim_end(std::string s) {
    while (!s.empty() && (s.back() == '\0' || s.back() == '\n' || s.back() == ' ' || s.back() == '\r')) s.pop_back();
    return s;
}

// `#line 1 "name"`: quotes and backslashes escaped so any file name stays one string literal.
std::string line_directive(const std::string& file_name) {
    std::string quoted;
    for (char c : file_name) {
        if (c == '"' || c == '\\') quoted += '\\';
        quoted += (c == '\n' || c == '\r') ? '?' : c;
    }
    return "#line 1 \"" + quoted + "\"\n";
}

std::string build_log(cl_program program, cl_device_id device) {
    const Api& a = api();
    std::size_t size = 0;
    check(a.GetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_LOG, 0, nullptr, &size),
          "clGetProgramBuildInfo(CL_PROGRAM_BUILD_LOG)");
    std::string log(size, '\0');
    if (size > 0)
        check(a.GetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_LOG, size, log.data(), nullptr),
              "clGetProgramBuildInfo(CL_PROGRAM_BUILD_LOG)");
    return trim_end(std::move(log));
}

// The program was built for exactly one device, so there is one binary.
std::string program_binary(cl_program program) {
    const Api& a = api();
    std::size_t size = 0;
    check(a.GetProgramInfo(program, CL_PROGRAM_BINARY_SIZES, sizeof size, &size, nullptr),
          "clGetProgramInfo(CL_PROGRAM_BINARY_SIZES)");
    std::string bin(size, '\0');
    unsigned char* ptr = reinterpret_cast<unsigned char*>(bin.data());
    if (size > 0)
        check(a.GetProgramInfo(program, CL_PROGRAM_BINARIES, sizeof ptr, &ptr, nullptr),
              "clGetProgramInfo(CL_PROGRAM_BINARIES)");
    // PTX text ends in a NUL the string does not need.
    while (!bin.empty() && bin.back() == '\0') bin.pop_back();
    return bin;
}

// Precise mode must not silently lose its meaning on a device without the feature.
void require_correctly_rounded(const BuildTarget& t, const Source& src) {
    const auto fp = device_value<cl_device_fp_config>(t.device, CL_DEVICE_SINGLE_FP_CONFIG, "CL_DEVICE_SINGLE_FP_CONFIG");
    if (!(fp & CL_FP_CORRECTLY_ROUNDED_DIVIDE_SQRT))
        throw Error(src.file_name + ": math mode precise needs correctly rounded single-precision divide and sqrt, which " +
                    t.device_name + " does not support");
}

// kernels.cl may give cuda-prelude launch bounds with a minimum of resident groups
// (TB_LAUNCH_BOUNDS, docs/prelude.md); OpenCL C cannot ask for that, so here it says nothing.
std::string launch_bounds_preamble(const std::string& source) {
    if (source.find("TB_LAUNCH_BOUNDS") == std::string::npos) return "";
    return "#define TB_LAUNCH_BOUNDS(max_items, min_groups_per_cu)\n";
}

}  // namespace

std::string build_options(const CompileOptions& opt) {
    std::string o;
    switch (opt.math) {
        case MathMode::Default: break;
        // Denormals stay on: -cl-denorms-are-zero is deliberately not passed.
        case MathMode::Precise: o = "-cl-fp32-correctly-rounded-divide-sqrt"; break;
        case MathMode::Fast: o = "-cl-fast-relaxed-math"; break;
    }
    for (const auto& d : opt.defines) {
        if (d.empty() || d.find_first_of(" \t\r\n") != std::string::npos)
            throw Error("invalid define '" + d + "': expected NAME or NAME=VALUE without spaces");
        o += (o.empty() ? "-D" : " -D") + d;
    }
    return o;
}

BuiltProgram build_program(const BuildTarget& t, const Source& src, const CompileOptions& opt) {
    const Api& a = api();
    if (src.dialect != Dialect::OpenCL)
        throw Error(src.file_name + ": the opencl backend compiles OpenCL C sources only");
    const std::string options = build_options(opt);
    if (opt.math == MathMode::Precise) require_correctly_rounded(t, src);

    // A source using sub-groups or load hints first gets this device's versions of them
    // (cl_subgroups.hpp, cl_load_hints.hpp).
    const std::string text = subgroup_preamble(t.device, src.text) + load_hint_preamble(t.device, src.text) +
                             launch_bounds_preamble(src.text) + line_directive(src.file_name) + src.text;
    const char* strings[] = {text.c_str()};
    const std::size_t lengths[] = {text.size()};

    BuiltProgram out;
    const auto start = std::chrono::steady_clock::now();
    cl_int rc = CL_SUCCESS;
    out.program = a.CreateProgramWithSource(t.context, 1, strings, lengths, &rc);
    check(rc, "clCreateProgramWithSource");
    try {
        rc = a.BuildProgram(out.program, 1, &t.device, options.c_str(), nullptr, nullptr);
        out.compile_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
        if (rc == CL_BUILD_PROGRAM_FAILURE || rc == CL_COMPILE_PROGRAM_FAILURE)
            throw Error(src.file_name + ": OpenCL build failed on " + t.device_name + "\n" +
                        build_log(out.program, t.device));
        check(rc, "clBuildProgram(" + src.file_name + ", options \"" + options + "\")");
        out.log = build_log(out.program, t.device);
        if (t.want_binary) out.binary = program_binary(out.program);
    } catch (...) {
        a.ReleaseProgram(out.program);
        throw;
    }
    return out;
}

}  // namespace tb::cl
