#include "reference.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <functional>
#include <thread>

#include "cpu_affinity.hpp"

namespace tb::nbody {
namespace {

// Double-precision state of every body: positions and velocities (xyz), masses, bounds.
struct State {
    std::vector<double> x, v, m, ex, ev;
    explicit State(const InitialState& s) : x(3 * s.pos.size()), v(3 * s.pos.size()), m(s.pos.size()),
                                            ex(s.pos.size(), 0.0), ev(s.pos.size(), 0.0) {
        for (std::size_t i = 0; i < s.pos.size(); ++i) {
            x[3 * i] = s.pos[i].x, x[3 * i + 1] = s.pos[i].y, x[3 * i + 2] = s.pos[i].z;
            v[3 * i] = s.vel[i].x, v[3 * i + 1] = s.vel[i].y, v[3 * i + 2] = s.vel[i].z;
            m[i] = s.pos[i].w;
        }
    }
};

// Everything body i needs from the sums over j: the acceleration, S_i = sum |m d w|, and the
// two Jacobian sums that carry earlier position errors into this step's force.
struct Sums {
    double a[3] = {0, 0, 0};
    double abs_sum = 0;   // S_i
    double jac = 0;       // sum_{j != i} 2 m_j w_ij          (times e_r,i)
    double jac_err = 0;   // sum_{j != i} 2 m_j w_ij e_r,j
};

Sums sums_for(std::size_t i, const State& s, double eps2) {
    Sums r;
    const std::size_t n = s.m.size();
    const double xi = s.x[3 * i], yi = s.x[3 * i + 1], zi = s.x[3 * i + 2];
    for (std::size_t j = 0; j < n; ++j) {
        if (j == i) continue;  // d = 0 exactly in float too: the term is 0 on both sides
        const double dx = s.x[3 * j] - xi, dy = s.x[3 * j + 1] - yi, dz = s.x[3 * j + 2] - zi;
        const double d2 = dx * dx + dy * dy + dz * dz;
        const double r2 = d2 + eps2;
        const double mw = s.m[j] / (r2 * std::sqrt(r2));
        r.a[0] += mw * dx;
        r.a[1] += mw * dy;
        r.a[2] += mw * dz;
        r.abs_sum += mw * std::sqrt(d2);
        r.jac += 2 * mw;
        r.jac_err += 2 * mw * s.ex[j];
    }
    return r;
}

double norm3(const double* p) { return std::sqrt(p[0] * p[0] + p[1] * p[1] + p[2] * p[2]); }

// One step of body i in double, and its bounds (see reference.hpp for each term).
void advance(const Sums& f, std::size_t i, std::size_t n, const Params& p, State& s) {
    const double dt = p.dt, u = kUnitRoundoff;
    double* x = &s.x[3 * i];
    double* v = &s.v[3 * i];
    const double ea = f.abs_sum * interaction_error(n) + f.jac * s.ex[i] + f.jac_err;
    const double v_norm = norm3(v), a_norm = norm3(f.a);
    for (int c = 0; c < 3; ++c) v[c] += f.a[c] * dt;
    s.ev[i] += dt * ea + 2 * u * (v_norm + dt * a_norm);
    const double x_norm = norm3(x), v_new = norm3(v);
    for (int c = 0; c < 3; ++c) x[c] += v[c] * dt;
    s.ex[i] += dt * s.ev[i] + 2 * u * (x_norm + dt * v_new);
}

// fn(k) for k in [0, count), spread over the CPUs this process may use, in contiguous chunks.
void parallel_for(std::size_t count, const std::function<void(std::size_t)>& fn) {
    const std::size_t hw = usable_cpu_count();
    const std::size_t workers = std::min<std::size_t>({hw, 64, std::max<std::size_t>(1, count / 16)});
    if (workers <= 1) {
        for (std::size_t k = 0; k < count; ++k) fn(k);
        return;
    }
    std::vector<std::thread> pool;
    pool.reserve(workers);
    for (std::size_t w = 0; w < workers; ++w)
        pool.emplace_back([&, w] {
            for (std::size_t k = count * w / workers; k < count * (w + 1) / workers; ++k) fn(k);
        });
    for (auto& t : pool) t.join();
}

Expected expected_of(const State& s, std::size_t i) {
    Expected e;
    for (int c = 0; c < 3; ++c) e.x[c] = s.x[3 * i + c], e.v[c] = s.v[3 * i + c];
    e.x_bound = s.ex[i];
    e.v_bound = s.ev[i];
    return e;
}

std::string fmt(double x) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.3g", x);
    return buf;
}

bool same_bits(float a, float b) { return std::memcmp(&a, &b, sizeof a) == 0; }

}  // namespace

