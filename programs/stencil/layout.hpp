// Memory layout of one stencil field: nx x ny x nz floats with a halo of 2 cells in x and
// y, x fastest. Rows are padded to a multiple of 32 floats and the buffer starts 30 floats
// before a 128-byte boundary, so every interior row (i = 0) starts 128-byte aligned: a
// warp's row loads and stores are then whole, aligned 128-byte lines.
#pragma once

#include <cstdint>
#include <string>

#include "device.hpp"

namespace tb::stencil {

inline constexpr int kHalo = 2;   // cells of halo on each side in x and y
inline constexpr int kAlign = 32; // floats per 128 bytes

struct Layout {
    int nx = 0, ny = 0, nz = 0;
    int pitch = 0;           // floats per row (halo and padding included), multiple of kAlign
    std::int64_t plane = 0;  // floats per z-plane: pitch * (ny + 2 * kHalo)
    std::int64_t base = 0;   // index of interior cell (0, 0, 0)
    std::int64_t total = 0;  // floats in the buffer
    // Index of cell (i, j, k) for i in [-2, nx + 2), j in [-2, ny + 2), k in [0, nz).
    std::int64_t at(int i, int j, int k) const { return base + k * plane + std::int64_t(j) * pitch + i; }
    std::size_t bytes() const { return std::size_t(total) * sizeof(float); }
};

// Throws tb::Error naming the problem: nx and ny must be even and >= 4 (the checkerboard
// mode and the kernels' float2 accesses need even sizes), and every index must fit in
// int32 (kernels index with int).
inline Layout make_layout(int nx, int ny, int nz) {
    if (nx < 4 || ny < 4 || nz < 1 || nx % 2 || ny % 2)
        throw Error("stencil: grid " + std::to_string(nx) + "x" + std::to_string(ny) + "x" + std::to_string(nz) +
                    " is not supported (nx and ny must be even and >= 4, nz >= 1)");
    Layout l;
    l.nx = nx;
    l.ny = ny;
    l.nz = nz;
    l.pitch = (nx + 2 * kHalo + kAlign - 1) / kAlign * kAlign;
    l.plane = std::int64_t(l.pitch) * (ny + 2 * kHalo);
    l.base = kAlign + std::int64_t(kHalo) * l.pitch;  // cell (-2, -2, 0) sits at kAlign - 2
    l.total = kAlign + l.plane * nz;
    if (l.total >= (std::int64_t(1) << 31))
        throw Error("stencil: grid " + std::to_string(nx) + "x" + std::to_string(ny) + "x" + std::to_string(nz) +
                    " needs more than 2^31 floats per field (kernels index with int32)");
    return l;
}

}  // namespace tb::stencil
