// A built OpenCL program and the kernels created from it, one cl_kernel per name.
#pragma once

#include <string>
#include <vector>

#include "cl_api.hpp"
#include "device.hpp"

namespace tb::cl {

class ClModule final : public Module {
public:
    // Takes ownership of `program`.
    ClModule(cl_program program, std::string file_name) : program_(program), file_name_(std::move(file_name)) {}
    ClModule(const ClModule&) = delete;
    ClModule& operator=(const ClModule&) = delete;
    ~ClModule() override;

    // Created on first use and cached; throws tb::Error naming the kernel and the file if
    // the program has no such kernel.
    Kernel kernel(const std::string& name) override;

private:
    cl_program program_;
    std::string file_name_;
    std::vector<std::pair<std::string, cl_kernel>> kernels_;
};

}  // namespace tb::cl
