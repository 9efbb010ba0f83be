#include "tune/search.hpp"

#include <algorithm>
#include <random>
#include <set>

namespace tb {

namespace {
constexpr std::uint64_t kEnumerableGrid = std::uint64_t(1) << 20;
}

SearchPlan plan_search(const TuningSpace& space, const TuningConfig& start, const DeviceInfo& dev,
                       const SearchSettings& s) {
    SearchPlan plan;
    std::mt19937_64 rng(s.seed);
    const bool start_ok = space.refusal(start, dev).empty();
    std::vector<TuningConfig> allowed;
    const std::uint64_t grid = space.grid_size();
    auto keeps_pinned = [&](const TuningConfig& c) {
        for (const auto& name : s.pinned) {
            const auto a = c.find(name), b = start.find(name);
            if (a != c.end() && b != start.end() && a->second != b->second) return false;
        }
        return true;
    };
    if (grid <= kEnumerableGrid) {
        for (std::uint64_t i = 0; i < grid; ++i) {
            TuningConfig c = space.point(i);
            if (!keeps_pinned(c)) continue;
            if (std::string why = space.refusal(c, dev); why.empty()) allowed.push_back(std::move(c));
            else plan.refused.push_back({std::move(c), std::move(why)});
        }
        plan.allowed = allowed.size();
    } else {
        // Rejection sampling: draw grid indices until enough allowed points are found.
        std::set<std::uint64_t> drawn;
        std::uniform_int_distribution<std::uint64_t> pick(0, grid - 1);
        for (std::size_t tries = 0; allowed.size() < s.max_points && tries < 100 * s.max_points; ++tries) {
            const std::uint64_t i = pick(rng);
            if (!drawn.insert(i).second) continue;
            TuningConfig c = space.point(i);
            if (!keeps_pinned(c)) continue;
            if (std::string why = space.refusal(c, dev); why.empty()) allowed.push_back(std::move(c));
            else plan.refused.push_back({std::move(c), std::move(why)});
        }
        plan.allowed = grid;  // unknown: at most the grid
    }
    allowed.erase(std::remove(allowed.begin(), allowed.end(), start), allowed.end());
    plan.exhaustive = grid <= kEnumerableGrid && allowed.size() + (start_ok ? 1 : 0) <= s.exhaustive_limit;
    if (!plan.exhaustive) std::shuffle(allowed.begin(), allowed.end(), rng);
    if (start_ok) plan.points.push_back(start);
    for (auto& c : allowed) {
        if (!plan.exhaustive && plan.points.size() >= s.max_points) break;
        plan.points.push_back(std::move(c));
    }
    plan.strategy = plan.exhaustive ? "exhaustive"
                                    : "random (seed " + std::to_string(s.seed) + ", " + std::to_string(plan.points.size()) +
                                          " of " + std::to_string(plan.allowed) + ")";
    return plan;
}

}  // namespace tb
