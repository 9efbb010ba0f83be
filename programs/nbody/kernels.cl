// All-pairs gravitational N-body, one semi-implicit Euler step per launch:
//   a_i = sum_j m_j (r_j - r_i) / (|r_j - r_i|^2 + eps2)^(3/2);  v_i += a_i dt;  r_i += v_i dt.
// Bodies are float4: position xyz + mass w; velocities float4 (w carried through).
// kernels.cu is this algorithm in CUDA C++, line for line; docs/programs/nbody.md lists
// where the two dialects differ and what each difference measured.
//
// Geometry (chosen by the host, programs/nbody/launch.cpp): a work-group is T x Q items.
// It owns T * NBODY_BODIES_PER_ITEM consecutive bodies; item (tx, ty) owns bodies
// first + k*T + tx. The j range is walked in super-tiles of T*Q bodies staged in local
// memory; slice ty of the group sums over the ty-th T bodies of each super-tile, so Q slices
// split every body's sum and meet in local memory at the end. Q == 1 is the classic tiling.
// T is a multiple of NBODY_UNROLL. `tile` holds T * Q * NBODY_BODIES_PER_ITEM float4s (the
// partial sums need that many). Reading old positions only (pos_in) and writing separate
// buffers keeps steps race-free.
//
// Per interaction the loop issues 3 subtractions, 3 fma (r2), one rsqrt, 3 multiplications
// and 3 fma (the accumulation), plus one local load shared by the item's bodies.

#ifndef NBODY_BODIES_PER_ITEM
#error "NBODY_BODIES_PER_ITEM must come from the host (programs/nbody/tuning.hpp)"
#endif
#ifndef NBODY_UNROLL
#error "NBODY_UNROLL must come from the host (programs/nbody/tuning.hpp)"
#endif
// Read only by the launch bounds: kernels.cu's __launch_bounds__ and TB_LAUNCH_BOUNDS here (cuda-prelude's
// launch bounds; the opencl backend's on NVIDIA, docs/prelude.md). Both files take the same constants (tests/test_dialect_parity.cpp).
#ifndef NBODY_GROUP_SIZE
#error "NBODY_GROUP_SIZE must come from the host (programs/nbody/tuning.hpp)"
#endif
#ifndef NBODY_MIN_GROUPS_PER_UNIT
#error "NBODY_MIN_GROUPS_PER_UNIT must come from the host (programs/nbody/tuning.hpp)"
#endif
#define NB NBODY_BODIES_PER_ITEM

// 1/sqrt(r2) for r2 >= eps2 > 0, never denormal: on NVIDIA's toolchains (its OpenCL
// compiler, and NVRTC under the prelude) the flush-to-zero approximation is exact here in
// every math mode and skips the denormal fix-up that `rsqrt` carries (3 issue slots per
// interaction). native_rsqrt would not do: NVIDIA's OpenCL keeps the fix-up in it, and
// other platforms may give it fewer bits than the tolerance allows (test_nbody fails with
// it on PoCL).
#if defined(__NV_CL_C_VERSION) || defined(__CUDA_ARCH__)
static inline float nb_rsqrt(float x)
{
    float r;
    asm("rsqrt.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(x));
    return r;
}
#else
#define nb_rsqrt(x) rsqrt(x)
#endif

// Body j, or a zero mass at the origin past the end: eps2 > 0 keeps the term finite, so it
// adds exactly 0.
static inline float4 nb_body_or_empty(__global const float4 *restrict pos, int j, int n)
{
    float4 b;
    if (j < n) {
        b = pos[j];
    } else {
        b.x = 0.0f; b.y = 0.0f; b.z = 0.0f; b.w = 0.0f;
    }
    return b;
}

static inline void nb_integrate(int i, float ax, float ay, float az, float dt, __global const float4 *restrict pos_in,
                                __global const float4 *restrict vel_in, __global float4 *restrict pos_out,
                                __global float4 *restrict vel_out)
{
    float4 v = vel_in[i];
    v.x = fma(ax, dt, v.x);
    v.y = fma(ay, dt, v.y);
    v.z = fma(az, dt, v.z);
    float4 r = pos_in[i];
    r.x = fma(v.x, dt, r.x);
    r.y = fma(v.y, dt, r.y);
    r.z = fma(v.z, dt, r.z);
    vel_out[i] = v;
    pos_out[i] = r;
}

__kernel TB_LAUNCH_BOUNDS(NBODY_GROUP_SIZE, NBODY_MIN_GROUPS_PER_UNIT)
void nbody_step(__global const float4 *restrict pos_in,
                __global const float4 *restrict vel_in,
                __global float4 *restrict pos_out,
                __global float4 *restrict vel_out,
                int n, float dt, float eps2,
                __local float4 *tile)
{
    const int tx = (int)get_local_id(0);
    const int ty = (int)get_local_id(1);
    const int T = (int)get_local_size(0);
    const int Q = (int)get_local_size(1);
    const int first = (int)get_group_id(0) * T * NB;
    const int stride = T * Q;
    const int slot = ty * T + tx;

    float px[NB], py[NB], pz[NB], ax[NB], ay[NB], az[NB];
#pragma unroll
    for (int k = 0; k < NB; ++k) {
        // Items past the end work on a copy of the last body and never store it.
        const float4 b = pos_in[min(first + k * T + tx, n - 1)];
        px[k] = b.x; py[k] = b.y; pz[k] = b.z;
        ax[k] = 0.0f; ay[k] = 0.0f; az[k] = 0.0f;
    }

    __local const float4 *slice = tile + ty * T;
    float4 next = nb_body_or_empty(pos_in, slot, n);
    for (int base = 0; base < n; base += stride) {
        tile[slot] = next;
        barrier(CLK_LOCAL_MEM_FENCE);
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
                    const float4 q = slice[jj + u];  // the same address for every item: a broadcast
                    const float dx = q.x - px[k];
                    const float dy = q.y - py[k];
                    const float dz = q.z - pz[k];
                    const float r2 = fma(dx, dx, fma(dy, dy, fma(dz, dz, eps2)));
                    const float inv = nb_rsqrt(r2);
                    const float s = (q.w * inv) * (inv * inv);  // two independent products
                    ax[k] = fma(dx, s, ax[k]);
                    ay[k] = fma(dy, s, ay[k]);
                    az[k] = fma(dz, s, az[k]);
                }
            }
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }

    // Slices meet in local memory: slice ty's partial for body b = k*T + tx at ty*T*NB + b.
    // Q == 1 takes this path too: PoCL miscompiles a (uniform) return before the barrier,
    // and the detour costs one barrier per launch.
#pragma unroll
    for (int k = 0; k < NB; ++k) {
        float4 a;
        a.x = ax[k]; a.y = ay[k]; a.z = az[k]; a.w = 0.0f;
        tile[(ty * NB + k) * T + tx] = a;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int b = slot; b < T * NB; b += stride) {
        const int i = first + b;
        if (i >= n)
            break;  // b only grows
        float sx = 0.0f, sy = 0.0f, sz = 0.0f;
        for (int s = 0; s < Q; ++s) {
            const float4 a = tile[s * T * NB + b];
            sx += a.x; sy += a.y; sz += a.z;
        }
        nb_integrate(i, sx, sy, sz, dt, pos_in, vel_in, pos_out, vel_out);
    }
}
