// tribench sub-group shim for the opencl backend (docs/prelude.md, "Sub-groups").
//
// The opencl backend puts this file in front of a kernels.cl that mentions sub_group, after
// defining one of (backends/opencl/cl_subgroups.cpp, from the device's extensions):
//   TB_SUBGROUPS_KHR       the device has cl_khr_subgroups, cl_khr_subgroup_shuffle and
//                          cl_khr_subgroup_shuffle_relative: the built-ins themselves, of
//                          the device's own sub-group size (TB_SUB_GROUP_SIZE is not defined);
//   TB_SUBGROUPS_NV        NVIDIA's OpenCL, which has no sub-group built-ins: warps of 32
//                          through inline PTX, as the CUDA prelude maps them to warp intrinsics;
//   TB_SUBGROUPS_EMULATED  any other device (PoCL): sub-groups of 32 emulated in local memory.
// In every mode kernels.cl uses the OpenCL names (get_sub_group_size, sub_group_reduce_add,
// sub_group_shuffle_xor, ...) on float, int and uint, declares the emulation's scratch at
// the top of each kernel that uses them (TB_SUB_GROUP_SCRATCH(max group size);), and passes it
// to helper functions that use them (TB_SG_PARAM in the helper's parameter list, TB_SG_ARG in
// the call). The emulation needs more than OpenCL asks: the whole work-group, not just the
// sub-group, calls each function together, since it synchronises with barrier().
#ifndef TRIBENCH_SUBGROUPS_CL
#define TRIBENCH_SUBGROUPS_CL

#if defined(TB_SUBGROUPS_KHR)

#pragma OPENCL EXTENSION cl_khr_subgroups : enable
#pragma OPENCL EXTENSION cl_khr_subgroup_shuffle : enable
#pragma OPENCL EXTENSION cl_khr_subgroup_shuffle_relative : enable
#define TB_SUB_GROUP_SCRATCH(max_items)
#define TB_SG_PARAM
#define TB_SG_ARG

#elif defined(TB_SUBGROUPS_NV) || defined(TB_SUBGROUPS_EMULATED)

#define TB_SUB_GROUP_SIZE 32
#define TB_SG_OVL __attribute__((overloadable))

// A sub-group is 32 consecutive work-items in the group's linear order (x fastest); the last
// one is partial when the group size is not a multiple of 32.
static inline uint tb_sg_linear_id(void) {
    return (uint)(get_local_id(0) + get_local_size(0) * (get_local_id(1) + get_local_size(1) * get_local_id(2)));
}
static inline uint tb_sg_group_items(void) {
    return (uint)(get_local_size(0) * get_local_size(1) * get_local_size(2));
}
static inline uint tb_sg_local_id(void) { return tb_sg_linear_id() & 31u; }
static inline uint tb_sg_id(void) { return tb_sg_linear_id() >> 5; }
static inline uint tb_sg_num(void) { return (tb_sg_group_items() + 31u) >> 5; }
static inline uint tb_sg_max_size(void) { return min(tb_sg_group_items(), 32u); }
static inline uint tb_sg_size(void) { return min(tb_sg_group_items() - (tb_sg_linear_id() & ~31u), 32u); }
#define get_sub_group_local_id tb_sg_local_id
#define get_sub_group_id tb_sg_id
#define get_num_sub_groups tb_sg_num
#define get_max_sub_group_size tb_sg_max_size
#define get_sub_group_size tb_sg_size

// Bit patterns travel as uint; these give them back their type.
static inline TB_SG_OVL float tb_sg_as(float like, uint bits) { return as_float(bits); }
static inline TB_SG_OVL int tb_sg_as(int like, uint bits) { return as_int(bits); }
static inline TB_SG_OVL uint tb_sg_as(uint like, uint bits) { return bits; }
static inline TB_SG_OVL float tb_sg_min(float a, float b) { return fmin(a, b); }
static inline TB_SG_OVL int tb_sg_min(int a, int b) { return min(a, b); }
static inline TB_SG_OVL uint tb_sg_min(uint a, uint b) { return min(a, b); }
static inline TB_SG_OVL float tb_sg_max(float a, float b) { return fmax(a, b); }
static inline TB_SG_OVL int tb_sg_max(int a, int b) { return max(a, b); }
static inline TB_SG_OVL uint tb_sg_max(uint a, uint b) { return max(a, b); }
static inline TB_SG_OVL float tb_sg_min_identity(float like) { return INFINITY; }
static inline TB_SG_OVL int tb_sg_min_identity(int like) { return INT_MAX; }
static inline TB_SG_OVL uint tb_sg_min_identity(uint like) { return UINT_MAX; }
static inline TB_SG_OVL float tb_sg_max_identity(float like) { return -INFINITY; }
static inline TB_SG_OVL int tb_sg_max_identity(int like) { return INT_MIN; }
static inline TB_SG_OVL uint tb_sg_max_identity(uint like) { return 0u; }
#define tb_sg_add(a, b) ((a) + (b))

