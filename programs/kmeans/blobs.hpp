// Input points for kmeans: Gaussian-ish blobs around random centres, so that the
// clustering is meaningful (Lloyd's algorithm has clusters to find).
#pragma once

#include <cstdint>
#include <vector>

namespace tb::kmeans {

inline constexpr double kBox = 100.0;   // blob centres are uniform in [0, kBox)^d
inline constexpr double kSigma = 4.0;   // per-feature spread of a blob

struct Blobs {
    std::vector<float> points;          // feature-major: feature f of point i at [f * n + i]
    std::vector<float> centres;         // blob-major: [b * d + f]
    std::vector<std::int32_t> blob_of;  // the blob each point was drawn from (when asked for)
};

// n points in d dimensions around `blobs` centres, deterministic in `seed`. Each point
// picks a blob uniformly; each coordinate is centre + kSigma * z with z the sum of four
// uniform numbers, centred and scaled to unit variance (Irwin-Hall: bell-shaped, bounded
// by |z| <= 2 sqrt(3), and free of transcendental functions, so identical on every
// machine). keep_labels fills blob_of.
Blobs make_blobs(std::int64_t n, int d, int blobs, std::uint64_t seed, bool keep_labels = false);

}  // namespace tb::kmeans
