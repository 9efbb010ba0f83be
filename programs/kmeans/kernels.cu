// kmeans for CUDA: the same kernels, arguments and layouts as kernels.cl (see there),
// written as a CUDA programmer would for Hopper:
// - kmeans_assign_d2/_d4 keep a thread's 4 points (one float4 per feature, loaded before
//   the block stages its centroids, so the loads are in flight during the barrier) in
//   registers and walk the centroids as float2/float4 broadcasts from shared memory;
// - the generic kmeans_assign keeps 4 x k distances in registers, feature by feature;
// - kmeans_partial reduces per-thread sums with warp shuffles, then across warps in shared
//   memory, in a fixed order; kmeans_finalize does the same over the blocks' partials.
// LocalMem arguments are not parameters here: the host's summed size arrives as dynamic
// shared memory (km_smem), at least as large as each kernel uses below.
#ifndef KM_KMAX
#define KM_KMAX 16  // the host passes -DKM_KMAX (Program::defines)
#endif

#define KM_BLOCK 256  // the host launches every kernel with 256 threads

extern __shared__ __align__(16) unsigned char km_smem[];

static __device__ __forceinline__ float km_lane(const float4& v, int p) {
    return p == 0 ? v.x : p == 1 ? v.y : p == 2 ? v.z : v.w;
}

static __device__ __forceinline__ int km_lane(const int4& v, int p) {
    return p == 0 ? v.x : p == 1 ? v.y : p == 2 ? v.z : v.w;
}

// Sum over the warp by a fixed shuffle tree; lane 0 holds the result.
static __device__ __forceinline__ float km_warp_sum(float v) {
#pragma unroll
    for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffffu, v, o);
    return v;
}

static __device__ __forceinline__ int km_warp_sum(int v) {
#pragma unroll
    for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffffu, v, o);
    return v;
}

// Centroid j's D coordinates from shared memory as one vector load (a broadcast: every
// thread of the warp reads the same address).
template <int D>
static __device__ __forceinline__ void km_centroid(const float* sc, int j, float (&c)[D]);

template <>
__device__ __forceinline__ void km_centroid<2>(const float* sc, int j, float (&c)[2]) {
    const float2 v = reinterpret_cast<const float2*>(sc)[j];
    c[0] = v.x;
    c[1] = v.y;
}

template <>
__device__ __forceinline__ void km_centroid<4>(const float* sc, int j, float (&c)[4]) {
    const float4 v = reinterpret_cast<const float4*>(sc)[j];
    c[0] = v.x;
    c[1] = v.y;
    c[2] = v.z;
    c[3] = v.w;
}

// ---- Assignment ------------------------------------------------------------------------

// d == D (2 or 4) and n % 4 == 0: four consecutive points per thread.
template <int D>
static __device__ __forceinline__ void km_assign_fixed(const float* __restrict__ points,
                                                       const float* __restrict__ centroids,
                                                       int* __restrict__ membership, int n, int k) {
    float* sc = reinterpret_cast<float*>(km_smem);  // [j][D]
    const int i0 = (blockIdx.x * blockDim.x + threadIdx.x) * 4;
    const bool active = i0 < n;
    float4 x[D];
#pragma unroll
    for (int f = 0; f < D; ++f)
        x[f] = active ? __ldg(reinterpret_cast<const float4*>(points + f * n + i0)) : make_float4(0.f, 0.f, 0.f, 0.f);
    for (int t = threadIdx.x; t < k * D; t += blockDim.x) sc[t] = __ldg(centroids + t);
    __syncthreads();
    if (!active) return;

    float best[4];
    int idx[4] = {0, 0, 0, 0};
    {
        float c[D];
        km_centroid<D>(sc, 0, c);
#pragma unroll
        for (int p = 0; p < 4; ++p) {
            float t = km_lane(x[0], p) - c[0];
            float s = t * t;
#pragma unroll
            for (int f = 1; f < D; ++f) {
                t = km_lane(x[f], p) - c[f];
                s = fmaf(t, t, s);
            }
            best[p] = s;
        }
    }
#pragma unroll 2
    for (int j = 1; j < k; ++j) {
        float c[D];
        km_centroid<D>(sc, j, c);
#pragma unroll
        for (int p = 0; p < 4; ++p) {
            float t = km_lane(x[0], p) - c[0];
            float s = t * t;
#pragma unroll
            for (int f = 1; f < D; ++f) {
                t = km_lane(x[f], p) - c[f];
                s = fmaf(t, t, s);
            }
            if (s < best[p]) {  // strict: ties go to the lowest index
                best[p] = s;
                idx[p] = j;
            }
        }
    }
    *reinterpret_cast<int4*>(membership + i0) = make_int4(idx[0], idx[1], idx[2], idx[3]);
}

