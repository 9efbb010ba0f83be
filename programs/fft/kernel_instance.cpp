// The program's own passes (kernels.cl / kernels.cu) on any backend: the plan is made once
// for the device, twiddle tables are uploaded once, and run() is one launch per pass.
#include <map>

#include "instance.hpp"
#include "plan.hpp"

namespace tb::fft {
namespace {

class KernelInstance final : public FftInstance {
public:
    KernelInstance(Device& dev, Module& mod, const Shape& shape, Variant variant, std::uint64_t seed, const Tuning& t,
                   WidePasses wide)
        : FftInstance(dev, shape, variant, seed) {
        const std::vector<Pass> plan = plan_for(dev, mod, shape, t, wide);
        plan_ = describe(plan);
        const std::size_t bytes = std::size_t(shape.points()) * 8;
        if (plan.size() > 1 || variant == Variant::Roundtrip) tmp_ = dev.alloc(bytes);
        const std::vector<float> inner = inner_twiddles(t);
        tw_inner_ = dev.alloc(inner.size() * sizeof(float));
        dev.upload(tw_inner_, inner.data(), inner.size() * sizeof(float));
        tw_pass_.resize(plan.size());
        std::map<std::string, Kernel> kernels;
        for (std::size_t i = 0; i < plan.size(); ++i) {
            const std::vector<float> tp = pass_twiddles(plan[i]);
            if (!tp.empty()) {
                tw_pass_[i] = dev.alloc(tp.size() * sizeof(float));
                dev.upload(tw_pass_[i], tp.data(), tp.size() * sizeof(float));
            }
            const std::string name = plan[i].kernel();
            if (kernels.count(name)) continue;
            Kernel k = mod.kernel(name);
            // A kernel needing many registers may allow fewer work-items than its group size.
            const std::size_t most = dev.max_group_size(k);
            if (most < std::size_t(plan[i].threads))
                throw Error("fft: kernel " + name + " allows groups of at most " + std::to_string(most) +
                            " work-items on this device; its group size is " + std::to_string(plan[i].threads));
            kernels[name] = k;
        }
        // Forward passes, then (roundtrip) the same passes as an inverse: conj on the first
        // load, conj and 1/N on the last store. Pass k of K writes out_ when K-1-k is even,
        // tmp_ otherwise, so the last one lands in out_ and in_ is only ever read.
        const std::size_t P = plan.size();
        const std::size_t K = variant == Variant::Roundtrip ? 2 * P : P;
        const float inv_n = 1.0f / float(shape.transform_size());
        const Buffer* src = &in_;
        for (std::size_t k = 0; k < K; ++k) {
            Step s;
            s.pass = plan[k % P];
            s.kernel = kernels.at(s.pass.kernel());
            s.src = src;
            s.dst = (K - 1 - k) % 2 == 0 ? &out_ : &tmp_;
            s.twp = tw_pass_[k % P] ? &tw_pass_[k % P] : &tw_inner_;
            const bool inverse = k >= P;
            if (inverse && k == P) s.in_im = -1.0f;
            if (inverse && k == K - 1) {
                s.out_re = inv_n;
                s.out_im = -inv_n;
            }
            steps_.push_back(s);
            src = s.dst;
        }
    }

    void poison() override {
        FftInstance::poison();
        // Stale intermediates from an earlier run must not let a skipped pass go unnoticed.
        if (tmp_) dev_.fill_u32(tmp_, 0xFFFFFFFFu);
    }

    void run() override {
        for (const Step& s : steps_) {
            const Pass& p = s.pass;
            const Dim3 grid{std::uint32_t(p.groups()), 1, 1};
            const Dim3 block{std::uint32_t(p.threads), 1, 1};
            dev_.launch(s.kernel, grid, block,
                        Args(*s.src, *s.dst, tw_inner_, *s.twp, std::int32_t(p.columns), std::int32_t(p.log2M),
                             std::int32_t(p.log2Nsv), std::int32_t(p.log2S), std::int32_t(p.twiddle_log2B()), s.in_im,
                             s.out_re, s.out_im, LocalMem{p.local_bytes}));
        }
    }

    std::string picked_variant() const override { return plan_; }

private:
    // make_plan's plan, or the one without wide passes where the compiled wide kernel allows
    // fewer work-items than a wide group (registers): the device's limits alone do not say.
    static std::vector<Pass> plan_for(Device& dev, Module& mod, const Shape& shape, const Tuning& t, WidePasses wide) {
        std::vector<Pass> plan = make_plan(shape, t, dev.info(), wide);
        for (const Pass& p : plan)
            if (p.wide && dev.max_group_size(mod.kernel(p.kernel())) < std::size_t(p.threads))
                return make_plan(shape, t, dev.info(), WidePasses::Never);
        return plan;
    }

    struct Step {
        Pass pass;
        Kernel kernel;
        const Buffer* src = nullptr;
        const Buffer* dst = nullptr;
        const Buffer* twp = nullptr;
        float in_im = 1.0f, out_re = 1.0f, out_im = 1.0f;
    };
    std::string plan_;  // describe(plan): what the results call the run's pick
    Buffer tmp_, tw_inner_;
    std::vector<Buffer> tw_pass_;
    std::vector<Step> steps_;
};

}  // namespace

std::unique_ptr<Instance> make_kernel_instance(Device& dev, Module& mod, const Shape& shape, Variant variant,
                                               std::uint64_t seed, const Tuning& tuning, WidePasses wide) {
    return std::make_unique<KernelInstance>(dev, mod, shape, variant, seed, tuning, wide);
}

}  // namespace tb::fft
