// CPU reference for stencil (the fourth-order diffusion filter) and the reasoning behind its
// tolerance.
//
// One step on each z-plane (periodic in x and y, planes independent):
//     lap  = L(in)            L: 5-point Laplacian  -4 c + w + e + s + n
//     out  = in - alpha * L(lap)
// i.e. out = M in with M = I - alpha L^2, alpha = 1/32.
//
// Stability. L's Fourier symbol is Lh = -4 sin^2(tx/2) - 4 sin^2(ty/2), in [-8, 0], so M's
// amplification factor g = 1 - alpha Lh^2 lies in [1 - 64 alpha, 1] = [-1, 1] for
// alpha = 1/32: |g| <= 1 for every mode (alpha = 1/32 is the largest stable coefficient).
// Two modes are undamped: the constant (g = 1) and the checkerboard (-1)^(i+j) (g = -1,
// it flips sign every step). The input carries a checkerboard of amplitude kMarker so the
// output's sign pattern reveals the parity of the number of steps performed: dropping or
// repeating one step (the pointer-swap pitfall of graph replay) moves every cell by
// 2 * kMarker = 0.5, far above the tolerance.
//
// Tolerance. The reference runs in double (rounding ~1e-16, negligible); the device runs in
// float with any evaluation order and with or without FMA contraction. Let F_n be max|x_n|
// over the plane at step n and u = 2^-24. One float step from float input differs from the
// exact step by at most
//     lap1: a 5-term sum with sum|terms| <= 8F, any order: <= gamma_4 * 8F ~ 32 u F
//     lap2: its own rounding gamma_4 * 8 * 8F ~ 256 u F, plus L (inf-norm 8) applied to the
//           lap1 error: 256 u F
//     out:  alpha (a power of two) scales the 512 u F exactly to 16 u F; the subtraction
//           rounds once more, u * |out| <= u (F + 2F) = 3 u F
// so delta_n <= 19 u F_n (+ O(u^2)); kStepUlps = 20. Errors made at step n are carried to the
// end by M^(N-1-n), whose inf-norm is the l1 norm of its kernel. That norm is not 1 (M's
// kernel has negative weights: ||M||_inf = 1.75) but stays small: computed with a 4096^2 FFT
// it is 1.75, 1.875, 2.00 (m = 32), 2.16 (128), 2.29 (512), 2.34 (1023), growing by ~0.06 per
// doubling of m, so kPowerNormBound = 3 bounds it far beyond the largest dataset
// (4096 steps: ~2.5); tests/test_stencil.cpp checks it directly for m <= 64. Hence
//     |x_N(float) - x_N(exact)| <= C * sum_n 20 u (F_n + C * acc_n)  (+ flush-to-zero slack),
// accumulated step by step (acc_n: the bound so far, covering the float field's max exceeding
// the exact one). F_n >= kMarker for ever (the checkerboard is undamped), so the bound grows
// linearly: about 2e-3 for 1025 steps, 6e-3 for 4096 (observed errors: ~5e-7), always far
// below the 0.5 a parity error causes and the O(0.1) a wrong halo causes.
#pragma once

#include <cstdint>
#include <vector>

namespace tb::stencil {

inline constexpr float kAlpha = 1.0f / 32.0f;  // the study's coefficient, exact in float
inline constexpr float kMarker = 0.25f;        // checkerboard amplitude in the input

inline constexpr double kUnitRoundoff = 0x1p-24;
inline constexpr double kStepUlps = 20.0;        // local error of one float step, in u * F_n
inline constexpr double kPowerNormBound = 3.0;   // >= ||M^m||_inf for every m used
inline constexpr double kFlushSlack = 0x1p-100;  // per step: flush-to-zero of subnormals

// Interior of z-plane k of the initial field, nx * ny values, x fastest: uniform in [-1, 1)
// from the seed plus kMarker * (-1)^(i+j). Planes are generated independently, so any plane
// can be regenerated for validation without the rest of the field.
std::vector<float> initial_plane(int nx, int ny, int k, std::uint64_t seed);

// Amplification factor of one step for the Fourier mode with angles (tx, ty) per cell.
double amplification(double theta_x, double theta_y);

struct PlaneReference {
    std::vector<double> field;  // nx * ny values after the steps, x fastest
    double tolerance = 0;       // bound on |float implementation - field| (see above)
};

// `iterations` steps of the filter on one periodic plane, in double.
PlaneReference reference_plane(const std::vector<float>& initial, int nx, int ny, int iterations);

// The z-planes validated: all of them when the reference work (cells * iterations * planes)
// is within a budget of 2^31 cell-updates, else a seeded sample of as many planes as fit in
// the budget but at least 4. Sorted, distinct.
std::vector<int> sample_planes(int nx, int ny, int nz, int iterations, std::uint64_t seed);

}  // namespace tb::stencil
