// Fourth-order diffusion filter out = in - alpha * L(L(in)) on a periodic 3-D field with a
// halo of 2 in x and y (layout: programs/stencil/layout.hpp; cell (i, j, k) at
// base + k * plane + j * pitch + i, interior rows 128-byte aligned). The same algorithm as
// kernels.cl, line for line (docs/programs/stencil.md); the constants come from the host.
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

namespace {
constexpr int kThreads = STENCIL_GROUP_X * STENCIL_GROUP_Y;
constexpr int kInW = STENCIL_TILE_X + 4;  // input tile with its 2-cell apron
constexpr int kInH = STENCIL_TILE_Y + 4;
constexpr int kInSize = kInW * kInH;
constexpr int kLapW = STENCIL_TILE_X + 2;  // first Laplacian, one cell around the tile
constexpr int kLapH = STENCIL_TILE_Y + 2;
constexpr int kLapPasses = (kLapW * kLapH + kThreads - 1) / kThreads;
constexpr int kRowStep = kThreads / STENCIL_TILE_X;                // tile rows loaded per pass
constexpr int kMainLoads = (kInH + kRowStep - 1) / kRowStep;       // tile cells per thread
static_assert(kThreads % STENCIL_TILE_X == 0 && STENCIL_TILE_X % STENCIL_GROUP_X == 0 &&
                  STENCIL_TILE_Y % STENCIL_GROUP_Y == 0 && 4 * kInH <= kThreads,
              "tile and group do not fit: whole tile rows per load pass, one apron cell per thread at most");
// The host passes the tile and the first Laplacian as two LocalMem; the CUDA backend places
// the second at the first's size rounded up to 16 bytes, which is where s_lap points.
static_assert(2 * kInSize * sizeof(float) % 16 == 0, "the second LocalMem starts right after the tile");

__device__ __forceinline__ int wrap(int v, int n) { return ((v % n) + n) % n; }
}  // namespace

// ---- unfused: the four kernels a library user composes per iteration -------------------

// Copies the periodic boundary into the halo. One thread per halo cell of a plane (global
// y is the plane): first the 4 full halo rows (corners included), then the 2 + 2 halo
// columns of the interior rows, 4 consecutive threads per row.
extern "C" __global__ void __launch_bounds__(STENCIL_HALO_GROUP)
halo_update(float* __restrict__ f, int nx, int ny, int base, int pitch, int plane)
{
    const int r = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
    const int k = static_cast<int>(blockIdx.y * blockDim.y + threadIdx.y);
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
    float* p = f + base + k * plane;
    p[j * pitch + i] = p[sj * pitch + si];
}

// 5-point Laplacian on [-ext, nx + ext) x [-ext, ny + ext); one thread per cell.
extern "C" __global__ void __launch_bounds__(STENCIL_GROUP_X * STENCIL_GROUP_Y)
laplacian(const float* __restrict__ in, float* __restrict__ out, int nx, int ny, int ext, int base, int pitch,
          int plane)
{
    const int i = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x) - ext;
    const int j = static_cast<int>(blockIdx.y * blockDim.y + threadIdx.y) - ext;
    const int k = static_cast<int>(blockIdx.z * blockDim.z + threadIdx.z);
    if (i >= nx + ext || j >= ny + ext)
        return;
    const int c = base + k * plane + j * pitch + i;
    out[c] = -4.0f * in[c] + in[c - 1] + in[c + 1] + in[c - pitch] + in[c + pitch];
}

// out = in - alpha * lap2 on the interior.
extern "C" __global__ void __launch_bounds__(STENCIL_GROUP_X * STENCIL_GROUP_Y)
diffusion_update(const float* __restrict__ in, const float* __restrict__ lap2, float* __restrict__ out, float alpha,
                 int nx, int ny, int base, int pitch, int plane)
{
    const int i = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
    const int j = static_cast<int>(blockIdx.y * blockDim.y + threadIdx.y);
    const int k = static_cast<int>(blockIdx.z * blockDim.z + threadIdx.z);
    if (i >= nx || j >= ny)
        return;
    const int c = base + k * plane + j * pitch + i;
    out[c] = in[c] - alpha * lap2[c];
}

// ---- fused: one kernel per iteration ----------------------------------------------------

