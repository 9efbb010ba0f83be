// kmeans: Lloyd's algorithm, a fixed number of iterations from the first k points
// (Rodinia's initialisation), on feature-major points. See docs/programs/kmeans.md.
#include <algorithm>
#include <chrono>
#include <climits>
#include <cstdio>
#include <cstring>
#include <string>

#include "blobs.hpp"
#include "host_cache.hpp"
#include "program_registry.hpp"
#include "reference.hpp"
#include "rng.hpp"
#include "tuning.hpp"

namespace tb {
namespace {

namespace km = tb::kmeans;

using km::kKmax;
using km::kMaxGroups;
using km::kPointsPerItem;
constexpr int kMaxFeatures = 64;          // bounds the generic assignment's local memory
constexpr std::uint32_t kPoison = 0xFFFFFFFFu;  // label -1 and float NaN

// Everything derived from a dataset: shape, iteration count and the update's launch shape.
struct Plan {
    km::Shape s;
    int iters = 0;
    int blobs = 0;
    std::int64_t groups = 0;  // work-groups of kmeans_partial
    std::int64_t chunk = 0;   // points per group, a multiple of 4
    bool fixed_d = false;     // the _d2/_d4 kernels apply
    km::Launch launch;        // the tuning configuration's group sizes
};

Plan make_plan(const Dataset& ds, const km::Launch& launch = km::Launch{}) {
    Plan p;
    p.launch = launch;
    p.s.n = ds.param("n");
    p.s.d = int(ds.param("d"));
    p.s.k = int(ds.param("k"));
    p.iters = int(ds.param("iters"));
    p.blobs = int(ds.param("blobs"));
    const auto bad = [&](const std::string& why) { return Error("kmeans dataset " + ds.name + ": " + why); };
    if (p.s.k < 1 || p.s.k > kKmax) throw bad("k must be 1.." + std::to_string(kKmax));
    if (p.s.d < 1 || p.s.d > kMaxFeatures) throw bad("d must be 1.." + std::to_string(kMaxFeatures));
    if (p.s.n < p.s.k) throw bad("needs at least k points");
    if (p.s.n * p.s.d > INT_MAX - 4) throw bad("n*d must fit in 32 bits");
    if (p.iters < 1 || p.blobs < 1) throw bad("iters and blobs must be >= 1");
    p.groups = std::clamp<std::int64_t>((p.s.n + launch.min_chunk() - 1) / launch.min_chunk(), 1, kMaxGroups);
    p.chunk = ((p.s.n + p.groups - 1) / p.groups + 3) / 4 * 4;
    p.groups = (p.s.n + p.chunk - 1) / p.chunk;
    if (p.chunk >= (1 << 24)) throw bad("too many points per group for exact float counts");
    p.fixed_d = p.s.n % 4 == 0 && (p.s.d == 2 || p.s.d == 4);
    return p;
}

bool full_variant(const std::string& v) {
    if (v == "full" || v.empty()) return true;
    if (v == "assign") return false;
    throw Error("kmeans has no variant '" + v + "' (known: full, assign)");
}

std::uint64_t bytes_needed(const Plan& p, bool full) {
    const std::uint64_t n = p.s.n, d = p.s.d, k = p.s.k;
    std::uint64_t b = 4 * (n * d + k * d + n);  // points, initial centroids, labels
    if (full) b += 4 * (p.iters * k * d + p.groups * k * d + p.groups * k);  // history, partials
    return b;
}

std::string fmt(double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.3g", v);
    return buf;
}

class KmeansInstance final : public Instance {
public:
    KmeansInstance(Device& dev, Module& mod, const Plan& p, bool full, std::uint64_t seed)
        : dev_(dev), p_(p), full_(full) {
        const char* suffix = p.fixed_d ? (p.s.d == 2 ? "_d2" : "_d4") : "";
        assign_ = mod.kernel(std::string("kmeans_assign") + suffix);
        if (full_) {
            partial_ = mod.kernel(std::string("kmeans_partial") + suffix);
            finalize_ = mod.kernel("kmeans_finalize");
        }
        // The points, shared by every backend, variant and launch of the dataset.
        points_host_ = HostCache::global().get<std::vector<float>>(
            "kmeans/points/n" + std::to_string(p.s.n) + "/d" + std::to_string(p.s.d) + "/blobs" +
                std::to_string(p.blobs) + "/seed" + std::to_string(seed),
            [&] { return km::make_blobs(p.s.n, p.s.d, p.blobs, derive_seed(seed, 0x6b6d)).points; },
            [](const std::vector<float>& v) { return v.size() * sizeof(float); });
        init_host_ = km::first_points(points_host_->data(), p.s);

        const std::size_t n = p.s.n, kd = std::size_t(p.s.k) * p.s.d;
        points_ = dev.alloc(n * p.s.d * sizeof(float));
        init_ = dev.alloc(kd * sizeof(float));
        labels_ = dev.alloc(n * sizeof(std::int32_t));
        dev.upload(points_, points_host_->data(), points_.bytes());
        dev.upload(init_, init_host_.data(), init_.bytes());
        if (full_) {
            history_ = dev.alloc(std::size_t(p.iters) * kd * sizeof(float));
            psums_ = dev.alloc(std::size_t(p.groups) * kd * sizeof(float));
            pcounts_ = dev.alloc(std::size_t(p.groups) * p.s.k * sizeof(std::int32_t));
        }
    }

