#include "program.hpp"

#include <cstdlib>
#include <filesystem>

#include "embedded.hpp"
#include "read_file.hpp"

namespace tb {

std::int64_t Dataset::param(const std::string& key) const {
    auto it = params.find(key);
    if (it == params.end()) throw Error("dataset " + name + " has no parameter " + key);
    return it->second;
}

const char* to_string(LaunchMode m) { return m == LaunchMode::Graph ? "graph" : "stream"; }

// TRIBENCH_KERNEL_DIR=DIR (a checkout, or any folder laid out like one) makes kernels be
// read from DIR/programs/<p>/kernels.{cl,cu} where that file exists, so kernel developers
// and tests need no rebuild (docs/robustness.md). Without it: the embedded copies. A
// kernels.cl.ptx or kernels.cu.ptx beside them is PTX for the CUDA backends to load in
// place of their compiler's, a kernels.cl.opencl.ptx PTX for the opencl backend to build on
// NVIDIA's platform (docs/ptx-tools.md, "Running other PTX").
Source program_source(const Program& p, Dialect d) {
    const std::string file = "programs/" + p.name() + (d == Dialect::Cuda ? "/kernels.cu" : "/kernels.cl");
    const char* dir = std::getenv("TRIBENCH_KERNEL_DIR");
    if (!dir || !*dir) return Source{file, embedded_file(file), d};
    std::error_code ec;
    if (!std::filesystem::is_directory(dir, ec))
        throw Error(std::string("TRIBENCH_KERNEL_DIR=") + dir + " is not a directory");
    const std::string path = (std::filesystem::path(dir) / file).string();
    Source src = std::filesystem::exists(path, ec) ? Source{path, read_file(path), d}
                                                   : Source{file, embedded_file(file), d};
    auto read_ptx = [&](const std::string& ptx_path, std::string& path_field, std::string& text_field) {
        if (!std::filesystem::exists(ptx_path, ec)) return;
        path_field = ptx_path;
        text_field = read_file(ptx_path);
        if (text_field.find(".entry") == std::string::npos) throw Error(ptx_path + ": not PTX (no .entry in it)");
    };
    read_ptx(path + ".ptx", src.ptx_file, src.ptx);
    if (d == Dialect::OpenCL) read_ptx(path + ".opencl.ptx", src.opencl_ptx_file, src.opencl_ptx);
    return src;
}

const TuningSpace& Program::tuning_space() const {
    static const TuningSpace none;
    return none;
}

TuningConfig Program::default_config(const DeviceInfo&) const { return {}; }

std::vector<std::string> Program::defines(const TuningConfig&) const { return {}; }

TuningConfig Program::config_of(const RunConfig& cfg) const {
    return cfg.tuning.empty() ? default_config(DeviceInfo{}) : cfg.tuning;
}

std::unique_ptr<Instance> Program::prepare_vendor(Device&, const Dataset&, const RunConfig&) const {
    throw Error(name() + " has no vendor-library baseline");
}

Dataset Program::dataset_from_file(const std::string& path) const {
    throw Error(name() + " does not read input files (" + path + ")");
}

const Program& find_program(const std::string& name) {
    std::string known;
    for (const Program* p : all_programs()) {
        if (p->name() == name) return *p;
        known += (known.empty() ? "" : ", ") + p->name();
    }
    throw Error("unknown program '" + name + "' (known: " + known + ")");
}

const Dataset& find_dataset(const std::vector<Dataset>& sets, const std::string& program,
                            const std::string& name) {
    std::string known;
    for (const auto& d : sets) {
        if (d.name == name) return d;
        known += (known.empty() ? "" : ", ") + d.name;
    }
    throw Error("unknown dataset '" + name + "' for program " + program + " (known: " + known + ")");
}

}  // namespace tb
