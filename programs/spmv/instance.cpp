#include "instance.hpp"

#include <cstring>

#include "launch_config.hpp"
#include "reference.hpp"

namespace tb::spmv {
namespace {

constexpr std::uint32_t kPoison = 0xFFFFFFFFu;  // a NaN: no row of a correct product is NaN

template <class T>
Buffer upload_vector(Device& dev, const std::vector<T>& v) {
    Buffer b = dev.alloc(v.size() * sizeof(T));
    dev.upload(b, v.data(), v.size() * sizeof(T));
    return b;
}

template <class T>
NamedArray array_of(const std::string& name, const char* dtype, const std::vector<T>& v) {
    NamedArray a{name, dtype, {v.size()}, {}};
    a.data.resize(v.size() * sizeof(T));
    std::memcpy(a.data.data(), v.data(), a.data.size());
    return a;
}

}  // namespace

SpmvInstance::SpmvInstance(Device& dev, std::shared_ptr<const Problem> problem)
    : dev_(dev), p_(std::move(problem)),
      row_ptr_(upload_vector(dev, p_->a.row_ptr)), col_(upload_vector(dev, p_->a.col)),
      val_(upload_vector(dev, p_->a.val)), x_(upload_vector(dev, p_->x)),
      y_(dev.alloc(std::size_t(p_->a.rows) * sizeof(float))) {}

void SpmvInstance::poison() { dev_.fill_u32(y_, kPoison); }

std::vector<float> SpmvInstance::download_y() {
    std::vector<float> y(std::size_t(p_->a.rows));
    dev_.download(y.data(), y_, y.size() * sizeof(float));
    return y;
}

Validation SpmvInstance::validate() {
    const std::vector<float> y = download_y();
    const Comparison c = compare(p_->a, p_->x, y);
    Validation v;
    v.checked = std::size_t(c.rows);
    v.sampled = false;
    v.ok = c.bad == 0 && c.nonzero_rows > 0;
    v.detail = c.nonzero_rows > 0 ? describe(c)
                                  : "the reference product is zero in every row (all-zero values): nothing to validate";
    return v;
}

// A perfect implementation reads each non-zero's column and value once, the row offsets
// once, x once (the ideal: every gathered element reused from cache) and writes y.
WorkModel SpmvInstance::work() const {
    const auto& a = p_->a;
    WorkModel w;
    w.items = double(a.nnz());
    w.item_name = "non-zeros";
    w.flops = 2.0 * double(a.nnz());
    w.bytes = double(a.nnz()) * (sizeof(std::int32_t) + sizeof(float)) + double(a.rows + 1) * sizeof(std::int32_t) +
              double(a.cols) * sizeof(float) + double(a.rows) * sizeof(float);
    return w;
}

std::vector<NamedArray> SpmvInstance::arrays() {
    const auto& a = p_->a;
    return {array_of("row_ptr", "<i4", a.row_ptr), array_of("col", "<i4", a.col), array_of("val", "<f4", a.val),
            array_of("x", "<f4", p_->x), array_of("y", "<f4", download_y())};
}

namespace {

class KernelInstance final : public SpmvInstance {
public:
    KernelInstance(Device& dev, Module& mod, std::shared_ptr<const Problem> problem, bool vector)
        : SpmvInstance(dev, std::move(problem)), vector_(vector),
          kernel_(mod.kernel(vector ? "spmv_vector" : "spmv_scalar")),
          block_(block_size(dev.info().max_work_group_size)) {
        const double mean = double(p_->a.nnz()) / double(p_->a.rows);
        group_ = vector_group_size(mean, block_);
    }

    void run() override {
        const auto rows = std::uint64_t(p_->a.rows);
        const int units = dev_.info().compute_units;
        if (!vector_) {
            dev_.launch(kernel_, Dim3{launch_groups((rows + block_ - 1) / block_, units), 1, 1}, Dim3{block_, 1, 1},
                        Args(std::int32_t(rows), row_ptr_, col_, val_, x_, y_));
            return;
        }
        const std::uint64_t rows_per_group = block_ / group_;
        Args args(std::int32_t(rows), row_ptr_, col_, val_, x_, y_, std::int32_t(group_));
        args.add(LocalMem{block_ * sizeof(float)});  // the OpenCL kernel's reduction scratch
        dev_.launch(kernel_, Dim3{launch_groups((rows + rows_per_group - 1) / rows_per_group, units), 1, 1},
                    Dim3{block_, 1, 1}, args);
    }

private:
    bool vector_;
    Kernel kernel_;
    std::uint32_t block_;
    std::uint32_t group_ = 1;
};

}  // namespace

std::unique_ptr<Instance> make_kernel_instance(Device& dev, Module& mod, std::shared_ptr<const Problem> problem,
                                               const std::string& variant) {
    if (variant != "scalar" && variant != "vector")
        throw Error("spmv has no variant '" + variant + "' (known: scalar, vector)");
    return std::make_unique<KernelInstance>(dev, mod, std::move(problem), variant == "vector");
}

}  // namespace tb::spmv
