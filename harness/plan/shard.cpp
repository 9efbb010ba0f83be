#include "plan/shard.hpp"

#include <algorithm>
#include <cctype>
#include <limits>
#include <numeric>

#include "device.hpp"
#include "fnv1a.hpp"

namespace tb {

namespace {

// A positive decimal without sign, spaces or leading '+': "07" is fine, "1e3" is not.
bool parse_positive(const std::string& s, int& out) {
    if (s.empty() || s.size() > 6) return false;
    for (char c : s)
        if (!std::isdigit(static_cast<unsigned char>(c))) return false;
    out = std::stoi(s);
    return out >= 1;
}

}  // namespace

ShardSpec parse_shard(const std::string& text) {
    const auto slash = text.find('/');
    ShardSpec s;
    if (slash == std::string::npos || !parse_positive(text.substr(0, slash), s.index) ||
        !parse_positive(text.substr(slash + 1), s.count) || s.index > s.count)
        throw Error("--shard takes K/N with 1 <= K <= N (got '" + text + "')");
    return s;
}

namespace {

// Greedy fill under a bound: the runs it cuts (first item of each) and their costs; a run
// pays its items and one compile per group it touches.
std::vector<std::int64_t> fill(const std::vector<const PlanItem*>& seq, std::int64_t bound,
                               std::vector<std::size_t>* starts) {
    std::vector<std::int64_t> loads;
    std::int64_t load = 0;
    const std::string* group = nullptr;  // the run's current group (items come grouped)
    for (std::size_t i = 0; i < seq.size(); ++i) {
        const PlanItem& it = *seq[i];
        const bool new_group = !group || *group != it.group;
        const std::int64_t add = it.cost_ms + (new_group && !it.group.empty() ? it.group_cost_ms : 0);
        if (i > 0 && load + add > bound) {
            loads.push_back(load);
            load = it.cost_ms + (it.group.empty() ? 0 : it.group_cost_ms);
            if (starts) starts->push_back(i);
        } else {
            load += add;
            if (i == 0 && starts) starts->push_back(0);
        }
        group = &it.group;
    }
    if (!seq.empty()) loads.push_back(load);
    return loads;
}

}  // namespace

ShardPlan plan_shards(const std::vector<PlanItem>& items, int count) {
    if (count < 1) throw Error("plan_shards: shard count must be at least 1");
    std::vector<std::size_t> order(items.size());
    std::iota(order.begin(), order.end(), std::size_t(0));
    std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
        if (items[a].group != items[b].group) return items[a].group < items[b].group;
        return items[a].name < items[b].name;
    });
    std::vector<const PlanItem*> seq;
    for (std::size_t i : order) seq.push_back(&items[i]);

    // The least bound whose greedy fill needs at most `count` runs: between the largest
    // single item with its compile and everything in one run.
    std::int64_t lo = 0, hi = 0;
    for (const PlanItem* it : seq) lo = std::max(lo, it->cost_ms + it->group_cost_ms);
    if (!seq.empty()) hi = fill(seq, std::numeric_limits<std::int64_t>::max(), nullptr).front();
    hi = std::max(hi, lo);
    while (lo < hi) {
        const std::int64_t mid = lo + (hi - lo) / 2;
        if (fill(seq, mid, nullptr).size() <= std::size_t(count)) hi = mid;
        else lo = mid + 1;
    }

    ShardPlan plan;
    plan.shard_of.assign(items.size(), 0);
    plan.load_ms.assign(std::size_t(count), 0);
    std::vector<std::size_t> starts;
    const auto loads = fill(seq, lo, &starts);
    for (std::size_t r = 0; r < loads.size(); ++r) {
        plan.load_ms[r] = loads[r];
        const std::size_t end = r + 1 < starts.size() ? starts[r + 1] : seq.size();
        for (std::size_t i = starts[r]; i < end; ++i) plan.shard_of[order[i]] = int(r) + 1;
    }

    // The digest names the assignment, not the order in which the items were listed.
    std::vector<std::string> lines;
    for (std::size_t i = 0; i < items.size(); ++i) lines.push_back(items[i].name + "\t" + std::to_string(plan.shard_of[i]));
    std::sort(lines.begin(), lines.end());
    std::string text = std::to_string(count) + "\n";
    for (const auto& l : lines) text += l + "\n";
    plan.digest = fnv1a64_hex(text);
    return plan;
}

}  // namespace tb