    void poison() override {
        dev_.fill_u32(labels_, kPoison);
        if (full_) dev_.fill_u32(history_, kPoison);
    }

    void run() override {
        if (graph_) graph_->launch();
        else enqueue();
    }

    double prepare_graph() override {
        if (!dev_.supports_graphs()) throw Error("kmeans: graph launch needs a backend with graphs");
        const auto t0 = std::chrono::steady_clock::now();
        graph_ = dev_.capture([this] { enqueue(); });
        return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    }

    Validation validate() override {
        download();
        return full_ ? validate_full() : validate_assign();
    }

    WorkModel work() const override {
        const double n = double(p_.s.n), d = p_.s.d, k = p_.s.k;
        WorkModel w;
        const double assign_bytes = n * d * 4 + n * 4;  // read points, write labels
        const double assign_flops = 3 * n * k * d;      // sub, mul, add per point, centroid, feature
        if (!full_) {
            w.bytes = assign_bytes;
            w.flops = assign_flops;
            w.items = n;
            w.item_name = "points";
            return w;
        }
        // Per iteration the update reads the points and labels again and adds n*d values.
        w.bytes = p_.iters * (2 * assign_bytes);
        w.flops = p_.iters * (assign_flops + n * d);
        w.items = n * p_.iters;
        w.item_name = "point-iterations";
        return w;
    }

    std::vector<NamedArray> arrays() override {
        download();
        const std::size_t n = p_.s.n, d = p_.s.d, k = p_.s.k;
        std::vector<NamedArray> out;
        out.push_back(array("points", "<f4", {d, n}, points_host_->data(), points_host_->size() * 4));
        out.push_back(array("initial_centroids", "<f4", {k, d}, init_host_.data(), init_host_.size() * 4));
        out.push_back(array("labels", "<i4", {n}, labels_host_.data(), labels_host_.size() * 4));
        if (full_)
            out.push_back(array("centroids", "<f4", {std::size_t(p_.iters), k, d}, history_host_.data(),
                                history_host_.size() * 4));
        return out;
    }

private:
    static NamedArray array(const char* name, const char* dtype, std::vector<std::size_t> shape, const void* data,
                            std::size_t bytes) {
        NamedArray a{name, dtype, std::move(shape), {}};
        a.data.resize(bytes);
        std::memcpy(a.data.data(), data, bytes);
        return a;
    }

    // The form of distance the assignment kernel ranks by (reference.hpp).
    km::Distance distance() const { return p_.fixed_d ? km::Distance::expanded : km::Distance::direct; }

    // Centroids iteration t starts from: the initial ones, then the history slices.
    const Buffer& centroids_in(int t) const { return t == 0 ? init_ : history_; }
    std::int32_t offset_in(int t) const { return t == 0 ? 0 : std::int32_t((t - 1) * p_.s.k * p_.s.d); }

