// tests/test_launch_bounds.cpp: TB_LAUNCH_BOUNDS of an expression of a -D define (LB_GROUP)
// and of a macro of this file, beside reqd_work_group_size, and a kernel without bounds.
#ifndef LB_GROUP
#define LB_GROUP 64  // test_launch_bounds passes 128; other tests compile the file as it is
#endif
#define LB_MIN_GROUPS (6 / 2)
/* TB_LAUNCH_BOUNDS(1, 1) in a comment bounds nothing */
__kernel TB_LAUNCH_BOUNDS(LB_GROUP, LB_MIN_GROUPS)
void bounded(const uint n, __global uint *out) {
    const uint i = get_global_id(0);
    if (i < n) out[i] = i * 3u + 1u;
}

__kernel __attribute__((reqd_work_group_size(LB_GROUP, 1, 1))) TB_LAUNCH_BOUNDS(LB_GROUP, 2) void fixed(
    const uint n, __global uint *out) {
    const uint i = get_global_id(0);
    if (i < n) out[i] = i ^ 0x5A5Au;
}

__kernel void unbounded(const uint n, __global uint *out) {
    const uint i = get_global_id(0);
    if (i < n) out[i] = ~i;
}
