// CSR sparse matrix times dense vector, y = A x, single precision: kernels.cl's three
// algorithms as a CUDA programmer writes them for Hopper (docs/programs/spmv.md). The
// decomposition, launch geometry, batches and tuning constants are kernels.cl's; what
// differs is what CUDA offers and OpenCL C 1.2 lacks:
//  - nothing for read-only loads: plain p[i] through const __restrict__ pointers, as
//    kernels.cl (NVRTC emits ld.global.nc with the offset folded into the address; __ldg(p + i)
//    kept a 64-bit add per load: up to 25% slower on long rows, and 3% on merge once its
//    shared-memory base stopped costing instructions, docs/programs/spmv.md); the merge
//    kernel streams the matrix with __ldcs, which kernels.cl gets as tb_load_streaming;
//  - warp shuffles for the vector kernel's row sums and the first level of the merge scan;
//  - launch bounds (kernels.cl's TB_LAUNCH_BOUNDS gives cuda-prelude the vector kernel's;
//    the merge kernels' measured best differs between the dialects, docs/programs/spmv.md),
//    and the vector kernel's group size as a template parameter (kernels.cl: a constant
//    argument of an inline function behind the same switch).
// The tuning constants come from the host (programs/spmv/tuning.hpp).
#ifndef SPMV_BLOCK
#error "SPMV_BLOCK must come from the host (programs/spmv/tuning.hpp)"
#endif
#ifndef SPMV_VECTOR_MIN_GROUPS
#error "SPMV_VECTOR_MIN_GROUPS must come from the host (programs/spmv/tuning.hpp)"
#endif
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
#if SPMV_SCAN_WIDTH != 32
#error "kernels.cu scans a warp at a time: SPMV_SCAN_WIDTH must be 32"
#endif

namespace {

constexpr unsigned kFullMask = 0xffffffffu;

// Offset of the LocalMem block that follows one of `bytes`: the CUDA backend starts each
// block at a multiple of 16 bytes of the dynamic shared memory (docs/cuda-backends.md).
__device__ __forceinline__ unsigned next_block(unsigned bytes) { return (bytes + 15u) & ~15u; }

}  // namespace

// scalar: one thread per row. Short even rows: each thread's batch is one round trip and
// L1 serves the neighbouring rows' lines; long rows serialise on one thread. The threads
// stride over the rows and load the next row's offsets while this row's are in flight, and
// a batch's column indices one batch ahead, during the previous batch's gathers (kernels.cl).
// No launch bounds, as kernels.cl has none: with them (or with kernels.cl's first row taken
// from its 64-bit get_global_id) ptxas schedules the same loop differently and the two
// dialects ran up to 25% apart; as written both compile to the same SASS
// (docs/programs/spmv.md, "Dialect differences"). No minimum of blocks per SM either: capped
// at 32 registers this kernel kept so many gathers in flight that L1/L2 evicted lines
// before neighbouring rows used them (fem-l read 1.5x the DRAM bytes; experiment
// spmv-cu-regcap, reports/h100/REPORT.md).
extern "C" __global__ void
spmv_scalar(int rows, const int* __restrict__ row_ptr, const int* __restrict__ col,
            const float* __restrict__ val, const float* __restrict__ x, float* __restrict__ y)
{
    const unsigned n = static_cast<unsigned>(rows);
    const unsigned stride = gridDim.x * blockDim.x;
    unsigned row = blockIdx.x * blockDim.x + threadIdx.x;
    int begin = 0, end = 0;
    if (row < n) {
        begin = row_ptr[row];
        end = row_ptr[row + 1];
    }
    for (; row < n; row += stride) {
        const unsigned next = row + stride;
        int next_begin = 0, next_end = 0;
        if (next < n) {
            next_begin = row_ptr[next];
            next_end = row_ptr[next + 1];
        }
        float sum = 0.0f;
        int c[SPMV_SCALAR_BATCH];
        #pragma unroll
        for (int j = 0; j < SPMV_SCALAR_BATCH; ++j) c[j] = begin + j < end ? col[begin + j] : 0;
        for (int k = begin; k < end; k += SPMV_SCALAR_BATCH) {
            float v[SPMV_SCALAR_BATCH], xc[SPMV_SCALAR_BATCH];
            #pragma unroll
            for (int j = 0; j < SPMV_SCALAR_BATCH; ++j) {
                v[j] = k + j < end ? val[k + j] : 0.0f;
                xc[j] = k + j < end ? x[c[j]] : 0.0f;
            }
            #pragma unroll
            for (int j = 0; j < SPMV_SCALAR_BATCH; ++j) {
                const int e = k + SPMV_SCALAR_BATCH + j;
                c[j] = e < end ? col[e] : 0;
            }
            #pragma unroll
            for (int j = 0; j < SPMV_SCALAR_BATCH; ++j)
                if (k + j < end) sum += v[j] * xc[j];
        }
        y[row] = sum;
        begin = next_begin;
        end = next_end;
    }
}

