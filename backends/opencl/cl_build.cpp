#include "cl_build.hpp"

#include <chrono>
#include <vector>

#include "cl_info.hpp"
#include "cl_launch_bounds.hpp"
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


// Precise mode must not silently lose its meaning on a device without the feature.
void require_correctly_rounded(const BuildTarget& t, const Source& src) {
    const auto fp = device_value<cl_device_fp_config>(t.device, CL_DEVICE_SINGLE_FP_CONFIG, "CL_DEVICE_SINGLE_FP_CONFIG");
    if (!(fp & CL_FP_CORRECTLY_ROUNDED_DIVIDE_SQRT))
        throw Error(src.file_name + ": math mode precise needs correctly rounded single-precision divide and sqrt, which " +
                    t.device_name + " does not support");
}

// kernels.cl may give cuda-prelude launch bounds with a minimum of resident groups
// (TB_LAUNCH_BOUNDS, docs/prelude.md); OpenCL C cannot ask for that, so to the compiler it
// says nothing (on NVIDIA's platform the bounds go into the PTX: with_launch_bounds).
std::string launch_bounds_preamble(const std::string& source) {
    if (source.find("TB_LAUNCH_BOUNDS") == std::string::npos) return "";
    return "#define TB_LAUNCH_BOUNDS(max_items, min_groups_per_cu)\n";
}

// The value a probe kernel's reqd_work_group_size gives (its first dimension).
std::uint64_t probe_value(cl_program program, cl_device_id device, const std::string& name) {
    const Api& a = api();
    cl_int rc = CL_SUCCESS;
    cl_kernel k = a.CreateKernel(program, name.c_str(), &rc);
    check(rc, "clCreateKernel(" + name + ")");
    std::size_t size[3] = {0, 0, 0};
    rc = a.GetKernelWorkGroupInfo(k, device, CL_KERNEL_COMPILE_WORK_GROUP_SIZE, sizeof size, size, nullptr);
    a.ReleaseKernel(k);
    check(rc, "clGetKernelWorkGroupInfo(" + name + ", CL_KERNEL_COMPILE_WORK_GROUP_SIZE)");
    return size[0];
}

// The value of each kernel's bounds: the source with probe kernels appended, built as a
// program of its own (the probes must not reach the program that runs: NVIDIA's PTX lists
// every kernel's attributes in a metadata section).
std::vector<EntryBounds> evaluate_bounds(const BuildTarget& t, const Source& src, const std::string& text,
                                         const std::string& options, const std::vector<DeclaredBounds>& bounds) {
    const Api& a = api();
    const std::string probed = text + bounds_probe_source(bounds);
    const char* strings[] = {probed.c_str()};
    const std::size_t lengths[] = {probed.size()};
    cl_int rc = CL_SUCCESS;
    cl_program program = a.CreateProgramWithSource(t.context, 1, strings, lengths, &rc);
    check(rc, "clCreateProgramWithSource(" + src.file_name + " launch bounds)");
    std::vector<EntryBounds> values;
    try {
        rc = a.BuildProgram(program, 1, &t.device, options.c_str(), nullptr, nullptr);
        if (rc != CL_SUCCESS)
            throw Error(src.file_name + ": its TB_LAUNCH_BOUNDS arguments did not compile on " + t.device_name + "\n" +
                        build_log(program, t.device));
        for (const auto& b : bounds) {
            values.push_back({b.kernel, probe_value(program, t.device, bounds_probe_name(b.kernel, "max")),
                              probe_value(program, t.device, bounds_probe_name(b.kernel, "min"))});
            if (values.back().max_items == 0 || values.back().min_groups == 0)
                throw Error(src.file_name + ": TB_LAUNCH_BOUNDS of kernel '" + b.kernel + "' evaluates to 0");
        }
    } catch (...) {
        a.ReleaseProgram(program);
        throw;
    }
    a.ReleaseProgram(program);
    return values;
}

