// fft: one global pass of a batched single-precision complex FFT (Stockham autosort), for
// cuda-native. The same algorithm, constants, launch geometry and index conventions as
// kernels.cl (read it first; programs/fft/plan.hpp); the CUDA spellings differ only where
// docs/programs/fft.md ("Dialect differences") says:
//   - R and the strided/contiguous case are template parameters (kernels.cl: constant
//     arguments of an inline function), so every loop unrolls in both;
//   - none in the loads: plain p[i] through const __restrict__ pointers, as kernels.cl, which
//     NVRTC compiles to the same non-coherent ld.global.nc as __ldg but with the offsets
//     folded into the address (__ldg(p + i) kept a 64-bit add per load; 7-15% slower on
//     the 16M-point datasets, docs/programs/fft.md);
//   - __launch_bounds__(FFT_GROUP, FFT_CU_MIN_GROUPS) caps registers so that that many groups
//     share an SM (fft_r4096: FFT_CU_MIN_GROUPS_R4096); kernels.cl says the same with
//     TB_LAUNCH_BOUNDS, which cuda-prelude honours and the opencl backend writes into NVIDIA's PTX;
//   - the local planes are the launch's dynamic shared memory (kernels.cl: a __local argument).
// fft_r4096_wide: as kernels.cl's, strided 4096-point columns by blocks of FFT_WIDE_GROUP.

#ifndef FFT_LOG2_E
#error "FFT_LOG2_E must come from the host (programs/fft/tuning.hpp)"
#endif
#ifndef FFT_LOG2_GROUP
#error "FFT_LOG2_GROUP must come from the host (programs/fft/tuning.hpp)"
#endif
#ifndef FFT_SPLIT_EXCHANGE
#error "FFT_SPLIT_EXCHANGE must come from the host (programs/fft/tuning.hpp)"
#endif
#ifndef FFT_LOG2_WIDE_GROUP
#error "FFT_LOG2_WIDE_GROUP must come from the host (programs/fft/tuning.hpp)"
#endif
#ifndef FFT_WIDE_SPLIT_EXCHANGE
#error "FFT_WIDE_SPLIT_EXCHANGE must come from the host (programs/fft/tuning.hpp)"
#endif
#ifndef FFT_WIDE_LOG2_ROUNDS
#error "FFT_WIDE_LOG2_ROUNDS must come from the host (programs/fft/tuning.hpp)"
#endif
#ifndef FFT_LOG2_WIDE1024_GROUP
#error "FFT_LOG2_WIDE1024_GROUP must come from the host (programs/fft/tuning.hpp)"
#endif
#ifndef FFT_WIDE1024_SPLIT_EXCHANGE
#error "FFT_WIDE1024_SPLIT_EXCHANGE must come from the host (programs/fft/tuning.hpp)"
#endif
#ifndef FFT_WIDE1024_LOG2_ROUNDS
#error "FFT_WIDE1024_LOG2_ROUNDS must come from the host (programs/fft/tuning.hpp)"
#endif
#ifndef FFT_CU_MIN_GROUPS_WIDE1024
#error "FFT_CU_MIN_GROUPS_WIDE1024 must come from the host (programs/fft/tuning.hpp)"
#endif
#ifndef FFT_CU_MIN_GROUPS
#error "FFT_CU_MIN_GROUPS must come from the host (programs/fft/tuning.hpp)"
#endif
#ifndef FFT_CU_MIN_GROUPS_R4096
#error "FFT_CU_MIN_GROUPS_R4096 must come from the host (programs/fft/tuning.hpp)"
#endif

#define FFT_E (1 << FFT_LOG2_E)
#define FFT_GROUP (1 << FFT_LOG2_GROUP)
#define FFT_WIDE_GROUP (1 << FFT_LOG2_WIDE_GROUP)
#define FFT_WIDE1024_GROUP (1 << FFT_LOG2_WIDE1024_GROUP)
#define FFT_DEV static __device__ __forceinline__

extern __shared__ __align__(16) float fft_smem[];

FFT_DEV float2 cplx(float re, float im) { return make_float2(re, im); }
FFT_DEV float2 operator+(float2 a, float2 b) { return make_float2(a.x + b.x, a.y + b.y); }
FFT_DEV float2 operator-(float2 a, float2 b) { return make_float2(a.x - b.x, a.y - b.y); }
FFT_DEV float2 cmul(float2 a, float2 b) { return cplx(a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x); }
FFT_DEV float2 mul_neg_i(float2 a) { return cplx(a.y, -a.x); }  // a * (-i)

