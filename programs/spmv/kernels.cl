// CSR sparse matrix times dense vector, y = A x, single precision, three ways to split the
// work (docs/programs/spmv.md). kernels.cu is the same algorithm in CUDA C++; the tuning
// constants come from the host (programs/spmv/tuning.hpp), the same for both files.
//
// SpMV is bound by memory latency times the bytes in flight, so every kernel loads its
// non-zeros in batches with the bounds test on each element rather than on the loop: all
// loads of a batch are in flight together (a row of 5 is one round trip, not five).
// scalar and vector also pipeline a row's batches: the next batch's column indices load
// while this batch's values and gathers of x are in flight, rather than a batch waiting
// for its col and then for x[col]: on long rows the dependent chain is about half as long
// (docs/programs/spmv.md, "Pipelined batches").
#ifndef SPMV_SCALAR_BATCH
#error "SPMV_SCALAR_BATCH must come from the host (programs/spmv/tuning.hpp)"
#endif
#ifndef SPMV_VECTOR_BATCH
#error "SPMV_VECTOR_BATCH must come from the host (programs/spmv/tuning.hpp)"
#endif
#ifndef SPMV_MERGE_ITEMS
#error "SPMV_MERGE_ITEMS must come from the host (programs/spmv/tuning.hpp)"
#endif
#ifndef SPMV_SCAN_WIDTH
#error "SPMV_SCAN_WIDTH must come from the host (programs/spmv/tuning.hpp)"
#endif
#ifndef SPMV_FIXUP_ITEMS
#error "SPMV_FIXUP_ITEMS must come from the host (programs/spmv/tuning.hpp)"
#endif
// Read only by the launch bounds: kernels.cu's __launch_bounds__ and the vector kernel's TB_LAUNCH_BOUNDS here
// (cuda-prelude's launch bounds; the opencl backend's on NVIDIA, docs/prelude.md). Both files take the same constants
// (tests/test_dialect_parity.cpp).
#ifndef SPMV_BLOCK
#error "SPMV_BLOCK must come from the host (programs/spmv/tuning.hpp)"
#endif
#ifndef SPMV_VECTOR_MIN_GROUPS
#error "SPMV_VECTOR_MIN_GROUPS must come from the host (programs/spmv/tuning.hpp)"
#endif

// scalar: one work-item per row. Good when rows are short and even; a long row stalls
// its whole sub-group, and neighbouring work-items read non-adjacent addresses. The
// work-items stride over the rows (the host caps the number of work-groups) and load the
// next row's offsets while the current row's non-zeros are in flight, and a batch's column
// indices one batch ahead (above).
__kernel void spmv_scalar(int rows, __global const int *restrict row_ptr, __global const int *restrict col,
                          __global const float *restrict val, __global const float *restrict x,
                          __global float *restrict y)
{
    const uint n = (uint)rows;
    // 32-bit, as kernels.cu: from get_global_id's 64 bits ptxas schedules the batch
    // differently (docs/programs/spmv.md, "Dialect differences").
    const uint stride = (uint)get_num_groups(0) * (uint)get_local_size(0);
    uint row = (uint)get_group_id(0) * (uint)get_local_size(0) + (uint)get_local_id(0);
    int begin = 0, end = 0;
    if (row < n) {
        begin = row_ptr[row];
        end = row_ptr[row + 1];
    }
    for (; row < n; row += stride) {
        const uint next = row + stride;
        int next_begin = 0, next_end = 0;
        if (next < n) {
            next_begin = row_ptr[next];
            next_end = row_ptr[next + 1];
        }
        float sum = 0.0f;
        int c[SPMV_SCALAR_BATCH];
        for (int j = 0; j < SPMV_SCALAR_BATCH; ++j)
            c[j] = begin + j < end ? col[begin + j] : 0;
        for (int k = begin; k < end; k += SPMV_SCALAR_BATCH) {
            float v[SPMV_SCALAR_BATCH], xc[SPMV_SCALAR_BATCH];
            for (int j = 0; j < SPMV_SCALAR_BATCH; ++j) {
                v[j] = k + j < end ? val[k + j] : 0.0f;
                xc[j] = k + j < end ? x[c[j]] : 0.0f;
            }
            for (int j = 0; j < SPMV_SCALAR_BATCH; ++j) {
                const int e = k + SPMV_SCALAR_BATCH + j;
                c[j] = e < end ? col[e] : 0;
            }
            for (int j = 0; j < SPMV_SCALAR_BATCH; ++j)
                if (k + j < end)
                    sum += v[j] * xc[j];
        }
        y[row] = sum;
        begin = next_begin;
        end = next_end;
    }
}