// Any d, any n: four consecutive points per thread, distances to every centroid in
// registers (KM >= k of them), features streamed one at a time (float4 loads when
// n % 4 == 0).
template <int KM>
static __device__ __forceinline__ void km_assign_any(const float* __restrict__ points,
                                                     const float* __restrict__ centroids,
                                                     int* __restrict__ membership, int n, int d, int k) {
    float* sc = reinterpret_cast<float*>(km_smem);  // [f][KM_KMAX]
    for (int t = threadIdx.x; t < k * d; t += blockDim.x) {
        const int j = t / d;
        sc[(t - j * d) * KM_KMAX + j] = __ldg(centroids + t);
    }
    __syncthreads();
    const int i0 = (blockIdx.x * blockDim.x + threadIdx.x) * 4;
    if (i0 >= n) return;
    const bool vec = (n & 3) == 0;

    float dist[4][KM];
#pragma unroll
    for (int p = 0; p < 4; ++p)
#pragma unroll
        for (int j = 0; j < KM; ++j) dist[p][j] = 0.0f;

    for (int f = 0; f < d; ++f) {
        const float* row = points + f * n;
        float4 x;
        if (vec) {
            x = __ldg(reinterpret_cast<const float4*>(row + i0));
        } else {
            x.x = __ldg(row + i0);
            x.y = i0 + 1 < n ? __ldg(row + i0 + 1) : 0.0f;
            x.z = i0 + 2 < n ? __ldg(row + i0 + 2) : 0.0f;
            x.w = i0 + 3 < n ? __ldg(row + i0 + 3) : 0.0f;
        }
        const float* c = sc + f * KM_KMAX;
#pragma unroll
        for (int j = 0; j < KM; ++j) {
            if (j < k) {
                const float cj = c[j];
#pragma unroll
                for (int p = 0; p < 4; ++p) {
                    const float t = km_lane(x, p) - cj;
                    dist[p][j] = fmaf(t, t, dist[p][j]);
                }
            }
        }
    }

    int idx[4];
#pragma unroll
    for (int p = 0; p < 4; ++p) {
        float best = dist[p][0];
        int b = 0;
#pragma unroll
        for (int j = 1; j < KM; ++j)
            if (j < k && dist[p][j] < best) {
                best = dist[p][j];
                b = j;
            }
        idx[p] = b;
    }
    if (vec) {
        *reinterpret_cast<int4*>(membership + i0) = make_int4(idx[0], idx[1], idx[2], idx[3]);
    } else {
#pragma unroll
        for (int p = 0; p < 4; ++p)
            if (i0 + p < n) membership[i0 + p] = idx[p];
    }
}

extern "C" __global__ void __launch_bounds__(KM_BLOCK)
kmeans_assign(const float* __restrict__ points, const float* __restrict__ centroids, int c_off,
              int* __restrict__ membership, int n, int d, int k) {
    if (k <= KM_KMAX / 2)
        km_assign_any<KM_KMAX / 2>(points, centroids + c_off, membership, n, d, k);
    else
        km_assign_any<KM_KMAX>(points, centroids + c_off, membership, n, d, k);
}

extern "C" __global__ void __launch_bounds__(KM_BLOCK)
kmeans_assign_d2(const float* __restrict__ points, const float* __restrict__ centroids, int c_off,
                 int* __restrict__ membership, int n, int d, int k) {
    km_assign_fixed<2>(points, centroids + c_off, membership, n, k);
}

extern "C" __global__ void __launch_bounds__(KM_BLOCK)
kmeans_assign_d4(const float* __restrict__ points, const float* __restrict__ centroids, int c_off,
                 int* __restrict__ membership, int n, int d, int k) {
    km_assign_fixed<4>(points, centroids + c_off, membership, n, k);
}

// ---- Update: per-block partial sums ------------------------------------------------------

