// tribench OpenCL-C-to-CUDA prelude (see docs/prelude.md).
//
// Prepended by tb::cuda::translate_opencl to a program's kernels.cl so that OpenCL C 1.2
// kernels compile under NVRTC. It relies only on what NVRTC has built in (vector types,
// threadIdx/blockIdx, the CUDA Math API with its float overloads of sqrt, fabs, exp, min,
// ...), so it must stay free of #include. Everything it defines is __device__ and inline.
//
// Semantics rule: an OpenCL built-in with a precise meaning maps to the CUDA function whose
// accuracy the NVRTC flags (--prec-div, --prec-sqrt, --ftz, --fmad, --use_fast_math)
// control, so the math modes act on both backends alike; only native_* (and the explicitly
// approximate intrinsics) are fixed fast approximations.
#ifndef TRIBENCH_PRELUDE_CUH
#define TRIBENCH_PRELUDE_CUH

#define TB_CL_FN __device__ __forceinline__

// ---- Address spaces and qualifiers -------------------------------------------------------
// Only the `__` spellings are macros: the translator renames `kernel`, `global`, `local`,
// `constant` and `private` to them. Never define those short names here: NVRTC's own
// __global__ and __constant__ expand to __location__(global) / __location__(constant),
// and such a macro would silently turn every kernel into a device function.
//
// Kernels keep unmangled names so the host finds them by their OpenCL name.
#define __kernel extern "C" __global__
// CUDA pointers are generic: global and private need no qualifier.
#define __global
#define __private
// In kernel parameters, __constant pointers become pointers to const. Program-scope
// __constant variables are rewritten to __constant__ by the translator before this applies.
#define __constant const
// Variables declared __local inside a kernel are shared memory. __local pointer parameters
// and other pointers to local memory are rewritten by the translator (see tb_local_mem).
#define __local __shared__
#define restrict __restrict__

// ---- Kernel attributes -------------------------------------------------------------------
// `__attribute__((reqd_work_group_size(X, Y, Z)))` promises every launch's group size; CUDA's
// nearest statement is launch bounds of X*Y*Z threads (PTX .maxntid), which lets ptxas plan
// registers for that size instead of 1024 threads, as __launch_bounds__ does in kernels.cu.
#define reqd_work_group_size(X, Y, Z) launch_bounds((X) * (Y) * (Z))
// TB_LAUNCH_BOUNDS(max_items, min_groups_per_cu) (tribench's, before `void`): what kernels.cu
// says with __launch_bounds__(max_items, min_groups_per_cu) -- at most max_items work-items
// per group, and registers capped so that min_groups_per_cu groups fit a multiprocessor.
// OpenCL C has no way to say it: to OpenCL compilers it is empty, and on NVIDIA's platform
// the opencl backend writes the same directives into the PTX (cl_launch_bounds.hpp). Beside
// reqd_work_group_size the two launch_bounds merge (.maxntid and .minnctapersm).
#define TB_LAUNCH_BOUNDS(max_items, min_groups_per_cu) __attribute__((launch_bounds(max_items, min_groups_per_cu)))

// The one dynamic shared-memory pool behind every __local pointer parameter: the translator
// turns `__local T *p` into `unsigned int p_tb_off` and declares `T *p = (T *)(tb_local_mem +
// p_tb_off)`; the host passes each offset (a multiple of kLocalAlign = 16 bytes) and the
// summed size as the launch's dynamic shared memory.
extern __shared__ __align__(16) unsigned char tb_local_mem[];

// ---- Scalar types and constants ----------------------------------------------------------
// ulong is unsigned long (64-bit on Linux) so it matches glibc's own typedef under nvcc.
typedef unsigned char uchar;
typedef unsigned short ushort;
typedef unsigned int uint;
typedef unsigned long ulong;

#ifndef FLT_MAX
#define FLT_MAX 0x1.fffffep127f
#endif
#ifndef FLT_MIN
#define FLT_MIN 0x1.0p-126f
#endif
#ifndef FLT_EPSILON
#define FLT_EPSILON 0x1.0p-23f
#endif
#ifndef MAXFLOAT
#define MAXFLOAT FLT_MAX
#endif
// Bit patterns, so they are constant expressions usable in __constant initialisers.
#ifndef INFINITY
#define INFINITY (__builtin_bit_cast(float, 0x7f800000u))
#endif
#ifndef HUGE_VALF
#define HUGE_VALF INFINITY
#endif
#ifndef NAN
#define NAN (__builtin_bit_cast(float, 0x7fc00000u))
#endif
#ifndef INT_MAX
#define INT_MAX 2147483647
#endif
#ifndef INT_MIN
#define INT_MIN (-2147483647 - 1)
#endif
#ifndef UINT_MAX
#define UINT_MAX 0xffffffffu
#endif

