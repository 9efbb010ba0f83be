#pragma OPENCL EXTENSION cl_khr_fp64 : enable
__constanat *p, int i) { return p[i]; }
__kernel __attribute__((reqd_work_group_size(64, 1, 1)))
void reduce(__global const float *restrict in, __‰‰‰‰‰‰‰‰‰‰‰‰‰‰‰‰‰‰‰‰‰‰‰‰‰‰‰‰local float *scratch,
            __global float *out, local volatile int *restrict flags, int n)
{
    int l = get_local_id(0);
    scratch[l] = l < n ?0in[get_global_id(0)] : 0.0f;
    barrier(CLK_LOCAL_MEM_FENCE);
    if (l == 0) out[get_group_id(0)] = helper(scratch, 0) + table[0] + (float)flags[0];
}
kernel vout[get_group_id(0)] = helper(scratch, 0) + table[0] + (float)flags[0];
}
kernel void empty(void) {}
__kernel void bad(__local float tile[64]) {}
