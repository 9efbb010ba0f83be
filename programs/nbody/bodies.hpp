// nbody's data layout and initial conditions, shared by the host code, the CPU reference
// and the tests.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace tb::nbody {

// The kernels' float4: position xyz + mass w, or velocity xyz + an unused w that each step
// carries through unchanged.
struct Body {
    float x, y, z, w;
};
static_assert(sizeof(Body) == 16, "Body must match float4");

// One semi-implicit Euler step: v += a dt, then r += v dt with the new v.
struct Params {
    float dt;
    float eps2;  // softening length squared; > 0, so the j == i term is 0 without a branch
};

// Every dataset: G = 1, total mass ~1 in the unit ball, softening 0.01, 100 steps per unit
// time (1/200 of a crossing time at the initial speeds).
inline constexpr Params kParams{0.01f, 1e-4f};

struct InitialState {
    std::vector<Body> pos, vel;
};

// n bodies uniform in the unit ball, masses uniform in [0.5, 1.5) / n, velocity components
// uniform in [-0.5, 0.5), velocity w = 0. Deterministic in (n, seed) on every machine.
InitialState make_initial_state(std::size_t n, std::uint64_t seed);

}  // namespace tb::nbody
