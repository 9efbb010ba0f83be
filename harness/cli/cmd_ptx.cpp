// `tribench ptx`: the PTX of every program's kernels, per backend, with what the assembler
// makes of it (docs/ptx-tools.md). Both CUDA backends go through NVRTC and need no GPU;
// opencl needs NVIDIA's OpenCL platform, whose program binary is PTX. Resources come from
// `ptxas -v` (no GPU needed) and, on a CUDA GPU, also from the loaded functions.
#include <algorithm>
#include <filesystem>
#include <iostream>
#include <map>
#include <regex>

#include <nlohmann/json.hpp>

#include "support/atomic_file.hpp"
#include "cli/commands.hpp"
#include "cli/run_checks.hpp"
#include "printable.hpp"
#include "ptx/ptx_analysis.hpp"
#include "ptx/ptx_resources.hpp"
#include "plan/selection.hpp"
#ifdef TRIBENCH_HAVE_CUDA
#include "cuda/cuda_api.hpp"
#include "cuda/nvrtc_api.hpp"
#endif

namespace tb {

namespace {

struct OpenClProbe {
    Device* device = nullptr;
    std::string why;  // when there is none
};

CompileOptions options_for(const Program& p, const std::string& math) {
    CompileOptions co;
    co.math = math_mode_from_string(math);
    for (const auto& d : p.defines()) co.defines.push_back(d);
    return co;
}

nlohmann::json or_null(long v) { return v < 0 ? nlohmann::json(nullptr) : nlohmann::json(v); }

nlohmann::json to_json(const ptx::FunctionResources& f) {
    nlohmann::json cmem = nlohmann::json::object();
    for (const auto& [bank, bytes] : f.const_bytes) cmem[std::to_string(bank)] = bytes;
    return {{"registers", or_null(f.registers)},
            {"barriers", or_null(f.barriers)},
            {"shared_bytes", or_null(f.shared_bytes)},
            {"const_bytes", cmem},
            {"stack_frame_bytes", or_null(f.stack_frame_bytes)},
            {"spill_store_bytes", or_null(f.spill_store_bytes)},
            {"spill_load_bytes", or_null(f.spill_load_bytes)},
            {"cumulative_stack_bytes", or_null(f.cumulative_stack_bytes)}};
}

// A CUDA device of one backend, kept open for the whole command so that every program's
// module is loaded by the driver and its functions' attributes read.
struct DriverProbe {
    std::unique_ptr<Backend> backend;
    std::unique_ptr<Device> device;
    std::string why;  // why there is none
};

DriverProbe open_cuda_device(const std::string& backend_id) {
    DriverProbe d;
    try {
        d.backend = make_backend(backend_id);
        if (d.backend->devices().empty()) d.why = "no CUDA device";
        else d.device = d.backend->open(0);
    } catch (const Error& e) {
        d.why = e.what();
    }
    return d;
}

// "driver" section of one kernel: what cuFuncGetAttribute says about the loaded function.
nlohmann::json driver_resources(Module& m, const std::string& kernel) {
#ifdef TRIBENCH_HAVE_CUDA
    const cuda::KernelResources r = cuda::kernel_resources(m.kernel(kernel));
    return {{"registers", r.registers},
            {"static_shared_bytes", r.static_shared_bytes},
            {"local_bytes", r.local_bytes},
            {"const_bytes", r.const_bytes},
            {"max_threads_per_block", r.max_threads_per_block},
            {"ptx_version", r.ptx_version},
            {"binary_version", r.binary_version}};
#else
    (void)m, (void)kernel;
    throw Error("built without the CUDA toolkit");
#endif
}

// Once per command: notes about missing tools go to stderr once, not per file.
void note_once(const std::string& msg, std::map<std::string, bool>& said) {
    if (said[msg]) return;
    said[msg] = true;
    std::cerr << "tribench: note: " << msg << "\n";
}

}  // namespace

Device& nvidia_opencl_device() {
    // Opened once and never closed: every opencl compile needs it, and tearing an OpenCL
    // platform down during static destruction is not worth the risk.
    static const OpenClProbe probe = [] {
        OpenClProbe p;
        try {
            auto cl = make_backend("opencl");
            const auto devs = cl->devices();
            for (std::size_t i = 0; i < devs.size() && !p.device; ++i)
                if (devs[i].is_nvidia) p.device = cl->open(i).release();
            if (!p.device) p.why = "no NVIDIA OpenCL device (only NVIDIA's platform yields PTX)";
        } catch (const Error& e) {
            p.why = e.what();
        }
        return p;
    }();
    if (!probe.device) throw Error("opencl PTX needs NVIDIA's OpenCL platform: " + probe.why);
    return *probe.device;
}

void check_ptx_arch(const std::string& arch) {
    // sm_90, compute_90, sm_90a, sm_100f: a compute capability of two or three digits.
    static const std::regex form("(sm|compute)_([1-9][0-9]{1,2})[af]?");
    std::smatch m;
    const bool well_formed = std::regex_match(arch, m, form);
    std::vector<int> known;
#ifdef TRIBENCH_HAVE_CUDA
    try {
        known = cuda::nvrtc_supported_archs();
    } catch (const Error&) {
        // No NVRTC here: only the form can be checked (compiling will say why it cannot).
    }
#endif
    if (well_formed && (known.empty() || std::count(known.begin(), known.end(), std::stoi(m[2].str())))) return;
    std::string list;
    for (int k : known) list += (list.empty() ? "" : " ") + std::to_string(k);
    throw Error("bad --arch '" + printable(arch) + "': expected sm_XX or compute_XX (optionally with an a or f suffix, e.g. sm_90, sm_90a)" +
                (known.empty() ? std::string() : ", XX one of NVRTC's " + list));
}

std::string default_ptx_arch() {
    try {
        auto cuda = make_backend("cuda-native");
        for (const auto& d : cuda->devices())
            if (d.cc_major) return "sm_" + std::to_string(d.cc_major) + std::to_string(d.cc_minor);
    } catch (const Error&) {
        // No driver or no GPU: fall back to Hopper, the suite's reference machine.
    }
    return "sm_90";
}

std::string program_ptx(const std::string& program, const std::string& backend, const std::string& math,
                        const std::string& arch) {
    const Program& p = find_program(program);
    make_backend(backend);  // unknown ids fail here
    const CompileOptions co = options_for(p, math);
    if (backend == "opencl") return nvidia_opencl_device().compile(program_source(p, Dialect::OpenCL), co)->ptx;
#ifdef TRIBENCH_HAVE_CUDA
    return cuda::compile_to_ptx(program_source(p, backend == "cuda-native" ? Dialect::Cuda : Dialect::OpenCL), co, arch)
        .ptx;
#else
    (void)arch;
    throw Error("built without the CUDA toolkit");
#endif
}

int cmd_ptx(const PtxOptions& o) {
    check_kernel_dir();  // a folder laid out otherwise would silently give the embedded kernels
    std::vector<const Program*> programs;
    for (const auto& n : split_list(o.programs)) programs.push_back(&find_program(n));
    if (programs.empty()) programs = all_programs();
    std::vector<std::string> backends = split_list(o.backends);
    const bool explicit_backends = !backends.empty();
    if (backends.empty()) backends = backend_ids();
    for (const auto& b : backends) make_backend(b);  // unknown ids fail first
    math_mode_from_string(o.math);                    // so does an unknown math mode

    const std::string arch = o.arch.empty() ? default_ptx_arch() : o.arch;
    check_ptx_arch(arch);  // a usage error now, not an NVRTC failure per program
    if (std::error_code ec; !std::filesystem::create_directories(o.out, ec) && ec)
        throw Error("cannot create " + printable_path(o.out) + ": " + ec.message());

    // On a CUDA GPU, each CUDA backend's device loads the modules for the driver's numbers.
    std::map<std::string, DriverProbe> drivers;
    for (const auto& b : backends)
        if (b != "opencl") drivers.emplace(b, open_cuda_device(b));

    std::map<std::string, bool> said;
    int failures = 0;
    for (const Program* p : programs) {
        const std::string dir = o.out + "/" + p->name();
        if (std::error_code ec; !std::filesystem::create_directories(dir, ec) && ec)
            throw Error("cannot create " + printable_path(dir) + ": " + ec.message());
        for (const auto& b : backends) {
            const std::string stem = dir + "/" + b;
            std::string ptx;
            try {
                if (b == "opencl") {
                    try {
                        nvidia_opencl_device();
                    } catch (const Error&) {
                        if (!explicit_backends) continue;  // all backends asked: skip quietly
                        throw;
                    }
                }
                ptx = program_ptx(p->name(), b, o.math, arch);
                write_file_atomically(stem + ".ptx", ptx);
                std::cout << stem << ".ptx\n";
            } catch (const Error& e) {
                const std::string msg = e.what();
                std::cerr << "tribench: " << p->name() << "/" << b << ": " << msg << "\n";
                ++failures;
                continue;
            }

            // Resources: never a failure of `ptx` (the PTX is written); the JSON says what
            // could not be measured and why.
            nlohmann::json j = {{"program", p->name()}, {"backend", b}, {"math", o.math}, {"arch", arch}};
            nlohmann::json kernels = nlohmann::json::object(), funcs = nlohmann::json::object();
            std::vector<std::string> kernel_names;
            for (const auto& f : ptx::parse_functions(ptx)) {
                if (f.entry) kernel_names.push_back(f.name);
                (f.entry ? kernels : funcs)[f.name] = nlohmann::json::object();
            }
            std::string target = ptx::ptx_target(ptx);  // what the PTX itself asks for
            if (target.empty()) target = arch;
            try {
                const ptx::Assembly a = ptx::assemble(ptx, target, true);
                j["ptxas"] = {{"path", a.ptxas}, {"gpu_name", target}, {"global_bytes", or_null(a.report.global_bytes)},
                              {"warnings", a.report.warnings}};
                for (const auto& f : a.report.functions)
                    (f.entry || kernels.contains(f.name) ? kernels : funcs)[f.name]["ptxas"] = to_json(f);
                if (!a.sass.empty()) {
                    write_file_atomically(stem + ".sass", a.sass);
                    std::cout << stem << ".sass\n";
                } else {
                    note_once(a.sass_error + ": no .sass written", said);
                }
            } catch (const Error& e) {
                j["ptxas"] = {{"error", e.what()}};
                note_once(std::string(e.what()) + ": resources.json has no ptxas numbers", said);
            }

            if (auto it = drivers.find(b); it != drivers.end()) {
                DriverProbe& d = it->second;
                if (!d.device) {
                    j["driver"] = {{"error", d.why}};
                } else {
                    const DeviceInfo& info = d.device->info();
                    j["driver"] = {{"device", info.name},
                                   {"arch", "sm_" + std::to_string(info.cc_major) + std::to_string(info.cc_minor)}};
                    try {
                        auto m = d.device->compile(program_source(*p, d.device->dialect()), options_for(*p, o.math));
                        for (const auto& k : kernel_names) kernels[k]["driver"] = driver_resources(*m, k);
                    } catch (const Error& e) {
                        j["driver"]["error"] = e.what();
                        std::cerr << "tribench: " << p->name() << "/" << b << ": driver resources: " << e.what() << "\n";
                    }
                }
            }
            j["kernels"] = kernels;
            j["device_functions"] = funcs;
            try {
                write_file_atomically(stem + ".resources.json", j.dump(2) + "\n");
                std::cout << stem << ".resources.json\n";
            } catch (const Error& e) {
                std::cerr << "tribench: " << e.what() << "\n";
                ++failures;
            }
        }
    }
    return failures ? 1 : 0;
}

}  // namespace tb
