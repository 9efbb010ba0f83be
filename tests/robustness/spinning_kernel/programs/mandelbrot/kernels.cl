// Mandelbrot that never ends on 512-pixel-wide images and is right on every other size
// (tests/robustness.cmake and scripts/gpu_suite.sh, the --kernel-timeout tests): a work-item
// waits for a value no run ever writes. The loads are volatile, so no compiler may drop the
// loop (a loop without side effects may be assumed to end).
__kernel void mandelbrot(__global int *restrict out, int width, int height,
                         float x0, float y0, float dx, float dy, int max_iter)
{
    int px = (int)get_global_id(0);
    int py = (int)get_global_id(1);
    if (px >= width || py >= height)
        return;
    if (width == 512) {
        volatile __global int *watched = out;
        while (watched[0] != -12345) {
        }
    }
    float cr = x0 + (float)px * dx;
    float ci = y0 + (float)py * dy;
    float zr = 0.0f, zi = 0.0f;
    int i = 0;
    while (i < max_iter) {
        float zr2 = zr * zr;
        float zi2 = zi * zi;
        if (zr2 + zi2 > 4.0f)
            break;
        zi = 2.0f * zr * zi + ci;
        zr = zr2 - zi2 + cr;
        ++i;
    }
    out[py * width + px] = i;
}
