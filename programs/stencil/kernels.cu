// Fourth-order diffusion filter out = in - alpha * L(L(in)) on a periodic 3-D field with a
// halo of 2 in x and y, as a CUDA programmer writes it (layout: programs/stencil/layout.hpp;
// cell (i, j, k) at base + k * plane + j * pitch + i, interior rows 128-byte aligned).
// TILE_X, TILE_Y, BLOCK_X, BLOCK_Y come from the host (Program::defines).
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

namespace {
constexpr int kThreads = BLOCK_X * BLOCK_Y;
constexpr int kInW = TILE_X + 4;  // input tile with its 2-cell apron
constexpr int kInH = TILE_Y + 4;
constexpr int kInSize = kInW * kInH;
constexpr int kLapW = TILE_X + 2;  // first Laplacian, one cell around the tile
constexpr int kLapH = TILE_Y + 2;
constexpr int kLapPasses = (kLapW * kLapH + kThreads - 1) / kThreads;
constexpr int kMainRows = (kInH + BLOCK_Y - 1) / BLOCK_Y;  // float2 row loads per thread
static_assert(BLOCK_X == 32, "one warp per tile row");
static_assert(TILE_X == 2 * BLOCK_X, "each lane loads a float2 of a tile row");
static_assert(TILE_Y % BLOCK_Y == 0, "whole rows per thread");
static_assert(2 * kInH <= kThreads, "one apron float2 per thread at most");
static_assert(kInW % 2 == 0 && kInSize % 2 == 0, "float2 stores into shared memory stay aligned");

__device__ __forceinline__ int wrap(int v, int n) { return ((v % n) + n) % n; }
}  // namespace

// ---- unfused: the four kernels a library user composes per iteration -------------------

// Copies the periodic boundary into the halo: the 4 full halo rows (corners included),
// then the 2 + 2 halo columns of the interior rows, 4 consecutive threads per row.
// blockIdx.y is the plane.
extern "C" __global__ void __launch_bounds__(256)
halo_update(float* __restrict__ f, int nx, int ny, int base, int pitch, int plane)
{
    const int r = blockIdx.x * blockDim.x + threadIdx.x;
    const int row_cells = 4 * (nx + 4);
    int i, j;
    if (r < row_cells) {
        const int q = r / (nx + 4);
        j = q < 2 ? q - 2 : ny + q - 2;
        i = r - q * (nx + 4) - 2;
    } else {
        const int s = r - row_cells;
        if (s >= 4 * ny) return;
        const int q = s & 3;
        j = s >> 2;
        i = q < 2 ? q - 2 : nx + q - 2;
    }
    const int si = i < 0 ? i + nx : (i >= nx ? i - nx : i);
    const int sj = j < 0 ? j + ny : (j >= ny ? j - ny : j);
    float* p = f + base + blockIdx.y * plane;
    p[j * pitch + i] = p[sj * pitch + si];
}

// 5-point Laplacian on [-ext, nx + ext) x [-ext, ny + ext); one thread per cell.
extern "C" __global__ void __launch_bounds__(256)
laplacian(const float* __restrict__ in, float* __restrict__ out, int nx, int ny, int ext, int base, int pitch,
          int plane)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x - ext;
    const int j = blockIdx.y * blockDim.y + threadIdx.y - ext;
    if (i >= nx + ext || j >= ny + ext) return;
    const int c = base + blockIdx.z * plane + j * pitch + i;
    out[c] = -4.0f * __ldg(in + c) + __ldg(in + c - 1) + __ldg(in + c + 1) + __ldg(in + c - pitch) +
             __ldg(in + c + pitch);
}

// out = in - alpha * lap2 on the interior.
extern "C" __global__ void __launch_bounds__(256)
diffusion_update(const float* __restrict__ in, const float* __restrict__ lap2, float* __restrict__ out, float alpha,
                 int nx, int ny, int base, int pitch, int plane)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    const int j = blockIdx.y * blockDim.y + threadIdx.y;
    if (i >= nx || j >= ny) return;
    const int c = base + blockIdx.z * plane + j * pitch + i;
    out[c] = __ldg(in + c) - alpha * __ldg(lap2 + c);
}

// ---- fused: one kernel per iteration ----------------------------------------------------