#define M_E_F 2.718281828459045f
#define M_LOG2E_F 1.4426950408889634f
#define M_LOG10E_F 0.4342944819032518f
#define M_LN2_F 0.6931471805599453f
#define M_LN10_F 2.302585092994046f
#define M_PI_F 3.141592653589793f
#define M_PI_2_F 1.5707963267948966f
#define M_PI_4_F 0.7853981633974483f
#define M_1_PI_F 0.3183098861837907f
#define M_2_PI_F 0.6366197723675814f
#define M_2_SQRTPI_F 1.1283791670955126f
#define M_SQRT2_F 1.4142135623730951f
#define M_SQRT1_2_F 0.7071067811865476f
#ifndef M_PI
#define M_PI 3.141592653589793
#endif

// ---- Work-item functions -----------------------------------------------------------------
// Out-of-range dimensions return what OpenCL specifies: 0 for ids, 1 for sizes.
TB_CL_FN size_t get_local_id(uint d) {
    return d == 0 ? threadIdx.x : d == 1 ? threadIdx.y : d == 2 ? threadIdx.z : 0u;
}
TB_CL_FN size_t get_group_id(uint d) {
    return d == 0 ? blockIdx.x : d == 1 ? blockIdx.y : d == 2 ? blockIdx.z : 0u;
}
TB_CL_FN size_t get_local_size(uint d) {
    return d == 0 ? blockDim.x : d == 1 ? blockDim.y : d == 2 ? blockDim.z : 1u;
}
TB_CL_FN size_t get_num_groups(uint d) {
    return d == 0 ? gridDim.x : d == 1 ? gridDim.y : d == 2 ? gridDim.z : 1u;
}
// 64-bit product: a global id may exceed 2^32 on large launches.
TB_CL_FN size_t get_global_size(uint d) { return get_num_groups(d) * get_local_size(d); }
TB_CL_FN size_t get_global_id(uint d) { return get_group_id(d) * get_local_size(d) + get_local_id(d); }
// The host never launches with a global offset.
TB_CL_FN size_t get_global_offset(uint) { return 0; }
// CUDA does not record the launch's dimensionality: the highest dimension of extent > 1.
TB_CL_FN uint get_work_dim() {
    if (gridDim.z * blockDim.z > 1) return 3;
    if (gridDim.y * blockDim.y > 1) return 2;
    return 1;
}

// ---- Synchronisation ---------------------------------------------------------------------
typedef uint cl_mem_fence_flags;
#define CLK_LOCAL_MEM_FENCE 1u
#define CLK_GLOBAL_MEM_FENCE 2u
// __syncthreads orders shared and global memory for the block, whatever the flags ask.
TB_CL_FN void barrier(cl_mem_fence_flags) { __syncthreads(); }
TB_CL_FN void work_group_barrier(cl_mem_fence_flags) { __syncthreads(); }
// OpenCL 1.2 fences order one work-item's accesses as seen by its work-group.
TB_CL_FN void mem_fence(cl_mem_fence_flags) { __threadfence_block(); }
TB_CL_FN void read_mem_fence(cl_mem_fence_flags) { __threadfence_block(); }
TB_CL_FN void write_mem_fence(cl_mem_fence_flags) { __threadfence_block(); }

// ---- Vector arithmetic -------------------------------------------------------------------
// CUDA's vector types have no operators; OpenCL's are component-wise. Division stays `/`,
// so --prec-div decides its accuracy exactly as for scalars.
#define TB_VEC2_BINOP(V, S, OP)                                                               \
    TB_CL_FN V operator OP(V a, V b) { V r; r.x = a.x OP b.x; r.y = a.y OP b.y; return r; }   \
    TB_CL_FN V operator OP(V a, S s) { V r; r.x = a.x OP s; r.y = a.y OP s; return r; }       \
    TB_CL_FN V operator OP(S s, V b) { V r; r.x = s OP b.x; r.y = s OP b.y; return r; }       \
    TB_CL_FN V& operator OP##=(V& a, V b) { a = a OP b; return a; }                           \
    TB_CL_FN V& operator OP##=(V& a, S s) { a = a OP s; return a; }
