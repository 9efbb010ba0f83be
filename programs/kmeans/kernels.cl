// kmeans: one Lloyd iteration is kmeans_assign (nearest centroid of every point),
// kmeans_partial (per-work-group sums and counts per cluster, no global atomics) and
// kmeans_finalize (one work-group per centroid coordinate adds the groups' partials). Every
// sum is taken in a fixed order, so a run is bitwise repeatable. kernels.cu is this
// algorithm in CUDA C++, function for function; docs/programs/kmeans.md lists where the
// two dialects differ and what each difference measured.
//
// Layouts: points feature-major (feature f of point i at points[f*n + i]) so consecutive
// work-items read consecutive words; centroids cluster-major (centroids[off + j*d + f]);
// partials coordinate-major (psums[(j*d + f)*groups + g], pcounts[j*groups + g]) so the
// finalize reads them contiguously. The host guarantees: k <= KM_KMAX, work-groups of
// KM_BLOCK (kmeans_partial: KM_PARTIAL_BLOCK), chunk a multiple of 4, n*d < 2^31. The
// _d2/_d4 kernels are used when d is 2 or 4 and n is a multiple of 4: their points live in
// registers as one float4 per feature. Inputs no work-item writes are read with
// tb_load_readonly (the backends' load hints, docs/prelude.md): kernels.cu's __ldg. The
// _d2/_d4 assignment waits on memory and asks for KM_ASSIGN_MIN_GROUPS resident groups
// (TB_LAUNCH_BOUNDS: kernels.cu's __launch_bounds__).
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

#define KM_RUNS (KM_PARTIAL_BLOCK / KM_RUN)  // runs of work-items per group

static inline float km_lane(float4 v, const int p)
{
    return p == 0 ? v.x : p == 1 ? v.y : p == 2 ? v.z : v.w;
}

static inline int km_lane_int(int4 v, const int p)
{
    return p == 0 ? v.x : p == 1 ? v.y : p == 2 ? v.z : v.w;
}

// ---- Assignment ---------------------------------------------------------------------------

// The _d2/_d4 kernels rank centroids by s_j = |c_j|^2 - 2 x.c_j, the squared distance less
// |x|^2 (the same for every centroid): one fma per feature against the staged -2 c_j,
// starting from |c_j|^2, instead of a difference, a square and an addition (issue-bound on
// 10m-d4-k16 before; docs/programs/kmeans.md). The CPU reference bounds this form's
// rounding (programs/kmeans/reference.hpp, Distance::expanded).
static inline float km_norm2(const float *c, const int D)
{
    float s = c[0] * c[0];
#pragma unroll
    for (int f = 1; f < 4; ++f)
        if (f < D)
            s = fma(c[f], c[f], s);
    return s;
}

// Score of point p of x (x[f]: feature f of 4 points) against m = -2 c, cc = |c|^2.
static inline float km_score(const float4 *x, const float *m, const float cc, const int D, const int p)
{
    float s = fma(km_lane(x[0], p), m[0], cc);
#pragma unroll
    for (int f = 1; f < 4; ++f)
        if (f < D)
            s = fma(km_lane(x[f], p), m[f], s);
    return s;
}

// d == D: the work-item's 4 points (one float4 per feature) are loaded before the group
// stages its centroids, so the loads are in flight across the barrier.
static inline void km_load_points(__global const float *restrict points, int n, int i0, int active, const int D,
                                  float4 *x)
{
#pragma unroll
    for (int f = 0; f < 4; ++f) {
        x[f].x = 0.0f; x[f].y = 0.0f; x[f].z = 0.0f; x[f].w = 0.0f;
    }
    if (active) {
#pragma unroll
        for (int f = 0; f < 4; ++f)
            if (f < D)
                x[f] = tb_load_readonly((__global const float4 *)(points + f * n + i0));
    }
}

