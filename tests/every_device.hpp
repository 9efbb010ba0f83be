// Runs a check on every device of a backend: for kernels.cl's built-ins that every backend
// must give alike (sub-groups, load hints), each tested on every device it can run on.
#pragma once

#include <gtest/gtest.h>

#include <functional>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "backend.hpp"
#include "scoped_env.hpp"

namespace tb::test {

// The backend's devices, or none with the reason in `why`.
inline std::vector<DeviceInfo> devices_of(Backend& b, std::string& why) {
    try {
        return b.devices();
    } catch (const Error& e) {
        why = e.what();
        return {};
    }
}

// check() on every device of `backend_id` (those `only` accepts, when given) with the
// environment variable `env` unset, and on NVIDIA's devices once more with env = nvidia_mode
// (when both are given). Returns why nothing was checked ("" when something was): the caller
// skips with it.
inline std::string check_every_device(const std::string& backend_id, const char* env, const char* nvidia_mode,
                                      const std::function<void(Device&)>& check,
                                      const std::function<bool(const DeviceInfo&)>& only = nullptr) {
    std::unique_ptr<Backend> backend;
    try {
        backend = make_backend(backend_id);
    } catch (const Error& e) {
        return e.what();
    }
    std::string why;
    const auto infos = devices_of(*backend, why);
    if (infos.empty()) return "no " + backend_id + " device: " + why;
    bool checked = false;
    for (std::size_t i = 0; i < infos.size(); ++i) {
        if (only && !only(infos[i])) continue;
        checked = true;
        for (const char* mode : {static_cast<const char*>(nullptr), nvidia_mode}) {
            if (mode && (!env || !infos[i].is_nvidia)) continue;
            const std::string label = infos[i].name + " (" + infos[i].platform + ", " + backend_id + ")" +
                                      (env ? std::string(", ") + env + (mode ? std::string("=") + mode : std::string(" unset")) : "");
            SCOPED_TRACE(label);
            std::optional<ScopedEnv> set;
            if (env) set.emplace(env, mode);
            auto dev = backend->open(i);
            check(*dev);
            std::cout << "[ checked  ] " << label << std::endl;
        }
    }
    return checked ? "" : "no " + backend_id + " device of the kind this test needs";
}

// The error compiling `src` on `dev` gives with the environment variable `env` set to
// `value`; "" when it compiles.
inline std::string compile_error_with(Device& dev, const char* env, const char* value, const Source& src,
                                      const CompileOptions& opt = CompileOptions{}) {
    ScopedEnv set(env, value);
    try {
        dev.compile(src, opt);
    } catch (const Error& e) {
        return e.what();
    }
    return "";
}

}  // namespace tb::test
