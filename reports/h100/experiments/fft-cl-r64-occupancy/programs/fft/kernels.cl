// EXPERIMENT fft-cl-r64-occupancy (reports/h100/REPORT.md): programs/fft/kernels.cl with ONE change:
// fft_r64 gets CUDA's __launch_bounds__(256, 2) under NVRTC only (the opencl backend compiles the
// #else copy): at most 128 registers (134 without), so two groups of 256 fit an SM instead of
// one. The plan does not change (every kernels.cl plan already uses groups of 256: the cap
// falls from 384 to 256 work-items, and plan.cpp uses powers of two), so the datasets that run
// only fft_r64 (1d-4kx1024, 1d-16m, 2d-4096x4096) measure fft_r64's occupancy alone.
// fft: one global pass of a batched single-precision complex FFT (Stockham autosort).
//
// A work-group transforms C columns of R points (R = 8 .. 4096, one kernel per R): it reads
// them from global memory once, applies the pass twiddle W_{Ns*R}^(t*jm), does the whole
// R-point DFT in radix-8 stages (a last radix-4 or radix-2 stage when log2 R is not a
// multiple of 3) exchanging through local memory, and writes the R outputs once. Each
// work-item holds 8 points in private memory. The host (programs/fft/plan.cpp) chains
// passes: one for transforms of up to 4096 points, a few strided ones for longer axes and
// for 2-D columns. Index conventions: programs/fft/plan.hpp.
//
// Local-memory layouts: "row" (point t of column c at t*C + c, columns fast) when the
// global columns are strided, so global rows of C points and every stage are conflict-free;
// "col" (c*col_pitch + t + t/16, padded) for contiguous transforms.
//
// Inverse transforms use conj(FFT(conj(x))): the first pass conjugates on load (in_im = -1),
// the last conjugates and scales on store (out_re = 1/N, out_im = -1/N).

#ifndef FFT_TW_LOG2
#define FFT_TW_LOG2 12
#endif

#define FFT_E 8
#define FFT_LOG2E 3

inline float2 cmul(float2 a, float2 b)
{
    float2 r;
    r.x = a.x * b.x - a.y * b.y;
    r.y = a.x * b.y + a.y * b.x;
    return r;
}

// a * (-i)
inline float2 mul_neg_i(float2 a)
{
    float2 r;
    r.x = a.y;
    r.y = -a.x;
    return r;
}

// a * exp(-i pi/4) and a * exp(-3i pi/4)
inline float2 mul_w8_1(float2 a)
{
    const float h = 0.70710678118654752f;
    float2 r;
    r.x = h * (a.x + a.y);
    r.y = h * (a.y - a.x);
    return r;
}

inline float2 mul_w8_3(float2 a)
{
    const float h = 0.70710678118654752f;
    float2 r;
    r.x = h * (a.y - a.x);
    r.y = -h * (a.x + a.y);
    return r;
}

inline void dft2(float2 *a, float2 *b)
{
    const float2 t = *a;
    *a = t + *b;
    *b = t - *b;
}

// Forward 4-point DFT in place, natural order in and out.
inline void dft4(float2 *a, float2 *b, float2 *c, float2 *d)
{
    const float2 s0 = *a + *c, d0 = *a - *c;
    const float2 s1 = *b + *d, d1 = mul_neg_i(*b - *d);
    *a = s0 + s1;
    *b = d0 + d1;
    *c = s0 - s1;
    *d = d0 - d1;
}

// Forward 8-point DFT in place (4 x 2 split), natural order in and out.
inline void dft8(float2 *v)
{
    float2 x0 = v[0], x1 = v[1], x2 = v[2], x3 = v[3];
    float2 x4 = v[4], x5 = v[5], x6 = v[6], x7 = v[7];
    dft4(&x0, &x2, &x4, &x6);
    dft4(&x1, &x3, &x5, &x7);
    x3 = mul_w8_1(x3);
    x5 = mul_neg_i(x5);
    x7 = mul_w8_3(x7);
    v[0] = x0 + x1;
    v[4] = x0 - x1;
    v[1] = x2 + x3;
    v[5] = x2 - x3;
    v[2] = x4 + x5;
    v[6] = x4 - x5;
    v[3] = x6 + x7;
    v[7] = x6 - x7;
}

// W_L^e for e < L <= 2^FFT_TW_LOG2, from the host's table of W_4096^k.
inline float2 inner_twiddle(__global const float2 *restrict tw, int e, int log2L)
{
    return tw[e << (FFT_TW_LOG2 - log2L)];
}

