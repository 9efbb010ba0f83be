// Deterministic, platform-independent random numbers for dataset generation. The standard
// library's distributions differ between implementations, so inputs are generated from
// SplitMix64 bits directly: the same seed gives the same data on every machine.
#pragma once

#include <cstdint>

namespace tb {

class Rng {
public:
    explicit Rng(std::uint64_t seed) : state_(seed) {}
    std::uint64_t next_u64() {
        std::uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
        return z ^ (z >> 31);
    }
    // Uniform in [0, 1) with 24 random bits: exactly representable as float.
    float uniform_float() { return float(next_u64() >> 40) * (1.0f / 16777216.0f); }
    float uniform_float(float lo, float hi) { return lo + (hi - lo) * uniform_float(); }
    // Uniform in [0, 1) with 53 random bits.
    double uniform_double() { return double(next_u64() >> 11) * (1.0 / 9007199254740992.0); }
    // Uniform integer in [0, n), n > 0 (Lemire's multiply-shift; bias below 2^-32 for n < 2^32).
    std::uint64_t below(std::uint64_t n) {
        return static_cast<std::uint64_t>((static_cast<unsigned __int128>(next_u64()) * n) >> 64);
    }

private:
    std::uint64_t state_;
};

// Derives independent streams from one user seed (per program, per array).
inline std::uint64_t derive_seed(std::uint64_t seed, std::uint64_t stream) {
    Rng r(seed ^ (stream * 0xD1B54A32D192ED03ull));
    return r.next_u64();
}

}  // namespace tb
