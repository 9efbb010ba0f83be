// fft: one global pass of a batched single-precision complex FFT (Stockham autosort), for
// cuda-native. Same algorithm, parameters and index conventions as kernels.cl
// (programs/fft/plan.hpp), written for Hopper:
//   - 16 points per thread and radix-16 butterflies (4 x 4, constants folded), so a
//     1024-point column is 3 stages (16, 16, 4) and 4096 points is 3 stages of 16;
//   - every stage is a compile-time instance (template on R and the stage), so the 16
//     points stay in registers and all loops unroll;
//   - global loads are fused into the first stage and stores into the last (no extra
//     shared-memory round trip), read-only data through __ldg;
//   - one dynamic shared buffer sized by the host; the "row" layout (columns fast) makes
//     strided passes conflict-free, the padded "col" layout serves contiguous transforms;
//   - __launch_bounds__(512, 2): two 512-thread blocks of 8192 points per SM.
// Inverse transforms: conj(FFT(conj(x))) via in_im / out_re / out_im, as in kernels.cl.

#ifndef FFT_TW_LOG2
#define FFT_TW_LOG2 12
#endif
#ifndef FFT_CU_THREADS
#define FFT_CU_THREADS 512
#endif
#ifndef FFT_CU_MIN_BLOCKS
#define FFT_CU_MIN_BLOCKS 2
#endif

#define FFT_DEV static __device__ __forceinline__

extern __shared__ __align__(16) float2 fft_smem[];

constexpr int kLog2MaxRadix = 4;  // 16 points per thread

FFT_DEV float2 cadd(float2 a, float2 b) { return make_float2(a.x + b.x, a.y + b.y); }
FFT_DEV float2 csub(float2 a, float2 b) { return make_float2(a.x - b.x, a.y - b.y); }
FFT_DEV float2 cmul(float2 a, float2 b) { return make_float2(a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x); }
FFT_DEV float2 mul_neg_i(float2 a) { return make_float2(a.y, -a.x); }  // a * (-i)

// a * W_16^e for the exponents the 4 x 4 split needs; W_16 = exp(-2 pi i / 16).
template <int e>
FFT_DEV float2 mul_w16(float2 a)
{
    constexpr float h = 0.70710678118654752f;   // cos(pi/4)
    constexpr float c1 = 0.92387953251128674f;  // cos(pi/8)
    constexpr float s1 = 0.38268343236508978f;  // sin(pi/8)
    if constexpr (e == 0) return a;
    else if constexpr (e == 1) return cmul(a, make_float2(c1, -s1));
    else if constexpr (e == 2) return make_float2(h * (a.x + a.y), h * (a.y - a.x));
    else if constexpr (e == 3) return cmul(a, make_float2(s1, -c1));
    else if constexpr (e == 4) return mul_neg_i(a);
    else if constexpr (e == 6) return make_float2(h * (a.y - a.x), -h * (a.x + a.y));
    else {
        static_assert(e == 9, "mul_w16: exponent not used by the radix-16 split");
        return cmul(a, make_float2(-c1, s1));
    }
}

FFT_DEV void dft2(float2& a, float2& b)
{
    const float2 t = a;
    a = cadd(t, b);
    b = csub(t, b);
}

// Forward 4-point DFT in place, natural order in and out.
FFT_DEV void dft4(float2& a, float2& b, float2& c, float2& d)
{
    const float2 s0 = cadd(a, c), d0 = csub(a, c);
    const float2 s1 = cadd(b, d), d1 = mul_neg_i(csub(b, d));
    a = cadd(s0, s1);
    b = cadd(d0, d1);
    c = csub(s0, s1);
    d = csub(d0, d1);
}

// Forward 8-point DFT (4 x 2 split), natural order in and out.
FFT_DEV void dft8(float2* v)
{
    float2 x0 = v[0], x1 = v[1], x2 = v[2], x3 = v[3], x4 = v[4], x5 = v[5], x6 = v[6], x7 = v[7];
    dft4(x0, x2, x4, x6);
    dft4(x1, x3, x5, x7);
    x3 = mul_w16<2>(x3);
    x5 = mul_w16<4>(x5);
    x7 = mul_w16<6>(x7);
    v[0] = cadd(x0, x1); v[4] = csub(x0, x1);
    v[1] = cadd(x2, x3); v[5] = csub(x2, x3);
    v[2] = cadd(x4, x5); v[6] = csub(x4, x5);
    v[3] = cadd(x6, x7); v[7] = csub(x6, x7);
}

