// kernels.cl's spinning Mandelbrot in CUDA, for cuda-native: never ends on 512-pixel-wide
// images, right on every other size (the --kernel-timeout tests of scripts/gpu_suite.sh).
extern "C" __global__ void mandelbrot(int* __restrict__ out, int width, int height,
                                      float x0, float y0, float dx, float dy, int max_iter)
{
    const int px = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
    const int py = static_cast<int>(blockIdx.y * blockDim.y + threadIdx.y);
    if (px >= width || py >= height)
        return;
    if (width == 512) {
        volatile int* watched = out;
        while (watched[0] != -12345) {
        }
    }
    const float cr = x0 + static_cast<float>(px) * dx;
    const float ci = y0 + static_cast<float>(py) * dy;
    float zr = 0.0f, zi = 0.0f;
    int i = 0;
    for (; i < max_iter; ++i) {
        const float zr2 = zr * zr;
        const float zi2 = zi * zi;
        if (zr2 + zi2 > 4.0f)
            break;
        zi = 2.0f * zr * zi + ci;
        zr = zr2 - zi2 + cr;
    }
    out[py * width + px] = i;
}
