// What every spmv instance shares, whoever computes y (the kernels or cuSPARSE): the
// problem on the device, poisoning, validation against the CPU reference, the work model.
#pragma once

#include <cstdint>
#include <map>
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
    std::string picked_variant() const override { return picked_; }
    double pick_cost_ms() const override { return pick_cost_ms_; }
    std::map<std::string, double> pick_candidates_ms() const override { return pick_candidates_ms_; }
    void set_picked(const std::string& kernel, double cost_ms = 0, std::map<std::string, double> candidates_ms = {}) {
        picked_ = kernel;
        pick_cost_ms_ = cost_ms;
        pick_candidates_ms_ = std::move(candidates_ms);
    }

protected:
    Device& dev_;
    std::shared_ptr<const Problem> p_;
    Buffer row_ptr_, col_, val_, x_, y_;

private:
    std::vector<float> download_y();
    std::string picked_;  // the kernel `auto` chose; empty for the other variants
    double pick_cost_ms_ = 0;  // wall time of `auto`'s choice (its candidates timed)
    std::map<std::string, double> pick_candidates_ms_;  // each candidate's median, ms
};

// The kernel variants on any backend: scalar, vector, merge, or auto (one of those three,
// timed on this matrix and device with the row-length rule as the prior, variant_choice.hpp;
// the matrix is uploaded once for all three). Throws tb::Error on an unknown variant.
std::unique_ptr<Instance> make_kernel_instance(Device& dev, Module& mod, std::shared_ptr<const Problem> problem,
                                               const std::string& variant);


// cuSPARSE's generic SpMV (cusparse_baseline.cpp). require_cusparse throws tb::Error
// ("cuSPARSE not available: ...") unless dev is an NVIDIA GPU on a CUDA backend and the
// library loads; it is cheap, so callers check before building a large problem.
// The merge variant for a module compiled with SPMV_FIXUP_ITEMS = fixup_items instead of
// tuning.hpp's, in work-groups of `block` (0: the device's usual): tests use other window
// widths and small work-groups to exercise runs of carries that cross many windows.
std::unique_ptr<Instance> make_merge_instance(Device& dev, Module& mod, std::shared_ptr<const Problem> problem,
                                              int fixup_items, std::uint32_t block = 0);

// `algorithm` is a vendor variant: "csr-alg1" (CUSPARSE_SPMV_CSR_ALG1) or "csr-alg2"
// (CUSPARSE_SPMV_CSR_ALG2); anything else throws tb::Error.
void require_cusparse(Device& dev);
std::unique_ptr<Instance> make_cusparse_instance(Device& dev, std::shared_ptr<const Problem> problem,
                                                 const std::string& algorithm);

// The vendor row's variants, one per cuSPARSE CSR algorithm.
inline const std::vector<std::string>& cusparse_variants() {
    static const std::vector<std::string> v = {"csr-alg1", "csr-alg2"};
    return v;
}

}  // namespace tb::spmv