// W_L^e of a pass from its two-level table: W_L^(e mod B) * W_L^(B * (e / B)).
inline float2 pass_twiddle(__global const float2 *restrict twp, int e, int log2B)
{
    const int B = 1 << log2B;
    return cmul(twp[e & (B - 1)], twp[B + (e >> log2B)]);
}

// One stage's butterflies. v[u*r + k] is input k of butterfly j = q + u*T; when Ns > 1 it is
// first multiplied by W_{Ns*r}^(k * (j mod Ns)).
inline void butterflies8(float2 *v, int q, int log2Ns, __global const float2 *restrict tw)
{
    if (log2Ns > 0) {
        const int jm = q & ((1 << log2Ns) - 1);
        for (int k = 1; k < 8; ++k)
            v[k] = cmul(v[k], inner_twiddle(tw, k * jm, log2Ns + 3));
    }
    dft8(v);
}

inline void butterflies4(float2 *v, int q, int log2T, int log2Ns, __global const float2 *restrict tw)
{
    for (int u = 0; u < 2; ++u) {
        if (log2Ns > 0) {
            const int jm = (q + (u << log2T)) & ((1 << log2Ns) - 1);
            for (int k = 1; k < 4; ++k)
                v[4 * u + k] = cmul(v[4 * u + k], inner_twiddle(tw, k * jm, log2Ns + 2));
        }
        dft4(&v[4 * u], &v[4 * u + 1], &v[4 * u + 2], &v[4 * u + 3]);
    }
}

inline void butterflies2(float2 *v, int q, int log2T, int log2Ns, __global const float2 *restrict tw)
{
    for (int u = 0; u < 4; ++u) {
        if (log2Ns > 0) {
            const int jm = (q + (u << log2T)) & ((1 << log2Ns) - 1);
            v[2 * u + 1] = cmul(v[2 * u + 1], inner_twiddle(tw, jm, log2Ns + 1));
        }
        dft2(&v[2 * u], &v[2 * u + 1]);
    }
}

inline float2 scaled(float2 a, float re, float im)
{
    float2 r;
    r.x = a.x * re;
    r.y = a.y * im;
    return r;
}

