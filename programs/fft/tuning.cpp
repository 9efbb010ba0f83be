#include "tuning.hpp"

namespace tb::fft {

std::vector<std::string> kernel_defines(const Tuning& t) {
    return {
        "FFT_TW_LOG2=" + std::to_string(kTwiddleLog2),
        "FFT_LOG2_E=" + std::to_string(t.log2_points_per_item),
        "FFT_LOG2_GROUP=" + std::to_string(t.log2_group),
        "FFT_SPLIT_EXCHANGE=" + std::to_string(t.split_exchange() ? 1 : 0),
        "FFT_CU_MIN_GROUPS=" + std::to_string(t.cuda_min_groups_per_sm),
    };
}

}  // namespace tb::fft
