#include "nvrtc_api.hpp"

#include <nvrtc.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <regex>

#include "dynlib.hpp"
#include "kernel_cache.hpp"

namespace tb::cuda {
namespace {

struct NvrtcApi {
    std::string version;  // "13.0"
    decltype(&::nvrtcGetErrorString) nvrtcGetErrorString = nullptr;
    decltype(&::nvrtcVersion) nvrtcVersion = nullptr;
    decltype(&::nvrtcGetNumSupportedArchs) nvrtcGetNumSupportedArchs = nullptr;
    decltype(&::nvrtcGetSupportedArchs) nvrtcGetSupportedArchs = nullptr;
    decltype(&::nvrtcCreateProgram) nvrtcCreateProgram = nullptr;
    decltype(&::nvrtcDestroyProgram) nvrtcDestroyProgram = nullptr;
    decltype(&::nvrtcCompileProgram) nvrtcCompileProgram = nullptr;
    decltype(&::nvrtcGetProgramLogSize) nvrtcGetProgramLogSize = nullptr;
    decltype(&::nvrtcGetProgramLog) nvrtcGetProgramLog = nullptr;
    decltype(&::nvrtcGetPTXSize) nvrtcGetPTXSize = nullptr;
    decltype(&::nvrtcGetPTX) nvrtcGetPTX = nullptr;
};

// NVRTC's soname carries its major version; 12 and 13 both serve cuda.h 13's API.
const std::vector<std::string> kNames = {"libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so"};

// The loader path first, then the toolkit CMake found, then the usual install places.
std::vector<std::string> candidate_dirs() {
    std::vector<std::string> dirs;
#ifdef TRIBENCH_CUDA_LIB_DIR
    if (std::string(TRIBENCH_CUDA_LIB_DIR).size() > 0) dirs.push_back(TRIBENCH_CUDA_LIB_DIR);
#endif
    if (const char* home = std::getenv("CUDA_HOME"); home && *home) dirs.push_back(std::string(home) + "/lib64");
    dirs.push_back("/usr/local/cuda/lib64");
    return dirs;
}

DynLib open_nvrtc() {
    std::vector<std::string> candidates = kNames;
    const auto dirs = candidate_dirs();
    for (const auto& d : dirs)
        for (const auto& n : kNames) candidates.push_back(d + "/" + n);
    try {
        return DynLib::open(candidates);
    } catch (const Error&) {
        std::string where;
        for (const auto& d : dirs) where += ", " + d;
        throw Error("libnvrtc.so not found (looked on the loader path" + where +
                    "; set CUDA_HOME to the CUDA toolkit)");
    }
}

template <class Fn>
void take(const DynLib& lib, const char* name, Fn& fn) {
    fn = reinterpret_cast<Fn>(lib.require(name));
}

struct Loaded {
    std::unique_ptr<NvrtcApi> api;
    std::string error;
};

Loaded load() {
    Loaded out;
    try {
        static DynLib lib = open_nvrtc();  // never unloaded
        auto api = std::make_unique<NvrtcApi>();
        take(lib, "nvrtcGetErrorString", api->nvrtcGetErrorString);
        take(lib, "nvrtcVersion", api->nvrtcVersion);
        take(lib, "nvrtcGetNumSupportedArchs", api->nvrtcGetNumSupportedArchs);
        take(lib, "nvrtcGetSupportedArchs", api->nvrtcGetSupportedArchs);
        take(lib, "nvrtcCreateProgram", api->nvrtcCreateProgram);
        take(lib, "nvrtcDestroyProgram", api->nvrtcDestroyProgram);
        take(lib, "nvrtcCompileProgram", api->nvrtcCompileProgram);
        take(lib, "nvrtcGetProgramLogSize", api->nvrtcGetProgramLogSize);
        take(lib, "nvrtcGetProgramLog", api->nvrtcGetProgramLog);
        take(lib, "nvrtcGetPTXSize", api->nvrtcGetPTXSize);
        take(lib, "nvrtcGetPTX", api->nvrtcGetPTX);
        int major = 0, minor = 0;
        nvrtcResult r = api->nvrtcVersion(&major, &minor);
        if (r != NVRTC_SUCCESS) throw Error(std::string("nvrtcVersion failed: ") + api->nvrtcGetErrorString(r));
        api->version = std::to_string(major) + "." + std::to_string(minor);
        out.api = std::move(api);
    } catch (const Error& e) {
        out.error = e.what();
    }
    return out;
}

const NvrtcApi& nvrtc() {
    static const Loaded loaded = load();
    if (!loaded.api) throw Error(loaded.error);
    return *loaded.api;
}

void check(nvrtcResult r, const char* call) {
    if (r != NVRTC_SUCCESS) throw Error(std::string(call) + " failed: " + nvrtc().nvrtcGetErrorString(r));
}

// "sm_90" / "compute_90" / "sm_90a" -> "90" / "90a".
std::string arch_suffix(const std::string& arch) {
    static const std::regex form("(?:sm|compute)_([0-9]+[a-z]?)");
    std::smatch m;
    if (!std::regex_match(arch, m, form))
        throw Error("invalid CUDA architecture '" + arch + "' (expected e.g. sm_90 or compute_90)");
    return m[1];
}

std::string trim_trailing(std::string s) {
    while (!s.empty() && (s.back() == '\0' || s.back() == '\n' || s.back() == '\r' || s.back() == ' ')) s.pop_back();
    return s;
}

// For `#line 1 "<name>"`: a C string literal.
std::string quoted(const std::string& s) {
    std::string out = "\"";
    for (char c : s) {
        if (c == '"' || c == '\\') out += '\\';
        out += c;
    }
    return out + "\"";
}

// NVRTC ends a failed log with "N errors detected in the compilation of ..."; count the
// "error" diagnostics ourselves if that line is missing.
int count_errors(const std::string& log) {
    static const std::regex summary("([0-9]+) errors? detected in the compilation");
    std::smatch m;
    if (std::regex_search(log, m, summary)) return std::stoi(m[1]);
    static const std::regex diag("(^|\\n)[^\\n]*\\b(catastrophic )?error\\b[^\\n]*:");
    int n = 0;
    for (auto it = std::sregex_iterator(log.begin(), log.end(), diag); it != std::sregex_iterator(); ++it) ++n;
    return n > 0 ? n : 1;
}

std::string program_log(nvrtcProgram prog) {
    const auto& api = nvrtc();
    std::size_t size = 0;
    check(api.nvrtcGetProgramLogSize(prog, &size), "nvrtcGetProgramLogSize");
    std::string log(size, '\0');
    if (size > 0) check(api.nvrtcGetProgramLog(prog, log.data()), "nvrtcGetProgramLog");
    return trim_trailing(std::move(log));
}

// NVRTC writes `.file 1 "<working directory>/<file_name>"`; dropping the directory makes
// the PTX (and its hash in results) the same wherever tribench runs.
std::string without_working_dir(std::string ptx) {
    std::error_code ec;
    const std::string cwd = std::filesystem::current_path(ec).string();
    if (ec || cwd.empty() || cwd == "/") return ptx;
    const std::string needle = "\"" + cwd + "/";
    for (std::size_t pos = ptx.find("\t.file\t"); pos != std::string::npos; pos = ptx.find("\t.file\t", pos + 1)) {
        const std::size_t eol = ptx.find('\n', pos);
        const std::size_t q = ptx.find(needle, pos);
        if (q != std::string::npos && q < eol) ptx.erase(q + 1, needle.size() - 1);
    }
    return ptx;
}

struct ProgramGuard {
    nvrtcProgram prog = nullptr;
    ~ProgramGuard() {
        if (prog) nvrtc().nvrtcDestroyProgram(&prog);  // nothing useful to do on failure
    }
};

CachedPtx run_nvrtc(const std::string& text, const std::string& file_name, const std::vector<std::string>& options) {
    const auto& api = nvrtc();
    ProgramGuard g;
    check(api.nvrtcCreateProgram(&g.prog, text.c_str(), file_name.c_str(), 0, nullptr, nullptr), "nvrtcCreateProgram");
    std::vector<const char*> argv;
    for (const auto& o : options) argv.push_back(o.c_str());
    nvrtcResult r = api.nvrtcCompileProgram(g.prog, static_cast<int>(argv.size()), argv.data());
    CachedPtx out;
    out.log = program_log(g.prog);
    if (r == NVRTC_ERROR_COMPILATION) {
        const int n = count_errors(out.log);
        throw Error(file_name + ": NVRTC compilation failed (" + std::to_string(n) + (n == 1 ? " error)" : " errors)") +
                    "\n" + out.log);
    }
    if (r != NVRTC_SUCCESS) {
        std::string opts;
        for (const auto& o : options) opts += " " + o;
        throw Error(file_name + ": nvrtcCompileProgram failed: " + api.nvrtcGetErrorString(r) + " (options:" + opts + ")" +
                    (out.log.empty() ? "" : "\n" + out.log));
    }
    std::size_t size = 0;
    check(api.nvrtcGetPTXSize(g.prog, &size), "nvrtcGetPTXSize");
    out.ptx.assign(size, '\0');
    if (size > 0) check(api.nvrtcGetPTX(g.prog, out.ptx.data()), "nvrtcGetPTX");
    while (!out.ptx.empty() && out.ptx.back() == '\0') out.ptx.pop_back();
    if (out.ptx.empty()) throw Error(file_name + ": NVRTC produced no PTX");
    out.ptx = without_working_dir(std::move(out.ptx));
    return out;
}

// Everything that changes NVRTC's output; the full source text comes last.
std::string cache_key(const std::string& text, const std::string& file_name, const std::vector<std::string>& options,
                      const std::string& arch) {
    std::string key = "nvrtc " + nvrtc_version() + "\narch " + arch + "\nfile " + file_name + "\n";
    for (const auto& o : options) key += "option " + o + "\n";
    key += "source\n" + text;
    return key;
}

}  // namespace

std::string nvrtc_version() { return nvrtc().version; }

std::vector<int> nvrtc_supported_archs() {
    const auto& api = nvrtc();
    int n = 0;
    check(api.nvrtcGetNumSupportedArchs(&n), "nvrtcGetNumSupportedArchs");
    std::vector<int> archs(static_cast<std::size_t>(n));
    if (n > 0) check(api.nvrtcGetSupportedArchs(archs.data()), "nvrtcGetSupportedArchs");
    return archs;
}

std::vector<std::string> nvrtc_options(const CompileOptions& opt, const std::string& arch) {
    // PTX for the virtual architecture: the driver turns it into SASS for the exact GPU.
    std::vector<std::string> o = {"--gpu-architecture=compute_" + arch_suffix(arch), "-default-device", "-std=c++17",
                                  "-lineinfo"};
    for (const auto& d : opt.defines) o.push_back("-D" + d);
    switch (opt.math) {
        case MathMode::Default:
            break;  // NVRTC's own defaults
        case MathMode::Precise:
            // Correctly rounded division and square root, denormals kept. FMA contraction
            // stays at NVRTC's default (on), as OpenCL allows it: see docs/cuda-backends.md.
            o.insert(o.end(), {"-prec-div=true", "-prec-sqrt=true", "-ftz=false"});
            break;
        case MathMode::Fast:
            o.push_back("--use_fast_math");
            break;
    }
    return o;
}

PtxBuild compile_to_ptx(const Source& src, const CompileOptions& opt, const std::string& arch) {
    const auto t0 = std::chrono::steady_clock::now();
    const auto options = nvrtc_options(opt, arch);
    PtxBuild out;
    std::string text;
    if (src.dialect == Dialect::OpenCL) {
        Translation t = translate_opencl(src.text, src.file_name);
        text = std::move(t.text);
        out.kernels = std::move(t.kernels);
    } else {
        // Diagnostics then name the user's file, not NVRTC's program name.
        text = "#line 1 " + quoted(src.file_name) + "\n" + src.text;
    }
    if (!src.ptx.empty()) {
        // Given PTX (program_source: TRIBENCH_KERNEL_DIR's kernels.cl.ptx): loaded as it is;
        // an OpenCL source still gives the kernels' signatures, which its launches need.
        note_given_ptx(src.ptx_file, src.file_name, "NVRTC");
        out.ptx = src.ptx;
        out.log = "PTX read from " + src.ptx_file + ", not compiled";
        out.compile_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
        return out;
    }
    const std::string key = cache_key(text, src.file_name, options, arch);
    if (auto hit = kernel_cache_load(key)) {
        out.ptx = std::move(hit->ptx);
        out.log = std::move(hit->log);
        out.from_cache = true;
    } else {
        CachedPtx built = run_nvrtc(text, src.file_name, options);
        kernel_cache_store(key, built);  // best effort: a compile never fails for the cache
        out.ptx = std::move(built.ptx);
        out.log = std::move(built.log);
    }
    out.compile_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    return out;
}

}  // namespace tb::cuda
