// EXPERIMENT kmeans-cl-unroll-kmax8 (reports/h100/REPORT.md): the two assignment experiments
// together: KM_KMAX 8 (kmeans-cl-kmax8: half the distance registers) and #pragma unroll 4 on
// km_assign's feature loop (kmeans-cl-unroll-f: the d float4 loads issued together).
// kmeans: one Lloyd iteration is kmeans_assign (nearest centroid of every point),
// kmeans_partial (per-work-group sums and counts per cluster, in local memory, no global
// atomics) and kmeans_finalize (one work-group per centroid coordinate adds the groups'
// partials). Every sum is taken in a fixed order, so a run is bitwise repeatable.
//
// Layouts: points feature-major (feature f of point i at points[f*n + i]) so consecutive
// work-items read consecutive words; centroids cluster-major (centroids[off + j*d + f]);
// partials coordinate-major (psums[(j*d + f)*groups + g], pcounts[j*groups + g]) so the
// finalize reads them contiguously. The host guarantees: k <= KM_KMAX, power-of-two
// work-groups, chunk a multiple of 4, n*d < 2^31. The _d2/_d4 kernels are the generic code
// with d fixed, so the compiler unrolls the feature loops; the host uses them when d is 2
// or 4 and n is a multiple of 4.
#undef KM_KMAX
#define KM_KMAX 8  // the host passes 16; valid for k <= 8 (every dataset but 10m-d4-k16)

// Each work-item of kmeans_assign handles 4 consecutive points: one float4 per feature
// when n is a multiple of 4 (the host sizes the grid with the same 4).
static inline void km_assign(__global const float *restrict points, __global const float *restrict centroids,
                             int c_off, __global int *restrict membership, int n, const int d, int k,
                             __local float *cent)
{
    const int lid = (int)get_local_id(0);
    const int lsz = (int)get_local_size(0);
    // Transposed into local memory, cent[f*KM_KMAX + j]: the cluster loop of one feature
    // reads consecutive words.
    for (int t = lid; t < k * d; t += lsz) {
        const int j = t / d;
        cent[(t - j * d) * KM_KMAX + j] = centroids[c_off + t];
    }
    barrier(CLK_LOCAL_MEM_FENCE);

    const int i0 = (int)get_global_id(0) * 4;
    if (i0 >= n)
        return;
    const int vec = (n & 3) == 0;
    float dist[4][KM_KMAX];
    for (int p = 0; p < 4; ++p)
        for (int j = 0; j < KM_KMAX; ++j)
            dist[p][j] = 0.0f;

#pragma unroll 4
    for (int f = 0; f < d; ++f) {
        __global const float *row = points + f * n;
        float x[4];
        if (vec) {
            const float4 v = *(__global const float4 *)(row + i0);
            x[0] = v.x; x[1] = v.y; x[2] = v.z; x[3] = v.w;
        } else {
            for (int p = 0; p < 4; ++p)
                x[p] = i0 + p < n ? row[i0 + p] : 0.0f;
        }
        __local const float *c = cent + f * KM_KMAX;
#pragma unroll
        for (int j = 0; j < KM_KMAX; ++j) {
            if (j < k) {
                const float cj = c[j];
                for (int p = 0; p < 4; ++p) {
                    const float t = x[p] - cj;
                    dist[p][j] += t * t;
                }
            }
        }
    }

    int idx[4];
    for (int p = 0; p < 4; ++p) {
        float best = dist[p][0];
        int b = 0;
#pragma unroll
        for (int j = 1; j < KM_KMAX; ++j) {
            if (j < k && dist[p][j] < best) {  // strict: ties go to the lowest index
                best = dist[p][j];
                b = j;
            }
        }
        idx[p] = b;
    }
    if (vec) {
        int4 m;
        m.x = idx[0]; m.y = idx[1]; m.z = idx[2]; m.w = idx[3];
        *(__global int4 *)(membership + i0) = m;
    } else {
        for (int p = 0; p < 4; ++p)
            if (i0 + p < n)
                membership[i0 + p] = idx[p];
    }
}

