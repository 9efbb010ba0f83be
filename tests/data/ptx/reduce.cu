// Sample kernels for tribench's PTX analysis tests (tests/data/ptx/README.md).
extern "C" __global__ void reduce_sum(const float4* __restrict__ in, float* out, unsigned* counter, int n) {
    __shared__ float partial[32];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float s = 0.f;
    if (i < n) { float4 v = __ldg(&in[i]); s = v.x + v.y + v.z + v.w; }
    for (int o = 16; o > 0; o >>= 1) s += __shfl_down_sync(0xffffffffu, s, o);
    if ((threadIdx.x & 31) == 0) partial[threadIdx.x >> 5] = s;
    __syncthreads();
    if (threadIdx.x < 32) {
        s = threadIdx.x < (blockDim.x >> 5) ? partial[threadIdx.x] : 0.f;
        for (int o = 16; o > 0; o >>= 1) s += __shfl_down_sync(0xffffffffu, s, o);
        if (threadIdx.x == 0) { atomicAdd(out, s); atomicAdd(counter, 1u); }
    }
}
extern "C" __global__ void normalize(float* x, const float* y, int n, int k) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float a = x[i], b = y[i];
        x[i] = a / b + sqrtf(a) + rsqrtf(b) + (float)(i / k) + (float)(i % k);
    }
}