// A block of GROUP_X x GROUP_Y threads computes a TILE_X x TILE_Y tile for planes
// [z0, z0 + zper). Per plane, the input tile and its 2-cell apron are read with periodic
// indexing (no halo update needed) into shared memory: thread t loads the tile cells
// (t % TILE_X, t / TILE_X + kRowStep * m), so each pass reads whole 256-byte tile rows
// (coalesced), and threads t < 4 * kInH one cell of the x apron. The first Laplacian is
// computed one cell around the tile into shared memory, the second plus the update go
// straight to global memory. The next plane's loads are issued into registers before the
// current plane is computed, and the input tile is double buffered, so two barriers per
// plane suffice and loads overlap compute.
// Dynamic shared memory: 2 * kInSize + kLapW * kLapH floats (the host's two LocalMem).
// No launch bounds, as in kernels.cl: ptxas then plans for 1024 threads (at most 64
// registers: 63 here, 4 blocks per SM), where a bound of 256 lets it take 80 registers and 3
// blocks per SM, 7% slower on an H100 (docs/programs/stencil.md).
extern "C" __global__ void
diffusion_fused(const float* __restrict__ in, float* __restrict__ out, float alpha, int nx, int ny, int nz, int zper,
                int base, int pitch, int plane)
{
    extern __shared__ __align__(16) float smem[];
    float* const tile = smem;
    float* const lap = smem + 2 * kInSize;

    const int lane = static_cast<int>(threadIdx.x);
    const int warp = static_cast<int>(threadIdx.y);
    const int t = warp * STENCIL_GROUP_X + lane;
    const int x0 = static_cast<int>(blockIdx.x) * STENCIL_TILE_X;
    const int y0 = static_cast<int>(blockIdx.y) * STENCIL_TILE_Y;
    const int z0 = static_cast<int>(blockIdx.z) * zper;
    const int z1 = min(z0 + zper, nz);

    // Per-thread global offsets, the same for every plane.
    const int col = t % STENCIL_TILE_X;
    const int row0 = t / STENCIL_TILE_X;
    const int gx = wrap(x0 + col, nx);
    int off[kMainLoads];
#pragma unroll
    for (int m = 0; m < kMainLoads; ++m) {
        const int row = min(row0 + kRowStep * m, kInH - 1);
        off[m] = base + wrap(y0 + row - 2, ny) * pitch + gx;
    }
    const int has_apron = t < 4 * kInH;
    const int arow = min(t >> 2, kInH - 1);
    const int acol = (t & 3) < 2 ? (t & 3) - 2 : STENCIL_TILE_X + (t & 3) - 2;  // -2, -1, TILE_X, TILE_X + 1
    const int aoff = base + wrap(y0 + arow - 2, ny) * pitch + wrap(x0 + acol, nx);
    const int a_local = arow * kInW + acol + 2;

    float pre[kMainLoads];
    float apre = 0.0f;
    {
        const float* p = in + z0 * plane;
#pragma unroll
        for (int m = 0; m < kMainLoads; ++m)
            pre[m] = p[off[m]];
        if (has_apron)
            apre = p[aoff];
    }

    for (int k = z0; k < z1; ++k) {
        float* s = tile + ((k - z0) & 1) * kInSize;
#pragma unroll
        for (int m = 0; m < kMainLoads; ++m) {
            const int row = row0 + kRowStep * m;
            if (row < kInH)
                s[row * kInW + col + 2] = pre[m];
        }
        if (has_apron)
            s[a_local] = apre;
        if (k + 1 < z1) {
            const float* p = in + (k + 1) * plane;
#pragma unroll
            for (int m = 0; m < kMainLoads; ++m)
                pre[m] = p[off[m]];
            if (has_apron)
                apre = p[aoff];
        }
        __syncthreads();

        // First Laplacian: lap cell (r, c) is tile cell (r - 1, c - 1), input cell (r + 1, c + 1).
#pragma unroll
        for (int q = 0; q < kLapPasses; ++q) {
            const int idx = t + q * kThreads;
            if (idx < kLapW * kLapH) {
                const int r = idx / kLapW;
                const int ci = (r + 1) * kInW + (idx - r * kLapW) + 1;
                lap[idx] = -4.0f * s[ci] + s[ci - 1] + s[ci + 1] + s[ci - kInW] + s[ci + kInW];
            }
        }
        __syncthreads();

        // Second Laplacian and update: lane owns columns lane + GROUP_X * a (conflict-free
        // shared reads, 128-byte coalesced stores), warp owns rows warp + GROUP_Y * b.
        float* o = out + base + k * plane;
#pragma unroll
        for (int b = 0; b < STENCIL_TILE_Y / STENCIL_GROUP_Y; ++b) {
            const int y = warp + b * STENCIL_GROUP_Y;
#pragma unroll
            for (int a = 0; a < STENCIL_TILE_X / STENCIL_GROUP_X; ++a) {
                const int x = lane + a * STENCIL_GROUP_X;
                const int cl = (y + 1) * kLapW + x + 1;
                const float l2 = -4.0f * lap[cl] + lap[cl - 1] + lap[cl + 1] + lap[cl - kLapW] + lap[cl + kLapW];
                const float v = s[(y + 2) * kInW + x + 2] - alpha * l2;
                if (x0 + x < nx && y0 + y < ny)
                    o[(y0 + y) * pitch + x0 + x] = v;
            }
        }
    }
}
