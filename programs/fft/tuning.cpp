#include "tuning.hpp"

#include <cstdlib>
#include <sstream>

#include "device.hpp"

namespace tb::fft {
namespace {

// A whole decimal number in [lo, hi], or an error naming the field.
long long parse_field(const std::string& name, const std::string& value, long long lo, long long hi) {
    std::size_t used = 0;
    long long v = 0;
    try {
        v = std::stoll(value, &used, 10);
    } catch (const std::exception&) {
        used = 0;
    }
    if (value.empty() || used != value.size() || v < lo || v > hi)
        throw Error("fft tuning: " + name + "=" + value + " is not a whole number in [" + std::to_string(lo) + ", " +
                    std::to_string(hi) + "]");
    return v;
}

// The defines of one wide kernel: FFT_LOG2_<tag>_GROUP, FFT_<tag>_SPLIT_EXCHANGE and
// FFT_<tag>_LOG2_ROUNDS, all 0 when its groups are off: it then compiles to an empty kernel
// (PoCL spent seconds building the full one for each tuning the tests try).
void add_wide_defines(std::vector<std::string>& d, const Tuning& t, const std::string& tag, int log2R) {
    const bool on = t.wide_local_bytes(log2R) > 0;
    d.push_back("FFT_LOG2_" + tag + "_GROUP=" + std::to_string(on ? t.wide_group_log2(log2R) : 0));
    d.push_back("FFT_" + tag + "_SPLIT_EXCHANGE=" + std::to_string(on && t.wide_split_exchange(log2R) ? 1 : 0));
    d.push_back("FFT_" + tag + "_LOG2_ROUNDS=" + std::to_string(on ? t.wide_log2_rounds(log2R) : 0));
}

}  // namespace

std::vector<std::string> kernel_defines(const Tuning& t) {
    std::vector<std::string> d = {
        "FFT_LOG2_E=" + std::to_string(t.log2_points_per_item),
        "FFT_LOG2_GROUP=" + std::to_string(t.log2_group),
        "FFT_SPLIT_EXCHANGE=" + std::to_string(t.split_exchange() ? 1 : 0),
        "FFT_CU_MIN_GROUPS=" + std::to_string(t.cuda_min_groups_per_sm),
        "FFT_CU_MIN_GROUPS_R4096=" + std::to_string(t.cuda_min_groups_per_sm_r4096),
    };
    add_wide_defines(d, t, "WIDE", kTwiddleLog2);
    add_wide_defines(d, t, "WIDE1024", kWide1024Log2R);
    d.push_back("FFT_CU_MIN_GROUPS_WIDE1024=" + std::to_string(t.cuda_min_groups_per_sm_wide1024));
    return d;
}

Tuning parse_tuning(const std::string& text, Tuning t) {
    std::istringstream in(text);
    std::string item;
    while (std::getline(in, item, ',')) {
        const auto eq = item.find('=');
        const std::string name = item.substr(0, eq), value = eq == std::string::npos ? "" : item.substr(eq + 1);
        if (name == "log2_points_per_item") t.log2_points_per_item = int(parse_field(name, value, 1, 4));
        else if (name == "log2_group") t.log2_group = int(parse_field(name, value, 0, 10));
        else if (name == "group_local_limit") t.group_local_limit = std::size_t(parse_field(name, value, 1, 1 << 30));
        else if (name == "min_strided_columns") t.min_strided_columns = int(parse_field(name, value, 1, 1 << 12));
        else if (name == "cuda_min_groups_per_sm") t.cuda_min_groups_per_sm = int(parse_field(name, value, 1, 32));
        else if (name == "cuda_min_groups_per_sm_r4096")
            t.cuda_min_groups_per_sm_r4096 = int(parse_field(name, value, 1, 32));
        else if (name == "log2_wide_group") t.log2_wide_group = int(parse_field(name, value, 0, 10));
        else if (name == "log2_wide1024_group") t.log2_wide1024_group = int(parse_field(name, value, 0, 10));
        else if (name == "cuda_min_groups_per_sm_wide1024")
            t.cuda_min_groups_per_sm_wide1024 = int(parse_field(name, value, 1, 32));
        else if (name == "wide_local_limit") t.wide_local_limit = std::size_t(parse_field(name, value, 1, 1 << 30));
        else if (name == "wide1024_local_limit")
            t.wide1024_local_limit = std::size_t(parse_field(name, value, 1, 1 << 30));
        else
            throw Error("fft tuning: unknown field '" + name +
                        "' (known: log2_points_per_item, log2_group, group_local_limit, min_strided_columns, "
                        "cuda_min_groups_per_sm, cuda_min_groups_per_sm_r4096, log2_wide_group, log2_wide1024_group, "
                        "cuda_min_groups_per_sm_wide1024, wide_local_limit, wide1024_local_limit)");
    }
    return t;
}

Tuning active_tuning() {
    const char* env = std::getenv("TRIBENCH_FFT_TUNING");
    return env ? parse_tuning(env) : kTuning;
}

}  // namespace tb::fft
