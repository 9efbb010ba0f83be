// Fourth-order diffusion filter out = in - alpha * L(L(in)) on a periodic 3-D field with a
// halo of 2 in x and y (layout: programs/stencil/layout.hpp; cell (i, j, k) at
// base + k * plane + j * pitch + i, interior rows 128-byte aligned). The same algorithm as
// kernels.cu, line for line (docs/programs/stencil.md); the constants come from the host.
#ifndef STENCIL_GROUP_X
#error "STENCIL_GROUP_X must come from the host (programs/stencil/tuning.hpp)"
#endif
#ifndef STENCIL_GROUP_Y
#error "STENCIL_GROUP_Y must come from the host (programs/stencil/tuning.hpp)"
#endif
#ifndef STENCIL_HALO_GROUP
#error "STENCIL_HALO_GROUP must come from the host (programs/stencil/tuning.hpp)"
#endif
#ifndef STENCIL_TILE_X
#error "STENCIL_TILE_X must come from the host (programs/stencil/tuning.hpp)"
#endif
#ifndef STENCIL_TILE_Y
#error "STENCIL_TILE_Y must come from the host (programs/stencil/tuning.hpp)"
#endif

#define THREADS (STENCIL_GROUP_X * STENCIL_GROUP_Y)
#define IN_W (STENCIL_TILE_X + 4) /* input tile with its 2-cell apron */
#define IN_H (STENCIL_TILE_Y + 4)
#define IN_SIZE (IN_W * IN_H)
#define LAP_W (STENCIL_TILE_X + 2) /* first Laplacian, one cell around the tile */
#define LAP_H (STENCIL_TILE_Y + 2)
#define LAP_PASSES ((LAP_W * LAP_H + THREADS - 1) / THREADS)
#define ROW_STEP (THREADS / STENCIL_TILE_X)                              /* tile rows loaded per pass */
#define MAIN_LOADS ((IN_H + ROW_STEP - 1) / ROW_STEP)                    /* tile cells per work-item */

#if THREADS % STENCIL_TILE_X != 0 || STENCIL_TILE_X % STENCIL_GROUP_X != 0 || \
    STENCIL_TILE_Y % STENCIL_GROUP_Y != 0 || 4 * IN_H > THREADS
#error "tile and group do not fit: whole tile rows per load pass, one apron cell per work-item at most"
#endif
/* The host's second LocalMem (lap) is a separate argument here; kernels.cu finds it right
   after the tile, which needs the tile's size to be a multiple of 16 bytes. */
#if (2 * IN_SIZE * 4) % 16 != 0
#error "the tile's local memory must be a multiple of 16 bytes"
#endif

static inline int wrap(int v, int n) { return ((v % n) + n) % n; }

// ---- unfused: the four kernels a library user composes per iteration -------------------

// Copies the periodic boundary into the halo. One work-item per halo cell of a plane
// (get_global_id(1) is the plane): first the 4 full halo rows (corners included), then the
// 2 + 2 halo columns of the interior rows, 4 consecutive work-items per row.
__kernel __attribute__((reqd_work_group_size(STENCIL_HALO_GROUP, 1, 1)))
void halo_update(__global float *restrict f, int nx, int ny, int base, int pitch, int plane)
{
    const int r = (int)get_global_id(0);
    const int k = (int)get_global_id(1);
    const int row_cells = 4 * (nx + 4);
    int i, j;
    if (r < row_cells) {
        const int q = r / (nx + 4);
        j = q < 2 ? q - 2 : ny + q - 2;
        i = r - q * (nx + 4) - 2;
    } else {
        const int s = r - row_cells;
        if (s >= 4 * ny)
            return;
        const int q = s & 3;
        j = s >> 2;
        i = q < 2 ? q - 2 : nx + q - 2;
    }
    const int si = i < 0 ? i + nx : (i >= nx ? i - nx : i);
    const int sj = j < 0 ? j + ny : (j >= ny ? j - ny : j);
    __global float *p = f + base + k * plane;
    p[j * pitch + i] = p[sj * pitch + si];
}

// 5-point Laplacian on [-ext, nx + ext) x [-ext, ny + ext); one work-item per cell.
__kernel __attribute__((reqd_work_group_size(STENCIL_GROUP_X, STENCIL_GROUP_Y, 1)))
void laplacian(__global const float *restrict in, __global float *restrict out,
               int nx, int ny, int ext, int base, int pitch, int plane)
{
    const int i = (int)get_global_id(0) - ext;
    const int j = (int)get_global_id(1) - ext;
    const int k = (int)get_global_id(2);
    if (i >= nx + ext || j >= ny + ext)
        return;
    const int c = base + k * plane + j * pitch + i;
    out[c] = -4.0f * in[c] + in[c - 1] + in[c + 1] + in[c - pitch] + in[c + pitch];
}

// out = in - alpha * lap2 on the interior.
__kernel __attribute__((reqd_work_group_size(STENCIL_GROUP_X, STENCIL_GROUP_Y, 1)))
void diffusion_update(__global const float *restrict in, __global const float *restrict lap2,
                      __global float *restrict out, float alpha,
                      int nx, int ny, int base, int pitch, int plane)
{
    const int i = (int)get_global_id(0);
    const int j = (int)get_global_id(1);
    const int k = (int)get_global_id(2);
    if (i >= nx || j >= ny)
        return;
    const int c = base + k * plane + j * pitch + i;
    out[c] = in[c] - alpha * lap2[c];
}

