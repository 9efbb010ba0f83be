// Every sub-group built-in of docs/prelude.md ("Sub-groups") on float, int and uint, run by
// tests/test_subgroups.cpp on the opencl backend (each sub-group mode) and on cuda-prelude,
// and compiled by NVRTC in tests/test_nvrtc_compile.cpp. Work-item w of the launch (groups
// in linear order, items in the group's linear order, x fastest) writes NOPS results per
// type at out[w * NOPS + op] and NIDS at ids[w * NIDS + k].
#define NOPS 14
#define NIDS 8
#define MAX_ITEMS 256

// A helper taking the scratch as the emulation needs (TB_SG_PARAM / TB_SG_ARG).
float sum_of_sub_group(float x TB_SG_PARAM) { return sub_group_reduce_add(x); }

#define TB_TEST_OPS(T, in, out)                                                               \
    {                                                                                         \
        const T x = in[w];                                                                    \
        __global T *o = out + w * NOPS;                                                       \
        o[0] = sub_group_broadcast(x, size - 1);                                              \
        o[1] = sub_group_shuffle(x, (lane * 7u + 3u) % size);                                 \
        o[2] = sub_group_shuffle_xor(x, shift);                                               \
        o[3] = sub_group_shuffle_up(x, shift);                                                \
        o[4] = sub_group_shuffle_down(x, shift);                                              \
        o[5] = sub_group_reduce_add(x);                                                       \
        o[6] = sub_group_reduce_min(x);                                                       \
        o[7] = sub_group_reduce_max(x);                                                       \
        o[8] = sub_group_scan_inclusive_add(x);                                               \
        o[9] = sub_group_scan_inclusive_min(x);                                               \
        o[10] = sub_group_scan_inclusive_max(x);                                              \
        o[11] = sub_group_scan_exclusive_add(x);                                              \
        o[12] = sub_group_scan_exclusive_min(x);                                              \
        o[13] = sub_group_scan_exclusive_max(x);                                              \
    }

__kernel void sub_group_ops(__global const float *fin, __global const int *iin, __global const uint *uin,
                            __global float *fout, __global int *iout, __global uint *uout, __global uint *ids,
                            uint shift)
{
    TB_SUB_GROUP_SCRATCH(MAX_ITEMS);
    __local int exchange[MAX_ITEMS];
    const uint items = (uint)(get_local_size(0) * get_local_size(1) * get_local_size(2));
    const uint item =
        (uint)(get_local_id(0) + get_local_size(0) * (get_local_id(1) + get_local_size(1) * get_local_id(2)));
    const uint group =
        (uint)(get_group_id(0) + get_num_groups(0) * (get_group_id(1) + get_num_groups(1) * get_group_id(2)));
    const uint w = group * items + item;
    const uint size = get_sub_group_size();
    const uint lane = get_sub_group_local_id();

    __global uint *id = ids + w * NIDS;
    id[0] = size;
    id[1] = get_max_sub_group_size();
    id[2] = get_num_sub_groups();
    id[3] = get_sub_group_id();
    id[4] = lane;
    id[5] = (uint)sub_group_all(iin[w] > 0);
    id[6] = (uint)sub_group_any(iin[w] > 900);
    // sub_group_barrier orders local memory within the sub-group: read the next lane's value.
    exchange[item] = iin[w];
    sub_group_barrier(CLK_LOCAL_MEM_FENCE);
    id[7] = (uint)exchange[item - lane + (lane + 1u) % size];

    TB_TEST_OPS(float, fin, fout)
    TB_TEST_OPS(int, iin, iout)
    TB_TEST_OPS(uint, uin, uout)
    // Through a helper: the same sum as o[5].
    fout[w * NOPS + 5] = sum_of_sub_group(fin[w] TB_SG_ARG);
}
