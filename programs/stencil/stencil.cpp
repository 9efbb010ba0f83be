// stencil: the fourth-order diffusion filter of the CuPy weather-and-climate study, iterated
// on a periodic 3-D field, as four library-style kernels per iteration (unfused) or one
// tiled kernel (fused), launched per iteration or replayed from CUDA graphs.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <exception>
#include <limits>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "cpu_affinity.hpp"
#include "host_cache.hpp"
#include "layout.hpp"
#include "program_registry.hpp"
#include "reference.hpp"
#include "tuning.hpp"

namespace tb {
namespace {

using stencil::Layout;

constexpr std::uint32_t kPoison = 0xFFFFFFFFu;  // NaN: no step of the filter produces it
constexpr int kFullIterations = 1025;           // the study's N

std::uint32_t blocks(std::int64_t n, std::uint32_t per) { return std::uint32_t((n + per - 1) / per); }

// Planes per fused work-group: as many as keep >= groups_per_unit work-groups per compute unit,
// so loads of the next plane overlap the current one without starving the device of groups.
int planes_per_group(std::int64_t tiles, int nz, int compute_units, int groups_per_unit) {
    const std::int64_t want = groups_per_unit * std::int64_t(std::max(compute_units, 1));
    int zper = 1;
    while (2 * zper <= nz && tiles * ((nz + 2 * zper - 1) / (2 * zper)) >= want) zper *= 2;
    return zper;
}

std::string fmt(double v) {
    char b[32];
    std::snprintf(b, sizeof b, "%.3g", v);
    return b;
}

struct PlaneCheck {
    double max_err = 0;  // NaN if the device produced NaN
    double tolerance = 0;
    std::int64_t bad = 0;
    int worst_i = 0, worst_j = 0;
};

// How far a plane is from failing; NaN outputs rank worst.
double score(const PlaneCheck& c) {
    return std::isnan(c.max_err) ? std::numeric_limits<double>::infinity() : c.max_err / c.tolerance;
}

class StencilInstance final : public Instance {
public:
    StencilInstance(Device& dev, Module& mod, const Layout& lay, int iterations, bool fused, const RunConfig& cfg)
        : dev_(dev), lay_(lay), iterations_(iterations), fused_(fused), launch_(cfg.launch), seed_(cfg.seed),
          shape_(stencil::shape_of(cfg.tuning)),
          fused_k_(fused ? mod.kernel("diffusion_fused") : Kernel{}),
          halo_k_(fused ? Kernel{} : mod.kernel("halo_update")),
          lap_k_(fused ? Kernel{} : mod.kernel("laplacian")),
          update_k_(fused ? Kernel{} : mod.kernel("diffusion_update")) {
        if (launch_ == LaunchMode::Graph && !dev.supports_graphs())
            throw Error("stencil: launch mode graph needs a backend with graphs (the CUDA backends)");
        pristine_ = dev.alloc(lay.bytes());
        a_ = dev.alloc(lay.bytes());
        b_ = dev.alloc(lay.bytes());
        if (!fused) {
            lap1_ = dev.alloc(lay.bytes());
            lap2_ = dev.alloc(lay.bytes());
        }
        upload_initial_field();
        zper_ = planes_per_group(std::int64_t(blocks(lay.nx, shape_.tile_x)) * blocks(lay.ny, shape_.tile_y), lay.nz,
                                 dev.info().compute_units, shape_.groups_per_unit);
    }

    void poison() override {
        dev_.fill_u32(a_, kPoison);
        dev_.fill_u32(b_, kPoison);
    }

    // The timed unit: reset the working field from the pristine input (a device copy of the
    // whole padded field), then all iterations.
    void run() override {
        dev_.copy(a_, pristine_, lay_.bytes());
        if (launch_ == LaunchMode::Graph) {
            if (iterations_ >= 2 && !pair_) throw Error("stencil: graph mode run() before prepare_graph()");
            if (iterations_ % 2 && !single_) throw Error("stencil: graph mode run() before prepare_graph()");
            for (int i = 0; i < iterations_ / 2; ++i) pair_->launch();
            if (iterations_ % 2) single_->launch();
            return;
        }
        for (int i = 0; i < iterations_; ++i) step(i % 2 ? b_ : a_, i % 2 ? a_ : b_);
    }