// vector: G consecutive work-items per row (G a power of two up to 32 dividing the
// work-group size, chosen by the host from the mean row length). The group reads its row's
// non-zeros side by side (coalesced), then sums its lanes in a tree: where sub-groups are
// warps (cuda-prelude; the opencl backend on NVIDIA, docs/prelude.md) by sub-group
// shuffles, kernels.cu's __shfl_down_sync tree; elsewhere the same tree through `partial` in
// local memory, a barrier per step (a platform's own sub-groups may be narrower than G, and
// emulated ones are themselves local memory and barriers: test_spmv on PoCL took 5.9 s with
// them against 5.4). Both add the same values in the same order.
// The row loop is uniform over the work-group, as barriers and the emulation require.
// G is a constant in each call (the kernel's switch), as kernels.cu's template parameter,
// so the batch's offsets and the tree are unrolled.
inline void vector_rows(int rows, __global const int *restrict row_ptr, __global const int *restrict col,
                        __global const float *restrict val, __global const float *restrict x,
                        __global float *restrict y, __local float *partial, const int G TB_SG_PARAM)
{
    const uint n = (uint)rows;
    const uint lid = (uint)get_local_id(0);
    const int lane = (int)(lid & (uint)(G - 1));
    const uint rows_per_group = (uint)get_local_size(0) / (uint)G;
    const uint step = (uint)get_num_groups(0) * rows_per_group;
    uint row = (uint)get_group_id(0) * rows_per_group + lid / (uint)G;
    int k = 0, end = 0;
    if (row < n) {
        k = row_ptr[row] + lane;
        end = row_ptr[row + 1];
    }
    for (uint base = (uint)get_group_id(0) * rows_per_group; base < n; base += step, row += step) {
        const uint next = row + step;
        int next_k = 0, next_end = 0;
        if (next < n) {
            next_k = row_ptr[next] + lane;
            next_end = row_ptr[next + 1];
        }
        float sum = 0.0f;
        int c[SPMV_VECTOR_BATCH];
        for (int j = 0; j < SPMV_VECTOR_BATCH; ++j)
            c[j] = k + j * G < end ? col[k + j * G] : 0;
        for (; k < end; k += G * SPMV_VECTOR_BATCH) {
            float v[SPMV_VECTOR_BATCH], xc[SPMV_VECTOR_BATCH];
            for (int j = 0; j < SPMV_VECTOR_BATCH; ++j) {
                const int e = k + j * G;
                v[j] = e < end ? val[e] : 0.0f;
                xc[j] = e < end ? x[c[j]] : 0.0f;
            }
            for (int j = 0; j < SPMV_VECTOR_BATCH; ++j) {
                const int e = k + G * SPMV_VECTOR_BATCH + j * G;
                c[j] = e < end ? col[e] : 0;
            }
            for (int j = 0; j < SPMV_VECTOR_BATCH; ++j)
                if (k + j * G < end)
                    sum += v[j] * xc[j];
        }
        // Lane i adds lane i + off: lane 0 of each row's lanes ends with the row's sum.
#if TB_SUB_GROUP_SIZE == 32 && !defined(TB_SUBGROUPS_EMULATED)
        for (int off = G >> 1; off > 0; off >>= 1)
            sum += sub_group_shuffle_down(sum, (uint)off);  // other lanes may mix rows: unused
        if (lane == 0 && row < n)
            y[row] = sum;
#else
        partial[lid] = sum;
        barrier(CLK_LOCAL_MEM_FENCE);
        // No element is both read and written in a step, and the barrier after the last step
        // orders these reads before the next row's writes.
        for (int off = G >> 1; off > 0; off >>= 1) {
            if (lane < off)
                partial[lid] += partial[lid + off];
            barrier(CLK_LOCAL_MEM_FENCE);
        }
        if (lane == 0 && row < n)
            y[row] = partial[lid];
#endif
        k = next_k;
        end = next_end;
    }
}