// a * W_16^e for the exponents the radix-8 and radix-16 splits need; W_16 = exp(-2 pi i / 16).
FFT_DEV float2 mul_w16(float2 a, const int e)
{
    const float h = 0.70710678118654752f;   // cos(pi/4)
    const float c1 = 0.92387953251128674f;  // cos(pi/8)
    const float s1 = 0.38268343236508978f;  // sin(pi/8)
    if (e == 1) return cmul(a, cplx(c1, -s1));
    if (e == 2) return cplx(h * (a.x + a.y), h * (a.y - a.x));
    if (e == 3) return cmul(a, cplx(s1, -c1));
    if (e == 4) return mul_neg_i(a);
    if (e == 6) return cplx(h * (a.y - a.x), -h * (a.x + a.y));
    if (e == 9) return cmul(a, cplx(-c1, s1));
    return a;
}

// Forward DFTs in place, natural order in and out.
FFT_DEV void dft2(float2* v)
{
    const float2 t = v[0];
    v[0] = t + v[1];
    v[1] = t - v[1];
}

FFT_DEV void dft4_at(float2* v, const int i0, const int i1, const int i2, const int i3)
{
    const float2 s0 = v[i0] + v[i2], d0 = v[i0] - v[i2];
    const float2 s1 = v[i1] + v[i3], d1 = mul_neg_i(v[i1] - v[i3]);
    v[i0] = s0 + s1;
    v[i1] = d0 + d1;
    v[i2] = s0 - s1;
    v[i3] = d0 - d1;
}

// 8 points as 4 x 2: n = 2 n1 + n2, k = k1 + 4 k2.
FFT_DEV void dft8(float2* v)
{
    dft4_at(v, 0, 2, 4, 6);
    dft4_at(v, 1, 3, 5, 7);
    v[3] = mul_w16(v[3], 2);
    v[5] = mul_w16(v[5], 4);
    v[7] = mul_w16(v[7], 6);
    float2 x[8];
#pragma unroll
    for (int k1 = 0; k1 < 4; ++k1) {
        x[k1] = v[2 * k1] + v[2 * k1 + 1];
        x[k1 + 4] = v[2 * k1] - v[2 * k1 + 1];
    }
#pragma unroll
    for (int i = 0; i < 8; ++i) v[i] = x[i];
}

// 16 points as 4 x 4: n = 4 n1 + n2, k = k1 + 4 k2.
FFT_DEV void dft16(float2* v)
{
#pragma unroll
    for (int n2 = 0; n2 < 4; ++n2) dft4_at(v, n2, n2 + 4, n2 + 8, n2 + 12);
    // Y[n2][k1] is in v[n2 + 4 k1]; twiddles W_16^(n2 k1).
#pragma unroll
    for (int n2 = 1; n2 < 4; ++n2)
#pragma unroll
        for (int k1 = 1; k1 < 4; ++k1) v[n2 + 4 * k1] = mul_w16(v[n2 + 4 * k1], n2 * k1);
#pragma unroll
    for (int k1 = 0; k1 < 4; ++k1) dft4_at(v, 4 * k1, 4 * k1 + 1, 4 * k1 + 2, 4 * k1 + 3);
    // X[k1 + 4 k2] is in v[4 k1 + k2]: transpose the 4 x 4.
    float2 x[16];
#pragma unroll
    for (int i = 0; i < 16; ++i) x[i] = v[i];
#pragma unroll
    for (int k1 = 0; k1 < 4; ++k1)
#pragma unroll
        for (int k2 = 0; k2 < 4; ++k2) v[k1 + 4 * k2] = x[4 * k1 + k2];
}

FFT_DEV void dft(float2* v, const int lr)
{
    if (lr == 4) dft16(v);
    else if (lr == 3) dft8(v);
    else if (lr == 2) dft4_at(v, 0, 1, 2, 3);
    else dft2(v);
}

// Local index of linear position i, XOR-swizzled inside each run of 32 floats (linear over
// bits: each access is a per-thread base ^ a constant).
FFT_DEV int local_swizzle(const int i)
{
    const int x = i >> 5;
    return i ^ ((x ^ (x >> 2) ^ (x << 1)) & 31);
}

// W_L^e of a pass from its two-level table: W_L^(e mod B) * W_L^(B * (e / B)).
FFT_DEV float2 pass_twiddle(const float2* __restrict__ twp, const int e, const int log2B)
{
    return cmul(*(twp + (e & ((1 << log2B) - 1))), *(twp + ((1 << log2B) + (e >> log2B))));
}