#define TB_VEC4_BINOP(V, S, OP)                                                               \
    TB_CL_FN V operator OP(V a, V b) {                                                        \
        V r; r.x = a.x OP b.x; r.y = a.y OP b.y; r.z = a.z OP b.z; r.w = a.w OP b.w; return r; \
    }                                                                                         \
    TB_CL_FN V operator OP(V a, S s) {                                                        \
        V r; r.x = a.x OP s; r.y = a.y OP s; r.z = a.z OP s; r.w = a.w OP s; return r;         \
    }                                                                                         \
    TB_CL_FN V operator OP(S s, V b) {                                                        \
        V r; r.x = s OP b.x; r.y = s OP b.y; r.z = s OP b.z; r.w = s OP b.w; return r;         \
    }                                                                                         \
    TB_CL_FN V& operator OP##=(V& a, V b) { a = a OP b; return a; }                           \
    TB_CL_FN V& operator OP##=(V& a, S s) { a = a OP s; return a; }
#define TB_VEC2_ARITH(V, S)                                                                   \
    TB_VEC2_BINOP(V, S, +) TB_VEC2_BINOP(V, S, -) TB_VEC2_BINOP(V, S, *) TB_VEC2_BINOP(V, S, /) \
    TB_CL_FN V operator-(V a) { V r; r.x = -a.x; r.y = -a.y; return r; }
#define TB_VEC4_ARITH(V, S)                                                                   \
    TB_VEC4_BINOP(V, S, +) TB_VEC4_BINOP(V, S, -) TB_VEC4_BINOP(V, S, *) TB_VEC4_BINOP(V, S, /) \
    TB_CL_FN V operator-(V a) { V r; r.x = -a.x; r.y = -a.y; r.z = -a.z; r.w = -a.w; return r; }

TB_VEC2_ARITH(float2, float)
TB_VEC4_ARITH(float4, float)
TB_VEC2_ARITH(int2, int)
TB_VEC4_ARITH(int4, int)
TB_VEC2_ARITH(uint2, uint)
TB_VEC4_ARITH(uint4, uint)
// Integer vectors also have %, &, |, ^ (shifts are left out: OpenCL masks the count, C does not).
TB_VEC2_BINOP(int2, int, %) TB_VEC2_BINOP(int2, int, &) TB_VEC2_BINOP(int2, int, |) TB_VEC2_BINOP(int2, int, ^)
TB_VEC4_BINOP(int4, int, %) TB_VEC4_BINOP(int4, int, &) TB_VEC4_BINOP(int4, int, |) TB_VEC4_BINOP(int4, int, ^)
TB_VEC2_BINOP(uint2, uint, %) TB_VEC2_BINOP(uint2, uint, &) TB_VEC2_BINOP(uint2, uint, |) TB_VEC2_BINOP(uint2, uint, ^)
TB_VEC4_BINOP(uint4, uint, %) TB_VEC4_BINOP(uint4, uint, &) TB_VEC4_BINOP(uint4, uint, |) TB_VEC4_BINOP(uint4, uint, ^)
#undef TB_VEC2_BINOP
#undef TB_VEC4_BINOP
#undef TB_VEC2_ARITH
#undef TB_VEC4_ARITH

// Geometric functions. length uses CUDA's hypotf/norm4df, which avoid the overflow and
// underflow of a naive sqrt(dot(v, v)), as OpenCL asks.
TB_CL_FN float dot(float a, float b) { return a * b; }
TB_CL_FN float dot(float2 a, float2 b) { return a.x * b.x + a.y * b.y; }
TB_CL_FN float dot(float4 a, float4 b) { return a.x * b.x + a.y * b.y + a.z * b.z + a.w * b.w; }
TB_CL_FN float length(float2 v) { return hypotf(v.x, v.y); }
TB_CL_FN float length(float4 v) { return norm4df(v.x, v.y, v.z, v.w); }
TB_CL_FN float distance(float2 a, float2 b) { return length(a - b); }
TB_CL_FN float distance(float4 a, float4 b) { return length(a - b); }
// OpenCL's cross of float4 uses .xyz and sets .w to 0.
TB_CL_FN float4 cross(float4 a, float4 b) {
    float4 r;
    r.x = a.y * b.z - a.z * b.y;
    r.y = a.z * b.x - a.x * b.z;
    r.z = a.x * b.y - a.y * b.x;
    r.w = 0.0f;
    return r;
}

