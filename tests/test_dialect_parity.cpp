// kernels.cl and kernels.cu of a program are one algorithm in two dialects (docs/DEVELOPING.md,
// "One algorithm, two dialects"). Without a GPU this test holds every registered program to
// what can be checked from the host side:
//   - both files define the same kernels, and each kernels.cu kernel takes the parameters of
//     its kernels.cl namesake less the __local pointers (cuda-native gets those as dynamic
//     shared memory);
//   - the tuning constants come from the host only: every name Program::defines() passes is
//     required by both files (`#ifndef NAME` / `#error`) and given a value by neither;
//   - for every dataset, variant and launch mode, preparing and running the program on a
//     recording device (tests/recording_device.hpp) gives the same sequence of commands
//     for both dialects: allocations, uploads (with a hash of their bytes), kernels, grids,
//     groups and every argument, LocalMem sizes included.
// Programs are found through the registry, so a new program is checked without changes here.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <sstream>
#include <string>
#include <vector>

#include "kernel_scan.hpp"
#include "program.hpp"
#include "recording_device.hpp"

namespace {

using namespace tb;
using tb::test::RecordingDevice;

std::string param_name(std::string s) {
    for (char& c : s)
        if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
    return s;
}

std::vector<std::string> program_names() {
    std::vector<std::string> v;
    for (const Program* p : all_programs()) v.push_back(p->name());
    return v;
}

// ---- the kernel files ----------------------------------------------------------------------

class KernelFiles : public testing::TestWithParam<std::string> {
protected:
    const Program& program = find_program(GetParam());
    const Source cl = program_source(program, Dialect::OpenCL);
    const Source cu = program_source(program, Dialect::Cuda);
};

TEST_P(KernelFiles, DefineTheSameKernels) {
    const auto cl_names = test::kernel_names(cl.text, Dialect::OpenCL);
    const auto cu_names = test::kernel_names(cu.text, Dialect::Cuda);
    EXPECT_FALSE(cl_names.empty()) << cl.file_name << " defines no kernel";
    std::vector<std::string> only_cl, only_cu;
    std::set_difference(cl_names.begin(), cl_names.end(), cu_names.begin(), cu_names.end(), std::back_inserter(only_cl));
    std::set_difference(cu_names.begin(), cu_names.end(), cl_names.begin(), cl_names.end(), std::back_inserter(only_cu));
    std::string a, b;
    for (const auto& n : only_cl) a += " " + n;
    for (const auto& n : only_cu) b += " " + n;
    EXPECT_TRUE(only_cl.empty() && only_cu.empty())
        << "only in kernels.cl:" << (a.empty() ? " -" : a) << "; only in kernels.cu:" << (b.empty() ? " -" : b);
}

TEST_P(KernelFiles, CudaKernelsTakeTheOpenClParametersLessTheLocalPointers) {
    const auto cl_decls = test::scan_kernels(cl.text, Dialect::OpenCL);
    const auto cu_decls = test::scan_kernels(cu.text, Dialect::Cuda);
    for (const auto& k : cl_decls)
        for (const auto& c : cu_decls)
            if (c.name == k.name)
                EXPECT_EQ(c.params, k.params - int(k.local_params.size()))
                    << k.name << ": kernels.cl has " << k.params << " parameters (" << k.local_params.size()
                    << " __local), kernels.cu " << c.params;
}

TEST_P(KernelFiles, TakeTheTuningConstantsFromTheHostOnly) {
    const auto defs = program.defines();
    EXPECT_EQ(defs, program.defines()) << "defines() is not deterministic";
    std::set<std::string> passed;
    for (const auto& d : defs) {
        const std::string name = test::define_name(d);
        EXPECT_TRUE(passed.insert(name).second) << name << " is passed twice";
    }
    for (const Source* s : {&cl, &cu}) {
        const auto required = test::required_defines(s->text);
        const auto defined = test::defined_names(s->text);
        std::string not_required, given_value, not_passed;
        for (const auto& name : passed) {
            if (!required.count(name)) not_required += " " + name;
            if (defined.count(name)) given_value += " " + name;
        }
        for (const auto& name : required)
            if (!passed.count(name)) not_passed += " " + name;
        EXPECT_EQ(not_required, "") << s->file_name << " does not require these defines from the host (#ifndef NAME / "
                                       "#error ... / #endif), so a value may not reach it";
        EXPECT_EQ(given_value, "") << s->file_name << " gives these defines a value itself; tuning constants come from "
                                      "programs/" << program.name() << "/tuning.hpp through Program::defines()";
        EXPECT_EQ(not_passed, "") << s->file_name << " requires these names but Program::defines() does not pass them";
    }
}

INSTANTIATE_TEST_SUITE_P(All, KernelFiles, testing::ValuesIn(program_names()),
                         [](const testing::TestParamInfo<std::string>& i) { return param_name(i.param); });

// ---- the launches ----------------------------------------------------------------------------

struct DatasetCase {
    std::string program, dataset;
};
void PrintTo(const DatasetCase& c, std::ostream* os) { *os << c.program << "/" << c.dataset; }

std::vector<DatasetCase> dataset_cases() {
    std::vector<DatasetCase> v;
    for (const Program* p : all_programs())
        for (const auto& d : p->datasets()) v.push_back({p->name(), d.name});
    return v;
}

struct Profile {
    const char* name;
    DeviceInfo (*info)(const std::string&);
};
// Device limits steer plans (group sizes, local memory, work per group): each profile is
// checked on its own, both dialects seeing the same device.
const Profile kProfiles[] = {{"H100 (CUDA)", test::h100_info},
                             {"H100 (NVIDIA OpenCL, 48 KiB local)", test::h100_opencl_info},
                             {"2-core CPU (PoCL)", test::pocl_cpu_info}};

struct Recorded {
    std::vector<std::string> log;
    std::string error;  // what the program threw, if anything
    std::size_t launches = 0;
};

Recorded record(const Program& p, const Dataset& d, Dialect dialect, const Profile& prof, const RunConfig& cfg) {
    RecordingDevice dev(dialect, prof.info(dialect == Dialect::Cuda ? "cuda-native" : "cuda-prelude"));
    Recorded r;
    try {
        // The profile's device-derived configuration, as `run` would choose it (docs/tuning.md).
        RunConfig tuned = cfg;
        tuned.tuning = p.default_config(dev.info());
        CompileOptions co;
        co.defines = p.defines(tuned.tuning);
        auto module = dev.compile(program_source(p, dialect), co);
        auto inst = p.prepare(dev, *module, d, tuned);
        inst->poison();
        if (cfg.launch == LaunchMode::Graph) inst->prepare_graph();
        inst->run();
        dev.synchronize();
    } catch (const std::exception& e) {
        r.error = e.what();
    }
    r.log = dev.log();
    r.launches = dev.launches();
    return r;
}

// The first difference of two logs with a few lines of context from each, or "".
std::string first_difference(const std::vector<std::string>& cl, const std::vector<std::string>& cu) {
    std::size_t i = 0;
    while (i < cl.size() && i < cu.size() && cl[i] == cu[i]) ++i;
    if (i == cl.size() && i == cu.size()) return "";
    std::ostringstream s;
    s << "command " << i << " differs (" << cl.size() << " commands with kernels.cl, " << cu.size()
      << " with kernels.cu)\n";
    const std::size_t from = i >= 2 ? i - 2 : 0;
    for (const auto* log : {&cl, &cu}) {
        s << (log == &cl ? "  kernels.cl:\n" : "  kernels.cu:\n");
        for (std::size_t j = from; j < std::min(log->size(), i + 3); ++j)
            s << (j == i ? "  > " : "    ") << j << ": " << (*log)[j] << "\n";
        if (i >= log->size()) s << "  > " << i << ": (end)\n";
    }
    return s.str();
}

class Launches : public testing::TestWithParam<DatasetCase> {};

// Every variant and launch mode of one dataset, under each device profile (the CPU and
// OpenCL profiles only for the small datasets, which are what runs on those devices).
TEST_P(Launches, AreTheSameForBothDialects) {
    const Program& p = find_program(GetParam().program);
    const Dataset d = find_dataset(p.datasets(), p.name(), GetParam().dataset);  // a copy: datasets() is a temporary
    std::vector<LaunchMode> modes = {LaunchMode::Stream};
    if (p.iterative()) modes.push_back(LaunchMode::Graph);
    std::size_t checked = 0;
    for (const Profile& prof : kProfiles) {
        if (&prof != &kProfiles[0] && !d.small) continue;
        for (const auto& variant : p.variants())
            for (LaunchMode mode : modes) {
                const RunConfig cfg{variant, mode, 42};
                SCOPED_TRACE(p.name() + "/" + d.name + "/" + variant + "/" + to_string(mode) + " on " + prof.name);
                const Recorded cl = record(p, d, Dialect::OpenCL, prof, cfg);
                const Recorded cu = record(p, d, Dialect::Cuda, prof, cfg);
                EXPECT_EQ(cl.error, "") << "with kernels.cl";
                EXPECT_EQ(cu.error, "") << "with kernels.cu";
                const std::string diff = first_difference(cl.log, cu.log);
                EXPECT_TRUE(diff.empty()) << "the two dialects are launched differently: " << diff;
                if (cl.error.empty() && cu.error.empty()) EXPECT_GT(cl.launches, 0u) << "run() launched nothing";
                ++checked;
            }
    }
    EXPECT_GT(checked, 0u);
}

INSTANTIATE_TEST_SUITE_P(All, Launches, testing::ValuesIn(dataset_cases()),
                         [](const testing::TestParamInfo<DatasetCase>& i) {
                             return param_name(i.param.program + "_" + i.param.dataset);
                         });

}  // namespace