FFT_DEV float2 scaled(float2 a, const float re, const float im) { return cplx(a.x * re, a.y * im); }

// Where the stage table's level log2Ns starts (programs/fft/plan.hpp, inner_twiddles): each
// level below it holds E rows of 2^level entries.
FFT_DEV int tw_level_offset(const int log2Ns)
{
    int offset = 0;
    for (int level = FFT_LOG2_E; level < log2Ns; level += FFT_LOG2_E) offset += FFT_E << level;
    return offset;
}

// The butterflies of one stage of radix 2^lr: v[u*r + k] is input k of butterfly j = q + u*TC,
// first multiplied by W_{Ns*r}^(k * (j mod Ns)) = W_{Ns*E}^(k*E/r * (j mod Ns)) from the stage
// table (row k*E/r of level log2Ns) when Ns > 1. Twiddled stages have r <= E.
FFT_DEV void stage(float2* v, const int lr, const int B, const int log2Ns, const int q, const int TC,
                  const float2* __restrict__ tw)
{
    const int r = 1 << lr;
#pragma unroll
    for (int u = 0; u < B; ++u) {
        if (log2Ns > 0) {
            const int jm = (q + u * TC) & ((1 << log2Ns) - 1);
            const int level = tw_level_offset(log2Ns);
#pragma unroll
            for (int k = 1; k < r; ++k)
                v[u * r + k] = cmul(v[u * r + k], *(tw + (level + ((k << (FFT_LOG2_E - lr)) << log2Ns) + jm)));
        }
        dft(&v[u * r], lr);
    }
}

// Writes v (B butterflies of radix 2^lr, as a stage left them) to shared memory and reads back
// the B2 x 2^lr2 points of the next stage. Output k of butterfly j = q + u*TC goes to point
// n' = (j / Ns) * Ns * r + (j mod Ns) + k * Ns; the next stage reads q + u*TC + k*STRIDE2.
// Points sit at shared index swizzle(cpart | (n << NSHIFT)); gbase = swizzle(cpart | (q << NSHIFT)).
//
// In 2^LRND rounds (the wide pass, where its points do not fit the local limit at once:
// programs/fft/tuning.hpp), round rd moves the points whose n >> RSHIFT is rd, at index
// swizzle(cpart | ((n mod 2^RSHIFT) << NSHIFT)), so the planes hold one round's points. A
// work-item may read in a round before the one it writes in, so its reads go to nv, and
// into v after the last round. Where a work-item's written points' top bits come from
// q (WQ) it writes all of them in one round, and where every q + u*TC is below STRIDE2 <=
// 2^RSHIFT (RK) its k alone says in which round it reads a point: both hold in the wide
// pass, so rounds cost barriers and the registers of nv, not instructions.
FFT_DEV void exchange(float2* v, float* sm, const int lr, const int B, const int lr2, const int B2,
                     const int log2Ns, const int LR, const int TC, const int NSHIFT, const int PLANE,
                     const int q, const int cpart, const int gbase, const int first, const int SPLIT,
                     const int LRND)
{
    const int r = 1 << lr, r2 = 1 << lr2, STRIDE2 = (1 << LR) >> lr2;
    const int sq = ((q >> log2Ns) << (log2Ns + lr)) | (q & ((1 << log2Ns) - 1));
    const int RSHIFT = LR - LRND, NMASK = (1 << RSHIFT) - 1, P = PLANE >> LRND;
    const int WQ = B == 1 && log2Ns + lr <= RSHIFT, RK = STRIDE2 <= (1 << RSHIFT);
    const int sbase = local_swizzle(cpart | ((LRND ? sq & NMASK : sq) << NSHIFT));
    const int rbase = LRND ? local_swizzle(cpart | ((q & NMASK) << NSHIFT)) : gbase;
    float2 nv[FFT_E];
#pragma unroll
    for (int part = 0; part < (SPLIT ? 2 : 1); ++part) {
#pragma unroll
        for (int rd = 0; rd < (1 << LRND); ++rd) {
            if (!first || part > 0 || rd > 0) __syncthreads();
            if (!LRND || !WQ || (sq >> RSHIFT) == rd) {
#pragma unroll
                for (int u = 0; u < B; ++u)
#pragma unroll
                    for (int k = 0; k < r; ++k) {
                        const int ju = u * TC;
                        const int su = ((ju >> log2Ns) << (log2Ns + lr)) | (ju & ((1 << log2Ns) - 1)) | (k << log2Ns);
                        if (LRND && !WQ && ((sq | su) >> RSHIFT) != rd) continue;
                        const int i = sbase ^ local_swizzle((LRND ? su & NMASK : su) << NSHIFT);
                        const float2 a = v[u * r + k];
                        if (SPLIT) {
                            sm[i] = part ? a.y : a.x;
                        } else {
                            sm[i] = a.x;
                            sm[i + P] = a.y;
                        }
                    }
            }
            __syncthreads();
#pragma unroll
            for (int u = 0; u < B2; ++u)
#pragma unroll
                for (int k = 0; k < r2; ++k) {
                    const int n = u * TC + k * STRIDE2, j = u * r2 + k;
                    if (LRND && (RK ? (k * STRIDE2) >> RSHIFT : (q + n) >> RSHIFT) != rd) continue;
                    const int i = rbase ^ local_swizzle((LRND ? n & NMASK : n) << NSHIFT);
                    if (SPLIT && LRND) {
                        if (part) nv[j].y = sm[i];
                        else nv[j].x = sm[i];
                    } else if (SPLIT) {
                        if (part) v[j].y = sm[i];
                        else v[j].x = sm[i];
                    } else if (LRND) {
                        nv[j] = cplx(sm[i], sm[i + P]);
                    } else {
                        v[j] = cplx(sm[i], sm[i + P]);
                    }
                }
        }
    }
    if (LRND) {
#pragma unroll
        for (int j = 0; j < B2 * r2; ++j) v[j] = nv[j];
    }
}

