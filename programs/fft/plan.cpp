#include "plan.hpp"

#include <algorithm>
#include <cmath>
#include <string>

namespace tb::fft {
namespace {

int ceil_log2(std::int64_t n) {
    int l = 0;
    while ((std::int64_t(1) << l) < n) ++l;
    return l;
}

// A pass of radix 2^log2R by the tuning's groups, or its wide ones (exchanging in rounds).
Pass make_pass(int log2R, int log2M, int log2Nsv, int log2S, int log2Ns, std::int64_t items, const Tuning& t,
               bool wide = false) {
    const int log2_group = wide ? t.wide_group_log2(log2R) : t.log2_group;
    // Work-items per column: R / (points per work-item); the rest of the group takes more columns.
    const int per_item = std::min(log2R, t.log2_points_per_item);
    Pass p;
    p.log2R = log2R;
    p.log2C = log2_group - (log2R - per_item);
    p.log2M = log2M;
    p.log2Nsv = log2Nsv;
    p.log2S = log2S;
    p.log2Ns = log2Ns;
    p.columns = items << log2M;
    p.threads = 1 << log2_group;
    // One plane of floats per component (two), or one reused for both (split exchange); wide
    // groups take a round's share of both planes, and make_plan checks the device against
    // wide_local_bytes().
    p.local_bytes = wide ? t.wide_local_bytes(log2R)
                         : (std::size_t(1) << (log2_group + per_item)) * sizeof(float) * (t.split_exchange() ? 1 : 2);
    p.wide = wide;
    return p;
}

}  // namespace

std::vector<Pass> plan_axis(int log2L, int log2S, std::int64_t items, const Tuning& t, WideGroups wide) {
    if (log2L < kMinLog2R) throw Error("fft: transforms shorter than 8 points are not supported");
    const int group = t.log2_group_points();
    if (wide.r4096 && log2S > 0 && log2L == kTwiddleLog2 && t.wide_local_bytes() > 0)
        return {make_pass(log2L, log2S, log2S, log2S, 0, items, t, true)};
    // One pass over contiguous transforms when the whole transform fits one group.
    if (log2S == 0 && log2L <= std::min(kTwiddleLog2, group)) return {make_pass(log2L, 0, 0, 0, 0, items, t)};
    // Strided passes: the largest R that still gets min_strided_columns columns per group,
    // split into as few passes as possible with balanced radices. An axis of whole 4096-point
    // parts (2^24) takes wide passes of 4096 where the device holds them: two passes over
    // memory instead of three, as cuFFT's (docs/programs/fft.md, "Plan").
    const bool wide4096_parts = wide.r4096 && log2L % kTwiddleLog2 == 0 && t.wide_local_bytes() > 0;
    const int lmax = wide4096_parts ? kTwiddleLog2
                                    : std::max(kMinLog2R, std::min(kTwiddleLog2, group - ceil_log2(t.min_strided_columns)));
    const int count = (log2L + lmax - 1) / lmax;
    std::vector<int> parts(std::size_t(count), log2L / count);
    for (int i = 0; i < log2L % count; ++i) ++parts[std::size_t(i)];
    std::vector<Pass> passes;
    int log2Ns = 0;
    for (int part : parts) {
        if (part < kMinLog2R)
            throw Error("fft: cannot split a 2^" + std::to_string(log2L) + "-point axis into passes of at least 8 points");
        const int log2M = log2L - part + log2S;
        Pass p = make_pass(part, log2M, log2Ns + log2S, log2S, log2Ns, items, t, wide4096_parts);
        if (wide.r1024 && part == kWide1024Log2R && t.wide_local_bytes(kWide1024Log2R) > 0) {
            Pass w = make_pass(part, log2M, log2Ns + log2S, log2S, log2Ns, items, t, true);
            if (w.groups() >= wide.r1024_min_groups) p = w;
        }
        passes.push_back(p);
        log2Ns += part;
    }
    return passes;
}

std::vector<Pass> make_plan(const Shape& s, const Tuning& t, const DeviceInfo& info, WidePasses wide_passes) {
    // Wide groups only where the policy allows them and the device says it holds them (0: not
    // known), and 1024-point ones only where they fill every compute unit as often as their
    // launch bounds allow.
    const bool allowed = wide_passes == WidePasses::Anywhere || (wide_passes == WidePasses::OnGpus && info.is_gpu);
    const auto holds = [&](int log2R) {
        const std::size_t bytes = t.wide_local_bytes(log2R);
        return allowed && bytes > 0 && info.max_local_mem_bytes >= bytes &&
               info.max_work_group_size >= (std::size_t(1) << t.wide_group_log2(log2R));
    };
    WideGroups wide;
    wide.r4096 = holds(kTwiddleLog2);
    wide.r1024 = holds(kWide1024Log2R);
    wide.r1024_min_groups = std::uint64_t(info.compute_units > 0 ? info.compute_units : 0) *
                            std::uint64_t(t.cuda_min_groups_per_sm_wide1024);
    std::vector<Pass> plan;
    if (s.dims == 1) {
        plan = plan_axis(log2_exact(s.length), 0, s.batch, t, wide);
    } else {
        // 2-D: row transforms (contiguous), then column transforms (stride = cols).
        const int log2_cols = log2_exact(s.cols);
        plan = plan_axis(log2_cols, 0, s.rows, t, wide);
        for (const Pass& p : plan_axis(log2_exact(s.rows), log2_cols, 1, t, wide)) plan.push_back(p);
    }
    const std::size_t group = std::size_t(1) << t.log2_group;  // wide passes were checked above
    if (info.max_work_group_size && group > info.max_work_group_size)
        throw Error("fft: the kernels need work-groups of " + std::to_string(group) + " work-items; the device allows " +
                    std::to_string(info.max_work_group_size));
    for (const Pass& p : plan)
        if (info.max_local_mem_bytes && p.local_bytes > info.max_local_mem_bytes)
            throw Error("fft: a " + std::to_string(1 << p.log2R) + "-point pass needs " + std::to_string(p.local_bytes) +
                        " bytes of local memory; the device allows " + std::to_string(info.max_local_mem_bytes));
    return plan;
}

std::string describe(const std::vector<Pass>& plan) {
    std::string d;
    for (const Pass& p : plan)
        d += (d.empty() ? "" : " ") + std::to_string(1 << p.log2R) + (p.log2M > 0 ? "s" : "") + (p.wide ? "w" : "") + "/" +
             std::to_string(1 << p.log2C);
    return d;
}

namespace {

// W_L^k = exp(-2 pi i k / L) in double, rounded to float; k / L is exact in double.
void push_twiddle(std::vector<float>& t, std::int64_t k, std::int64_t L) {
    const double a = -2.0 * M_PI * (double(k) / double(L));
    t.push_back(float(std::cos(a)));
    t.push_back(float(std::sin(a)));
}

}  // namespace

std::size_t inner_twiddle_entries(const Tuning& t) {
    const int e = t.log2_points_per_item;
    std::size_t n = 0;
    for (int level = e; level < kTwiddleLog2; level += e) n += std::size_t(1) << (e + level);
    return n;
}

std::vector<float> inner_twiddles(const Tuning& t) {
    // The kernels' tw_level_offset walks the levels in the same order.
    const int e = t.log2_points_per_item;
    std::vector<float> tw;
    tw.reserve(2 * inner_twiddle_entries(t));
    for (int level = e; level < kTwiddleLog2; level += e) {
        const std::int64_t Ns = std::int64_t(1) << level, E = std::int64_t(1) << e;
        for (std::int64_t k = 0; k < E; ++k)
            for (std::int64_t j = 0; j < Ns; ++j) push_twiddle(tw, k * j, Ns * E);
    }
    return tw;
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
