// mandelbrot: escape-time iteration counts over a fixed view of the complex plane.
#include <cstring>
#include <string>

#include "host_cache.hpp"
#include "program_registry.hpp"
#include "reference.hpp"
#include "sample.hpp"
#include "tuning.hpp"

namespace tb {
namespace {

using mandelbrot::View;

constexpr int kMaxIter = 256;
constexpr std::uint64_t kSampleLimit = 1u << 20;  // pixels validated on larger images
constexpr std::uint32_t kPoison = 0xFFFFFFFFu;    // -1: no pixel escapes after -1 steps

View make_view(const Dataset& d) {
    View v{};
    v.width = int(d.param("width"));
    v.height = int(d.param("height"));
    v.max_iter = int(d.param("max_iter"));
    // The classic view [-2.25, 0.75] x [-1.5, 1.5], pixel centres.
    v.dx = 3.0f / float(v.width);
    v.dy = 3.0f / float(v.height);
    v.x0 = -2.25f + 0.5f * v.dx;
    v.y0 = -1.5f + 0.5f * v.dy;
    return v;
}

class MandelbrotInstance final : public Instance {
public:
    MandelbrotInstance(Device& dev, Module& mod, const View& v, std::uint64_t seed, const TuningConfig& config)
        : dev_(dev), view_(v), seed_(seed),
          block_{std::uint32_t(config.at("group_x")), std::uint32_t(config.at("group_y")), 1},
          kernel_(mod.kernel("mandelbrot")),
          out_(dev.alloc(std::size_t(v.width) * v.height * sizeof(int))) {}

    void poison() override { dev_.fill_u32(out_, kPoison); }

    void run() override {
        const Dim3 block = block_;
        const Dim3 grid{(std::uint32_t(view_.width) + block.x - 1) / block.x,
                        (std::uint32_t(view_.height) + block.y - 1) / block.y, 1};
        dev_.launch(kernel_, grid, block,
                    Args(out_, std::int32_t(view_.width), std::int32_t(view_.height), view_.x0, view_.y0,
                         view_.dx, view_.dy, std::int32_t(view_.max_iter)));
    }

    Validation validate() override {
        download();
        const std::uint64_t n = std::uint64_t(view_.width) * view_.height;
        const auto ref = reference();
        const std::vector<std::uint64_t>& idx = ref->pixels;
        std::uint64_t mismatches = 0, sensitive = 0, first_bad = n;
        for (std::size_t s = 0; s < idx.size(); ++s) {
            const std::uint64_t k = idx[s];
            const int plain = ref->plain[s], fused = ref->fused[s];
            sensitive += plain != fused;
            if (host_[k] != plain && host_[k] != fused) {
                ++mismatches;
                if (first_bad == n) first_bad = k;
            }
        }
        Validation v;
        v.checked = idx.size();
        v.sampled = idx.size() < n;
        const std::uint64_t allowed = mandelbrot::allowed_mismatches(sensitive, idx.size());
        v.ok = mismatches <= allowed;
        v.detail = std::to_string(mismatches) + " of " + std::to_string(idx.size()) +
                   " pixels differ from the CPU reference (allowed " + std::to_string(allowed) + ", " +
                   std::to_string(sensitive) + " rounding-sensitive)";
        if (first_bad != n)
            v.detail += "; first at (" + std::to_string(first_bad % view_.width) + "," +
                        std::to_string(first_bad / view_.width) + "): got " + std::to_string(host_[first_bad]);
        return v;
    }

    WorkModel work() const override {
        WorkModel w;
        w.items = double(view_.width) * view_.height;
        w.item_name = "pixels";
        w.bytes = w.items * sizeof(int);
        // 8 flops per iteration: zr*zr, zi*zi, the escape test's add, 2*zr, *zi, +ci, -, +cr.
        w.flops = 8.0 * double(total_iterations_);
        return w;
    }

    std::vector<NamedArray> arrays() override {
        download();
        NamedArray a{"iterations", "<i4", {std::size_t(view_.height), std::size_t(view_.width)}, {}};
        a.data.resize(host_.size() * sizeof(int));
        std::memcpy(a.data.data(), host_.data(), a.data.size());
        return {std::move(a)};
    }

private:
    // The sampled pixels' escape times with and without fused multiply-adds, shared by every
    // backend through HostCache (the view and the seed determine them).
    struct Reference {
        std::vector<std::uint64_t> pixels;
        std::vector<int> plain, fused;
    };
    std::shared_ptr<const Reference> reference() const {
        const std::string key = "mandelbrot/" + std::to_string(view_.width) + "x" + std::to_string(view_.height) +
                                "/iter" + std::to_string(view_.max_iter) + "/seed" + std::to_string(seed_);
        return HostCache::global().get<Reference>(
            key,
            [&] {
                Reference r;
                r.pixels = sample_indices(std::uint64_t(view_.width) * view_.height, kSampleLimit, seed_);
                for (std::uint64_t k : r.pixels) {
                    const int px = int(k % view_.width), py = int(k / view_.width);
                    r.plain.push_back(mandelbrot::escape_time(view_, px, py, false));
                    r.fused.push_back(mandelbrot::escape_time(view_, px, py, true));
                }
                return r;
            },
            [](const Reference& r) { return r.pixels.size() * (sizeof(std::uint64_t) + 2 * sizeof(int)); });
    }

    void download() {
        host_.resize(std::size_t(view_.width) * view_.height);
        dev_.download(host_.data(), out_, host_.size() * sizeof(int));
        total_iterations_ = 0;
        for (int it : host_) total_iterations_ += std::uint64_t(it < 0 ? 0 : it);
    }

    Device& dev_;
    View view_;
    std::uint64_t seed_;
    Dim3 block_;
    Kernel kernel_;
    Buffer out_;
    std::vector<int> host_;
    std::uint64_t total_iterations_ = 0;
};

class Mandelbrot final : public Program {
public:
    std::string name() const override { return "mandelbrot"; }
    std::string description() const override {
        return "escape-time Mandelbrot set, 256 iterations, one work-item per pixel";
    }
    std::vector<Dataset> datasets() const override {
        std::vector<Dataset> sets;
        for (int side : {128, 512, 1024, 4096, 8000}) {
            const std::string s = std::to_string(side);
            sets.push_back(Dataset{s + "x" + s, {{"width", side}, {"height", side}, {"max_iter", kMaxIter}},
                                   s + "x" + s + " pixels", side <= 512});
        }
        return sets;
    }
    std::uint64_t device_bytes(const Dataset& d, const std::string&) const override {
        return std::uint64_t(d.param("width")) * d.param("height") * sizeof(int);
    }
    const TuningSpace& tuning_space() const override { return mandelbrot::tuning_space(); }
    TuningConfig default_config(const DeviceInfo& dev) const override { return mandelbrot::default_config(dev); }
    std::vector<std::string> defines(const TuningConfig& c) const override { return mandelbrot::kernel_defines(c); }
    std::unique_ptr<Instance> prepare(Device& dev, Module& mod, const Dataset& d,
                                      const RunConfig& cfg) const override {
        return std::make_unique<MandelbrotInstance>(dev, mod, make_view(d), cfg.seed, config_of(cfg));
    }
};

const ProgramRegistration reg(std::make_unique<Mandelbrot>());

}  // namespace
}  // namespace tb
