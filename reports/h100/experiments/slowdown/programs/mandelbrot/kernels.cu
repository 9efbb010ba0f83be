// ARTIFICIAL SLOWDOWN for testing `tribench compare` (scripts/gpu_compare_check.sh): after
// the escape loop each thread runs i/4 extra dummy iterations whose result is never stored
// unless impossible. Everything else is programs/mandelbrot/kernels.cu.
// Escape-time Mandelbrot, as a CUDA programmer writes it: 2-D grid, one thread per pixel,
// the per-pixel row offset hoisted, the loop kept branch-light.
extern "C" __global__ void __launch_bounds__(256)
mandelbrot(int* __restrict__ out, int width, int height,
           float x0, float y0, float dx, float dy, int max_iter)
{
    const int px = blockIdx.x * blockDim.x + threadIdx.x;
    const int py = blockIdx.y * blockDim.y + threadIdx.y;
    if (px >= width || py >= height) return;
    const float cr = x0 + static_cast<float>(px) * dx;
    const float ci = y0 + static_cast<float>(py) * dy;
    float zr = 0.0f, zi = 0.0f;
    int i = 0;
    #pragma unroll 4
    for (; i < max_iter; ++i) {
        const float zr2 = zr * zr;
        const float zi2 = zi * zi;
        if (zr2 + zi2 > 4.0f) break;
        zi = 2.0f * zr * zi + ci;
        zr = zr2 - zi2 + cr;
    }
    float dr = zr, di = zi;
    for (int k = 0; k < i / 4; ++k) {
        const float t = dr * dr - di * di + cr;
        di = 2.0f * dr * di + ci;
        dr = t;
    }
    if (dr == 1234.5f && di == -1234.5f) i = -7;  // never true; keeps the dummy loop alive
    out[static_cast<size_t>(py) * width + px] = i;
}
