// `tribench ptx`: the PTX of every program's kernels, per backend. Both CUDA backends go
// through NVRTC and need no GPU; opencl needs NVIDIA's OpenCL platform, whose program
// binary is PTX.
#include <filesystem>
#include <iostream>

#include "atomic_file.hpp"
#include "commands.hpp"
#include "selection.hpp"
#ifdef TRIBENCH_HAVE_CUDA
#include "cuda/nvrtc_api.hpp"
#endif

namespace tb {

namespace {

std::string default_arch() {
    try {
        auto cuda = make_backend("cuda-native");
        for (const auto& d : cuda->devices())
            if (d.cc_major) return "sm_" + std::to_string(d.cc_major) + std::to_string(d.cc_minor);
    } catch (const Error&) {
        // No driver or no GPU: fall back to Hopper, the suite's reference machine.
    }
    return "sm_90";
}

std::string cuda_ptx(const Program& p, Dialect d, const CompileOptions& co, const std::string& arch) {
#ifdef TRIBENCH_HAVE_CUDA
    return cuda::compile_to_ptx(program_source(p, d), co, arch).ptx;
#else
    (void)p, (void)d, (void)co, (void)arch;
    throw Error("built without the CUDA toolkit");
#endif
}

}  // namespace

int cmd_ptx(const PtxOptions& o) {
    std::vector<const Program*> programs;
    for (const auto& n : split_list(o.programs)) programs.push_back(&find_program(n));
    if (programs.empty()) programs = all_programs();
    std::vector<std::string> backends = split_list(o.backends);
    const bool explicit_backends = !backends.empty();
    if (backends.empty()) backends = backend_ids();
    for (const auto& b : backends) make_backend(b);  // unknown ids fail first

    CompileOptions co;
    co.math = math_mode_from_string(o.math);
    const std::string arch = o.arch.empty() ? default_arch() : o.arch;
    if (arch.rfind("sm_", 0) != 0 && arch.rfind("compute_", 0) != 0)
        throw Error("bad --arch '" + arch + "' (expected sm_XX or compute_XX)");

    // opencl: the first NVIDIA device of the OpenCL backend, if any.
    std::unique_ptr<Device> cl_device;
    std::string cl_unavailable;
    if (std::find(backends.begin(), backends.end(), "opencl") != backends.end()) {
        try {
            auto cl = make_backend("opencl");
            const auto devs = cl->devices();
            for (std::size_t i = 0; i < devs.size() && !cl_device; ++i)
                if (devs[i].is_nvidia) cl_device = cl->open(i);
            if (!cl_device) cl_unavailable = "no NVIDIA OpenCL device (only NVIDIA's platform yields PTX)";
        } catch (const Error& e) {
            cl_unavailable = e.what();
        }
    }

    int failures = 0;
    for (const Program* p : programs) {
        const std::string dir = o.out + "/" + p->name();
        std::filesystem::create_directories(dir);
        for (const auto& b : backends) {
            const std::string path = dir + "/" + b + ".ptx";
            try {
                std::string ptx;
                if (b == "opencl") {
                    if (!cl_device) {
                        if (explicit_backends) throw Error(cl_unavailable);
                        continue;
                    }
                    CompileOptions clo = co;
                    for (const auto& d : p->defines()) clo.defines.push_back(d);
                    ptx = cl_device->compile(program_source(*p, Dialect::OpenCL), clo)->ptx;
                } else {
                    CompileOptions cuo = co;
                    for (const auto& d : p->defines()) cuo.defines.push_back(d);
                    ptx = cuda_ptx(*p, b == "cuda-native" ? Dialect::Cuda : Dialect::OpenCL, cuo, arch);
                }
                write_file_atomically(path, ptx);
                std::cout << path << "\n";
            } catch (const Error& e) {
                const std::string msg = e.what();
                std::cerr << "tribench: " << p->name() << "/" << b << ": " << msg << "\n";
                ++failures;
            }
        }
    }
    return failures ? 1 : 0;
}

}  // namespace tb
