// nbody: all-pairs gravitational N-body with softening, semi-implicit Euler steps.
#include <algorithm>
#include <array>
#include <chrono>
#include <cstring>
#include <string>

#include "bodies.hpp"
#include "host_cache.hpp"
#include "launch.hpp"
#include "program_registry.hpp"
#include "reference.hpp"
#include "sample.hpp"

namespace tb {
namespace {

using nbody::Body;

// Above this many double interactions (n^2 * steps) the full reference is too slow
// (seconds on a few cores); such datasets run one step and are validated by sampling.
constexpr double kFullReferenceBudget = double(1u << 30);
// Sampled bodies cost n double interactions each: about this many in all (~0.1 s on 16
// cores, ~1 s on 2). Every body's sum runs over all tiles and slices, so a kernel bug shows in
// nearly every body: a hundred or more of them is plenty.
constexpr std::uint64_t kSampleBudget = 1u << 27;
constexpr std::uint64_t kMinSamples = 128;
constexpr std::uint32_t kPoison = 0xFFFFFFFFu;  // NaN in every component

bool full_reference(std::int64_t n, std::int64_t steps) { return double(n) * double(n) * double(steps) <= kFullReferenceBudget; }

class NbodyInstance final : public Instance {
public:
    NbodyInstance(Device& dev, Module& mod, const Dataset& d, const RunConfig& cfg)
        : dev_(dev), kernel_(mod.kernel("nbody_step")), n_(d.param("bodies")), steps_(int(d.param("steps"))),
          name_(d.name), seed_(cfg.seed),
          geometry_(nbody::choose_geometry(n_, dev.info().compute_units, dev.info().max_work_group_size,
                                           cfg.variant != "classic", nbody::launch_of(cfg.tuning))),
          init_(nbody::make_initial_state(std::size_t(n_), cfg.seed)) {
        if (steps_ < 1) throw Error("nbody: dataset " + d.name + " has " + std::to_string(steps_) + " steps");
        if (!full_reference(n_, steps_) && steps_ != 1)
            throw Error("nbody: dataset " + d.name + " is validated by sampling, which is exact only after 1 step, but has " +
                        std::to_string(steps_));
        const std::size_t bytes = std::size_t(n_) * sizeof(Body);
        pos0_ = dev.alloc(bytes);
        vel0_ = dev.alloc(bytes);
        for (int b = 0; b < 2; ++b) {
            pos_[b] = dev.alloc(bytes);
            vel_[b] = dev.alloc(bytes);
        }
        dev.upload(pos0_, init_.pos.data(), bytes);
        dev.upload(vel0_, init_.vel.data(), bytes);
    }

    void poison() override {
        for (int b = 0; b < 2; ++b) {
            dev_.fill_u32(pos_[b], kPoison);
            dev_.fill_u32(vel_[b], kPoison);
        }
    }

    void run() override {
        if (graph_)
            graph_->launch();
        else
            enqueue_steps();
    }

    double prepare_graph() override {
        if (!dev_.supports_graphs()) throw Error("nbody: graph launch needs a backend with graphs (the CUDA backends)");
        const auto t0 = std::chrono::steady_clock::now();
        graph_ = dev_.capture([this] { enqueue_steps(); });  // all steps; buffers are fixed per step
        return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    }

    Validation validate() override {
        download();
        if (!reference_)  // inputs never change: one reference per dataset, shared by every backend
            reference_ = HostCache::global().get<Reference>(
                "nbody/" + std::to_string(n_) + "/steps" + std::to_string(steps_) + "/seed" + std::to_string(seed_),
                [&] {
                    Reference r;
                    if (full_reference(n_, steps_)) {
                        r.bodies = sample_indices(std::uint64_t(n_), std::uint64_t(n_), 0);
                        r.expected = nbody::simulate(init_, steps_, nbody::kParams);
                    } else {
                        const std::uint64_t count = std::max(kMinSamples, kSampleBudget / std::uint64_t(n_));
                        r.bodies = sample_indices(std::uint64_t(n_), count, derive_seed(seed_, 0x73616d70ull));
                        r.expected = nbody::first_step(init_, r.bodies, nbody::kParams);
                    }
                    return r;
                },
                [](const Reference& r) {
                    return r.bodies.size() * sizeof(r.bodies[0]) + r.expected.size() * sizeof(nbody::Expected);
                });
        const std::string what = name_ + " (" + std::to_string(n_) + " bodies, " + std::to_string(steps_) + " step" +
                                 (steps_ == 1 ? "" : "s") + ", " + std::to_string(geometry_.tile) + "x" +
                                 std::to_string(geometry_.slices) + " groups)";
        return nbody::compare(init_, pos_out_, vel_out_, reference_->bodies, reference_->expected, what);
    }

