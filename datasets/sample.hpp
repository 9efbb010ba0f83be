// Seeded random sample of output indices, for validating datasets whose full CPU
// reference would take too long.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "rng.hpp"

namespace tb {

// `count` distinct indices in [0, n), sorted; all of them when count >= n.
inline std::vector<std::uint64_t> sample_indices(std::uint64_t n, std::uint64_t count, std::uint64_t seed) {
    std::vector<std::uint64_t> idx;
    if (count >= n) {
        idx.resize(n);
        for (std::uint64_t i = 0; i < n; ++i) idx[i] = i;
        return idx;
    }
    Rng rng(seed);
    idx.reserve(count + count / 8);
    while (idx.size() < count) {
        while (idx.size() < count) idx.push_back(rng.below(n));
        std::sort(idx.begin(), idx.end());
        idx.erase(std::unique(idx.begin(), idx.end()), idx.end());
    }
    return idx;
}

}  // namespace tb
