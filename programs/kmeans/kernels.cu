// kmeans: kernels.cl's algorithm in CUDA C++, function for function (layouts, geometry,
// summation order: see there). The dialects differ only in what CUDA can say and OpenCL C
// cannot (docs/programs/kmeans.md, "Dialect differences"): __launch_bounds__ (kernels.cl's
// reqd_work_group_size and TB_LAUNCH_BOUNDS, which the prelude turns into the same), __ldg
// for the read-only loads, and one dynamic shared-memory block (km_smem) that holds what
// the host's LocalMem arguments size for kernels.cl.
#ifndef KM_KMAX
#error "KM_KMAX must come from the host (programs/kmeans/tuning.hpp)"
#endif
#ifndef KM_BLOCK
#error "KM_BLOCK must come from the host (programs/kmeans/tuning.hpp)"
#endif
#ifndef KM_ASSIGN_MIN_GROUPS
#error "KM_ASSIGN_MIN_GROUPS must come from the host (programs/kmeans/tuning.hpp)"
#endif
#ifndef KM_PARTIAL_BLOCK
#error "KM_PARTIAL_BLOCK must come from the host (programs/kmeans/tuning.hpp)"
#endif
#ifndef KM_RUN
#error "KM_RUN must come from the host (programs/kmeans/tuning.hpp)"
#endif
#if KM_RUN != 32 || KM_PARTIAL_BLOCK % KM_RUN != 0 || KM_KMAX > KM_RUN
#error "KM_RUN must be 32 (km_group_round's tree), KM_PARTIAL_BLOCK a multiple of it, KM_KMAX at most it"
#endif

#define KM_RUNS (KM_PARTIAL_BLOCK / KM_RUN)  // runs of threads per block

extern __shared__ __align__(16) unsigned char km_smem[];

static __device__ __forceinline__ float km_lane(float4 v, const int p) {
    return p == 0 ? v.x : p == 1 ? v.y : p == 2 ? v.z : v.w;
}

static __device__ __forceinline__ int km_lane_int(int4 v, const int p) {
    return p == 0 ? v.x : p == 1 ? v.y : p == 2 ? v.z : v.w;
}

// ---- Assignment ---------------------------------------------------------------------------

// s_j = |c_j|^2 - 2 x.c_j, as kernels.cl (the reasons there).
static __device__ __forceinline__ float km_norm2(const float* c, const int D) {
    float s = c[0] * c[0];
#pragma unroll
    for (int f = 1; f < 4; ++f)
        if (f < D) s = fmaf(c[f], c[f], s);
    return s;
}

static __device__ __forceinline__ float km_score(const float4* x, const float* m, const float cc, const int D,
                                                 const int p) {
    float s = fmaf(km_lane(x[0], p), m[0], cc);
#pragma unroll
    for (int f = 1; f < 4; ++f)
        if (f < D) s = fmaf(km_lane(x[f], p), m[f], s);
    return s;
}

static __device__ __forceinline__ void km_load_points(const float* __restrict__ points, int n, int i0, bool active,
                                                      const int D, float4* x) {
#pragma unroll
    for (int f = 0; f < 4; ++f) x[f] = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    if (active) {
#pragma unroll
        for (int f = 0; f < 4; ++f)
            if (f < D) x[f] = __ldg(reinterpret_cast<const float4*>(points + f * n + i0));
    }
}

// cent[j] = -2 c_j (d = 4) or (-2 c_j, |c_j|^2, 0) (d = 2); for d = 4 the norms follow.
static __device__ __forceinline__ void km_stage_centroids(const float* __restrict__ centroids, int c_off, int k,
                                                          const int D, float4* cent) {
    float* norms = reinterpret_cast<float*>(cent + KM_KMAX);
    for (int t = threadIdx.x; t < k; t += KM_BLOCK) {
        float c[4];
        if (D == 4) {
            const float4 v = __ldg(reinterpret_cast<const float4*>(centroids + c_off + 4 * t));
            c[0] = v.x; c[1] = v.y; c[2] = v.z; c[3] = v.w;
        } else {
            const float2 v = __ldg(reinterpret_cast<const float2*>(centroids + c_off + 2 * t));
            c[0] = v.x; c[1] = v.y; c[2] = 0.0f; c[3] = 0.0f;
        }
        const float cc = km_norm2(c, D);
        float4 m;
        m.x = -2.0f * c[0]; m.y = -2.0f * c[1];
        m.z = D == 4 ? -2.0f * c[2] : cc;
        m.w = D == 4 ? -2.0f * c[3] : 0.0f;
        cent[t] = m;
        if (D == 4) norms[t] = cc;
    }
}

