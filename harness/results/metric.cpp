#include "results/metric.hpp"

namespace tb {

void select_metric(Results& r, const std::string& metric) {
    if (metric == "samples") return;
    if (metric != "batch") throw Error("unknown metric '" + metric + "' (known: samples, batch)");
    for (auto& b : r.benchmarks) {
        if (b.status != Status::Ok) continue;
        if (b.batch_samples_ms.empty()) {
            b.status = Status::Skipped;
            b.error = "no batch timing in this results file";
            b.samples_ms.clear();
        } else {
            b.samples_ms = b.batch_samples_ms;
        }
        b.summary = summarize(b.samples_ms);
    }
}

Results load_results_as(const std::string& path, const std::string& metric) {
    Results r = load_results(path);
    select_metric(r, metric);
    return r;
}

}  // namespace tb
