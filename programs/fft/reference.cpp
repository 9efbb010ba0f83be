#include "reference.hpp"

#include <cmath>
#include <limits>

#include "device.hpp"

#ifdef TRIBENCH_HAVE_FFTW
#include <fftw3.h>
#endif

namespace tb::fft {

void builtin_fft(cdouble* data, std::int64_t n, std::int64_t stride, bool inverse) {
    const int log2n = log2_exact(n);
    // Bit-reversal permutation.
    for (std::int64_t i = 0, j = 0; i < n; ++i) {
        if (i < j) std::swap(data[i * stride], data[j * stride]);
        std::int64_t bit = n >> 1;
        for (; j & bit; bit >>= 1) j ^= bit;
        j |= bit;
    }
    // Twiddles W_n^k for k < n/2 straight from cos/sin (no error-accumulating recurrences).
    std::vector<cdouble> w(std::size_t(n / 2));
    const double sign = inverse ? 1.0 : -1.0;
    for (std::int64_t k = 0; k < n / 2; ++k) {
        const double a = sign * 2.0 * M_PI * (double(k) / double(n));
        w[std::size_t(k)] = cdouble(std::cos(a), std::sin(a));
    }
    for (int level = 1; level <= log2n; ++level) {
        const std::int64_t half = std::int64_t(1) << (level - 1), step = n >> level;
        for (std::int64_t base = 0; base < n; base += 2 * half)
            for (std::int64_t k = 0; k < half; ++k) {
                cdouble& a = data[(base + k) * stride];
                cdouble& b = data[(base + k + half) * stride];
                const cdouble t = b * w[std::size_t(k * step)];
                b = a - t;
                a = a + t;
            }
    }
}

void builtin_transform(const Shape& s, std::vector<cdouble>& data, bool inverse) {
    if (std::int64_t(data.size()) != s.points()) throw Error("fft reference: data size does not match the shape");
    if (s.dims == 1) {
        for (std::int64_t b = 0; b < s.batch; ++b) builtin_fft(data.data() + b * s.length, s.length, 1, inverse);
        return;
    }
    for (std::int64_t r = 0; r < s.rows; ++r) builtin_fft(data.data() + r * s.cols, s.cols, 1, inverse);
    for (std::int64_t c = 0; c < s.cols; ++c) builtin_fft(data.data() + c, s.rows, s.cols, inverse);
}

#ifdef TRIBENCH_HAVE_FFTW

void reference_transform(const Shape& s, std::vector<cdouble>& data, bool inverse) {
    if (std::int64_t(data.size()) != s.points()) throw Error("fft reference: data size does not match the shape");
    // std::complex<double> is layout-compatible with fftw_complex (FFTW manual, 4.1.1).
    auto* p = reinterpret_cast<fftw_complex*>(data.data());
    const int sign = inverse ? FFTW_BACKWARD : FFTW_FORWARD;
    fftw_plan plan = nullptr;
    if (s.dims == 1) {
        const int n = int(s.length);
        plan = fftw_plan_many_dft(1, &n, int(s.batch), p, nullptr, 1, n, p, nullptr, 1, n, sign, FFTW_ESTIMATE);
    } else {
        plan = fftw_plan_dft_2d(int(s.rows), int(s.cols), p, p, sign, FFTW_ESTIMATE);
    }
    if (!plan) throw Error("fftw_plan_many_dft failed for " + s.describe());
    fftw_execute(plan);
    fftw_destroy_plan(plan);
}

std::string reference_name() { return std::string(fftw_version) + " (double)"; }

#else

void reference_transform(const Shape& s, std::vector<cdouble>& data, bool inverse) { builtin_transform(s, data, inverse); }

std::string reference_name() { return "built-in radix-2 FFT (double; FFTW not found at build time)"; }

#endif

double tolerance(std::int64_t n) {
    const double u = std::ldexp(1.0, -24);
    return 10.0 * u * double(log2_exact(n));
}

Comparison compare(const Shape& s, const std::vector<float>& got, const std::vector<cdouble>& want, double scale) {
    if (std::int64_t(got.size()) != 2 * s.points() || std::int64_t(want.size()) != s.points())
        throw Error("fft compare: sizes do not match the shape");
    const std::int64_t n = s.transform_size();
    Comparison c;
    double sum = 0;
    for (std::int64_t t = 0; t < s.transforms(); ++t) {
        double err2 = 0, ref2 = 0;
        for (std::int64_t i = t * n; i < (t + 1) * n; ++i) {
            const cdouble g(double(got[std::size_t(2 * i)]) * scale, double(got[std::size_t(2 * i + 1)]) * scale);
            err2 += std::norm(g - want[std::size_t(i)]);
            ref2 += std::norm(want[std::size_t(i)]);
        }
        double rel = std::sqrt(err2 / ref2);
        if (!std::isfinite(rel)) rel = std::numeric_limits<double>::quiet_NaN();
        sum += rel;
        // NaN sticks: once seen, the worst is NaN.
        if (std::isnan(rel) || (!std::isnan(c.worst) && rel > c.worst)) {
            if (!std::isnan(c.worst)) c.worst_transform = t;
            c.worst = rel;
        }
    }
    c.mean = sum / double(s.transforms());
    return c;
}

}  // namespace tb::fft