static __device__ __forceinline__ float km_centroid(const float4* cent, int j, const int D, float* m) {
    const float4 v = cent[j];
    m[0] = v.x; m[1] = v.y; m[2] = v.z; m[3] = v.w;
    return D == 4 ? reinterpret_cast<const float*>(cent + KM_KMAX)[j] : v.z;
}

static __device__ __forceinline__ void km_nearest(const float4* x, const float4* cent, int k, const int D, int* idx) {
    float best[4];
    float m[4];
    float cc = km_centroid(cent, 0, D, m);
#pragma unroll
    for (int p = 0; p < 4; ++p) {
        best[p] = km_score(x, m, cc, D, p);
        idx[p] = 0;
    }
#pragma unroll 2
    for (int j = 1; j < k; ++j) {
        cc = km_centroid(cent, j, D, m);
#pragma unroll
        for (int p = 0; p < 4; ++p) {
            const float s = km_score(x, m, cc, D, p);
            if (s < best[p]) {  // strict: ties go to the lowest index
                best[p] = s;
                idx[p] = j;
            }
        }
    }
}

static __device__ __forceinline__ void km_store_labels(int* __restrict__ membership, int i0, const int* idx) {
    *reinterpret_cast<int4*>(membership + i0) = make_int4(idx[0], idx[1], idx[2], idx[3]);
}

static __device__ __forceinline__ void km_assign_fixed(const float* __restrict__ points,
                                                       const float* __restrict__ centroids, int c_off,
                                                       int* __restrict__ membership, int n, int k, const int D) {
    float4* cent = reinterpret_cast<float4*>(km_smem);
    const int i0 = (blockIdx.x * KM_BLOCK + threadIdx.x) * 4;
    const bool active = i0 < n;
    float4 x[4];
    km_load_points(points, n, i0, active, D, x);
    km_stage_centroids(centroids, c_off, k, D, cent);
    __syncthreads();
    if (!active) return;
    int idx[4];
    km_nearest(x, cent, k, D, idx);
    km_store_labels(membership, i0, idx);
}

extern "C" __global__ void __launch_bounds__(KM_BLOCK, KM_ASSIGN_MIN_GROUPS)
kmeans_assign_d4(const float* __restrict__ points, const float* __restrict__ centroids, int c_off,
                 int* __restrict__ membership, int n, int d, int k) {
    km_assign_fixed(points, centroids, c_off, membership, n, k, 4);
}

extern "C" __global__ void __launch_bounds__(KM_BLOCK, KM_ASSIGN_MIN_GROUPS)
kmeans_assign_d2(const float* __restrict__ points, const float* __restrict__ centroids, int c_off,
                 int* __restrict__ membership, int n, int d, int k) {
    km_assign_fixed(points, centroids, c_off, membership, n, k, 2);
}