// vloadn/vstoren: the portable way to build vectors (OpenCL vector literals are not
// supported). They need only element alignment, like OpenCL's.
#define TB_VLOAD_VSTORE(T)                                                                      \
    TB_CL_FN T##2 vload2(size_t i, const T* p) { p += i * 2; T##2 r; r.x = p[0]; r.y = p[1]; return r; } \
    TB_CL_FN T##4 vload4(size_t i, const T* p) {                                                \
        p += i * 4; T##4 r; r.x = p[0]; r.y = p[1]; r.z = p[2]; r.w = p[3]; return r;           \
    }                                                                                           \
    TB_CL_FN void vstore2(T##2 v, size_t i, T* p) { p += i * 2; p[0] = v.x; p[1] = v.y; }       \
    TB_CL_FN void vstore4(T##4 v, size_t i, T* p) {                                             \
        p += i * 4; p[0] = v.x; p[1] = v.y; p[2] = v.z; p[3] = v.w;                             \
    }
TB_VLOAD_VSTORE(float)
TB_VLOAD_VSTORE(int)
TB_VLOAD_VSTORE(uint)
#undef TB_VLOAD_VSTORE

// ---- Atomics (32-bit integers, global or local memory) -----------------------------------
// OpenCL takes volatile pointers; CUDA's atomics do not, and are always performed in
// memory, so dropping the qualifier is safe. All return the old value, as in OpenCL.
#define TB_ATOMICS(T)                                                                        \
    TB_CL_FN T atomic_add(volatile T* p, T v) { return atomicAdd((T*)p, v); }                \
    TB_CL_FN T atomic_sub(volatile T* p, T v) { return atomicSub((T*)p, v); }                \
    TB_CL_FN T atomic_inc(volatile T* p) { return atomicAdd((T*)p, (T)1); }                  \
    TB_CL_FN T atomic_dec(volatile T* p) { return atomicSub((T*)p, (T)1); }                  \
    TB_CL_FN T atomic_xchg(volatile T* p, T v) { return atomicExch((T*)p, v); }              \
    TB_CL_FN T atomic_cmpxchg(volatile T* p, T cmp, T v) { return atomicCAS((T*)p, cmp, v); } \
    TB_CL_FN T atomic_min(volatile T* p, T v) { return atomicMin((T*)p, v); }                \
    TB_CL_FN T atomic_max(volatile T* p, T v) { return atomicMax((T*)p, v); }                \
    TB_CL_FN T atomic_and(volatile T* p, T v) { return atomicAnd((T*)p, v); }                \
    TB_CL_FN T atomic_or(volatile T* p, T v) { return atomicOr((T*)p, v); }                  \
    TB_CL_FN T atomic_xor(volatile T* p, T v) { return atomicXor((T*)p, v); }
TB_ATOMICS(int)
TB_ATOMICS(unsigned int)
#undef TB_ATOMICS
TB_CL_FN float atomic_xchg(volatile float* p, float v) { return atomicExch((float*)p, v); }
// The cl_khr_*_int32_*_atomics extension spellings.
#define atom_add atomic_add
#define atom_sub atomic_sub
#define atom_inc atomic_inc
#define atom_dec atomic_dec
#define atom_xchg atomic_xchg
#define atom_cmpxchg atomic_cmpxchg
#define atom_min atomic_min
#define atom_max atomic_max
#define atom_and atomic_and
#define atom_or atomic_or
#define atom_xor atomic_xor

// ---- Math --------------------------------------------------------------------------------
// Already built into NVRTC with float overloads that call the f-suffixed CUDA functions
// (so the math flags act on them): sqrt, rsqrt, fabs, fmin, fmax, fma, floor, ceil, round,
// trunc, exp, exp2, exp10, log, log2, log10, pow, sin, cos, tan, asin, acos, atan, atan2,
// sinh, cosh, tanh, hypot, copysign, cbrt, fmod, isnan, isinf, isfinite, signbit, and
// min/max for int, uint and float. Only what NVRTC lacks is defined here.

// mad may be computed with any accuracy; one fused multiply-add is the fastest exact choice.
TB_CL_FN float mad(float a, float b, float c) { return fmaf(a, b, c); }
// powr is pow restricted to x >= 0; same accuracy requirement as pow.
TB_CL_FN float powr(float x, float y) { return powf(x, y); }
TB_CL_FN float pown(float x, int n) { return powf(x, (float)n); }
// OpenCL: returns sin(x) and stores cos(x).
TB_CL_FN float sincos(float x, float* c) { float s; sincosf(x, &s, c); return s; }

TB_CL_FN float clamp(float x, float lo, float hi) { return fminf(fmaxf(x, lo), hi); }
TB_CL_FN int clamp(int x, int lo, int hi) { return min(max(x, lo), hi); }
TB_CL_FN uint clamp(uint x, uint lo, uint hi) { return min(max(x, lo), hi); }
// Exactly OpenCL's formula x + (y - x) * a; contraction into an FMA follows --fmad.
TB_CL_FN float mix(float x, float y, float a) { return x + (y - x) * a; }
TB_CL_FN float2 mix(float2 x, float2 y, float a) { return x + (y - x) * a; }
TB_CL_FN float4 mix(float4 x, float4 y, float a) { return x + (y - x) * a; }
// 1 for x > 0, -1 for x < 0, x itself for +-0, 0 for NaN.
TB_CL_FN float sign(float x) { return x > 0.0f ? 1.0f : x < 0.0f ? -1.0f : isnan(x) ? 0.0f : x; }
TB_CL_FN float step(float edge, float x) { return x < edge ? 0.0f : 1.0f; }
TB_CL_FN float smoothstep(float e0, float e1, float x) {
    float t = clamp((x - e0) / (e1 - e0), 0.0f, 1.0f);
    return t * t * (3.0f - 2.0f * t);
}
TB_CL_FN float degrees(float r) { return r * (180.0f / M_PI_F); }
TB_CL_FN float radians(float d) { return d * (M_PI_F / 180.0f); }
// Scalar select: c ? b : a (the vector form, which tests the sign bit, is not provided).
template <class T, class C>
TB_CL_FN T select(T a, T b, C c) { return c ? b : a; }

// Integer built-ins.
TB_CL_FN int mul24(int a, int b) { return __mul24(a, b); }
TB_CL_FN uint mul24(uint a, uint b) { return __umul24(a, b); }
TB_CL_FN int mad24(int a, int b, int c) { return __mul24(a, b) + c; }
TB_CL_FN uint mad24(uint a, uint b, uint c) { return __umul24(a, b) + c; }
TB_CL_FN int clz(int x) { return __clz(x); }
TB_CL_FN uint clz(uint x) { return (uint)__clz((int)x); }
TB_CL_FN int popcount(int x) { return __popc((uint)x); }
TB_CL_FN uint popcount(uint x) { return (uint)__popc(x); }

// native_*: implementation-defined accuracy and input range (OpenCL 1.2, 6.12.2), so the
// hardware's approximations in their flush-to-zero (.ftz) forms, in every math mode. Why
// .ftz: without it (NVRTC's default -ftz=false) ptxas wraps each MUFU in a denormal fix-up,
// e.g. rsqrt.approx.f32 is FSETP + FMUL + MUFU.RSQ + FMUL (4 issue slots) where
// rsqrt.approx.ftz.f32 is one MUFU.RSQ; rcp.approx.f32 costs 7 slots, not 1 (on rsqrt, the
// fix-up is 3 of the 18 slots per interaction of nbody's kernels.cl: reports/h100/REPORT.md;
// native_rsqrt is how a kernel opts out of it). CUDA's own fast intrinsics (__expf,
// __fdividef, rsqrtf, ...) keep the fix-up unless --use_fast_math, so the prelude writes the
// PTX itself. Denormal inputs and results become 0: native_rsqrt(denormal) is +inf,
// native_exp(-100) is 0.
#define TB_PTX_UNARY(NAME, OP)                                                                  \
    TB_CL_FN float NAME(float x) { float r; asm(OP " %0, %1;" : "=f"(r) : "f"(x)); return r; }
TB_PTX_UNARY(tb_sqrt_ftz, "sqrt.approx.ftz.f32")
TB_PTX_UNARY(tb_rsqrt_ftz, "rsqrt.approx.ftz.f32")
TB_PTX_UNARY(tb_rcp_ftz, "rcp.approx.ftz.f32")
TB_PTX_UNARY(tb_ex2_ftz, "ex2.approx.ftz.f32")
TB_PTX_UNARY(tb_lg2_ftz, "lg2.approx.ftz.f32")
TB_PTX_UNARY(tb_sin_ftz, "sin.approx.ftz.f32")
TB_PTX_UNARY(tb_cos_ftz, "cos.approx.ftz.f32")
#undef TB_PTX_UNARY
TB_CL_FN float tb_div_ftz(float x, float y) {
    float r;
    asm("div.approx.ftz.f32 %0, %1, %2;" : "=f"(r) : "f"(x), "f"(y));
    return r;
}
TB_CL_FN float native_sqrt(float x) { return tb_sqrt_ftz(x); }
TB_CL_FN float native_rsqrt(float x) { return tb_rsqrt_ftz(x); }
TB_CL_FN float native_recip(float x) { return tb_rcp_ftz(x); }
TB_CL_FN float native_divide(float x, float y) { return tb_div_ftz(x, y); }
TB_CL_FN float native_exp2(float x) { return tb_ex2_ftz(x); }
// exp, exp10, log, log10 and powr through exp2/log2, as CUDA's __expf, __logf, __powf do.
TB_CL_FN float native_exp(float x) { return tb_ex2_ftz(x * M_LOG2E_F); }
TB_CL_FN float native_exp10(float x) { return tb_ex2_ftz(x * 3.3219280948873623f); }  // log2(10)
TB_CL_FN float native_log2(float x) { return tb_lg2_ftz(x); }
TB_CL_FN float native_log(float x) { return tb_lg2_ftz(x) * M_LN2_F; }
TB_CL_FN float native_log10(float x) { return tb_lg2_ftz(x) * 0.30102999566398120f; }  // log10(2)
TB_CL_FN float native_powr(float x, float y) { return tb_ex2_ftz(y * tb_lg2_ftz(x)); }
TB_CL_FN float native_sin(float x) { return tb_sin_ftz(x); }
TB_CL_FN float native_cos(float x) { return tb_cos_ftz(x); }
TB_CL_FN float native_tan(float x) { return tb_div_ftz(tb_sin_ftz(x), tb_cos_ftz(x)); }

// half_*: OpenCL allows ~11-bit accuracy over a limited range; the full-precision functions
// meet that everywhere (the fast intrinsics would not, e.g. __sinf for large |x|).
TB_CL_FN float half_sqrt(float x) { return sqrtf(x); }
TB_CL_FN float half_rsqrt(float x) { return rsqrtf(x); }
TB_CL_FN float half_recip(float x) { return 1.0f / x; }
TB_CL_FN float half_divide(float x, float y) { return x / y; }
TB_CL_FN float half_exp(float x) { return expf(x); }
TB_CL_FN float half_exp2(float x) { return exp2f(x); }
TB_CL_FN float half_log(float x) { return logf(x); }
TB_CL_FN float half_log2(float x) { return log2f(x); }
TB_CL_FN float half_sin(float x) { return sinf(x); }
TB_CL_FN float half_cos(float x) { return cosf(x); }
TB_CL_FN float half_tan(float x) { return tanf(x); }
TB_CL_FN float half_powr(float x, float y) { return powf(x, y); }

// ---- Conversions and reinterpretation ----------------------------------------------------
// float -> integer: OpenCL's default rounding is toward zero; PTX's cvt saturates and maps
// NaN to 0, which is exactly OpenCL's _sat behaviour (and a valid result for the rest).
#define TB_CONVERT_FROM_FLOAT(T, P)                                                        \
    TB_CL_FN T convert_##T(float x) { return __float2##P##_rz(x); }                        \
    TB_CL_FN T convert_##T##_rtz(float x) { return __float2##P##_rz(x); }                  \
    TB_CL_FN T convert_##T##_rte(float x) { return __float2##P##_rn(x); }                  \
    TB_CL_FN T convert_##T##_rtp(float x) { return __float2##P##_ru(x); }                  \
    TB_CL_FN T convert_##T##_rtn(float x) { return __float2##P##_rd(x); }                  \
    TB_CL_FN T convert_##T##_sat(float x) { return __float2##P##_rz(x); }                  \
    TB_CL_FN T convert_##T##_sat_rtz(float x) { return __float2##P##_rz(x); }              \
    TB_CL_FN T convert_##T##_sat_rte(float x) { return __float2##P##_rn(x); }              \
    TB_CL_FN T convert_##T(double x) { return __double2##P##_rz(x); }                      \
    TB_CL_FN T convert_##T(int x) { return (T)x; }                                         \
    TB_CL_FN T convert_##T(uint x) { return (T)x; }                                        \
    TB_CL_FN T convert_##T(long x) { return (T)x; }                                        \
    TB_CL_FN T convert_##T(ulong x) { return (T)x; }
TB_CONVERT_FROM_FLOAT(int, int)
TB_CONVERT_FROM_FLOAT(uint, uint)
#undef TB_CONVERT_FROM_FLOAT
// integer -> float: OpenCL's default is round to nearest even.
TB_CL_FN float convert_float(float x) { return x; }
TB_CL_FN float convert_float(double x) { return __double2float_rn(x); }
TB_CL_FN float convert_float(int x) { return __int2float_rn(x); }
TB_CL_FN float convert_float(uint x) { return __uint2float_rn(x); }
TB_CL_FN float convert_float(long x) { return __ll2float_rn(x); }
TB_CL_FN float convert_float(ulong x) { return __ull2float_rn(x); }
// Vector conversions, component-wise with the scalar rules above.
TB_CL_FN float2 convert_float2(int2 v) { float2 r; r.x = convert_float(v.x); r.y = convert_float(v.y); return r; }
TB_CL_FN float4 convert_float4(int4 v) {
    float4 r; r.x = convert_float(v.x); r.y = convert_float(v.y); r.z = convert_float(v.z); r.w = convert_float(v.w); return r;
}
TB_CL_FN int2 convert_int2(float2 v) { int2 r; r.x = convert_int(v.x); r.y = convert_int(v.y); return r; }
TB_CL_FN int4 convert_int4(float4 v) {
    int4 r; r.x = convert_int(v.x); r.y = convert_int(v.y); r.z = convert_int(v.z); r.w = convert_int(v.w); return r;
}

TB_CL_FN float as_float(int x) { return __int_as_float(x); }
TB_CL_FN float as_float(uint x) { return __uint_as_float(x); }
TB_CL_FN int as_int(float x) { return __float_as_int(x); }
TB_CL_FN int as_int(uint x) { return (int)x; }
TB_CL_FN uint as_uint(float x) { return __float_as_uint(x); }
TB_CL_FN uint as_uint(int x) { return (uint)x; }

// ---- Sub-groups (cl_khr_subgroups, cl_khr_subgroup_shuffle, _shuffle_relative) -----------
// A sub-group is a warp: 32 consecutive work-items in the group's linear order (x fastest,
// as CUDA forms warps); the last one is partial when the group size is not a multiple of
// 32. As OpenCL requires, every work-item of a sub-group calls these functions together
// (convergent control flow). docs/prelude.md lists what kernels.cl may use and how the
// opencl backend provides the same names on platforms without the extensions.
#define TB_SUBGROUPS_CUDA 1
#define TB_SUB_GROUP_SIZE 32
// Declarations the opencl backend's local-memory emulation needs (backends/opencl/subgroups.cl);
// empty here.
#define TB_SUB_GROUP_SCRATCH(max_items)
#define TB_SG_PARAM
#define TB_SG_ARG

TB_CL_FN uint tb_sg_linear_id() { return threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z); }
TB_CL_FN uint tb_sg_group_items() { return blockDim.x * blockDim.y * blockDim.z; }
TB_CL_FN uint get_sub_group_local_id() { return tb_sg_linear_id() & 31u; }
TB_CL_FN uint get_sub_group_id() { return tb_sg_linear_id() >> 5; }
TB_CL_FN uint get_num_sub_groups() { return (tb_sg_group_items() + 31u) >> 5; }
TB_CL_FN uint get_max_sub_group_size() { return min(tb_sg_group_items(), 32u); }
TB_CL_FN uint get_sub_group_size() { return min(tb_sg_group_items() - (tb_sg_linear_id() & ~31u), 32u); }
// The lanes of this sub-group: all 32 but in a partial last one.
TB_CL_FN uint tb_sg_mask() {
    const uint n = get_sub_group_size();
    return n == 32u ? 0xffffffffu : (1u << n) - 1u;
}

