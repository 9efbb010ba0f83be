#include "report/formats/github_benchmark.hpp"

#include <algorithm>
#include <cstdio>
#include <ostream>

#include "compare/compare.hpp"
#include "report/reporter.hpp"

namespace tb {
namespace {

std::string fmt(const char* f, double v) {
    char buf[64];
    std::snprintf(buf, sizeof buf, f, v);
    return buf;
}

std::string env_text(const Results& r, const char* key) {
    const nlohmann::json& e = r.environment;
    return e.is_object() && e.contains(key) && e[key].is_string() ? e[key].get<std::string>() : "";
}

}  // namespace

nlohmann::ordered_json github_benchmark_json(const Results& r) {
    nlohmann::ordered_json out = nlohmann::ordered_json::array();
    const std::string commit = env_text(r, "tribench_commit");
    for (const auto& b : r.benchmarks) {
        if (b.status != Status::Ok || b.samples_ms.empty()) continue;
        const MedianCi ci = median_ci95(b.samples_ms);
        const double half = std::max(ci.median - ci.low, ci.high - ci.median);
        std::string extra = "device: " + describe_device(r, b.device);
        if (extra == "device: ") extra += b.device;
        extra += "\nsamples: " + std::to_string(b.samples_ms.size()) + ", rsd " + fmt("%.2f%%", b.summary.rsd * 100) +
                 "\n95% CI of the median: " + fmt("%.6g", ci.low) + " to " + fmt("%.6g", ci.high) + " ms";
        if (!b.math.empty()) extra += "\nmath: " + b.math;
        if (!commit.empty()) extra += "\ntribench " + commit;
        out.push_back({{"name", b.name},
                       {"unit", "ms"},
                       {"value", std::stod(fmt("%.6g", ci.median))},  // 6 digits: far below any noise
                       {"range", "± " + fmt("%.6g", half)},
                       {"extra", extra}});
    }
    if (out.empty()) throw Error("no validated benchmark to export (github-action-benchmark refuses an empty list)");
    return out;
}

namespace {

class GithubBenchmarkReporter : public Reporter {
public:
    bool supports(ReportSubject s) const override { return s == ReportSubject::Run; }
    void write(const ReportInput& in, std::ostream& out) const override {
        out << github_benchmark_json(*in.run).dump(1) << "\n";
    }
};

}  // namespace

std::unique_ptr<Reporter> make_github_benchmark_reporter() { return std::make_unique<GithubBenchmarkReporter>(); }

}  // namespace tb
