#pragma once

#include <memory>

#include "backend.hpp"

namespace tb {

// Every device of every OpenCL platform, platforms in ICD order.
std::unique_ptr<Backend> make_opencl_backend();

}  // namespace tb
