#include "backend.hpp"

#include "opencl/opencl_device.hpp"
#ifdef TRIBENCH_HAVE_CUDA
#include "cuda/cuda_device.hpp"
#endif

namespace tb {
namespace {

// Stands in for the CUDA backends in a build without the CUDA toolkit's headers.
class UnbuiltBackend final : public Backend {
public:
    UnbuiltBackend(std::string id, Dialect d) : id_(std::move(id)), dialect_(d) {}
    std::string id() const override { return id_; }
    Dialect dialect() const override { return dialect_; }
    std::vector<DeviceInfo> devices() override {
        throw Error("built without the CUDA toolkit (reconfigure with CUDAToolkit found)");
    }
    std::unique_ptr<Device> open(std::size_t) override { devices(); return nullptr; }

private:
    std::string id_;
    Dialect dialect_;
};

}  // namespace

const std::vector<std::string>& backend_ids() {
    static const std::vector<std::string> ids = {"cuda-native", "cuda-prelude", "opencl"};
    return ids;
}

std::unique_ptr<Backend> make_backend(const std::string& id) {
    if (id == "opencl") return make_opencl_backend();
#ifdef TRIBENCH_HAVE_CUDA
    if (id == "cuda-native") return make_cuda_backend(Dialect::Cuda);
    if (id == "cuda-prelude") return make_cuda_backend(Dialect::OpenCL);
#else
    if (id == "cuda-native") return std::make_unique<UnbuiltBackend>(id, Dialect::Cuda);
    if (id == "cuda-prelude") return std::make_unique<UnbuiltBackend>(id, Dialect::OpenCL);
#endif
    throw Error(unknown_backend(id));
}

std::string unknown_backend(const std::string& id) {
    std::string known;
    for (const auto& k : backend_ids()) known += (known.empty() ? "" : ", ") + k;
    return "unknown backend '" + id + "' (known: " + known + ")";
}

}  // namespace tb
