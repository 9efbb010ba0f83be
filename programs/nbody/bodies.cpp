#include "bodies.hpp"

#include "rng.hpp"

namespace tb::nbody {

InitialState make_initial_state(std::size_t n, std::uint64_t seed) {
    InitialState s;
    s.pos.resize(n);
    s.vel.resize(n);
    Rng rng(derive_seed(seed, 0x6e626f6479ull));  // "nbody"
    const float mass_scale = 1.0f / float(n);
    for (std::size_t i = 0; i < n; ++i) {
        Body& p = s.pos[i];
        do {  // rejection sampling: uniform in the ball, no clustering at the centre
            p.x = rng.uniform_float(-1.0f, 1.0f);
            p.y = rng.uniform_float(-1.0f, 1.0f);
            p.z = rng.uniform_float(-1.0f, 1.0f);
        } while (p.x * p.x + p.y * p.y + p.z * p.z > 1.0f);
        p.w = rng.uniform_float(0.5f, 1.5f) * mass_scale;
        Body& v = s.vel[i];
        v.x = rng.uniform_float(-0.5f, 0.5f);
        v.y = rng.uniform_float(-0.5f, 0.5f);
        v.z = rng.uniform_float(-0.5f, 0.5f);
        v.w = 0.0f;
    }
    return s;
}

}  // namespace tb::nbody
