#include "plan.hpp"

#include <algorithm>
#include <cmath>
#include <string>

namespace tb::fft {
namespace {

constexpr std::size_t kPoint = 8;  // bytes of one complex float

int points_log2_per_item(int log2R, const Limits& lim) { return std::min(log2R, lim.log2_max_radix); }

int threads_for(int log2R, int log2C, const Limits& lim) {
    return 1 << (log2C + log2R - points_log2_per_item(log2R, lim));
}

// Pitch of one column in the contiguous ("col") local layout: R points plus one pad slot per
// 16 (breaks the power-of-two strides of the early stages), rounded so that the C columns a
// warp touches at once start on different banks: (32 / C) mod 16 slots of skew per column.
int col_pitch_for(int log2R, int log2C) {
    const int R = 1 << log2R;
    const int padded = (R + R / 16 + 15) / 16 * 16;
    const int skew = log2C >= 5 ? 1 : (32 >> log2C) % 16;
    return padded + skew;
}

bool uses_col_layout(int log2M, int log2Nsv) { return log2M == 0 || log2Nsv == 0; }

std::size_t local_bytes_for(int log2R, int log2C, bool col) {
    const std::size_t C = std::size_t(1) << log2C;
    return kPoint * C * (col ? std::size_t(col_pitch_for(log2R, log2C)) : (std::size_t(1) << log2R));
}

bool fits(int log2R, int log2C, bool col, const Limits& lim) {
    return std::size_t(threads_for(log2R, log2C, lim)) <= lim.max_group &&
           local_bytes_for(log2R, log2C, col) <= lim.max_local_bytes;
}

int ceil_log2(std::int64_t n) {
    int l = 0;
    while ((std::int64_t(1) << l) < n) ++l;
    return l;
}

// Largest C = 2^log2C with C * R <= target, C <= max_columns, that fits the device.
int choose_log2C(int log2R, bool col, std::int64_t max_columns, const Limits& lim) {
    int log2C = 0;
    while (true) {
        const int next = log2C + 1;
        if ((std::int64_t(1) << (next + log2R)) > lim.target_points) break;
        if ((std::int64_t(1) << next) > max_columns) break;
        if (!fits(log2R, next, col, lim)) break;
        log2C = next;
    }
    return log2C;
}

Pass make_pass(int log2R, int log2M, int log2Nsv, int log2S, int log2Ns, std::int64_t items, std::int64_t max_columns,
               const Limits& lim) {
    Pass p;
    p.log2R = log2R;
    p.log2M = log2M;
    p.log2Nsv = log2Nsv;
    p.log2S = log2S;
    p.log2Ns = log2Ns;
    p.columns = items << log2M;
    const bool col = uses_col_layout(log2M, log2Nsv);
    if (!fits(log2R, 0, col, lim))
        throw Error("fft: a " + std::to_string(1 << log2R) + "-point pass needs " +
                    std::to_string(local_bytes_for(log2R, 0, col)) + " bytes of local memory and " +
                    std::to_string(threads_for(log2R, 0, lim)) + " work-items; the device allows " +
                    std::to_string(lim.max_local_bytes) + " and " + std::to_string(lim.max_group));
    p.log2C = choose_log2C(log2R, col, max_columns, lim);
    p.threads = threads_for(log2R, p.log2C, lim);
    p.col_pitch = col_pitch_for(log2R, p.log2C);
    p.local_bytes = local_bytes_for(log2R, p.log2C, col);
    return p;
}

}  // namespace

Limits limits_for(Dialect dialect, const DeviceInfo& info) {
    Limits lim;
    lim.max_local_bytes = info.max_local_mem_bytes ? info.max_local_mem_bytes : 48 * 1024;
    lim.max_group = info.max_work_group_size ? info.max_work_group_size : 256;
    if (dialect == Dialect::Cuda) {
        // kernels.cu: radix-16 work-items, 8192 points (64 KiB) per block so that two blocks
        // of 512 threads share an SM; 8 columns = 64-byte segments per strided row.
        lim.log2_max_radix = 4;
        lim.max_group = std::min<std::size_t>(lim.max_group, kCudaMaxThreads);
        lim.target_points = 8192;
        lim.min_strided_columns = 8;
    } else {
        // kernels.cl: radix-8 work-items, 4096 points (32 KiB) per group: fits the 48 KiB of
        // local memory NVIDIA's OpenCL allows, so opencl and cuda-prelude run the same plan.
        lim.log2_max_radix = 3;
        lim.target_points = 4096;
        lim.min_strided_columns = 16;
    }
    return lim;
}

std::vector<Pass> plan_axis(int log2L, int log2S, std::int64_t items, const Limits& lim) {
    if (log2L < kMinLog2R) throw Error("fft: transforms shorter than 8 points are not supported");
    // One pass over contiguous transforms when the whole transform fits one work-group.
    if (log2S == 0 && log2L <= kTwiddleLog2 && fits(log2L, 0, true, lim)) {
        const std::int64_t max_columns = std::int64_t(1) << ceil_log2(items);
        return {make_pass(log2L, 0, 0, 0, 0, items, max_columns, lim)};
    }
    // Strided passes: the largest R that still gets min_strided_columns columns per group.
    const int minC = ceil_log2(lim.min_strided_columns);
    int lmax = kMinLog2R - 1;
    for (int l = kMinLog2R; l <= kTwiddleLog2; ++l)
        if ((std::int64_t(1) << (l + minC)) <= lim.target_points && fits(l, minC, true, lim)) lmax = l;
    if (lmax < kMinLog2R) lmax = kMinLog2R;  // tiny devices: fewer columns per group
    const int P = (log2L + lmax - 1) / lmax;
    std::vector<int> parts(std::size_t(P), log2L / P);
    for (int i = 0; i < log2L % P; ++i) ++parts[std::size_t(i)];
    std::vector<Pass> passes;
    int log2Ns = 0;
    for (int part : parts) {
        if (part < kMinLog2R)
            throw Error("fft: cannot split a 2^" + std::to_string(log2L) + "-point axis into passes of at least 8 points");
        const int log2M = log2L - part + log2S;
        const int log2Nsv = log2Ns + log2S;
        // The group's columns must be consecutive inside one item and, for strided output,
        // share one output block: C <= M and C <= Nsv.
        std::int64_t max_columns = std::int64_t(1) << log2M;
        if (log2M == 0) max_columns = std::int64_t(1) << ceil_log2(items);
        if (log2Nsv > 0) max_columns = std::min(max_columns, std::int64_t(1) << log2Nsv);
        passes.push_back(make_pass(part, log2M, log2Nsv, log2S, log2Ns, items, max_columns, lim));
        log2Ns += part;
    }
    return passes;
}

std::vector<Pass> make_plan(const Shape& s, const Limits& lim) {
    if (s.dims == 1) return plan_axis(log2_exact(s.length), 0, s.batch, lim);
    // 2-D: row transforms (contiguous), then column transforms (stride = cols).
    const int log2_cols = log2_exact(s.cols);
    std::vector<Pass> plan = plan_axis(log2_cols, 0, s.rows, lim);
    for (const Pass& p : plan_axis(log2_exact(s.rows), log2_cols, 1, lim)) plan.push_back(p);
    return plan;
}

namespace {

// W_L^k = exp(-2 pi i k / L) in double, rounded to float; k / L is exact in double.
void push_twiddle(std::vector<float>& t, std::int64_t k, std::int64_t L) {
    const double a = -2.0 * M_PI * (double(k) / double(L));
    t.push_back(float(std::cos(a)));
    t.push_back(float(std::sin(a)));
}

}  // namespace

std::vector<float> inner_twiddles() {
    const std::int64_t L = std::int64_t(1) << kTwiddleLog2;
    std::vector<float> t;
    t.reserve(std::size_t(2 * L));
    for (std::int64_t k = 0; k < L; ++k) push_twiddle(t, k, L);
    return t;
}

std::vector<float> pass_twiddles(const Pass& p) {
    std::vector<float> t;
    const int log2B = p.twiddle_log2B();
    if (log2B < 0) return t;
    const int log2L = p.log2Ns + p.log2R;
    const std::int64_t L = std::int64_t(1) << log2L, B = std::int64_t(1) << log2B;
    t.reserve(std::size_t(2 * (B + L / B)));
    for (std::int64_t i = 0; i < B; ++i) push_twiddle(t, i, L);
    for (std::int64_t i = 0; i < L / B; ++i) push_twiddle(t, i * B, L);
    return t;
}

}  // namespace tb::fft
