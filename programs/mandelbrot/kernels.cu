// Escape-time Mandelbrot: one thread per pixel, iteration count as output. The same
// algorithm as kernels.cl (docs/programs/mandelbrot.md): a 2-D grid of
// MANDELBROT_GROUP_X x MANDELBROT_GROUP_Y blocks, the escape loop not unrolled (unrolling
// keeps one exit test per iteration and only adds instructions).
#ifndef MANDELBROT_GROUP_X
#error "MANDELBROT_GROUP_X must come from the host (programs/mandelbrot/tuning.hpp)"
#endif
#ifndef MANDELBROT_GROUP_Y
#error "MANDELBROT_GROUP_Y must come from the host (programs/mandelbrot/tuning.hpp)"
#endif

extern "C" __global__ void __launch_bounds__(MANDELBROT_GROUP_X * MANDELBROT_GROUP_Y)
mandelbrot(int* __restrict__ out, int width, int height,
           float x0, float y0, float dx, float dy, int max_iter)
{
    const int px = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
    const int py = static_cast<int>(blockIdx.y * blockDim.y + threadIdx.y);
    if (px >= width || py >= height)
        return;
    const float cr = x0 + static_cast<float>(px) * dx;
    const float ci = y0 + static_cast<float>(py) * dy;
    float zr = 0.0f, zi = 0.0f;
    int i = 0;
    for (; i < max_iter; ++i) {
        // Written as fused multiply-adds so that every compiler rounds alike (nothing left
        // to contract) and the loop is 11 SASS instructions (docs/programs/mandelbrot.md).
        const float zi2 = zi * zi;
        if (fmaf(zr, zr, zi2) > 4.0f)
            break;
        const float zr_next = fmaf(zr, zr, -zi2) + cr;
        zi = fmaf(2.0f * zr, zi, ci);
        zr = zr_next;
    }
    out[static_cast<size_t>(py) * width + px] = i;
}
