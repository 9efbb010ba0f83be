// Deterministic blob generator for kmeans (see blobs.hpp).
#include "blobs.hpp"

#include <cmath>

#include "device.hpp"
#include "rng.hpp"

namespace tb::kmeans {

Blobs make_blobs(std::int64_t n, int d, int blobs, std::uint64_t seed, bool keep_labels) {
    if (n < 1 || d < 1 || blobs < 1) throw Error("kmeans: make_blobs needs n, d and blobs >= 1");
    Blobs b;
    Rng centre_rng(derive_seed(seed, 1));
    b.centres.resize(std::size_t(blobs) * d);
    for (auto& c : b.centres) c = float(kBox * centre_rng.uniform_double());

    // sqrt(3) scales the sum of four U(0,1) (variance 4/12) to unit variance.
    const double scale = kSigma * std::sqrt(3.0);
    Rng rng(derive_seed(seed, 2));
    b.points.resize(std::size_t(n) * d);
    if (keep_labels) b.blob_of.resize(n);
    for (std::int64_t i = 0; i < n; ++i) {
        const int blob = int(rng.below(std::uint64_t(blobs)));
        if (keep_labels) b.blob_of[i] = blob;
        for (int f = 0; f < d; ++f) {
            const double z = rng.uniform_double() + rng.uniform_double() + rng.uniform_double() +
                             rng.uniform_double() - 2.0;
            b.points[std::size_t(f) * n + i] = float(b.centres[std::size_t(blob) * d + f] + scale * z);
        }
    }
    return b;
}

}  // namespace tb::kmeans
