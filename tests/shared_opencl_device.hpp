// The first OpenCL device (PoCL in CI), opened once per test process and shared by the
// program tests' fixtures, which must not delete it.
#pragma once

#include <memory>
#include <string>

#include "backend.hpp"

namespace tb {

struct SharedOpenClDevice {
    std::unique_ptr<Backend> backend;
    std::unique_ptr<Device> device;  // null when there is none; `reason` says why
    std::string reason;
};

inline SharedOpenClDevice& shared_opencl_device() {
    static SharedOpenClDevice shared = [] {
        SharedOpenClDevice s;
        try {
            s.backend = make_backend("opencl");
            if (s.backend->devices().empty()) s.reason = "the OpenCL platforms list no device";
            else s.device = s.backend->open(0);
        } catch (const Error& e) {
            s.reason = e.what();
        }
        return s;
    }();
    return shared;
}

}  // namespace tb