// G lanes of one warp per row (G a power of two <= 32): the lanes read the row side by
// side, so a warp's loads cover its 32/G consecutive rows contiguously (column indices one
// batch ahead, as in scalar), then a shuffle tree
// of log2(G) steps sums the lanes (kernels.cl: the same tree through local memory). The
// loop is warp-uniform (a warp's rows are consecutive and advance together), so every lane
// reaches every full-mask shuffle; lanes past the last row take part with an empty row.
template <int G>
__device__ __forceinline__ void vector_rows(int rows, const int* __restrict__ row_ptr, const int* __restrict__ col,
                                            const float* __restrict__ val, const float* __restrict__ x,
                                            float* __restrict__ y)
{
    constexpr unsigned kRowsPerWarp = 32 / G;
    const unsigned n = static_cast<unsigned>(rows);
    const unsigned warp = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
    const unsigned step = gridDim.x * blockDim.x / 32 * kRowsPerWarp;  // rows per pass of the grid
    const int lane = static_cast<int>(threadIdx.x & (G - 1));
    unsigned row = warp * kRowsPerWarp + (threadIdx.x & 31) / G;
    int k = 0, end = 0;
    if (row < n) {
        k = row_ptr[row] + lane;
        end = row_ptr[row + 1];
    }
    for (unsigned base = warp * kRowsPerWarp; base < n; base += step, row += step) {
        const unsigned next = row + step;
        int next_k = 0, next_end = 0;
        if (next < n) {
            next_k = row_ptr[next] + lane;
            next_end = row_ptr[next + 1];
        }
        float sum = 0.0f;
        int c[SPMV_VECTOR_BATCH];
        #pragma unroll
        for (int j = 0; j < SPMV_VECTOR_BATCH; ++j) c[j] = k + j * G < end ? col[k + j * G] : 0;
        for (; k < end; k += G * SPMV_VECTOR_BATCH) {
            float v[SPMV_VECTOR_BATCH], xc[SPMV_VECTOR_BATCH];
            #pragma unroll
            for (int j = 0; j < SPMV_VECTOR_BATCH; ++j) {
                const int e = k + j * G;
                v[j] = e < end ? val[e] : 0.0f;
                xc[j] = e < end ? x[c[j]] : 0.0f;
            }
            #pragma unroll
            for (int j = 0; j < SPMV_VECTOR_BATCH; ++j) {
                const int e = k + G * SPMV_VECTOR_BATCH + j * G;
                c[j] = e < end ? col[e] : 0;
            }
            #pragma unroll
            for (int j = 0; j < SPMV_VECTOR_BATCH; ++j)
                if (k + j * G < end) sum += v[j] * xc[j];
        }
        #pragma unroll
        for (int off = G / 2; off > 0; off /= 2) sum += __shfl_down_sync(kFullMask, sum, off, G);
        if (lane == 0 && row < n) y[row] = sum;
        k = next_k;
        end = next_end;
    }
}

// vector: the host picks G from the mean row length (the largest power of two <= half of
// it, clamped to [2, 32]) so each lane holds about 2-4 non-zeros: one batch per row. The
// host's LocalMem (kernels.cl's reduction scratch) is not used here.
extern "C" __global__ void __launch_bounds__(SPMV_BLOCK, SPMV_VECTOR_MIN_GROUPS)
spmv_vector(int rows, const int* __restrict__ row_ptr, const int* __restrict__ col,
            const float* __restrict__ val, const float* __restrict__ x, float* __restrict__ y, int group)
{
    switch (group) {
    case 2: vector_rows<2>(rows, row_ptr, col, val, x, y); break;
    case 4: vector_rows<4>(rows, row_ptr, col, val, x, y); break;
    case 8: vector_rows<8>(rows, row_ptr, col, val, x, y); break;
    case 16: vector_rows<16>(rows, row_ptr, col, val, x, y); break;
    default: vector_rows<32>(rows, row_ptr, col, val, x, y); break;
    }
}

