// Backends are looked up by id. A backend that cannot start (no driver, no platform)
// throws tb::Error from devices() with the one-line reason, and the rest of the suite runs.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "device.hpp"

namespace tb {

class Backend {
public:
    virtual ~Backend() = default;
    virtual std::string id() const = 0;
    virtual Dialect dialect() const = 0;
    // Whether its kernels are compiled by NVRTC: parameters only NVRTC reads
    // (TuningParam::nvrtc_only, such as launch bounds) change nothing elsewhere, and `tune`
    // keeps them at the device default there.
    virtual bool compiles_with_nvrtc() const { return false; }
    // Every device this backend can open, in a stable order; throws tb::Error saying why
    // the backend is unavailable (e.g. "libcuda.so.1 not found").
    virtual std::vector<DeviceInfo> devices() = 0;
    virtual std::unique_ptr<Device> open(std::size_t index) = 0;
};

// "cuda-native", "cuda-prelude", "opencl", in that order.
const std::vector<std::string>& backend_ids();
// Throws tb::Error(unknown_backend(id)) for an id not in backend_ids().
std::unique_ptr<Backend> make_backend(const std::string& id);
// "unknown backend 'x' (known: cuda-native, cuda-prelude, opencl)".
std::string unknown_backend(const std::string& id);

}  // namespace tb
