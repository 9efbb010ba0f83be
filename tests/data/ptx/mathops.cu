// Fast intrinsics, integer division, atomics without a result, fences and local memory.
__constant__ float coeffs[16];

__device__ __noinline__ float poly(float x, int k) {
    float acc = 0.f;
    for (int j = 0; j < k; ++j) acc = acc * x + coeffs[j & 15];
    return acc;
}

extern "C" __global__ void mathops(float* out, float* sum, const unsigned* idx, unsigned n, unsigned m) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float local_tab[24];
    for (int j = 0; j < 24; ++j) local_tab[j] = out[(i + j) % n];
    float x = out[i];
    float y = __fdividef(x, 3.f + x) + __expf(x) + __logf(x + 2.f) + __sinf(x) + __cosf(x) + __frcp_rn(x + 1.f);
    y += local_tab[idx[i] % 24] + (float)(idx[i] / m) + (float)(idx[i] % m);
    y += poly(x, (int)(i & 7));
    __syncwarp();
    __threadfence();
    out[i] = y;
    atomicAdd(sum, y);
}