    // Graph replay and the pointer swap: a graph replays fixed addresses, so a graph of one
    // iteration (a -> b) replayed N times would recompute the first iteration N times. One
    // graph holds two iterations (a -> b -> a) and ends where it began; an odd count ends
    // with a graph of one iteration (a -> b), leaving the result in b exactly as the stream
    // loop does.
    double prepare_graph() override {
        if (!dev_.supports_graphs())
            throw Error("stencil: launch mode graph needs a backend with graphs (the CUDA backends)");
        const auto t0 = std::chrono::steady_clock::now();
        pair_.reset();
        single_.reset();
        if (iterations_ >= 2) pair_ = dev_.capture([this] { step(a_, b_); step(b_, a_); });
        if (iterations_ % 2) single_ = dev_.capture([this] { step(a_, b_); });
        return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    }

    Validation validate() override;

    // Convention (docs/programs/stencil.md): each iteration reads and writes the nx*ny*nz
    // field once; 12 flops per cell and iteration (two 5-point Laplacians of 1 mul + 4 adds,
    // the update's mul and sub). Halo traffic, the fused kernel's apron and recomputation,
    // the unfused kernels' temporaries and the reset copy are not counted.
    WorkModel work() const override {
        WorkModel w;
        const double cells = double(lay_.nx) * lay_.ny * lay_.nz;
        w.items = cells * iterations_;
        w.item_name = "cell-updates";
        w.bytes = 2.0 * sizeof(float) * w.items;
        w.flops = 12.0 * w.items;
        return w;
    }

    std::vector<NamedArray> arrays() override {
        NamedArray in{"input", "<f4", {std::size_t(lay_.nz), std::size_t(lay_.ny), std::size_t(lay_.nx)}, {}};
        NamedArray out{"output", "<f4", in.shape, {}};
        const std::size_t plane_bytes = std::size_t(lay_.nx) * lay_.ny * sizeof(float);
        in.data.resize(plane_bytes * lay_.nz);
        out.data.resize(plane_bytes * lay_.nz);
        std::vector<float> rows;
        for (int k = 0; k < lay_.nz; ++k) {
            const auto init = stencil::initial_plane(lay_.nx, lay_.ny, k, seed_);
            std::memcpy(in.data.data() + plane_bytes * k, init.data(), plane_bytes);
            download_interior(k, rows);
            for (int j = 0; j < lay_.ny; ++j)
                std::memcpy(out.data.data() + plane_bytes * k + std::size_t(j) * lay_.nx * sizeof(float),
                            rows.data() + std::size_t(j) * lay_.pitch, lay_.nx * sizeof(float));
        }
        return {std::move(in), std::move(out)};
    }

private:
    const Buffer& result() const { return iterations_ % 2 ? b_ : a_; }

    // One iteration src -> dst. The unfused variant updates src's halo in place first.
    void step(const Buffer& src, const Buffer& dst) {
        const int nx = lay_.nx, ny = lay_.ny, nz = lay_.nz;
        const auto base = std::int32_t(lay_.base), pitch = std::int32_t(lay_.pitch), plane = std::int32_t(lay_.plane);
        if (fused_) {
            const Dim3 grid{blocks(nx, shape_.tile_x), blocks(ny, shape_.tile_y), blocks(nz, std::uint32_t(zper_))};
            dev_.launch(fused_k_, grid, Dim3{shape_.group_x, shape_.group_y, 1},
                        Args(src, dst, stencil::kAlpha, nx, ny, nz, std::int32_t(zper_), base, pitch, plane,
                             LocalMem{stencil::fused_tile_bytes(shape_)}, LocalMem{stencil::fused_lap_bytes(shape_)}));
            return;
        }
        const std::int64_t ring = 4 * std::int64_t(nx + 4) + 4 * std::int64_t(ny);
        dev_.launch(halo_k_, Dim3{blocks(ring, shape_.halo_group), std::uint32_t(nz), 1}, Dim3{shape_.halo_group, 1, 1},
                    Args(src, nx, ny, base, pitch, plane));
        const Dim3 group{shape_.group_x, shape_.group_y, 1};
        for (int ext : {1, 0}) {
            const Dim3 grid{blocks(nx + 2 * ext, group.x), blocks(ny + 2 * ext, group.y), std::uint32_t(nz)};
            dev_.launch(lap_k_, grid, group,
                        Args(ext ? src : lap1_, ext ? lap1_ : lap2_, nx, ny, std::int32_t(ext), base, pitch, plane));
        }
        dev_.launch(update_k_, Dim3{blocks(nx, group.x), blocks(ny, group.y), std::uint32_t(nz)}, group,
                    Args(src, lap2_, dst, stencil::kAlpha, nx, ny, base, pitch, plane));
    }

