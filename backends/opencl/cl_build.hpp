// Building an OpenCL C source for one device: math-mode options, the build log, and the
// program binary (PTX text on NVIDIA's platform).
#pragma once

#include <string>

#include "cl_api.hpp"
#include "device.hpp"

namespace tb::cl {

// The clBuildProgram options of a compile: default -> none, precise ->
// -cl-fp32-correctly-rounded-divide-sqrt, fast -> -cl-fast-relaxed-math; then one -D per
// define. Throws tb::Error for a define that is empty or holds white space.
std::string build_options(const CompileOptions& opt);

struct BuiltProgram {
    cl_program program = nullptr;  // owned by the caller (clReleaseProgram)
    std::string log;               // the compiler's messages, also on success
    std::string binary;            // CL_PROGRAM_BINARIES, only when asked for
    double compile_ms = 0;         // wall time of create + build
};

struct BuildTarget {
    cl_context context = nullptr;
    cl_device_id device = nullptr;
    std::string device_name;  // for error messages
    bool want_binary = false;
};

// Compiles src for the target. The source is preceded by a #line directive so that the
// compiler's messages name src.file_name with the file's own line numbers. On failure
// throws tb::Error("<file_name>: OpenCL build failed on <device>\n<build log>").
BuiltProgram build_program(const BuildTarget& target, const Source& src, const CompileOptions& opt);

// CL_PROGRAM_BINARIES of a program built for one device (PTX text on NVIDIA's platform).
std::string program_binary(cl_program program);

}  // namespace tb::cl
