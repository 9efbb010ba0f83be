#include "report/formats/futhark.hpp"

#include <algorithm>
#include <cmath>
#include <ostream>

#include "report/reporter.hpp"

namespace tb {

using nlohmann::json;

std::string futhark_program_key(const BenchmarkResult& b, bool with_backend) {
    // The benchmark name without its dataset: program/dataset[/variant]/backend[/launch][@N].
    const std::string prefix = b.program + "/" + b.dataset + "/";
    std::vector<std::string> parts;
    if (b.name.rfind(prefix, 0) == 0) {
        const std::string rest = b.name.substr(prefix.size());
        std::size_t start = 0;
        while (start <= rest.size()) {
            const std::size_t slash = rest.find('/', start);
            parts.push_back(rest.substr(start, slash == std::string::npos ? std::string::npos : slash - start));
            if (slash == std::string::npos) break;
            start = slash + 1;
        }
    } else {  // a name not built by tribench run: rebuild it from the fields
        if (!b.variant.empty() && b.variant != "default") parts.push_back(b.variant);
        parts.push_back(b.backend);
        if (b.launch != "stream") parts.push_back(b.launch);
    }
    std::string key = b.program;
    for (const auto& p : parts) {
        const std::string bare = p.substr(0, p.find('@'));
        if (!with_backend && bare == b.backend) {
            if (bare != p) key += p.substr(bare.size());  // keep a device suffix "@N"
            continue;
        }
        key += "/" + p;
    }
    return key;
}

long long futhark_runtime_us(double ms) { return std::max(1LL, std::llround(ms * 1000.0)); }

json futhark_bench_json(const Results& r, const FutharkExportOptions& o) {
    json out = json::object();
    bool any = false;
    for (const auto& b : r.benchmarks) {
        if (!o.backend.empty() && b.backend != o.backend) continue;
        any = true;
        const std::string key = futhark_program_key(b, o.backend.empty());
        json& datasets = out[key]["datasets"];
        if (datasets.is_null()) datasets = json::object();
        if (datasets.contains(b.dataset))
            throw Error("benchmarks " + b.name + " and another both map to Futhark program '" + key + "' dataset '" +
                        b.dataset + "'");
        if (b.status != Status::Ok) {
            // Futhark records a failed dataset as its error message.
            datasets[b.dataset] = std::string(to_string(b.status)) + (b.error.empty() ? "" : ": " + b.error);
            continue;
        }
        json runtimes = json::array();
        for (double ms : b.samples_ms) runtimes.push_back(futhark_runtime_us(ms));
        // "bytes" is Futhark's peak memory per memory space; tribench does not measure it.
        datasets[b.dataset] = {{"runtimes", runtimes}, {"bytes", json::object()}, {"stderr", ""}};
    }
    if (!any) {
        if (o.backend.empty()) throw Error("the results hold no benchmarks to export");
        throw Error("no benchmark in the results ran on backend '" + o.backend + "'");
    }
    return out;
}

namespace {

class FutharkReporter : public Reporter {
public:
    bool supports(ReportSubject s) const override { return s == ReportSubject::Run; }
    void write(const ReportInput& in, std::ostream& out) const override {
        FutharkExportOptions o;
        o.backend = in.backend;
        out << futhark_bench_json(*in.run, o).dump(1) << "\n";
    }
};

}  // namespace

std::unique_ptr<Reporter> make_futhark_reporter() { return std::make_unique<FutharkReporter>(); }

}  // namespace tb
