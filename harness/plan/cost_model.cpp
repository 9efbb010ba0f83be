#include "plan/cost_model.hpp"

#include <algorithm>
#include <cmath>

namespace tb {

std::string compile_group(const std::string& program, const std::string& backend) {
    return backend == kVendorId ? std::string() : program + "/" + backend;
}

CostTable cost_table_from_results(const Results& r, const std::string& source) {
    CostTable t;
    t.source = source;
    for (const auto& b : r.benchmarks) {
        if (b.status != Status::Ok) continue;
        double s = b.wall_ms * 1e-3;
        if (!(s > 0)) {
            double samples_ms = 0;
            for (double x : b.samples_ms) samples_ms += x;
            s = (samples_ms + b.upload_ms + b.download_ms) * 1e-3 + kModelCaseOverheadS;
        }
        t.case_s[b.name] = s;
        const std::string g = compile_group(b.program, b.backend);
        if (g.empty()) continue;
        double compile_ms = b.compile_cold_ms + b.compile_cached_ms;
        if (!(compile_ms > 0)) compile_ms = b.compile_ms;
        double& gs = t.group_s[g];
        gs = std::max(gs, compile_ms * 1e-3);
    }
    return t;
}

namespace {

std::int64_t to_ms(double s) { return std::int64_t(std::llround(std::max(0.0, s) * 1e3)); }

}  // namespace

std::vector<PlanItem> estimate_costs(const std::vector<Case>& cases, const std::vector<BackendSlot>& slots,
                                     const CostTable& table, const StoppingRule& rule) {
    std::vector<PlanItem> items;
    items.reserve(cases.size());
    for (const Case& c : cases) {
        PlanItem it;
        it.name = c.name;
        const std::string backend = c.vendor ? kVendorId : slots[c.slot].id;
        it.group = compile_group(c.program->name(), backend);
        if (auto f = table.case_s.find(c.name); f != table.case_s.end()) {
            it.cost_ms = to_ms(f->second);
        } else {
            const double bytes = double(c.program->device_bytes(c.dataset, c.variant));
            it.cost_ms = to_ms(kModelCaseOverheadS + std::min(rule.min_time_s, rule.timeout_s) +
                               bytes * kModelSecondsPerByte);
        }
        if (!it.group.empty()) {
            auto g = table.group_s.find(it.group);
            it.group_cost_ms = to_ms(g != table.group_s.end() ? g->second : kModelCompileS);
        }
        items.push_back(std::move(it));
    }
    return items;
}

}  // namespace tb
