#pragma once

#include <memory>

#include "backend.hpp"

namespace tb {

// Dialect::Cuda gives the cuda-native backend, Dialect::OpenCL cuda-prelude.
std::unique_ptr<Backend> make_cuda_backend(Dialect dialect);

}  // namespace tb