TB_CL_FN void sub_group_barrier(cl_mem_fence_flags) { __syncwarp(tb_sg_mask()); }
TB_CL_FN int sub_group_all(int predicate) { return __all_sync(tb_sg_mask(), predicate); }
TB_CL_FN int sub_group_any(int predicate) { return __any_sync(tb_sg_mask(), predicate); }

// Identities of the exclusive scans, as OpenCL defines them.
TB_CL_FN float tb_sg_min_identity(float) { return INFINITY; }
TB_CL_FN int tb_sg_min_identity(int) { return INT_MAX; }
TB_CL_FN uint tb_sg_min_identity(uint) { return UINT_MAX; }
TB_CL_FN float tb_sg_max_identity(float) { return -INFINITY; }
TB_CL_FN int tb_sg_max_identity(int) { return INT_MIN; }
TB_CL_FN uint tb_sg_max_identity(uint) { return 0u; }
template <class T> TB_CL_FN T tb_sg_add(T a, T b) { return a + b; }
TB_CL_FN float tb_sg_min(float a, float b) { return fminf(a, b); }
TB_CL_FN float tb_sg_max(float a, float b) { return fmaxf(a, b); }
template <class T> TB_CL_FN T tb_sg_min(T a, T b) { return min(a, b); }
template <class T> TB_CL_FN T tb_sg_max(T a, T b) { return max(a, b); }

