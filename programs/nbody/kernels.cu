// All-pairs gravitational N-body, one semi-implicit Euler step per launch:
//   a = sum_j m_j d / (|d|^2 + eps2)^(3/2) (d = r_j - r_i);  v += a dt;  r += v dt.
// kernels.cl's algorithm in CUDA C++, line for line (geometry, tiles, unrolling, arithmetic
// order: see there). The dialects differ only in what CUDA can say and OpenCL C cannot
// (docs/programs/nbody.md, "Dialect differences"): __launch_bounds__ with a minimum of
// NBODY_MIN_GROUPS_PER_UNIT resident blocks (kernels.cl's TB_LAUNCH_BOUNDS gives it to
// cuda-prelude, and the opencl backend writes it into NVIDIA's PTX), and __ldg for the read-only loads. The dynamic
// shared memory (T*Q*NBODY_BODIES_PER_ITEM float4s) is the host's LocalMem.

#ifndef NBODY_BODIES_PER_ITEM
#error "NBODY_BODIES_PER_ITEM must come from the host (programs/nbody/tuning.hpp)"
#endif
#ifndef NBODY_GROUP_SIZE
#error "NBODY_GROUP_SIZE must come from the host (programs/nbody/tuning.hpp)"
#endif
#ifndef NBODY_UNROLL
#error "NBODY_UNROLL must come from the host (programs/nbody/tuning.hpp)"
#endif
#ifndef NBODY_MIN_GROUPS_PER_UNIT
#error "NBODY_MIN_GROUPS_PER_UNIT must come from the host (programs/nbody/tuning.hpp)"
#endif
#define NB NBODY_BODIES_PER_ITEM

namespace {

// 1/sqrt(r2) for r2 >= eps2 > 0, never denormal: the flush-to-zero approximation is exact
// here in every math mode and skips the denormal fix-up that rsqrtf carries without
// --use_fast_math (the same PTX as kernels.cl's nb_rsqrt).
__device__ __forceinline__ float nb_rsqrt(float x) {
    float r;
    asm("rsqrt.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(x));
    return r;
}

// Body j, or a zero mass at the origin past the end: eps2 > 0 keeps the term finite, so it
// adds exactly 0.
__device__ __forceinline__ float4 nb_body_or_empty(const float4* __restrict__ pos, int j, int n) {
    return j < n ? __ldg(pos + j) : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
}

__device__ __forceinline__ void nb_integrate(int i, float ax, float ay, float az, float dt,
                                             const float4* __restrict__ pos_in, const float4* __restrict__ vel_in,
                                             float4* __restrict__ pos_out, float4* __restrict__ vel_out) {
    float4 v = __ldg(vel_in + i);
    v.x = fmaf(ax, dt, v.x);
    v.y = fmaf(ay, dt, v.y);
    v.z = fmaf(az, dt, v.z);
    float4 r = __ldg(pos_in + i);
    r.x = fmaf(v.x, dt, r.x);
    r.y = fmaf(v.y, dt, r.y);
    r.z = fmaf(v.z, dt, r.z);
    vel_out[i] = v;
    pos_out[i] = r;
}

}  // namespace

extern "C" __global__ void __launch_bounds__(NBODY_GROUP_SIZE, NBODY_MIN_GROUPS_PER_UNIT)
nbody_step(const float4* __restrict__ pos_in, const float4* __restrict__ vel_in,
           float4* __restrict__ pos_out, float4* __restrict__ vel_out,
           int n, float dt, float eps2)
{
    extern __shared__ float4 tile[];
    const int tx = threadIdx.x;
    const int ty = threadIdx.y;
    const int T = blockDim.x;
    const int Q = blockDim.y;
    const int first = blockIdx.x * T * NB;
    const int stride = T * Q;
    const int slot = ty * T + tx;

    float px[NB], py[NB], pz[NB], ax[NB], ay[NB], az[NB];
#pragma unroll
    for (int k = 0; k < NB; ++k) {
        // Threads past the end work on a copy of the last body and never store it.
        const float4 b = __ldg(pos_in + min(first + k * T + tx, n - 1));
        px[k] = b.x; py[k] = b.y; pz[k] = b.z;
        ax[k] = 0.0f; ay[k] = 0.0f; az[k] = 0.0f;
    }

    const float4* const slice = tile + ty * T;
    float4 next = nb_body_or_empty(pos_in, slot, n);
    for (int base = 0; base < n; base += stride) {
        tile[slot] = next;
        __syncthreads();
        // Prefetch the next super-tile's body: its latency hides behind this tile's math.
        next = nb_body_or_empty(pos_in, base + stride + slot, n);
        // Body by body, NBODY_UNROLL tile bodies at a time: each body's sum runs over j in
        // order. (Tile body by tile body, the same terms in the same order, ran 6-8 percent
        // slower on cuda-prelude and opencl: docs/programs/nbody.md.)
        for (int jj = 0; jj < T; jj += NBODY_UNROLL) {
#pragma unroll
            for (int k = 0; k < NB; ++k) {
#pragma unroll
                for (int u = 0; u < NBODY_UNROLL; ++u) {
                    const float4 q = slice[jj + u];  // the same address for every thread: a broadcast
                    const float dx = q.x - px[k];
                    const float dy = q.y - py[k];
                    const float dz = q.z - pz[k];
                    const float r2 = fmaf(dx, dx, fmaf(dy, dy, fmaf(dz, dz, eps2)));
                    const float inv = nb_rsqrt(r2);
                    const float s = (q.w * inv) * (inv * inv);  // two independent products
                    ax[k] = fmaf(dx, s, ax[k]);
                    ay[k] = fmaf(dy, s, ay[k]);
                    az[k] = fmaf(dz, s, az[k]);
                }
            }
        }
        __syncthreads();
    }

    // Slices meet in shared memory: slice ty's partial for body b = k*T + tx at ty*T*NB + b
    // (Q == 1 too, as in kernels.cl).
#pragma unroll
    for (int k = 0; k < NB; ++k) tile[(ty * NB + k) * T + tx] = make_float4(ax[k], ay[k], az[k], 0.0f);
    __syncthreads();
    for (int b = slot; b < T * NB; b += stride) {
        const int i = first + b;
        if (i >= n) break;  // b only grows
        float sx = 0.0f, sy = 0.0f, sz = 0.0f;
        for (int s = 0; s < Q; ++s) {
            const float4 a = tile[s * T * NB + b];
            sx += a.x; sy += a.y; sz += a.z;
        }
        nb_integrate(i, sx, sy, sz, dt, pos_in, vel_in, pos_out, vel_out);
    }
}
