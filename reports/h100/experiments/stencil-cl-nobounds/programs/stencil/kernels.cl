// EXPERIMENT stencil-cl-nobounds (reports/h100/REPORT.md): programs/stencil/kernels.cl as it was
// before the unfused kernels declared reqd_work_group_size (commit 4b465dc): the "before" side of
// that change, run next to the embedded kernels in the same session.
// Fourth-order diffusion filter out = in - alpha * L(L(in)) on a periodic 3-D field with a
// halo of 2 in x and y (layout: programs/stencil/layout.hpp; cell (i, j, k) at
// base + k * plane + j * pitch + i). TILE_X, TILE_Y, BLOCK_X, BLOCK_Y come from the host
// (Program::defines); the defaults below are the same values.
#ifndef TILE_X
#define TILE_X 64
#endif
#ifndef TILE_Y
#define TILE_Y 32
#endif
#ifndef BLOCK_X
#define BLOCK_X 32
#endif
#ifndef BLOCK_Y
#define BLOCK_Y 8
#endif

#define THREADS (BLOCK_X * BLOCK_Y)
#define IN_W (TILE_X + 4)  /* input tile with its 2-cell apron */
#define IN_H (TILE_Y + 4)
#define IN_SIZE (IN_W * IN_H)
#define LAP_W (TILE_X + 2) /* first Laplacian, needed one cell around the tile */
#define LAP_H (TILE_Y + 2)
#define MAIN_LOADS ((IN_H * TILE_X + THREADS - 1) / THREADS)
#define LAP_PASSES ((LAP_W * LAP_H + THREADS - 1) / THREADS)

// ---- unfused: the four kernels a library user composes per iteration -------------------

// Copies the periodic boundary into the halo. One work-item per halo cell of a plane
// (get_global_id(1) is the plane): first the 4 full halo rows (corners included), then the
// 2 + 2 halo columns of the interior rows, 4 consecutive work-items per row.
__kernel void halo_update(__global float *restrict f, int nx, int ny, int base, int pitch, int plane)
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
    const int p = base + k * plane;
    f[p + j * pitch + i] = f[p + sj * pitch + si];
}

// 5-point Laplacian on [-ext, nx + ext) x [-ext, ny + ext); one work-item per cell.
__kernel void laplacian(__global const float *restrict in, __global float *restrict out,
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
__kernel void diffusion_update(__global const float *restrict in, __global const float *restrict lap2,
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

// A work-group of BLOCK_X x BLOCK_Y computes a TILE_X x TILE_Y tile for planes
// [z0, z0 + zper). Per plane: the input tile and its 2-cell apron (read with periodic
// indexing, so no halo update is needed) go to local memory, the first Laplacian is computed
// one cell around the tile into local memory, then the second Laplacian and the update are
// written out. The next plane's loads are issued before the current plane is computed
// (held in private registers) and the input tile is double-buffered, so two barriers per
// plane suffice. tile: 2 * IN_SIZE floats; lap: LAP_W * LAP_H floats.
__kernel void diffusion_fused(__global const float *restrict in, __global float *restrict out, float alpha,
                              int nx, int ny, int nz, int zper, int base, int pitch, int plane,
                              __local float *tile, __local float *lap)
{
    const int lx = (int)get_local_id(0);
    const int ly = (int)get_local_id(1);
    const int t = ly * BLOCK_X + lx;
    const int x0 = (int)get_group_id(0) * TILE_X;
    const int y0 = (int)get_group_id(1) * TILE_Y;
    const int z0 = (int)get_group_id(2) * zper;
    const int z1 = min(z0 + zper, nz);

    // Work-item t loads tile cells (col, row0 + m * THREADS / TILE_X), m < MAIN_LOADS, of
    // the TILE_X interior columns, and work-item t < 4 * IN_H one apron cell (2 left, 2
    // right per row). Global offsets (periodic) are the same for every plane.
    const int col = t % TILE_X;
    const int row0 = t / TILE_X;
    const int gx = (x0 + col) % nx;
    int off[MAIN_LOADS];
    for (int m = 0; m < MAIN_LOADS; ++m) {
        const int row = min(row0 + m * (THREADS / TILE_X), IN_H - 1);
        off[m] = base + ((y0 + row - 2 + ny) % ny) * pitch + gx;
    }
    const int arow = min(t >> 2, IN_H - 1);
    const int acol = (t & 3) < 2 ? (t & 3) - 2 : TILE_X + (t & 3) - 2;
    const int aoff = base + ((y0 + arow - 2 + ny) % ny) * pitch + (x0 + acol + nx) % nx;
    const int a_local = arow * IN_W + acol + 2;
    const int has_apron = t < 4 * IN_H;

    float pre[MAIN_LOADS];
    float apre = 0.0f;
    for (int m = 0; m < MAIN_LOADS; ++m)
        pre[m] = in[z0 * plane + off[m]];
    if (has_apron)
        apre = in[z0 * plane + aoff];

    for (int k = z0; k < z1; ++k) {
        __local float *s = tile + ((k - z0) & 1) * IN_SIZE;
        for (int m = 0; m < MAIN_LOADS; ++m) {
            const int row = row0 + m * (THREADS / TILE_X);
            if (row < IN_H)
                s[row * IN_W + col + 2] = pre[m];
        }
        if (has_apron)
            s[a_local] = apre;
        if (k + 1 < z1) {
            const int p = (k + 1) * plane;
            for (int m = 0; m < MAIN_LOADS; ++m)
                pre[m] = in[p + off[m]];
            if (has_apron)
                apre = in[p + aoff];
        }
        barrier(CLK_LOCAL_MEM_FENCE);

        // First Laplacian on rows/cols [-1, TILE + 1) of the tile: lap cell (r, c) is tile
        // cell (r - 1, c - 1), input tile cell (r + 1, c + 1).
        for (int q = 0; q < LAP_PASSES; ++q) {
            const int idx = t + q * THREADS;
            if (idx < LAP_W * LAP_H) {
                const int r = idx / LAP_W;
                const int c = idx - r * LAP_W;
                const int ci = (r + 1) * IN_W + c + 1;
                lap[idx] = -4.0f * s[ci] + s[ci - 1] + s[ci + 1] + s[ci - IN_W] + s[ci + IN_W];
            }
        }
        barrier(CLK_LOCAL_MEM_FENCE);

        // Second Laplacian and update: work-item (lx, ly) owns columns lx + BLOCK_X * a and
        // rows ly + BLOCK_Y * b of the tile.
        const int p = base + k * plane;
        for (int b = 0; b < TILE_Y / BLOCK_Y; ++b) {
            const int y = ly + b * BLOCK_Y;
            for (int a = 0; a < TILE_X / BLOCK_X; ++a) {
                const int x = lx + a * BLOCK_X;
                const int cl = (y + 1) * LAP_W + x + 1;
                const float l2 = -4.0f * lap[cl] + lap[cl - 1] + lap[cl + 1] + lap[cl - LAP_W] + lap[cl + LAP_W];
                const float v = s[(y + 2) * IN_W + x + 2] - alpha * l2;
                if (x0 + x < nx && y0 + y < ny)
                    out[p + (y0 + y) * pitch + x0 + x] = v;
            }
        }
    }
}