    void launch_assign(int t) {
        const std::uint32_t items = std::uint32_t((p_.s.n + kPointsPerItem - 1) / kPointsPerItem);
        const LocalMem cent{km::assign_local_floats(p_.s.d, p_.fixed_d) * sizeof(float)};
        const std::uint32_t block = p_.launch.block;
        dev_.launch(assign_, Dim3{(items + block - 1) / block, 1, 1}, Dim3{block, 1, 1},
                    Args(points_, centroids_in(t), offset_in(t), labels_, std::int32_t(p_.s.n), std::int32_t(p_.s.d),
                         std::int32_t(p_.s.k), cent));
    }

    void launch_update(int t) {
        const std::size_t k = p_.s.k, d = p_.s.d;
        const std::size_t values = p_.fixed_d ? k * (d + 1) : k;  // per work-item at a time (kernels.cl)
        dev_.launch(partial_, Dim3{std::uint32_t(p_.groups), 1, 1}, Dim3{p_.launch.partial_block, 1, 1},
                    Args(points_, labels_, psums_, pcounts_, std::int32_t(p_.s.n), std::int32_t(d), std::int32_t(k),
                         std::int32_t(p_.chunk), LocalMem{p_.launch.partial_local_floats(values) * sizeof(float)}));
        dev_.launch(finalize_, Dim3{std::uint32_t(k * d), 1, 1}, Dim3{p_.launch.block, 1, 1},
                    Args(psums_, pcounts_, std::int32_t(p_.groups), centroids_in(t), offset_in(t), history_,
                         std::int32_t(t * k * d), std::int32_t(d), std::int32_t(k),
                         LocalMem{p_.launch.block * sizeof(float)}, LocalMem{p_.launch.block * sizeof(std::int32_t)}));
    }

    // The timed unit: "assign" is one assignment from the initial centroids; "full" is the
    // whole fixed-iteration run. Nothing is reset: every launch reads only the inputs and
    // what earlier launches of the same run wrote.
    void enqueue() {
        if (!full_) {
            launch_assign(0);
            return;
        }
        for (int t = 0; t < p_.iters; ++t) {
            launch_assign(t);
            launch_update(t);
        }
    }

    void download() {
        labels_host_.resize(p_.s.n);
        dev_.download(labels_host_.data(), labels_, labels_.bytes());
        if (full_) {
            history_host_.resize(history_.bytes() / sizeof(float));
            dev_.download(history_host_.data(), history_, history_.bytes());
        }
    }

    std::string label_summary(const km::Step& st) const {
        std::string s = std::to_string(st.mismatches) + " of " + std::to_string(p_.s.n) +
                        " labels outside the rounding-allowed set (" + std::to_string(st.flips) + " near-tie flips)";
        if (st.first_mismatch >= 0)
            s += ", first at point " + std::to_string(st.first_mismatch) + ": got " +
                 std::to_string(labels_host_[st.first_mismatch]);
        return s;
    }

    Validation validate_assign() {
        const km::Step st =
            km::assign_step(points_host_->data(), p_.s, init_host_.data(), distance(), labels_host_.data());
        Validation v;
        v.checked = std::size_t(p_.s.n);
        v.ok = st.mismatches == 0;
        v.detail = "assignment to the initial centroids: " + label_summary(st);
        return v;
    }

