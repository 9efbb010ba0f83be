#include "cl_subgroups.hpp"

#include <cstdlib>

#include "cl_info.hpp"
#include "embedded.hpp"

namespace tb::cl {
namespace {

constexpr cl_device_info kWarpSizeNv = 0x4003;  // CL_DEVICE_WARP_SIZE_NV (cl_nv_device_attribute_query)

bool has_extension(const std::string& list, const std::string& name) {
    // Whole names only: cl_khr_subgroups is not cl_khr_subgroups_foo.
    for (std::size_t at = list.find(name); at != std::string::npos; at = list.find(name, at + 1)) {
        const std::size_t end = at + name.size();
        if ((at == 0 || list[at - 1] == ' ') && (end == list.size() || list[end] == ' ')) return true;
    }
    return false;
}

bool has_khr(const std::string& ext) {
    return has_extension(ext, "cl_khr_subgroups") && has_extension(ext, "cl_khr_subgroup_shuffle") &&
           has_extension(ext, "cl_khr_subgroup_shuffle_relative");
}

bool is_nvidia_warp32(cl_device_id d, const std::string& ext) {
    return has_extension(ext, "cl_nv_device_attribute_query") &&
           device_value<cl_uint>(d, kWarpSizeNv, "CL_DEVICE_WARP_SIZE_NV") == 32;
}

}  // namespace

const char* to_string(SubgroupMode m) {
    switch (m) {
        case SubgroupMode::Khr: return "khr";
        case SubgroupMode::Nv: return "nv";
        case SubgroupMode::Emulated: return "emulated";
    }
    return "?";
}

SubgroupMode subgroup_mode(cl_device_id d) {
    const std::string ext = device_string(d, CL_DEVICE_EXTENSIONS);
    const char* env = std::getenv("TRIBENCH_OPENCL_SUBGROUPS");
    const std::string want = env ? env : "";
    if (want.empty()) {
        if (is_nvidia_warp32(d, ext)) return SubgroupMode::Nv;  // warps, whatever else it reports
        if (has_khr(ext)) return SubgroupMode::Khr;
        return SubgroupMode::Emulated;
    }
    if (want == "emulated") return SubgroupMode::Emulated;
    if (want == "khr") {
        if (!has_khr(ext))
            throw Error("TRIBENCH_OPENCL_SUBGROUPS=khr: the device lacks cl_khr_subgroups, cl_khr_subgroup_shuffle or "
                        "cl_khr_subgroup_shuffle_relative");
        return SubgroupMode::Khr;
    }
    if (want == "nv") {
        if (!is_nvidia_warp32(d, ext))
            throw Error("TRIBENCH_OPENCL_SUBGROUPS=nv: the device is not an NVIDIA GPU with warps of 32");
        return SubgroupMode::Nv;
    }
    throw Error("TRIBENCH_OPENCL_SUBGROUPS is '" + want + "'. expected 'khr', 'nv' or 'emulated'");
}

std::string subgroup_preamble(cl_device_id d, const std::string& source) {
    if (source.find("sub_group") == std::string::npos && source.find("TB_SUB_GROUP") == std::string::npos &&
        source.find("TB_SG_") == std::string::npos)
        return "";
    const SubgroupMode m = subgroup_mode(d);
    const char* define = m == SubgroupMode::Khr ? "TB_SUBGROUPS_KHR" : m == SubgroupMode::Nv ? "TB_SUBGROUPS_NV"
                                                                                             : "TB_SUBGROUPS_EMULATED";
    return std::string("#define ") + define + " 1\n#line 1 \"tribench/subgroups.cl\"\n" +
           std::string(embedded_file("backends/opencl/subgroups.cl")) + "\n";
}

}  // namespace tb::cl