// One pass of radix 2^LR over contiguous (STRIDED = 0) or strided columns by blocks of 2^LG
// threads, exchanging both parts at once or (SPLIT) in turn, each in 2^LRND rounds; all loops
// have constant trip counts, unroll, and v stays in registers: stages of radix E (NFULL of
// them), then one of radix 2^REM when REM > 0.
template <int LR, int STRIDED, int LG, int SPLIT, int LRND>
FFT_DEV void fft_pass(const float2* __restrict__ in, float2* __restrict__ out, const float2* __restrict__ tw,
                      const float2* __restrict__ twp, const int columns, const int log2M, const int log2Nsv,
                      const int log2S, const int tw_log2B, const float in_im, const float out_re, const float out_im)
{
    constexpr int R = 1 << LR;
    constexpr int LER = LR < FFT_LOG2_E ? LR : FFT_LOG2_E;  // points per thread (log2)
    constexpr int ER = 1 << LER;
    constexpr int LTC = LR - LER;                           // threads per column (log2)
    constexpr int TC = 1 << LTC;
    if constexpr (LTC > LG) return;                         // R > block points: never planned
    constexpr int LC = LTC > LG ? 0 : LG - LTC;             // columns per block (log2)
    constexpr int PLANE = (1 << LG) * ER;                   // floats per shared plane
    constexpr int NFULL = LR / LER, REM = LR - NFULL * LER;
    constexpr int NSHIFT = STRIDED ? LC : 0;                // shared index = (n << NSHIFT) | column part
    // The first and the last stage's radix and butterflies per thread.
    constexpr int LR0 = NFULL > 0 ? LER : REM, B0 = ER >> LR0;
    constexpr int LRL = REM > 0 ? REM : LER, BL = ER >> LRL;
    float* sm = fft_smem;

    const int tid = threadIdx.x;
    const int c = STRIDED ? (tid & ((1 << LC) - 1)) : (tid >> LTC);
    const int q = STRIDED ? (tid >> LC) : (tid & (TC - 1));
    const int cpart = STRIDED ? c : (c << LR);
    const int g0 = static_cast<int>(blockIdx.x) << LC;
    const int g = g0 + c;
    const bool live = g < columns;
    const int M = 1 << log2M, Nsv = 1 << log2Nsv;
    const int G = g & (M - 1);
    const int item_base = (g >> log2M) << (LR + log2M);

    float2 v[FFT_E];

    // ---- load point n = q + u*TC + k*STRIDE of the column, times the pass twiddle ----
    // t[k] = W^(n jm) = W^((q + u*TC) jm) * prod over the set bits b of k of W^((STRIDE << b) jm),
    // built as a binary tree: 2 + 2*LR0 table loads a work-item where a point's own twiddle
    // takes 2 a point (docs/programs/fft.md, "Twiddles").
    {
        const int r = 1 << LR0, STRIDE = R >> LR0;
        const int in_base = item_base + G;
        const int jm = (G & (Nsv - 1)) >> log2S;
        const bool twiddled = STRIDED && tw_log2B >= 0;
#pragma unroll
        for (int u = 0; u < B0; ++u) {
            float2 t[FFT_E], step[FFT_LOG2_E];
            if (twiddled) {
                t[0] = pass_twiddle(twp, (q + u * TC) * jm, tw_log2B);
#pragma unroll
                for (int b = 0; b < LR0; ++b) step[b] = pass_twiddle(twp, (STRIDE << b) * jm, tw_log2B);
#pragma unroll
                for (int k = 1; k < r; ++k) {
                    // k without its lowest set bit, times the step of that bit (r <= 16); selects,
                    // so that every index is a constant once unrolled (a loop finding the bit
                    // left a dynamic index, and PoCL took over 10 minutes to build kernels.cl)
                    const int low = (k & 1) ? 0 : (k & 2) ? 1 : (k & 4) ? 2 : 3;
                    t[k] = cmul(t[k & (k - 1)], step[low]);
                }
            }
#pragma unroll
            for (int k = 0; k < r; ++k) {
                const int n = q + u * TC + k * STRIDE;
                float2 a = live ? *(in + (in_base + (n << log2M))) : cplx(0.0f, 0.0f);
                a.y *= in_im;
                if (twiddled) a = cmul(a, t[k]);
                v[u * r + k] = a;
            }
        }
    }

    // ---- stages ----
    const int gbase = local_swizzle(cpart | (q << NSHIFT));
#pragma unroll
    for (int s = 0; s < NFULL; ++s) {
        stage(v, LER, 1, s * LER, q, TC, tw);
        if (s + 1 < NFULL)
            exchange(v, sm, LER, 1, LER, 1, s * LER, LR, TC, NSHIFT, PLANE, q, cpart, gbase, s == 0, SPLIT, LRND);
        else if (REM > 0)
            exchange(v, sm, LER, 1, REM, ER >> REM, s * LER, LR, TC, NSHIFT, PLANE, q, cpart, gbase, s == 0, SPLIT, LRND);
    }
    if (REM > 0) stage(v, REM, ER >> REM, NFULL * LER, q, TC, tw);

    // ---- store output n = q + u*TC + k*STRIDE of the column ----
    const int r = 1 << LRL, STRIDE = R >> LRL;
    if (!STRIDED || log2Nsv > 0) {
        // to out_base + n*Nsv
        const int out_base = item_base + ((G >> log2Nsv) << (log2Nsv + LR)) + (G & (Nsv - 1));
#pragma unroll
        for (int u = 0; u < BL; ++u)
#pragma unroll
            for (int k = 0; k < r; ++k) {
                const int n = q + u * TC + k * STRIDE;
                if (live) out[out_base + (n << log2Nsv)] = scaled(v[u * r + k], out_re, out_im);
            }
    } else if (LRND > 0) {
        // The same in 2^LRND rounds where the group's points do not fit its shared memory at
        // once (the wide passes): round rd stages the points whose n >> RSHIFT is rd at
        // index c * 2^RSHIFT + (n mod 2^RSHIFT), the parts in turn, and stores them as one
        // run of 2^RSHIFT points per column. Where STRIDE <= 2^RSHIFT (the wide passes), every
        // q + u*TC is below it and k alone says in which round a point goes. Apart from the
        // one-round store below, which reads back into v: the narrow kernels keep their code.
        const int RSHIFT = LR - LRND, NMASK = (1 << RSHIFT) - 1, P = PLANE >> LRND, RK = STRIDE <= (1 << RSHIFT);
        const int wbase = local_swizzle((c << RSHIFT) | q);
        const int base = g0 << LR;  // the group's first output: its columns are consecutive
#pragma unroll
        for (int rd = 0; rd < (1 << LRND); ++rd) {
            float2 o[FFT_E];
#pragma unroll
            for (int part = 0; part < (SPLIT ? 2 : 1); ++part) {
                if (NFULL + (REM > 0) > 1 || part > 0 || rd > 0) __syncthreads();
#pragma unroll
                for (int u = 0; u < BL; ++u)
#pragma unroll
                    for (int k = 0; k < r; ++k) {
                        const int n = q + u * TC + k * STRIDE;
                        if ((RK ? k * STRIDE : n) >> RSHIFT != rd) continue;
                        const int i = RK ? wbase ^ local_swizzle((u * TC + k * STRIDE) & NMASK)
                                         : local_swizzle((c << RSHIFT) | (n & NMASK));
                        const float2 a = v[u * r + k];
                        if (SPLIT) {
                            sm[i] = part ? a.y : a.x;
                        } else {
                            sm[i] = a.x;
                            sm[i + P] = a.y;
                        }
                    }
                __syncthreads();
#pragma unroll
                for (int e = 0; e < (ER >> LRND); ++e) {
                    const int i = local_swizzle(tid) ^ local_swizzle(e << LG);
                    if (SPLIT) {
                        if (part) o[e].y = sm[i];
                        else o[e].x = sm[i];
                    } else {
                        o[e] = cplx(sm[i], sm[i + P]);
                    }
                }
            }
#pragma unroll
            for (int e = 0; e < (ER >> LRND); ++e) {
                const int p = tid + (e << LG), col = p >> RSHIFT;
                if (g0 + col < columns)
                    out[base + (col << LR) + (rd << RSHIFT) + (p & NMASK)] = scaled(o[e], out_re, out_im);
            }
        }
    } else {
        // Strided columns whose outputs are contiguous (Nsv = 1): through shared memory in
        // column order (index c*R + n), then the group's C*R points as one contiguous run.
        const int wbase = local_swizzle((c << LR) | q);
#pragma unroll
        for (int part = 0; part < (SPLIT ? 2 : 1); ++part) {
            if (NFULL + (REM > 0) > 1 || part > 0) __syncthreads();
#pragma unroll
            for (int u = 0; u < BL; ++u)
#pragma unroll
                for (int k = 0; k < r; ++k) {
                    const int i = wbase ^ local_swizzle(u * TC + k * STRIDE);
                    const float2 a = v[u * r + k];
                    if (SPLIT) {
                        sm[i] = part ? a.y : a.x;
                    } else {
                        sm[i] = a.x;
                        sm[i + PLANE] = a.y;
                    }
                }
            __syncthreads();
#pragma unroll
            for (int e = 0; e < ER; ++e) {
                const int i = local_swizzle(tid) ^ local_swizzle(e * (1 << LG));
                if (SPLIT) {
                    if (part) v[e].y = sm[i];
                    else v[e].x = sm[i];
                } else {
                    v[e] = cplx(sm[i], sm[i + PLANE]);
                }
            }
        }
        const int base = g0 << LR;  // the group's first output: its columns are consecutive
#pragma unroll
        for (int e = 0; e < ER; ++e) {
            const int p = tid + e * (1 << LG);
            if (g0 + (p >> LR) < columns) out[base + p] = scaled(v[e], out_re, out_im);
        }
    }
}

