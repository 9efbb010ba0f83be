// NVRTC without a GPU: every program's kernels (both CUDA dialects, with the program's defines) compile under every
// math mode, errors point at the user's file and line, options follow the math mode, and
// the on-disk kernel cache hits, misses and survives corrupt entries.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include "cuda/kernel_cache.hpp"
#include "cuda/nvrtc_api.hpp"
#include "embedded.hpp"
#include "kernel_scan.hpp"
#include "program.hpp"
#include "ptx/ptx_analysis.hpp"
#include "scoped_env.hpp"
#include "test_data.hpp"

namespace tb {
// Test logs name a Source parameter by its file, not by its bytes.
void PrintTo(const Source& s, std::ostream* os) { *os << s.file_name; }
}  // namespace tb

namespace {

namespace fs = std::filesystem;
using tb::CompileOptions;
using tb::Dialect;
using tb::MathMode;
using tb::Source;
using namespace tb::cuda;

constexpr const char* kArch = "sm_90";
const MathMode kModes[] = {MathMode::Default, MathMode::Precise, MathMode::Fast};

std::string read_text(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void write_text(const fs::path& p, const std::string& s) {
    std::ofstream out(p, std::ios::binary | std::ios::trunc);
    out << s;
}

// A fresh folder removed at the end of the scope.
struct TempDir {
    fs::path path;
    TempDir() {
        std::string tmpl = (fs::temp_directory_path() / "tribench-nvrtc-XXXXXX").string();
        if (!mkdtemp(tmpl.data())) throw std::runtime_error("mkdtemp failed");
        path = tmpl;
    }
    ~TempDir() {
        std::error_code ec;
        fs::remove_all(path, ec);
    }
};

using tb::test::ScopedEnv;

// Every test gets its own empty cache folder, so no run sees another's entries.
class PrivateCache : public ::testing::Environment {
public:
    void SetUp() override {
        dir_ = std::make_unique<TempDir>();
        setenv("TRIBENCH_CACHE_DIR", dir_->path.c_str(), 1);
        unsetenv("TRIBENCH_NO_CACHE");
    }
    void TearDown() override { dir_.reset(); }

private:
    std::unique_ptr<TempDir> dir_;
};
[[maybe_unused]] ::testing::Environment* const g_cache_env = ::testing::AddGlobalTestEnvironment(new PrivateCache);

// The kernels a source defines, found independently of the translator.
std::set<std::string> kernel_names(const Source& src) { return tb::test::kernel_names(src.text, src.dialect); }

// A program's kernels get its tuning constants (Program::defines()); other sources none.
std::vector<std::string> defines_for(const Source& src) {
    static const std::regex program_file(R"(programs/([^/]+)/kernels\.(cl|cu))");
    std::smatch m;
    if (!std::regex_match(src.file_name, m, program_file)) return {};
    return tb::find_program(m[1]).defines();
}

bool has_entry(const std::string& ptx, const std::string& kernel) {
    return ptx.find(".entry " + kernel + "(") != std::string::npos;
}

std::size_t test_data_sources() {
    std::size_t n = 0;
    for (const auto& e : fs::directory_iterator(TRIBENCH_TEST_DATA))
        if (e.path().extension() == ".cl") ++n;
    return n;
}

// Each program's kernels.cu and kernels.cl, then tests/data/*.cl.
std::vector<Source> all_sources() {
    static const std::regex program_file(R"(programs/[^/]+/kernels\.(cl|cu))");
    std::vector<Source> out;
    for (const auto& [path, text] : tb::embedded_files()) {
        std::smatch m;
        if (!std::regex_match(path, m, program_file)) continue;
        out.push_back(Source{path, std::string(text), m[1] == "cu" ? Dialect::Cuda : Dialect::OpenCL});
    }
    std::vector<fs::path> data;
    for (const auto& e : fs::directory_iterator(TRIBENCH_TEST_DATA))
        if (e.path().extension() == ".cl") data.push_back(e.path());
    std::sort(data.begin(), data.end());
    for (const auto& p : data) out.push_back(Source{"tests/data/" + p.filename().string(), read_text(p), Dialect::OpenCL});
    return out;
}

std::string test_name(const ::testing::TestParamInfo<Source>& info) {
    std::string n = info.param.file_name;
    for (char& c : n)
        if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
    return n;
}

std::string first_line(const std::string& s) { return s.substr(0, s.find('\n')); }

// ---- every kernel source -------------------------------------------------------------------

TEST(KernelSources, AreFound) {
    // tests/data always holds OpenCL sources, so an empty list means the enumeration broke.
    EXPECT_GE(test_data_sources(), 1u) << "no .cl files in " << TRIBENCH_TEST_DATA;
    const auto sources = all_sources();
    EXPECT_FALSE(sources.empty());
    // Every program feeds both CUDA backends: it needs both kernel files.
    std::set<std::string> cl, cu;
    for (const auto& s : sources) {
        if (s.file_name.rfind("programs/", 0) != 0) continue;
        const std::string dir = s.file_name.substr(0, s.file_name.rfind('/'));
        (s.dialect == Dialect::OpenCL ? cl : cu).insert(dir);
    }
    EXPECT_EQ(cl, cu) << "a program lacks kernels.cl or kernels.cu";
}

class EverySource : public ::testing::TestWithParam<Source> {};

TEST_P(EverySource, CompilesToPtxWithEveryKernelUnderEveryMathMode) {
    const Source& src = GetParam();
    const auto names = kernel_names(src);
    ASSERT_FALSE(names.empty()) << src.file_name << " defines no kernel";
    set_kernel_cache_enabled(false);  // exercise NVRTC itself
    for (MathMode mode : kModes) {
        SCOPED_TRACE(std::string("math mode ") + tb::to_string(mode));
        CompileOptions opt;
        opt.math = mode;
        opt.defines = defines_for(src);
        PtxBuild b;
        try {
            b = compile_to_ptx(src, opt, kArch);
        } catch (const tb::Error& e) {
            ADD_FAILURE() << e.what();
            continue;
        }
        EXPECT_FALSE(b.from_cache);
        EXPECT_GT(b.compile_ms, 0.0);
        EXPECT_NE(b.ptx.find(".target sm_90"), std::string::npos);
        for (const auto& k : names) EXPECT_TRUE(has_entry(b.ptx, k)) << "no .entry " << k << " in the PTX of " << src.file_name;
        if (src.dialect == Dialect::OpenCL) {
            std::set<std::string> translated;
            for (const auto& s : b.kernels) translated.insert(s.name);
            EXPECT_EQ(translated, names) << "the translator's kernel list differs from the source's kernels";
        } else {
            EXPECT_TRUE(b.kernels.empty());
        }
    }
    set_kernel_cache_enabled(true);
}

INSTANTIATE_TEST_SUITE_P(All, EverySource, ::testing::ValuesIn(all_sources()), test_name);

// ---- errors --------------------------------------------------------------------------------

std::string compile_error(const Source& src) {
    try {
        compile_to_ptx(src, {}, kArch);
    } catch (const tb::Error& e) {
        return e.what();
    }
    return "";
}

TEST(NvrtcErrors, CudaErrorNamesFileAndLine) {
    const Source src{"bad/kernels.cu",
                     "extern \"C\" __global__ void k(float* x) {\n"
                     "    x[0] = 1.0f;\n"
                     "    x[1] = undefined_name;\n"
                     "}\n",
                     Dialect::Cuda};
    const std::string msg = compile_error(src);
    ASSERT_FALSE(msg.empty()) << "the source compiled";
    EXPECT_EQ(first_line(msg), "bad/kernels.cu: NVRTC compilation failed (1 error)");
    EXPECT_NE(msg.find("bad/kernels.cu(3)"), std::string::npos) << msg;
    EXPECT_NE(msg.find("undefined_name"), std::string::npos) << msg;
}

TEST(NvrtcErrors, OpenClErrorNamesFileAndLineThroughThePrelude) {
    const Source src{"bad/kernels.cl",
                     "__kernel void k(__global float* x, __local float* tmp) {\n"
                     "    tmp[0] = x[0];\n"
                     "    x[1] = undefined_name;\n"
                     "    barrier(CLK_LOCAL_MEM_FENCE);\n"
                     "    x[2] = other_undefined_name;\n"
                     "}\n",
                     Dialect::OpenCL};
    const std::string msg = compile_error(src);
    ASSERT_FALSE(msg.empty()) << "the source compiled";
    EXPECT_EQ(first_line(msg), "bad/kernels.cl: NVRTC compilation failed (2 errors)");
    EXPECT_NE(msg.find("bad/kernels.cl(3)"), std::string::npos) << msg;
    EXPECT_NE(msg.find("bad/kernels.cl(5)"), std::string::npos) << msg;
}

TEST(NvrtcErrors, UnknownArchitectureIsRejected) {
    const Source src{"ok.cu", "extern \"C\" __global__ void k() {}\n", Dialect::Cuda};
    EXPECT_THROW(compile_to_ptx(src, {}, "gfx90a"), tb::Error);
    EXPECT_THROW(compile_to_ptx(src, {}, ""), tb::Error);
}

// ---- options ---------------------------------------------------------------------------------

TEST(NvrtcOptions, FollowTheMathMode) {
    CompileOptions opt;
    opt.defines = {"N=4", "USE_X"};
    const std::vector<std::string> base = {"--gpu-architecture=compute_90", "-default-device", "-std=c++17",
                                           "-lineinfo", "-DN=4", "-DUSE_X"};
    EXPECT_EQ(nvrtc_options(opt, "sm_90"), base);
    EXPECT_EQ(nvrtc_options(opt, "compute_90"), base);

    opt.math = MathMode::Precise;
    auto precise = base;
    precise.insert(precise.end(), {"-prec-div=true", "-prec-sqrt=true", "-ftz=false"});
    EXPECT_EQ(nvrtc_options(opt, "sm_90"), precise);

    opt.math = MathMode::Fast;
    auto fast = base;
    fast.push_back("--use_fast_math");
    EXPECT_EQ(nvrtc_options(opt, "sm_90"), fast);

    EXPECT_EQ(nvrtc_options({}, "sm_80").front(), "--gpu-architecture=compute_80");
    EXPECT_EQ(nvrtc_options({}, "sm_90a").front(), "--gpu-architecture=compute_90a");
    EXPECT_THROW(nvrtc_options({}, "90"), tb::Error);
}

// The options reach NVRTC: division and square root change instruction with the mode.
TEST(NvrtcOptions, MathModeChangesTheGeneratedCode) {
    const Source src{"math.cu",
                     "extern \"C\" __global__ void k(float* x) { x[0] = x[1] / x[2]; x[3] = sqrtf(x[4]); }\n",
                     Dialect::Cuda};
    CompileOptions opt;
    opt.math = MathMode::Precise;
    const std::string precise = compile_to_ptx(src, opt, kArch).ptx;
    EXPECT_NE(precise.find("div.rn.f32"), std::string::npos) << precise;
    EXPECT_NE(precise.find("sqrt.rn.f32"), std::string::npos) << precise;
    EXPECT_EQ(precise.find(".ftz"), std::string::npos) << precise;

    opt.math = MathMode::Fast;
    const std::string fast = compile_to_ptx(src, opt, kArch).ptx;
    EXPECT_EQ(fast.find("div.rn.f32"), std::string::npos) << fast;
    EXPECT_NE(fast.find("sqrt.approx.ftz.f32"), std::string::npos) << fast;
}

// The PTX of kernel `name`: from its `.entry` to the next one, or "" when it has none.
std::string entry_section(const std::string& ptx, const std::string& name) {
    const std::size_t at = ptx.find(".entry " + name + "(");
    if (at == std::string::npos) return "";
    const std::size_t next = ptx.find(".entry", at + 1);
    return ptx.substr(at, next == std::string::npos ? std::string::npos : next - at);
}

// reqd_work_group_size becomes CUDA launch bounds of the group's size (PTX .maxntid); a kernel
// without it has no bound.
TEST(NvrtcPrelude, RequiredWorkGroupSizeBecomesLaunchBounds) {
    const Source src{"attr/kernels.cl",
                     "__kernel __attribute__((reqd_work_group_size(32, 8, 1))) void bounded(__global float* x) {\n"
                     "    x[get_global_id(0)] = 1.0f;\n"
                     "}\n"
                     "__kernel void unbounded(__global float* x) { x[get_global_id(0)] = 2.0f; }\n",
                     Dialect::OpenCL};
    const std::string ptx = compile_to_ptx(src, {}, kArch).ptx;
    const std::string b = entry_section(ptx, "bounded"), u = entry_section(ptx, "unbounded");
    ASSERT_FALSE(b.empty()) << ptx;
    ASSERT_FALSE(u.empty()) << ptx;
    EXPECT_NE(b.find(".maxntid 256, 1, 1"), std::string::npos) << b;
    EXPECT_EQ(u.find(".maxntid"), std::string::npos) << u;
}

// The prelude's sub-group built-ins are warp instructions (docs/prelude.md, "Sub-groups").
TEST(NvrtcPrelude, SubGroupBuiltinsAreWarpInstructions) {
    const Source src = tb::test::test_data_source("subgroups.cl");
    const std::string ptx = compile_to_ptx(src, {}, kArch).ptx;
    for (const char* op : {"shfl.sync.idx.b32", "shfl.sync.bfly.b32", "shfl.sync.up.b32", "shfl.sync.down.b32",
                           "vote.sync.all.pred", "vote.sync.any.pred", "bar.warp.sync"})
        EXPECT_NE(ptx.find(op), std::string::npos) << "no " << op << " in the PTX";
    // No shared-memory emulation: the only shared memory is the kernel's own exchange array.
    EXPECT_EQ(ptx.find("bar.sync"), std::string::npos) << "a block-wide barrier in a sub-group operation";
}

// TB_LAUNCH_BOUNDS gives kernels.cl what __launch_bounds__(threads, min blocks) gives
// kernels.cu, alone or beside reqd_work_group_size (docs/prelude.md, "Kernel attributes").
TEST(NvrtcPrelude, LaunchBoundsWithAMinimumOfGroups) {
    const Source src{"lb/kernels.cl",
                     "__kernel __attribute__((reqd_work_group_size(256, 1, 1))) TB_LAUNCH_BOUNDS(256, 4) void both(__global float* x) {\n"
                     "    x[get_global_id(0)] = 1.0f;\n"
                     "}\n"
                     "__kernel TB_LAUNCH_BOUNDS(128, 2) void alone(__global float* x) { x[get_global_id(0)] = 2.0f; }\n",
                     Dialect::OpenCL};
    const std::string ptx = compile_to_ptx(src, {}, kArch).ptx;
    const std::string both = entry_section(ptx, "both"), alone = entry_section(ptx, "alone");
    ASSERT_FALSE(both.empty()) << ptx;
    ASSERT_FALSE(alone.empty()) << ptx;
    EXPECT_NE(both.find(".maxntid 256, 1, 1"), std::string::npos) << both;
    EXPECT_NE(both.find(".minnctapersm 4"), std::string::npos) << both;
    EXPECT_NE(alone.find(".maxntid 128, 1, 1"), std::string::npos) << alone;
    EXPECT_NE(alone.find(".minnctapersm 2"), std::string::npos) << alone;
}

// The prelude's load hints are PTX cache operators and the read-only path (docs/prelude.md,
// "Load hints").
TEST(NvrtcPrelude, LoadHintsAreStreamingLoads) {
    const Source src = tb::test::test_data_source("load_hints.cl");
    const std::string ptx = compile_to_ptx(src, {}, kArch).ptx;
    std::size_t streaming = 0;
    for (std::size_t at = ptx.find("ld.global.cs."); at != std::string::npos; at = ptx.find("ld.global.cs.", at + 1))
        ++streaming;
    EXPECT_EQ(streaming, 3u) << ptx;  // uint, int, float
    // tb_load_readonly: uint, int, float, float2, float4, int4 (the vectors as one instruction)
    for (const char* op : {"ld.global.nc.u32", "ld.global.nc.f32", "ld.global.nc.v2.f32", "ld.global.nc.v4.f32",
                           "ld.global.nc.v4.s32"})
        EXPECT_NE(ptx.find(op), std::string::npos) << "no " << op << " in the PTX";
}

// Kernel `name` of a module normalised as `tribench ptxdiff` reads it (tb::ptx::parse_functions:
// no line info or comments, registers and labels renumbered by first appearance); empty
// when the module has no such kernel.
std::vector<std::string> normalised_kernel(const std::string& ptx, const std::string& name) {
    for (const auto& f : tb::ptx::parse_functions(ptx))
        if (f.entry && f.name == name) return f.lines;
    return {};
}

// spmv's scalar kernel is the same PTX from both dialects, so the same SASS: written any
// other way (launch bounds on one side, kernels.cl's first row from its 64-bit
// get_global_id), ptxas scheduled the same loop differently and the two ran up to 25% apart
// on the H100 (docs/programs/spmv.md, "Dialect differences").
TEST(DialectPtx, SpmvScalarIsTheSameInstructionsInBothDialects) {
    const tb::Program& spmv = tb::find_program("spmv");
    CompileOptions opt;
    opt.defines = spmv.defines();
    const auto cu = normalised_kernel(compile_to_ptx(tb::program_source(spmv, Dialect::Cuda), opt, kArch).ptx,
                                      "spmv_scalar");
    const auto cl = normalised_kernel(compile_to_ptx(tb::program_source(spmv, Dialect::OpenCL), opt, kArch).ptx,
                                      "spmv_scalar");
    ASSERT_TRUE(std::any_of(cu.begin(), cu.end(),
                            [](const std::string& l) { return l.find("ld.global.nc") != std::string::npos; }));
    EXPECT_EQ(cu, cl) << tb::ptx::unified_diff(cu, cl, "kernels.cu", "kernels.cl");
}

// The launch bounds each kernel's PTX declares (.maxntid, .reqntid, .minnctapersm,
// .maxnreg, .maxclusterrank), by kernel.
std::map<std::string, std::vector<std::string>> launch_bounds_by_kernel(const std::string& ptx) {
    static const std::regex bound(R"(^\.(maxntid|reqntid|minnctapersm|maxnreg|maxclusterrank)\b.*)");
    std::map<std::string, std::vector<std::string>> out;
    for (const auto& f : tb::ptx::parse_functions(ptx)) {
        if (!f.entry) continue;
        auto& v = out[f.name];
        for (const auto& l : f.lines)
            if (std::regex_match(l, bound)) v.push_back(l);
    }
    return out;
}

// Part of "the same launch geometry": each kernel declares the same bounds from both dialects
// (kernels.cu's __launch_bounds__; kernels.cl's reqd_work_group_size and TB_LAUNCH_BOUNDS).
// ptxas plans registers and schedules from them, so a bound on one side only is a different
// kernel (spmv's scalar ran up to 25% apart that way: docs/programs/spmv.md). The one known
// exception, listed in spmv.md's dialect table: kernels.cu's merge kernels carry
// __launch_bounds__(SPMV_BLOCK), kernels.cl's none, each dialect's measured best (H100: the
// bound took cuda-native's merge on fem-l from 0.0935 to 0.0864 ms, and cost cuda-prelude
// 0.085 -> 0.095 when kernels.cl had it). It must stay as listed.
class EveryProgram : public ::testing::TestWithParam<const tb::Program*> {};

TEST_P(EveryProgram, LaunchBoundsAreTheSameForBothDialects) {
    const tb::Program& p = *GetParam();
    CompileOptions opt;
    opt.defines = p.defines();
    const auto cu = launch_bounds_by_kernel(compile_to_ptx(tb::program_source(p, Dialect::Cuda), opt, kArch).ptx);
    const auto cl = launch_bounds_by_kernel(compile_to_ptx(tb::program_source(p, Dialect::OpenCL), opt, kArch).ptx);
    const std::map<std::string, std::vector<std::string>> cu_only = {
        {"spmv_merge", {".maxntid 256, 1, 1"}},
        {"spmv_merge_partition", {".maxntid 256, 1, 1"}},
        {"spmv_merge_fixup", {".maxntid 256, 1, 1"}},
    };
    ASSERT_FALSE(cu.empty());
    for (const auto& [kernel, bounds] : cu) {
        const auto it = cl.find(kernel);
        ASSERT_NE(it, cl.end()) << kernel << " is not in kernels.cl's PTX";
        const auto known = cu_only.find(kernel);
        if (p.name() == "spmv" && known != cu_only.end()) {
            const char* changed = ": the listed exception changed; update spmv.md and this test";
            EXPECT_EQ(bounds, known->second) << kernel << changed;
            EXPECT_TRUE(it->second.empty()) << kernel << changed;
            continue;
        }
        EXPECT_EQ(bounds, it->second) << kernel << ": kernels.cu declares " << ::testing::PrintToString(bounds)
                                      << ", kernels.cl " << ::testing::PrintToString(it->second);
    }
}

INSTANTIATE_TEST_SUITE_P(All, EveryProgram, ::testing::ValuesIn(tb::all_programs()),
                         [](const ::testing::TestParamInfo<const tb::Program*>& i) { return i.param->name(); });

TEST(NvrtcOptions, DefinesReachTheSource) {
    const Source src{"def.cu", "extern \"C\" __global__ void k(float* x) { x[0] = SCALE * x[1]; }\n", Dialect::Cuda};
    EXPECT_THROW(compile_to_ptx(src, {}, kArch), tb::Error);
    CompileOptions opt;
    opt.defines = {"SCALE=3.5f"};
    const std::string ptx = compile_to_ptx(src, opt, kArch).ptx;
    EXPECT_NE(ptx.find("0f40600000"), std::string::npos) << ptx;  // 3.5f
}

// The PTX names the source as given, not below the working directory, so it is the same
// (and hashes the same) wherever tribench runs.
TEST(Nvrtc, PtxDoesNotDependOnTheWorkingDirectory) {
    const Source src{"dir/kernels.cu", "extern \"C\" __global__ void k(float* x) { x[0] = 1.0f; }\n", Dialect::Cuda};
    set_kernel_cache_enabled(false);
    const fs::path start = fs::current_path();
    const std::string here = compile_to_ptx(src, {}, kArch).ptx;
    TempDir elsewhere;
    fs::current_path(elsewhere.path);
    const std::string there = compile_to_ptx(src, {}, kArch).ptx;
    fs::current_path(start);
    set_kernel_cache_enabled(true);
    EXPECT_EQ(here, there);
    EXPECT_NE(here.find("\"dir/kernels.cu\""), std::string::npos) << here;
}

TEST(Nvrtc, ReportsVersionAndArchitectures) {
    EXPECT_TRUE(std::regex_match(nvrtc_version(), std::regex(R"([0-9]+\.[0-9]+)"))) << nvrtc_version();
    const auto archs = nvrtc_supported_archs();
    EXPECT_NE(std::find(archs.begin(), archs.end(), 90), archs.end());
}

// ---- kernel cache ------------------------------------------------------------------------------

class KernelCache : public ::testing::Test {
protected:
    TempDir dir;
    ScopedEnv cache_dir{"TRIBENCH_CACHE_DIR", dir.path.c_str()};
    ScopedEnv no_cache{"TRIBENCH_NO_CACHE", nullptr};
    const Source src{"cache/kernels.cu", "extern \"C\" __global__ void twice(float* x) { x[0] *= 2.0f; }\n",
                     Dialect::Cuda};

    std::vector<fs::path> files() const {
        std::vector<fs::path> out;
        if (fs::exists(dir.path / "nvrtc"))
            for (const auto& e : fs::directory_iterator(dir.path / "nvrtc")) out.push_back(e.path());
        return out;
    }
};

TEST_F(KernelCache, SecondCompileHits) {
    const PtxBuild cold = compile_to_ptx(src, {}, kArch);
    EXPECT_FALSE(cold.from_cache);
    ASSERT_EQ(files().size(), 1u);  // one entry, no temporary left behind
    EXPECT_EQ(files()[0].extension(), ".entry");
    const PtxBuild warm = compile_to_ptx(src, {}, kArch);
    EXPECT_TRUE(warm.from_cache);
    EXPECT_EQ(warm.ptx, cold.ptx);
    EXPECT_EQ(warm.log, cold.log);
    EXPECT_GT(cold.compile_ms, 0.0);
    EXPECT_GT(warm.compile_ms, 0.0);
}

TEST_F(KernelCache, OpenClEntriesKeepTheKernelSignatures) {
    const Source cl{"cache/kernels.cl", "__kernel void k(__global float* x, __local float* t) { t[0] = x[0]; }\n",
                    Dialect::OpenCL};
    const PtxBuild cold = compile_to_ptx(cl, {}, kArch);
    const PtxBuild warm = compile_to_ptx(cl, {}, kArch);
    EXPECT_TRUE(warm.from_cache);
    ASSERT_EQ(warm.kernels.size(), 1u);
    EXPECT_EQ(warm.kernels[0].name, "k");
    EXPECT_EQ(warm.kernels[0].local_params, cold.kernels[0].local_params);
}

TEST_F(KernelCache, MissesWhenAnythingThatChangesThePtxDiffers) {
    ASSERT_FALSE(compile_to_ptx(src, {}, kArch).from_cache);
    CompileOptions fast;
    fast.math = MathMode::Fast;
    EXPECT_FALSE(compile_to_ptx(src, fast, kArch).from_cache);
    CompileOptions defined;
    defined.defines = {"X=1"};
    EXPECT_FALSE(compile_to_ptx(src, defined, kArch).from_cache);
    EXPECT_FALSE(compile_to_ptx(src, {}, "sm_80").from_cache);
    Source edited = src;
    edited.text += "// edited\n";
    EXPECT_FALSE(compile_to_ptx(edited, {}, kArch).from_cache);
    Source renamed = src;
    renamed.file_name = "cache/other.cu";
    EXPECT_FALSE(compile_to_ptx(renamed, {}, kArch).from_cache);
    EXPECT_EQ(files().size(), 6u);
    // ...and every one of them hits now.
    EXPECT_TRUE(compile_to_ptx(src, {}, kArch).from_cache);
    EXPECT_TRUE(compile_to_ptx(src, fast, kArch).from_cache);
    EXPECT_TRUE(compile_to_ptx(src, {}, "sm_80").from_cache);
}

TEST_F(KernelCache, CorruptEntryIsAMiss) {
    const PtxBuild cold = compile_to_ptx(src, {}, kArch);
    ASSERT_EQ(files().size(), 1u);
    const fs::path entry = files()[0];
    const std::string good = read_text(entry);

    const std::vector<std::string> corruptions = {
        "",                                          // empty
        "garbage\n",                                 // not an entry
        good.substr(0, good.size() / 2),             // truncated
        good + "trailing",                           // lengths do not add up
    };
    for (const auto& bad : corruptions) {
        write_text(entry, bad);
        const PtxBuild b = compile_to_ptx(src, {}, kArch);
        EXPECT_FALSE(b.from_cache);
        EXPECT_EQ(b.ptx, cold.ptx);
        EXPECT_EQ(read_text(entry), good) << "the entry was not rewritten";
    }
    // Another key stored under the same name (a hash collision): a miss, not its PTX.
    std::string other = good;
    const std::size_t at = other.find("twice");
    ASSERT_NE(at, std::string::npos);
    other[at] = 'T';
    write_text(entry, other);
    EXPECT_FALSE(compile_to_ptx(src, {}, kArch).from_cache);
    EXPECT_TRUE(compile_to_ptx(src, {}, kArch).from_cache);
}

TEST_F(KernelCache, CanBeBypassed) {
    set_kernel_cache_enabled(false);
    EXPECT_FALSE(compile_to_ptx(src, {}, kArch).from_cache);
    EXPECT_FALSE(compile_to_ptx(src, {}, kArch).from_cache);
    EXPECT_TRUE(files().empty());
    set_kernel_cache_enabled(true);

    {
        ScopedEnv off("TRIBENCH_NO_CACHE", "1");
        EXPECT_FALSE(kernel_cache_enabled());
        EXPECT_FALSE(compile_to_ptx(src, {}, kArch).from_cache);
        EXPECT_FALSE(compile_to_ptx(src, {}, kArch).from_cache);
        EXPECT_TRUE(files().empty());
    }
    EXPECT_TRUE(kernel_cache_enabled());
    EXPECT_FALSE(compile_to_ptx(src, {}, kArch).from_cache);
    EXPECT_TRUE(compile_to_ptx(src, {}, kArch).from_cache);
}

TEST_F(KernelCache, UnwritableLocationDoesNotFailTheCompile) {
    write_text(dir.path / "a-file", "x");
    ScopedEnv blocked("TRIBENCH_CACHE_DIR", (dir.path / "a-file" / "below").c_str());
    EXPECT_FALSE(compile_to_ptx(src, {}, kArch).from_cache);
    EXPECT_FALSE(compile_to_ptx(src, {}, kArch).from_cache);
}

TEST(KernelCacheLocation, FollowsTheEnvironment) {
    ScopedEnv cache("TRIBENCH_CACHE_DIR", "/tmp/tb-cache");
    ScopedEnv xdg("XDG_CACHE_HOME", "/tmp/xdg");
    ScopedEnv home("HOME", "/tmp/home");
    EXPECT_EQ(kernel_cache_dir(), fs::path("/tmp/tb-cache/nvrtc"));
    unsetenv("TRIBENCH_CACHE_DIR");
    EXPECT_EQ(kernel_cache_dir(), fs::path("/tmp/xdg/tribench/nvrtc"));
    unsetenv("XDG_CACHE_HOME");
    EXPECT_EQ(kernel_cache_dir(), fs::path("/tmp/home/.cache/tribench/nvrtc"));
    unsetenv("HOME");
    EXPECT_TRUE(kernel_cache_dir().empty());
    EXPECT_FALSE(kernel_cache_enabled());
}

TEST(KernelCacheKey, IsFnv1a64) {
    // Published FNV-1a 64-bit test vectors.
    EXPECT_EQ(fnv1a64_hex(""), "cbf29ce484222325");
    EXPECT_EQ(fnv1a64_hex("a"), "af63dc4c8601ec8c");
    EXPECT_EQ(fnv1a64_hex("foobar"), "85944171f73967e8");
}

// PTX given with the source (TRIBENCH_KERNEL_DIR's kernels.cl.ptx) is what the backend
// loads, byte for byte, and is never cached; the OpenCL C still gives the signatures.
TEST(NvrtcGivenPtx, ReplacesTheCompiledPtxAndKeepsTheSignatures) {
    Source src{"given/kernels.cl", "__kernel void k(__global float* x, __local float* s, int n) { }\n",
               Dialect::OpenCL};
    src.ptx_file = "given/kernels.cl.ptx";
    src.ptx = ".version 8.0\n.target sm_90\n.address_size 64\n.visible .entry k(\n)\n{\n\tret;\n}\n";
    const fs::path cache = fs::path(testing::TempDir()) / "given-ptx-cache";
    fs::remove_all(cache);
    tb::test::ScopedEnv env("TRIBENCH_CACHE_DIR", cache.c_str());
    const PtxBuild b = compile_to_ptx(src, {}, kArch);
    EXPECT_EQ(b.ptx, src.ptx);
    EXPECT_NE(b.log.find("given/kernels.cl.ptx"), std::string::npos) << b.log;
    ASSERT_EQ(b.kernels.size(), 1u);
    EXPECT_EQ(b.kernels[0].name, "k");
    EXPECT_EQ(b.kernels[0].local_params, std::vector<int>{1});
    EXPECT_FALSE(fs::exists(cache / "nvrtc"));
}

}  // namespace