#if defined(TB_SUBGROUPS_NV)
// ---- NVIDIA: warp instructions through inline PTX ----------------------------------------
#define TB_SUB_GROUP_SCRATCH(max_items)
#define TB_SG_PARAM
#define TB_SG_ARG

static inline uint tb_sg_mask(void) {
    const uint n = tb_sg_size();
    return n == 32u ? 0xffffffffu : (1u << n) - 1u;
}
static inline uint tb_sg_shfl_idx(uint v, uint lane, uint mask) {
    uint r;
    __asm__ __volatile__("shfl.sync.idx.b32 %0, %1, %2, 0x1f, %3;" : "=r"(r) : "r"(v), "r"(lane), "r"(mask));
    return r;
}
static inline uint tb_sg_shfl_bfly(uint v, uint m, uint mask) {
    uint r;
    __asm__ __volatile__("shfl.sync.bfly.b32 %0, %1, %2, 0x1f, %3;" : "=r"(r) : "r"(v), "r"(m), "r"(mask));
    return r;
}
static inline uint tb_sg_shfl_up(uint v, uint d, uint mask) {
    uint r;
    __asm__ __volatile__("shfl.sync.up.b32 %0, %1, %2, 0x0, %3;" : "=r"(r) : "r"(v), "r"(d), "r"(mask));
    return r;
}
static inline uint tb_sg_shfl_down(uint v, uint d, uint mask) {
    uint r;
    __asm__ __volatile__("shfl.sync.down.b32 %0, %1, %2, 0x1f, %3;" : "=r"(r) : "r"(v), "r"(d), "r"(mask));
    return r;
}
static inline int tb_sg_all(int predicate) {
    int r;
    __asm__ __volatile__("{ .reg .pred p, q; setp.ne.s32 p, %1, 0; vote.sync.all.pred q, p, %2; selp.s32 %0, 1, 0, q; }"
                 : "=r"(r) : "r"(predicate), "r"(tb_sg_mask()));
    return r;
}
static inline int tb_sg_any(int predicate) {
    int r;
    __asm__ __volatile__("{ .reg .pred p, q; setp.ne.s32 p, %1, 0; vote.sync.any.pred q, p, %2; selp.s32 %0, 1, 0, q; }"
                 : "=r"(r) : "r"(predicate), "r"(tb_sg_mask()));
    return r;
}
static inline void tb_sg_barrier(cl_mem_fence_flags flags) {
    __asm__ __volatile__("bar.warp.sync %0;" : : "r"(tb_sg_mask()) : "memory");
}

#define TB_SG_MOVE(NAME, SHFL)                                                                   \
    static inline TB_SG_OVL float NAME(float x, uint a) { return as_float(SHFL(as_uint(x), a, tb_sg_mask())); } \
    static inline TB_SG_OVL int NAME(int x, uint a) { return as_int(SHFL(as_uint(x), a, tb_sg_mask())); }       \
    static inline TB_SG_OVL uint NAME(uint x, uint a) { return SHFL(x, a, tb_sg_mask()); }
TB_SG_MOVE(tb_sg_broadcast, tb_sg_shfl_idx)
TB_SG_MOVE(tb_sg_shuffle, tb_sg_shfl_idx)
TB_SG_MOVE(tb_sg_shuffle_xor, tb_sg_shfl_bfly)
TB_SG_MOVE(tb_sg_shuffle_up, tb_sg_shfl_up)
TB_SG_MOVE(tb_sg_shuffle_down, tb_sg_shfl_down)
#undef TB_SG_MOVE

// The same reductions and scans as the CUDA prelude (backends/cuda/prelude.cuh).
#define TB_SG_REDUCE(OP, T)                                                                      \
    static inline TB_SG_OVL T tb_sg_reduce_##OP(T x) {                                           \
        const uint n = tb_sg_size();                                                             \
        if (n == 32u) {                                                                          \
            for (uint o = 16; o > 0; o >>= 1)                                                    \
                x = tb_sg_##OP(x, tb_sg_as(x, tb_sg_shfl_bfly(as_uint(x), o, 0xffffffffu)));     \
            return x;                                                                            \
        }                                                                                        \
        const uint mask = tb_sg_mask(), lane = tb_sg_local_id();                                 \
        for (uint o = 16; o > 0; o >>= 1) {                                                      \
            const T y = tb_sg_as(x, tb_sg_shfl_down(as_uint(x), o, mask));                       \
            if (lane + o < n) x = tb_sg_##OP(x, y);                                              \
        }                                                                                        \
        return tb_sg_as(x, tb_sg_shfl_idx(as_uint(x), 0u, mask));                                \
    }