__kernel TB_LAUNCH_BOUNDS(SPMV_BLOCK, SPMV_VECTOR_MIN_GROUPS)
void spmv_vector(int rows, __global const int *restrict row_ptr, __global const int *restrict col,
                 __global const float *restrict val, __global const float *restrict x,
                 __global float *restrict y, int group, __local float *partial)
{
    TB_SUB_GROUP_SCRATCH(SPMV_BLOCK);
    switch (group) {
    case 2: vector_rows(rows, row_ptr, col, val, x, y, partial, 2 TB_SG_ARG); break;
    case 4: vector_rows(rows, row_ptr, col, val, x, y, partial, 4 TB_SG_ARG); break;
    case 8: vector_rows(rows, row_ptr, col, val, x, y, partial, 8 TB_SG_ARG); break;
    case 16: vector_rows(rows, row_ptr, col, val, x, y, partial, 16 TB_SG_ARG); break;
    default: vector_rows(rows, row_ptr, col, val, x, y, partial, 32 TB_SG_ARG); break;
    }
}

// ---- merge: merge-path SpMV (Merrill and Garland, SC16) --------------------------------
//
// The product is a walk along the merge of two sorted lists: the row ends row_ptr[1..rows]
// and the non-zero indices 0..nnz-1. At point (i, j) of the walk (i rows completed, j
// non-zeros consumed) the next step consumes non-zero j if it belongs to row i
// (j < row_ptr[i+1]), else completes row i. The walk has rows + nnz steps; cutting it into
// tiles of equal length gives every work-group the same work whatever the row lengths.
//
//  - spmv_merge_partition (once per matrix, outside timing): each tile's start row.
//  - spmv_merge: one work-group per tile. It stages the tile's row ends and products
//    val * x[col] in local memory (coalesced, all loads of a batch in flight), each
//    work-item walks SPMV_MERGE_ITEMS steps of it, a segmented scan hands each work-item
//    the partial sum of the row it starts in, and the completed rows go to y coalesced.
//    The row still in progress at the tile's end is the tile's carry (row, partial sum).
//  - spmv_merge_fixup: adds each run of carries with the same row to y (the tile that
//    completes a row has written its own part), in windows of SPMV_FIXUP_ITEMS carries
//    per work-item; the window a run ends in adds the run's part in earlier windows too.
// Every sum is taken in a fixed order: results are the same from run to run.

