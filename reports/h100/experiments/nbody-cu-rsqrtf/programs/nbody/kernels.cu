// EXPERIMENT nbody-cu-rsqrtf (reports/h100/REPORT.md): programs/nbody/kernels.cu with ONE change:
// rsqrt_ftz(r2) -> rsqrtf(r2), the form kernels.cl gets (denormal fix-up unless --use_fast_math).
// All-pairs gravitational N-body, one semi-implicit Euler step per launch, written for
// Hopper: a = sum_j m_j d / (|d|^2 + eps2)^(3/2), v += a dt, r += v dt (d = r_j - r_i).
//
// Same geometry contract as kernels.cl (see there): a block is T x Q threads, owns
// T * NBODY_BODIES_PER_ITEM bodies, walks the j range in super-tiles of T*Q bodies staged
// in shared memory, and its Q slices split each body's sum. The host keeps T a multiple of
// 16 and T*Q <= NBODY_GROUP_SIZE. Per interaction the inner loop issues 3 FADD, 3 FFMA (r2),
// 1 MUFU.RSQ, 3 FMUL, 3 FFMA (accumulate) plus one broadcast LDS.128 shared by the
// NBODY_BODIES_PER_ITEM bodies a thread owns: issue-bound near 13.5 slots per interaction.
// The dynamic shared memory (T*Q*NBODY_BODIES_PER_ITEM float4s) is the host's LocalMem.

#ifndef NBODY_BODIES_PER_ITEM
#define NBODY_BODIES_PER_ITEM 2  // the host always passes its own value (Program::defines)
#endif
#ifndef NBODY_GROUP_SIZE
#define NBODY_GROUP_SIZE 256
#endif

namespace {

constexpr int kBodies = NBODY_BODIES_PER_ITEM;
constexpr int kUnroll = 16;  // T is a multiple of 16, so the unrolled loop has no remainder

// r2 >= eps2 > 0 is never denormal, so the flush-to-zero form is exact here in every math
// mode and skips the denormal fix-up that plain rsqrtf carries without --use_fast_math.
__device__ __forceinline__ float rsqrt_ftz(float x) {
    float r;
    asm("rsqrt.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(x));
    return r;
}

// Body j, or a zero-mass body at the origin past the end (it adds exactly 0).
__device__ __forceinline__ float4 body_or_empty(const float4* __restrict__ pos, int j, int n) {
    return j < n ? __ldg(pos + j) : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
}

__device__ __forceinline__ void interact(const float4 q, const float3 p, float3& a, float eps2) {
    const float dx = q.x - p.x;
    const float dy = q.y - p.y;
    const float dz = q.z - p.z;
    const float r2 = fmaf(dx, dx, fmaf(dy, dy, fmaf(dz, dz, eps2)));
    const float inv = rsqrtf(r2);
    const float s = (q.w * inv) * (inv * inv);  // two independent products: shorter chain
    a.x = fmaf(dx, s, a.x);
    a.y = fmaf(dy, s, a.y);
    a.z = fmaf(dz, s, a.z);
}

__device__ __forceinline__ void integrate(int i, float3 a, float dt, const float4* __restrict__ pos_in,
                                          const float4* __restrict__ vel_in, float4* __restrict__ pos_out,
                                          float4* __restrict__ vel_out) {
    float4 v = __ldg(vel_in + i);
    v.x = fmaf(a.x, dt, v.x);
    v.y = fmaf(a.y, dt, v.y);
    v.z = fmaf(a.z, dt, v.z);
    float4 r = __ldg(pos_in + i);
    r.x = fmaf(v.x, dt, r.x);
    r.y = fmaf(v.y, dt, r.y);
    r.z = fmaf(v.z, dt, r.z);
    vel_out[i] = v;
    pos_out[i] = r;
}

}  // namespace

extern "C" __global__ void __launch_bounds__(NBODY_GROUP_SIZE, 4)
nbody_step(const float4* __restrict__ pos_in, const float4* __restrict__ vel_in,
           float4* __restrict__ pos_out, float4* __restrict__ vel_out,
           int n, float dt, float eps2)
{
    extern __shared__ float4 smem[];
    const int tx = threadIdx.x;
    const int ty = threadIdx.y;
    const int T = blockDim.x;
    const int Q = blockDim.y;
    const int first = blockIdx.x * T * kBodies;
    const int stride = T * Q;
    const int slot = ty * T + tx;

    float3 p[kBodies], a[kBodies];
#pragma unroll
    for (int k = 0; k < kBodies; ++k) {
        // Threads past the end work on a copy of the last body and never store it.
        const float4 b = __ldg(pos_in + min(first + k * T + tx, n - 1));
        p[k] = make_float3(b.x, b.y, b.z);
        a[k] = make_float3(0.0f, 0.0f, 0.0f);
    }

    const float4* const slice = smem + ty * T;
    float4 next = body_or_empty(pos_in, slot, n);
    for (int base = 0; base < n; base += stride) {
        smem[slot] = next;
        __syncthreads();
        // Prefetch the next super-tile's body: its L2 latency hides behind this tile's math.
        next = body_or_empty(pos_in, base + stride + slot, n);
        for (int jj = 0; jj < T; jj += kUnroll) {
#pragma unroll
            for (int u = 0; u < kUnroll; ++u) {
                const float4 q = slice[jj + u];  // same address across the warp: broadcast
#pragma unroll
                for (int k = 0; k < kBodies; ++k) interact(q, p[k], a[k], eps2);
            }
        }
        __syncthreads();
    }

    if (Q == 1) {  // the whole sum is in registers
#pragma unroll
        for (int k = 0; k < kBodies; ++k) {
            const int i = first + k * T + tx;
            if (i < n) integrate(i, a[k], dt, pos_in, vel_in, pos_out, vel_out);
        }
        return;
    }

    // Slices meet in shared memory: slice ty's partial for body b = k*T + tx at ty*T*kBodies + b.
#pragma unroll
    for (int k = 0; k < kBodies; ++k)
        smem[(ty * kBodies + k) * T + tx] = make_float4(a[k].x, a[k].y, a[k].z, 0.0f);
    __syncthreads();
    for (int b = slot; b < T * kBodies; b += stride) {
        const int i = first + b;
        if (i >= n) break;  // b only grows
        float3 s = make_float3(0.0f, 0.0f, 0.0f);
        for (int q = 0; q < Q; ++q) {
            const float4 part = smem[q * T * kBodies + b];
            s.x += part.x;
            s.y += part.y;
            s.z += part.z;
        }
        integrate(i, s, dt, pos_in, vel_in, pos_out, vel_out);
    }
}
