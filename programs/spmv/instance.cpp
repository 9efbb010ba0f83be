#include "instance.hpp"

#include <algorithm>
#include <chrono>
#include <cstring>

#include "launch_config.hpp"
#include "reference.hpp"
#include "variant_choice.hpp"

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
    const Comparison c = compare(p_->a, p_->reference, y);
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

// The buffers a kernel variant reads and writes, owned by the instance that runs it.
struct Operands {
    const Buffer &row_ptr, &col, &val, &x, &y;
};

// The launches of one kernel variant: one run() is one product y = A x.
class Launcher {
public:
    virtual ~Launcher() = default;
    virtual void run() = 0;
};

// scalar: one work-item per row, at most kGroupsPerComputeUnit groups per compute unit.
class ScalarLauncher final : public Launcher {
public:
    ScalarLauncher(Device& dev, Module& mod, const Problem& p, Operands o)
        : dev_(dev), p_(p), o_(o), kernel_(mod.kernel("spmv_scalar")),
          block_(block_size(dev.info().max_work_group_size)) {}

    void run() override {
        const auto rows = std::uint64_t(p_.a.rows);
        dev_.launch(kernel_, Dim3{launch_groups((rows + block_ - 1) / block_, dev_.info().compute_units), 1, 1},
                    Dim3{block_, 1, 1}, Args(std::int32_t(rows), o_.row_ptr, o_.col, o_.val, o_.x, o_.y));
    }

private:
    Device& dev_;
    const Problem& p_;
    Operands o_;
    Kernel kernel_;
    std::uint32_t block_;
};

// vector: G work-items per row, G from the mean row length.
class VectorLauncher final : public Launcher {
public:
    VectorLauncher(Device& dev, Module& mod, const Problem& p, Operands o)
        : dev_(dev), p_(p), o_(o), kernel_(mod.kernel("spmv_vector")),
          block_(block_size(dev.info().max_work_group_size)),
          group_(vector_group_size(double(p_.a.nnz()) / double(p_.a.rows), block_)) {}

    void run() override {
        const auto rows = std::uint64_t(p_.a.rows);
        const std::uint64_t rows_per_group = block_ / group_;
        Args args(std::int32_t(rows), o_.row_ptr, o_.col, o_.val, o_.x, o_.y, std::int32_t(group_));
        args.add(LocalMem{block_ * sizeof(float)});  // the OpenCL kernel's reduction scratch
        dev_.launch(kernel_,
                    Dim3{launch_groups((rows + rows_per_group - 1) / rows_per_group, dev_.info().compute_units), 1, 1},
                    Dim3{block_, 1, 1}, args);
    }

private:
    Device& dev_;
    const Problem& p_;
    Operands o_;
    Kernel kernel_;
    std::uint32_t block_;
    std::uint32_t group_;
};

// merge: the merge path cut into equal tiles (launch_config.hpp). The tiles' start rows
// depend only on row_ptr, so they are found once here, outside timing, as cuSPARSE's
// analysis is (cusparseSpMV_preprocess); run() is the product and one fix-up launch for the
// rows that cross tiles. `block` 0: the device's usual work-group size.
class MergeLauncher final : public Launcher {
public:
    MergeLauncher(Device& dev, Module& mod, const Problem& p, Operands o, int fixup_items, std::uint32_t block)
        : dev_(dev), p_(p), o_(o), kernel_(mod.kernel("spmv_merge")), fixup_(mod.kernel("spmv_merge_fixup")),
          geo_(merge_geometry(p_.a.rows, p_.a.nnz(), block ? block : block_size(dev.info().max_work_group_size),
                              fixup_items)),
          tile_row_(dev.alloc((std::size_t(geo_.tiles) + 1) * sizeof(std::int32_t))),
          carry_row_(dev.alloc(std::size_t(geo_.tiles) * sizeof(std::int32_t))),
          carry_val_(dev.alloc(std::size_t(geo_.tiles) * sizeof(float))) {
        const Kernel partition = mod.kernel("spmv_merge_partition");
        const std::uint64_t boundaries = std::uint64_t(geo_.tiles) + 1;
        dev_.launch(partition, Dim3{std::uint32_t((boundaries + geo_.block - 1) / geo_.block), 1, 1},
                    Dim3{geo_.block, 1, 1},
                    Args(std::int32_t(p_.a.rows), std::int32_t(p_.a.nnz()), geo_.tile_items, geo_.tiles, o_.row_ptr,
                         tile_row_));
        dev_.synchronize();
    }