// Writes a block's per-warp results red[w*V + v] (V values per warp) as the block's
// partials: v < k*d are coordinate sums, the next k are counts (exact as floats: a block
// holds fewer than 2^24 points). Warps are added in order: deterministic.
static __device__ __forceinline__ void km_store_partials(const float* red, int V, int kd,
                                                         float* __restrict__ psums, int* __restrict__ pcounts) {
    __syncthreads();
    const int warps = blockDim.x >> 5;
    const int g = blockIdx.x, groups = gridDim.x;
    for (int v = threadIdx.x; v < V; v += blockDim.x) {
        float s = 0.0f;
        for (int w = 0; w < warps; ++w) s += red[w * V + v];
        if (v < kd)
            psums[v * groups + g] = s;
        else
            pcounts[(v - kd) * groups + g] = static_cast<int>(s);
    }
}

// d == D and n % 4 == 0: a thread keeps KM x D sums and KM counts in registers and adds
// each of its points to its cluster's (predicated adds: no dynamic register indexing).
// KM is the smallest instantiated bound >= k, so small k does not pay for KM_KMAX.
template <int D, int KM>
static __device__ __forceinline__ void km_partial_fixed(const float* __restrict__ points,
                                                        const int* __restrict__ membership, float* __restrict__ psums,
                                                        int* __restrict__ pcounts, int n, int k, int chunk) {
    const int begin = blockIdx.x * chunk;
    const int end = min(n, begin + chunk);
    float acc[KM][D];
    float cnt[KM];
#pragma unroll
    for (int j = 0; j < KM; ++j) {
        cnt[j] = 0.0f;
#pragma unroll
        for (int f = 0; f < D; ++f) acc[j][f] = 0.0f;
    }
#pragma unroll 2
    for (int i = begin + 4 * threadIdx.x; i < end; i += 4 * blockDim.x) {
        const int4 m = __ldg(reinterpret_cast<const int4*>(membership + i));
        float4 x[D];
#pragma unroll
        for (int f = 0; f < D; ++f) x[f] = __ldg(reinterpret_cast<const float4*>(points + f * n + i));
#pragma unroll
        for (int p = 0; p < 4; ++p) {
            const int mp = km_lane(m, p);
#pragma unroll
            for (int j = 0; j < KM; ++j) {
                if (mp == j) {
                    cnt[j] += 1.0f;
#pragma unroll
                    for (int f = 0; f < D; ++f) acc[j][f] += km_lane(x[f], p);
                }
            }
        }
    }
    float* red = reinterpret_cast<float*>(km_smem);  // [warp][k*D + k]
    const int V = k * D + k;
    const int w = threadIdx.x >> 5, lane = threadIdx.x & 31;
#pragma unroll
    for (int j = 0; j < KM; ++j) {
        if (j < k) {
#pragma unroll
            for (int f = 0; f < D; ++f) {
                const float s = km_warp_sum(acc[j][f]);
                if (lane == 0) red[w * V + j * D + f] = s;
            }
            const float c = km_warp_sum(cnt[j]);
            if (lane == 0) red[w * V + k * D + j] = c;
        }
    }
    km_store_partials(red, V, k * D, psums, pcounts);
}

template <int D>
static __device__ __forceinline__ void km_partial_fixed(const float* __restrict__ points,
                                                        const int* __restrict__ membership, float* __restrict__ psums,
                                                        int* __restrict__ pcounts, int n, int k, int chunk) {
    if (k <= KM_KMAX / 2)
        km_partial_fixed<D, KM_KMAX / 2>(points, membership, psums, pcounts, n, k, chunk);
    else
        km_partial_fixed<D, KM_KMAX>(points, membership, psums, pcounts, n, k, chunk);
}