    WorkModel work() const override {
        WorkModel w;
        w.items = double(n_) * double(n_) * steps_;
        w.item_name = "interactions";
        w.flops = 20.0 * w.items;  // the customary 20 flops per interaction (docs/programs/nbody.md)
        w.bytes = 4.0 * sizeof(Body) * double(n_) * steps_;  // each step reads pos+vel, writes pos+vel
        return w;
    }

    std::vector<NamedArray> arrays() override {
        download();
        return {as_array("initial_positions", init_.pos), as_array("initial_velocities", init_.vel),
                as_array("positions", pos_out_), as_array("velocities", vel_out_)};
    }

private:
    // Step s reads the pristine inputs (s = 0) or buffer (s-1)%2 and writes buffer s%2, so
    // every run starts from the same state and the sequence can be captured once.
    void enqueue_steps() {
        for (int s = 0; s < steps_; ++s) {
            const Buffer& pin = s == 0 ? pos0_ : pos_[(s - 1) % 2];
            const Buffer& vin = s == 0 ? vel0_ : vel_[(s - 1) % 2];
            nbody::enqueue_step(dev_, kernel_, geometry_, pin, vin, pos_[s % 2], vel_[s % 2], n_, nbody::kParams);
        }
    }

    void download() {
        const int last = (steps_ - 1) % 2;
        pos_out_.resize(std::size_t(n_));
        vel_out_.resize(std::size_t(n_));
        dev_.download(pos_out_.data(), pos_[last], pos_out_.size() * sizeof(Body));
        dev_.download(vel_out_.data(), vel_[last], vel_out_.size() * sizeof(Body));
    }

    static NamedArray as_array(const std::string& name, const std::vector<Body>& v) {
        NamedArray a{name, "<f4", {v.size(), 4}, {}};
        a.data.resize(v.size() * sizeof(Body));
        std::memcpy(a.data.data(), v.data(), a.data.size());
        return a;
    }

    Device& dev_;
    Kernel kernel_;
    std::int64_t n_;
    int steps_;
    std::string name_;
    std::uint64_t seed_;
    nbody::Geometry geometry_;
    nbody::InitialState init_;
    Buffer pos0_, vel0_;
    std::array<Buffer, 2> pos_, vel_;
    std::unique_ptr<Graph> graph_;
    std::vector<Body> pos_out_, vel_out_;
    struct Reference {
        std::vector<std::uint64_t> bodies;  // the bodies checked
        std::vector<nbody::Expected> expected;
    };
    std::shared_ptr<const Reference> reference_;
};

class Nbody final : public Program {
public:
    std::string name() const override { return "nbody"; }
    std::string description() const override {
        return "all-pairs gravitational N-body with softening, semi-implicit Euler, bodies tiled through local memory";
    }
    std::vector<Dataset> datasets() const override {
        struct Size {
            const char* name;
            std::int64_t bodies, steps;
            bool small;
        };
        const Size sizes[] = {{"n1k", 1000, 10, true}, {"n10k", 10000, 5, false}, {"n100k", 100000, 1, false},
                              {"n1m", 1000000, 1, false}};
        std::vector<Dataset> sets;
        for (const Size& s : sizes) {
            const std::string check = full_reference(s.bodies, s.steps) ? "full double reference" : "sampled reference";
            sets.push_back(Dataset{s.name, {{"bodies", s.bodies}, {"steps", s.steps}},
                                   std::to_string(s.bodies) + " bodies, " + std::to_string(s.steps) + " step" +
                                       (s.steps == 1 ? "" : "s") + ", " + check,
                                   s.small, ""});
        }
        return sets;
    }
    std::vector<std::string> variants() const override { return {"default", "classic"}; }
    bool iterative() const override { return true; }
    std::uint64_t device_bytes(const Dataset& d, const std::string&) const override {
        return 6 * std::uint64_t(d.param("bodies")) * sizeof(Body);  // inputs + two ping-pong pairs
    }
    const TuningSpace& tuning_space() const override { return nbody::tuning_space(); }
    TuningConfig default_config(const DeviceInfo& dev) const override { return nbody::default_config(dev); }
    std::vector<std::string> defines(const TuningConfig& c) const override { return nbody::kernel_defines(nbody::launch_of(c)); }
    std::unique_ptr<Instance> prepare(Device& dev, Module& mod, const Dataset& d, const RunConfig& cfg) const override {
        if (cfg.variant != "default" && cfg.variant != "classic")
            throw Error("nbody: unknown variant '" + cfg.variant + "' (known: default, classic)");
        RunConfig resolved = cfg;
        resolved.tuning = config_of(cfg);
        return std::make_unique<NbodyInstance>(dev, mod, d, resolved);
    }
};

const ProgramRegistration reg(std::make_unique<Nbody>());

}  // namespace
}  // namespace tb
