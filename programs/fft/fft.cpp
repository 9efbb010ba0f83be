// fft: batched 1-D and 2-D single-precision complex-to-complex FFTs (docs/programs/fft.md).
#include <string>

#include "instance.hpp"
#include "plan.hpp"
#include "program_registry.hpp"

namespace tb {
namespace {

using fft::Shape;

// Transform lengths: 256 -> "256", 4096 -> "4k", 2^20 -> "1m" (batches stay plain numbers).
std::string size_name(std::int64_t n) {
    if (n >= (1 << 20) && n % (1 << 20) == 0) return std::to_string(n >> 20) + "m";
    if (n >= 1024 && n % 1024 == 0) return std::to_string(n >> 10) + "k";
    return std::to_string(n);
}

Dataset one_d(std::int64_t length, std::int64_t batch, bool small) {
    const std::string name = "1d-" + size_name(length) + (batch > 1 ? "x" + std::to_string(batch) : "");
    return Dataset{name, {{"dims", 1}, {"length", length}, {"batch", batch}},
                   std::to_string(batch) + " transform(s) of " + std::to_string(length) + " points", small};
}

Dataset two_d(std::int64_t rows, std::int64_t cols, bool small) {
    const std::string s = std::to_string(rows) + "x" + std::to_string(cols);
    return Dataset{"2d-" + s, {{"dims", 2}, {"rows", rows}, {"cols", cols}}, "one " + s + " 2-D transform", small};
}

class Fft final : public Program {
public:
    std::string name() const override { return "fft"; }
    std::string description() const override {
        return "single-precision complex FFT, batched 1-D and 2-D: Stockham passes of up to 4096 points, radix-16 stages in local memory";
    }
    std::vector<Dataset> datasets() const override {
        return {
            one_d(256, 8, true),
            one_d(4096, 4, true),
            one_d(1 << 16, 2, true),
            one_d(256, 4096, false),
            one_d(4096, 1024, false),
            one_d(1 << 20, 16, false),
            one_d(1 << 24, 1, false),
            // Futhark's fft benchmark sizes (rows x cols), and a large one.
            two_d(64, 64, true),
            two_d(64, 256, false),
            two_d(128, 128, false),
            two_d(128, 512, false),
            two_d(256, 256, false),
            two_d(512, 512, false),
            two_d(1024, 1024, false),
            two_d(4096, 4096, false),
        };
    }
    std::vector<std::string> variants() const override { return {"forward", "roundtrip"}; }
    std::uint64_t device_bytes(const Dataset& d, const std::string& variant) const override {
        fft::parse_variant(variant);
        // Input, output and one intermediate buffer, plus the twiddle tables: the stage table
        // and one two-level table per twiddled pass (at most 2 x 4096 entries each).
        const fft::Shape s = fft::shape_of(d);
        const fft::Tuning t = fft::active_tuning();
        std::uint64_t bytes = 3 * std::uint64_t(s.points()) * 8 + 8 * std::uint64_t(fft::inner_twiddle_entries(t));
        for (const fft::Pass& p : fft::make_plan(s, t, DeviceInfo{}))
            if (p.twiddle_log2B() >= 0)
                bytes += 8 * ((std::uint64_t(1) << p.twiddle_log2B()) +
                              (std::uint64_t(1) << (p.log2Ns + p.log2R - p.twiddle_log2B())));
        return bytes;
    }
    // The space wraps fft::Tuning; TRIBENCH_FFT_TUNING sets the start (docs/tuning.md).
    const TuningSpace& tuning_space() const override { return fft::tuning_space(); }
    TuningConfig default_config(const DeviceInfo& dev) const override { return fft::default_config(dev); }
    std::vector<std::string> defines(const TuningConfig& c) const override {
        return fft::kernel_defines(fft::tuning_of(c));
    }
    std::unique_ptr<Instance> prepare(Device& dev, Module& mod, const Dataset& d, const RunConfig& cfg) const override {
        return fft::make_kernel_instance(dev, mod, fft::shape_of(d), fft::parse_variant(cfg.variant), cfg.seed,
                                         fft::tuning_of(config_of(cfg)));
    }
    bool has_vendor_baseline() const override { return true; }
    std::string vendor_library() const override { return "cuFFT"; }
    std::unique_ptr<Instance> prepare_vendor(Device& dev, const Dataset& d, const RunConfig& cfg) const override {
        return fft::make_cufft_instance(dev, fft::shape_of(d), fft::parse_variant(cfg.variant), cfg.seed);
    }
};

const ProgramRegistration reg(std::make_unique<Fft>());

}  // namespace
}  // namespace tb
