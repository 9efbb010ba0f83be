// spmv: y = A x in single precision with A in CSR (docs/programs/spmv.md). Generated
// matrices of eight structures, or any Matrix Market file (`--matrix FILE.mtx`); cuSPARSE's
// two CSR algorithms as the vendor baseline.
#include "instance.hpp"
#include "problem.hpp"
#include "program_registry.hpp"
#include "tuning.hpp"

namespace tb {
namespace {

class Spmv final : public Program {
public:
    std::string name() const override { return "spmv"; }
    std::string description() const override {
        return "sparse matrix times vector (CSR, float): one work-item per row (scalar), a group per row (vector), "
               "equal pieces of the merge path (merge), or one of them chosen from the row lengths (auto)";
    }
    std::vector<Dataset> datasets() const override { return spmv::generated_datasets(); }
    std::vector<std::string> variants() const override { return {"scalar", "vector", "merge", "auto"}; }
    const TuningSpace& tuning_space() const override { return spmv::tuning_space(); }
    TuningConfig default_config(const DeviceInfo& dev) const override { return spmv::default_config(dev); }
    std::vector<std::string> defines(const TuningConfig& c) const override {
        return spmv::kernel_defines(int(c.at("scalar_batch")));
    }
    std::uint64_t device_bytes(const Dataset& d, const std::string& variant) const override {
        return spmv::problem_device_bytes(d) + (variant == "merge" || variant == "auto" ? spmv::merge_device_bytes(d) : 0);
    }
    std::unique_ptr<Instance> prepare(Device& dev, Module& mod, const Dataset& d,
                                      const RunConfig& cfg) const override {
        return spmv::make_kernel_instance(dev, mod, spmv::load_problem(d, cfg.seed), cfg.variant);
    }

    bool has_vendor_baseline() const override { return true; }
    std::string vendor_library() const override { return "cuSPARSE"; }
    std::vector<std::string> vendor_variants() const override { return spmv::cusparse_variants(); }
    std::unique_ptr<Instance> prepare_vendor(Device& dev, const Dataset& d, const RunConfig& cfg) const override {
        spmv::require_cusparse(dev);  // say so before generating a large matrix for nothing
        return spmv::make_cusparse_instance(dev, spmv::load_problem(d, cfg.seed), cfg.variant);
    }

    bool takes_matrix_file() const override { return true; }
    Dataset dataset_from_file(const std::string& path) const override { return spmv::file_dataset(path); }
};

const ProgramRegistration reg(std::make_unique<Spmv>());

}  // namespace
}  // namespace tb
