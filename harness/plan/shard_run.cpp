#include "plan/shard_run.hpp"

#include <cstdio>
#include <cstdlib>
#include <filesystem>

namespace tb {

namespace {

std::string env_or_empty(const char* name) {
    const char* v = std::getenv(name);
    return v ? v : "";
}

// The Slurm job a shard ran in, "ARRAYJOB_TASK" for array tasks: ties a file to `sacct`.
std::string batch_job() {
    const std::string array = env_or_empty("SLURM_ARRAY_JOB_ID"), task = env_or_empty("SLURM_ARRAY_TASK_ID");
    if (!array.empty() && !task.empty()) return array + "_" + task;
    return env_or_empty("SLURM_JOB_ID");
}

std::string seconds(double s) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.2f", s);
    return buf;
}

}  // namespace

ShardedSelection shard_selection(const std::vector<Case>& all, const std::vector<BackendSlot>& slots,
                                 const std::string& shard, const std::string& cost_from, const StoppingRule& rule) {
    ShardedSelection s;
    const ShardSpec spec = shard.empty() ? ShardSpec{} : parse_shard(shard);
    CostTable table;
    if (!cost_from.empty())
        table = cost_table_from_results(load_results(cost_from),
                                        "results " + std::filesystem::path(cost_from).filename().string());
    s.items = estimate_costs(all, slots, table, rule);
    s.plan = plan_shards(s.items, spec.count);
    for (std::size_t i = 0; i < all.size(); ++i) {
        s.selection.push_back(all[i].name);
        if (s.plan.shard_of[i] == spec.index) s.cases.push_back(all[i]);
    }
    s.record.index = spec.index;
    s.record.count = spec.count;
    s.record.plan = s.plan.digest;
    s.record.cost_source = table.source;
    s.record.estimated_s = double(s.plan.load_ms[std::size_t(spec.index - 1)]) * 1e-3;
    s.record.visible_devices = env_or_empty("CUDA_VISIBLE_DEVICES");
    s.record.batch_job = batch_job();
    if (shard.empty()) s.record.count = 0;  // not sharded: the file records no shard
    return s;
}

std::string format_plan(const ShardedSelection& s) {
    const int count = int(s.plan.load_ms.size());
    const int index = s.record.count ? s.record.index : 0;
    std::string out = "shard  est. s  benchmark\n";
    for (std::size_t i = 0; i < s.items.size(); ++i) {
        const int k = s.plan.shard_of[i];
        if (index && k != index) continue;
        char line[64];
        std::snprintf(line, sizeof line, "%5d  %6s  ", k, seconds(double(s.items[i].cost_ms) * 1e-3).c_str());
        out += line + s.items[i].name + "\n";
    }
    for (int k = 1; k <= count; ++k) {
        std::size_t n = 0;
        for (int sh : s.plan.shard_of) n += sh == k;
        out += "shard " + std::to_string(k) + "/" + std::to_string(count) + ": " + std::to_string(n) +
               " benchmarks, " + seconds(double(s.plan.load_ms[std::size_t(k - 1)]) * 1e-3) +
               " s estimated with compiles\n";
    }
    out += "split " + s.plan.digest + " of " + std::to_string(s.items.size()) + " benchmarks, costs from " +
           s.record.cost_source + "\n";
    return out;
}

}  // namespace tb
