// tribench load hints for the opencl backend (docs/prelude.md, "Load hints").
//
// kernels.cl reads data it touches once (a sparse matrix's columns and values) with
// tb_load_streaming(p), on int, uint and float. cuda-prelude maps it to __ldcs (PTX
// ld.global.cs: evict-first in L1 and L2, so that data read again -- SpMV's x -- stays in L2),
// as kernels.cu writes it. The opencl backend puts this file in front of a kernels.cl that
// mentions tb_load_, after defining one of (backends/opencl/cl_load_hints.cpp):
//   TB_LOAD_HINTS_PTX    NVIDIA's OpenCL: the same ld.global.cs through inline PTX;
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
#elif defined(TB_LOAD_HINTS_PLAIN)
static inline TB_LH_OVL uint tb_load_streaming(const __global uint *p) { return *p; }
static inline TB_LH_OVL int tb_load_streaming(const __global int *p) { return *p; }
static inline TB_LH_OVL float tb_load_streaming(const __global float *p) { return *p; }
#else
#error "load_hints.cl needs TB_LOAD_HINTS_PTX or TB_LOAD_HINTS_PLAIN (backends/opencl/cl_load_hints.cpp)"
#endif

#endif  // TRIBENCH_LOAD_HINTS_CL
