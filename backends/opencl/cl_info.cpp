#include "cl_info.hpp"

#include <cstdlib>

namespace tb::cl {
namespace {

// The ICD loader reports "no platform" as CL_PLATFORM_NOT_FOUND_KHR (or success with zero).
constexpr cl_int kPlatformNotFound = -1001;
// cl_nv_device_attribute_query; written out so older headers need not define them.
constexpr cl_device_info kCcMajorNv = 0x4000;
constexpr cl_device_info kCcMinorNv = 0x4001;
constexpr cl_device_info kWarpSizeNv = 0x4003;  // CL_DEVICE_WARP_SIZE_NV
constexpr cl_device_info kWavefrontWidthAmd = 0x4043;  // CL_DEVICE_WAVEFRONT_WIDTH_AMD (cl_amd_device_attribute_query)
constexpr cl_device_info kPreferredGroupMultiple = 0x1067;  // CL_DEVICE_PREFERRED_WORK_GROUP_SIZE_MULTIPLE (OpenCL 3.0)

// Info strings end in NUL and some vendors pad them with spaces.
std::string tidy(std::string s) {
    while (!s.empty() && (s.back() == '\0' || s.back() == ' ' || s.back() == '\n')) s.pop_back();
    std::size_t first = s.find_first_not_of(' ');
    return first == std::string::npos ? std::string() : s.substr(first);
}

// A cl_uint the device may not know (an extension's or a newer version's query): 0 when the
// query fails, as platforms older than the query answer CL_INVALID_VALUE.
cl_uint optional_uint(cl_device_id d, cl_device_info param) {
    cl_uint v = 0;
    return api().GetDeviceInfo(d, param, sizeof v, &v, nullptr) == CL_SUCCESS ? v : 0;
}

// The work-items a GPU of another vendor runs in lockstep, which tuning defaults size group
// rows by: AMD's wavefront width where its extension tells it, else OpenCL 3.0's preferred
// work-group size multiple; 0 where neither answers. On a CPU it stays 0: its platform runs
// a group's items as loops its compiler vectorises, and the multiple it reports (8 on PoCL
// with AVX2) measured no better as a row width than the default of 32 (docs/tuning.md).
int gpu_lockstep_width(cl_device_id d, const std::string& extensions) {
    if (extensions.find("cl_amd_device_attribute_query") != std::string::npos)
        if (const cl_uint w = optional_uint(d, kWavefrontWidthAmd)) return int(w);
    return int(optional_uint(d, kPreferredGroupMultiple));
}

std::vector<cl_platform_id> platforms() {
    const Api& a = api();
    cl_uint n = 0;
    cl_int rc = a.GetPlatformIDs(0, nullptr, &n);
    if (rc == kPlatformNotFound || (rc == CL_SUCCESS && n == 0)) throw Error("no OpenCL platform found");
    check(rc, "clGetPlatformIDs");
    std::vector<cl_platform_id> ids(n);
    check(a.GetPlatformIDs(n, ids.data(), nullptr), "clGetPlatformIDs");
    return ids;
}

std::vector<cl_device_id> devices_of(cl_platform_id p) {
    const Api& a = api();
    cl_uint n = 0;
    cl_int rc = a.GetDeviceIDs(p, CL_DEVICE_TYPE_ALL, 0, nullptr, &n);
    if (rc == CL_DEVICE_NOT_FOUND) return {};  // a platform without devices is not an error
    check(rc, "clGetDeviceIDs");
    std::vector<cl_device_id> ids(n);
    if (n > 0) check(a.GetDeviceIDs(p, CL_DEVICE_TYPE_ALL, n, ids.data(), nullptr), "clGetDeviceIDs");
    return ids;
}

}  // namespace

std::vector<DeviceRef> all_devices() {
    std::vector<DeviceRef> out;
    for (cl_platform_id p : platforms())
        for (cl_device_id d : devices_of(p)) out.push_back({p, d});
    return out;
}

std::string platform_string(cl_platform_id p, cl_platform_info param) {
    const Api& a = api();
    std::size_t size = 0;
    check(a.GetPlatformInfo(p, param, 0, nullptr, &size), "clGetPlatformInfo");
    std::string s(size, '\0');
    if (size > 0) check(a.GetPlatformInfo(p, param, size, s.data(), nullptr), "clGetPlatformInfo");
    return tidy(std::move(s));
}

std::string device_string(cl_device_id d, cl_device_info param) {
    const Api& a = api();
    std::size_t size = 0;
    check(a.GetDeviceInfo(d, param, 0, nullptr, &size), "clGetDeviceInfo");
    std::string s(size, '\0');
    if (size > 0) check(a.GetDeviceInfo(d, param, size, s.data(), nullptr), "clGetDeviceInfo");
    return tidy(std::move(s));
}

bool is_nvidia_platform(cl_platform_id p) {
    return platform_string(p, CL_PLATFORM_VENDOR).find("NVIDIA") != std::string::npos;
}

bool ptx_feature_on(cl_device_id d, const char* env, const std::string& off) {
    const bool nvidia = is_nvidia_platform(device_value<cl_platform_id>(d, CL_DEVICE_PLATFORM, "CL_DEVICE_PLATFORM"));
    const char* value = std::getenv(env);
    const std::string want = value ? value : "";
    if (want.empty()) return nvidia;
    if (want == off) return false;
    if (want == "ptx") {
        if (!nvidia) throw Error(std::string(env) + "=ptx: the device is not on NVIDIA's OpenCL platform");
        return true;
    }
    throw Error(std::string(env) + " is '" + want + "'. expected 'ptx' or '" + off + "'");
}

DeviceInfo describe(const DeviceRef& ref) {
    const cl_device_id d = ref.device;
    DeviceInfo i;
    i.backend = "opencl";
    i.name = device_string(d, CL_DEVICE_NAME);
    i.vendor = device_string(d, CL_DEVICE_VENDOR);
    i.platform = platform_string(ref.platform, CL_PLATFORM_NAME);
    i.driver_version = device_string(d, CL_DRIVER_VERSION);
    i.runtime_version = device_string(d, CL_DEVICE_VERSION);
    i.compiler_version = device_string(d, CL_DEVICE_OPENCL_C_VERSION);
    i.compute_units = int(device_value<cl_uint>(d, CL_DEVICE_MAX_COMPUTE_UNITS, "CL_DEVICE_MAX_COMPUTE_UNITS"));
    i.global_mem_bytes = device_value<cl_ulong>(d, CL_DEVICE_GLOBAL_MEM_SIZE, "CL_DEVICE_GLOBAL_MEM_SIZE");
    i.max_alloc_bytes = device_value<cl_ulong>(d, CL_DEVICE_MAX_MEM_ALLOC_SIZE, "CL_DEVICE_MAX_MEM_ALLOC_SIZE");
    i.max_local_mem_bytes =
        std::size_t(device_value<cl_ulong>(d, CL_DEVICE_LOCAL_MEM_SIZE, "CL_DEVICE_LOCAL_MEM_SIZE"));
    i.max_work_group_size =
        device_value<std::size_t>(d, CL_DEVICE_MAX_WORK_GROUP_SIZE, "CL_DEVICE_MAX_WORK_GROUP_SIZE");
    i.clock_mhz = int(device_value<cl_uint>(d, CL_DEVICE_MAX_CLOCK_FREQUENCY, "CL_DEVICE_MAX_CLOCK_FREQUENCY"));
    const auto type = device_value<cl_device_type>(d, CL_DEVICE_TYPE, "CL_DEVICE_TYPE");
    i.is_gpu = (type & CL_DEVICE_TYPE_GPU) != 0;
    i.is_nvidia = i.vendor.find("NVIDIA") != std::string::npos;
    const std::string extensions = device_string(d, CL_DEVICE_EXTENSIONS);
    // NVIDIA's platform reports the compute capability through its own extension.
    if (i.is_nvidia && extensions.find("cl_nv_device_attribute_query") != std::string::npos) {
        i.cc_major = int(device_value<cl_uint>(d, kCcMajorNv, "CL_DEVICE_COMPUTE_CAPABILITY_MAJOR_NV"));
        i.cc_minor = int(device_value<cl_uint>(d, kCcMinorNv, "CL_DEVICE_COMPUTE_CAPABILITY_MINOR_NV"));
        i.simd_width = int(device_value<cl_uint>(d, kWarpSizeNv, "CL_DEVICE_WARP_SIZE_NV"));
    }
    if (i.simd_width == 0 && i.is_gpu) i.simd_width = gpu_lockstep_width(d, extensions);
    return i;
}

}  // namespace tb::cl
