// tribench load hints for the opencl backend (docs/prelude.md, "Load hints").
//
// kernels.cl reads data it touches once (a sparse matrix's columns and values) with
// tb_load_streaming(p), on int, uint and float. cuda-prelude maps it to __ldcs (PTX
// ld.global.cs: evict-first in L1 and L2, so that data read again -- SpMV's x -- stays in L2),
// as kernels.cu writes it. Data no work-item writes during the kernel it may read with
// tb_load_readonly(p) (int, uint, float, float2, float4, int4): __ldg on cuda-prelude (PTX
// ld.global.nc), as kernels.cu. The opencl backend puts this file in front of a kernels.cl
// that mentions tb_load_, after defining one of (backends/opencl/cl_load_hints.cpp):
//   TB_LOAD_HINTS_PTX    NVIDIA's OpenCL: the same ld.global.cs / ld.global.nc through inline PTX;
//   TB_LOAD_HINTS_PLAIN  any other platform: a plain load (OpenCL C has no cache hints).
#ifndef TRIBENCH_LOAD_HINTS_CL
#define TRIBENCH_LOAD_HINTS_CL

#define TB_LH_OVL __attribute__((overloadable))

#if defined(TB_LOAD_HINTS_PTX)
// Not volatile: the loads read memory no work-item writes, so the compiler may schedule them
// like any other load.
static inline TB_LH_OVL uint tb_load_streaming(const __global uint *p) {
    uint r;
    __asm__("ld.global.cs.b32 %0, [%1];" : "=r"(r) : "l"(p));
    return r;
}
static inline TB_LH_OVL int tb_load_streaming(const __global int *p) {
    return as_int(tb_load_streaming((const __global uint *)p));
}
static inline TB_LH_OVL float tb_load_streaming(const __global float *p) {
    return as_float(tb_load_streaming((const __global uint *)p));
}
static inline TB_LH_OVL uint tb_load_readonly(const __global uint *p) {
    uint r;
    __asm__("ld.global.nc.b32 %0, [%1];" : "=r"(r) : "l"(p));
    return r;
}
static inline TB_LH_OVL int tb_load_readonly(const __global int *p) {
    return as_int(tb_load_readonly((const __global uint *)p));
}
static inline TB_LH_OVL float tb_load_readonly(const __global float *p) {
    return as_float(tb_load_readonly((const __global uint *)p));
}
static inline TB_LH_OVL uint2 tb_lh_nc_v2(const __global uint2 *p) {
    uint2 r;
    __asm__("ld.global.nc.v2.b32 {%0, %1}, [%2];" : "=r"(r.x), "=r"(r.y) : "l"(p));
    return r;
}
static inline TB_LH_OVL uint4 tb_lh_nc_v4(const __global uint4 *p) {
    uint4 r;
    __asm__("ld.global.nc.v4.b32 {%0, %1, %2, %3}, [%4];" : "=r"(r.x), "=r"(r.y), "=r"(r.z), "=r"(r.w) : "l"(p));
    return r;
}
static inline TB_LH_OVL float2 tb_load_readonly(const __global float2 *p) {
    return as_float2(tb_lh_nc_v2((const __global uint2 *)p));
}
static inline TB_LH_OVL float4 tb_load_readonly(const __global float4 *p) {
    return as_float4(tb_lh_nc_v4((const __global uint4 *)p));
}
static inline TB_LH_OVL int4 tb_load_readonly(const __global int4 *p) {
    return as_int4(tb_lh_nc_v4((const __global uint4 *)p));
}
#elif defined(TB_LOAD_HINTS_PLAIN)
static inline TB_LH_OVL uint tb_load_streaming(const __global uint *p) { return *p; }
static inline TB_LH_OVL int tb_load_streaming(const __global int *p) { return *p; }
static inline TB_LH_OVL float tb_load_streaming(const __global float *p) { return *p; }
static inline TB_LH_OVL uint tb_load_readonly(const __global uint *p) { return *p; }
static inline TB_LH_OVL int tb_load_readonly(const __global int *p) { return *p; }
static inline TB_LH_OVL float tb_load_readonly(const __global float *p) { return *p; }
static inline TB_LH_OVL float2 tb_load_readonly(const __global float2 *p) { return *p; }
static inline TB_LH_OVL float4 tb_load_readonly(const __global float4 *p) { return *p; }
static inline TB_LH_OVL int4 tb_load_readonly(const __global int4 *p) { return *p; }
#else
#error "load_hints.cl needs TB_LOAD_HINTS_PTX or TB_LOAD_HINTS_PLAIN (backends/opencl/cl_load_hints.cpp)"
#endif

#endif  // TRIBENCH_LOAD_HINTS_CL
