// cuFFT as the vendor baseline: the same input, output buffer and validation as the
// program's own passes. libcufft is opened at run time (never linked); only its types come
// from the toolkit's cufft.h. The plan (and cuFFT's work area) is made in prepare, outside
// timing; run() is one cufftExecC2C (two for the round trip) on the device's own stream, so
// the harness's events bracket it exactly like the kernels.
#include <cstdio>

#include "dynlib.hpp"
#include "instance.hpp"

#if __has_include(<cufft.h>)
#include <cufft.h>
#define TB_HAVE_CUFFT_H 1
#endif

namespace tb::fft {
namespace {

// The device the baseline needs; throws before anything is loaded otherwise.
void require_cuda_device(const Device& dev) {
    const DeviceInfo& info = dev.info();
    if (!info.is_nvidia || dev.dialect() != Dialect::Cuda)
        throw Error("cuFFT baseline needs an NVIDIA GPU opened by the cuda-native backend (this is " + info.name +
                    " on " + info.backend + ")");
}

}  // namespace
}  // namespace tb::fft

#ifndef TB_HAVE_CUFFT_H

namespace tb::fft {

std::unique_ptr<Instance> make_cufft_instance(Device& dev, const Shape&, Variant, std::uint64_t) {
    require_cuda_device(dev);
    throw Error("cuFFT not available: tribench was built without the CUDA toolkit's cufft.h");
}

}  // namespace tb::fft

#else

namespace tb::fft {
namespace {

struct CufftApi {
    DynLib lib;
    decltype(&cufftPlanMany) plan_many = nullptr;
    decltype(&cufftPlan2d) plan_2d = nullptr;
    decltype(&cufftSetStream) set_stream = nullptr;
    decltype(&cufftExecC2C) exec_c2c = nullptr;
    decltype(&cufftDestroy) destroy = nullptr;

    template <class F>
    void need(F& f, const char* symbol) {
        f = reinterpret_cast<F>(lib.require(symbol));
    }

    CufftApi() {
        try {
            lib = DynLib::open({"libcufft.so.12", "libcufft.so.11", "libcufft.so",
                                "/usr/local/cuda/lib64/libcufft.so.12", "/usr/local/cuda/lib64/libcufft.so.11",
                                "/usr/local/cuda/lib64/libcufft.so"});
        } catch (const Error& e) {
            throw Error(std::string("cuFFT not available: ") + e.what());
        }
        need(plan_many, "cufftPlanMany");
        need(plan_2d, "cufftPlan2d");
        need(set_stream, "cufftSetStream");
        need(exec_c2c, "cufftExecC2C");
        need(destroy, "cufftDestroy");
    }
};

// Loaded once and kept for the process: unloading cuFFT under a live CUDA runtime is unsafe.
const CufftApi& cufft() {
    static const CufftApi api;
    return api;
}

const char* result_name(cufftResult r) {
    switch (r) {
        case CUFFT_SUCCESS: return "CUFFT_SUCCESS";
        case CUFFT_INVALID_PLAN: return "CUFFT_INVALID_PLAN";
        case CUFFT_ALLOC_FAILED: return "CUFFT_ALLOC_FAILED";
        case CUFFT_INVALID_TYPE: return "CUFFT_INVALID_TYPE";
        case CUFFT_INVALID_VALUE: return "CUFFT_INVALID_VALUE";
        case CUFFT_INTERNAL_ERROR: return "CUFFT_INTERNAL_ERROR";
        case CUFFT_EXEC_FAILED: return "CUFFT_EXEC_FAILED";
        case CUFFT_SETUP_FAILED: return "CUFFT_SETUP_FAILED";
        case CUFFT_INVALID_SIZE: return "CUFFT_INVALID_SIZE";
        case CUFFT_UNALIGNED_DATA: return "CUFFT_UNALIGNED_DATA";
        case CUFFT_INVALID_DEVICE: return "CUFFT_INVALID_DEVICE";
        case CUFFT_NO_WORKSPACE: return "CUFFT_NO_WORKSPACE";
        case CUFFT_NOT_IMPLEMENTED: return "CUFFT_NOT_IMPLEMENTED";
        case CUFFT_NOT_SUPPORTED: return "CUFFT_NOT_SUPPORTED";
        default: return nullptr;
    }
}

void check(cufftResult r, const char* call) {
    if (r == CUFFT_SUCCESS) return;
    const char* name = result_name(r);
    throw Error(std::string(call) + " failed: " + (name ? name : "cufftResult " + std::to_string(int(r))));
}

class CufftInstance final : public FftInstance {
public:
    CufftInstance(Device& dev, const Shape& shape, Variant variant, std::uint64_t seed)
        : FftInstance(dev, shape, variant, seed), api_(cufft()) {
        // Buffers are allocated and uploaded: the device's context is current on this thread,
        // and cuFFT's runtime plans into it.
        if (shape.dims == 1) {
            int n = int(shape.length);
            check(api_.plan_many(&plan_, 1, &n, nullptr, 1, n, nullptr, 1, n, CUFFT_C2C, int(shape.batch)),
                  "cufftPlanMany");
        } else {
            // cufftPlan2d(nx = rows, the slow axis; ny = cols, the contiguous one).
            check(api_.plan_2d(&plan_, int(shape.rows), int(shape.cols), CUFFT_C2C), "cufftPlan2d");
        }
        planned_ = true;
        try {
            void* stream = dev.native_queue();
            if (!stream) throw Error("cuFFT baseline: the device has no native CUDA stream");
            check(api_.set_stream(plan_, static_cast<cudaStream_t>(stream)), "cufftSetStream");
        } catch (...) {
            api_.destroy(plan_);  // a constructor that throws runs no destructor: the plan would leak
            throw;
        }
        // cuFFT's inverse is unnormalised: the round trip leaves N x, scaled on the host.
        if (variant == Variant::Roundtrip) output_scale_ = 1.0 / double(shape.transform_size());
    }

    ~CufftInstance() override {
        if (!planned_) return;
        const cufftResult r = api_.destroy(plan_);
        if (r != CUFFT_SUCCESS) {
            const char* name = result_name(r);
            std::fprintf(stderr, "tribench: warning: cufftDestroy failed: %s\n", name ? name : "unknown cufftResult");
        }
    }

    void run() override {
        auto* in = reinterpret_cast<cufftComplex*>(in_.handle());
        auto* out = reinterpret_cast<cufftComplex*>(out_.handle());
        check(api_.exec_c2c(plan_, in, out, CUFFT_FORWARD), "cufftExecC2C");
        if (variant_ == Variant::Roundtrip) check(api_.exec_c2c(plan_, out, out, CUFFT_INVERSE), "cufftExecC2C");
    }

private:
    const CufftApi& api_;
    cufftHandle plan_ = 0;
    bool planned_ = false;
};

}  // namespace

std::unique_ptr<Instance> make_cufft_instance(Device& dev, const Shape& shape, Variant variant, std::uint64_t seed) {
    require_cuda_device(dev);
    return std::make_unique<CufftInstance>(dev, shape, variant, seed);
}

}  // namespace tb::fft

#endif
