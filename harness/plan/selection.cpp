#include "plan/selection.hpp"

#include <algorithm>
#include <cctype>
#include <map>
#include <set>

#include "results/results.hpp"  // kVendorId

namespace tb {

std::vector<std::string> split_list(const std::vector<std::string>& values) {
    std::vector<std::string> out;
    for (const auto& v : values) {
        std::size_t start = 0;
        while (start <= v.size()) {
            const std::size_t comma = v.find(',', start);
            const std::string item = v.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
            if (!item.empty()) out.push_back(item);
            if (comma == std::string::npos) break;
            start = comma + 1;
        }
    }
    return out;
}

std::vector<BackendSlot> probe_backends(const std::vector<std::string>& ids) {
    std::vector<BackendSlot> slots;
    for (const auto& id : ids) {
        BackendSlot s;
        s.id = id;
        s.backend = make_backend(id);  // throws for an unknown id
        try {
            s.devices = s.backend->devices();
            if (s.devices.empty()) s.unavailable = "no devices";
        } catch (const Error& e) {
            s.unavailable = e.what();
        }
        slots.push_back(std::move(s));
    }
    return slots;
}

std::vector<BackendSlot> probe_requested(const std::vector<std::string>& requested, bool* vendor) {
    std::vector<std::string> ids;
    *vendor = requested.empty();
    for (const auto& id : requested) {
        if (id == kVendorId) *vendor = true;
        else if (std::find(ids.begin(), ids.end(), id) == ids.end()) ids.push_back(id);
    }
    if (requested.empty()) ids = backend_ids();
    for (const auto& id : ids) make_backend(id);  // unknown ids fail before anything runs
    const bool host_only = *vendor && std::find(ids.begin(), ids.end(), "cuda-native") == ids.end();
    if (host_only) ids.push_back("cuda-native");
    auto slots = probe_backends(ids);
    if (host_only) slots.back().run_kernels = false;
    return slots;
}

namespace {

std::string lower(std::string s) {
    for (char& c : s) c = char(std::tolower(static_cast<unsigned char>(c)));
    return s;
}

// Kernel variants, then the variants only vendor rows run (Program::vendor_variants).
std::vector<std::string> all_variants(const Program& p) {
    std::vector<std::string> v = p.variants();
    if (p.has_vendor_baseline())
        for (const auto& vv : p.vendor_variants())
            if (std::find(v.begin(), v.end(), vv) == v.end()) v.push_back(vv);
    return v;
}

bool is_index(const std::string& s) {
    return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); });
}

}  // namespace

bool selector_matches(const DeviceInfo& d, std::size_t index, const std::string& selector) {
    if (is_index(selector)) return selector.size() < 10 && std::stoul(selector) == index;
    const std::string s = lower(selector);
    std::string platform = lower(d.platform);
    // PoCL calls its platform "Portable Computing Language"; users call it pocl.
    if (platform.find("portable computing language") != std::string::npos) platform += " (pocl)";
    return lower(d.name).find(s) != std::string::npos || lower(d.vendor).find(s) != std::string::npos ||
           platform.find(s) != std::string::npos;
}

std::vector<std::size_t> select_devices(const std::vector<DeviceInfo>& devices,
                                        const std::vector<std::string>& selectors) {
    std::vector<std::size_t> chosen;
    if (selectors.empty()) {
        for (std::size_t i = 0; i < devices.size(); ++i)
            if (devices[i].is_gpu) chosen.push_back(i);
        if (chosen.empty())
            for (std::size_t i = 0; i < devices.size(); ++i) chosen.push_back(i);
        return chosen;
    }
    for (std::size_t i = 0; i < devices.size(); ++i)
        for (const auto& sel : selectors)
            if (selector_matches(devices[i], i, sel)) {
                chosen.push_back(i);
                break;
            }
    return chosen;
}

std::string benchmark_name(const Program& p, const std::string& dataset, const std::string& variant,
                           const std::string& backend, LaunchMode launch) {
    std::string n = p.name() + "/" + dataset;
    if (all_variants(p).size() > 1) n += "/" + variant;
    n += "/" + backend;
    if (p.iterative()) n += std::string("/") + to_string(launch);
    return n;
}