#define TB_SG_SCAN(OP, T, IDENTITY)                                                              \
    static inline TB_SG_OVL T tb_sg_scan_inclusive_##OP(T x) {                                   \
        const uint mask = tb_sg_mask(), lane = tb_sg_local_id();                                 \
        for (uint o = 1; o < 32u; o <<= 1) {                                                     \
            const T y = tb_sg_as(x, tb_sg_shfl_up(as_uint(x), o, mask));                         \
            if (lane >= o) x = tb_sg_##OP(x, y);                                                 \
        }                                                                                        \
        return x;                                                                                \
    }                                                                                            \
    static inline TB_SG_OVL T tb_sg_scan_exclusive_##OP(T x) {                                   \
        const T inc = tb_sg_scan_inclusive_##OP(x);                                              \
        const T prev = tb_sg_as(x, tb_sg_shfl_up(as_uint(inc), 1u, tb_sg_mask()));              \
        return tb_sg_local_id() == 0u ? IDENTITY : prev;                                         \
    }
#define TB_SG_TYPE(T)                                                                            \
    TB_SG_REDUCE(add, T) TB_SG_REDUCE(min, T) TB_SG_REDUCE(max, T)                               \
    TB_SG_SCAN(add, T, (T)0) TB_SG_SCAN(min, T, tb_sg_min_identity(x)) TB_SG_SCAN(max, T, tb_sg_max_identity(x))
TB_SG_TYPE(float)
TB_SG_TYPE(int)
TB_SG_TYPE(uint)
#undef TB_SG_TYPE
#undef TB_SG_SCAN
#undef TB_SG_REDUCE

#define sub_group_barrier(flags) tb_sg_barrier(flags)
#define sub_group_all(p) tb_sg_all(p)
#define sub_group_any(p) tb_sg_any(p)
#define sub_group_broadcast(x, lane) tb_sg_broadcast((x), (lane))
#define sub_group_shuffle(x, lane) tb_sg_shuffle((x), (lane))
#define sub_group_shuffle_xor(x, m) tb_sg_shuffle_xor((x), (m))
#define sub_group_shuffle_up(x, d) tb_sg_shuffle_up((x), (d))
#define sub_group_shuffle_down(x, d) tb_sg_shuffle_down((x), (d))
#define TB_SG_SCRATCH_ARG

#else
// ---- Emulation in local memory -------------------------------------------------------------
// Each work-item publishes its value in the kernel's scratch (one uint per work-item), the
// group synchronises, and each reads what it needs. Two barriers per call: the first keeps
// a new value from overwriting one a slower work-item has yet to read.
#define TB_SUB_GROUP_SCRATCH(max_items) __local uint tb_sg_scratch[((max_items) + 31) / 32 * 32]
#define TB_SG_PARAM , __local uint *tb_sg_scratch
#define TB_SG_ARG , tb_sg_scratch

static inline __local uint *tb_sg_publish(__local uint *s, uint bits) {
    barrier(CLK_LOCAL_MEM_FENCE);
    s[tb_sg_linear_id()] = bits;
    barrier(CLK_LOCAL_MEM_FENCE);
    return s + (tb_sg_linear_id() & ~31u);  // lane 0 of this sub-group
}
static inline int tb_sg_all(__local uint *s, int predicate) {
    __local uint *g = tb_sg_publish(s, predicate != 0);
    int r = 1;
    for (uint i = 0; i < tb_sg_size(); ++i) r = r && g[i];
    return r;
}
static inline int tb_sg_any(__local uint *s, int predicate) {
    __local uint *g = tb_sg_publish(s, predicate != 0);
    int r = 0;
    for (uint i = 0; i < tb_sg_size(); ++i) r = r || g[i];
    return r;
}
// The value of lane `src` (out of range: undefined in OpenCL, here some lane's value).
#define TB_SG_MOVE(NAME, SRC)                                                                    \
    static inline TB_SG_OVL float NAME(__local uint *s, float x, uint a) {                      \
        return as_float(tb_sg_publish(s, as_uint(x))[(SRC) & 31u]);                              \
    }                                                                                            \
    static inline TB_SG_OVL int NAME(__local uint *s, int x, uint a) {                          \
        return as_int(tb_sg_publish(s, as_uint(x))[(SRC) & 31u]);                                \
    }                                                                                            \
    static inline TB_SG_OVL uint NAME(__local uint *s, uint x, uint a) { return tb_sg_publish(s, x)[(SRC) & 31u]; }