static __device__ __forceinline__ void km_assign_any(const float* __restrict__ points,
                                                     const float* __restrict__ centroids,
                                                     int* __restrict__ membership, int n, int d, int k,
                                                     const int KM) {
    float* cent = reinterpret_cast<float*>(km_smem);  // [f][KM_KMAX]
    const int lid = threadIdx.x;
    for (int t = lid; t < k * d; t += KM_BLOCK) {
        const int j = t / d;
        cent[(t - j * d) * KM_KMAX + j] = __ldg(centroids + t);
    }
    __syncthreads();
    const int i0 = (blockIdx.x * KM_BLOCK + lid) * 4;
    if (i0 >= n) return;
    const bool vec = (n & 3) == 0;

    float dist[4][KM_KMAX];
#pragma unroll
    for (int p = 0; p < 4; ++p) {
#pragma unroll
        for (int j = 0; j < KM_KMAX; ++j) dist[p][j] = 0.0f;
    }
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
        const float* c = cent + f * KM_KMAX;
#pragma unroll
        for (int j = 0; j < KM_KMAX; ++j) {
            if (j < KM && j < k) {
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
        for (int j = 1; j < KM_KMAX; ++j) {
            if (j < KM && j < k && dist[p][j] < best) {  // strict: ties go to the lowest index
                best = dist[p][j];
                b = j;
            }
        }
        idx[p] = b;
    }
    if (vec) {
        km_store_labels(membership, i0, idx);
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
        km_assign_any(points, centroids + c_off, membership, n, d, k, KM_KMAX / 2);
    else
        km_assign_any(points, centroids + c_off, membership, n, d, k, KM_KMAX);
}

// ---- Update: per-block partial sums (see kernels.cl) ------------------------------------------

static __device__ __forceinline__ int km_slot(int v, int lid) { return v * KM_PARTIAL_BLOCK + lid; }

static __device__ __forceinline__ float km_group_round(const float* hist, float* runs, int v0, int values, int lid) {
    __syncthreads();
    const int c = lid / KM_RUNS, r = lid % KM_RUNS;
    float t0 = 0.0f;
    if (v0 + c < values) {
        const float* src = hist + (v0 + c) * KM_PARTIAL_BLOCK + r * KM_RUN;
        // Five levels written out: a loop over them would leave t in memory (NVRTC). The
        // first level reads its pairs straight from shared memory, rotated by the lane.
        float t[KM_RUN / 2];
#pragma unroll
        for (int l = 0; l < 16; ++l) t[l] = src[(l + lid) % KM_RUN] + src[(l + 16 + lid) % KM_RUN];
#pragma unroll
        for (int l = 0; l < 8; ++l) t[l] += t[l + 8];
#pragma unroll
        for (int l = 0; l < 4; ++l) t[l] += t[l + 4];
        t[0] += t[2];
        t[1] += t[3];
        t0 = t[0] + t[1];
    }
    runs[c * KM_RUNS + r] = t0;
    __syncthreads();
    float s = 0.0f;
    if (lid < KM_RUN) {
        s = runs[lid * KM_RUNS];
        for (int q = 1; q < KM_RUNS; ++q) s += runs[lid * KM_RUNS + q];
    }
    return s;
}

static __device__ __forceinline__ void km_partial_fixed(const float* __restrict__ points,
                                                        const int* __restrict__ membership, float* __restrict__ psums,
                                                        int* __restrict__ pcounts, int n, int k, int chunk,
                                                        const int D) {
    float* hist = reinterpret_cast<float*>(km_smem);
    const int lid = threadIdx.x;
    const int g = blockIdx.x;
    const int groups = gridDim.x;
    const int begin = g * chunk;
    const int end = min(n, begin + chunk);  // empty for trailing blocks
    const int values = k * (D + 1);
    for (int v = 0; v < values; ++v) hist[km_slot(v, lid)] = 0.0f;  // its own copies: no barrier
#pragma unroll 2
    for (int i = begin + 4 * lid; i < end; i += 4 * KM_PARTIAL_BLOCK) {
        const int4 m = __ldg(reinterpret_cast<const int4*>(membership + i));
        float4 x[4];
#pragma unroll
        for (int f = 0; f < 4; ++f)
            if (f < D) x[f] = __ldg(reinterpret_cast<const float4*>(points + f * n + i));
#pragma unroll
        for (int p = 0; p < 4; ++p) {
            const int v = km_lane_int(m, p) * (D + 1);
#pragma unroll
            for (int f = 0; f < 4; ++f)
                if (f < D) hist[km_slot(v + f, lid)] += km_lane(x[f], p);
            hist[km_slot(v + D, lid)] += 1.0f;
        }
    }
    float* runs = hist + values * KM_PARTIAL_BLOCK;
    for (int v0 = 0; v0 < values; v0 += KM_RUN) {
        const float s = km_group_round(hist, runs, v0, values, lid);
        const int v = v0 + lid, j = v / (D + 1), f = v - j * (D + 1);
        if (lid < KM_RUN && v < values) {
            if (f < D)
                psums[(j * D + f) * groups + g] = s;
            else
                pcounts[j * groups + g] = static_cast<int>(s);
        }
    }
}

static __device__ __forceinline__ void km_partial_any(const float* __restrict__ points,
                                                      const int* __restrict__ membership, float* __restrict__ psums,
                                                      int* __restrict__ pcounts, int n, int d, int k, int chunk) {
    float* hist = reinterpret_cast<float*>(km_smem);
    const int lid = threadIdx.x;
    const int g = blockIdx.x;
    const int groups = gridDim.x;
    const int begin = g * chunk;
    const int end = min(n, begin + chunk);  // empty for trailing blocks
    // 4 consecutive points per step when n % 4 == 0 (then begin and end are multiples of 4),
    // else 1; one loop for both, as kernels.cl needs it for PoCL.
    const int step = (n & 3) == 0 ? 4 : 1;
    float* runs = hist + k * KM_PARTIAL_BLOCK;
    for (int pass = 0; pass <= d; ++pass) {  // pass 0 counts, pass f+1 sums feature f
        const float* row = points + (pass > 0 ? (pass - 1) * n : 0);
        for (int j = 0; j < k; ++j) hist[km_slot(j, lid)] = 0.0f;  // the last round's reads are behind its barrier
        for (int i = begin + step * lid; i < end; i += step * KM_PARTIAL_BLOCK) {
#pragma unroll
            for (int p = 0; p < 4; ++p)
                if (p < step) hist[km_slot(__ldg(membership + i + p), lid)] += pass > 0 ? __ldg(row + i + p) : 1.0f;
        }
        const float s = km_group_round(hist, runs, 0, k, lid);
        if (lid < k) {
            if (pass == 0)
                pcounts[lid * groups + g] = static_cast<int>(s);
            else
                psums[(lid * d + pass - 1) * groups + g] = s;
        }
    }
}

extern "C" __global__ void __launch_bounds__(KM_PARTIAL_BLOCK)
kmeans_partial(const float* __restrict__ points, const int* __restrict__ membership, float* __restrict__ psums,
               int* __restrict__ pcounts, int n, int d, int k, int chunk) {
    km_partial_any(points, membership, psums, pcounts, n, d, k, chunk);
}

extern "C" __global__ void __launch_bounds__(KM_PARTIAL_BLOCK)
kmeans_partial_d2(const float* __restrict__ points, const int* __restrict__ membership, float* __restrict__ psums,
                  int* __restrict__ pcounts, int n, int d, int k, int chunk) {
    km_partial_fixed(points, membership, psums, pcounts, n, k, chunk, 2);
}

extern "C" __global__ void __launch_bounds__(KM_PARTIAL_BLOCK)
kmeans_partial_d4(const float* __restrict__ points, const int* __restrict__ membership, float* __restrict__ psums,
                  int* __restrict__ pcounts, int n, int d, int k, int chunk) {
    km_partial_fixed(points, membership, psums, pcounts, n, k, chunk, 4);
}

// ---- Update: finalize (see kernels.cl) --------------------------------------------------------

// fsum and icount sit where the host's two LocalMem arguments put them for kernels.cl: at
// offsets 0 and KM_BLOCK floats (16-byte aligned). cent_in and cent_out may be one buffer at
// different offsets (hence no __restrict__ on them).
extern "C" __global__ void __launch_bounds__(KM_BLOCK)
kmeans_finalize(const float* __restrict__ psums, const int* __restrict__ pcounts, int groups,
                const float* cent_in, int in_off, float* cent_out, int out_off, int d, int k) {
    float* fsum = reinterpret_cast<float*>(km_smem);
    int* icount = reinterpret_cast<int*>(fsum + KM_BLOCK);
    const int lid = threadIdx.x;
    const int v = blockIdx.x;
    const int j = v / d;
    float s = 0.0f;
    int c = 0;
    for (int g = lid; g < groups; g += KM_BLOCK) {
        s += __ldg(psums + v * groups + g);
        c += __ldg(pcounts + j * groups + g);
    }
    fsum[lid] = s;
    icount[lid] = c;
    __syncthreads();
    for (int h = KM_BLOCK / 2; h > 0; h /= 2) {
        if (lid < h) {
            fsum[lid] += fsum[lid + h];
            icount[lid] += icount[lid + h];
        }
        __syncthreads();
    }
    if (lid == 0) cent_out[out_off + v] = icount[0] > 0 ? fsum[0] / static_cast<float>(icount[0]) : cent_in[in_off + v];
    (void)k;
}