// One kernel per R (names and parameters as in kernels.cl, minus the __local pointer; written
// out, as there); the strided and the contiguous case are both compiled into each.
extern "C" __global__ void __launch_bounds__(FFT_GROUP, FFT_CU_MIN_GROUPS) fft_r8(
    const float2* __restrict__ in, float2* __restrict__ out, const float2* __restrict__ tw,
    const float2* __restrict__ twp, int columns, int log2M, int log2Nsv, int log2S, int tw_log2B,
    float in_im, float out_re, float out_im)
{
    if (log2M > 0)
        fft_pass<3, 1, FFT_LOG2_GROUP, FFT_SPLIT_EXCHANGE, 0>(in, out, tw, twp, columns, log2M, log2Nsv, log2S, tw_log2B,
                                                              in_im, out_re, out_im);
    else
        fft_pass<3, 0, FFT_LOG2_GROUP, FFT_SPLIT_EXCHANGE, 0>(in, out, tw, twp, columns, log2M, log2Nsv, log2S, tw_log2B,
                                                              in_im, out_re, out_im);
}

extern "C" __global__ void __launch_bounds__(FFT_GROUP, FFT_CU_MIN_GROUPS) fft_r16(
    const float2* __restrict__ in, float2* __restrict__ out, const float2* __restrict__ tw,
    const float2* __restrict__ twp, int columns, int log2M, int log2Nsv, int log2S, int tw_log2B,
    float in_im, float out_re, float out_im)
{
    if (log2M > 0)
        fft_pass<4, 1, FFT_LOG2_GROUP, FFT_SPLIT_EXCHANGE, 0>(in, out, tw, twp, columns, log2M, log2Nsv, log2S, tw_log2B,
                                                              in_im, out_re, out_im);
    else
        fft_pass<4, 0, FFT_LOG2_GROUP, FFT_SPLIT_EXCHANGE, 0>(in, out, tw, twp, columns, log2M, log2Nsv, log2S, tw_log2B,
                                                              in_im, out_re, out_im);
}