// Rows completed after `diagonal` steps of the walk: the number of row ends among the first
// `diagonal` items of the merge, row end r before non-zero index j when r <= j.
int merge_path_rows(uint diagonal, int rows, int nnz, __global const int *restrict row_end)
{
    int lo = (int)max((long)diagonal - (long)nnz, 0L);
    int hi = (int)min((long)diagonal, (long)rows);
    while (lo < hi) {
        const int mid = (int)(((uint)lo + (uint)hi) >> 1);
        if (row_end[mid] <= (int)(diagonal - (uint)mid - 1u))
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

// Row of every tile boundary t = 0..tiles (tile_row[tiles] == rows).
__kernel void spmv_merge_partition(int rows, int nnz, uint tile_items, uint tiles,
                                   __global const int *restrict row_ptr, __global int *restrict tile_row)
{
    const uint t = (uint)get_global_id(0);
    if (t > tiles)
        return;
    const ulong total = (ulong)(uint)rows + (ulong)(uint)nnz;
    const uint diagonal = (uint)min((ulong)t * tile_items, total);
    tile_row[t] = merge_path_rows(diagonal, rows, nnz, row_ptr + 1);
}

// Segmented inclusive scan over the work-group of (flag, value) in work-item order: a set
// flag starts a new segment (the value does not continue an earlier row). First level:
// SPMV_SCAN_WIDTH-wide slices, by sub-group shuffles where sub-groups are warps
// (cuda-prelude; the opencl backend on NVIDIA, docs/prelude.md), as kernels.cu's
// __shfl_up_sync, elsewhere by a Hillis-Steele tree in local memory (a barrier per step);
// second level: each work-item folds the totals of the slices before its own, in order.
// Both paths add the same values in the same order. Returns the inclusive value;
// *exclusive gets the one before this work-item (0 for the first). Called once per kernel,
// by every work-item: sv and sf are not reused after it.
float group_segmented_scan(float v, int f, __local float *sv, __local int *sf, float *exclusive)
{
    const int lid = (int)get_local_id(0);
    const int lane = lid & (SPMV_SCAN_WIDTH - 1);
    const int slice = lid / SPMV_SCAN_WIDTH;
#if TB_SUB_GROUP_SIZE == 32 && !defined(TB_SUBGROUPS_EMULATED) && SPMV_SCAN_WIDTH == 32
    for (int off = 1; off < SPMV_SCAN_WIDTH; off <<= 1) {
        const float pv = sub_group_shuffle_up(v, (uint)off);
        const int pf = sub_group_shuffle_up(f, (uint)off);
        if (lane >= off && !f) {
            v += pv;
            f = pf;
        }
    }
    // One total per slice, then the fold.
    if (lane == SPMV_SCAN_WIDTH - 1) {
        sv[slice] = v;
        sf[slice] = f;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    float prefix = 0.0f;
    for (int s = 0; s < slice; ++s)
        prefix = sf[s] ? sv[s] : prefix + sv[s];
    if (!f)
        v += prefix;
    const float up = sub_group_shuffle_up(v, 1u);
    *exclusive = lane > 0 ? up : prefix;
    return v;
#else
    sv[lid] = v;
    sf[lid] = f;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int off = 1; off < SPMV_SCAN_WIDTH; off <<= 1) {
        float pv = 0.0f;
        int pf = 1;
        if (lane >= off) {
            pv = sv[lid - off];
            pf = sf[lid - off];
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        if (lane >= off && !f) {
            v += pv;
            f = pf;
        }
        sv[lid] = v;
        sf[lid] = f;
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    // Totals of the earlier slices, folded in order.
    float prefix = 0.0f;
    for (int s = 0; s < slice; ++s) {
        const int last = s * SPMV_SCAN_WIDTH + SPMV_SCAN_WIDTH - 1;
        prefix = sf[last] ? sv[last] : prefix + sv[last];
    }
    float before = prefix;
    if (lane > 0)
        before = sf[lid - 1] ? sv[lid - 1] : sv[lid - 1] + prefix;
    if (!f)
        v += prefix;
    *exclusive = before;
    return v;
#endif
}

// NVIDIA's OpenCL passes a __local pointer as a 64-bit kernel parameter, and ptxas reads it
// again from the constant bank at each use in the merge walk: 6% more instructions in an
// issue-bound kernel (docs/programs/spmv.md, "Dialect differences"). The pointer plus a zero
// neither compiler can see through (get_num_groups(1) - 1: the launches are 1-D), added in
// inline PTX, lives in a register instead. Elsewhere (cuda-prelude, whose __local
// parameters are offsets; PoCL) the pointer is used as it is.
#if defined(__NV_CL_C_VERSION)
static inline ulong spmv_in_register(ulong address)
{
    ulong r;
    asm("add.u64 %0, %1, %2;" : "=l"(r) : "l"(address), "l"((ulong)(get_num_groups(1) - 1)));
    return r;
}
#define SPMV_LOCAL_IN_REGISTER(T, p) ((__local T *)spmv_in_register((ulong)(p)))
#else
#define SPMV_LOCAL_IN_REGISTER(T, p) (p)
#endif

// Work-group t walks tile t. Local memory: words holds the tile's row ends (as ints), then
// its products (as float bits), at most tile_items + 1 words; done the tile's completed
// rows (tile_items); sv and sf the scan (one per work-item).
__kernel void spmv_merge(int rows, int nnz, __global const int *restrict row_ptr, __global const int *restrict col,
                         __global const float *restrict val, __global const float *restrict x,
                         __global float *restrict y, __global const int *restrict tile_row,
                         __global int *restrict carry_row, __global float *restrict carry_val, __local uint *words,
                         __local float *done, __local float *sv, __local int *sf)
{
    words = SPMV_LOCAL_IN_REGISTER(uint, words);
    done = SPMV_LOCAL_IN_REGISTER(float, done);
    sv = SPMV_LOCAL_IN_REGISTER(float, sv);
    sf = SPMV_LOCAL_IN_REGISTER(int, sf);
    const int lid = (int)get_local_id(0);
    const int block = (int)get_local_size(0);
    const uint t = (uint)get_group_id(0);
    const uint tile_items = (uint)block * SPMV_MERGE_ITEMS;
    const ulong total = (ulong)(uint)rows + (ulong)(uint)nnz;
    const uint d0 = (uint)min((ulong)t * tile_items, total);
    const uint d1 = (uint)min((ulong)t * tile_items + tile_items, total);
    const int i0 = tile_row[t], i1 = tile_row[t + 1];
    const int j0 = (int)(d0 - (uint)i0), j1 = (int)(d1 - (uint)i1);
    const int tile_rows = i1 - i0, tile_nnz = j1 - j0;
    const int steps = tile_rows + tile_nnz;
    // Row ends of rows i0..i1 (i1 only if it exists), then the products.
    const int ends = min(i1 + 1, rows) - i0;
    {
        int c[SPMV_MERGE_ITEMS];
        float v[SPMV_MERGE_ITEMS];
        // The matrix is read once: streaming loads keep x, gathered at random, in L2
        // (tb_load_streaming: the backends' load hints, docs/prelude.md).
        for (int b = 0; b < SPMV_MERGE_ITEMS; ++b) {
            const int k = lid + b * block;
            c[b] = k < tile_nnz ? tb_load_streaming(col + j0 + k) : 0;
            v[b] = k < tile_nnz ? tb_load_streaming(val + j0 + k) : 0.0f;
        }
        for (int b = 0; b <= SPMV_MERGE_ITEMS; ++b) {
            const int k = lid + b * block;
            if (k < ends)
                words[k] = (uint)tb_load_streaming(row_ptr + i0 + 1 + k);
        }
        for (int b = 0; b < SPMV_MERGE_ITEMS; ++b) {
            const int k = lid + b * block;
            if (k < tile_nnz)
                words[ends + k] = as_uint(v[b] * x[c[b]]);
        }
    }
    barrier(CLK_LOCAL_MEM_FENCE);

    // This work-item's start point within the tile (merge path search in local memory).
    const int diagonal = min(lid * SPMV_MERGE_ITEMS, steps);
    int lo = max(diagonal - tile_nnz, 0), hi = min(diagonal, tile_rows);
    while (lo < hi) {
        const int mid = (lo + hi) >> 1;
        if ((int)words[mid] <= j0 + diagonal - mid - 1)
            lo = mid + 1;
        else
            hi = mid;
    }
    int r = lo, k = diagonal - lo;
    const int start_row = r;
    float sum = 0.0f;
    int completed = 0;
    const int moves = steps - diagonal;  // this work-item takes min(moves, SPMV_MERGE_ITEMS)
    for (int m = 0; m < SPMV_MERGE_ITEMS; ++m) {
        if (m < moves) {
            if (j0 + k < (int)words[r]) {
                sum += as_float(words[ends + k]);
                ++k;
            } else {
                done[r] = sum;
                sum = 0.0f;
                completed = 1;
                ++r;
            }
        }
    }

    // The partial sum that flows into this work-item's start row from the work-items
    // before it; the last work-item's inclusive value is the tile's carry.
    float before;
    const float through = group_segmented_scan(sum, completed, sv, sf, &before);
    if (completed)
        done[start_row] += before;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int q = lid; q < tile_rows; q += block)
        y[i0 + q] = done[q];
    if (lid == block - 1) {
        carry_row[t] = i1;
        carry_val[t] = through;
    }
}

// The part in earlier windows of the run that window [w0, w1) starts with: the run of
// r0 (= carry_row[w0]) when it began before w0 and ends inside this window (its ending
// window adds it whole; the windows it only crosses add nothing). Its first carry s is found
// by binary search (carry rows never decrease); the work-group sums [s, w0) in a fixed
// order: work-item l the carries s + l, s + l + B, ..., then a tree in local memory (B, the
// work-group size, is a power of two). 0 otherwise. Every work-item reaches every barrier
// (no early return: PoCL miscompiles one before a barrier, see nbody's kernels.cl).
float fixup_earlier_part(int rows, int count, int w0, int w1, int r0, __global const int *restrict carry_row,
                         __global const float *restrict carry_val, __local float *sv)
{
    const int wanted = w0 > 0 && r0 < rows && carry_row[w0 - 1] == r0 && !(w1 < count && carry_row[w1] == r0);
    int lo = w0, hi = w0 - 1;  // [s, w0): empty unless wanted
    if (wanted) {
        lo = 0;
        while (lo < hi) {  // the first index of row r0
            const int mid = (int)(((uint)lo + (uint)hi) >> 1);
            if (carry_row[mid] < r0)
                lo = mid + 1;
            else
                hi = mid;
        }
    }
    const int lid = (int)get_local_id(0);
    const int size = (int)get_local_size(0);
    float part = 0.0f;
    for (int k = lo + lid; k < w0; k += size)
        part += carry_val[k];
    sv[lid] = part;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int off = size >> 1; off > 0; off >>= 1) {
        if (lid < off)
            sv[lid] += sv[lid + off];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    const float total = sv[0];
    barrier(CLK_LOCAL_MEM_FENCE);  // everyone has read sv[0] before the scan writes sv
    return total;
}

// Adds each run of carries with the same row to y, once, in one launch. Work-group w takes
// the window of get_local_size * SPMV_FIXUP_ITEMS carries from w * that, work-item l a
// contiguous chunk of SPMV_FIXUP_ITEMS of it. Runs that end inside the chunk it adds
// itself; a run that crosses chunks is summed by the segmented scan and added by the chunk
// it ends in; a run that leaves the window is left to the window it ends in, which adds the
// earlier windows' part of it too (fixup_earlier_part). Carries of the same row are
// adjacent (rows grow with the tile index).
__kernel void spmv_merge_fixup(int rows, int count, __global const int *restrict carry_row,
                               __global const float *restrict carry_val, __global float *restrict y,
                               __local float *sv, __local int *sf)
{
    const int lid = (int)get_local_id(0);
    const int window = (int)get_local_size(0) * SPMV_FIXUP_ITEMS;
    const int w0 = (int)get_group_id(0) * window;
    const int w1 = min(w0 + window, count);
    const int r0 = carry_row[w0];
    const float earlier = fixup_earlier_part(rows, count, w0, w1, r0, carry_row, carry_val, sv);
    const int c0 = min(w0 + lid * SPMV_FIXUP_ITEMS, w1), c1 = min(c0 + SPMV_FIXUP_ITEMS, w1);
    int row[SPMV_FIXUP_ITEMS];
    float value[SPMV_FIXUP_ITEMS];
    for (int m = 0; m < SPMV_FIXUP_ITEMS; ++m) {
        row[m] = c0 + m < c1 ? carry_row[c0 + m] : rows;
        value[m] = c0 + m < c1 ? carry_val[c0 + m] : 0.0f;
    }
    const int continues = c0 > w0 && c0 < c1 && carry_row[c0 - 1] == row[0];
    int cur = row[0], first_row = row[0], split = 0;
    float sum = 0.0f, first_sum = 0.0f;
    for (int m = 0; m < SPMV_FIXUP_ITEMS; ++m) {
        if (c0 + m < c1) {
            if (row[m] != cur) {  // the run of `cur` ends inside this chunk
                if (!split)
                    first_sum = sum;
                else if (cur < rows)
                    y[cur] += sum;
                split = 1;
                sum = 0.0f;
                cur = row[m];
            }
            sum += value[m];
        }
    }
    float before;
    const float through = group_segmented_scan(sum, split || !continues, sv, sf, &before);
    const int leaves = c1 == w1 && w1 < count && carry_row[w1] == cur;
    if (c0 < c1) {
        // Only the window's first run (row r0) has an earlier part.
        if (split && first_row < rows)
            y[first_row] += (first_row == r0 ? earlier : 0.0f) + (continues ? before : 0.0f) + first_sum;
        const int ends_here = c1 == w1 ? !leaves : carry_row[c1] != cur;
        if (ends_here && cur < rows)
            y[cur] += (cur == r0 ? earlier : 0.0f) + through;
    }
}