// ---- fused: one kernel per iteration ----------------------------------------------------

// A group of GROUP_X x GROUP_Y work-items computes a TILE_X x TILE_Y tile for planes
// [z0, z0 + zper). Per plane, the input tile and its 2-cell apron are read with periodic
// indexing (no halo update needed) into local memory: work-item t loads the tile cells
// (t % TILE_X, t / TILE_X + ROW_STEP * m), so each pass reads whole 256-byte tile rows
// (coalesced), and work-items t < 4 * IN_H one cell of the x apron. The first Laplacian is
// computed one cell around the tile into local memory, the second plus the update go
// straight to global memory. The next plane's loads are issued into registers before the
// current plane is computed, and the input tile is double buffered, so two barriers per
// plane suffice and loads overlap compute. tile: 2 * IN_SIZE floats; lap: LAP_W * LAP_H floats.
// No group size is declared, unlike the other kernels: ptxas then plans for 1024 work-items
// (at most 64 registers: 63 here, 4 groups per SM), where a bound of 256 lets it take 80
// registers and 3 groups per SM, 7% slower on an H100 (docs/programs/stencil.md).
__kernel void diffusion_fused(__global const float *restrict in, __global float *restrict out, float alpha,
                     int nx, int ny, int nz, int zper, int base, int pitch, int plane,
                     __local float *tile, __local float *lap)
{
    const int lane = (int)get_local_id(0);
    const int warp = (int)get_local_id(1);
    const int t = warp * STENCIL_GROUP_X + lane;
    const int x0 = (int)get_group_id(0) * STENCIL_TILE_X;
    const int y0 = (int)get_group_id(1) * STENCIL_TILE_Y;
    const int z0 = (int)get_group_id(2) * zper;
    const int z1 = min(z0 + zper, nz);

    // Per-work-item global offsets, the same for every plane.
    const int col = t % STENCIL_TILE_X;
    const int row0 = t / STENCIL_TILE_X;
    const int gx = wrap(x0 + col, nx);
    int off[MAIN_LOADS];
#pragma unroll
    for (int m = 0; m < MAIN_LOADS; ++m) {
        const int row = min(row0 + ROW_STEP * m, IN_H - 1);
        off[m] = base + wrap(y0 + row - 2, ny) * pitch + gx;
    }
    const int has_apron = t < 4 * IN_H;
    const int arow = min(t >> 2, IN_H - 1);
    const int acol = (t & 3) < 2 ? (t & 3) - 2 : STENCIL_TILE_X + (t & 3) - 2; /* -2, -1, TILE_X, TILE_X + 1 */
    const int aoff = base + wrap(y0 + arow - 2, ny) * pitch + wrap(x0 + acol, nx);
    const int a_local = arow * IN_W + acol + 2;

    float pre[MAIN_LOADS];
    float apre = 0.0f;
    {
        __global const float *p = in + z0 * plane;
#pragma unroll
        for (int m = 0; m < MAIN_LOADS; ++m)
            pre[m] = p[off[m]];
        if (has_apron)
            apre = p[aoff];
    }

    for (int k = z0; k < z1; ++k) {
        __local float *s = tile + ((k - z0) & 1) * IN_SIZE;
#pragma unroll
        for (int m = 0; m < MAIN_LOADS; ++m) {
            const int row = row0 + ROW_STEP * m;
            if (row < IN_H)
                s[row * IN_W + col + 2] = pre[m];
        }
        if (has_apron)
            s[a_local] = apre;
        if (k + 1 < z1) {
            __global const float *p = in + (k + 1) * plane;
#pragma unroll
            for (int m = 0; m < MAIN_LOADS; ++m)
                pre[m] = p[off[m]];
            if (has_apron)
                apre = p[aoff];
        }
        barrier(CLK_LOCAL_MEM_FENCE);

        // First Laplacian: lap cell (r, c) is tile cell (r - 1, c - 1), input cell (r + 1, c + 1).
#pragma unroll
        for (int q = 0; q < LAP_PASSES; ++q) {
            const int idx = t + q * THREADS;
            if (idx < LAP_W * LAP_H) {
                const int r = idx / LAP_W;
                const int ci = (r + 1) * IN_W + (idx - r * LAP_W) + 1;
                lap[idx] = -4.0f * s[ci] + s[ci - 1] + s[ci + 1] + s[ci - IN_W] + s[ci + IN_W];
            }
        }
        barrier(CLK_LOCAL_MEM_FENCE);

        // Second Laplacian and update: lane owns columns lane + GROUP_X * a (conflict-free
        // local reads, 128-byte coalesced stores), warp owns rows warp + GROUP_Y * b.
        __global float *o = out + base + k * plane;
#pragma unroll
        for (int b = 0; b < STENCIL_TILE_Y / STENCIL_GROUP_Y; ++b) {
            const int y = warp + b * STENCIL_GROUP_Y;
#pragma unroll
            for (int a = 0; a < STENCIL_TILE_X / STENCIL_GROUP_X; ++a) {
                const int x = lane + a * STENCIL_GROUP_X;
                const int cl = (y + 1) * LAP_W + x + 1;
                const float l2 = -4.0f * lap[cl] + lap[cl - 1] + lap[cl + 1] + lap[cl - LAP_W] + lap[cl + LAP_W];
                const float v = s[(y + 2) * IN_W + x + 2] - alpha * l2;
                if (x0 + x < nx && y0 + y < ny)
                    o[(y0 + y) * pitch + x0 + x] = v;
            }
        }
    }
}