// Staged centroid j: cent[j] holds -2 c_j (d = 4) or (-2 c_j, |c_j|^2, 0) (d = 2); for d = 4
// |c_j|^2 follows the KM_KMAX vectors as floats (one more broadcast load).
static inline void km_stage_centroids(__global const float *restrict centroids, int c_off, int k, const int D,
                                      __local float4 *cent)
{
    __local float *norms = (__local float *)(cent + KM_KMAX);
    for (int t = (int)get_local_id(0); t < k; t += KM_BLOCK) {
        float c[4];
        if (D == 4) {
            const float4 v = tb_load_readonly((__global const float4 *)(centroids + c_off + 4 * t));
            c[0] = v.x; c[1] = v.y; c[2] = v.z; c[3] = v.w;
        } else {
            const float2 v = tb_load_readonly((__global const float2 *)(centroids + c_off + 2 * t));
            c[0] = v.x; c[1] = v.y; c[2] = 0.0f; c[3] = 0.0f;
        }
        const float cc = km_norm2(c, D);
        float4 m;
        m.x = -2.0f * c[0]; m.y = -2.0f * c[1];  // exact: a power of two
        m.z = D == 4 ? -2.0f * c[2] : cc;
        m.w = D == 4 ? -2.0f * c[3] : 0.0f;
        cent[t] = m;
        if (D == 4)
            norms[t] = cc;
    }
}

// Centroid j's -2 c_j (into m) and |c_j|^2, from the staged layout above.
static inline float km_centroid(__local const float4 *cent, int j, const int D, float *m)
{
    const float4 v = cent[j];  // the same address for every work-item: a broadcast
    m[0] = v.x; m[1] = v.y; m[2] = v.z; m[3] = v.w;
    return D == 4 ? ((__local const float *)(cent + KM_KMAX))[j] : v.z;
}

// A running minimum over the k staged centroids, each serving the 4 points; strict < keeps
// the lowest index on ties.
static inline void km_nearest(const float4 *x, __local const float4 *cent, int k, const int D, int *idx)
{
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
            if (s < best[p]) {
                best[p] = s;
                idx[p] = j;
            }
        }
    }
}

static inline void km_store_labels(__global int *restrict membership, int i0, const int *idx)
{
    int4 m;
    m.x = idx[0]; m.y = idx[1]; m.z = idx[2]; m.w = idx[3];
    *(__global int4 *)(membership + i0) = m;
}

// The fixed-d assignment: D = 2 or 4 features, n % 4 == 0.
static inline void km_assign_fixed(__global const float *restrict points, __global const float *restrict centroids,
                                   int c_off, __global int *restrict membership, int n, int k, const int D,
                                   __local float4 *cent)
{
    const int i0 = ((int)get_group_id(0) * KM_BLOCK + (int)get_local_id(0)) * 4;
    const int active = i0 < n;
    float4 x[4];
    km_load_points(points, n, i0, active, D, x);
    km_stage_centroids(centroids, c_off, k, D, cent);
    barrier(CLK_LOCAL_MEM_FENCE);
    if (!active)
        return;
    int idx[4];
    km_nearest(x, cent, k, D, idx);
    km_store_labels(membership, i0, idx);
}

__kernel __attribute__((reqd_work_group_size(KM_BLOCK, 1, 1))) TB_LAUNCH_BOUNDS(KM_BLOCK, KM_ASSIGN_MIN_GROUPS)
void kmeans_assign_d4(__global const float *restrict points, __global const float *restrict centroids,
                      int c_off, __global int *restrict membership, int n, int d, int k,
                      __local float4 *cent)
{
    km_assign_fixed(points, centroids, c_off, membership, n, k, 4, cent);
}

__kernel __attribute__((reqd_work_group_size(KM_BLOCK, 1, 1))) TB_LAUNCH_BOUNDS(KM_BLOCK, KM_ASSIGN_MIN_GROUPS)
void kmeans_assign_d2(__global const float *restrict points, __global const float *restrict centroids,
                      int c_off, __global int *restrict membership, int n, int d, int k,
                      __local float4 *cent)
{
    km_assign_fixed(points, centroids, c_off, membership, n, k, 2, cent);
}

