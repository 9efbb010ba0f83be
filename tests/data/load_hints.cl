// Every load hint of docs/prelude.md ("Load hints") on uint, int and float, run by
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
