// What `run --shard K/N` measures: the whole selection is planned and split on every shard
// alike (cost_model.hpp, shard.hpp), then the shard keeps its part. Also `run --dry-run`.
#pragma once

#include <string>
#include <vector>

#include "plan/cost_model.hpp"
#include "results/results.hpp"
#include "plan/selection.hpp"
#include "plan/shard.hpp"

namespace tb {

struct ShardedSelection {
    std::vector<Case> cases;             // this shard's cases, in selection order
    std::vector<std::string> selection;  // every selected benchmark's name
    ShardRecord record;                  // count 0 when not sharded
    std::vector<PlanItem> items;         // estimates of the whole selection
    ShardPlan plan;
};

// shard: "" (the whole selection is shard 1/1, record.count stays 0) or "K/N"; cost_from: ""
// or a results file. Throws tb::Error for a bad K/N or an unreadable cost file.
ShardedSelection shard_selection(const std::vector<Case>& all, const std::vector<BackendSlot>& slots,
                                 const std::string& shard, const std::string& cost_from, const StoppingRule& rule);

// The `--dry-run` listing: this shard's benchmarks with estimates, then every shard's total.
std::string format_plan(const ShardedSelection& s);

}  // namespace tb
