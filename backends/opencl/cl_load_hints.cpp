#include "cl_load_hints.hpp"

#include "cl_info.hpp"
#include "embedded.hpp"

namespace tb::cl {

LoadHintMode load_hint_mode(cl_device_id d) {
    return ptx_feature_on(d, "TRIBENCH_OPENCL_LOAD_HINTS", "plain") ? LoadHintMode::Ptx : LoadHintMode::Plain;
}

std::string load_hint_preamble(cl_device_id d, const std::string& source) {
    if (source.find("tb_load_") == std::string::npos) return "";
    const char* define = load_hint_mode(d) == LoadHintMode::Ptx ? "TB_LOAD_HINTS_PTX" : "TB_LOAD_HINTS_PLAIN";
    return std::string("#define ") + define + " 1\n#line 1 \"tribench/load_hints.cl\"\n" +
           std::string(embedded_file("backends/opencl/load_hints.cl")) + "\n";
}

}  // namespace tb::cl