extern "C" __global__ void __launch_bounds__(FFT_GROUP, FFT_CU_MIN_GROUPS) fft_r32(
    const float2* __restrict__ in, float2* __restrict__ out, const float2* __restrict__ tw,
    const float2* __restrict__ twp, int columns, int log2M, int log2Nsv, int log2S, int tw_log2B,
    float in_im, float out_re, float out_im)
{
    if (log2M > 0)
        fft_pass<5, 1, FFT_LOG2_GROUP, FFT_SPLIT_EXCHANGE, 0>(in, out, tw, twp, columns, log2M, log2Nsv, log2S, tw_log2B,
                                                              in_im, out_re, out_im);
    else
        fft_pass<5, 0, FFT_LOG2_GROUP, FFT_SPLIT_EXCHANGE, 0>(in, out, tw, twp, columns, log2M, log2Nsv, log2S, tw_log2B,
                                                              in_im, out_re, out_im);
}

extern "C" __global__ void __launch_bounds__(FFT_GROUP, FFT_CU_MIN_GROUPS) fft_r64(
    const float2* __restrict__ in, float2* __restrict__ out, const float2* __restrict__ tw,
    const float2* __restrict__ twp, int columns, int log2M, int log2Nsv, int log2S, int tw_log2B,
    float in_im, float out_re, float out_im)
{
    if (log2M > 0)
        fft_pass<6, 1, FFT_LOG2_GROUP, FFT_SPLIT_EXCHANGE, 0>(in, out, tw, twp, columns, log2M, log2Nsv, log2S, tw_log2B,
                                                              in_im, out_re, out_im);
    else
        fft_pass<6, 0, FFT_LOG2_GROUP, FFT_SPLIT_EXCHANGE, 0>(in, out, tw, twp, columns, log2M, log2Nsv, log2S, tw_log2B,
                                                              in_im, out_re, out_im);
}