    // Every iteration checked from the centroids the device started it with (see
    // reference.hpp); the last one also checks the device's labels.
    Validation validate_full() {
        const std::size_t kd = std::size_t(p_.s.k) * p_.s.d;
        const int depth = km::summation_depth(p_.chunk, int(p_.launch.partial_block), p_.groups, int(p_.launch.block));
        km::Step last;
        km::CentroidCheck worst;
        double worst_ratio = -1;
        int worst_iter = -1, unchecked = 0;
        bool centroids_ok = true;
        for (int t = 0; t < p_.iters; ++t) {
            const float* prev = t == 0 ? init_host_.data() : history_host_.data() + (t - 1) * kd;
            const float* got = history_host_.data() + t * kd;
            const bool final_step = t == p_.iters - 1;
            km::Step st = km::assign_step(points_host_->data(), p_.s, prev, distance(),
                                          final_step ? labels_host_.data() : nullptr);
            const km::CentroidCheck cc = km::check_centroids(st, points_host_->data(), p_.s, prev, got, depth);
            centroids_ok = centroids_ok && cc.ok;
            unchecked += cc.unchecked;
            const double ratio = !cc.ok ? 1e300 : cc.worst_tol > 0 ? cc.worst_err / cc.worst_tol : 0;
            if (ratio > worst_ratio) worst_ratio = ratio, worst = cc, worst_iter = t;
            if (final_step) last = std::move(st);
        }
        Validation v;
        v.checked = std::size_t(p_.s.n) + std::size_t(p_.iters) * kd;
        v.ok = last.mismatches == 0 && centroids_ok;
        v.detail = std::to_string(p_.iters) + " iterations: final " + label_summary(last) +
                   "; centroids: worst error " + fmt(worst.worst_err) + " (tolerance " + fmt(worst.worst_tol) +
                   ") at iteration " + std::to_string(worst_iter + 1) + " cluster " +
                   std::to_string(worst.worst_cluster) + " feature " + std::to_string(worst.worst_feature);
        if (unchecked) v.detail += ", " + std::to_string(unchecked) + " near-empty clusters not checked";
        return v;
    }

    Device& dev_;
    Plan p_;
    bool full_;
    Kernel assign_, partial_, finalize_;
    std::shared_ptr<const std::vector<float>> points_host_;
    std::vector<float> init_host_, history_host_;
    std::vector<std::int32_t> labels_host_;
    Buffer points_, init_, labels_, history_, psums_, pcounts_;
    std::unique_ptr<Graph> graph_;
};

Dataset make_dataset(const std::string& name, std::int64_t n, int d, int k, bool small, const std::string& what) {
    return Dataset{name,
                   {{"n", n}, {"d", d}, {"k", k}, {"iters", 10}, {"blobs", k}},
                   std::to_string(n) + " points, " + std::to_string(d) + " features, k=" + std::to_string(k) +
                       ", 10 iterations" + (what.empty() ? "" : " (" + what + ")"),
                   small, ""};
}

class Kmeans final : public Program {
public:
    std::string name() const override { return "kmeans"; }
    std::string description() const override {
        return "Lloyd's k-means, fixed iterations from the first k points, feature-major points";
    }
    std::vector<Dataset> datasets() const override {
        return {
            make_dataset("8k-d4-k5", 8192, 4, 5, true, "CI"),
            make_dataset("50k-d2-k5", 50000, 2, 5, false, "Futhark"),
            make_dataset("200k-d2-k5", 200000, 2, 5, false, "Futhark"),
            make_dataset("204800-d34-k5", 204800, 34, 5, false, "Rodinia"),
            make_dataset("10m-d4-k5", 10000000, 4, 5, false, "bandwidth-bound"),
            make_dataset("10m-d4-k16", 10000000, 4, 16, false, "compute and bandwidth"),
        };
    }
    std::vector<std::string> variants() const override { return {"full", "assign"}; }
    bool iterative() const override { return true; }
    const TuningSpace& tuning_space() const override { return km::tuning_space(); }
    TuningConfig default_config(const DeviceInfo& dev) const override { return km::default_config(dev); }
    std::vector<std::string> defines(const TuningConfig& c) const override { return km::kernel_defines(km::launch_of(c)); }
    std::uint64_t device_bytes(const Dataset& d, const std::string& variant) const override {
        return bytes_needed(make_plan(d), full_variant(variant));
    }
    std::unique_ptr<Instance> prepare(Device& dev, Module& mod, const Dataset& d, const RunConfig& cfg) const override {
        return std::make_unique<KmeansInstance>(dev, mod, make_plan(d, km::launch_of(config_of(cfg))),
                                                full_variant(cfg.variant), cfg.seed);
    }
};

const ProgramRegistration reg(std::make_unique<Kmeans>());

}  // namespace
}  // namespace tb
