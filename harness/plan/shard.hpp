// Splitting a selection of benchmarks into N shards of about equal expected cost, so that N
// processes (GPUs of a host, Slurm array tasks) finish together (docs/scale-out.md). The
// split is a pure function of the items and N: every shard computes the same one by itself,
// with no coordination, and each item lands in exactly one shard.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace tb {

// `--shard K/N`: part K (1-based) of N.
struct ShardSpec {
    int index = 1, count = 1;
};
// Throws tb::Error("--shard takes K/N with 1 <= K <= N (got '...')").
ShardSpec parse_shard(const std::string& text);

// One benchmark to place. Costs are whole milliseconds so that the split does not depend on
// floating-point rounding (shards may be planned by different builds on different hosts).
struct PlanItem {
    std::string name;              // benchmark name, unique within the selection
    std::string group;             // items that share a compile (program and backend); "" for none
    std::int64_t cost_ms = 0;      // the item's own expected wall time
    std::int64_t group_cost_ms = 0;  // paid once by each shard that holds an item of the group
};

struct ShardPlan {
    std::vector<int> shard_of;         // per item (input order): its shard, 1..count
    std::vector<std::int64_t> load_ms; // per shard (index 0 = shard 1): expected wall time
    std::string digest;                // FNV-1a 64 of count, names and their shards (any item order)
};

// Items are ordered by group, then name, and cut into at most `count` consecutive runs whose
// largest expected time (items plus one compile per group a run touches) is the least
// possible for that order: a binary search over the bound with a greedy fill, exact for
// consecutive runs. Consecutive runs keep a program's benchmarks together, so the shards
// pay at most count - 1 compiles more than one process would (a spread-out split, as
// longest-first greedy makes, pays nearly every compile in every shard: ~13 s per shard on
// an H100, docs/scale-out.md). Shards after the last run are empty. count must be >= 1.
ShardPlan plan_shards(const std::vector<PlanItem>& items, int count);

}  // namespace tb
