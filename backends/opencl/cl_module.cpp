#include "cl_module.hpp"

namespace tb::cl {

ClModule::~ClModule() {
    const Api& a = api();
    for (auto& [name, k] : kernels_) a.ReleaseKernel(k);
    a.ReleaseProgram(program_);
}

Kernel ClModule::kernel(const std::string& name) {
    for (std::size_t i = 0; i < kernels_.size(); ++i)
        if (kernels_[i].first == name) return Kernel{name, kernels_[i].second, int(i)};
    cl_int rc = CL_SUCCESS;
    cl_kernel k = api().CreateKernel(program_, name.c_str(), &rc);
    if (rc == CL_INVALID_KERNEL_NAME) throw Error("opencl: kernel '" + name + "' not found in " + file_name_);
    check(rc, "clCreateKernel(" + name + ")");
    kernels_.emplace_back(name, k);
    return Kernel{name, k, int(kernels_.size() - 1)};
}

}  // namespace tb::cl
