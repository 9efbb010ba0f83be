// The first OpenCL device (PoCL in CI), opened once per test process and shared by the
// program tests' fixtures, which must not delete it. It is closed when the tests end, not
// by a static destructor at exit: by then the C++ runtime has destroyed thread-local
// objects, and Oclgrind 21.10's clFinish and clReleaseContext write to its per-thread call
// stack (valgrind: invalid writes into the freed block; glibc aborted test_nbody).
#pragma once

#include <cstdlib>
#include <memory>
#include <optional>
#include <string>

#include <gtest/gtest.h>

#include "backend.hpp"

namespace tb {

struct SharedOpenClDevice {
    std::unique_ptr<Backend> backend;
    std::unique_ptr<Device> device;  // null when there is none; `reason` says why
    std::string reason;
};

// Empty until a test asks for the device.
inline std::optional<SharedOpenClDevice>& shared_opencl_slot() {
    static std::optional<SharedOpenClDevice> slot;
    return slot;
}

inline SharedOpenClDevice& shared_opencl_device() {
    std::optional<SharedOpenClDevice>& slot = shared_opencl_slot();
    if (!slot) {
        SharedOpenClDevice& s = slot.emplace();
        try {
            s.backend = make_backend("opencl");
            if (s.backend->devices().empty()) s.reason = "the OpenCL platforms list no device";
            else s.device = s.backend->open(0);
        } catch (const Error& e) {
            s.reason = e.what();
        }
    }
    return *slot;
}

// Ends a test (or a fixture's SetUp) that needs an OpenCL device when `device` is null: a
// skip naming `reason`, and a failure where CI is set, so that the gate cannot pass by
// skipping its PoCL tests.
#define TB_SKIP_WITHOUT_OPENCL_DEVICE(device, reason)                                   \
    do {                                                                                \
        if (!(device)) {                                                                \
            if (std::getenv("CI")) FAIL() << "no OpenCL device in CI: " << (reason);  \
            GTEST_SKIP() << "no OpenCL device: " << (reason);                          \
        }                                                                               \
    } while (false)

// The same for the shared device.
#define TB_SKIP_WITHOUT_SHARED_OPENCL_DEVICE() \
    TB_SKIP_WITHOUT_OPENCL_DEVICE(::tb::shared_opencl_device().device, ::tb::shared_opencl_device().reason)

class CloseSharedOpenClDevice : public testing::Environment {
public:
    void TearDown() override {
        if (std::optional<SharedOpenClDevice>& slot = shared_opencl_slot()) {
            slot->device.reset();
            slot->backend.reset();
            slot->reason = "closed after the tests";
        }
    }
};

inline testing::Environment* const close_shared_opencl_device =
    testing::AddGlobalTestEnvironment(new CloseSharedOpenClDevice);

}  // namespace tb
