#include "ptx/ptx_resources.hpp"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <sys/stat.h>
#include <unistd.h>

#include "device.hpp"
#include "support/subprocess.hpp"

namespace tb::ptx {

namespace {

std::string trim(const std::string& s) {
    const auto b = s.find_first_not_of(" \t\r\n");
    if (b == std::string::npos) return "";
    return s.substr(b, s.find_last_not_of(" \t\r\n") - b + 1);
}

// "96" or "4096+0" (older toolkits print static+dynamic) -> the sum; -1 if not a number.
long parse_amount(const std::string& s) {
    long total = 0;
    std::size_t i = 0;
    bool any = false;
    while (i < s.size()) {
        std::size_t j = i;
        while (j < s.size() && s[j] >= '0' && s[j] <= '9') ++j;
        if (j == i) return -1;
        total += std::strtol(s.substr(i, j - i).c_str(), nullptr, 10);
        any = true;
        if (j < s.size() && s[j] == '+') ++j;
        else if (j < s.size()) return -1;
        i = j;
    }
    return any ? total : -1;
}

// The text after the "ptxas info    :" tag, or "" when the line has another tag.
std::string after_tag(const std::string& line, const std::string& tag) {
    if (line.rfind(tag, 0) != 0) return "";
    const std::size_t colon = line.find(':', tag.size());
    return colon == std::string::npos ? "" : trim(line.substr(colon + 1));
}

std::string quoted(const std::string& s) {
    const std::size_t a = s.find('\'');
    const std::size_t b = a == std::string::npos ? a : s.find('\'', a + 1);
    return b == std::string::npos ? "" : s.substr(a + 1, b - a - 1);
}

std::vector<std::string> split_items(const std::string& s) {
    std::vector<std::string> out;
    std::stringstream ss(s);
    std::string item;
    while (std::getline(ss, item, ',')) out.push_back(trim(item));
    return out;
}

// "N bytes stack frame, S bytes spill stores, L bytes spill loads"
void parse_stack_line(const std::string& line, FunctionResources& f) {
    for (const auto& item : split_items(line)) {
        const std::size_t sp = item.find(' ');
        if (sp == std::string::npos) continue;
        const long n = parse_amount(item.substr(0, sp));
        const std::string what = item.substr(sp + 1);
        if (what == "bytes stack frame") f.stack_frame_bytes = n;
        else if (what == "bytes spill stores") f.spill_store_bytes = n;
        else if (what == "bytes spill loads") f.spill_load_bytes = n;
    }
}

// "Used 18 registers, used 1 barriers, 128 bytes smem, 388 bytes cmem[0], 96 bytes cumulative stack size"
void parse_used_line(const std::string& text, FunctionResources& f) {
    // ptxas lists shared memory and the cumulative stack only when they are not zero.
    if (f.shared_bytes < 0) f.shared_bytes = 0;
    if (f.cumulative_stack_bytes < 0) f.cumulative_stack_bytes = 0;
    for (const auto& item : split_items(text)) {
        std::istringstream is(item);
        std::string first, second;
        is >> first >> second;
        std::string rest;
        std::getline(is, rest);
        rest = trim(rest);
        if ((first == "Used" || first == "used") && rest == "registers") f.registers = int(parse_amount(second));
        else if ((first == "Used" || first == "used") && rest == "barriers") f.barriers = int(parse_amount(second));
        else if (second == "bytes" && rest == "smem") f.shared_bytes = parse_amount(first);
        else if (second == "bytes" && rest == "cumulative stack size") f.cumulative_stack_bytes = parse_amount(first);
        else if (second == "bytes" && rest == "lmem" && f.stack_frame_bytes < 0) f.stack_frame_bytes = parse_amount(first);
        else if (second == "bytes" && rest.rfind("cmem[", 0) == 0)
            f.const_bytes[std::atoi(rest.c_str() + 5)] = parse_amount(first);
    }
}

bool is_executable_file(const std::string& path) {
    struct stat st {};
    return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) && ::access(path.c_str(), X_OK) == 0;
}

// Removes the temporary folder however assemble() leaves.
struct TempDir {
    std::string path;
    TempDir() {
        const char* base = std::getenv("TMPDIR");
        std::string tmpl = std::string(base && *base ? base : "/tmp") + "/tribench-ptxas-XXXXXX";
        if (!::mkdtemp(tmpl.data())) throw Error("mkdtemp " + tmpl + " failed: " + std::strerror(errno));
        path = tmpl;
    }
    ~TempDir() {
        std::error_code ec;
        std::filesystem::remove_all(path, ec);
    }
    TempDir(const TempDir&) = delete;
    TempDir& operator=(const TempDir&) = delete;
};

// The line of a tool's output worth one error line: the first that says error or fatal.
std::string first_error_line(const std::string& output, const std::string& tmp_dir) {
    std::istringstream is(output);
    std::string line, first;
    while (std::getline(is, line)) {
        line = trim(line);
        if (line.empty()) continue;
        if (first.empty()) first = line;
        if (line.find("error") != std::string::npos || line.find("fatal") != std::string::npos) {
            first = line;
            break;
        }
    }
    // Name the input as the user knows it, not by its temporary path.
    for (std::size_t p; (p = first.find(tmp_dir + "/in.ptx")) != std::string::npos;)
        first.replace(p, tmp_dir.size() + 7, "PTX");
    return first.empty() ? "no output" : first;
}

}  // namespace

