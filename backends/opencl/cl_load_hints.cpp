#include "cl_load_hints.hpp"

#include <cstdlib>

#include "cl_info.hpp"
#include "embedded.hpp"

namespace tb::cl {

LoadHintMode load_hint_mode(cl_device_id d) {
    const bool nvidia = is_nvidia_platform(device_value<cl_platform_id>(d, CL_DEVICE_PLATFORM, "CL_DEVICE_PLATFORM"));
    const char* env = std::getenv("TRIBENCH_OPENCL_LOAD_HINTS");
    const std::string want = env ? env : "";
    if (want.empty()) return nvidia ? LoadHintMode::Ptx : LoadHintMode::Plain;
    if (want == "plain") return LoadHintMode::Plain;
    if (want == "ptx") {
        if (!nvidia) throw Error("TRIBENCH_OPENCL_LOAD_HINTS=ptx: the device is not on NVIDIA's OpenCL platform");
        return LoadHintMode::Ptx;
    }
    throw Error("TRIBENCH_OPENCL_LOAD_HINTS is '" + want + "'. expected 'ptx' or 'plain'");
}

std::string load_hint_preamble(cl_device_id d, const std::string& source) {
    if (source.find("tb_load_") == std::string::npos) return "";
    const char* define = load_hint_mode(d) == LoadHintMode::Ptx ? "TB_LOAD_HINTS_PTX" : "TB_LOAD_HINTS_PLAIN";
    return std::string("#define ") + define + " 1\n#line 1 \"tribench/load_hints.cl\"\n" +
           std::string(embedded_file("backends/opencl/load_hints.cl")) + "\n";
}

}  // namespace tb::cl
