// How a transform is split into global passes, each one kernel launch doing a large-radix
// Stockham step with all its inner radix-8/16 stages in local memory (docs/programs/fft.md).
//
// Index conventions of one pass (shared by kernels.cl and kernels.cu): the array is a set
// of independent "items" of R*M points. Inside an item, column G in [0, M) holds the R
// points G + t*M (t in [0, R)); the pass multiplies point t by the twiddle W_{Ns*R}^(t*jm)
// (jm = (G mod Nsv) / S, only when Ns > 1), does the R-point DFT of the column and writes
// output k to (G / Nsv) * Nsv * R + (G mod Nsv) + k * Nsv. With Nsv = Ns * S this is the
// Stockham autosort step of a transform of length L = prod(R) with inner stride S.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "device.hpp"
#include "shape.hpp"

namespace tb::fft {

// log2 of the inner twiddle table's length (W_4096^k): the largest R a pass may have.
inline constexpr int kTwiddleLog2 = 12;
inline constexpr int kMinLog2R = 3;  // kernels exist for R = 8 .. 4096
// Work-items per group that kernels.cu is compiled for (__launch_bounds__, -DFFT_CU_THREADS).
inline constexpr int kCudaMaxThreads = 512;

// What a device and a kernel dialect allow and prefer.
struct Limits {
    int log2_max_radix = 3;               // points per work-item: 8 (kernels.cl) or 16 (kernels.cu)
    std::size_t max_local_bytes = 0;      // local memory per work-group
    std::size_t max_group = 0;            // work-items per work-group
    std::int64_t target_points = 4096;    // points per work-group the plan aims at
    int min_strided_columns = 16;         // columns per group of a strided pass (coalescing)
};

// Limits for `dialect` on a device reporting `info` (the cuda-native launch bound included).
Limits limits_for(Dialect dialect, const DeviceInfo& info);

struct Pass {
    int log2R = 0;     // points per column: kernel fft_r<R>
    int log2C = 0;     // columns per work-group
    int log2M = 0;     // columns per item, = stride between a column's points (0: contiguous)
    int log2Nsv = 0;   // output stride of a column's points (0: contiguous)
    int log2S = 0;     // inner stride of the transform axis (twiddle column index = G / S)
    int log2Ns = 0;    // product of the earlier radices on this axis; twiddles iff > 0
    std::int64_t columns = 0;  // items * M
    int threads = 0;           // work-items per group = C * R / points per work-item
    int col_pitch = 0;         // local-memory pitch of one column in the contiguous layout
    std::size_t local_bytes = 0;
    std::uint64_t groups() const { return std::uint64_t((columns + (std::int64_t(1) << log2C) - 1) >> log2C); }
    int twiddle_log2B() const { return log2Ns > 0 ? (log2Ns + log2R + 1) / 2 : -1; }
};

// The passes of one forward transform of `shape`, in execution order. Throws tb::Error if
// the device cannot hold the smallest work-group the kernels need.
std::vector<Pass> make_plan(const Shape& shape, const Limits& lim);

// One axis: items independent transforms of length 2^log2L with inner stride 2^log2S.
std::vector<Pass> plan_axis(int log2L, int log2S, std::int64_t items, const Limits& lim);

// W_4096^k for k < 4096 (forward sign), from double-precision cos/sin rounded to float,
// interleaved re, im.
std::vector<float> inner_twiddles();

// The two-level table of a twiddled pass: W_L^i for i < B, then W_L^(i*B) for i < L/B,
// with L = Ns*R and B = 2^twiddle_log2B(); empty when the pass has no twiddle.
std::vector<float> pass_twiddles(const Pass& p);

}  // namespace tb::fft