double interaction_error(std::size_t n) {
    return kUnitRoundoff * (kTermUlps + kSumSigmas * std::sqrt(double(n)));
}

std::vector<Expected> simulate(const InitialState& in, int steps, const Params& p) {
    State s(in);
    const std::size_t n = s.m.size();
    std::vector<Sums> sums(n);
    for (int step = 0; step < steps; ++step) {
        // Every force from the old positions first, then every body moves.
        parallel_for(n, [&](std::size_t i) { sums[i] = sums_for(i, s, p.eps2); });
        for (std::size_t i = 0; i < n; ++i) advance(sums[i], i, n, p, s);
    }
    std::vector<Expected> out(n);
    for (std::size_t i = 0; i < n; ++i) out[i] = expected_of(s, i);
    return out;
}

std::vector<Expected> first_step(const InitialState& in, const std::vector<std::uint64_t>& bodies, const Params& p) {
    const State s(in);
    const std::size_t n = s.m.size();
    std::vector<Expected> out(bodies.size());
    parallel_for(bodies.size(), [&](std::size_t k) {
        const std::size_t i = bodies[k];
        State one(InitialState{{in.pos[i]}, {in.vel[i]}});  // body i alone, advanced with the full sums
        advance(sums_for(i, s, p.eps2), 0, n, p, one);
        out[k] = expected_of(one, 0);
    });
    return out;
}

Validation compare(const InitialState& in, const std::vector<Body>& pos_out, const std::vector<Body>& vel_out,
                   const std::vector<std::uint64_t>& bodies, const std::vector<Expected>& expected,
                   const std::string& what) {
    Validation v;
    std::size_t bad = 0, first_bad = bodies.size();
    double worst_x = 0, worst_x_ratio = 0, worst_v = 0, worst_v_ratio = 0;
    std::string first_why;
    for (std::size_t k = 0; k < bodies.size(); ++k) {
        const std::size_t i = bodies[k];
        const Expected& e = expected[k];
        const Body& po = pos_out[i];
        const Body& vo = vel_out[i];
        const double dxs[3] = {po.x - e.x[0], po.y - e.x[1], po.z - e.x[2]};
        const double dvs[3] = {vo.x - e.v[0], vo.y - e.v[1], vo.z - e.v[2]};
        const double ex = norm3(dxs), ev = norm3(dvs);
        const bool x_ok = ex <= e.x_bound, v_ok = ev <= e.v_bound;  // false for NaN
        const bool w_ok = same_bits(po.w, in.pos[i].w) && same_bits(vo.w, in.vel[i].w);
        if (x_ok && ex / e.x_bound > worst_x_ratio) worst_x_ratio = ex / e.x_bound, worst_x = ex;
        if (v_ok && ev / e.v_bound > worst_v_ratio) worst_v_ratio = ev / e.v_bound, worst_v = ev;
        if (x_ok && v_ok && w_ok) continue;
        if (bad++ == 0) {
            first_bad = i;
            first_why = !w_ok  ? "mass or velocity w changed (" + fmt(po.w) + ", " + fmt(vo.w) + ")"
                        : !x_ok ? "position off by " + fmt(ex) + " > bound " + fmt(e.x_bound)
                                : "velocity off by " + fmt(ev) + " > bound " + fmt(e.v_bound);
        }
    }
    v.ok = bad == 0 && !bodies.empty();
    v.checked = bodies.size() * 8;
    v.sampled = bodies.size() < in.pos.size();
    v.detail = what + ": " + std::to_string(bodies.size()) + " bodies vs double CPU reference, " + std::to_string(bad) +
               " outside the error bound; worst within: position " + fmt(worst_x) + " (" + fmt(worst_x_ratio) +
               " of bound), velocity " + fmt(worst_v) + " (" + fmt(worst_v_ratio) + " of bound)";
    if (bad) v.detail += "; first: body " + std::to_string(first_bad) + ", " + first_why;
    return v;
}

}  // namespace tb::nbody
