// What every fft instance shares, whoever computes the transform (the passes of kernels.cl /
// kernels.cu, or cuFFT): the input on the device, poisoning, validation against the
// double-precision reference, the work model. Subclasses only say how to run.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "plan.hpp"
#include "program.hpp"
#include "reference.hpp"
#include "shape.hpp"
#include "tuning.hpp"

namespace tb::fft {

enum class Variant { Forward, Roundtrip };
Variant parse_variant(const std::string& name);  // throws tb::Error on an unknown name

class FftInstance : public Instance {
public:
    FftInstance(Device& dev, const Shape& shape, Variant variant, std::uint64_t seed);
    void poison() override;
    Validation validate() override;
    WorkModel work() const override;
    // "input" and "output" for --save-outputs. "output" means the same on every backend: the
    // forward transform, or inverse(forward(x)) / N for the round trip (out_ times
    // output_scale_, as validation compares it).
    std::vector<NamedArray> arrays() override;

protected:
    // The value a correct run leaves in out_ is output_scale_^-1 times the transform (cuFFT's
    // round trip is unnormalised: N x); validation and arrays() multiply by output_scale_.
    double output_scale_ = 1.0;
    const std::vector<float>& input() const { return *input_; }
    Device& dev_;
    Shape shape_;
    Variant variant_;
    Buffer in_, out_;  // in_ is never written: every run starts from it

private:
    std::vector<float> download_output();
    // Shared through HostCache by every backend and launch of the dataset: FFTW of 2^24
    // points takes a second.
    const std::vector<cdouble>& expected();

    std::string cache_key_;  // the shape and seed the input and reference depend on
    std::shared_ptr<const std::vector<float>> input_;  // interleaved re, im, uniform in [-1, 1)
    std::shared_ptr<const std::vector<cdouble>> expected_;
};

// The passes of kernels.cl / kernels.cu on any backend, planned with `tuning`, which must be
// the tuning `mod` was compiled with (kernel_defines(tuning); tests try others), with wide
// passes where `wide` and the device allow them (make_plan).
std::unique_ptr<Instance> make_kernel_instance(Device& dev, Module& mod, const Shape& shape, Variant variant,
                                               std::uint64_t seed, const Tuning& tuning = kTuning,
                                               WidePasses wide = WidePasses::OnGpus);

// cuFFT on the cuda-native device's own stream (cufft_baseline.cpp).
std::unique_ptr<Instance> make_cufft_instance(Device& dev, const Shape& shape, Variant variant, std::uint64_t seed);

}  // namespace tb::fft