// Any d, any n: counts first, then one feature at a time with KM >= k sums per thread.
template <int KM>
static __device__ __forceinline__ void km_partial_any(const float* __restrict__ points,
                                                      const int* __restrict__ membership, float* __restrict__ psums,
                                                      int* __restrict__ pcounts, int n, int d, int k, int chunk) {
    const int begin = blockIdx.x * chunk;
    const int end = min(n, begin + chunk);
    const bool vec = (n & 3) == 0;  // begin and end are then multiples of 4
    float* red = reinterpret_cast<float*>(km_smem);  // [warp][k*d + k]
    const int V = k * d + k;
    const int w = threadIdx.x >> 5, lane = threadIdx.x & 31;
    for (int pass = 0; pass <= d; ++pass) {  // pass 0 counts, pass f+1 sums feature f
        const float* row = points + (pass > 0 ? (pass - 1) * n : 0);
        float acc[KM];
#pragma unroll
        for (int j = 0; j < KM; ++j) acc[j] = 0.0f;
        if (vec) {
            for (int i = begin + 4 * threadIdx.x; i < end; i += 4 * blockDim.x) {
                const int4 m = __ldg(reinterpret_cast<const int4*>(membership + i));
                const float4 x = pass > 0 ? __ldg(reinterpret_cast<const float4*>(row + i)) : make_float4(1.f, 1.f, 1.f, 1.f);
#pragma unroll
                for (int p = 0; p < 4; ++p) {
                    const int mp = km_lane(m, p);
                    const float xp = km_lane(x, p);
#pragma unroll
                    for (int j = 0; j < KM; ++j)
                        if (mp == j) acc[j] += xp;
                }
            }
        } else {
            for (int i = begin + threadIdx.x; i < end; i += blockDim.x) {
                const int m = __ldg(membership + i);
                const float x = pass > 0 ? __ldg(row + i) : 1.0f;
#pragma unroll
                for (int j = 0; j < KM; ++j)
                    if (m == j) acc[j] += x;
            }
        }
#pragma unroll
        for (int j = 0; j < KM; ++j) {
            if (j < k) {
                const float s = km_warp_sum(acc[j]);
                if (lane == 0) red[w * V + (pass > 0 ? j * d + pass - 1 : k * d + j)] = s;
            }
        }
    }
    km_store_partials(red, V, k * d, psums, pcounts);
}

extern "C" __global__ void __launch_bounds__(KM_BLOCK)
kmeans_partial(const float* __restrict__ points, const int* __restrict__ membership, float* __restrict__ psums,
               int* __restrict__ pcounts, int n, int d, int k, int chunk) {
    if (k <= KM_KMAX / 2)
        km_partial_any<KM_KMAX / 2>(points, membership, psums, pcounts, n, d, k, chunk);
    else
        km_partial_any<KM_KMAX>(points, membership, psums, pcounts, n, d, k, chunk);
}

extern "C" __global__ void __launch_bounds__(KM_BLOCK)
kmeans_partial_d2(const float* __restrict__ points, const int* __restrict__ membership, float* __restrict__ psums,
                  int* __restrict__ pcounts, int n, int d, int k, int chunk) {
    km_partial_fixed<2>(points, membership, psums, pcounts, n, k, chunk);
}

extern "C" __global__ void __launch_bounds__(KM_BLOCK)
kmeans_partial_d4(const float* __restrict__ points, const int* __restrict__ membership, float* __restrict__ psums,
                  int* __restrict__ pcounts, int n, int d, int k, int chunk) {
    km_partial_fixed<4>(points, membership, psums, pcounts, n, k, chunk);
}

// ---- Update: finalize --------------------------------------------------------------------

// Block v = j*d + f: thread t adds the partials of blocks t, t+256, ..., then the warp
// tree, then the warps in order. An empty cluster keeps its centroid. cent_in and
// cent_out may be one buffer at different offsets (hence no __restrict__ on them).
extern "C" __global__ void __launch_bounds__(KM_BLOCK)
kmeans_finalize(const float* __restrict__ psums, const int* __restrict__ pcounts, int groups,
                const float* cent_in, int in_off, float* cent_out, int out_off, int d, int k) {
    const int v = blockIdx.x;
    const int j = v / d;
    float s = 0.0f;
    int c = 0;
    for (int g = threadIdx.x; g < groups; g += blockDim.x) {
        s += __ldg(psums + v * groups + g);
        c += __ldg(pcounts + j * groups + g);
    }
    s = km_warp_sum(s);
    c = km_warp_sum(c);
    float* fs = reinterpret_cast<float*>(km_smem);
    int* is = reinterpret_cast<int*>(fs + 32);
    const int w = threadIdx.x >> 5;
    if ((threadIdx.x & 31) == 0) {
        fs[w] = s;
        is[w] = c;
    }
    __syncthreads();
    if (threadIdx.x == 0) {
        float total = 0.0f;
        int count = 0;
        for (int i = 0; i < (int)(blockDim.x >> 5); ++i) {
            total += fs[i];
            count += is[i];
        }
        cent_out[out_off + v] = count > 0 ? total / static_cast<float>(count) : cent_in[in_off + v];
    }
    (void)k;
}
