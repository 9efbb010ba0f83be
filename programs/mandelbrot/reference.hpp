// CPU reference for mandelbrot and the reasoning behind its tolerance.
#pragma once

#include <cmath>
#include <cstdint>

namespace tb::mandelbrot {

struct View {
    int width, height, max_iter;
    float x0, y0, dx, dy;
};

// `fused` is the kernels' loop, operation for operation: they write every a*b+c of it as
// an fma, so every conforming compiler rounds it alike. The unfused loop (plain products
// and sums) is the same iteration rounded differently; the pixels where the two disagree
// measure how far rounding alone moves escape times (the tolerance below).
inline int escape_time(const View& v, int px, int py, bool fused) {
    const float cr = v.x0 + float(px) * v.dx;
    const float ci = v.y0 + float(py) * v.dy;
    float zr = 0.0f, zi = 0.0f;
    int i = 0;
    while (i < v.max_iter) {
        const float zi2 = zi * zi;
        if (fused) {
            if (std::fma(zr, zr, zi2) > 4.0f) break;
            const float zr_next = std::fma(zr, zr, -zi2) + cr;
            zi = std::fma(2.0f * zr, zi, ci);
            zr = zr_next;
        } else {
            const float zr2 = zr * zr;
            if (zr2 + zi2 > 4.0f) break;
            zi = 2.0f * zr * zi + ci;
            zr = zr2 - zi2 + cr;
        }
        ++i;
    }
    return i;
}

// Tolerance. Near the set's boundary the orbit is chaotic: one rounding difference (an
// fma contraction, a reordered add) in any step can change the escape iteration by any
// amount, so pixels cannot be compared with an error bound. Instead the reference counts
// the pixels whose escape time changes between the unfused and fused float evaluations
// (`sensitive`): these are the pixels at which rounding alone moves the result.
// A device pixel matches when it equals either evaluation. The rest are pixels where the
// device rounded differently again (a platform whose fma or products are not correctly
// rounded, or flush denormals under --math fast); their number may be at
// most 2 * sensitive + 0.01% of the pixels compared (the floor covers samples too small to
// hold a sensitive pixel). A wrong kernel (off-by-one coordinates, wrong
// region, missing pixels) mismatches a large fraction and fails.
inline std::uint64_t allowed_mismatches(std::uint64_t sensitive, std::uint64_t compared) {
    return 2 * sensitive + compared / 10000;
}

}  // namespace tb::mandelbrot