    void run() override {
        const auto rows = std::int32_t(p_.a.rows);
        Args args(rows, std::int32_t(p_.a.nnz()), o_.row_ptr, o_.col, o_.val, o_.x, o_.y, tile_row_, carry_row_,
                  carry_val_);
        args.add(LocalMem{geo_.words_bytes()});
        args.add(LocalMem{geo_.done_bytes()});
        args.add(LocalMem{geo_.scan_bytes()});
        args.add(LocalMem{geo_.scan_bytes()});
        dev_.launch(kernel_, Dim3{geo_.tiles, 1, 1}, Dim3{geo_.block, 1, 1}, args);
        Args fix(rows, std::int32_t(geo_.tiles), carry_row_, carry_val_, o_.y);
        fix.add(LocalMem{geo_.scan_bytes()});
        fix.add(LocalMem{geo_.scan_bytes()});
        dev_.launch(fixup_, Dim3{geo_.windows, 1, 1}, Dim3{geo_.block, 1, 1}, fix);
    }

private:
    Device& dev_;
    const Problem& p_;
    Operands o_;
    Kernel kernel_, fixup_;
    MergeGeometry geo_;
    Buffer tile_row_, carry_row_, carry_val_;
};

// An spmv instance whose run() is one kernel variant's launches on its buffers.
class KernelInstance final : public SpmvInstance {
public:
    using SpmvInstance::SpmvInstance;
    void run() override { launcher_->run(); }
    const Problem& problem() const { return *p_; }
    Operands operands() const { return {row_ptr_, col_, val_, x_, y_}; }
    void use(std::unique_ptr<Launcher> l) { launcher_ = std::move(l); }

private:
    std::unique_ptr<Launcher> launcher_;  // declared after the base's buffers: destroyed first
};

std::unique_ptr<Launcher> make_launcher(const std::string& kernel, Device& dev, Module& mod, KernelInstance& inst) {
    if (kernel == "scalar") return std::make_unique<ScalarLauncher>(dev, mod, inst.problem(), inst.operands());
    if (kernel == "vector") return std::make_unique<VectorLauncher>(dev, mod, inst.problem(), inst.operands());
    return std::make_unique<MergeLauncher>(dev, mod, inst.problem(), inst.operands(), kFixupItems, 0);
}

// `auto`: every candidate built on the instance's buffers (merge's partition runs, its extra
// buffers are what device_bytes adds for auto), timed on this device (inspect), the pick
// kept and the others freed. Their outputs are poisoned afterwards, so that what the
// inspection left in y cannot pass for the picked kernel's result (the runner poisons
// again before its validated run). The cost recorded is all of it, from building the
// candidates to the poison.
void choose_by_timing(Device& dev, Module& mod, KernelInstance& inst) {
    const auto t0 = std::chrono::steady_clock::now();
    const std::string prior = pick_variant(row_stats(inst.problem().a.row_ptr));
    std::vector<std::unique_ptr<Launcher>> launchers;
    std::vector<Candidate> candidates;
    std::string refused;  // why the first candidate that could not be built was not
    for (const auto& v : candidate_variants()) {
        try {
            launchers.push_back(make_launcher(v, dev, mod, inst));
        } catch (const Error& e) {  // merge_geometry refuses a work-group or a merge path it cannot cut
            if (refused.empty()) refused = v + ": " + e.what();
            continue;
        }
        Launcher* l = launchers.back().get();
        candidates.push_back({v, [l] { l->run(); }});
    }
    if (candidates.empty()) throw Error("spmv auto: no candidate kernel could be built (" + refused + ")");
    const Inspection ins = inspect(dev, prior, candidates);
    std::map<std::string, double> measured;
    for (std::size_t i = 0; i < candidates.size(); ++i) {
        measured[ins.times[i].variant] = ins.times[i].ms;
        if (candidates[i].variant == ins.picked) inst.use(std::move(launchers[i]));
    }
    launchers.clear();
    inst.poison();
    dev.synchronize();
    inst.set_picked(ins.picked,
                    std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count(),
                    std::move(measured));
}

}  // namespace

std::unique_ptr<Instance> make_merge_instance(Device& dev, Module& mod, std::shared_ptr<const Problem> problem,
                                              int fixup_items, std::uint32_t block) {
    auto inst = std::make_unique<KernelInstance>(dev, std::move(problem));
    inst->use(std::make_unique<MergeLauncher>(dev, mod, inst->problem(), inst->operands(), fixup_items, block));
    return inst;
}

std::unique_ptr<Instance> make_kernel_instance(Device& dev, Module& mod, std::shared_ptr<const Problem> problem,
                                               const std::string& variant) {
    const auto& known = candidate_variants();
    if (variant != "auto" && std::find(known.begin(), known.end(), variant) == known.end())
        throw Error("spmv has no variant '" + variant + "' (known: scalar, vector, merge, auto)");
    auto inst = std::make_unique<KernelInstance>(dev, std::move(problem));
    if (variant == "auto") choose_by_timing(dev, mod, *inst);
    else inst->use(make_launcher(variant, dev, mod, *inst));
    return inst;
}

}  // namespace tb::spmv
