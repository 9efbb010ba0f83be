// How a transform is split into global passes, each one kernel launch doing a large-radix
// Stockham step with all its inner stages in local memory (docs/programs/fft.md).
//
// Index conventions of one pass (shared by kernels.cl and kernels.cu): the array is a set
// of independent "items" of R*M points. Inside an item, column G in [0, M) holds the R
// points G + t*M (t in [0, R)); the pass multiplies point t by the twiddle W_{Ns*R}^(t*jm)
// (jm = (G mod Nsv) / S, only when Ns > 1), does the R-point DFT of the column and writes
// output k to (G / Nsv) * Nsv * R + (G mod Nsv) + k * Nsv. With Nsv = Ns * S this is the
// Stockham autosort step of a transform of length L = prod(R) with inner stride S.
// A group takes C = (group points) / R consecutive columns (global column index g, G =
// g mod M), so every launch has the same group size.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "device.hpp"
#include "shape.hpp"
#include "tuning.hpp"

namespace tb::fft {

struct Pass {
    int log2R = 0;     // points per column: kernel fft_r<R>
    int log2C = 0;     // columns per group (fixed by R and the tuning)
    int log2M = 0;     // columns per item, = stride between a column's points (0: contiguous)
    int log2Nsv = 0;   // output stride of a column's points (0: contiguous)
    int log2S = 0;     // inner stride of the transform axis (twiddle column index = G / S)
    int log2Ns = 0;    // product of the earlier radices on this axis; twiddles iff > 0
    std::int64_t columns = 0;  // items * M
    int threads = 0;           // work-items per group (the tuning's group size, or its wide one)
    std::size_t local_bytes = 0;
    bool wide = false;         // a wide kernel: fft_r4096_wide (a whole strided 4096-point axis in
                               // one pass) or fft_r1024_wide (8 strided columns of 1024 points)
    std::uint64_t groups() const { return std::uint64_t((columns + (std::int64_t(1) << log2C) - 1) >> log2C); }
    int twiddle_log2B() const { return log2Ns > 0 ? (log2Ns + log2R + 1) / 2 : -1; }
    std::string kernel() const { return "fft_r" + std::to_string(1 << log2R) + (wide ? "_wide" : ""); }
};

// Where a plan may take the wide kernels: on GPUs that hold their groups (the default), on any
// device that holds them (tests run the wide kernels on PoCL and Oclgrind), or nowhere. Not on
// CPUs by default: PoCL ran the wide passes 26-104x slower than the narrow ones (2026-11-27,
// this repository's 2-core machine: 1d-16m 41.7 s against 0.40 s a transform).
enum class WidePasses { OnGpus, Anywhere, Never };

// The passes of one forward transform of `shape`, in execution order. Throws tb::Error if
// the device (`info`: work-group size, local memory) cannot run the tuning's groups. Where
// `wide` and `info` allow the tuning's wide groups, a strided 4096-point axis takes one wide
// pass instead of two, an axis of whole 4096-point parts (2^24) a wide pass per part, and a
// strided 1024-point pass with enough groups to fill every compute unit (`compute_units` x
// cuda_min_groups_per_sm_wide1024) takes groups of 8 columns (so the plan depends on the
// device: a CPU, or one that stops below 1024 work-items a group or below a wide pass's
// phase of local memory, gets the narrow passes).
std::vector<Pass> make_plan(const Shape& shape, const Tuning& t, const DeviceInfo& info,
                            WidePasses wide = WidePasses::OnGpus);

// Which wide kernels a plan may use: the device holds their groups, and strided 1024-point
// passes go wide only with at least r1024_min_groups groups.
struct WideGroups {
    bool r4096 = false, r1024 = false;
    std::uint64_t r1024_min_groups = 0;
};

// One axis: items independent transforms of length 2^log2L with inner stride 2^log2S.
std::vector<Pass> plan_axis(int log2L, int log2S, std::int64_t items, const Tuning& t, WideGroups wide = {});

// "4096/1 4096sw/4": each pass's R, "s" when strided, "w" when wide, and its columns per group.
std::string describe(const std::vector<Pass>& plan);

// The twiddles of the stages inside a pass (forward sign, double-precision cos/sin rounded to
// float, interleaved re, im), stage-major: for each level log2Ns = E', 2E', ... below
// kTwiddleLog2 (E' = log2_points_per_item, E = 2^E'), E rows of Ns entries, row k holding
// W_{Ns E}^(k j) for j < Ns. A stage of radix r <= E at that level reads row k E / r, so the
// work-items of a warp (consecutive j) read consecutive entries: one or two L1 wavefronts
// per load, where a W_4096^(k j) table spreads them over up to 32 cache lines.
std::vector<float> inner_twiddles(const Tuning& t);
// Complex entries of inner_twiddles(t).
std::size_t inner_twiddle_entries(const Tuning& t);

// The two-level table of a twiddled pass: W_L^i for i < B, then W_L^(i*B) for i < L/B,
// with L = Ns*R and B = 2^twiddle_log2B(); empty when the pass has no twiddle.
std::vector<float> pass_twiddles(const Pass& p);

}  // namespace tb::fft