extern "C" __global__ void __launch_bounds__(FFT_GROUP, FFT_CU_MIN_GROUPS) fft_r128(
    const float2* __restrict__ in, float2* __restrict__ out, const float2* __restrict__ tw,
    const float2* __restrict__ twp, int columns, int log2M, int log2Nsv, int log2S, int tw_log2B,
    float in_im, float out_re, float out_im)
{
    if (log2M > 0)
        fft_pass<7, 1, FFT_LOG2_GROUP, FFT_SPLIT_EXCHANGE, 0>(in, out, tw, twp, columns, log2M, log2Nsv, log2S, tw_log2B,
                                                              in_im, out_re, out_im);
    else
        fft_pass<7, 0, FFT_LOG2_GROUP, FFT_SPLIT_EXCHANGE, 0>(in, out, tw, twp, columns, log2M, log2Nsv, log2S, tw_log2B,
                                                              in_im, out_re, out_im);
}

extern "C" __global__ void __launch_bounds__(FFT_GROUP, FFT_CU_MIN_GROUPS) fft_r256(
    const float2* __restrict__ in, float2* __restrict__ out, const float2* __restrict__ tw,
    const float2* __restrict__ twp, int columns, int log2M, int log2Nsv, int log2S, int tw_log2B,
    float in_im, float out_re, float out_im)
{
    if (log2M > 0)
        fft_pass<8, 1, FFT_LOG2_GROUP, FFT_SPLIT_EXCHANGE, 0>(in, out, tw, twp, columns, log2M, log2Nsv, log2S, tw_log2B,
                                                              in_im, out_re, out_im);
    else
        fft_pass<8, 0, FFT_LOG2_GROUP, FFT_SPLIT_EXCHANGE, 0>(in, out, tw, twp, columns, log2M, log2Nsv, log2S, tw_log2B,
                                                              in_im, out_re, out_im);
}

extern "C" __global__ void __launch_bounds__(FFT_GROUP, FFT_CU_MIN_GROUPS) fft_r512(
    const float2* __restrict__ in, float2* __restrict__ out, const float2* __restrict__ tw,
    const float2* __restrict__ twp, int columns, int log2M, int log2Nsv, int log2S, int tw_log2B,
    float in_im, float out_re, float out_im)
{
    if (log2M > 0)
        fft_pass<9, 1, FFT_LOG2_GROUP, FFT_SPLIT_EXCHANGE, 0>(in, out, tw, twp, columns, log2M, log2Nsv, log2S, tw_log2B,
                                                              in_im, out_re, out_im);
    else
        fft_pass<9, 0, FFT_LOG2_GROUP, FFT_SPLIT_EXCHANGE, 0>(in, out, tw, twp, columns, log2M, log2Nsv, log2S, tw_log2B,
                                                              in_im, out_re, out_im);
}

