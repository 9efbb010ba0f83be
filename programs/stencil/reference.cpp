// Double-precision CPU reference of the diffusion filter on one periodic plane.
#include "reference.hpp"

#include <algorithm>
#include <cmath>
#include <utility>

#include "rng.hpp"
#include "sample.hpp"

namespace tb::stencil {
namespace {

constexpr std::uint64_t kInputStream = 0x57e4c11000000000ull;  // + plane index
constexpr std::uint64_t kSampleStream = 0x57e4c11a5a3b1e00ull;
constexpr std::uint64_t kReferenceBudget = 1ull << 31;  // cell-updates, all planes together
constexpr std::uint64_t kMinPlanes = 4;

// Plane with a halo of 2, row stride w = nx + 4: cell (i, j) at (j + 2) * w + i + 2.
struct Plane {
    int nx, ny, w;
    std::vector<double> v;
    Plane(int nx_, int ny_) : nx(nx_), ny(ny_), w(nx_ + 4), v(std::size_t(nx_ + 4) * (ny_ + 4)) {}
    double* row(int j) { return v.data() + std::size_t(j + 2) * w + 2; }  // row(j)[i], i in [-2, nx + 2)
};

// Periodic boundary into the halo: columns first, then whole rows (corners included).
void fill_halo(Plane& p) {
    for (int j = 0; j < p.ny; ++j) {
        double* r = p.row(j);
        r[-2] = r[p.nx - 2];
        r[-1] = r[p.nx - 1];
        r[p.nx] = r[0];
        r[p.nx + 1] = r[1];
    }
    for (int h = 1; h <= 2; ++h) {
        std::copy_n(p.row(p.ny - h) - 2, p.w, p.row(-h) - 2);
        std::copy_n(p.row(h - 1) - 2, p.w, p.row(p.ny + h - 1) - 2);
    }
}

// Four independent maxima: one chain of max would serialise on its latency (nx is even).
double max_abs_row(const double* r, int nx) {
    double m0 = 0, m1 = 0;
    for (int i = 0; i < nx; i += 2) {
        m0 = std::max(m0, std::abs(r[i]));
        m1 = std::max(m1, std::abs(r[i + 1]));
    }
    return std::max(m0, m1);
}

double max_abs(Plane& p) {
    double m = 0;
    for (int j = 0; j < p.ny; ++j) m = std::max(m, max_abs_row(p.row(j), p.nx));
    return m;
}

}  // namespace

std::vector<float> initial_plane(int nx, int ny, int k, std::uint64_t seed) {
    Rng rng(derive_seed(seed, kInputStream + std::uint64_t(k)));
    std::vector<float> v(std::size_t(nx) * ny);
    for (int j = 0; j < ny; ++j)
        for (int i = 0; i < nx; ++i)
            v[std::size_t(j) * nx + i] = rng.uniform_float(-1.0f, 1.0f) + ((i + j) % 2 ? -kMarker : kMarker);
    return v;
}

double amplification(double theta_x, double theta_y) {
    const double sx = std::sin(theta_x / 2), sy = std::sin(theta_y / 2);
    const double lap = -4 * sx * sx - 4 * sy * sy;
    return 1 - double(kAlpha) * lap * lap;
}

// Row-streamed: the first Laplacian lives in a ring of 3 rows, so each step reads the plane
// once and writes it once (the reference is memory-bound on large planes).
PlaneReference reference_plane(const std::vector<float>& initial, int nx, int ny, int iterations) {
    Plane a(nx, ny), next(nx, ny);
    for (int j = 0; j < ny; ++j)
        for (int i = 0; i < nx; ++i) a.row(j)[i] = initial[std::size_t(j) * nx + i];
    std::vector<double> ring(3 * std::size_t(nx + 2));
    const auto lap_row = [&](int j) { return ring.data() + std::size_t((j + 3) % 3) * (nx + 2) + 1; };  // [-1, nx]
    const auto compute_lap_row = [&](int j) {
        const double *c = a.row(j), *s = a.row(j - 1), *n = a.row(j + 1);
        double* l = lap_row(j);
        for (int i = -1; i <= nx; ++i) l[i] = -4 * c[i] + c[i - 1] + c[i + 1] + s[i] + n[i];
    };
    const double alpha = kAlpha;
    double acc = 0;  // error bound accumulated so far, before the factor kPowerNormBound
    double fmax = max_abs(a);
    for (int step = 0; step < iterations; ++step) {
        acc += kStepUlps * kUnitRoundoff * (fmax + kPowerNormBound * acc) + kFlushSlack;
        fill_halo(a);
        compute_lap_row(-1);
        compute_lap_row(0);
        fmax = 0;
        for (int j = 0; j < ny; ++j) {
            compute_lap_row(j + 1);
            const double *c = lap_row(j), *s = lap_row(j - 1), *n = lap_row(j + 1), *in = a.row(j);
            double* o = next.row(j);
            for (int i = 0; i < nx; ++i) o[i] = in[i] - alpha * (-4 * c[i] + c[i - 1] + c[i + 1] + s[i] + n[i]);
            fmax = std::max(fmax, max_abs_row(o, nx));
        }
        std::swap(a, next);
    }
    PlaneReference r;
    r.field.resize(std::size_t(nx) * ny);
    for (int j = 0; j < ny; ++j) std::copy_n(a.row(j), nx, r.field.data() + std::size_t(j) * nx);
    r.tolerance = kPowerNormBound * acc;
    return r;
}

std::vector<int> sample_planes(int nx, int ny, int nz, int iterations, std::uint64_t seed) {
    const std::uint64_t per_plane = std::uint64_t(nx) * std::uint64_t(ny) * std::uint64_t(iterations);
    const std::uint64_t count = std::max(kMinPlanes, kReferenceBudget / std::max<std::uint64_t>(per_plane, 1));
    std::vector<int> planes;
    for (std::uint64_t k : sample_indices(std::uint64_t(nz), count, derive_seed(seed, kSampleStream)))
        planes.push_back(int(k));
    return planes;
}

}  // namespace tb::stencil
