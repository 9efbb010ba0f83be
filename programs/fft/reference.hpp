// CPU reference for fft (double precision) and the tolerance of a float transform.
#pragma once

#include <complex>
#include <cstdint>
#include <string>
#include <vector>

#include "shape.hpp"

namespace tb::fft {

using cdouble = std::complex<double>;

// Every transform of `s` in place, forward (exp(-2 pi i jk/N)) or unnormalised inverse
// (exp(+2 pi i jk/N)), with FFTW in double precision when tribench was built with it, else
// with the built-in transform below.
void reference_transform(const Shape& s, std::vector<cdouble>& data, bool inverse);
// "fftw-3.3.10-sse2-avx (double)" or "built-in radix-2 FFT (double; FFTW not found at build time)".
std::string reference_name();

// The built-in reference: iterative radix-2 with twiddles from double cos/sin of each
// angle (no recurrences), O(N log N), accurate to a few 1e-16 relative.
void builtin_fft(cdouble* data, std::int64_t n, std::int64_t stride, bool inverse);
void builtin_transform(const Shape& s, std::vector<cdouble>& data, bool inverse);

// Tolerance on the relative L2 error ||y - Y|| / ||Y|| of one single-precision transform
// of N points (N = rows * cols in 2-D) against the exact Y.
//
// Reasoning (Higham, Accuracy and Stability of Numerical Algorithms, sec. 24.1): a
// Cooley-Tukey FFT computed in floating point with unit roundoff u and twiddles accurate
// to mu satisfies ||y - Y|| / ||Y|| <= log2(N) * eta / (1 - log2(N) * eta), with
// eta = mu + gamma_4 * (sqrt(2) + mu) and gamma_4 = 4u / (1 - 4u): every point goes
// through log2 N radix-2 levels, each adding at most eta. Our radix-4/8/16 butterflies are
// at most as many roundings per level; the twiddles inside a pass are double values rounded
// to float (mu = u: eta <= u + 4 sqrt(2) u + O(u^2) < 6.7u), and the pass twiddle a point
// gets once per twiddled global pass is a product of up to 10 such values (9 complex
// multiplications: mu <= 19u to first order, 18u more at that level). With P passes and
// log2 N >= 7 (P - 1) + 1 in every plan (10 (P - 1) + 1 in the default tuning's), the bound
// is at most 9.3 u log2 N. We allow 10 u log2 N (1.2e-5 at N = 2^20); a correct kernel is
// typically 40-80x below it (the errors add like a random walk), while any indexing or
// twiddle mistake gives O(1).
// The reference's own error (double) is negligible.
double tolerance(std::int64_t n);

// Relative L2 error of every transform: got (interleaved float re, im, multiplied by
// `scale` first) against want. NaN/Inf anywhere make the result NaN.
struct Comparison {
    double worst = 0;           // largest relative error (NaN if any value was not finite)
    std::int64_t worst_transform = 0;
    double mean = 0;
};
Comparison compare(const Shape& s, const std::vector<float>& got, const std::vector<cdouble>& want, double scale);

}  // namespace tb::fft