// Reduction: a full warp uses the xor butterfly (every lane ends with the same value, since
// each step adds the same two operands in every lane); a partial one a tree down to lane 0,
// then a broadcast.
#define TB_SG_REDUCE(OP, T)                                                                      \
    TB_CL_FN T sub_group_reduce_##OP(T x) {                                                      \
        const uint n = get_sub_group_size();                                                     \
        if (n == 32u) {                                                                          \
            for (int o = 16; o > 0; o >>= 1) x = tb_sg_##OP(x, __shfl_xor_sync(0xffffffffu, x, o)); \
            return x;                                                                            \
        }                                                                                        \
        const uint mask = tb_sg_mask(), lane = get_sub_group_local_id();                         \
        for (int o = 16; o > 0; o >>= 1) {                                                       \
            const T y = __shfl_down_sync(mask, x, o);                                            \
            if (lane + o < n) x = tb_sg_##OP(x, y);                                              \
        }                                                                                        \
        return __shfl_sync(mask, x, 0);                                                          \
    }
// Scans: Hillis-Steele with shuffles up; the exclusive scan shifts the inclusive one by a lane.
#define TB_SG_SCAN(OP, T, IDENTITY)                                                              \
    TB_CL_FN T sub_group_scan_inclusive_##OP(T x) {                                              \
        const uint mask = tb_sg_mask(), lane = get_sub_group_local_id();                         \
        for (int o = 1; o < 32; o <<= 1) {                                                       \
            const T y = __shfl_up_sync(mask, x, o);                                              \
            if (lane >= (uint)o) x = tb_sg_##OP(x, y);                                           \
        }                                                                                        \
        return x;                                                                                \
    }                                                                                            \
    TB_CL_FN T sub_group_scan_exclusive_##OP(T x) {                                              \
        const T inc = sub_group_scan_inclusive_##OP(x);                                          \
        const T prev = __shfl_up_sync(tb_sg_mask(), inc, 1);                                     \
        return get_sub_group_local_id() == 0u ? IDENTITY : prev;                                 \
    }
