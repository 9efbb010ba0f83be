// OpenCL platform and device enumeration, and the DeviceInfo of one device.
#pragma once

#include <string>
#include <vector>

#include "cl_api.hpp"
#include "device.hpp"

namespace tb::cl {

struct DeviceRef {
    cl_platform_id platform = nullptr;
    cl_device_id device = nullptr;
};

// Every device of every platform: platforms in the ICD loader's order, then each platform's
// devices in its own order. Throws tb::Error("no OpenCL platform found") when the loader
// has no platform, and the loader's error when it is missing.
std::vector<DeviceRef> all_devices();

std::string platform_string(cl_platform_id p, cl_platform_info param);
std::string device_string(cl_device_id d, cl_device_info param);

template <class T>
T device_value(cl_device_id d, cl_device_info param, const char* what) {
    T v{};
    check(api().GetDeviceInfo(d, param, sizeof v, &v, nullptr), std::string("clGetDeviceInfo(") + what + ")");
    return v;
}

// Name, vendor, versions, sizes and limits of one device (backend id "opencl").
DeviceInfo describe(const DeviceRef& ref);

// True when the platform is NVIDIA's: its program binaries are PTX text.
bool is_nvidia_platform(cl_platform_id p);

// For a feature NVIDIA's platform gets through PTX (load hints, launch bounds): whether the
// device uses it. Yes on NVIDIA's platform, no elsewhere, unless the environment variable
// `env` says "ptx" or `off` (the feature's word for no). Throws tb::Error for another value
// or for ptx on a platform that does not take PTX.
bool ptx_feature_on(cl_device_id d, const char* env, const std::string& off);

}  // namespace tb::cl
