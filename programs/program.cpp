#include "program.hpp"

#include "embedded.hpp"

namespace tb {

std::int64_t Dataset::param(const std::string& key) const {
    auto it = params.find(key);
    if (it == params.end()) throw Error("dataset " + name + " has no parameter " + key);
    return it->second;
}

const char* to_string(LaunchMode m) { return m == LaunchMode::Graph ? "graph" : "stream"; }

Source program_source(const Program& p, Dialect d) {
    const std::string file = "programs/" + p.name() + (d == Dialect::Cuda ? "/kernels.cu" : "/kernels.cl");
    return Source{file, embedded_file(file), d};
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
