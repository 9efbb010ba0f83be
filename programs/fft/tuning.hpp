// The fft program's tuning constants: the one place they are written. plan.cpp plans with
// them, and defines() hands the kernel-side ones to both compilers (-D FFT_...), so
// kernels.cl and kernels.cu are built with the same values (docs/programs/fft.md, "Tuning").
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace tb::fft {

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
    // transforms whole contiguous rows, 3 (80 registers, 12 bytes spilled): 1d-4kx1024 25.6
    // us on the H100 against 26.8 at 2 groups (122 registers) and 25.8 at 4 (64).
    int cuda_min_groups_per_sm = 4;
    int cuda_min_groups_per_sm_r4096 = 3;

    int log2_group_points() const { return log2_group + log2_points_per_item; }
    // true when the group's points do not fit the local limit as complex values.
    bool split_exchange() const { return (std::size_t(8) << log2_group_points()) > group_local_limit; }
};

// log2 of the inner twiddle table's length (W_4096^k): the largest radix R a pass may have,
// and so the largest transform done in one pass. Kernels exist for R = 8 .. 4096.
inline constexpr int kTwiddleLog2 = 12;
inline constexpr int kMinLog2R = 3;

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