// A block of BLOCK_X x BLOCK_Y threads computes a TILE_X x TILE_Y tile for planes
// [z0, z0 + zper). Per plane, the input tile and its 2-cell apron are read with periodic
// indexing (no halo update needed) into shared memory: each warp loads whole 256-byte tile
// rows as float2 (coalesced, 128-byte aligned), threads < 2 * kInH one float2 of the x
// apron. The first Laplacian is computed one cell around the tile into shared memory, the
// second plus the update go straight to global memory. The next plane's loads are issued
// into registers before the current plane is computed, and the input tile is double
// buffered, so two barriers per plane suffice and loads overlap compute.
// Dynamic shared memory: 2 * kInSize + kLapW * kLapH floats (the host's two LocalMem).
extern "C" __global__ void __launch_bounds__(kThreads, 4)
diffusion_fused(const float* __restrict__ in, float* __restrict__ out, float alpha, int nx, int ny, int nz, int zper,
                int base, int pitch, int plane)
{
    extern __shared__ __align__(16) float smem[];
    float* const s_lap = smem + 2 * kInSize;

    const int lane = threadIdx.x;
    const int warp = threadIdx.y;
    const int t = warp * BLOCK_X + lane;
    const int x0 = blockIdx.x * TILE_X;
    const int y0 = blockIdx.y * TILE_Y;
    const int z0 = blockIdx.z * zper;
    const int z1 = min(z0 + zper, nz);

    // Per-thread global offsets, the same for every plane: tile rows warp + BLOCK_Y * m,
    // columns 2 * lane, 2 * lane + 1 (nx is even, so a wrapped pair stays adjacent).
    const int gx = wrap(x0 + 2 * lane, nx);
    int off[kMainRows];
#pragma unroll
    for (int m = 0; m < kMainRows; ++m) {
        const int row = min(warp + BLOCK_Y * m, kInH - 1);
        off[m] = base + wrap(y0 + row - 2, ny) * pitch + gx;
    }
    const bool has_apron = t < 2 * kInH;
    const int arow = min(t >> 1, kInH - 1);
    const int acol = (t & 1) ? TILE_X : -2;  // tile columns -2,-1 or TILE_X, TILE_X + 1
    const int aoff = base + wrap(y0 + arow - 2, ny) * pitch + wrap(x0 + acol, nx);
    const int a_smem = arow * kInW + acol + 2;

    float2 pre[kMainRows];
    float2 apre = make_float2(0.0f, 0.0f);
    {
        const float* p = in + z0 * plane;
#pragma unroll
        for (int m = 0; m < kMainRows; ++m)
            if (warp + BLOCK_Y * m < kInH) pre[m] = __ldg(reinterpret_cast<const float2*>(p + off[m]));
        if (has_apron) apre = __ldg(reinterpret_cast<const float2*>(p + aoff));
    }

    for (int k = z0; k < z1; ++k) {
        float* const s_in = smem + ((k - z0) & 1) * kInSize;
#pragma unroll
        for (int m = 0; m < kMainRows; ++m) {
            const int row = warp + BLOCK_Y * m;
            if (row < kInH) *reinterpret_cast<float2*>(s_in + row * kInW + 2 + 2 * lane) = pre[m];
        }
        if (has_apron) *reinterpret_cast<float2*>(s_in + a_smem) = apre;
        if (k + 1 < z1) {
            const float* p = in + (k + 1) * plane;
#pragma unroll
            for (int m = 0; m < kMainRows; ++m)
                if (warp + BLOCK_Y * m < kInH) pre[m] = __ldg(reinterpret_cast<const float2*>(p + off[m]));
            if (has_apron) apre = __ldg(reinterpret_cast<const float2*>(p + aoff));
        }
        __syncthreads();

        // First Laplacian: lap cell (r, c) is tile cell (r - 1, c - 1), s_in cell (r + 1, c + 1).
#pragma unroll
        for (int q = 0; q < kLapPasses; ++q) {
            const int idx = t + q * kThreads;
            if (idx < kLapW * kLapH) {
                const int r = idx / kLapW;
                const int ci = (r + 1) * kInW + (idx - r * kLapW) + 1;
                s_lap[idx] = -4.0f * s_in[ci] + s_in[ci - 1] + s_in[ci + 1] + s_in[ci - kInW] + s_in[ci + kInW];
            }
        }
        __syncthreads();

        // Second Laplacian and update: lane owns columns lane and lane + 32 (conflict-free
        // shared reads, 128-byte coalesced stores), warp owns rows warp + BLOCK_Y * b.
        float* const o = out + base + k * plane;
#pragma unroll
        for (int b = 0; b < TILE_Y / BLOCK_Y; ++b) {
            const int y = warp + b * BLOCK_Y;
#pragma unroll
            for (int a = 0; a < TILE_X / BLOCK_X; ++a) {
                const int x = lane + a * BLOCK_X;
                const int cl = (y + 1) * kLapW + x + 1;
                const float l2 =
                    -4.0f * s_lap[cl] + s_lap[cl - 1] + s_lap[cl + 1] + s_lap[cl - kLapW] + s_lap[cl + kLapW];
                const float v = s_in[(y + 2) * kInW + x + 2] - alpha * l2;
                if (x0 + x < nx && y0 + y < ny) o[(y0 + y) * pitch + x0 + x] = v;
            }
        }
    }
}