    // The padded initial field, shared by every backend, variant and launch of the dataset.
    void upload_initial_field() {
        const std::string key = "stencil/field/" + std::to_string(lay_.nx) + "x" + std::to_string(lay_.ny) + "x" +
                                std::to_string(lay_.nz) + "/pitch" + std::to_string(lay_.pitch) + "/base" +
                                std::to_string(lay_.base) + "/total" + std::to_string(lay_.total) + "/seed" +
                                std::to_string(seed_);
        const auto field = HostCache::global().get<std::vector<float>>(
            key,
            [&] {
                std::vector<float> f(std::size_t(lay_.total), 0.0f);
                const int nx = lay_.nx, ny = lay_.ny;
                for (int k = 0; k < lay_.nz; ++k) {
                    const auto init = stencil::initial_plane(nx, ny, k, seed_);
                    // Interior and a consistent periodic halo (only the unfused variant reads
                    // halos, and it refreshes them every iteration).
                    for (int j = -2; j < ny + 2; ++j)
                        for (int i = -2; i < nx + 2; ++i)
                            f[std::size_t(lay_.at(i, j, k))] = init[std::size_t((j + ny) % ny) * nx + (i + nx) % nx];
                }
                return f;
            },
            [](const std::vector<float>& f) { return f.size() * sizeof(float); });
        dev_.upload(pristine_, field->data(), lay_.bytes());
    }

    // Rows 0..ny-1 of plane k of the result, pitch floats apart.
    void download_interior(int k, std::vector<float>& rows) {
        rows.resize(std::size_t(lay_.ny) * lay_.pitch);
        dev_.download(rows.data(), result(), rows.size() * sizeof(float), std::size_t(lay_.at(0, 0, k)) * sizeof(float));
    }