std::vector<Case> plan_cases(const SelectionRequest& req, const std::vector<BackendSlot>& slots) {
    // Programs.
    std::vector<const Program*> programs;
    if (req.programs.empty()) {
        for (const Program* p : all_programs())
            if (req.matrix_files.empty() || p->takes_matrix_file()) programs.push_back(p);
    } else {
        for (const auto& name : req.programs) {
            const Program* p = &find_program(name);
            if (std::find(programs.begin(), programs.end(), p) == programs.end()) programs.push_back(p);
        }
    }
    // Matrix files become datasets of the programs that read them.
    std::map<const Program*, std::vector<Dataset>> file_sets;
    for (const Program* p : programs) {
        if (req.matrix_files.empty()) continue;
        if (!p->takes_matrix_file()) throw Error("program " + p->name() + " does not read matrix files (--matrix)");
        for (const auto& f : req.matrix_files) file_sets[p].push_back(p->dataset_from_file(f));
    }
    // Datasets: each named one must exist in at least one selected program.
    for (const auto& ds : req.datasets) {
        bool found = false;
        for (const Program* p : programs)
            for (const auto& d : p->datasets()) found = found || d.name == ds;
        if (!found) {
            if (programs.size() == 1) find_dataset(programs[0]->datasets(), programs[0]->name(), ds);
            throw Error("unknown dataset '" + ds + "' (no selected program has it; see `tribench list`)");
        }
    }
    for (const auto& v : req.variants) {
        bool found = false;
        std::string known;
        for (const Program* p : programs)
            for (const auto& pv : all_variants(*p)) {
                found = found || pv == v;
                known += (known.empty() ? "" : ", ") + p->name() + ":" + pv;
            }
        if (!found) throw Error("unknown variant '" + v + "' (known: " + known + ")");
    }
    // Devices: every selector must match some device of an available backend.
    for (const auto& sel : req.devices) {
        bool found = false;
        std::string known;
        for (const auto& s : slots)
            for (std::size_t i = 0; i < s.devices.size(); ++i) {
                found = found || selector_matches(s.devices[i], i, sel);
                known += (known.empty() ? "" : ", ") + s.id + ":" + std::to_string(i) + " " + s.devices[i].name;
            }
        if (!found) throw Error("unknown device '" + sel + "' (available: " + (known.empty() ? "none" : known) + ")");
    }

    std::vector<Case> cases;
    for (std::size_t si = 0; si < slots.size(); ++si) {
        const BackendSlot& slot = slots[si];
        if (!slot.unavailable.empty()) continue;
        for (std::size_t di : select_devices(slot.devices, req.devices)) {
            const DeviceInfo& dev = slot.devices[di];
            for (const Program* p : programs) {
                for (const auto& d : file_sets.count(p) ? file_sets[p] : p->datasets()) {
                    const bool named = std::find(req.datasets.begin(), req.datasets.end(), d.name) != req.datasets.end();
                    if (!req.datasets.empty() && !named && d.file.empty()) continue;
                    if (req.small_only && !d.small && d.file.empty()) continue;
                    // CPU devices run the CI-sized datasets unless asked otherwise.
                    if (req.datasets.empty() && !dev.is_gpu && !d.small && !req.all_datasets && d.file.empty()) continue;
                    const std::vector<std::string> kernel_variants = p->variants(), vendor_variants = p->vendor_variants();
                    for (const auto& v : all_variants(*p)) {
                        if (!req.variants.empty() &&
                            std::find(req.variants.begin(), req.variants.end(), v) == req.variants.end())
                            continue;
                        std::vector<LaunchMode> launches = req.launches;
                        if (launches.empty()) launches = {LaunchMode::Stream, LaunchMode::Graph};
                        if (req.vendor && slot.id == "cuda-native" && p->has_vendor_baseline() && dev.is_nvidia &&
                            std::find(vendor_variants.begin(), vendor_variants.end(), v) != vendor_variants.end()) {
                            Case c{p, d, v, LaunchMode::Stream, si, di,
                                   benchmark_name(*p, d.name, v, kVendorId, LaunchMode::Stream), true};
                            cases.push_back(std::move(c));
                        }
                        if (!slot.run_kernels) continue;
                        if (std::find(kernel_variants.begin(), kernel_variants.end(), v) == kernel_variants.end()) continue;
                        for (LaunchMode lm : launches) {
                            // Graph replay exists only on the CUDA backends.
                            const bool graph_ok = p->iterative() && slot.id != "opencl";
                            if (lm == LaunchMode::Graph && !graph_ok) continue;
                            Case c{p, d, v, lm, si, di, benchmark_name(*p, d.name, v, slot.id, lm)};
                            cases.push_back(std::move(c));
                        }
                    }
                }
            }
        }
    }
    for (auto& c : cases)
        if (!c.vendor) {
            c.config = c.program->default_config(slots[c.slot].devices[c.device]);
            c.config_source = kDeviceDefaultSource;
        }
    // Several devices of one backend: suffix the device index so names stay unique.
    std::set<std::string> seen;
    bool dup = false;
    for (const auto& c : cases) dup = dup || !seen.insert(c.name).second;
    if (dup)
        for (auto& c : cases) c.name += "@" + std::to_string(c.device);
    return cases;
}

}  // namespace tb