extern "C" __global__ void __launch_bounds__(FFT_GROUP, FFT_CU_MIN_GROUPS) fft_r1024(
    const float2* __restrict__ in, float2* __restrict__ out, const float2* __restrict__ tw,
    const float2* __restrict__ twp, int columns, int log2M, int log2Nsv, int log2S, int tw_log2B,
    float in_im, float out_re, float out_im)
{
    if (log2M > 0)
        fft_pass<10, 1, FFT_LOG2_GROUP, FFT_SPLIT_EXCHANGE, 0>(in, out, tw, twp, columns, log2M, log2Nsv, log2S, tw_log2B,
                                                               in_im, out_re, out_im);
    else
        fft_pass<10, 0, FFT_LOG2_GROUP, FFT_SPLIT_EXCHANGE, 0>(in, out, tw, twp, columns, log2M, log2Nsv, log2S, tw_log2B,
                                                               in_im, out_re, out_im);
}

extern "C" __global__ void __launch_bounds__(FFT_GROUP, FFT_CU_MIN_GROUPS) fft_r2048(
    const float2* __restrict__ in, float2* __restrict__ out, const float2* __restrict__ tw,
    const float2* __restrict__ twp, int columns, int log2M, int log2Nsv, int log2S, int tw_log2B,
    float in_im, float out_re, float out_im)
{
    if (log2M > 0)
        fft_pass<11, 1, FFT_LOG2_GROUP, FFT_SPLIT_EXCHANGE, 0>(in, out, tw, twp, columns, log2M, log2Nsv, log2S, tw_log2B,
                                                               in_im, out_re, out_im);
    else
        fft_pass<11, 0, FFT_LOG2_GROUP, FFT_SPLIT_EXCHANGE, 0>(in, out, tw, twp, columns, log2M, log2Nsv, log2S, tw_log2B,
                                                               in_im, out_re, out_im);
}

extern "C" __global__ void __launch_bounds__(FFT_GROUP, FFT_CU_MIN_GROUPS_R4096) fft_r4096(
    const float2* __restrict__ in, float2* __restrict__ out, const float2* __restrict__ tw,
    const float2* __restrict__ twp, int columns, int log2M, int log2Nsv, int log2S, int tw_log2B,
    float in_im, float out_re, float out_im)
{
    if (log2M > 0)
        fft_pass<12, 1, FFT_LOG2_GROUP, FFT_SPLIT_EXCHANGE, 0>(in, out, tw, twp, columns, log2M, log2Nsv, log2S, tw_log2B,
                                                               in_im, out_re, out_im);
    else
        fft_pass<12, 0, FFT_LOG2_GROUP, FFT_SPLIT_EXCHANGE, 0>(in, out, tw, twp, columns, log2M, log2Nsv, log2S, tw_log2B,
                                                               in_im, out_re, out_im);
}

// Strided columns only, exchanged in phases (kernels.cl's fft_r4096_wide).
extern "C" __global__ void __launch_bounds__(FFT_WIDE_GROUP, 1) fft_r4096_wide(
    const float2* __restrict__ in, float2* __restrict__ out, const float2* __restrict__ tw,
    const float2* __restrict__ twp, int columns, int log2M, int log2Nsv, int log2S, int tw_log2B,
    float in_im, float out_re, float out_im)
{
    fft_pass<12, 1, FFT_LOG2_WIDE_GROUP, FFT_WIDE_SPLIT_EXCHANGE, FFT_WIDE_LOG2_ROUNDS>(
        in, out, tw, twp, columns, log2M, log2Nsv, log2S, tw_log2B, in_im, out_re, out_im);
}

// Strided columns of 1024 points by blocks of FFT_WIDE1024_GROUP (kernels.cl's fft_r1024_wide).
extern "C" __global__ void __launch_bounds__(FFT_WIDE1024_GROUP, FFT_CU_MIN_GROUPS_WIDE1024) fft_r1024_wide(
    const float2* __restrict__ in, float2* __restrict__ out, const float2* __restrict__ tw,
    const float2* __restrict__ twp, int columns, int log2M, int log2Nsv, int log2S, int tw_log2B,
    float in_im, float out_re, float out_im)
{
    fft_pass<10, 1, FFT_LOG2_WIDE1024_GROUP, FFT_WIDE1024_SPLIT_EXCHANGE, FFT_WIDE1024_LOG2_ROUNDS>(
        in, out, tw, twp, columns, log2M, log2Nsv, log2S, tw_log2B, in_im, out_re, out_im);
}
