// The JSON format: the results file, a comparison and a backend matrix for machines (keys
// in a fixed, readable order), and the "json" reporter that writes them.
#include "report/formats/json.hpp"

#include <ostream>

#include "report/reporter.hpp"

namespace tb {

using json = nlohmann::ordered_json;

namespace {

json number_or_null(bool ok, double v) { return ok ? json(v) : json(nullptr); }

}  // namespace

json comparison_json(const Comparison& c, const RunLabels& l) {
    json j = {{"schema", "tribench-compare"},
              {"version", 1},
              {"old", l.old_run},
              {"new", l.new_run},
              {"test", "two-sided Mann-Whitney U"},
              {"alpha", c.options.alpha},
              {"threshold_pct", c.options.threshold_pct},
              {"forced", c.options.force},
              {"device_mismatches", c.device_mismatches},
              {"clock_mismatches", c.clock_mismatches},
              {"config_mismatches", c.config_mismatches},
              {"exit_code", c.exit_code()}};
    json summary = json::object();
    for (const auto& b : c.benchmarks) summary[to_string(b.verdict)] = c.count(b.verdict);
    j["summary"] = summary;
    j["benchmarks"] = json::array();
    for (const auto& b : c.benchmarks) {
        const bool both_ok = b.in_old && b.in_new && b.old_status == Status::Ok && b.new_status == Status::Ok;
        json e = {{"name", b.name},
                  {"verdict", to_string(b.verdict)},
                  {"old_status", b.in_old ? json(to_string(b.old_status)) : json(nullptr)},
                  {"new_status", b.in_new ? json(to_string(b.new_status)) : json(nullptr)},
                  {"old_median_ms", number_or_null(b.in_old && b.old_status == Status::Ok, b.old_median_ms)},
                  {"new_median_ms", number_or_null(b.in_new && b.new_status == Status::Ok, b.new_median_ms)},
                  {"old_count", b.old_count},
                  {"new_count", b.new_count},
                  {"speedup", number_or_null(both_ok && b.speedup > 0, b.speedup)},
                  {"change_pct", number_or_null(both_ok && b.speedup > 0, b.change_pct)},
                  {"p_value", number_or_null(both_ok, b.p_value)},
                  {"exact", both_ok && b.exact},
                  {"testable", both_ok && b.testable},
                  {"significant", b.significant},
                  {"regression", b.regression},
                  {"threshold_pct", b.threshold_pct},
                  {"threshold_source", b.noise_threshold ? "noise model" : "--threshold"},
                  {"old_device", b.old_device},
                  {"new_device", b.new_device}};
        if (!b.old_error.empty()) e["old_error"] = b.old_error;
        if (!b.new_error.empty()) e["new_error"] = b.new_error;
        j["benchmarks"].push_back(e);
    }
    return j;
}

json matrix_json(const BackendMatrix& m, const std::string& run) {
    json j = {{"schema", "tribench-backend-matrix"}, {"version", 1},          {"run", run},
              {"baseline", m.baseline},              {"alpha", m.alpha},      {"columns", m.columns},
              {"notes", m.notes},                    {"rows", json::array()}};
    if (m.has_best) j["views"] = {"same-configuration", "each-at-its-own-best"};
    for (const auto& r : m.rows) {
        json row = {{"key", r.key}, {"program", r.program}, {"dataset", r.dataset}, {"variant", r.variant},
                    {"launch", r.launch}, {"cells", json::object()}};
        if (!r.picked.empty()) row["picked"] = r.picked;
        for (std::size_t ci = 0; ci < m.columns.size(); ++ci) {
            const MatrixCell& c = r.cells[ci];
            if (!c.present) continue;
            const bool ok = c.status == Status::Ok;
            const bool is_base = m.columns[ci].substr(0, m.columns[ci].find('@')) == m.baseline;
            json cell = {{"status", to_string(c.status)},
                         {"device", c.device},
                         {"count", c.count},
                         {"median_ms", number_or_null(ok, c.median_ms)},
                         {"rsd", number_or_null(ok, c.rsd)},
                         {"speedup", number_or_null(ok && c.speedup > 0, c.speedup)},
                         {"p_value", number_or_null(ok && c.speedup > 0 && !is_base, c.p_value)},
                         {"significant", c.significant}};
            if (ok) cell["clock"] = c.clock;
            if (c.clock_differs) cell["clock_differs"] = true;
            if (!c.error.empty()) cell["error"] = c.error;
            if (!c.config.empty()) cell["config"] = c.config;
            if (!c.config_source.empty()) cell["config_source"] = c.config_source;
            if (const MatrixCell* b = c.best.get()) {
                const bool best_ok = b->status == Status::Ok;
                cell["best"] = {{"status", to_string(b->status)},
                                {"median_ms", number_or_null(best_ok, b->median_ms)},
                                {"speedup", number_or_null(best_ok && b->speedup > 0, b->speedup)},
                                {"significant", b->significant},
                                {"config", b->config},
                                {"config_source", b->config_source}};
            }
            row["cells"][m.columns[ci]] = cell;
        }
        j["rows"].push_back(row);
    }
    return j;
}

namespace {

class JsonReporter : public Reporter {
public:
    bool supports(ReportSubject) const override { return true; }
    void write(const ReportInput& in, std::ostream& out) const override {
        switch (in.subject) {
            case ReportSubject::Run: out << results_file_text(*in.run); return;
            case ReportSubject::Comparison: out << comparison_json(*in.comparison, in.labels).dump(2) << "\n"; return;
            case ReportSubject::BackendMatrix: out << matrix_json(*in.matrix, in.run_label).dump(2) << "\n"; return;
        }
    }
};

}  // namespace

std::unique_ptr<Reporter> make_json_reporter() { return std::make_unique<JsonReporter>(); }

}  // namespace tb
