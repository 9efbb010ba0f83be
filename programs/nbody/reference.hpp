// CPU reference for nbody (double precision, from the same float inputs) and the error bound
// a correct float implementation stays within, with the reasoning behind it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "bodies.hpp"
#include "program.hpp"

namespace tb::nbody {

// Tolerance (u = 2^-24, float's unit roundoff; all vector norms Euclidean).
//
// One term m_j d w, w = (|d|^2 + eps2)^(-3/2), evaluated in float from float positions,
// relative to its exact value from the same inputs: d = fl(r_j - r_i) errs by u per
// component; r2 = dx^2 + dy^2 + dz^2 + eps2 sums non-negative values, so 2u (from d) + 4u
// (three additions and, unfused, the products); rsqrt errs by 2 ulp = 4u (CUDA's rsqrtf,
// MUFU.RSQ, ~2^-22.9 measured, unchanged by --use_fast_math; OpenCL's rsqrt) plus half of
// r2's 6u; inv^3 triples that and rounds twice; m and d add one rounding each: ~26u.
// kTermUlps = 48 also admits a 4-ulp (2^-21) rsqrt, e.g. a CPU compiler's estimate refined by
// one Newton step under -cl-fast-relaxed-math. An approximate rsqrt may err one way for
// every term, so these errors add linearly: at most kTermUlps u S_i, S_i = sum_j |m_j d_ij w_ij|.
//
// Summing N terms: each addition rounds by at most u times the running sum, which is at most
// S_i. All N roundings going one way, (N-1) u S_i, does not happen: round-to-nearest errors
// are unbiased and independent enough to add as a random walk, rms at most
// sqrt(N/3) u S_i for the vector sum. kSumSigmas sqrt(N) u S_i with kSumSigmas = 4 is ~7 rms,
// whatever the summation order (sequential, tiled, split into slices, reassociated by a
// fast-math compiler). So the acceleration errs by at most
//     e_a = S_i u (kTermUlps + kSumSigmas sqrt(N)),
// relative to S_i, not |a_i|: forces from all sides cancel, and no float sum beats S_i u.
// Flush-to-zero loses terms below 2^-126, far below S_i u for these datasets.
//
// The update with the device's a: v' = v + a dt rounds twice (product, sum), each by at most
// u (|v| + dt |a|); r' = r + v' dt likewise. After one step
//     e_v = dt e_a + 2u (|v| + dt |a|),   e_r = dt e_v + 2u (|r| + dt |v'|).
// Later steps start from positions already off by e_r. The force of j on i then moves by at
// most 2 m_j w_ij (e_r,i + e_r,j): the Jacobian of d w is w (I - 3 d d^T / (|d|^2 + eps2)),
// eigenvalues 1 and 1 - 3|d|^2 / (|d|^2 + eps2), in [-2, 1]. So e_a gains
// sum_j 2 m_j w_ij (e_r,i + e_r,j), while e_v and e_r carry over. This first-order
// propagation is tracked per body, step by step, in double next to the reference.
// Masses (pos.w) and vel.w pass through unchanged and must match bit for bit.
//
// Sampled validation: body i's bound after one step needs only sums over j for body i, so a
// random sample is checked exactly; after two steps it would need every body's position, so
// datasets validated by sampling run exactly one step.
inline constexpr double kUnitRoundoff = 0x1p-24;
inline constexpr double kTermUlps = 48;
inline constexpr double kSumSigmas = 4;

// e_a / S_i for a sum over n bodies.
double interaction_error(std::size_t n);

// The reference state of one body after the simulated steps, and how far from it a correct
// float implementation may be (bounds on the Euclidean norm of the error).
struct Expected {
    double x[3], v[3];
    double x_bound, v_bound;
};

// Every body after `steps` steps, in double, with propagated bounds. O(steps * n^2), split
// over the machine's cores.
std::vector<Expected> simulate(const InitialState& s, int steps, const Params& p);

// The listed bodies after one step: exact all-pairs sums for each, O(bodies.size() * n).
std::vector<Expected> first_step(const InitialState& s, const std::vector<std::uint64_t>& bodies, const Params& p);

// Compares device outputs with the reference for the listed bodies (expected[k] belongs to
// bodies[k]): positions and velocities within their bounds, pos.w and vel.w bit-identical to
// the inputs'. NaN (a poisoned, never-written output) fails. `what` starts the detail line.
Validation compare(const InitialState& in, const std::vector<Body>& pos_out, const std::vector<Body>& vel_out,
                   const std::vector<std::uint64_t>& bodies, const std::vector<Expected>& expected,
                   const std::string& what);

}  // namespace tb::nbody
