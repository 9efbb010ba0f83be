// Escape-time Mandelbrot: one work-item per pixel, iteration count as output. The same
// algorithm as kernels.cu (docs/programs/mandelbrot.md): a 2-D range of
// MANDELBROT_GROUP_X x MANDELBROT_GROUP_Y groups, the escape loop not unrolled (unrolling
// keeps one exit test per iteration and only adds instructions).
#ifndef MANDELBROT_GROUP_X
#error "MANDELBROT_GROUP_X must come from the host (programs/mandelbrot/tuning.hpp)"
#endif
#ifndef MANDELBROT_GROUP_Y
#error "MANDELBROT_GROUP_Y must come from the host (programs/mandelbrot/tuning.hpp)"
#endif

__kernel __attribute__((reqd_work_group_size(MANDELBROT_GROUP_X, MANDELBROT_GROUP_Y, 1)))
void mandelbrot(__global int *restrict out, int width, int height,
                float x0, float y0, float dx, float dy, int max_iter)
{
    const int px = (int)get_global_id(0);
    const int py = (int)get_global_id(1);
    if (px >= width || py >= height)
        return;
    const float cr = x0 + (float)px * dx;
    const float ci = y0 + (float)py * dy;
    float zr = 0.0f, zi = 0.0f;
    int i = 0;
    for (; i < max_iter; ++i) {
        // Written as fused multiply-adds so that every compiler rounds alike (nothing left
        // to contract) and the loop is 11 SASS instructions (docs/programs/mandelbrot.md).
        const float zi2 = zi * zi;
        if (fma(zr, zr, zi2) > 4.0f)
            break;
        const float zr_next = fma(zr, zr, -zi2) + cr;
        zi = fma(2.0f * zr, zi, ci);
        zr = zr_next;
    }
    out[(size_t)py * width + px] = i;
}
