// EXPERIMENT nbody-cl-div-sqrt (reports/h100/REPORT.md): programs/nbody/kernels.cl with ONE change:
// rsqrt(r2) -> 1.0f / sqrt(r2), the form of Futhark's (and Accelerate's) nbody: a division and a
// square root whose accuracy each toolchain's default math mode decides (IEEE in NVRTC, 2.5/3 ulp
// in OpenCL C), the semantic gap behind the Futhark thesis' CUDA-vs-OpenCL nbody numbers.
// All-pairs gravitational N-body, one semi-implicit Euler step per launch:
//   a_i = sum_j m_j (r_j - r_i) / (|r_j - r_i|^2 + eps2)^(3/2);  v_i += a_i dt;  r_i += v_i dt.
// Bodies are float4: position xyz + mass w; velocities float4 (w carried through).
//
// Geometry (chosen by the host, programs/nbody/launch.cpp): a work-group is T x Q items.
// It owns T * NBODY_BODIES_PER_ITEM consecutive bodies; item (tx, ty) owns bodies
// first + k*T + tx. The j range is walked in super-tiles of T*Q bodies staged in local
// memory; slice ty of the group sums over the ty-th T bodies of each super-tile, so Q slices
// split every body's sum and meet in local memory at the end. Q == 1 is the classic tiling.
// `tile` holds T * Q * NBODY_BODIES_PER_ITEM float4s (the partial sums need that many).
// Reading old positions only (pos_in) and writing separate buffers keeps steps race-free.

#ifndef NBODY_BODIES_PER_ITEM
#define NBODY_BODIES_PER_ITEM 2  // the host always passes its own value (Program::defines)
#endif
#define NB NBODY_BODIES_PER_ITEM

__kernel void nbody_step(__global const float4 *restrict pos_in,
                         __global const float4 *restrict vel_in,
                         __global float4 *restrict pos_out,
                         __global float4 *restrict vel_out,
                         int n, float dt, float eps2,
                         __local float4 *tile)
{
    const int tx = (int)get_local_id(0);
    const int ty = (int)get_local_id(1);
    const int T = (int)get_local_size(0);
    const int Q = (int)get_local_size(1);
    const int first = (int)get_group_id(0) * T * NB;

    float px[NB], py[NB], pz[NB], ax[NB], ay[NB], az[NB];
    for (int k = 0; k < NB; ++k) {
        // Items past the end work on a copy of the last body and never store it.
        const float4 p = pos_in[min(first + k * T + tx, n - 1)];
        px[k] = p.x; py[k] = p.y; pz[k] = p.z;
        ax[k] = 0.0f; ay[k] = 0.0f; az[k] = 0.0f;
    }

    for (int base = 0; base < n; base += T * Q) {
        const int j = base + ty * T + tx;
        float4 pj;
        if (j < n) {
            pj = pos_in[j];
        } else {
            // Zero mass at the origin: eps2 > 0 keeps the term finite, so it adds exactly 0.
            pj.x = 0.0f; pj.y = 0.0f; pj.z = 0.0f; pj.w = 0.0f;
        }
        tile[ty * T + tx] = pj;
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int jj = 0; jj < T; ++jj) {
            const float4 q = tile[ty * T + jj];
            for (int k = 0; k < NB; ++k) {
                const float dx = q.x - px[k];
                const float dy = q.y - py[k];
                const float dz = q.z - pz[k];
                const float r2 = dx * dx + dy * dy + dz * dz + eps2;
                const float inv = 1.0f / sqrt(r2);
                const float s = q.w * inv * inv * inv;
                ax[k] += dx * s;
                ay[k] += dy * s;
                az[k] += dz * s;
            }
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }

    // Partial sums of slice ty for body b = k*T + tx go to tile[ty*T*NB + b].
    for (int k = 0; k < NB; ++k) {
        float4 a;
        a.x = ax[k]; a.y = ay[k]; a.z = az[k]; a.w = 0.0f;
        tile[(ty * NB + k) * T + tx] = a;
    }
    barrier(CLK_LOCAL_MEM_FENCE);

    for (int b = ty * T + tx; b < T * NB; b += T * Q) {
        const int i = first + b;
        if (i >= n)
            break;  // b only grows
        float sx = 0.0f, sy = 0.0f, sz = 0.0f;
        for (int s = 0; s < Q; ++s) {
            const float4 a = tile[s * T * NB + b];
            sx += a.x; sy += a.y; sz += a.z;
        }
        float4 v = vel_in[i];
        v.x += sx * dt; v.y += sy * dt; v.z += sz * dt;
        float4 p = pos_in[i];
        p.x += v.x * dt; p.y += v.y * dt; p.z += v.z * dt;
        vel_out[i] = v;
        pos_out[i] = p;
    }
}