// A program built from PTX text (`what` says which, for messages); its build messages are
// added to `log`.
cl_program build_from_ptx(const BuildTarget& t, const std::string& what, const std::string& ptx, std::string& log) {
    const Api& a = api();
    const unsigned char* bytes = reinterpret_cast<const unsigned char*>(ptx.c_str());
    const std::size_t size = ptx.size() + 1;  // with the terminating NUL, as the platform hands PTX out
    cl_int status = CL_SUCCESS, rc = CL_SUCCESS;
    cl_program program = a.CreateProgramWithBinary(t.context, 1, &t.device, &size, &bytes, &status, &rc);
    check(rc, "clCreateProgramWithBinary(" + what + ")");
    rc = status == CL_SUCCESS ? a.BuildProgram(program, 1, &t.device, "", nullptr, nullptr) : status;
    if (rc != CL_SUCCESS) {
        const std::string why = build_log(program, t.device);
        a.ReleaseProgram(program);
        throw Error(what + " did not build on " + t.device_name + " (" + error_name(rc) + ")" +
                    (why.empty() ? "" : "\n" + why));
    }
    const std::string more = build_log(program, t.device);
    if (!more.empty()) log += (log.empty() ? "" : "\n") + more;
    return program;
}

}  // namespace

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

namespace {

// PTX given with the source (TRIBENCH_KERNEL_DIR's kernels.cl.opencl.ptx), built as it is:
// on NVIDIA's platform only, whose program binaries are PTX in its own conventions.
BuiltProgram build_given_ptx(const BuildTarget& t, const Source& src) {
    if (!is_nvidia_platform(device_value<cl_platform_id>(t.device, CL_DEVICE_PLATFORM, "CL_DEVICE_PLATFORM")))
        throw Error(src.opencl_ptx_file + ": PTX for NVIDIA's OpenCL, and " + t.device_name +
                    " is on another platform (remove the file to compile " + src.file_name + ")");
    note_given_ptx(src.opencl_ptx_file, src.file_name, "opencl's compiler");
    BuiltProgram out;
    const auto start = std::chrono::steady_clock::now();
    out.program = build_from_ptx(t, src.opencl_ptx_file, src.opencl_ptx, out.log);
    out.log = "PTX read from " + src.opencl_ptx_file + ", not compiled" + (out.log.empty() ? "" : "\n" + out.log);
    out.compile_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    if (t.want_binary) out.binary = src.opencl_ptx;
    return out;
}

}  // namespace

BuiltProgram build_program(const BuildTarget& t, const Source& src, const CompileOptions& opt) {
    const Api& a = api();
    if (src.dialect != Dialect::OpenCL)
        throw Error(src.file_name + ": the opencl backend compiles OpenCL C sources only");
    if (!src.opencl_ptx.empty()) return build_given_ptx(t, src);
    const std::string options = build_options(opt);
    if (opt.math == MathMode::Precise) require_correctly_rounded(t, src);

    // A source using sub-groups or load hints first gets this device's versions of them
    // (cl_subgroups.hpp, cl_load_hints.hpp). Launch bounds, on NVIDIA's platform, go into
    // the program's PTX, which is then built instead (cl_launch_bounds.hpp).
    std::vector<DeclaredBounds> bounds;
    if (src.text.find("TB_LAUNCH_BOUNDS") != std::string::npos && launch_bounds_mode(t.device) == LaunchBoundsMode::Ptx) {
        try {
            bounds = declared_launch_bounds(src.text);
        } catch (const Error& e) {
            throw Error(src.file_name + ": " + e.what());
        }
    }
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
        if (rc == CL_BUILD_PROGRAM_FAILURE || rc == CL_COMPILE_PROGRAM_FAILURE)
            throw Error(src.file_name + ": OpenCL build failed on " + t.device_name + "\n" +
                        build_log(out.program, t.device));
        check(rc, "clBuildProgram(" + src.file_name + ", options \"" + options + "\")");
        out.log = build_log(out.program, t.device);
        std::string ptx;
        if (!bounds.empty()) {
            ptx = add_launch_bounds_to_ptx(program_binary(out.program),
                                           evaluate_bounds(t, src, text, options, bounds));
            a.ReleaseProgram(out.program);
            out.program = nullptr;
            out.program = build_from_ptx(t, src.file_name + ": its PTX with launch bounds", ptx, out.log);
        }
        out.compile_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
        if (t.want_binary) out.binary = bounds.empty() ? program_binary(out.program) : std::move(ptx);
    } catch (...) {
        if (out.program) a.ReleaseProgram(out.program);
        throw;
    }
    return out;
}

}  // namespace tb::cl