// Adds acc[0..k) over the work-group in a fixed tree order; the sums end in
// scratch[j*lsz]. scratch holds KM_KMAX*lsz floats.
static inline void km_group_sum(const float *acc, int k, __local float *scratch, int lid, int lsz)
{
#pragma unroll
    for (int j = 0; j < KM_KMAX; ++j)
        if (j < k)
            scratch[j * lsz + lid] = acc[j];
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int s = lsz >> 1; s > 0; s >>= 1) {
        if (lid < s) {
            for (int j = 0; j < k; ++j)
                scratch[j * lsz + lid] += scratch[j * lsz + lid + s];
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
}

// Work-group g sums the points [g*chunk, min(n, (g+1)*chunk)) per cluster. Counts travel
// as floats through the reduction: exact, since a group holds fewer than 2^24 points.
static inline void km_partial(__global const float *restrict points, __global const int *restrict membership,
                              __global float *restrict psums, __global int *restrict pcounts, int n, const int d,
                              int k, int chunk, __local float *scratch)
{
    const int lid = (int)get_local_id(0);
    const int lsz = (int)get_local_size(0);
    const int g = (int)get_group_id(0);
    const int groups = (int)get_num_groups(0);
    const int begin = g * chunk;
    const int end = min(n, begin + chunk);  // empty for trailing groups
    const int vec = (n & 3) == 0;           // then begin and end are multiples of 4
    float acc[KM_KMAX];

    // Pass 0 counts, pass f+1 sums feature f.
    for (int pass = 0; pass <= d; ++pass) {
        for (int j = 0; j < KM_KMAX; ++j)
            acc[j] = 0.0f;
        __global const float *row = points + (pass > 0 ? (pass - 1) * n : 0);
        if (vec) {
            for (int i = begin + 4 * lid; i < end; i += 4 * lsz) {
                const int4 m = *(__global const int4 *)(membership + i);
                float4 x;
                if (pass > 0) {
                    x = *(__global const float4 *)(row + i);
                } else {
                    x.x = 1.0f; x.y = 1.0f; x.z = 1.0f; x.w = 1.0f;
                }
#pragma unroll
                for (int j = 0; j < KM_KMAX; ++j) {
                    acc[j] += m.x == j ? x.x : 0.0f;
                    acc[j] += m.y == j ? x.y : 0.0f;
                    acc[j] += m.z == j ? x.z : 0.0f;
                    acc[j] += m.w == j ? x.w : 0.0f;
                }
            }
        } else {
            for (int i = begin + lid; i < end; i += lsz) {
                const int m = membership[i];
                const float x = pass > 0 ? row[i] : 1.0f;
#pragma unroll
                for (int j = 0; j < KM_KMAX; ++j)
                    acc[j] += m == j ? x : 0.0f;
            }
        }
        km_group_sum(acc, k, scratch, lid, lsz);
        if (lid < k) {
            if (pass == 0)
                pcounts[lid * groups + g] = (int)scratch[lid * lsz];
            else
                psums[(lid * d + pass - 1) * groups + g] = scratch[lid * lsz];
        }
        barrier(CLK_LOCAL_MEM_FENCE);  // scratch is reused by the next pass
    }
}

__kernel void kmeans_assign(__global const float *restrict points, __global const float *restrict centroids,
                            int c_off, __global int *restrict membership, int n, int d, int k,
                            __local float *cent)
{
    km_assign(points, centroids, c_off, membership, n, d, k, cent);
}

__kernel void kmeans_assign_d2(__global const float *restrict points, __global const float *restrict centroids,
                               int c_off, __global int *restrict membership, int n, int d, int k,
                               __local float *cent)
{
    km_assign(points, centroids, c_off, membership, n, 2, k, cent);
}

__kernel void kmeans_assign_d4(__global const float *restrict points, __global const float *restrict centroids,
                               int c_off, __global int *restrict membership, int n, int d, int k,
                               __local float *cent)
{
    km_assign(points, centroids, c_off, membership, n, 4, k, cent);
}

__kernel void kmeans_partial(__global const float *restrict points, __global const int *restrict membership,
                             __global float *restrict psums, __global int *restrict pcounts, int n, int d, int k,
                             int chunk, __local float *scratch)
{
    km_partial(points, membership, psums, pcounts, n, d, k, chunk, scratch);
}

__kernel void kmeans_partial_d2(__global const float *restrict points, __global const int *restrict membership,
                                __global float *restrict psums, __global int *restrict pcounts, int n, int d, int k,
                                int chunk, __local float *scratch)
{
    km_partial(points, membership, psums, pcounts, n, 2, k, chunk, scratch);
}

__kernel void kmeans_partial_d4(__global const float *restrict points, __global const int *restrict membership,
                                __global float *restrict psums, __global int *restrict pcounts, int n, int d, int k,
                                int chunk, __local float *scratch)
{
    km_partial(points, membership, psums, pcounts, n, 4, k, chunk, scratch);
}

// Work-group v = j*d + f adds coordinate (j, f) and the count of cluster j over all
// groups (work-item l takes groups l, l+lsz, ...), then divides. An empty cluster keeps
// its centroid. cent_in and cent_out may be one buffer at different offsets.
__kernel void kmeans_finalize(__global const float *restrict psums, __global const int *restrict pcounts, int groups,
                              __global const float *cent_in, int in_off, __global float *cent_out, int out_off,
                              int d, int k, __local float *fsum, __local int *icount)
{
    const int lid = (int)get_local_id(0);
    const int lsz = (int)get_local_size(0);
    const int v = (int)get_group_id(0);
    const int j = v / d;
    float s = 0.0f;
    int c = 0;
    for (int g = lid; g < groups; g += lsz) {
        s += psums[v * groups + g];
        c += pcounts[j * groups + g];
    }
    fsum[lid] = s;
    icount[lid] = c;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int h = lsz >> 1; h > 0; h >>= 1) {
        if (lid < h) {
            fsum[lid] += fsum[lid + h];
            icount[lid] += icount[lid + h];
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lid == 0)
        cent_out[out_off + v] = icount[0] > 0 ? fsum[0] / (float)icount[0] : cent_in[in_off + v];
}
