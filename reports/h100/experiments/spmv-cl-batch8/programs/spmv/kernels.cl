// EXPERIMENT spmv-cl-batch8 (reports/h100/REPORT.md): programs/spmv/kernels.cl with ONE change:
// SPMV_BATCH 8 (kernels.cu's kScalarBatch) instead of 4: a work-item keeps 8 non-zeros in flight.
// Only the scalar kernel is compared (kernels.cu's vector kernel keeps a batch of 4).
// CSR sparse matrix times dense vector, y = A x, single precision.
//
// SpMV is bound by memory latency times the bytes in flight, so both kernels
//  - load a work-item's non-zeros in batches of SPMV_BATCH with the bounds test on each
//    element rather than on the loop: all loads of a batch are in flight together (a row
//    of 5 is one memory round trip, not five);
//  - stride over the rows (the host caps the number of work-groups at a few per compute
//    unit) and load the next row's offsets while the current row's non-zeros are in flight.
#define SPMV_BATCH 8

// scalar: one work-item per row. Good when rows are short and even; a long row stalls
// its whole sub-group, and neighbouring work-items read non-adjacent addresses.
__kernel void spmv_scalar(int rows, __global const int *restrict row_ptr, __global const int *restrict col,
                          __global const float *restrict val, __global const float *restrict x,
                          __global float *restrict y)
{
    const uint n = (uint)rows;
    const uint stride = (uint)get_global_size(0);
    uint row = (uint)get_global_id(0);
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
        for (int k = begin; k < end; k += SPMV_BATCH) {
            int c[SPMV_BATCH];
            float v[SPMV_BATCH];
            for (int j = 0; j < SPMV_BATCH; ++j) {
                c[j] = k + j < end ? col[k + j] : 0;
                v[j] = k + j < end ? val[k + j] : 0.0f;
            }
            for (int j = 0; j < SPMV_BATCH; ++j)
                if (k + j < end)
                    sum += v[j] * x[c[j]];
        }
        y[row] = sum;
        begin = next_begin;
        end = next_end;
    }
}

// vector: `group` consecutive work-items per row (a power of two dividing the work-group
// size, chosen by the host from the mean row length). The group reads its row's
// non-zeros side by side (coalesced), then reduces its partial sums through local memory:
// OpenCL C 1.2 has no portable sub-group operations, so each tree step ends in a barrier.
// The row loop is uniform over the work-group, so every work-item reaches every barrier,
// including those past the last row.
__kernel void spmv_vector(int rows, __global const int *restrict row_ptr, __global const int *restrict col,
                          __global const float *restrict val, __global const float *restrict x,
                          __global float *restrict y, int group, __local float *partial)
{
    const uint n = (uint)rows;
    const int lid = (int)get_local_id(0);
    const int lane = lid & (group - 1);
    const uint rows_per_group = (uint)get_local_size(0) / (uint)group;
    const uint step = (uint)get_num_groups(0) * rows_per_group;
    uint row = (uint)get_group_id(0) * rows_per_group + (uint)(lid / group);
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
        for (; k < end; k += group * SPMV_BATCH) {
            int c[SPMV_BATCH];
            float v[SPMV_BATCH];
            for (int j = 0; j < SPMV_BATCH; ++j) {
                const int e = k + j * group;
                c[j] = e < end ? col[e] : 0;
                v[j] = e < end ? val[e] : 0.0f;
            }
            for (int j = 0; j < SPMV_BATCH; ++j)
                if (k + j * group < end)
                    sum += v[j] * x[c[j]];
        }
        partial[lid] = sum;
        barrier(CLK_LOCAL_MEM_FENCE);
        // Lanes [0, off) add lanes [off, 2 off): no element is both read and written in a
        // step, and the barrier after the last step orders these reads before the next
        // row's writes.
        for (int off = group >> 1; off > 0; off >>= 1) {
            if (lane < off)
                partial[lid] += partial[lid + off];
            barrier(CLK_LOCAL_MEM_FENCE);
        }
        if (lane == 0 && row < n)
            y[row] = partial[lid];
        k = next_k;
        end = next_end;
    }
}
