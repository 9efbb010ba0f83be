// The runner's device handling, with fake backends that count their live devices: cases run
// backend by backend, and a backend's device is closed before the next one opens (on an H100
// an open device of one backend slowed the other's short launches, reports/h100/REPORT.md).
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include <benchmark/benchmark.h>

#include "backend.hpp"
#include "program.hpp"
#include "runner.hpp"

namespace {

using namespace tb;

struct Census {
    int live = 0, most_live = 0, opened = 0;
};
Census census;

class FakeModule final : public Module {
public:
    Kernel kernel(const std::string& name) override { return Kernel{name, this, 0}; }
};

class FakeDevice final : public Device {
public:
    explicit FakeDevice(const std::string& backend) {
        info_.backend = backend;
        info_.name = "fake";
        info_.global_mem_bytes = 1 << 20;
        info_.max_work_group_size = 256;
        ++census.opened;
        census.most_live = std::max(census.most_live, ++census.live);
    }
    ~FakeDevice() override { --census.live; }
    const DeviceInfo& info() const override { return info_; }
    Dialect dialect() const override { return Dialect::OpenCL; }
    void upload(const Buffer&, const void*, std::size_t, std::size_t) override {}
    void download(void*, const Buffer&, std::size_t, std::size_t) override {}
    void copy(const Buffer&, const Buffer&, std::size_t) override {}
    void fill_u32(const Buffer&, std::uint32_t) override {}
    std::unique_ptr<Module> compile(const Source&, const CompileOptions&) override {
        return std::make_unique<FakeModule>();
    }
    void launch(const Kernel&, Dim3, Dim3, const Args&) override {}
    void synchronize() override {}
    std::size_t max_group_size(const Kernel&) override { return 256; }
    double time_ms(const std::function<void()>& work) override {
        work();
        return 0.01;
    }

protected:
    std::uint64_t raw_alloc(std::size_t) override { return ++next_; }
    void raw_free(std::uint64_t) noexcept override {}

private:
    DeviceInfo info_;
    std::uint64_t next_ = 0;
};

class FakeBackend final : public Backend {
public:
    explicit FakeBackend(std::string id) : id_(std::move(id)) {}
    std::string id() const override { return id_; }
    Dialect dialect() const override { return Dialect::OpenCL; }
    std::vector<DeviceInfo> devices() override { return {FakeDevice(id_).info()}; }
    std::unique_ptr<Device> open(std::size_t) override { return std::make_unique<FakeDevice>(id_); }

private:
    std::string id_;
};

class FakeInstance final : public Instance {
public:
    explicit FakeInstance(Device& dev) : dev_(dev) {}
    void poison() override {}
    void run() override { dev_.launch(Kernel{"k", nullptr, 0}, Dim3{1, 1, 1}, Dim3{1, 1, 1}, Args()); }
    Validation validate() override { return Validation{true, "fake", 1, false}; }
    WorkModel work() const override { return WorkModel{1, 1, 1, "items"}; }

private:
    Device& dev_;
};

// Named after a real program so that its kernels.cl is found (the fake device ignores it).
class FakeProgram final : public Program {
public:
    std::string name() const override { return "mandelbrot"; }
    std::string description() const override { return "fake"; }
    std::vector<Dataset> datasets() const override { return {Dataset{"tiny", {}, "fake", true, ""}}; }
    std::uint64_t device_bytes(const Dataset&, const std::string&) const override { return 0; }
    std::unique_ptr<Instance> prepare(Device& dev, Module&, const Dataset&, const RunConfig&) const override {
        return std::make_unique<FakeInstance>(dev);
    }
};

TEST(Runner, ClosesOneBackendsDeviceBeforeOpeningTheNext) {
    int argc = 1;
    char arg0[] = "test_runner";
    char* argv[] = {arg0, nullptr};
    benchmark::Initialize(&argc, argv);

    FakeProgram program;
    std::vector<BackendSlot> slots;
    std::vector<Case> cases;
    for (const char* id : {"fake-a", "fake-b", "fake-c"}) {
        BackendSlot s;
        s.id = id;
        s.backend = std::make_unique<FakeBackend>(id);
        s.devices = s.backend->devices();
        slots.push_back(std::move(s));
        for (int i = 0; i < 2; ++i)
            cases.push_back(Case{&program, program.datasets()[0], "default", LaunchMode::Stream, slots.size() - 1, 0,
                                 std::string("fake/tiny/") + id + "/" + std::to_string(i)});
    }
    RunnerOptions opt;
    opt.calibrate = false;
    opt.compile_twice = false;
    opt.rule.min_samples = 2;
    opt.rule.max_samples = 3;
    opt.rule.min_time_s = 0;
    census = Census{};

    const Results r = run_cases(slots, cases, opt);

    ASSERT_EQ(r.benchmarks.size(), cases.size());
    for (const auto& b : r.benchmarks) EXPECT_EQ(b.status, Status::Ok) << b.name << ": " << b.error;
    EXPECT_EQ(census.opened, 3) << "each backend's device opens once";
    EXPECT_EQ(census.most_live, 1) << "a device stayed open while the next backend's ran";
    EXPECT_EQ(census.live, 0);
}

}  // namespace
