// A program's compile on a device, timed twice: cold (tribench's kernel cache bypassed) and
// cached (served by the cache, or by the OpenCL driver's own cache on a second build), so
// results report both (docs/results-json.md: compile_cold_ms, compile_cached_ms).
#pragma once

#include <memory>
#include <string>

#include "device.hpp"

namespace tb {

struct CompiledModule {
    std::unique_ptr<Module> module;
    std::string error;
    double cold_ms = 0, cached_ms = 0;
};

// The module to run; fills m.cold_ms and m.cached_ms. compile_twice false: one compile,
// whose time is cold or cached as it came. Throws tb::Error when the compile fails.
std::unique_ptr<Module> compile_timed(Device& dev, const Source& src, const CompileOptions& co, bool compile_twice,
                                      CompiledModule& m);

}  // namespace tb