#define TB_SG_TYPE(T)                                                                            \
    TB_CL_FN T sub_group_broadcast(T x, uint lane) { return __shfl_sync(tb_sg_mask(), x, lane); } \
    TB_CL_FN T sub_group_shuffle(T x, uint lane) { return __shfl_sync(tb_sg_mask(), x, lane); }   \
    TB_CL_FN T sub_group_shuffle_xor(T x, uint m) { return __shfl_xor_sync(tb_sg_mask(), x, m); } \
    TB_CL_FN T sub_group_shuffle_up(T x, uint d) { return __shfl_up_sync(tb_sg_mask(), x, d); }   \
    TB_CL_FN T sub_group_shuffle_down(T x, uint d) { return __shfl_down_sync(tb_sg_mask(), x, d); } \
    TB_SG_REDUCE(add, T) TB_SG_REDUCE(min, T) TB_SG_REDUCE(max, T)                               \
    TB_SG_SCAN(add, T, (T)0) TB_SG_SCAN(min, T, tb_sg_min_identity(x)) TB_SG_SCAN(max, T, tb_sg_max_identity(x))
TB_SG_TYPE(float)
TB_SG_TYPE(int)
TB_SG_TYPE(uint)
#undef TB_SG_TYPE
#undef TB_SG_SCAN
#undef TB_SG_REDUCE

