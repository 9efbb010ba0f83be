// The fft program's tuning constants: the one place they are written. plan.cpp plans with
// them, and defines() hands the kernel-side ones to both compilers (-D FFT_...), so
// kernels.cl and kernels.cu are built with the same values (docs/programs/fft.md, "Tuning").
#pragma once

#include <algorithm>
#include <cstddef>
#include <string>
#include <vector>

#include "tuning_space.hpp"

namespace tb::fft {

// log2 of the inner twiddle table's length (W_4096^k): the largest radix R a pass may have,
// and so the largest transform done in one pass. Kernels exist for R = 8 .. 4096, and wide
// ones for R = 4096 (log2_wide_group) and strided passes of R = 1024 (log2_wide1024_group).
inline constexpr int kTwiddleLog2 = 12;
inline constexpr int kMinLog2R = 3;
// At most 2^this rounds in each part of a wide group's exchanges. Up to 16 in fft_r4096_wide
// (4 in fft_r1024_wide: a round's points n all alike above bit 8) each work-item writes in
// one round and reads by its k alone (kernels.cl, exchange); more rounds take the general
// path there, several times slower (wide_local_limit below).
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
    // local memory in wide_log2_phases() phases of wide_local_limit or less: the real and
    // the imaginary parts in turn, then each in rounds (at 16 KiB: 2 x 4 phases), so every
    // device that allows groups of this size runs this plan, NVIDIA's OpenCL included.
    // No larger than log2_group: off (FFT_LOG2_WIDE_GROUP=0).
    int log2_wide_group = 10;
    // The same for strided passes of 1024 points (fft_r1024_wide: launch bounds (this,
    // cuda_min_groups_per_sm_wide1024)): 512 work-items hold 8 columns, so the pass reads and
    // writes 64-byte rows where the 256 of a narrow group hold 4 (32-byte rows); 64 KiB of
    // points, in 2 x 4 phases of 8 KiB (wide1024_local_limit). On the H100 (2026-11-27, all
    // passes at 512 through TRIBENCH_FFT_TUNING) 1d-1mx16 took 226.4-226.6 / 223.2-223.4 /
    // 230.2-230.7 us against 233.3-233.4 / 231.5-231.7 / 247.3 (cuda-native / cuda-prelude /
    // opencl), and the other speed datasets got slower (docs/programs/fft.md, "Tuning"). No
    // larger than log2_group: off.
    int log2_wide1024_group = 9;
    int cuda_min_groups_per_sm_wide1024 = 2;
    // Local memory of a wide group's exchanges (fft_r4096_wide, fft_r1024_wide), capped by
    // group_local_limit: the fewer bytes, the more rounds (wide_log2_phases). 4 rounds of each
    // part (16 KiB of 128, 8 KiB of 64); at 8, fft_r4096_wide loses more to its barriers and
    // fft_r1024_wide takes the general path (kMaxWideLog2Rounds). H100, 2026-11-27, ms,
    // cuda-native / cuda-prelude / opencl (cuFFT): 2d-4096x4096 at 32 KiB
    // 0.2365 / 0.2366 / 0.2425, 16 KiB 0.2325 / 0.2348 / 0.2412, 8 KiB 0.344 (0.239);
    // 1d-1mx16 with the parts in turn (32 KiB) 0.2272 / 0.2251 / 0.2297, 16 KiB 0.2120 / 0.2131
    // / 0.2190, 8 KiB 0.2097 / 0.2114 / 0.2178, 4 KiB 1.53 (0.214; docs/programs/fft.md).
    std::size_t wide_local_limit = 16 * 1024;
    std::size_t wide1024_local_limit = 8 * 1024;

    int log2_group_points() const { return log2_group + log2_points_per_item; }
    // log2 of the work-items of the wide kernel for passes of 2^log2R points (R = 4096, 1024),
    // else -1: no wide kernel.
    int wide_group_log2(int log2R) const {
        return log2R == kTwiddleLog2 ? log2_wide_group : log2R == kWide1024Log2R ? log2_wide1024_group : -1;
    }
    // Local memory a wide group for passes of 2^log2R points may use.
    std::size_t wide_limit(int log2R = kTwiddleLog2) const {
        return std::min(group_local_limit, log2R == kTwiddleLog2 ? wide_local_limit : wide1024_local_limit);
    }
    // log2 of the phases of a wide group's exchanges: the fewest whose share of both planes
    // fits wide_limit (1: the parts in turn; more: each part in rounds); -1 when that would
    // take more than 2^kMaxWideLog2Rounds rounds.
    int wide_log2_phases(int log2R = kTwiddleLog2) const {
        if (wide_group_log2(log2R) < 0) return -1;
        const std::size_t all = std::size_t(8) << (wide_group_log2(log2R) + log2_points_per_item);
        for (int p = 0; p <= 1 + kMaxWideLog2Rounds; ++p)
            if ((all >> p) <= wide_limit(log2R)) return p;
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

// The tuning space (docs/tuning.md): the Tuning fields a search may vary, named as above, each
// with the values it tries (plus active_tuning()'s, so TRIBENCH_FFT_TUNING stays a valid
// point). log2_points_per_item is fixed: the kernels' stages are radix-16 (FFT_LOG2_E = 4).
// A configuration holds the varied fields; the others come from active_tuning().
const TuningSpace& tuning_space();
// active_tuning()'s values, with group_local_limit capped by the device's local memory and
// log2_group by its largest group (H100, and any device without TRIBENCH_FFT_TUNING: kTuning).
TuningConfig default_config(const DeviceInfo& dev);
TuningConfig config_of(const Tuning& t);
Tuning tuning_of(const TuningConfig& c);

}  // namespace tb::fft
