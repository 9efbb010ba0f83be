// The fft program's tuning constants: the one place they are written. plan.cpp plans with
// them, and defines() hands the kernel-side ones to both compilers (-D FFT_...), so
// kernels.cl and kernels.cu are built with the same values (docs/programs/fft.md, "Tuning").
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace tb::fft {

// log2 of the inner twiddle table's length (W_4096^k): the largest radix R a pass may have,
// and so the largest transform done in one pass. Kernels exist for R = 8 .. 4096, and wide
// ones for R = 4096 (log2_wide_group) and strided passes of R = 1024 (log2_wide1024_group).
inline constexpr int kTwiddleLog2 = 12;
inline constexpr int kMinLog2R = 3;
// At most 2^this rounds in each part of a wide group's exchanges. Up to 16 in fft_r4096_wide
// (4 in fft_r1024_wide: a round's points n all alike above bit 8) each work-item writes in
// one round and reads by its k alone (kernels.cl, exchange); more rounds take the slower
// general path there.
inline constexpr int kMaxWideLog2Rounds = 4;
// The other radix with a wide kernel: strided passes of 1024 points (fft_r1024_wide).
inline constexpr int kWide1024Log2R = 10;

struct Tuning {
    // log2 of the points each work-item holds in registers, = the radix of a full stage
    // inside a pass (4: radix-16 stages, so a 4096-point pass is 3 stages, 2 exchanges).
    int log2_points_per_item = 4;
    // log2 of the work-items per group; every pass launches exactly this many
    // (reqd_work_group_size / __launch_bounds__), so a group holds 2^(log2_group +
    // log2_points_per_item) points: 4096, 32 KiB of complex values.
    int log2_group = 8;
    // Local memory a group may use. 48 KiB is what NVIDIA's OpenCL allows a work-group, so
    // every backend runs the same plan; a group whose points do not fit as complex values
    // exchanges the real parts, then the imaginary parts, through one plane of floats.
    std::size_t group_local_limit = 48 * 1024;
    // Strided passes read and write rows of C consecutive columns, C = group points / R:
    // R is chosen so that C >= this (4 columns = 32 bytes = one DRAM sector per row).
    int min_strided_columns = 4;
    // kernels.cu only: __launch_bounds__(group, this), so that ptxas keeps registers to
    // 64K / (group * this) (OpenCL C has no way to say it: docs, "Dialect differences").
    // 4 (64 registers) for the strided passes; fft_r4096, which with these values only ever
    // transforms whole contiguous rows, 3 (80 registers; 12 bytes spilled until the pass
    // twiddles became a tree, 2026-11-27): 1d-4kx1024 25.6 us on the H100 against 26.8 at
    // 2 groups (122 registers) and 25.8 at 4 (64).
    int cuda_min_groups_per_sm = 4;
    int cuda_min_groups_per_sm_r4096 = 3;
    // log2 of the work-items of a wide group (fft_r4096_wide: launch bounds (this, 1), 64
    // registers at 1024): 4 strided columns of 4096 points, so a strided 4096-point axis (a
    // 2-D transform's columns) takes one pass instead of two. Their 128 KiB of points cross
    // local memory in wide_log2_phases() phases of group_local_limit or less: the real and
    // the imaginary parts in turn, then each in rounds (at 48 KiB: 2 x 2 phases of 32 KiB), so
    // every device that allows groups of this size runs this plan, NVIDIA's OpenCL included.
    // No larger than log2_group: off (FFT_LOG2_WIDE_GROUP=0).
    int log2_wide_group = 10;
    // The same for strided passes of 1024 points (fft_r1024_wide: launch bounds (this,
    // cuda_min_groups_per_sm_wide1024)): 512 work-items hold 8 columns, so the pass reads and
    // writes 64-byte rows where the 256 of a narrow group hold 4 (32-byte rows); 64 KiB of
    // points, the parts in turn at 48 KiB. On the H100 (2026-11-27, all passes at 512 through
    // TRIBENCH_FFT_TUNING) 1d-1mx16 took 226.4-226.6 / 223.2-223.4 / 230.2-230.7 us against
    // 233.3-233.4 / 231.5-231.7 / 247.3 (cuda-native / cuda-prelude / opencl), and the other
    // speed datasets got slower (docs/programs/fft.md, "Tuning"). No larger than log2_group: off.
    int log2_wide1024_group = 9;
    int cuda_min_groups_per_sm_wide1024 = 2;

    int log2_group_points() const { return log2_group + log2_points_per_item; }
    // log2 of the work-items of the wide kernel for passes of 2^log2R points (R = 4096, 1024),
    // else -1: no wide kernel.
    int wide_group_log2(int log2R) const {
        return log2R == kTwiddleLog2 ? log2_wide_group : log2R == kWide1024Log2R ? log2_wide1024_group : -1;
    }
    // log2 of the phases of a wide group's exchanges: the fewest whose share of both planes
    // fits group_local_limit (1: the parts in turn; more: each part in rounds); -1 when that
    // would take more than 2^kMaxWideLog2Rounds rounds.
    int wide_log2_phases(int log2R = kTwiddleLog2) const {
        if (wide_group_log2(log2R) < 0) return -1;
        const std::size_t all = std::size_t(8) << (wide_group_log2(log2R) + log2_points_per_item);
        for (int p = 0; p <= 1 + kMaxWideLog2Rounds; ++p)
            if ((all >> p) <= group_local_limit) return p;
        return -1;
    }
    bool wide_split_exchange(int log2R = kTwiddleLog2) const { return wide_log2_phases(log2R) > 0; }
    int wide_log2_rounds(int log2R = kTwiddleLog2) const {
        return wide_log2_phases(log2R) > 1 ? wide_log2_phases(log2R) - 1 : 0;
    }
    // Local memory of a wide group for passes of 2^log2R points (a phase's share of both
    // planes); 0 when there is no such kernel, its group is no larger than log2_group, would
    // hold fewer than min_strided_columns columns, or would need more rounds than
    // kMaxWideLog2Rounds.
    std::size_t wide_local_bytes(int log2R = kTwiddleLog2) const {
        const int group = wide_group_log2(log2R);
        if (group <= log2_group) return 0;
        const int points = group + log2_points_per_item;
        if ((std::size_t(1) << points) < (std::size_t(min_strided_columns) << log2R) || wide_log2_phases(log2R) < 0)
            return 0;
        return (std::size_t(8) << points) >> wide_log2_phases(log2R);
    }
    // true when the group's points do not fit the local limit as complex values.
    bool split_exchange() const { return (std::size_t(8) << log2_group_points()) > group_local_limit; }
};

// The values the program runs with.
inline constexpr Tuning kTuning{};

// -D NAME=VALUE for both kernel dialects.
std::vector<std::string> kernel_defines(const Tuning& t);

// `text` ("log2_group=9,min_strided_columns=2": field names as above) applied to `base`;
// throws tb::Error naming the first unknown field or bad value.
Tuning parse_tuning(const std::string& text, Tuning base = kTuning);

// The tuning a run uses: kTuning, or kTuning changed by the environment variable
// TRIBENCH_FFT_TUNING (a developer's knob for trying values without rebuilding; the kernels
// get the same values through kernel_defines, so the two stay consistent).
Tuning active_tuning();

}  // namespace tb::fft
