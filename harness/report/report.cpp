#include "report/report.hpp"

#include <algorithm>
#include <map>
#include <set>
#include <sstream>

#include "backend.hpp"
#include "compare/compare.hpp"

namespace tb {

using nlohmann::json;

namespace {

double number_in(const json& obj, const char* key) {
    if (!obj.is_object() || !obj.contains(key) || !obj[key].is_number()) return 0;
    const double v = obj[key].get<double>();
    return v > 0 ? v : 0;
}

DeviceGroup& group_for(std::vector<DeviceGroup>& groups, const std::string& device) {
    for (auto& g : groups)
        if (g.device == device) return g;
    groups.emplace_back();
    groups.back().device = device;
    return groups.back();
}

const BenchmarkResult* baseline_of(const Results& r, const BenchmarkResult& b, const std::string& baseline) {
    for (const auto& o : r.benchmarks)
        if (o.backend == baseline && o.status == Status::Ok && o.program == b.program && o.dataset == b.dataset &&
            o.variant == b.variant && o.launch == b.launch)
            return &o;
    return nullptr;
}

}  // namespace

std::vector<DeviceGroup> group_by_device(const std::vector<LoadedResults>& files, const ReportOptions& o) {
    std::vector<DeviceGroup> groups;
    std::vector<std::set<std::string>> seen;  // benchmark names per group
    for (std::size_t fi = 0; fi < files.size(); ++fi) {
        const Results& r = files[fi].results;
        // Device ids ("cuda-native:0") repeat across files; keep them apart.
        const std::string suffix = files.size() > 1 ? "#" + std::to_string(fi + 1) : "";
        for (const auto& b : r.benchmarks) {
            const DeviceRecord* d = find_device(r, b.device);
            DeviceGroup& g = group_for(groups, d ? d->info.name : b.device);
            const std::size_t gi = std::size_t(&g - groups.data());
            if (seen.size() <= gi) seen.resize(gi + 1);
            if (!seen[gi].insert(b.name).second) {
                g.duplicates.push_back(b.name + " (" + files[fi].path + ")");
                continue;
            }
            BenchmarkResult copy = b;
            copy.device = b.device + suffix;
            g.merged.benchmarks.push_back(copy);
            if (d && !find_device(g.merged, copy.device)) {
                DeviceRecord rec = *d;
                rec.id = copy.device;
                g.merged.devices.push_back(rec);
            }
            if (g.merged.environment.is_null()) g.merged.environment = r.environment;
            if (r.calibration.is_object() && r.calibration.contains(b.device)) {
                const json& c = r.calibration[b.device];
                if (g.copy_gbps == 0) g.copy_gbps = number_in(c, "copy_gbps");
                if (g.fp32_gflops == 0) g.fp32_gflops = number_in(c, "fp32_gflops");
                if (g.copy_gbps > 0 || g.fp32_gflops > 0) g.ceiling_source = "calibration";
                const double floor_us = number_in(c, "empty_kernel_us");
                if (floor_us > 0 && !g.empty_kernel_us.count(b.backend)) g.empty_kernel_us[b.backend] = floor_us;
            }
        }
    }
    for (auto& g : groups) {
        const bool filled = (g.copy_gbps == 0 && o.peak_gbps > 0) || (g.fp32_gflops == 0 && o.peak_gflops > 0);
        if (g.copy_gbps == 0) g.copy_gbps = o.peak_gbps;
        if (g.fp32_gflops == 0) g.fp32_gflops = o.peak_gflops;
        if (filled) g.ceiling_source += (g.ceiling_source.empty() ? "" : " + ") + std::string("--peak-gbps/--peak-gflops");
    }
    return groups;
}

std::string program_baseline(const Results& merged, const std::string& program, const std::string& wanted) {
    std::set<std::string> ok;
    for (const auto& b : merged.benchmarks)
        if (b.program == program && b.status == Status::Ok) ok.insert(b.backend);
    if (ok.count(wanted)) return wanted;
    std::vector<std::string> order = backend_ids();
    order.push_back(kVendorId);
    for (const auto& id : order)
        if (ok.count(id)) return id;
    return ok.empty() ? "" : *ok.begin();
}

json report_plot_data(const std::vector<DeviceGroup>& groups, const ReportOptions& o) {
    json data = {{"schema", "tribench-report-data"}, {"version", 1}, {"baseline", o.baseline},
                 {"devices", json::array()},         {"benchmarks", json::array()}};
    for (const auto& g : groups) {
        data["devices"].push_back({{"name", g.device},
                                   {"copy_gbps", g.copy_gbps > 0 ? json(g.copy_gbps) : json(nullptr)},
                                   {"fp32_gflops", g.fp32_gflops > 0 ? json(g.fp32_gflops) : json(nullptr)},
                                   {"ceiling_source", g.ceiling_source}});
        // Labels show a variant or launch only where the program has several.
        std::map<std::string, std::set<std::string>> variants, launches;
        for (const auto& b : g.merged.benchmarks) {
            variants[b.program].insert(b.variant);
            launches[b.program].insert(b.launch);
        }
        std::map<std::string, std::string> baselines;
        for (const auto& b : g.merged.benchmarks) {
            if (!baselines.count(b.program)) baselines[b.program] = program_baseline(g.merged, b.program, o.baseline);
            const std::string& base_id = baselines[b.program];
            std::string label = b.dataset;
            if (variants[b.program].size() > 1) label += "/" + b.variant;
            if (launches[b.program].size() > 1) label += "/" + b.launch;
            const bool ok = b.status == Status::Ok && b.summary.median > 0;
            const BenchmarkResult* base = ok && !base_id.empty() ? baseline_of(g.merged, b, base_id) : nullptr;
            const double sec = b.summary.median * 1e-3;
            data["benchmarks"].push_back(
                {{"device", g.device},
                 {"name", b.name},
                 {"program", b.program},
                 {"dataset", b.dataset},
                 {"variant", b.variant},
                 {"launch", b.launch},
                 {"backend", b.backend},
                 {"label", label},
                 {"status", to_string(b.status)},
                 {"median_ms", ok ? json(b.summary.median) : json(nullptr)},
                 {"rsd", ok ? json(b.summary.rsd) : json(nullptr)},
                 {"count", b.samples_ms.size()},
                 {"bytes", b.work.bytes},
                 {"flops", b.work.flops},
                 {"items", b.work.items},
                 {"item_name", b.work.item_name},
                 {"gbps", ok ? json(b.work.bytes / sec * 1e-9) : json(nullptr)},
                 {"gflops", ok ? json(b.work.flops / sec * 1e-9) : json(nullptr)},
                 {"baseline", base_id},
                 {"speedup", base && base->summary.median > 0 ? json(base->summary.median / b.summary.median)
                                                              : json(nullptr)}});
        }
    }
    return data;
}

std::vector<PlotEntry> parse_plot_manifest(const std::string& output) {
    std::vector<PlotEntry> plots;
    std::istringstream in(output);
    std::string line;
    while (std::getline(in, line)) {
        if (line.rfind("plot\t", 0) != 0) continue;
        std::vector<std::string> f;
        std::size_t start = 5;
        for (int i = 0; i < 3; ++i) {
            const std::size_t tab = line.find('\t', start);
            if (tab == std::string::npos) break;
            f.push_back(line.substr(start, tab - start));
            start = tab + 1;
        }
        if (f.size() != 3) continue;
        plots.push_back({f[0], f[1], f[2], line.substr(start)});
    }
    return plots;
}

}  // namespace tb
