// What every spmv instance shares, whoever computes y (the kernels or cuSPARSE): the
// problem on the device, poisoning, validation against the CPU reference, the work model.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "problem.hpp"
#include "program.hpp"

namespace tb::spmv {

class SpmvInstance : public Instance {
public:
    SpmvInstance(Device& dev, std::shared_ptr<const Problem> problem);
    void poison() override;
    Validation validate() override;
    WorkModel work() const override;
    std::vector<NamedArray> arrays() override;

protected:
    Device& dev_;
    std::shared_ptr<const Problem> p_;
    Buffer row_ptr_, col_, val_, x_, y_;

private:
    std::vector<float> download_y();
};

// The scalar or vector kernel on any backend; throws tb::Error on an unknown variant.
std::unique_ptr<Instance> make_kernel_instance(Device& dev, Module& mod, std::shared_ptr<const Problem> problem,
                                               const std::string& variant);

// cuSPARSE's generic SpMV (cusparse_baseline.cpp). require_cusparse throws tb::Error
// ("cuSPARSE not available: ...") unless dev is an NVIDIA GPU on a CUDA backend and the
// library loads; it is cheap, so callers check before building a large problem.
void require_cusparse(Device& dev);
std::unique_ptr<Instance> make_cusparse_instance(Device& dev, std::shared_ptr<const Problem> problem);

}  // namespace tb::spmv
