// EXPERIMENT spmv-cu-vector-tree (reports/h100/REPORT.md): programs/spmv/kernels.cu with ONE change:
// spmv_vector is kernels.cl's algorithm (block-uniform row loop, shared-memory reduction tree
// with a barrier per step, run-time group) instead of the warp-uniform loop with a shuffle tree.
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
constexpr int kScalarBatch = 8;    // non-zeros in flight per thread, one row per thread
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

// EXPERIMENT: kernels.cl's vector kernel written in CUDA (same row mapping: the group's rows
// are consecutive, `group` lanes per row, batch 4). What changes against kernels.cu: the row
// loop is uniform over the block and the lanes' partial sums meet through shared memory in a
// tree with a __syncthreads() per step, instead of a warp-uniform loop and a shuffle tree; and
// `group` is a run-time value. __ldg stays.
extern "C" __global__ void __launch_bounds__(kBlock, 2048 / kBlock)
spmv_vector(int rows, const int* __restrict__ row_ptr, const int* __restrict__ col,
            const float* __restrict__ val, const float* __restrict__ x, float* __restrict__ y, int group)
{
    extern __shared__ float partial[];  // blockDim.x floats (the host's LocalMem)
    const unsigned n = static_cast<unsigned>(rows);
    const int lid = static_cast<int>(threadIdx.x);
    const int lane = lid & (group - 1);
    const unsigned rows_per_group = blockDim.x / static_cast<unsigned>(group);
    const unsigned step = gridDim.x * rows_per_group;
    unsigned row = blockIdx.x * rows_per_group + static_cast<unsigned>(lid / group);
    int k = 0, end = 0;
    if (row < n) {
        k = __ldg(row_ptr + row) + lane;
        end = __ldg(row_ptr + row + 1);
    }
    for (unsigned base = blockIdx.x * rows_per_group; base < n; base += step, row += step) {
        const unsigned next = row + step;
        int next_k = 0, next_end = 0;
        if (next < n) {
            next_k = __ldg(row_ptr + next) + lane;
            next_end = __ldg(row_ptr + next + 1);
        }
        float sum = 0.0f;
        for (; k < end; k += group * kVectorBatch) {
            int c[kVectorBatch];
            float v[kVectorBatch];
            #pragma unroll
            for (int j = 0; j < kVectorBatch; ++j) {
                const int e = k + j * group;
                c[j] = e < end ? __ldg(col + e) : 0;
                v[j] = e < end ? __ldg(val + e) : 0.0f;
            }
            #pragma unroll
            for (int j = 0; j < kVectorBatch; ++j)
                if (k + j * group < end) sum += v[j] * __ldg(x + c[j]);
        }
        partial[lid] = sum;
        __syncthreads();
        for (int off = group >> 1; off > 0; off >>= 1) {
            if (lane < off) partial[lid] += partial[lid + off];
            __syncthreads();
        }
        if (lane == 0 && row < n) y[row] = partial[lid];
        k = next_k;
        end = next_end;
    }
}
