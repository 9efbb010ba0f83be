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

namespace tb::fft {

namespace {

// The varied fields of a Tuning and the values a search tries; the reference's first.
struct Field {
    const char* name;
    std::vector<std::int64_t> values;
    std::int64_t (*get)(const Tuning&);
    const char* doc;
};

const std::vector<Field>& fields() {
    static const std::vector<Field> f = {
        {"log2_group", {8, 7, 9}, [](const Tuning& t) { return std::int64_t(t.log2_group); }, "log2 of a pass's work-items per group"},
        {"group_local_limit", {49152, 32768}, [](const Tuning& t) { return std::int64_t(t.group_local_limit); },
         "local memory a group may use, bytes"},
        {"min_strided_columns", {4, 2, 8}, [](const Tuning& t) { return std::int64_t(t.min_strided_columns); },
         "columns a strided pass's rows hold at least"},
        {"cuda_min_groups_per_sm", {4, 2, 3}, [](const Tuning& t) { return std::int64_t(t.cuda_min_groups_per_sm); },
         "kernels.cu launch bounds of the strided passes"},
        {"cuda_min_groups_per_sm_r4096", {3, 2, 4}, [](const Tuning& t) { return std::int64_t(t.cuda_min_groups_per_sm_r4096); },
         "kernels.cu launch bounds of fft_r4096"},
        {"log2_wide_group", {10, 0}, [](const Tuning& t) { return std::int64_t(t.log2_wide_group); },
         "log2 of fft_r4096_wide's work-items (0: off)"},
        {"log2_wide1024_group", {9, 0, 10}, [](const Tuning& t) { return std::int64_t(t.log2_wide1024_group); },
         "log2 of fft_r1024_wide's work-items (0: off)"},
        {"wide_local_limit", {16384, 8192, 32768}, [](const Tuning& t) { return std::int64_t(t.wide_local_limit); },
         "local memory of fft_r4096_wide's exchanges, bytes"},
        {"wide1024_local_limit", {8192, 4096, 16384}, [](const Tuning& t) { return std::int64_t(t.wide1024_local_limit); },
         "local memory of fft_r1024_wide's exchanges, bytes"},
    };
    return f;
}

}  // namespace

const TuningSpace& tuning_space() {
    static const TuningSpace space = [] {
        const Tuning active = active_tuning();
        TuningSpace s;
        for (const auto& f : fields()) {
            std::vector<std::int64_t> values = f.values;
            if (std::find(values.begin(), values.end(), f.get(active)) == values.end()) values.push_back(f.get(active));
            // The launch bounds' minimum groups per SM: OpenCL compilers never see them.
            s.param(f.name, values, f.doc, /*nvrtc_only=*/std::string(f.name).rfind("cuda_", 0) == 0);
        }
        s.require_explained("2^log2_group <= the device's maximum work-group size", [](const TuningConfig& c, const DeviceInfo& d) {
            const std::int64_t n = std::int64_t(1) << c.at("log2_group");
            if (d.max_work_group_size == 0 || n <= std::int64_t(d.max_work_group_size)) return std::string();
            return "2^log2_group = " + std::to_string(n) + " exceeds the device's maximum work-group size " +
                   std::to_string(d.max_work_group_size);
        });
        s.require_explained("group_local_limit <= the device's local memory", [](const TuningConfig& c, const DeviceInfo& d) {
            if (d.max_local_mem_bytes == 0 || c.at("group_local_limit") <= std::int64_t(d.max_local_mem_bytes)) return std::string();
            return "group_local_limit = " + std::to_string(c.at("group_local_limit")) + " exceeds the device's local memory " +
                   std::to_string(d.max_local_mem_bytes);
        });
        return s;
    }();
    return space;
}

TuningConfig config_of(const Tuning& t) {
    TuningConfig c;
    for (const auto& f : fields()) c[f.name] = f.get(t);
    return c;
}

Tuning tuning_of(const TuningConfig& c) { return parse_tuning(to_string(c), active_tuning()); }

// The active tuning's values, within what the device allows. Not a GPU (PoCL on a CPU), and
// TRIBENCH_FFT_TUNING unset: groups of 128 (log2_group 7), as tunes on two CPUs found
// (docs/tuning.md, "Defaults on CPUs").
TuningConfig default_config(const DeviceInfo& dev) {
    TuningConfig c = config_of(active_tuning());
    if (is_described_cpu(dev) && !std::getenv("TRIBENCH_FFT_TUNING")) c["log2_group"] = 7;
    if (dev.max_local_mem_bytes > 0 && c["group_local_limit"] > std::int64_t(dev.max_local_mem_bytes))
        c["group_local_limit"] = largest_at_most(tuning_space().values("group_local_limit"), std::int64_t(dev.max_local_mem_bytes));
    while (dev.max_work_group_size > 0 && c["log2_group"] > 7 &&
           (std::int64_t(1) << c["log2_group"]) > std::int64_t(dev.max_work_group_size))
        --c["log2_group"];
    return c;
}

}  // namespace tb::fft
