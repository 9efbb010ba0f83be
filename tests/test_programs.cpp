// Every program, every variant, on the opencl backend's first device (PoCL in CI) with its
// smallest dataset: the run validates, and an output that was poisoned but never computed
// fails validation (so validation can fail).
#include <cstdlib>

#include <gtest/gtest.h>

#include "backend.hpp"
#include "host_cache.hpp"
#include "program.hpp"
#include "shared_opencl_device.hpp"

using namespace tb;

namespace {

struct Param {
    std::string program, variant;
};

std::vector<Param> all_params() {
    std::vector<Param> v;
    for (const Program* p : all_programs())
        for (const auto& var : p->variants()) v.push_back({p->name(), var});
    return v;
}

class ProgramOnOpenCL : public testing::TestWithParam<Param> {
protected:
    static void SetUpTestSuite() {
        device_ = shared_opencl_device().device.get();
        reason_ = shared_opencl_device().reason;
    }
    static void TearDownTestSuite() {
        device_ = nullptr;
    }
    static Device* device_;
    static std::string reason_;
};
Device* ProgramOnOpenCL::device_ = nullptr;
std::string ProgramOnOpenCL::reason_;

Dataset smallest(const Program& p) {
    const auto sets = p.datasets();
    std::size_t best = 0;
    for (std::size_t i = 1; i < sets.size(); ++i)
        if (p.device_bytes(sets[i], p.variants()[0]) < p.device_bytes(sets[best], p.variants()[0])) best = i;
    return sets[best];
}

}  // namespace

TEST(Programs, SuiteIsRegistered) {
    ASSERT_FALSE(all_programs().empty());
    EXPECT_NO_THROW(find_program("mandelbrot"));
    EXPECT_THROW(find_program("nosuch"), Error);
    for (const Program* p : all_programs()) {
        EXPECT_FALSE(p->datasets().empty()) << p->name();
        bool has_small = false;
        for (const auto& d : p->datasets()) has_small = has_small || d.small;
        EXPECT_TRUE(has_small) << p->name() << " has no CI-sized dataset";
        EXPECT_FALSE(program_source(*p, Dialect::OpenCL).text.empty());
        EXPECT_FALSE(program_source(*p, Dialect::Cuda).text.empty());
    }
}

TEST_P(ProgramOnOpenCL, ValidatesAndDetectsUncomputedOutput) {
    TB_SKIP_WITHOUT_OPENCL_DEVICE(device_, reason_);
    const Program& p = find_program(GetParam().program);
    const Dataset d = smallest(p);
    CompileOptions co;
    co.defines = p.defines();
    auto module = device_->compile(program_source(p, Dialect::OpenCL), co);
    RunConfig cfg{GetParam().variant, LaunchMode::Stream, 7};
    auto inst = p.prepare(*device_, *module, d, cfg);
    inst->poison();
    inst->run();
    device_->synchronize();
    Validation v = inst->validate();
    EXPECT_TRUE(v.ok) << p.name() << "/" << d.name << "/" << GetParam().variant << ": " << v.detail;
    EXPECT_GT(v.checked, 0u);
    // A second run from the same inputs gives a valid result again (runs are repeatable).
    inst->poison();
    inst->run();
    device_->synchronize();
    EXPECT_TRUE(inst->validate().ok) << "second run";
    // Poisoned and not computed: must fail.
    inst->poison();
    device_->synchronize();
    Validation bad = inst->validate();
    EXPECT_FALSE(bad.ok) << "validation accepted an output that was never computed: " << bad.detail;
    const WorkModel w = inst->work();
    EXPECT_GT(w.bytes, 0);
}

// A second instance of the same dataset and seed (another backend, variant or launch mode in
// a suite) takes its inputs and reference from HostCache instead of making them again, and
// still tells a computed output from an uncomputed one.
TEST_P(ProgramOnOpenCL, ASecondInstanceSharesInputsAndReference) {
    TB_SKIP_WITHOUT_OPENCL_DEVICE(device_, reason_);
    const Program& p = find_program(GetParam().program);
    const Dataset d = smallest(p);
    CompileOptions co;
    co.defines = p.defines();
    auto module = device_->compile(program_source(p, Dialect::OpenCL), co);
    RunConfig cfg{GetParam().variant, LaunchMode::Stream, 11};
    const auto validate_fresh = [&](bool compute) {
        auto inst = p.prepare(*device_, *module, d, cfg);
        inst->poison();
        if (compute) inst->run();
        device_->synchronize();
        return inst->validate();
    };
    ASSERT_TRUE(validate_fresh(true).ok);
    const HostCache::Stats before = HostCache::global().stats();
    EXPECT_TRUE(validate_fresh(true).ok);
    const HostCache::Stats after = HostCache::global().stats();
    EXPECT_EQ(after.misses, before.misses) << "the second instance made its data again";
    EXPECT_GT(after.hits, before.hits);
    EXPECT_FALSE(validate_fresh(false).ok) << "a shared reference accepted an output that was never computed";
}

INSTANTIATE_TEST_SUITE_P(All, ProgramOnOpenCL, testing::ValuesIn(all_params()),
                         [](const testing::TestParamInfo<Param>& i) { return i.param.program + "_" + i.param.variant; });