inline void fft_pass(const int LOG2R,
                     __global const float2 *restrict in, __global float2 *restrict out,
                     __global const float2 *restrict tw, __global const float2 *restrict twp,
                     const int columns, const int log2C, const int log2M, const int log2Nsv,
                     const int log2S, const int tw_log2B, const int col_pitch,
                     const float in_im, const float out_re, const float out_im,
                     __local float2 *sm)
{
    const int R = 1 << LOG2R;
    const int log2T = LOG2R - FFT_LOG2E;  // work-items per column
    const int tid = (int)get_local_id(0);
    const int col_in = log2M == 0;
    // Work-item -> (column c, slot q): slots fast for contiguous columns, columns fast for
    // strided ones, so that global accesses are coalesced either way.
    int c, q, cs, ns, ps;
    if (col_in) {
        q = tid & ((1 << log2T) - 1);
        c = tid >> log2T;
        cs = col_pitch;
        ns = 1;
        ps = 1;
    } else {
        c = tid & ((1 << log2C) - 1);
        q = tid >> log2C;
        cs = 1;
        ns = 1 << log2C;
        ps = 0;
    }
    const int g0 = (int)get_group_id(0) << log2C;
    const int g = g0 + c;
    const int live = g < columns;
    const int M = 1 << log2M, Nsv = 1 << log2Nsv;
    const int G = g & (M - 1);
    const int item_base = (g >> log2M) << (LOG2R + log2M);
    const int in_base = item_base + G;
    const int out_base = item_base + ((G >> log2Nsv) << (log2Nsv + LOG2R)) + (G & (Nsv - 1));
    const int jm_pass = (G & (Nsv - 1)) >> log2S;
    // Strided input but contiguous output: the last stage goes through the col layout so
    // that the group writes its C*R outputs as one contiguous run.
    const int staged = !col_in && log2Nsv == 0;
    const int cbase = c * cs;

    float2 v[FFT_E];
    const int nfull = LOG2R / 3, rem = LOG2R - 3 * nfull;
    const int nstages = nfull + (rem != 0);
    int log2Ns = 0;
    for (int s = 0; s < nstages; ++s) {
        const int lr = s < nfull ? 3 : rem;  // log2 of this stage's radix
        const int lstride = LOG2R - lr;       // log2 of the distance between a butterfly's inputs
        const int first = s == 0, last = s == nstages - 1;
        // Gather: point i of this work-item is input k of butterfly u.
        if (first) {
            for (int i = 0; i < FFT_E; ++i) {
                const int u = i >> lr, k = i & ((1 << lr) - 1);
                const int n = q + (u << log2T) + (k << lstride);
                float2 a;
                a.x = 0.0f;
                a.y = 0.0f;
                if (live) a = in[in_base + (n << log2M)];
                a.y *= in_im;
                if (tw_log2B >= 0) a = cmul(a, pass_twiddle(twp, n * jm_pass, tw_log2B));
                v[i] = a;
            }
        } else {
            barrier(CLK_LOCAL_MEM_FENCE);
            for (int i = 0; i < FFT_E; ++i) {
                const int u = i >> lr, k = i & ((1 << lr) - 1);
                const int n = q + (u << log2T) + (k << lstride);
                v[i] = sm[cbase + n * ns + (n >> 4) * ps];
            }
        }
        if (lr == 3)
            butterflies8(v, q, log2Ns, tw);
        else if (lr == 2)
            butterflies4(v, q, log2T, log2Ns, tw);
        else
            butterflies2(v, q, log2T, log2Ns, tw);
        // Scatter: output k of butterfly j goes to (j / Ns) * Ns * r + (j mod Ns) + k * Ns.
        if (!last) {
            if (!first) barrier(CLK_LOCAL_MEM_FENCE);
            for (int i = 0; i < FFT_E; ++i) {
                const int u = i >> lr, k = i & ((1 << lr) - 1);
                const int j = q + (u << log2T);
                const int n = ((j >> log2Ns) << (log2Ns + lr)) + (j & ((1 << log2Ns) - 1)) + (k << log2Ns);
                sm[cbase + n * ns + (n >> 4) * ps] = v[i];
            }
        } else if (staged) {
            if (!first) barrier(CLK_LOCAL_MEM_FENCE);
            for (int i = 0; i < FFT_E; ++i) {
                const int u = i >> lr, k = i & ((1 << lr) - 1);
                const int n = q + (u << log2T) + (k << lstride);
                sm[c * col_pitch + n + (n >> 4)] = v[i];
            }
            barrier(CLK_LOCAL_MEM_FENCE);
            const int chunk = ((g0 >> log2M) << (LOG2R + log2M)) + ((g0 & (M - 1)) << LOG2R);
            const int threads = (int)get_local_size(0);
            for (int i = 0; i < FFT_E; ++i) {
                const int e = tid + i * threads;
                const int cc = e >> LOG2R, t = e & (R - 1);
                if (g0 + cc < columns) out[chunk + e] = scaled(sm[cc * col_pitch + t + (t >> 4)], out_re, out_im);
            }
        } else {
            for (int i = 0; i < FFT_E; ++i) {
                const int u = i >> lr, k = i & ((1 << lr) - 1);
                const int n = q + (u << log2T) + (k << lstride);
                if (live) out[out_base + (n << log2Nsv)] = scaled(v[i], out_re, out_im);
            }
        }
        log2Ns += lr;
    }
}

// One kernel per R, so that each compiles with its stage sequence known.
__kernel void fft_r8(__global const float2 *restrict in, __global float2 *restrict out,
                     __global const float2 *restrict tw, __global const float2 *restrict twp,
                     int columns, int log2C, int log2M, int log2Nsv, int log2S, int tw_log2B, int col_pitch,
                     float in_im, float out_re, float out_im, __local float2 *sm)
{
    fft_pass(3, in, out, tw, twp, columns, log2C, log2M, log2Nsv, log2S, tw_log2B, col_pitch, in_im, out_re, out_im, sm);
}

__kernel void fft_r16(__global const float2 *restrict in, __global float2 *restrict out,
                      __global const float2 *restrict tw, __global const float2 *restrict twp,
                      int columns, int log2C, int log2M, int log2Nsv, int log2S, int tw_log2B, int col_pitch,
                      float in_im, float out_re, float out_im, __local float2 *sm)
{
    fft_pass(4, in, out, tw, twp, columns, log2C, log2M, log2Nsv, log2S, tw_log2B, col_pitch, in_im, out_re, out_im, sm);
}

__kernel void fft_r32(__global const float2 *restrict in, __global float2 *restrict out,
                      __global const float2 *restrict tw, __global const float2 *restrict twp,
                      int columns, int log2C, int log2M, int log2Nsv, int log2S, int tw_log2B, int col_pitch,
                      float in_im, float out_re, float out_im, __local float2 *sm)
{
    fft_pass(5, in, out, tw, twp, columns, log2C, log2M, log2Nsv, log2S, tw_log2B, col_pitch, in_im, out_re, out_im, sm);
}