// Any d, any n: four consecutive points per work-item (a float4 per feature when n % 4 == 0,
// guarded scalars otherwise), distances to KM >= k centroids in registers, features streamed
// one at a time against the centroids transposed in local memory (cent[f*KM_KMAX + j]).
static inline void km_assign_any(__global const float *restrict points, __global const float *restrict centroids,
                                 __global int *restrict membership, int n, int d, int k, const int KM,
                                 __local float *cent)
{
    const int lid = (int)get_local_id(0);
    for (int t = lid; t < k * d; t += KM_BLOCK) {
        const int j = t / d;
        cent[(t - j * d) * KM_KMAX + j] = tb_load_readonly(centroids + t);
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    const int i0 = ((int)get_group_id(0) * KM_BLOCK + lid) * 4;
    if (i0 >= n)
        return;
    const int vec = (n & 3) == 0;

    float dist[4][KM_KMAX];
#pragma unroll
    for (int p = 0; p < 4; ++p) {
#pragma unroll
        for (int j = 0; j < KM_KMAX; ++j)
            dist[p][j] = 0.0f;
    }
    for (int f = 0; f < d; ++f) {
        __global const float *row = points + f * n;
        float4 x;
        if (vec) {
            x = tb_load_readonly((__global const float4 *)(row + i0));
        } else {
            x.x = tb_load_readonly(row + i0);
            x.y = i0 + 1 < n ? tb_load_readonly(row + i0 + 1) : 0.0f;
            x.z = i0 + 2 < n ? tb_load_readonly(row + i0 + 2) : 0.0f;
            x.w = i0 + 3 < n ? tb_load_readonly(row + i0 + 3) : 0.0f;
        }
        __local const float *c = cent + f * KM_KMAX;
#pragma unroll
        for (int j = 0; j < KM_KMAX; ++j) {
            if (j < KM && j < k) {
                const float cj = c[j];
#pragma unroll
                for (int p = 0; p < 4; ++p) {
                    const float t = km_lane(x, p) - cj;
                    dist[p][j] = fma(t, t, dist[p][j]);
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
            if (i0 + p < n)
                membership[i0 + p] = idx[p];
    }
}

__kernel __attribute__((reqd_work_group_size(KM_BLOCK, 1, 1)))
void kmeans_assign(__global const float *restrict points, __global const float *restrict centroids,
                   int c_off, __global int *restrict membership, int n, int d, int k,
                   __local float *cent)
{
    if (k <= KM_KMAX / 2)
        km_assign_any(points, centroids + c_off, membership, n, d, k, KM_KMAX / 2, cent);
    else
        km_assign_any(points, centroids + c_off, membership, n, d, k, KM_KMAX, cent);
}

// ---- Update: per-group partial sums ---------------------------------------------------------

// Group g (KM_PARTIAL_BLOCK work-items) sums the points [g*chunk, min(n, (g+1)*chunk)) per
// cluster: each work-item keeps its own copy of every value (a cluster's sum of one feature,
// or its count) in local memory, hist[km_slot(v, lid)], and adds each of its points to its
// cluster's copies, in order. Reading and writing a copy the label picks costs 3 instructions
// per value and needs neither registers per cluster nor atomics. Counts travel as floats:
// exact, since a group holds fewer than 2^24 points.

// Work-item lid's copy of value v: the copies of one value are consecutive, so the work-items
// of a warp updating their own copies hit 32 different banks whatever their labels.
static inline int km_slot(int v, int lid)
{
    return v * KM_PARTIAL_BLOCK + lid;
}

// Adds values v0 .. v0+KM_RUN-1 (those below `values`) over the group in a fixed order:
// work-item (c, r) adds run r's KM_RUN copies of value v0 + c (work-items r*KM_RUN ...) in a
// pairwise tree, then work-item c adds the runs in order. Returns value v0 + lid's sum on
// work-items lid < KM_RUN; hist may be written again as soon as it returns. Each work-item
// reads its run rotated by its lane, (l + lid) % KM_RUN, so a warp's reads hit 32 banks;
// the tree over a rotated run adds the same pairs (one operand order may swap, and float
// addition commutes), so the sums are those of the plain tree, bit for bit.
static inline float km_group_round(__local const float *hist, __local float *runs, int v0, int values, int lid)
{
    barrier(CLK_LOCAL_MEM_FENCE);
    const int c = lid / KM_RUNS, r = lid % KM_RUNS;
    float t0 = 0.0f;
    if (v0 + c < values) {
        __local const float *src = hist + (v0 + c) * KM_PARTIAL_BLOCK + r * KM_RUN;
        // Five levels written out: a loop over them would leave t in memory (NVRTC). The
        // first level reads its pairs straight from local memory.
        float t[KM_RUN / 2];
#pragma unroll
        for (int l = 0; l < 16; ++l)
            t[l] = src[(l + lid) % KM_RUN] + src[(l + 16 + lid) % KM_RUN];
#pragma unroll
        for (int l = 0; l < 8; ++l)
            t[l] += t[l + 8];
#pragma unroll
        for (int l = 0; l < 4; ++l)
            t[l] += t[l + 4];
        t[0] += t[2];
        t[1] += t[3];
        t0 = t[0] + t[1];
    }
    runs[c * KM_RUNS + r] = t0;
    barrier(CLK_LOCAL_MEM_FENCE);
    float s = 0.0f;
    if (lid < KM_RUN) {
        s = runs[lid * KM_RUNS];
        for (int q = 1; q < KM_RUNS; ++q)
            s += runs[lid * KM_RUNS + q];
    }
    return s;
}

// d == D and n % 4 == 0: every value at once, v = j*(D+1) + f (f == D: the count); hist
// holds k*(D+1) values, runs KM_PARTIAL_BLOCK floats after them.
static inline void km_partial_fixed(__global const float *restrict points, __global const int *restrict membership,
                                    __global float *restrict psums, __global int *restrict pcounts, int n, int k,
                                    int chunk, const int D, __local float *hist)
{
    const int lid = (int)get_local_id(0);
    const int g = (int)get_group_id(0);
    const int groups = (int)get_num_groups(0);
    const int begin = g * chunk;
    const int end = min(n, begin + chunk);  // empty for trailing groups
    const int values = k * (D + 1);
    for (int v = 0; v < values; ++v)
        hist[km_slot(v, lid)] = 0.0f;  // its own copies: no barrier before the adds
#pragma unroll 2
    for (int i = begin + 4 * lid; i < end; i += 4 * KM_PARTIAL_BLOCK) {
        const int4 m = tb_load_readonly((__global const int4 *)(membership + i));
        float4 x[4];
#pragma unroll
        for (int f = 0; f < 4; ++f)
            if (f < D)
                x[f] = tb_load_readonly((__global const float4 *)(points + f * n + i));
#pragma unroll
        for (int p = 0; p < 4; ++p) {
            const int v = km_lane_int(m, p) * (D + 1);
#pragma unroll
            for (int f = 0; f < 4; ++f)
                if (f < D)
                    hist[km_slot(v + f, lid)] += km_lane(x[f], p);
            hist[km_slot(v + D, lid)] += 1.0f;
        }
    }
    __local float *runs = hist + values * KM_PARTIAL_BLOCK;
    for (int v0 = 0; v0 < values; v0 += KM_RUN) {
        const float s = km_group_round(hist, runs, v0, values, lid);
        const int v = v0 + lid, j = v / (D + 1), f = v - j * (D + 1);
        if (lid < KM_RUN && v < values) {
            if (f < D)
                psums[(j * D + f) * groups + g] = s;
            else
                pcounts[j * groups + g] = (int)s;
        }
    }
}

// Any d, any n: d + 1 passes (pass 0 counts, pass f+1 sums feature f) of k values each.
static inline void km_partial_any(__global const float *restrict points, __global const int *restrict membership,
                                  __global float *restrict psums, __global int *restrict pcounts, int n, int d, int k,
                                  int chunk, __local float *hist)
{
    const int lid = (int)get_local_id(0);
    const int g = (int)get_group_id(0);
    const int groups = (int)get_num_groups(0);
    const int begin = g * chunk;
    const int end = min(n, begin + chunk);  // empty for trailing groups
    // 4 consecutive points per step when n % 4 == 0 (then begin and end are multiples of 4),
    // else 1. One loop for both: a branch between two loops here, between the barriers of
    // consecutive passes, makes PoCL 5's parallel-region formation abort (pocl/pocl#2281).
    const int step = (n & 3) == 0 ? 4 : 1;
    __local float *runs = hist + k * KM_PARTIAL_BLOCK;
    for (int pass = 0; pass <= d; ++pass) {
        __global const float *row = points + (pass > 0 ? (pass - 1) * n : 0);
        for (int j = 0; j < k; ++j)
            hist[km_slot(j, lid)] = 0.0f;  // the last round's reads are behind its barrier
        for (int i = begin + step * lid; i < end; i += step * KM_PARTIAL_BLOCK) {
#pragma unroll
            for (int p = 0; p < 4; ++p)
                if (p < step)
                    hist[km_slot(tb_load_readonly(membership + i + p), lid)] += pass > 0 ? tb_load_readonly(row + i + p) : 1.0f;
        }
        const float s = km_group_round(hist, runs, 0, k, lid);
        if (lid < k) {
            if (pass == 0)
                pcounts[lid * groups + g] = (int)s;
            else
                psums[(lid * d + pass - 1) * groups + g] = s;
        }
    }
}

__kernel __attribute__((reqd_work_group_size(KM_PARTIAL_BLOCK, 1, 1)))
void kmeans_partial(__global const float *restrict points, __global const int *restrict membership,
                    __global float *restrict psums, __global int *restrict pcounts, int n, int d, int k,
                    int chunk, __local float *hist)
{
    km_partial_any(points, membership, psums, pcounts, n, d, k, chunk, hist);
}

__kernel __attribute__((reqd_work_group_size(KM_PARTIAL_BLOCK, 1, 1)))
void kmeans_partial_d2(__global const float *restrict points, __global const int *restrict membership,
                       __global float *restrict psums, __global int *restrict pcounts, int n, int d, int k,
                       int chunk, __local float *hist)
{
    km_partial_fixed(points, membership, psums, pcounts, n, k, chunk, 2, hist);
}

__kernel __attribute__((reqd_work_group_size(KM_PARTIAL_BLOCK, 1, 1)))
void kmeans_partial_d4(__global const float *restrict points, __global const int *restrict membership,
                       __global float *restrict psums, __global int *restrict pcounts, int n, int d, int k,
                       int chunk, __local float *hist)
{
    km_partial_fixed(points, membership, psums, pcounts, n, k, chunk, 4, hist);
}

// ---- Update: finalize ---------------------------------------------------------------------

// Work-group v = j*d + f adds coordinate (j, f) and the count of cluster j over all groups
// (work-item l takes groups l, l+KM_BLOCK, ..., in order), then a pairwise tree, then
// divides. An empty cluster keeps its centroid. cent_in and cent_out may be one buffer at
// different offsets (hence no restrict on them).
__kernel __attribute__((reqd_work_group_size(KM_BLOCK, 1, 1)))
void kmeans_finalize(__global const float *restrict psums, __global const int *restrict pcounts, int groups,
                     __global const float *cent_in, int in_off, __global float *cent_out, int out_off,
                     int d, int k, __local float *fsum, __local int *icount)
{
    const int lid = (int)get_local_id(0);
    const int v = (int)get_group_id(0);
    const int j = v / d;
    float s = 0.0f;
    int c = 0;
    for (int g = lid; g < groups; g += KM_BLOCK) {
        s += tb_load_readonly(psums + v * groups + g);
        c += tb_load_readonly(pcounts + j * groups + g);
    }
    fsum[lid] = s;
    icount[lid] = c;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int h = KM_BLOCK / 2; h > 0; h /= 2) {
        if (lid < h) {
            fsum[lid] += fsum[lid + h];
            icount[lid] += icount[lid + h];
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lid == 0)
        cent_out[out_off + v] = icount[0] > 0 ? fsum[0] / (float)icount[0] : cent_in[in_off + v];
}