// Forward 16-point DFT (4 x 4 split), natural order in and out: n = 4 n1 + n2, k = k1 + 4 k2.
FFT_DEV void dft16(float2* v)
{
    float2 x[16];
#pragma unroll
    for (int i = 0; i < 16; ++i) x[i] = v[i];
    // Length-4 DFTs over n1: Y[n2][k1] lands in x[n2 + 4 k1].
#pragma unroll
    for (int n2 = 0; n2 < 4; ++n2) dft4(x[n2], x[n2 + 4], x[n2 + 8], x[n2 + 12]);
    // Twiddles W_16^(n2 k1).
    x[5] = mul_w16<1>(x[5]);
    x[9] = mul_w16<2>(x[9]);
    x[13] = mul_w16<3>(x[13]);
    x[6] = mul_w16<2>(x[6]);
    x[10] = mul_w16<4>(x[10]);
    x[14] = mul_w16<6>(x[14]);
    x[7] = mul_w16<3>(x[7]);
    x[11] = mul_w16<6>(x[11]);
    x[15] = mul_w16<9>(x[15]);
    // Length-4 DFTs over n2: X[k1 + 4 k2] lands in x[4 k1 + k2].
#pragma unroll
    for (int k1 = 0; k1 < 4; ++k1) dft4(x[4 * k1], x[4 * k1 + 1], x[4 * k1 + 2], x[4 * k1 + 3]);
#pragma unroll
    for (int k1 = 0; k1 < 4; ++k1)
#pragma unroll
        for (int k2 = 0; k2 < 4; ++k2) v[k1 + 4 * k2] = x[4 * k1 + k2];
}

template <int r>
FFT_DEV void dft(float2* v)
{
    if constexpr (r == 2) dft2(v[0], v[1]);
    else if constexpr (r == 4) dft4(v[0], v[1], v[2], v[3]);
    else if constexpr (r == 8) dft8(v);
    else {
        static_assert(r == 16, "radix must be 2, 4, 8 or 16");
        dft16(v);
    }
}

// W_L^e of a pass from its two-level table: W_L^(e mod B) * W_L^(B * (e / B)).
FFT_DEV float2 pass_twiddle(const float2* __restrict__ twp, int e, int log2B)
{
    const int B = 1 << log2B;
    return cmul(__ldg(twp + (e & (B - 1))), __ldg(twp + B + (e >> log2B)));
}

// Per-thread view of the pass: where its column lives in global and shared memory.
struct Ctx {
    const float2* __restrict__ in;
    float2* __restrict__ out;
    const float2* __restrict__ tw;
    const float2* __restrict__ twp;
    int columns, log2C, log2M, log2Nsv, tw_log2B, col_pitch;
    float in_im, out_re, out_im;
    int c, q, g0;
    int cbase, ns, ps;  // shared index of point n: cbase + n * ns + (n >> 4) * ps
    int in_base, out_base, jm_pass;
    bool live, staged;
};

template <int R>
struct FftPass {
    __host__ __device__ static constexpr int ilog2(int x) { return x <= 1 ? 0 : 1 + ilog2(x / 2); }
    static constexpr int LOG2R = ilog2(R);
    static constexpr int LOG2E = LOG2R < kLog2MaxRadix ? LOG2R : kLog2MaxRadix;
    static constexpr int E = 1 << LOG2E;         // points per thread
    static constexpr int LOG2T = LOG2R - LOG2E;  // threads per column
    static constexpr int T = 1 << LOG2T;
    static constexpr int NFULL = LOG2R / kLog2MaxRadix;
    static constexpr int NSTAGES = NFULL + (LOG2R % kLog2MaxRadix != 0);
    __host__ __device__ static constexpr int stage_log2r(int s) { return s < NFULL ? kLog2MaxRadix : LOG2R % kLog2MaxRadix; }
    __host__ __device__ static constexpr int stage_log2ns(int s) { return s == 0 ? 0 : stage_log2ns(s - 1) + stage_log2r(s - 1); }

