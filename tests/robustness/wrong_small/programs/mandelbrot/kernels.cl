// Mandelbrot that is wrong on images narrower than 256 pixels and right otherwise
// (tests/robustness.cmake, the --keep-going tests): 128x128 fails validation, 512x512 passes.
__kernel void mandelbrot(__global int *restrict out, int width, int height,
                         float x0, float y0, float dx, float dy, int max_iter)
{
    int px = (int)get_global_id(0);
    int py = (int)get_global_id(1);
    if (px >= width || py >= height)
        return;
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
    out[py * width + px] = width < 256 ? max_iter + 7 : i;
}