const FunctionResources* PtxasReport::find(const std::string& name) const {
    for (const auto& f : functions)
        if (f.name == name) return &f;
    return nullptr;
}

PtxasReport parse_ptxas_verbose(const std::string& text) {
    PtxasReport r;
    auto get = [&](const std::string& name) -> std::size_t {
        for (std::size_t i = 0; i < r.functions.size(); ++i)
            if (r.functions[i].name == name) return i;
        r.functions.push_back(FunctionResources{});
        r.functions.back().name = name;
        return r.functions.size() - 1;
    };
    // Indices, not pointers: get() may grow the vector.
    std::size_t compiling = std::string::npos, properties = std::string::npos;
    std::istringstream is(text);
    std::string line;
    while (std::getline(is, line)) {
        if (!line.empty() && line.back() == '\r') line.pop_back();
        const std::string warning = after_tag(line, "ptxas warning");
        if (!warning.empty()) {
            r.warnings.push_back(warning);
            continue;
        }
        const std::string info = after_tag(line, "ptxas info");
        if (info.empty()) {
            if (line.find("bytes stack frame") != std::string::npos && properties != std::string::npos)
                parse_stack_line(trim(line), r.functions[properties]);
            continue;
        }
        if (info.rfind("Compiling entry function", 0) == 0 || info.rfind("Compiling function", 0) == 0) {
            const std::string name = quoted(info);
            if (name.empty()) continue;
            compiling = get(name);
            if (info.rfind("Compiling entry", 0) == 0) r.functions[compiling].entry = true;
        } else if (info.rfind("Function properties for ", 0) == 0) {
            properties = get(trim(info.substr(24)));
        } else if (info.rfind("Used ", 0) == 0) {
            const std::size_t target = compiling != std::string::npos ? compiling : properties;
            if (target != std::string::npos) parse_used_line(info, r.functions[target]);
        } else if (info.size() > 10 && info.compare(info.size() - 10, 10, "bytes gmem") == 0) {
            r.global_bytes = parse_amount(trim(info.substr(0, info.size() - 10)));
        }
    }
    return r;
}

std::string find_cuda_tool(const std::string& name) {
    std::vector<std::string> dirs;
#ifdef TRIBENCH_CUDA_BIN_DIR
    dirs.emplace_back(TRIBENCH_CUDA_BIN_DIR);
#endif
    for (const char* var : {"CUDA_HOME", "CUDA_PATH"})
        if (const char* v = std::getenv(var); v && *v) dirs.push_back(std::string(v) + "/bin");
    if (const char* path = std::getenv("PATH")) {
        std::stringstream ss(path);
        std::string d;
        while (std::getline(ss, d, ':'))
            if (!d.empty()) dirs.push_back(d);
    }
    for (const auto& d : dirs) {
        const std::string p = d + "/" + name;
        if (is_executable_file(p)) return p;
    }
    return "";
}

Assembly assemble(const std::string& ptx, const std::string& arch, bool want_sass) {
    std::string gpu = arch;
    if (gpu.rfind("compute_", 0) == 0) gpu = "sm_" + gpu.substr(8);
    if (gpu.rfind("sm_", 0) != 0) throw Error("bad GPU architecture '" + arch + "' for ptxas (expected sm_XX)");

    Assembly a;
    a.ptxas = find_cuda_tool("ptxas");
    if (a.ptxas.empty())
        throw Error("ptxas not found (looked in the CUDA toolkit of the build, $CUDA_HOME/bin, $CUDA_PATH/bin and PATH)");

    TempDir tmp;
    const std::string in = tmp.path + "/in.ptx", cubin = tmp.path + "/out.cubin";
    {
        std::ofstream f(in, std::ios::binary);
        f << ptx;
        f.close();
        if (!f) throw Error("cannot write " + in + ": " + std::strerror(errno));
    }
    const ProcessResult r = run_process({a.ptxas, "-v", "--gpu-name", gpu, "-o", cubin, in});
    if (r.exit_code != 0)
        throw Error("ptxas failed (exit " + std::to_string(r.exit_code) + "): " + first_error_line(r.output, tmp.path));
    a.report = parse_ptxas_verbose(r.output);

    if (want_sass) {
        const std::string cuobjdump = find_cuda_tool("cuobjdump");
        if (cuobjdump.empty()) {
            a.sass_error = "cuobjdump not found";
        } else {
            const ProcessResult d = run_process({cuobjdump, "-sass", cubin});
            if (d.exit_code != 0) a.sass_error = "cuobjdump failed: " + first_error_line(d.output, tmp.path);
            else a.sass = d.output;
        }
    }
    return a;
}

}  // namespace tb::ptx