    Device& dev_;
    Layout lay_;
    int iterations_;
    bool fused_;
    LaunchMode launch_;
    std::uint64_t seed_;
    stencil::Shape shape_;
    Kernel fused_k_, halo_k_, lap_k_, update_k_;
    Buffer pristine_, a_, b_, lap1_, lap2_;
    int zper_ = 1;
    std::unique_ptr<Graph> pair_, single_;
};

// Each z-plane evolves on its own (the stencil is horizontal, the boundaries periodic in x
// and y), so whole planes are validated exactly: every cell after every iteration against
// the double-precision reference of that plane, computed from the regenerated input. The
// planes (all, or a seeded sample when the reference would exceed its budget) are spread
// over all CPU cores.
Validation StencilInstance::validate() {
    const int nx = lay_.nx, ny = lay_.ny;
    const std::vector<int> planes = stencil::sample_planes(nx, ny, lay_.nz, iterations_, seed_);
    std::vector<std::vector<float>> got(planes.size());
    for (std::size_t p = 0; p < planes.size(); ++p) download_interior(planes[p], got[p]);

    std::vector<PlaneCheck> checks(planes.size());
    std::vector<std::exception_ptr> errors(planes.size());
    const auto check_plane = [&](std::size_t p) {
        try {
            const auto ref_ptr = HostCache::global().get<stencil::PlaneReference>(
                "stencil/plane/" + std::to_string(nx) + "x" + std::to_string(ny) + "/k" + std::to_string(planes[p]) +
                    "/i" + std::to_string(iterations_) + "/seed" + std::to_string(seed_),
                [&] { return stencil::reference_plane(stencil::initial_plane(nx, ny, planes[p], seed_), nx, ny, iterations_); },
                [](const stencil::PlaneReference& r) { return r.field.size() * sizeof(double); });
            const stencil::PlaneReference& ref = *ref_ptr;
            PlaneCheck& c = checks[p];
            c.tolerance = ref.tolerance;
            for (int j = 0; j < ny; ++j)
                for (int i = 0; i < nx; ++i) {
                    const double g = got[p][std::size_t(j) * lay_.pitch + i];
                    const double err = std::abs(g - ref.field[std::size_t(j) * nx + i]);
                    if (!(err <= c.tolerance)) ++c.bad;  // NaN counts as bad
                    if (!(err <= c.max_err) && !std::isnan(c.max_err)) {
                        c.max_err = err;
                        c.worst_i = i;
                        c.worst_j = j;
                    }
                }
        } catch (...) {
            errors[p] = std::current_exception();
        }
    };
    const std::size_t workers =
        std::min<std::size_t>(planes.size(), usable_cpu_count());
    std::vector<std::thread> pool;
    for (std::size_t w = 0; w < workers; ++w)
        pool.emplace_back([&, w] {
            for (std::size_t p = w; p < planes.size(); p += workers) check_plane(p);
        });
    for (auto& t : pool) t.join();
    for (const auto& e : errors)
        if (e) std::rethrow_exception(e);

    Validation v;
    std::size_t worst = 0;
    std::int64_t bad = 0;
    double tol_min = checks[0].tolerance, tol_max = checks[0].tolerance;
    for (std::size_t p = 0; p < checks.size(); ++p) {
        bad += checks[p].bad;
        tol_min = std::min(tol_min, checks[p].tolerance);
        tol_max = std::max(tol_max, checks[p].tolerance);
        if (score(checks[p]) > score(checks[worst])) worst = p;
    }
    const PlaneCheck& w = checks[worst];
    v.checked = planes.size() * std::size_t(nx) * ny;
    v.sampled = int(planes.size()) < lay_.nz;
    v.ok = bad == 0;
    v.detail = std::to_string(planes.size()) + " of " + std::to_string(lay_.nz) + " z-planes (all " +
               std::to_string(nx * ny) + " cells each, " + std::to_string(iterations_) +
               " iterations) vs double-precision CPU reference: max |error| " + fmt(w.max_err) + " at (" +
               std::to_string(w.worst_i) + "," + std::to_string(w.worst_j) + "," + std::to_string(planes[worst]) +
               "), tolerance " + fmt(w.tolerance) +
               (tol_min < tol_max ? " (planes: " + fmt(tol_min) + ".." + fmt(tol_max) + ")" : "") + "; " +
               std::to_string(bad) + " cells outside";
    return v;
}

class Stencil final : public Program {
public:
    std::string name() const override { return "stencil"; }
    std::string description() const override {
        return "fourth-order diffusion filter out = in - alpha*lap(lap(in)), alpha = 1/32, periodic 3-D field "
               "with a halo of 2, iterated (unfused: 4 kernels per iteration; fused: 1)";
    }
    std::vector<Dataset> datasets() const override {
        std::vector<Dataset> sets;
        const auto add = [&](int n, int nz, int iters, const std::string& name, bool small) {
            sets.push_back(Dataset{name, {{"nx", n}, {"ny", n}, {"nz", nz}, {"iterations", iters}},
                                   std::to_string(n) + "x" + std::to_string(n) + "x" + std::to_string(nz) + " cells, " +
                                       std::to_string(iters) + " iterations",
                                   small, ""});
        };
        add(16, 8, 5, "16x16x8-i5", true);  // CI: 1025 iterations would be far too slow on PoCL
        for (int n : {32, 64, 128, 256, 512, 1024}) {
            const std::string s = std::to_string(n);
            add(n, 64, kFullIterations, s + "x" + s + "x64", false);
        }
        // Iteration sweep on 128x128x64: where graph replay stops paying (1025 is "128x128x64").
        for (int it : {1, 2, 4, 16, 64, 256, 4096}) add(128, 64, it, "128x128x64-i" + std::to_string(it), false);
        // The ci profile's: 8 launches of about 60 us each on an H100, so that no backend's launch
        // rate sets the time (NVIDIA's OpenCL spends ~13 us of host time per launch).
        add(512, 64, 2, "512x512x64-i2", false);
        return sets;
    }
    std::vector<std::string> variants() const override { return {"unfused", "fused"}; }
    bool iterative() const override { return true; }
    std::uint64_t device_bytes(const Dataset& d, const std::string& variant) const override {
        const Layout lay = stencil::make_layout(int(d.param("nx")), int(d.param("ny")), int(d.param("nz")));
        const int fields = variant == "unfused" ? 5 : 3;  // pristine, ping, pong (+ two Laplacians)
        return std::uint64_t(fields) * lay.bytes();
    }
    const TuningSpace& tuning_space() const override { return stencil::tuning_space(); }
    TuningConfig default_config(const DeviceInfo& dev) const override { return stencil::default_config(dev); }
    std::vector<std::string> defines(const TuningConfig& c) const override { return stencil::kernel_defines(c); }
    std::unique_ptr<Instance> prepare(Device& dev, Module& mod, const Dataset& d, const RunConfig& cfg) const override {
        if (cfg.variant != "unfused" && cfg.variant != "fused")
            throw Error("stencil: unknown variant '" + cfg.variant + "' (known: unfused, fused)");
        const Layout lay = stencil::make_layout(int(d.param("nx")), int(d.param("ny")), int(d.param("nz")));
        const std::int64_t iterations = d.param("iterations");
        if (iterations < 1 || iterations > (1 << 24))
            throw Error("stencil: dataset " + d.name + " has " + std::to_string(iterations) +
                        " iterations (expected 1..2^24)");
        RunConfig resolved = cfg;
        resolved.tuning = config_of(cfg);
        return std::make_unique<StencilInstance>(dev, mod, lay, int(iterations), cfg.variant == "fused", resolved);
    }
};

const ProgramRegistration reg(std::make_unique<Stencil>());

}  // namespace
}  // namespace tb
