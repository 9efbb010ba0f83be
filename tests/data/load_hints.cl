// Every load hint of docs/prelude.md ("Load hints") on every type it takes, run by
// tests/test_load_hints.cpp on the opencl backend (each mode) and on cuda-prelude, and
// compiled by NVRTC in tests/test_nvrtc_compile.cpp. Work-item i copies element
// (i * 7) % n of each input (a permutation: n is not a multiple of 7).
__kernel void load_hints(uint n, __global const uint *restrict u, __global const int *restrict s,
                         __global const float *restrict f, __global uint *ou, __global int *os, __global float *of)
{
    const uint i = (uint)get_global_id(0);
    if (i >= n) return;
    const uint j = (i * 7u) % n;
    ou[i] = tb_load_streaming(u + j);
    os[i] = tb_load_streaming(s + j);
    of[i] = tb_load_streaming(f + j);
}

// The same copy through tb_load_readonly; the vector types read the inputs as n/2 float2,
// n/4 float4 and n/4 int4 (whose counts are not multiples of 7 either) and each work-item
// below those counts copies one of each as well.
__kernel void load_readonly(uint n, __global const uint *restrict u, __global const int *restrict s,
                            __global const float *restrict f, __global uint *ou, __global int *os, __global float *of,
                            __global float2 *of2, __global float4 *of4, __global int4 *os4)
{
    const uint i = (uint)get_global_id(0);
    if (i >= n) return;
    const uint j = (i * 7u) % n;
    ou[i] = tb_load_readonly(u + j);
    os[i] = tb_load_readonly(s + j);
    of[i] = tb_load_readonly(f + j);
    if (i < n / 2)
        of2[i] = tb_load_readonly((__global const float2 *)f + (i * 7u) % (n / 2));
    if (i < n / 4) {
        of4[i] = tb_load_readonly((__global const float4 *)f + (i * 7u) % (n / 4));
        os4[i] = tb_load_readonly((__global const int4 *)s + (i * 7u) % (n / 4));
    }
}