    static __device__ __forceinline__ float2 scaled(float2 a, const Ctx& x)
    {
        return make_float2(a.x * x.out_re, a.y * x.out_im);
    }

    template <int S>
    static __device__ __forceinline__ void stage(float2 (&v)[E], const Ctx& x)
    {
        constexpr int LR = stage_log2r(S), r = 1 << LR;
        constexpr int LN = stage_log2ns(S), Ns = 1 << LN;
        constexpr bool FIRST = S == 0, LAST = S == NSTAGES - 1;
        constexpr int B = E / r;       // butterflies per thread
        constexpr int STRIDE = R / r;  // distance between a butterfly's inputs
        // Gather: v[u*r + k] is input k of butterfly j = q + u*T, point n = j + k*STRIDE.
        if constexpr (FIRST) {
#pragma unroll
            for (int u = 0; u < B; ++u)
#pragma unroll
                for (int k = 0; k < r; ++k) {
                    const int n = x.q + u * T + k * STRIDE;
                    v[u * r + k] = x.live ? __ldg(x.in + x.in_base + (n << x.log2M)) : make_float2(0.0f, 0.0f);
                }
#pragma unroll
            for (int u = 0; u < B; ++u)
#pragma unroll
                for (int k = 0; k < r; ++k) {
                    const int n = x.q + u * T + k * STRIDE;
                    float2 a = v[u * r + k];
                    a.y *= x.in_im;
                    if (x.tw_log2B >= 0) a = cmul(a, pass_twiddle(x.twp, n * x.jm_pass, x.tw_log2B));
                    v[u * r + k] = a;
                }
        } else {
            __syncthreads();
#pragma unroll
            for (int u = 0; u < B; ++u)
#pragma unroll
                for (int k = 0; k < r; ++k) {
                    const int n = x.q + u * T + k * STRIDE;
                    v[u * r + k] = fft_smem[x.cbase + n * x.ns + (n >> 4) * x.ps];
                }
        }
        // Twiddles W_{Ns*r}^(k * (j mod Ns)) from the W_4096 table, then the butterflies.
#pragma unroll
        for (int u = 0; u < B; ++u) {
            if constexpr (Ns > 1) {
                const int jm = (x.q + u * T) & (Ns - 1);
#pragma unroll
                for (int k = 1; k < r; ++k)
                    v[u * r + k] = cmul(v[u * r + k], __ldg(x.tw + ((k * jm) << (FFT_TW_LOG2 - LN - LR))));
            }
            dft<r>(&v[u * r]);
        }
        // Scatter: output k of butterfly j goes to (j / Ns) * Ns * r + (j mod Ns) + k * Ns.
        if constexpr (!LAST) {
            if constexpr (!FIRST) __syncthreads();
#pragma unroll
            for (int u = 0; u < B; ++u)
#pragma unroll
                for (int k = 0; k < r; ++k) {
                    const int j = x.q + u * T;
                    const int n = ((j >> LN) << (LN + LR)) + (j & (Ns - 1)) + k * Ns;
                    fft_smem[x.cbase + n * x.ns + (n >> 4) * x.ps] = v[u * r + k];
                }
            stage<S + 1>(v, x);
        } else if (x.staged) {
            // Strided input, contiguous output: through the col layout, then one contiguous
            // run of C*R points per block.
            if constexpr (!FIRST) __syncthreads();
#pragma unroll
            for (int u = 0; u < B; ++u)
#pragma unroll
                for (int k = 0; k < r; ++k) {
                    const int n = x.q + u * T + k * STRIDE;
                    fft_smem[x.c * x.col_pitch + n + (n >> 4)] = v[u * r + k];
                }
            __syncthreads();
            const int M = 1 << x.log2M;
            const int chunk = ((x.g0 >> x.log2M) << (LOG2R + x.log2M)) + ((x.g0 & (M - 1)) << LOG2R);
#pragma unroll
            for (int i = 0; i < E; ++i) {
                const int e = threadIdx.x + i * blockDim.x;
                const int cc = e >> LOG2R, t = e & (R - 1);
                if (x.g0 + cc < x.columns) x.out[chunk + e] = scaled(fft_smem[cc * x.col_pitch + t + (t >> 4)], x);
            }
        } else {
#pragma unroll
            for (int u = 0; u < B; ++u)
#pragma unroll
                for (int k = 0; k < r; ++k) {
                    const int n = x.q + u * T + k * STRIDE;
                    if (x.live) x.out[x.out_base + (n << x.log2Nsv)] = scaled(v[u * r + k], x);
                }
        }
    }