TB_SG_MOVE(tb_sg_broadcast, a)
TB_SG_MOVE(tb_sg_shuffle, a)
TB_SG_MOVE(tb_sg_shuffle_xor, tb_sg_local_id() ^ a)
TB_SG_MOVE(tb_sg_shuffle_up, tb_sg_local_id() - a)
TB_SG_MOVE(tb_sg_shuffle_down, tb_sg_local_id() + a)
#undef TB_SG_MOVE

// Reductions and scans in lane order.
#define TB_SG_TYPE_OP(OP, T, IDENTITY)                                                           \
    static inline TB_SG_OVL T tb_sg_reduce_##OP(__local uint *s, T x) {                         \
        __local uint *g = tb_sg_publish(s, as_uint(x));                                          \
        T r = tb_sg_as(x, g[0]);                                                                 \
        for (uint i = 1; i < tb_sg_size(); ++i) r = tb_sg_##OP(r, tb_sg_as(x, g[i]));            \
        return r;                                                                                \
    }                                                                                            \
    static inline TB_SG_OVL T tb_sg_scan_inclusive_##OP(__local uint *s, T x) {                 \
        __local uint *g = tb_sg_publish(s, as_uint(x));                                          \
        T r = tb_sg_as(x, g[0]);                                                                 \
        for (uint i = 1; i <= tb_sg_local_id(); ++i) r = tb_sg_##OP(r, tb_sg_as(x, g[i]));       \
        return r;                                                                                \
    }                                                                                            \
    static inline TB_SG_OVL T tb_sg_scan_exclusive_##OP(__local uint *s, T x) {                 \
        __local uint *g = tb_sg_publish(s, as_uint(x));                                          \
        T r = IDENTITY;                                                                          \
        for (uint i = 0; i < tb_sg_local_id(); ++i) r = tb_sg_##OP(r, tb_sg_as(x, g[i]));        \
        return r;                                                                                \
    }
#define TB_SG_TYPE(T)                                                                            \
    TB_SG_TYPE_OP(add, T, (T)0) TB_SG_TYPE_OP(min, T, tb_sg_min_identity(x)) TB_SG_TYPE_OP(max, T, tb_sg_max_identity(x))
TB_SG_TYPE(float)
TB_SG_TYPE(int)
TB_SG_TYPE(uint)
#undef TB_SG_TYPE
#undef TB_SG_TYPE_OP

#define sub_group_barrier(flags) barrier(flags)
#define sub_group_all(p) tb_sg_all(tb_sg_scratch, (p))
#define sub_group_any(p) tb_sg_any(tb_sg_scratch, (p))
#define sub_group_broadcast(x, lane) tb_sg_broadcast(tb_sg_scratch, (x), (lane))
#define sub_group_shuffle(x, lane) tb_sg_shuffle(tb_sg_scratch, (x), (lane))
#define sub_group_shuffle_xor(x, m) tb_sg_shuffle_xor(tb_sg_scratch, (x), (m))
#define sub_group_shuffle_up(x, d) tb_sg_shuffle_up(tb_sg_scratch, (x), (d))
#define sub_group_shuffle_down(x, d) tb_sg_shuffle_down(tb_sg_scratch, (x), (d))
#define TB_SG_SCRATCH_ARG tb_sg_scratch,
#endif

// Reductions and scans by their OpenCL names (the scratch goes first in the emulation).
#define sub_group_reduce_add(x) tb_sg_reduce_add(TB_SG_SCRATCH_ARG(x))
#define sub_group_reduce_min(x) tb_sg_reduce_min(TB_SG_SCRATCH_ARG(x))
#define sub_group_reduce_max(x) tb_sg_reduce_max(TB_SG_SCRATCH_ARG(x))
#define sub_group_scan_inclusive_add(x) tb_sg_scan_inclusive_add(TB_SG_SCRATCH_ARG(x))
#define sub_group_scan_inclusive_min(x) tb_sg_scan_inclusive_min(TB_SG_SCRATCH_ARG(x))
#define sub_group_scan_inclusive_max(x) tb_sg_scan_inclusive_max(TB_SG_SCRATCH_ARG(x))
#define sub_group_scan_exclusive_add(x) tb_sg_scan_exclusive_add(TB_SG_SCRATCH_ARG(x))
#define sub_group_scan_exclusive_min(x) tb_sg_scan_exclusive_min(TB_SG_SCRATCH_ARG(x))
#define sub_group_scan_exclusive_max(x) tb_sg_scan_exclusive_max(TB_SG_SCRATCH_ARG(x))

#endif  // TB_SUBGROUPS_NV || TB_SUBGROUPS_EMULATED
#endif  // TRIBENCH_SUBGROUPS_CL
