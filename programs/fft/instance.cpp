#include "instance.hpp"

#include <cmath>
#include <cstdio>
#include <cstring>

#include "host_cache.hpp"
#include "rng.hpp"

namespace tb::fft {
namespace {

constexpr std::uint32_t kPoison = 0xFFFFFFFFu;  // NaN: no transform of finite data gives it

std::string sci(double x) {
    char b[32];
    std::snprintf(b, sizeof b, "%.2e", x);
    return b;
}

}  // namespace

Variant parse_variant(const std::string& name) {
    if (name == "forward") return Variant::Forward;
    if (name == "roundtrip") return Variant::Roundtrip;
    throw Error("fft: unknown variant '" + name + "' (known: forward, roundtrip)");
}

FftInstance::FftInstance(Device& dev, const Shape& shape, Variant variant, std::uint64_t seed)
    : dev_(dev), shape_(shape), variant_(variant) {
    const std::size_t values = std::size_t(2 * shape.points());
    cache_key_ = "fft/" + shape.describe() + "/seed" + std::to_string(seed);
    input_ = HostCache::global().get<std::vector<float>>(
        cache_key_ + "/input",
        [&] {
            std::vector<float> v(values);
            Rng rng(derive_seed(seed, 1));
            for (float& f : v) f = rng.uniform_float(-1.0f, 1.0f);
            return v;
        },
        [](const std::vector<float>& v) { return v.size() * sizeof(float); });
    in_ = dev.alloc(values * sizeof(float));
    out_ = dev.alloc(values * sizeof(float));
    dev.upload(in_, input_->data(), values * sizeof(float));
}

void FftInstance::poison() { dev_.fill_u32(out_, kPoison); }

std::vector<float> FftInstance::download_output() {
    std::vector<float> got(input_->size());
    dev_.download(got.data(), out_, got.size() * sizeof(float));
    return got;
}

const std::vector<cdouble>& FftInstance::expected() {
    if (expected_) return *expected_;
    const auto as_complex = [&] {
        const std::vector<float>& in = *input_;
        std::vector<cdouble> e(std::size_t(shape_.points()));
        for (std::size_t i = 0; i < e.size(); ++i) e[i] = cdouble(in[2 * i], in[2 * i + 1]);
        return e;
    };
    // The round trip must give the input back (cheap: not cached); the forward transform its DFT.
    if (variant_ == Variant::Roundtrip)
        expected_ = std::make_shared<const std::vector<cdouble>>(as_complex());
    else
        expected_ = HostCache::global().get<std::vector<cdouble>>(
            cache_key_ + "/forward",
            [&] {
                std::vector<cdouble> e = as_complex();
                reference_transform(shape_, e, false);
                return e;
            },
            [](const std::vector<cdouble>& e) { return e.size() * sizeof(cdouble); });
    return *expected_;
}

Validation FftInstance::validate() {
    dev_.synchronize();
    const std::vector<float> got = download_output();
    const Comparison c = compare(shape_, got, expected(), output_scale_);
    const std::int64_t n = shape_.transform_size();
    // inverse(forward(x)) carries the error of two transforms.
    const double tol = (variant_ == Variant::Roundtrip ? 2.0 : 1.0) * tolerance(n);
    Validation v;
    v.checked = std::size_t(shape_.points());
    v.sampled = false;
    v.ok = !std::isnan(c.worst) && c.worst <= tol;
    const std::string what = variant_ == Variant::Forward ? "forward FFT of " + shape_.describe() + " vs " + reference_name()
                                                          : "inverse(forward(x)) / N of " + shape_.describe() + " vs x";
    v.detail = what + ": worst relative L2 error " + (std::isnan(c.worst) ? std::string("NaN") : sci(c.worst)) +
               " (transform " + std::to_string(c.worst_transform) + ", mean " + sci(c.mean) + ") over " +
               std::to_string(shape_.transforms()) + " transform(s), tolerance " + sci(tol) +
               (variant_ == Variant::Forward ? " = 10 u log2 N" : " = 2 x 10 u log2 N");
    return v;
}

WorkModel FftInstance::work() const {
    const double points = double(shape_.points());
    const double log2n = double(log2_exact(shape_.transform_size()));
    const double transforms = variant_ == Variant::Roundtrip ? 2.0 : 1.0;
    WorkModel w;
    // Convention: 5 N log2 N flops per complex transform of N points; the ideal algorithm
    // reads and writes the array once per transform (2 x 8 bytes per point).
    w.flops = transforms * 5.0 * points * log2n;
    w.bytes = transforms * 2.0 * 8.0 * points;
    w.items = transforms * points;
    w.item_name = "points";
    return w;
}

std::vector<NamedArray> FftInstance::arrays() {
    std::vector<std::size_t> shape;
    if (shape_.dims == 1) shape = {std::size_t(shape_.batch), std::size_t(shape_.length)};
    else shape = {std::size_t(shape_.rows), std::size_t(shape_.cols)};
    auto make = [&](const char* name, const std::vector<float>& v) {
        NamedArray a{name, "<c8", shape, {}};
        a.data.resize(v.size() * sizeof(float));
        std::memcpy(a.data.data(), v.data(), a.data.size());
        return a;
    };
    dev_.synchronize();
    std::vector<float> out = download_output();
    // A power-of-two scale (1/N): exact in float, so the dump is the normalised result.
    if (output_scale_ != 1.0)
        for (float& f : out) f = float(double(f) * output_scale_);
    return {make("input", *input_), make("output", out)};
}

}  // namespace tb::fft