#ifdef __CUDACC__  // EXPERIMENT: NVRTC (cuda-prelude) only
__kernel __attribute__((launch_bounds(256, 2))) void fft_r64(__global const float2 *restrict in, __global float2 *restrict out,
                      __global const float2 *restrict tw, __global const float2 *restrict twp,
                      int columns, int log2C, int log2M, int log2Nsv, int log2S, int tw_log2B, int col_pitch,
                      float in_im, float out_re, float out_im, __local float2 *sm)
{
    fft_pass(6, in, out, tw, twp, columns, log2C, log2M, log2Nsv, log2S, tw_log2B, col_pitch, in_im, out_re, out_im, sm);
}
#else
__kernel void fft_r64(__global const float2 *restrict in, __global float2 *restrict out,
                      __global const float2 *restrict tw, __global const float2 *restrict twp,
                      int columns, int log2C, int log2M, int log2Nsv, int log2S, int tw_log2B, int col_pitch,
                      float in_im, float out_re, float out_im, __local float2 *sm)
{
    fft_pass(6, in, out, tw, twp, columns, log2C, log2M, log2Nsv, log2S, tw_log2B, col_pitch, in_im, out_re, out_im, sm);
}
#endif

__kernel void fft_r128(__global const float2 *restrict in, __global float2 *restrict out,
                       __global const float2 *restrict tw, __global const float2 *restrict twp,
                       int columns, int log2C, int log2M, int log2Nsv, int log2S, int tw_log2B, int col_pitch,
                       float in_im, float out_re, float out_im, __local float2 *sm)
{
    fft_pass(7, in, out, tw, twp, columns, log2C, log2M, log2Nsv, log2S, tw_log2B, col_pitch, in_im, out_re, out_im, sm);
}

__kernel void fft_r256(__global const float2 *restrict in, __global float2 *restrict out,
                       __global const float2 *restrict tw, __global const float2 *restrict twp,
                       int columns, int log2C, int log2M, int log2Nsv, int log2S, int tw_log2B, int col_pitch,
                       float in_im, float out_re, float out_im, __local float2 *sm)
{
    fft_pass(8, in, out, tw, twp, columns, log2C, log2M, log2Nsv, log2S, tw_log2B, col_pitch, in_im, out_re, out_im, sm);
}

__kernel void fft_r512(__global const float2 *restrict in, __global float2 *restrict out,
                       __global const float2 *restrict tw, __global const float2 *restrict twp,
                       int columns, int log2C, int log2M, int log2Nsv, int log2S, int tw_log2B, int col_pitch,
                       float in_im, float out_re, float out_im, __local float2 *sm)
{
    fft_pass(9, in, out, tw, twp, columns, log2C, log2M, log2Nsv, log2S, tw_log2B, col_pitch, in_im, out_re, out_im, sm);
}

__kernel void fft_r1024(__global const float2 *restrict in, __global float2 *restrict out,
                        __global const float2 *restrict tw, __global const float2 *restrict twp,
                        int columns, int log2C, int log2M, int log2Nsv, int log2S, int tw_log2B, int col_pitch,
                        float in_im, float out_re, float out_im, __local float2 *sm)
{
    fft_pass(10, in, out, tw, twp, columns, log2C, log2M, log2Nsv, log2S, tw_log2B, col_pitch, in_im, out_re, out_im, sm);
}

__kernel void fft_r2048(__global const float2 *restrict in, __global float2 *restrict out,
                        __global const float2 *restrict tw, __global const float2 *restrict twp,
                        int columns, int log2C, int log2M, int log2Nsv, int log2S, int tw_log2B, int col_pitch,
                        float in_im, float out_re, float out_im, __local float2 *sm)
{
    fft_pass(11, in, out, tw, twp, columns, log2C, log2M, log2Nsv, log2S, tw_log2B, col_pitch, in_im, out_re, out_im, sm);
}

__kernel void fft_r4096(__global const float2 *restrict in, __global float2 *restrict out,
                        __global const float2 *restrict tw, __global const float2 *restrict twp,
                        int columns, int log2C, int log2M, int log2Nsv, int log2S, int tw_log2B, int col_pitch,
                        float in_im, float out_re, float out_im, __local float2 *sm)
{
    fft_pass(12, in, out, tw, twp, columns, log2C, log2M, log2Nsv, log2S, tw_log2B, col_pitch, in_im, out_re, out_im, sm);
}