// ---- Load hints (tribench's own names; docs/prelude.md, "Load hints") ----------------------
// Data read once goes through L1 and L2 evict-first (PTX ld.global.cs), as kernels.cu's
// __ldcs, so that data read again stays cached. The opencl backend gives kernels.cl the same
// names (backends/opencl/load_hints.cl).
TB_CL_FN uint tb_load_streaming(const uint *p) { return __ldcs(p); }
TB_CL_FN int tb_load_streaming(const int *p) { return __ldcs(p); }
TB_CL_FN float tb_load_streaming(const float *p) { return __ldcs(p); }
// Data no work-item writes during the kernel goes through the read-only (non-coherent) path,
// PTX ld.global.nc, as kernels.cu's __ldg: the same instructions and the same code shape
// around them (NVVM treats __ldg as an opaque load, a plain restrict load as an ordinary one).
TB_CL_FN uint tb_load_readonly(const uint *p) { return __ldg(p); }
TB_CL_FN int tb_load_readonly(const int *p) { return __ldg(p); }
TB_CL_FN float tb_load_readonly(const float *p) { return __ldg(p); }
TB_CL_FN float2 tb_load_readonly(const float2 *p) { return __ldg(p); }
TB_CL_FN float4 tb_load_readonly(const float4 *p) { return __ldg(p); }
TB_CL_FN int4 tb_load_readonly(const int4 *p) { return __ldg(p); }

#undef TB_CL_FN
#endif  // TRIBENCH_PRELUDE_CUH
