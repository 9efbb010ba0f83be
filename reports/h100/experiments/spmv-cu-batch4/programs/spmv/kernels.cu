// EXPERIMENT spmv-cu-batch4 (reports/h100/REPORT.md): programs/spmv/kernels.cu with ONE change:
// kScalarBatch = 4 (kernels.cl's SPMV_BATCH) instead of 8.
// CSR sparse matrix times dense vector, y = A x, single precision, as a CUDA programmer
// writes it for Hopper. SpMV is bound by memory latency times the bytes each thread has in
// flight, so:
//  - each thread's non-zeros are loaded in batches whose loads are all in flight at once
//    (the bounds test is on each element, not the loop);
//  - the grid is capped (the host launches about four waves) and threads stride over the
//    rows, loading the next row's offsets while the current row's non-zeros are in flight,
//    which takes the row_ptr round trip off each row's chain of dependent loads;
//  - read-only loads go through the non-coherent path (__ldg), so the gathered x stays in
//    L1/L2; sub-warp row sums use shuffles.
namespace {

constexpr int kBlock = 256;        // the block size the host launches (launch bounds)
constexpr int kScalarBatch = 4;    // non-zeros in flight per thread, one row per thread
constexpr int kVectorBatch = 4;    // non-zeros in flight per lane, G lanes per row

}  // namespace

// scalar: one thread per row. Short even rows: each thread's batch is one round trip and
// L1 serves the neighbouring rows' lines; long rows serialise on one thread.
extern "C" __global__ void __launch_bounds__(kBlock, 2048 / kBlock)
spmv_scalar(int rows, const int* __restrict__ row_ptr, const int* __restrict__ col,
            const float* __restrict__ val, const float* __restrict__ x, float* __restrict__ y)
{
    const unsigned n = static_cast<unsigned>(rows);
    const unsigned stride = gridDim.x * blockDim.x;
    unsigned row = blockIdx.x * blockDim.x + threadIdx.x;
    int begin = 0, end = 0;
    if (row < n) {
        begin = __ldg(row_ptr + row);
        end = __ldg(row_ptr + row + 1);
    }
    for (; row < n; row += stride) {
        const unsigned next = row + stride;
        int next_begin = 0, next_end = 0;
        if (next < n) {
            next_begin = __ldg(row_ptr + next);
            next_end = __ldg(row_ptr + next + 1);
        }
        float sum = 0.0f;
        for (int k = begin; k < end; k += kScalarBatch) {
            int c[kScalarBatch];
            float v[kScalarBatch];
            #pragma unroll
            for (int j = 0; j < kScalarBatch; ++j) {
                c[j] = k + j < end ? __ldg(col + k + j) : 0;
                v[j] = k + j < end ? __ldg(val + k + j) : 0.0f;
            }
            #pragma unroll
            for (int j = 0; j < kScalarBatch; ++j)
                if (k + j < end) sum += v[j] * __ldg(x + c[j]);
        }
        y[row] = sum;
        begin = next_begin;
        end = next_end;
    }
}

// G lanes of one warp per row (G a power of two <= 32): the lanes read the row side by
// side, so a warp's loads cover its 32/G consecutive rows contiguously, then a shuffle tree
// of log2(G) steps sums the lanes. The loop is warp-uniform (a warp's rows are consecutive
// and advance together), so every lane reaches every full-mask shuffle; lanes past the last
// row take part with an empty row.
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
        k = __ldg(row_ptr + row) + lane;
        end = __ldg(row_ptr + row + 1);
    }
    for (unsigned base = warp * kRowsPerWarp; base < n; base += step, row += step) {
        const unsigned next = row + step;
        int next_k = 0, next_end = 0;
        if (next < n) {
            next_k = __ldg(row_ptr + next) + lane;
            next_end = __ldg(row_ptr + next + 1);
        }
        float sum = 0.0f;
        for (; k < end; k += G * kVectorBatch) {
            int c[kVectorBatch];
            float v[kVectorBatch];
            #pragma unroll
            for (int j = 0; j < kVectorBatch; ++j) {
                const int e = k + j * G;
                c[j] = e < end ? __ldg(col + e) : 0;
                v[j] = e < end ? __ldg(val + e) : 0.0f;
            }
            #pragma unroll
            for (int j = 0; j < kVectorBatch; ++j)
                if (k + j * G < end) sum += v[j] * __ldg(x + c[j]);
        }
        #pragma unroll
        for (int off = G / 2; off > 0; off /= 2) sum += __shfl_down_sync(0xffffffffu, sum, off, G);
        if (lane == 0 && row < n) y[row] = sum;
        k = next_k;
        end = next_end;
    }
}

// vector: the host picks G from the mean row length (the largest power of two <= half of
// it, clamped to [2, 32]) so each lane holds about 2-4 non-zeros: one batch per row.
extern "C" __global__ void __launch_bounds__(kBlock, 2048 / kBlock)
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