    static __device__ __forceinline__ void run(const float2* __restrict__ in, float2* __restrict__ out,
                                               const float2* __restrict__ tw, const float2* __restrict__ twp,
                                               int columns, int log2C, int log2M, int log2Nsv, int log2S,
                                               int tw_log2B, int col_pitch, float in_im, float out_re, float out_im)
    {
        Ctx x;
        x.in = in;
        x.out = out;
        x.tw = tw;
        x.twp = twp;
        x.columns = columns;
        x.log2C = log2C;
        x.log2M = log2M;
        x.log2Nsv = log2Nsv;
        x.tw_log2B = tw_log2B;
        x.col_pitch = col_pitch;
        x.in_im = in_im;
        x.out_re = out_re;
        x.out_im = out_im;
        const int tid = threadIdx.x;
        const bool col_in = log2M == 0;
        // Thread -> (column c, slot q): slots fast for contiguous columns, columns fast for
        // strided ones, so that global accesses coalesce either way.
        if (col_in) {
            x.q = tid & (T - 1);
            x.c = tid >> LOG2T;
            x.cbase = x.c * col_pitch;
            x.ns = 1;
            x.ps = 1;
        } else {
            x.c = tid & ((1 << log2C) - 1);
            x.q = tid >> log2C;
            x.cbase = x.c;
            x.ns = 1 << log2C;
            x.ps = 0;
        }
        x.g0 = static_cast<int>(blockIdx.x) << log2C;
        const int g = x.g0 + x.c;
        x.live = g < columns;
        const int M = 1 << log2M, Nsv = 1 << log2Nsv;
        const int G = g & (M - 1);
        const int item_base = (g >> log2M) << (LOG2R + log2M);
        x.in_base = item_base + G;
        x.out_base = item_base + ((G >> log2Nsv) << (log2Nsv + LOG2R)) + (G & (Nsv - 1));
        x.jm_pass = (G & (Nsv - 1)) >> log2S;
        x.staged = !col_in && log2Nsv == 0;
        float2 v[E];
        stage<0>(v, x);
    }
};

// One kernel per R (names and parameters as in kernels.cl, minus the __local pointer).
extern "C" __global__ void __launch_bounds__(FFT_CU_THREADS, FFT_CU_MIN_BLOCKS) fft_r8(const float2* __restrict__ in, float2* __restrict__ out,
    const float2* __restrict__ tw, const float2* __restrict__ twp, int columns, int log2C, int log2M, int log2Nsv,
    int log2S, int tw_log2B, int col_pitch, float in_im, float out_re, float out_im)
{
    FftPass<8>::run(in, out, tw, twp, columns, log2C, log2M, log2Nsv, log2S, tw_log2B, col_pitch, in_im, out_re, out_im);
}

extern "C" __global__ void __launch_bounds__(FFT_CU_THREADS, FFT_CU_MIN_BLOCKS) fft_r16(const float2* __restrict__ in, float2* __restrict__ out,
    const float2* __restrict__ tw, const float2* __restrict__ twp, int columns, int log2C, int log2M, int log2Nsv,
    int log2S, int tw_log2B, int col_pitch, float in_im, float out_re, float out_im)
{
    FftPass<16>::run(in, out, tw, twp, columns, log2C, log2M, log2Nsv, log2S, tw_log2B, col_pitch, in_im, out_re, out_im);
}

extern "C" __global__ void __launch_bounds__(FFT_CU_THREADS, FFT_CU_MIN_BLOCKS) fft_r32(const float2* __restrict__ in, float2* __restrict__ out,
    const float2* __restrict__ tw, const float2* __restrict__ twp, int columns, int log2C, int log2M, int log2Nsv,
    int log2S, int tw_log2B, int col_pitch, float in_im, float out_re, float out_im)
{
    FftPass<32>::run(in, out, tw, twp, columns, log2C, log2M, log2Nsv, log2S, tw_log2B, col_pitch, in_im, out_re, out_im);
}