// ---- merge: merge-path SpMV (Merrill and Garland, SC16); kernels.cl explains the walk ----

// Rows completed after `diagonal` steps of the walk: the number of row ends among the first
// `diagonal` items of the merge, row end r before non-zero index j when r <= j.
__device__ __forceinline__ int merge_path_rows(unsigned diagonal, int rows, int nnz, const int* __restrict__ row_end)
{
    int lo = static_cast<int>(max(static_cast<long long>(diagonal) - nnz, 0LL));
    int hi = static_cast<int>(min(static_cast<long long>(diagonal), static_cast<long long>(rows)));
    while (lo < hi) {
        const int mid = static_cast<int>((static_cast<unsigned>(lo) + static_cast<unsigned>(hi)) >> 1);
        if (row_end[mid] <= static_cast<int>(diagonal - static_cast<unsigned>(mid) - 1u))
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

// Row of every tile boundary t = 0..tiles (tile_row[tiles] == rows).
extern "C" __global__ void __launch_bounds__(SPMV_BLOCK)
spmv_merge_partition(int rows, int nnz, unsigned tile_items, unsigned tiles, const int* __restrict__ row_ptr,
                     int* __restrict__ tile_row)
{
    const unsigned t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t > tiles) return;
    const unsigned long long total = static_cast<unsigned long long>(static_cast<unsigned>(rows)) +
                                     static_cast<unsigned>(nnz);
    const unsigned diagonal = static_cast<unsigned>(min(static_cast<unsigned long long>(t) * tile_items, total));
    tile_row[t] = merge_path_rows(diagonal, rows, nnz, row_ptr + 1);
}

// Segmented inclusive scan over the block of (flag, value) in thread order, as kernels.cl's
// group_segmented_scan: the same additions in the same order, the 32-wide first level by
// warp shuffles instead of a local-memory tree. sv/sf hold one total per warp. Called once
// per kernel.
__device__ __forceinline__ float block_segmented_scan(float v, int f, float* sv, int* sf, float& exclusive)
{
    const int lid = static_cast<int>(threadIdx.x);
    const int lane = lid & 31;
    const int warp = lid >> 5;
    #pragma unroll
    for (int off = 1; off < 32; off <<= 1) {
        const float pv = __shfl_up_sync(kFullMask, v, off);
        const int pf = __shfl_up_sync(kFullMask, f, off);
        if (lane >= off && !f) {
            v += pv;
            f = pf;
        }
    }
    if (lane == 31) {
        sv[warp] = v;
        sf[warp] = f;
    }
    __syncthreads();
    float prefix = 0.0f;
    for (int s = 0; s < warp; ++s) prefix = sf[s] ? sv[s] : prefix + sv[s];
    if (!f) v += prefix;
    const float up = __shfl_up_sync(kFullMask, v, 1);
    exclusive = lane > 0 ? up : prefix;
    return v;
}

// Block t walks tile t. The dynamic shared memory holds kernels.cl's four LocalMem blocks:
// the scan's values and flags (blockDim.x each, of which one per warp is used), words (the
// tile's row ends, then its products as float bits; tile_items + 1) and done (the tile's
// completed rows; tile_items). The host sizes them in kernels.cl's order (words, done, sv,
// sf); blockDim.x is a multiple of 32, so the sum is the same in this order. Why this
// order: words and done, stored in the unrolled loops, must not sit at a constant offset.
// cuda-prelude reaches each block through tb_local_mem + a parameter; at offset 0 NVVM
// re-materialised the address of smem at every store, which on sm_90 costs ptxas an S2R
// SR_CgaCtaId, a MOV and a LEA each (17 such S2R in spmv_merge, 71.3 M warp instructions
// against 64.4 M now, on fem-l; docs/programs/spmv.md).
extern "C" __global__ void __launch_bounds__(SPMV_BLOCK)
spmv_merge(int rows, int nnz, const int* __restrict__ row_ptr, const int* __restrict__ col,
           const float* __restrict__ val, const float* __restrict__ x, float* __restrict__ y,
           const int* __restrict__ tile_row, int* __restrict__ carry_row, float* __restrict__ carry_val)
{
    extern __shared__ __align__(16) unsigned char smem[];
    const int lid = static_cast<int>(threadIdx.x);
    const int block = static_cast<int>(blockDim.x);
    const unsigned t = blockIdx.x;
    const unsigned tile_items = static_cast<unsigned>(block) * SPMV_MERGE_ITEMS;
    float* sv = reinterpret_cast<float*>(smem);
    const unsigned sf_at = next_block(static_cast<unsigned>(block) * 4);
    int* sf = reinterpret_cast<int*>(smem + sf_at);
    const unsigned words_at = 2 * sf_at;
    unsigned* words = reinterpret_cast<unsigned*>(smem + words_at);
    float* done = reinterpret_cast<float*>(smem + words_at + next_block((tile_items + 1) * 4));

    const unsigned long long total = static_cast<unsigned long long>(static_cast<unsigned>(rows)) +
                                     static_cast<unsigned>(nnz);
    const unsigned long long d = static_cast<unsigned long long>(t) * tile_items;
    const unsigned d0 = static_cast<unsigned>(min(d, total));
    const unsigned d1 = static_cast<unsigned>(min(d + tile_items, total));
    const int i0 = tile_row[t], i1 = tile_row[t + 1];
    const int j0 = static_cast<int>(d0 - static_cast<unsigned>(i0));
    const int j1 = static_cast<int>(d1 - static_cast<unsigned>(i1));
    const int tile_rows = i1 - i0, tile_nnz = j1 - j0;
    const int steps = tile_rows + tile_nnz;
    // Row ends of rows i0..i1 (i1 only if it exists), then the products.
    const int ends = min(i1 + 1, rows) - i0;
    {
        int c[SPMV_MERGE_ITEMS];
        float v[SPMV_MERGE_ITEMS];
        // The matrix is read once: streaming loads (ld.global.cs) keep x, gathered at
        // random, in L2 (emptyrows-l 0.343 -> 0.306 ms, docs/programs/spmv.md).
        #pragma unroll
        for (int b = 0; b < SPMV_MERGE_ITEMS; ++b) {
            const int k = lid + b * block;
            c[b] = k < tile_nnz ? __ldcs(col + j0 + k) : 0;
            v[b] = k < tile_nnz ? __ldcs(val + j0 + k) : 0.0f;
        }
        #pragma unroll
        for (int b = 0; b <= SPMV_MERGE_ITEMS; ++b) {
            const int k = lid + b * block;
            if (k < ends) words[k] = static_cast<unsigned>(__ldcs(row_ptr + i0 + 1 + k));
        }
        #pragma unroll
        for (int b = 0; b < SPMV_MERGE_ITEMS; ++b) {
            const int k = lid + b * block;
            if (k < tile_nnz) words[ends + k] = __float_as_uint(v[b] * x[c[b]]);
        }
    }
    __syncthreads();

    // This thread's start point within the tile (merge path search in shared memory).
    const int diagonal = min(lid * SPMV_MERGE_ITEMS, steps);
    int lo = max(diagonal - tile_nnz, 0), hi = min(diagonal, tile_rows);
    while (lo < hi) {
        const int mid = (lo + hi) >> 1;
        if (static_cast<int>(words[mid]) <= j0 + diagonal - mid - 1)
            lo = mid + 1;
        else
            hi = mid;
    }
    int r = lo, k = diagonal - lo;
    const int start_row = r;
    float sum = 0.0f;
    int completed = 0;
    const int moves = steps - diagonal;  // this thread takes min(moves, SPMV_MERGE_ITEMS)
    #pragma unroll
    for (int m = 0; m < SPMV_MERGE_ITEMS; ++m) {
        if (m < moves) {
            if (j0 + k < static_cast<int>(words[r])) {
                sum += __uint_as_float(words[ends + k]);
                ++k;
            } else {
                done[r] = sum;
                sum = 0.0f;
                completed = 1;
                ++r;
            }
        }
    }

    float before;
    const float through = block_segmented_scan(sum, completed, sv, sf, before);
    if (completed) done[start_row] += before;
    __syncthreads();
    for (int q = lid; q < tile_rows; q += block) y[i0 + q] = done[q];
    if (lid == block - 1) {
        carry_row[t] = i1;
        carry_val[t] = through;
    }
}

// kernels.cl's fixup_earlier_part: the earlier windows' part of the run the window starts
// with, when that run ends inside the window; the same search, the same additions in the
// same order (a strided sum per thread, then a tree in shared memory).
__device__ __forceinline__ float fixup_earlier_part(int rows, int count, int w0, int w1, int r0,
                                                    const int* __restrict__ carry_row,
                                                    const float* __restrict__ carry_val, float* sv)
{
    const bool wanted = w0 > 0 && r0 < rows && carry_row[w0 - 1] == r0 &&
                        !(w1 < count && carry_row[w1] == r0);
    int lo = w0, hi = w0 - 1;
    if (wanted) {
        lo = 0;
        while (lo < hi) {
            const int mid = static_cast<int>((static_cast<unsigned>(lo) + static_cast<unsigned>(hi)) >> 1);
            if (carry_row[mid] < r0) lo = mid + 1;
            else hi = mid;
        }
    }
    const int lid = static_cast<int>(threadIdx.x);
    const int size = static_cast<int>(blockDim.x);
    float part = 0.0f;
    for (int k = lo + lid; k < w0; k += size) part += carry_val[k];
    sv[lid] = part;
    __syncthreads();
    for (int off = size >> 1; off > 0; off >>= 1) {
        if (lid < off) sv[lid] += sv[lid + off];
        __syncthreads();
    }
    const float total = sv[0];
    __syncthreads();
    return total;
}

// Adds each run of carries with the same row to y once, as kernels.cl's spmv_merge_fixup
// (windows of blockDim.x * SPMV_FIXUP_ITEMS carries; the window a run ends in adds its
// earlier windows' part). Dynamic shared memory: the scan's values and flags (blockDim.x each).
extern "C" __global__ void __launch_bounds__(SPMV_BLOCK)
spmv_merge_fixup(int rows, int count, const int* __restrict__ carry_row, const float* __restrict__ carry_val,
                 float* __restrict__ y)
{
    extern __shared__ __align__(16) unsigned char smem[];
    float* sv = reinterpret_cast<float*>(smem);
    int* sf = reinterpret_cast<int*>(smem + next_block(blockDim.x * 4));
    const int lid = static_cast<int>(threadIdx.x);
    const int window = static_cast<int>(blockDim.x) * SPMV_FIXUP_ITEMS;
    const int w0 = static_cast<int>(blockIdx.x) * window;
    const int w1 = min(w0 + window, count);
    const int r0 = carry_row[w0];
    const float earlier = fixup_earlier_part(rows, count, w0, w1, r0, carry_row, carry_val, sv);
    const int c0 = min(w0 + lid * SPMV_FIXUP_ITEMS, w1), c1 = min(c0 + SPMV_FIXUP_ITEMS, w1);
    int row[SPMV_FIXUP_ITEMS];
    float value[SPMV_FIXUP_ITEMS];
    #pragma unroll
    for (int m = 0; m < SPMV_FIXUP_ITEMS; ++m) {
        row[m] = c0 + m < c1 ? carry_row[c0 + m] : rows;
        value[m] = c0 + m < c1 ? carry_val[c0 + m] : 0.0f;
    }
    const bool continues = c0 > w0 && c0 < c1 && carry_row[c0 - 1] == row[0];
    int cur = row[0], first_row = row[0], split = 0;
    float sum = 0.0f, first_sum = 0.0f;
    #pragma unroll
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
    const float through = block_segmented_scan(sum, split || !continues, sv, sf, before);
    const bool leaves = c1 == w1 && w1 < count && carry_row[w1] == cur;
    if (c0 < c1) {
        // Only the window's first run (row r0) has an earlier part.
        if (split && first_row < rows)
            y[first_row] += (first_row == r0 ? earlier : 0.0f) + (continues ? before : 0.0f) + first_sum;
        const bool ends_here = c1 == w1 ? !leaves : carry_row[c1] != cur;
        if (ends_here && cur < rows) y[cur] += (cur == r0 ? earlier : 0.0f) + through;
    }
}