extern "C" __global__ void __launch_bounds__(FFT_CU_THREADS, FFT_CU_MIN_BLOCKS) fft_r64(const float2* __restrict__ in, float2* __restrict__ out,
    const float2* __restrict__ tw, const float2* __restrict__ twp, int columns, int log2C, int log2M, int log2Nsv,
    int log2S, int tw_log2B, int col_pitch, float in_im, float out_re, float out_im)
{
    FftPass<64>::run(in, out, tw, twp, columns, log2C, log2M, log2Nsv, log2S, tw_log2B, col_pitch, in_im, out_re, out_im);
}

extern "C" __global__ void __launch_bounds__(FFT_CU_THREADS, FFT_CU_MIN_BLOCKS) fft_r128(const float2* __restrict__ in, float2* __restrict__ out,
    const float2* __restrict__ tw, const float2* __restrict__ twp, int columns, int log2C, int log2M, int log2Nsv,
    int log2S, int tw_log2B, int col_pitch, float in_im, float out_re, float out_im)
{
    FftPass<128>::run(in, out, tw, twp, columns, log2C, log2M, log2Nsv, log2S, tw_log2B, col_pitch, in_im, out_re, out_im);
}

extern "C" __global__ void __launch_bounds__(FFT_CU_THREADS, FFT_CU_MIN_BLOCKS) fft_r256(const float2* __restrict__ in, float2* __restrict__ out,
    const float2* __restrict__ tw, const float2* __restrict__ twp, int columns, int log2C, int log2M, int log2Nsv,
    int log2S, int tw_log2B, int col_pitch, float in_im, float out_re, float out_im)
{
    FftPass<256>::run(in, out, tw, twp, columns, log2C, log2M, log2Nsv, log2S, tw_log2B, col_pitch, in_im, out_re, out_im);
}

extern "C" __global__ void __launch_bounds__(FFT_CU_THREADS, FFT_CU_MIN_BLOCKS) fft_r512(const float2* __restrict__ in, float2* __restrict__ out,
    const float2* __restrict__ tw, const float2* __restrict__ twp, int columns, int log2C, int log2M, int log2Nsv,
    int log2S, int tw_log2B, int col_pitch, float in_im, float out_re, float out_im)
{
    FftPass<512>::run(in, out, tw, twp, columns, log2C, log2M, log2Nsv, log2S, tw_log2B, col_pitch, in_im, out_re, out_im);
}

extern "C" __global__ void __launch_bounds__(FFT_CU_THREADS, FFT_CU_MIN_BLOCKS) fft_r1024(const float2* __restrict__ in, float2* __restrict__ out,
    const float2* __restrict__ tw, const float2* __restrict__ twp, int columns, int log2C, int log2M, int log2Nsv,
    int log2S, int tw_log2B, int col_pitch, float in_im, float out_re, float out_im)
{
    FftPass<1024>::run(in, out, tw, twp, columns, log2C, log2M, log2Nsv, log2S, tw_log2B, col_pitch, in_im, out_re, out_im);
}

extern "C" __global__ void __launch_bounds__(FFT_CU_THREADS, FFT_CU_MIN_BLOCKS) fft_r2048(const float2* __restrict__ in, float2* __restrict__ out,
    const float2* __restrict__ tw, const float2* __restrict__ twp, int columns, int log2C, int log2M, int log2Nsv,
    int log2S, int tw_log2B, int col_pitch, float in_im, float out_re, float out_im)
{
    FftPass<2048>::run(in, out, tw, twp, columns, log2C, log2M, log2Nsv, log2S, tw_log2B, col_pitch, in_im, out_re, out_im);
}

extern "C" __global__ void __launch_bounds__(FFT_CU_THREADS, FFT_CU_MIN_BLOCKS) fft_r4096(const float2* __restrict__ in, float2* __restrict__ out,
    const float2* __restrict__ tw, const float2* __restrict__ twp, int columns, int log2C, int log2M, int log2Nsv,
    int log2S, int tw_log2B, int col_pitch, float in_im, float out_re, float out_im)
{
    FftPass<4096>::run(in, out, tw, twp, columns, log2C, log2M, log2Nsv, log2S, tw_log2B, col_pitch, in_im, out_re, out_im);
}
