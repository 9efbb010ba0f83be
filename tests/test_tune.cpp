// Tuning (docs/tuning.md): the spaces of the converted programs, the search's plan, the tuning
// file's round trip and refusals, `run --tuning`'s choice of configurations, and a search
// on a fake device that must never pick a configuration that failed to compile or validate.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <set>
#include <sstream>

#include <unistd.h>

#include <benchmark/benchmark.h>

#include "backend.hpp"
#include "program.hpp"
#include "read_file.hpp"
#include "recording_device.hpp"
#include "shared_opencl_device.hpp"
#include "compare/compare.hpp"
#include "measure/runner.hpp"
#include "results/results.hpp"
#include "tune/apply_tuning.hpp"
#include "tune/search.hpp"
#include "tune/tuner.hpp"
#include "tune/tuning_file.hpp"

namespace {

using namespace tb;

// ---- spaces ---------------------------------------------------------------------------------

TEST(TuningSpace, RefusesMissingUnknownAndDisallowedValuesWithAReason) {
    TuningSpace s;
    s.param("a", {1, 2, 4}, "a").param("b", {8, 16}, "b");
    s.require("a * b <= 32", [](const TuningConfig& c, const DeviceInfo&) { return c.at("a") * c.at("b") <= 32; });
    const DeviceInfo dev;
    EXPECT_EQ(s.refusal({{"a", 2}, {"b", 16}}, dev), "");
    EXPECT_EQ(s.refusal({{"a", 2}}, dev), "parameter b has no value");
    EXPECT_EQ(s.refusal({{"a", 3}, {"b", 8}}, dev), "a=3 is not one of its values (1, 2, 4)");
    EXPECT_EQ(s.refusal({{"a", 1}, {"b", 8}, {"c", 1}}, dev), "unknown parameter c");
    EXPECT_EQ(s.refusal({{"a", 4}, {"b", 16}}, dev), "a * b <= 32 does not hold for a=4,b=16");
    EXPECT_EQ(s.grid_size(), 6u);
    EXPECT_EQ(to_string(s.point(0)), "a=1,b=8");
    EXPECT_EQ(to_string(s.point(5)), "a=4,b=16");
}

TEST(TuningSpace, ConfigurationTextRoundTrips) {
    const TuningConfig c{{"group_x", 32}, {"group_y", -8}};
    EXPECT_EQ(parse_tuning_config(to_string(c)), c);
    EXPECT_THROW(parse_tuning_config("group_x"), Error);
    EXPECT_THROW(parse_tuning_config("group_x=3x"), Error);
    EXPECT_THROW(parse_tuning_config("a=1,a=2"), Error);
}

struct ProfileCase {
    const char* name;
    DeviceInfo (*info)(const std::string&);
};
const ProfileCase kProfiles[] = {{"H100", test::h100_info},
                                 {"H100 NVIDIA OpenCL", test::h100_opencl_info},
                                 {"PoCL CPU", test::pocl_cpu_info},
                                 {"AMD wave64 GPU", test::amd_wave64_info},
                                 {"small GPU", test::small_gpu_info},
                                 {"unknown device", [](const std::string&) { return DeviceInfo{}; }}};

// Every program's device default is allowed by its own space on every profile.
TEST(ProgramSpaces, AcceptTheirDefaultsOnEveryProfile) {
    for (const Program* p : all_programs())
        for (const auto& prof : kProfiles) {
            const DeviceInfo dev = prof.info("opencl");
            const TuningConfig c = p->default_config(dev);
            EXPECT_EQ(p->tuning_space().refusal(c, dev), "") << p->name() << " on " << prof.name << ": " << to_string(c);
            EXPECT_FALSE(p->defines(c).empty()) << p->name();
        }
}

// On an H100 the derived defaults are the constants the kernels were tuned with.
TEST(ProgramSpaces, H100DefaultsAreTheReferenceConstants) {
    const DeviceInfo h100 = test::h100_info("cuda-native");
    const Program& m = find_program("mandelbrot");
    EXPECT_EQ(m.defines(m.default_config(h100)), (std::vector<std::string>{"MANDELBROT_GROUP_X=32", "MANDELBROT_GROUP_Y=8"}));
    EXPECT_EQ(m.defines(), m.defines(m.default_config(h100)));
    const Program& s = find_program("stencil");
    EXPECT_EQ(s.defines(s.default_config(h100)),
              (std::vector<std::string>{"STENCIL_GROUP_X=32", "STENCIL_GROUP_Y=8", "STENCIL_HALO_GROUP=256",
                                        "STENCIL_TILE_X=64", "STENCIL_TILE_Y=32"}));
    EXPECT_EQ(s.default_config(h100).at("groups_per_unit"), 16);
    EXPECT_EQ(s.defines(), s.defines(s.default_config(h100)));
}

TEST(ProgramSpaces, MandelbrotRefusesGroupsLargerThanTheDeviceAllows) {
    const Program& m = find_program("mandelbrot");
    DeviceInfo dev = test::h100_info("opencl");
    EXPECT_EQ(m.tuning_space().refusal({{"group_x", 128}, {"group_y", 16}}, dev),
              "group_x * group_y = 2048 exceeds the device's maximum work-group size 1024");
    EXPECT_EQ(m.tuning_space().refusal({{"group_x", 64}, {"group_y", 16}}, dev), "");
    dev.max_work_group_size = 256;
    dev.simd_width = 0;
    EXPECT_EQ(to_string(m.default_config(dev)), "group_x=32,group_y=8");
    dev.max_work_group_size = 64;
    EXPECT_EQ(to_string(m.default_config(dev)), "group_x=32,group_y=2");
}

TEST(ProgramSpaces, StencilRefusesWhatItsKernelsCannotRun) {
    const TuningSpace& s = find_program("stencil").tuning_space();
    const DeviceInfo h100 = test::h100_info("cuda-native");
    TuningConfig c = find_program("stencil").default_config(h100);
    c["tile_x"] = 128;
    c["group_y"] = 2;  // 64 work-items: less than one tile row of 128
    EXPECT_NE(s.refusal(c, h100).find("whole tile rows per load pass"), std::string::npos) << s.refusal(c, h100);
    c = find_program("stencil").default_config(h100);
    c["tile_x"] = 128;
    c["tile_y"] = 64;
    c["group_x"] = 64;
    c["group_y"] = 16;
    EXPECT_EQ(s.refusal(c, h100), "");
    const DeviceInfo small_local = test::h100_opencl_info("opencl");  // 48 KiB
    EXPECT_EQ(s.refusal(c, small_local), "the fused tile needs 106128 bytes of local memory, the device has 49152");
}

TEST(ProgramSpaces, NbodyKmeansAndFftH100DefaultsAreTheReferenceConstants) {
    const DeviceInfo h100 = test::h100_info("cuda-native");
    for (const char* name : {"nbody", "kmeans", "fft", "spmv"}) {
        const Program& p = find_program(name);
        EXPECT_EQ(p.defines(p.default_config(h100)), p.defines()) << name;
    }
    EXPECT_EQ(to_string(find_program("nbody").default_config(h100)),
              "bodies_per_item=8,group_size=256,groups_per_unit=32,unroll=16");
    EXPECT_EQ(to_string(find_program("kmeans").default_config(h100)), "block=256,partial_block=128");
    EXPECT_EQ(find_program("fft").default_config(h100).at("group_local_limit"), 49152);
    EXPECT_EQ(find_program("fft").default_config(h100).at("log2_group"), 8);
}

// Not a GPU: the configurations tunes on two CPUs through PoCL found (an AMD EPYC and an
// Intel Xeon VM, 2026-12-06 and -07), not the H100's: nbody n10k ran 2.3x faster under them,
// kmeans 8k-d4-k5 `full` 1.37x, fft 1d-256x8 3x and stencil 32x32x64 `fused` 3.3x (docs/tuning.md,
// "Defaults on CPUs").
// A GPU of the same limits keeps the H100's, and so does a device that described nothing
// (DeviceInfo{}: Program::defines()'s reference constants).
TEST(ProgramSpaces, CpusGetTheDefaultsTunesFoundOnCpus) {
    const DeviceInfo cpu = test::pocl_cpu_info("opencl");
    EXPECT_EQ(to_string(find_program("nbody").default_config(cpu)), "bodies_per_item=4,group_size=128,groups_per_unit=8,unroll=4");
    EXPECT_EQ(to_string(find_program("kmeans").default_config(cpu)), "block=64,partial_block=64");
    EXPECT_EQ(find_program("fft").default_config(cpu).at("log2_group"), 7);
    EXPECT_EQ(to_string(find_program("stencil").default_config(cpu)),
              "group_x=32,group_y=4,groups_per_unit=4,halo_group=256,tile_x=32,tile_y=16");
    DeviceInfo gpu = cpu;
    gpu.is_gpu = true;
    EXPECT_EQ(to_string(find_program("nbody").default_config(gpu)), "bodies_per_item=8,group_size=256,groups_per_unit=32,unroll=16");
    EXPECT_EQ(to_string(find_program("kmeans").default_config(gpu)), "block=256,partial_block=128");
    EXPECT_EQ(find_program("fft").default_config(gpu).at("log2_group"), 8);
    EXPECT_EQ(to_string(find_program("stencil").default_config(gpu)),
              "group_x=32,group_y=8,groups_per_unit=16,halo_group=256,tile_x=64,tile_y=32");
    EXPECT_EQ(to_string(find_program("nbody").default_config(DeviceInfo{})), "bodies_per_item=8,group_size=256,groups_per_unit=32,unroll=16");
}

TEST(ProgramSpaces, NbodyKmeansAndFftRefuseWhatTheDeviceCannotHold) {
    const DeviceInfo ocl = test::h100_opencl_info("opencl");  // 48 KiB of local memory
    EXPECT_EQ(find_program("nbody").tuning_space().refusal(
                  {{"bodies_per_item", 8}, {"group_size", 512}, {"unroll", 16}, {"groups_per_unit", 32}}, ocl),
              "group_size * bodies_per_item needs 65536 bytes of local memory, the device has 49152");
    EXPECT_EQ(find_program("kmeans").tuning_space().refusal({{"block", 256}, {"partial_block", 256}}, ocl),
              "partial_block = 256 needs 82944 bytes of local memory, the device has 49152");
    DeviceInfo small_groups = ocl;
    small_groups.max_work_group_size = 128;
    EXPECT_EQ(to_string(find_program("kmeans").default_config(small_groups)), "block=128,partial_block=128");
    TuningConfig f = find_program("fft").default_config(small_groups);
    EXPECT_EQ(f.at("log2_group"), 7);
    f["log2_group"] = 9;
    EXPECT_EQ(find_program("fft").tuning_space().refusal(f, small_groups),
              "2^log2_group = 512 exceeds the device's maximum work-group size 128");
}

// Compiles `p` under `c` on `dev` and validates every variant on its first small dataset.
void expect_validates(Device& dev, const Program& p, const TuningConfig& c, const std::string& label) {
    Dataset d = p.datasets()[0];
    for (const auto& s : p.datasets())
        if (s.small) {
            d = s;
            break;
        }
    CompileOptions co;
    co.defines = p.defines(c);
    auto module = dev.compile(program_source(p, Dialect::OpenCL), co);
    for (const auto& variant : p.variants()) {
        RunConfig cfg{variant, LaunchMode::Stream, 3, c};
        auto inst = p.prepare(dev, *module, d, cfg);
        inst->poison();
        inst->run();
        dev.synchronize();
        const Validation v = inst->validate();
        EXPECT_TRUE(v.ok) << p.name() << "/" << d.name << "/" << variant << " under " << to_string(c) << " (" << label
                          << "): " << v.detail;
    }
}

// A configuration other than the default compiles and validates on PoCL: the host and the
// kernels take it from the same place.
TEST(ProgramSpaces, OtherConfigurationsValidateOnOpenCL) {
    TB_SKIP_WITHOUT_SHARED_OPENCL_DEVICE();
    Device* dev = shared_opencl_device().device.get();
    const std::vector<std::pair<std::string, std::string>> cases = {
        {"mandelbrot", "group_x=16,group_y=4"},
        {"stencil", "group_x=16,group_y=16,halo_group=64,tile_x=32,tile_y=32,groups_per_unit=4"},
        {"nbody", "bodies_per_item=2,group_size=128,unroll=8,groups_per_unit=8"},
        {"kmeans", "block=128,partial_block=64"},
        {"spmv", "scalar_batch=4"},
    };
    for (const auto& [name, text] : cases) {
        const Program& p = find_program(name);
        const TuningConfig c = parse_tuning_config(text);
        ASSERT_EQ(p.tuning_space().refusal(c, dev->info()), "") << name;
        ASSERT_NE(c, p.default_config(dev->info())) << name;
        expect_validates(*dev, p, c, "a point of the space");
    }
}

// The defaults derived for other devices (a 64-wide wavefront, 16-wide rows in 32 KiB of
// local memory) are configurations the kernels run correctly: each one that differs from
// PoCL's own default, and that PoCL can run, validates there.
TEST(ProgramSpaces, OtherDevicesDefaultsValidateOnOpenCL) {
    TB_SKIP_WITHOUT_SHARED_OPENCL_DEVICE();
    Device* dev = shared_opencl_device().device.get();
    int checked = 0;
    for (const Program* p : all_programs()) {
        std::set<TuningConfig> seen{p->default_config(dev->info())};
        for (const auto& prof : kProfiles) {
            const TuningConfig c = p->default_config(prof.info("opencl"));
            if (!seen.insert(c).second || !p->tuning_space().refusal(c, dev->info()).empty()) continue;
            expect_validates(*dev, *p, c, std::string("the default on ") + prof.name);
            ++checked;
        }
    }
    EXPECT_GE(checked, 4) << "the profiles no longer derive other defaults: the test checks nothing new";
}

// ---- the search's plan ---------------------------------------------------------------------

TuningSpace three_by_four() {
    TuningSpace s;
    s.param("x", {1, 2, 3}, "x").param("y", {10, 20, 30, 40}, "y");
    s.require("x + y is not 42", [](const TuningConfig& c, const DeviceInfo&) { return c.at("x") + c.at("y") != 42; });
    return s;
}

TEST(Search, TriesSmallSpacesWholeStartingFromTheDefault) {
    SearchSettings settings;
    const SearchPlan p = plan_search(three_by_four(), {{"x", 3}, {"y", 20}}, DeviceInfo{}, settings);
    EXPECT_TRUE(p.exhaustive);
    EXPECT_EQ(p.strategy, "exhaustive");
    ASSERT_EQ(p.points.size(), 11u);
    EXPECT_EQ(to_string(p.points[0]), "x=3,y=20");
    ASSERT_EQ(p.refused.size(), 1u);
    EXPECT_EQ(to_string(p.refused[0].config), "x=2,y=40");
    EXPECT_EQ(p.refused[0].reason, "x + y is not 42 does not hold for x=2,y=40");
}

TEST(Search, SamplesLargeSpacesReproduciblyWithinMaxPoints) {
    SearchSettings settings;
    settings.exhaustive_limit = 4;
    settings.max_points = 5;
    settings.seed = 7;
    const TuningConfig start{{"x", 1}, {"y", 10}};
    const SearchPlan a = plan_search(three_by_four(), start, DeviceInfo{}, settings);
    const SearchPlan b = plan_search(three_by_four(), start, DeviceInfo{}, settings);
    EXPECT_FALSE(a.exhaustive);
    EXPECT_EQ(a.strategy, "random (seed 7, 5 of 11)");
    ASSERT_EQ(a.points.size(), 5u);
    EXPECT_EQ(a.points, b.points) << "the same seed must give the same sample";
    EXPECT_EQ(a.points[0], start);
    for (const auto& c : a.points) EXPECT_EQ(three_by_four().refusal(c, DeviceInfo{}), "") << to_string(c);
    EXPECT_EQ(std::count(a.points.begin(), a.points.end(), start), 1);
}

// A parameter the backend does not read stays at the start's value: 4 points of y, not 12.
TEST(Search, PinnedParametersKeepTheStartValue) {
    SearchSettings settings;
    settings.pinned = {"x"};
    const SearchPlan p = plan_search(three_by_four(), {{"x", 3}, {"y", 20}}, DeviceInfo{}, settings);
    ASSERT_EQ(p.points.size(), 4u);
    for (const auto& c : p.points) EXPECT_EQ(c.at("x"), 3) << to_string(c);
    EXPECT_EQ(p.allowed, 4u);
    settings.exhaustive_limit = 2;  // sampled: the same rule
    const SearchPlan q = plan_search(three_by_four(), {{"x", 1}, {"y", 10}}, DeviceInfo{}, settings);
    EXPECT_FALSE(q.exhaustive);
    for (const auto& c : q.points) EXPECT_EQ(c.at("x"), 1) << to_string(c);
}

// fft's launch bounds are NVRTC's alone (TB_LAUNCH_BOUNDS is empty under OpenCL compilers).
TEST(Search, FftLaunchBoundsAreNvrtcOnly) {
    std::vector<std::string> nvrtc_only;
    for (const auto& p : find_program("fft").tuning_space().params())
        if (p.nvrtc_only) nvrtc_only.push_back(p.name);
    EXPECT_EQ(nvrtc_only, (std::vector<std::string>{"cuda_min_groups_per_sm", "cuda_min_groups_per_sm_r4096"}));
}

// ---- the tuning file -----------------------------------------------------------------------

TuningEntry sample_entry(const std::string& device, const std::string& dataset) {
    TuningEntry e;
    e.key = TuningKey{device, "1.0", "opencl", "mandelbrot", dataset};
    e.config = {{"group_x", 16}, {"group_y", 4}};
    e.median_ms = 0.5;
    e.default_median_ms = 0.6;
    e.tried = 27;
    e.failed = 1;
    e.refused = 3;
    e.strategy = "exhaustive";
    e.tuned_utc = "2026-12-05T14:00:00Z";
    return e;
}

std::filesystem::path temp_dir() {
    const auto dir = std::filesystem::temp_directory_path() / ("tribench-test-tune-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir);
    return dir;
}

void write_text(const std::filesystem::path& p, const std::string& text) { std::ofstream(p) << text; }

TEST(TuningFile, RoundTripsThroughItsFile) {
    TuningFile f;
    f.put(sample_entry("cpu", "128x128"));
    f.put(sample_entry("cpu", "512x512"));
    TuningEntry again = sample_entry("cpu", "128x128");
    again.config["group_x"] = 64;
    f.put(again);  // replaces the first
    ASSERT_EQ(f.entries.size(), 2u);
    const std::string path = (temp_dir() / "sub" / "tuning.json").string();
    save_tuning_file(path, f);
    const TuningFile back = load_tuning_file(path);
    ASSERT_EQ(back.entries.size(), 2u);
    const TuningEntry* e = back.find(again.key);
    ASSERT_NE(e, nullptr);
    EXPECT_EQ(e->config, again.config);
    EXPECT_EQ(e->median_ms, 0.5);
    EXPECT_EQ(e->tried, 27u);
    EXPECT_EQ(e->strategy, "exhaustive");
    EXPECT_EQ(to_json(back), to_json(f));
    std::filesystem::remove_all(temp_dir());
}

// A name ending in .gz is written compressed (what reports/ commits) and reads back the same;
// any other name stays plain JSON.
TEST(TuningFile, AGzNameIsWrittenCompressed) {
#if !TRIBENCH_HAVE_ZLIB
    GTEST_SKIP() << "built without zlib";
#endif
    TuningFile f;
    f.put(sample_entry("cpu", "128x128"));
    const auto dir = temp_dir();
    const auto first_bytes = [](const std::filesystem::path& p) { return read_file(p.string()).substr(0, 2); };
    save_tuning_file((dir / "t.json.gz").string(), f);
    save_tuning_file((dir / "t.json").string(), f);
    EXPECT_EQ(first_bytes(dir / "t.json.gz"), std::string("\x1f\x8b"));
    EXPECT_EQ(first_bytes(dir / "t.json"), std::string("{\n"));
    EXPECT_EQ(to_json(load_tuning_file((dir / "t.json.gz").string())), to_json(f));
    std::filesystem::remove_all(dir);
}

TEST(TuningFile, RefusesMalformedFilesWithOneLine) {
    const auto dir = temp_dir();
    const auto expect_refused = [&](const std::string& text, const std::string& want) {
        const auto p = dir / "bad.json";
        write_text(p, text);
        try {
            load_tuning_file(p.string());
            ADD_FAILURE() << "accepted: " << text;
        } catch (const Error& e) {
            const std::string msg = e.what();
            EXPECT_NE(msg.find(want), std::string::npos) << msg;
            EXPECT_EQ(msg.find('\n'), std::string::npos) << msg;
            EXPECT_EQ(msg.rfind(p.string(), 0), 0u) << "names the file: " << msg;
        }
    };
    expect_refused("{not json", "not JSON");
    expect_refused(R"({"schema": "tribench-results", "version": 1, "entries": []})", "not a tribench tuning file");
    expect_refused(R"({"schema": "tribench-tuning", "version": 9, "entries": []})", "tuning file version 9 is not supported");
    expect_refused(R"({"schema": "tribench-tuning", "version": 1})", "'entries'");
    expect_refused(R"({"schema": "tribench-tuning", "version": 1, "entries": [{"device": "d", "driver": "1",
                      "backend": "opencl", "dataset": "128x128", "config": {}}]})",
                   "entries[0]: missing field 'program'");
    expect_refused(R"({"schema": "tribench-tuning", "version": 1, "entries": [{"device": "d", "driver": "1",
                      "backend": "opencl", "program": "mandelbrot", "dataset": "128x128", "config": {"group_x": "big"}}]})",
                   "config.group_x is not an integer");
    std::filesystem::remove_all(dir);
}

// `count` planned mandelbrot cases on one device profile, with their device defaults.
struct Planned {
    std::vector<BackendSlot> slots;
    std::vector<Case> cases;
};
Planned planned_mandelbrot(const DeviceInfo& dev) {
    Planned p;
    p.slots.resize(1);
    p.slots[0].id = "opencl";
    p.slots[0].devices = {dev};
    const Program& m = find_program("mandelbrot");
    for (const char* d : {"128x128", "512x512"}) {
        Case c{&m, find_dataset(m.datasets(), "mandelbrot", d), "default", LaunchMode::Stream, 0, 0,
               std::string("mandelbrot/") + d + "/opencl"};
        c.config = m.default_config(dev);
        c.config_source = kDeviceDefaultSource;
        p.cases.push_back(c);
    }
    return p;
}

TEST(ApplyTuning, GivesTunedCasesTheirConfigurationAndLeavesTheOthers) {
    DeviceInfo dev = test::pocl_cpu_info("opencl");
    dev.driver_version = "1.0";
    Planned p = planned_mandelbrot(dev);
    TuningFile f;
    f.put(sample_entry(dev.name, "128x128"));
    EXPECT_EQ(apply_tuning(f, "t.json", p.cases, p.slots), 1u);
    EXPECT_EQ(p.cases[0].config, (TuningConfig{{"group_x", 16}, {"group_y", 4}}));
    EXPECT_EQ(p.cases[0].config_source, "tuned");
    EXPECT_EQ(p.cases[1].config, find_program("mandelbrot").default_config(dev));
    EXPECT_EQ(p.cases[1].config_source, "device-default");
}

TEST(ApplyTuning, RefusesAFileForAnotherDevice) {
    DeviceInfo dev = test::pocl_cpu_info("opencl");
    dev.driver_version = "1.0";
    Planned p = planned_mandelbrot(dev);
    TuningFile f;
    f.put(sample_entry("NVIDIA H100 80GB HBM3", "128x128"));
    try {
        apply_tuning(f, "t.json", p.cases, p.slots);
        ADD_FAILURE() << "a file for another device was accepted";
    } catch (const Error& e) {
        EXPECT_EQ(std::string(e.what()),
                  "t.json: tuned for NVIDIA H100 80GB HBM3 (driver 1.0), not for recording cpu (driver 1.0): tune this "
                  "device (tribench tune) or pass --tuning none");
    }
    TuningEntry other_driver = sample_entry(dev.name, "128x128");
    other_driver.key.driver = "0.9";
    TuningFile g;
    g.put(other_driver);
    EXPECT_THROW(apply_tuning(g, "t.json", p.cases, p.slots), Error);
    // The default file caches every device tuned from this account: others' entries are no error.
    EXPECT_EQ(apply_tuning(f, "t.json", p.cases, p.slots, /*named=*/false), 0u);
    EXPECT_EQ(p.cases[0].config_source, "device-default");
}

TEST(ApplyTuning, RefusesAnEntryTheSpaceRefuses) {
    DeviceInfo dev = test::pocl_cpu_info("opencl");
    dev.driver_version = "1.0";
    dev.max_work_group_size = 32;
    Planned p = planned_mandelbrot(dev);
    TuningFile f;
    f.put(sample_entry(dev.name, "128x128"));  // 16 x 4 = 64 work-items
    try {
        apply_tuning(f, "t.json", p.cases, p.slots);
        ADD_FAILURE() << "a refused configuration was accepted";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("exceeds the device's maximum work-group size 32"), std::string::npos) << e.what();
    }
}

// ---- a search on a fake device -------------------------------------------------------------

// The fake program's kernels take FAKE_GROUP from the configuration. Its fake device fails to
// compile group 128, its instance fails validation at group 32 (which would be the fastest),
// and a run takes 1 / group ms otherwise, so 64 must win.
class FakeModule final : public Module {
public:
    Kernel kernel(const std::string& name) override { return Kernel{name, this, 0}; }
};

std::int64_t group_of(const std::vector<std::string>& defines) {
    for (const auto& d : defines)
        if (d.rfind("FAKE_GROUP=", 0) == 0) return std::stoll(d.substr(11));
    return -1;
}

int fake_opens = 0, fake_compiles = 0;  // counted for the DevicePool test
// A test's own time of a run by group size (unset: 1 / group ms).
std::function<double(std::int64_t group)> fake_time;

class FakeDevice final : public Device {
public:
    FakeDevice() {
        info_.backend = "fake";
        info_.name = "fake device";
        info_.driver_version = "7";
        info_.global_mem_bytes = 1 << 20;
        info_.max_work_group_size = 256;
    }
    const DeviceInfo& info() const override { return info_; }
    Dialect dialect() const override { return Dialect::OpenCL; }
    void upload(const Buffer&, const void*, std::size_t, std::size_t) override {}
    void download(void*, const Buffer&, std::size_t, std::size_t) override {}
    void copy(const Buffer&, const Buffer&, std::size_t) override {}
    void fill_u32(const Buffer&, std::uint32_t) override {}
    std::unique_ptr<Module> compile(const Source&, const CompileOptions& o) override {
        ++fake_compiles;
        if (group_of(o.defines) == 128) throw Error("fake compiler: group 128 does not compile");
        return std::make_unique<FakeModule>();
    }
    void launch(const Kernel&, Dim3, Dim3 block, const Args&) override {
        last_group_ = block.x;
        ++launches_;
    }
    void synchronize() override {}
    std::size_t max_group_size(const Kernel&) override { return 256; }
    double time_ms(const std::function<void()>& work) override {
        work();
        return fake_time ? fake_time(last_group_) : 1.0 / double(last_group_);
    }

protected:
    std::uint64_t raw_alloc(std::size_t) override { return ++next_; }
    void raw_free(std::uint64_t) noexcept override {}

private:
    DeviceInfo info_;
    std::uint64_t next_ = 0;
    std::uint32_t last_group_ = 1;
};

class FakeBackend final : public Backend {
public:
    explicit FakeBackend(bool nvrtc = false) : nvrtc_(nvrtc) {}
    std::string id() const override { return "fake"; }
    Dialect dialect() const override { return Dialect::OpenCL; }
    bool compiles_with_nvrtc() const override { return nvrtc_; }
    std::vector<DeviceInfo> devices() override { return {FakeDevice().info()}; }
    std::unique_ptr<Device> open(std::size_t) override {
        ++fake_opens;
        return std::make_unique<FakeDevice>();
    }

private:
    bool nvrtc_;
};

class FakeInstance final : public Instance {
public:
    FakeInstance(Device& dev, std::int64_t group) : dev_(dev), group_(group) {}
    void poison() override {}
    void run() override { dev_.launch(Kernel{"k", nullptr, 0}, Dim3{1, 1, 1}, Dim3{std::uint32_t(group_), 1, 1}, Args()); }
    Validation validate() override {
        if (group_ == 32) return Validation{false, "group 32 computes the wrong sums", 1, false};
        return Validation{true, "fake", 1, false};
    }
    WorkModel work() const override { return WorkModel{1, 1, 1, "items"}; }

private:
    Device& dev_;
    std::int64_t group_;
};

// Named after a real program so that its kernels.cl is found (the fake device ignores it).
class FakeProgram final : public Program {
public:
    // bound_param: also a parameter only NVRTC reads (TuningParam::nvrtc_only).
    explicit FakeProgram(bool bound_param = false) : bound_param_(bound_param) {
        space_.param("group", {8, 16, 32, 64, 128, 512}, "work-items per group");
        if (bound_param) space_.param("bound", {1, 2}, "a launch bound", /*nvrtc_only=*/true);
        space_.require("group <= the device's maximum work-group size", [](const TuningConfig& c, const DeviceInfo& d) {
            return d.max_work_group_size == 0 || c.at("group") <= std::int64_t(d.max_work_group_size);
        });
    }
    std::string name() const override { return "mandelbrot"; }
    std::string description() const override { return "fake"; }
    std::vector<Dataset> datasets() const override { return {Dataset{"tiny", {}, "fake", true, ""}}; }
    std::uint64_t device_bytes(const Dataset&, const std::string&) const override { return 0; }
    const TuningSpace& tuning_space() const override { return space_; }
    TuningConfig default_config(const DeviceInfo&) const override {
        if (bound_param_) return {{"group", 16}, {"bound", 1}};
        return {{"group", 16}};
    }
    std::vector<std::string> defines(const TuningConfig& c) const override {
        return {"FAKE_GROUP=" + std::to_string(c.at("group"))};
    }
    std::unique_ptr<Instance> prepare(Device& dev, Module&, const Dataset&, const RunConfig& cfg) const override {
        return std::make_unique<FakeInstance>(dev, config_of(cfg).at("group"));
    }

private:
    bool bound_param_;
    TuningSpace space_;
};

void init_google_benchmark() {
    static bool done = false;
    if (done) return;
    done = true;
    int argc = 1;
    char arg0[] = "test_tune";
    char* argv[] = {arg0, nullptr};
    benchmark::Initialize(&argc, argv);
}

RunnerOptions quick_options() {
    RunnerOptions opt;
    opt.calibrate = false;
    opt.compile_twice = false;
    opt.batch = false;
    opt.rule.min_samples = 2;
    opt.rule.max_samples = 3;
    opt.rule.min_time_s = 0;
    opt.budget_s = 0;
    return opt;
}

struct FakeRun {
    FakeProgram program;
    std::vector<BackendSlot> slots;
    std::vector<Case> cases;
    explicit FakeRun(bool bound_param = false, bool nvrtc = false) : program(bound_param) {
        init_google_benchmark();
        slots.resize(1);
        slots[0].id = "fake";
        slots[0].backend = std::make_unique<FakeBackend>(nvrtc);
        slots[0].devices = slots[0].backend->devices();
        Case c{&program, program.datasets()[0], "default", LaunchMode::Stream, 0, 0, "fake/tiny/default"};
        c.config = program.default_config(slots[0].devices[0]);
        c.config_source = kDeviceDefaultSource;
        cases.push_back(c);
    }
};

// The backends take turns in tune's order of keys, so that a budget spent early leaves each
// backend's later keys at their defaults alike (on the H100, in plan order, opencl's did alone).
TEST(Tuner, BackendsTakeTurnsInTheOrderOfKeys) {
    FakeRun f;
    f.slots.resize(2);
    f.slots[1].id = "fake2";
    f.slots[1].backend = std::make_unique<FakeBackend>(false);
    f.slots[1].devices = f.slots[1].backend->devices();
    const Case first = f.cases[0];
    f.cases.clear();
    const auto add = [&](std::size_t slot, const std::string& dataset) {
        Case c = first;
        c.slot = slot;
        c.dataset.name = dataset;
        f.cases.push_back(c);
        c.variant = "other";  // a second variant: the same key
        f.cases.push_back(c);
    };
    for (const char* d : {"a", "b", "c"}) add(0, d);  // plan order: the first backend's keys,
    add(1, "a");                                      // then the second's
    const auto groups = tuning_groups(f.cases, f.slots);
    std::vector<std::string> order;
    for (const auto& g : groups) {
        EXPECT_EQ(g.size(), 2u) << "a key's variants stay together";
        order.push_back(f.slots[g.front().slot].id + "/" + g.front().dataset.name);
    }
    EXPECT_EQ(order, (std::vector<std::string>{"fake/a", "fake2/a", "fake/b", "fake/c"}));
}

// --budget bounds exhaustive searches too: once the key's share is spent, the default alone.
TEST(Tuner, BudgetCutsEvenAnExhaustiveSearchAfterTheDefault) {
    FakeRun f;
    const auto groups = tuning_groups(f.cases, f.slots);
    std::ostringstream progress;
    const TuneOutcome out = tune_group(f.slots, groups[0], quick_options(), SearchSettings{}, 1e-9, progress);
    ASSERT_EQ(out.trials.size(), 1u) << progress.str();
    EXPECT_EQ(to_string(out.trials[0].config), "group=16");
    EXPECT_EQ(out.entry().strategy, "exhaustive, cut by --budget after 1 of 5");
    EXPECT_NE(progress.str().find("tune: --budget spent: the device default only"), std::string::npos) << progress.str();
}

// A parameter only NVRTC reads is varied on a backend that compiles with NVRTC, and kept at
// the default elsewhere (whatever the backend is called).
TEST(Tuner, NvrtcOnlyParametersVaryOnlyWhereNvrtcCompiles) {
    for (const bool nvrtc : {false, true}) {
        FakeRun f(/*bound_param=*/true, nvrtc);
        const auto groups = tuning_groups(f.cases, f.slots);
        std::ostringstream progress;
        const TuneOutcome out = tune_group(f.slots, groups[0], quick_options(), SearchSettings{}, 0, progress);
        std::set<std::int64_t> bounds;
        for (const auto& t : out.trials) bounds.insert(t.config.at("bound"));
        EXPECT_EQ(out.trials.size(), nvrtc ? 10u : 5u) << progress.str();
        EXPECT_EQ(bounds, nvrtc ? (std::set<std::int64_t>{1, 2}) : (std::set<std::int64_t>{1})) << progress.str();
    }
}

// Once --budget is spent, each key left gets nothing beyond its default: a share of 0 once
// meant "no budget", and on the H100 (2026-12-06) the keys after the budget ran their whole
// searches. The share a tune passes counts the default's own time.
TEST(Tuner, ASpentBudgetLeavesEachKeyItsDefaultOnly) {
    EXPECT_EQ(search_shares(-5, {{1.0, 10}, {0.1, 3}}), (std::vector<double>{0, 0}));
    EXPECT_EQ(search_shares(0, {{1.0, 10}}), (std::vector<double>{0}));
    FakeRun f;
    const auto groups = tuning_groups(f.cases, f.slots);
    std::ostringstream progress;
    TuneOutcome out = start_search(f.slots, groups[0], quick_options(), SearchSettings{}, progress);
    continue_search(f.slots, groups[0], quick_options(), out.search_s + search_shares(-5, {{out.search_s, 4}})[0], out, progress);
    EXPECT_EQ(out.trials.size(), 1u) << progress.str();
    EXPECT_NE(progress.str().find("tune: --budget spent: the device default only"), std::string::npos) << progress.str();
}

// The budget left after every key's default is shared so that each key can try as many
// configurations as the others, at its default's time each, plus the confirmation pair:
// shared evenly in seconds, a tune of the H100 searched nbody's cheap keys whole and never
// drew a configuration beyond n1m's default (its trials take about 1 s, its share was less).
TEST(Tuner, BudgetSharesGiveEveryKeyTheSameNumberOfConfigurations) {
    const double budget_left = 20;
    const auto shares = search_shares(budget_left, {{0.01, 31}, {1.0, 31}});
    ASSERT_EQ(shares.size(), 2u);
    // 17 configurations each and the pair: 19 trials at 1.01 s = 19.19 s; 18 would not fit.
    EXPECT_GE(shares[1], 19 * 1.0);
    EXPECT_LT(shares[1], 20 * 1.0);
    EXPECT_GE(shares[0], 19 * 0.01);
    EXPECT_NEAR(shares[0] + shares[1], budget_left, 1e-9) << "the whole budget is shared, no more";
    // A key whose space ends early leaves the rest to the others: key 0 runs its 2 and the
    // pair (4 s), key 1 runs 6 and the pair (8 s).
    EXPECT_EQ(search_shares(12, {{1.0, 2}, {1.0, 10}}), (std::vector<double>{4, 8}));
    // Room for every configuration of every key: what is left over goes to all alike.
    EXPECT_EQ(search_shares(10, {{1.0, 1}, {1.0, 1}}), (std::vector<double>{5, 5}));
    // Too little for any key's first configuration and pair: all of it to the keys with
    // configurations to try, whose search the budget then cuts after the default
    // (budget_allows_another(1 + 2, 1, 1) is false).
    EXPECT_EQ(search_shares(2, {{1.0, 5}, {1.0, 0}}), (std::vector<double>{2, 0}));
    EXPECT_FALSE(budget_allows_another(1 + 2, 1, 1));
}

// A key's search draws another configuration only where its share holds that one and the
// confirmation pair after it, at the key's mean time a trial: counting only what had run, a
// tune of the H100 under --budget 250 had run 288 s with 61 keys still to go.
TEST(Tuner, ABudgetShareKeepsRoomForTheNextConfigurationAndItsConfirmation) {
    EXPECT_TRUE(budget_allows_another(0, 100, 5));     // no budget
    EXPECT_TRUE(budget_allows_another(10, 0, 0));      // nothing run yet
    EXPECT_TRUE(budget_allows_another(10, 4, 4));      // 1 s a trial: 4 + 1 + 2 = 7 s
    EXPECT_TRUE(budget_allows_another(10, 7, 7));      // 7 + 3 = 10 s, the share exactly
    EXPECT_FALSE(budget_allows_another(10, 8, 8));     // room for the next, not for its confirmation
    EXPECT_FALSE(budget_allows_another(10, 6, 2));     // 3 s a trial: 6 + 9 s
    EXPECT_FALSE(budget_allows_another(1.2, 0.5, 1));  // the H100's keys under --budget 250: the default only
}

TEST(Tuner, NeverPicksAConfigurationThatFailedToCompileOrValidate) {
    FakeRun f;
    const auto groups = tuning_groups(f.cases, f.slots);
    ASSERT_EQ(groups.size(), 1u);
    std::ostringstream progress;
    const TuneOutcome out = tune_group(f.slots, groups[0], quick_options(), SearchSettings{}, 0, progress);
    ASSERT_TRUE(out.best) << progress.str();
    EXPECT_EQ(to_string(out.best->config), "group=64") << progress.str();
    ASSERT_EQ(out.trials.size(), 5u) << "8, 16, 32, 64, 128 tried; 512 refused";
    EXPECT_EQ(to_string(out.trials[0].config), "group=16") << "the device default comes first";
    ASSERT_EQ(out.plan.refused.size(), 1u);
    EXPECT_EQ(out.plan.refused[0].reason, "group <= the device's maximum work-group size does not hold for group=512");
    for (const auto& t : out.trials) {
        const std::int64_t g = t.config.at("group");
        EXPECT_EQ(t.ok, g != 32 && g != 128) << to_string(t.config) << ": " << t.reason;
        if (g == 32) EXPECT_NE(t.reason.find("validation failed: group 32 computes the wrong sums"), std::string::npos) << t.reason;
        if (g == 128) EXPECT_NE(t.reason.find("group 128 does not compile"), std::string::npos) << t.reason;
    }
    const TuningEntry e = out.entry();
    EXPECT_EQ(e.key, (TuningKey{"fake device", "7", "fake", "mandelbrot", "tiny"}));
    EXPECT_EQ(e.tried, 5u);
    EXPECT_EQ(e.failed, 2u);
    EXPECT_EQ(e.refused, 1u);
    EXPECT_NEAR(e.median_ms, 1.0 / 64, 1e-9);
    EXPECT_NEAR(e.default_median_ms, 1.0 / 16, 1e-9);
    EXPECT_NE(progress.str().find("[3/5] group=32: failed: "), std::string::npos) << progress.str();
}

// One configuration serves every variant of a key: a faster sum that slows one variant by
// more than kTuneMaxSlowdown is never picked (tuned must not be slower than untuned anywhere).
TEST(Tuner, NeverPicksAConfigurationThatSlowsOneOfItsBenchmarks) {
    const std::optional<Trial> start = Trial{{{"group", 16}}, true, 11.0, "", {1.0, 10.0}};
    EXPECT_FALSE(pickable(Trial{{{"group", 8}}, true, 6.05, "", {1.05, 5.0}}, start)) << "5% slower on the first";
    EXPECT_TRUE(pickable(Trial{{{"group", 8}}, true, 6.01, "", {1.01, 5.0}}, start)) << "1%: within the bound";
    EXPECT_TRUE(pickable(Trial{{{"group", 8}}, true, 12.0, "", {0.5, 11.5}}, std::nullopt)) << "no start to hold it to";
    const std::optional<Trial> failed_start = Trial{{{"group", 16}}, false, 0, "validation failed", {}};
    EXPECT_TRUE(pickable(Trial{{{"group", 8}}, true, 6.05, "", {1.05, 5.0}}, failed_start));
    EXPECT_FALSE(pickable(Trial{{{"group", 8}}, false, 0, "did not compile", {}}, start));
}

// With a DevicePool (as `tune` runs), the device is opened once for every trial and key, and
// each configuration compiled once however many keys try it (a failed compile included);
// without one, every trial opens the device and compiles again.
TEST(Tuner, APoolOpensTheDeviceOnceAndCompilesEachConfigurationOnce) {
    FakeRun f;
    const auto groups = tuning_groups(f.cases, f.slots);
    std::ostringstream progress;
    fake_opens = fake_compiles = 0;
    tune_group(f.slots, groups[0], quick_options(), SearchSettings{}, 0, progress);
    EXPECT_EQ(fake_opens, 7) << "five trials and the two that confirm group 64";
    EXPECT_EQ(fake_compiles, 7);

    DevicePool pool;
    RunnerOptions pooled = quick_options();
    pooled.pool = &pool;
    fake_opens = fake_compiles = 0;
    for (int key = 0; key < 2; ++key) {
        const TuneOutcome out = tune_group(f.slots, groups[0], pooled, SearchSettings{}, 0, progress);
        ASSERT_TRUE(out.best) << progress.str();
        EXPECT_EQ(to_string(out.best->config), "group=64") << progress.str();
        EXPECT_FALSE(out.trials[4].ok) << "group 128 still fails from the pool";
    }
    EXPECT_EQ(fake_opens, 1);
    EXPECT_EQ(fake_compiles, 5) << "8, 16, 32, 64 and 128, once each";
    EXPECT_EQ(pool.devices.size(), 1u);
    EXPECT_EQ(pool.modules.size(), 5u);
}

// ---- run records the configuration ---------------------------------------------------------

TEST(RunRecordsConfiguration, InEachBenchmarkAndInTheResultsFile) {
    FakeRun f;
    f.cases[0].config = {{"group", 64}};
    f.cases[0].config_source = kTunedSource;
    const Results r = run_cases(f.slots, f.cases, quick_options());
    ASSERT_EQ(r.benchmarks.size(), 1u);
    EXPECT_EQ(r.benchmarks[0].status, Status::Ok) << r.benchmarks[0].error;
    EXPECT_EQ(r.benchmarks[0].config, (TuningConfig{{"group", 64}}));
    EXPECT_EQ(r.benchmarks[0].config_source, "tuned");
    const nlohmann::json j = to_json(r);
    EXPECT_EQ(j["benchmarks"][0]["config"], (nlohmann::json{{"group", 64}}));
    EXPECT_EQ(j["benchmarks"][0]["config_source"], "tuned");
    const Results back = results_from_json(j);
    EXPECT_EQ(back.benchmarks[0].config, r.benchmarks[0].config);
    EXPECT_EQ(back.benchmarks[0].config_source, "tuned");
}

TEST(RunRecordsConfiguration, ARefusedConfigurationFailsItsBenchmarkWithTheReason) {
    FakeRun f;
    f.cases[0].config = {{"group", 512}};
    const Results r = run_cases(f.slots, f.cases, quick_options());
    ASSERT_EQ(r.benchmarks.size(), 1u);
    EXPECT_EQ(r.benchmarks[0].status, Status::Error);
    EXPECT_EQ(r.benchmarks[0].error, "configuration group=512 refused: group <= the device's maximum work-group size "
                                     "does not hold for group=512");
}

TEST(CompareConfigurations, SaysWhenTwoRunsUsedDifferentConfigurations) {
    FakeRun f;
    Results old_r = run_cases(f.slots, f.cases, quick_options());
    f.cases[0].config = {{"group", 64}};
    f.cases[0].config_source = kTunedSource;
    Results new_r = run_cases(f.slots, f.cases, quick_options());
    const Comparison c = compare_results(old_r, new_r, CompareOptions{});
    ASSERT_EQ(c.config_mismatches.size(), 1u);
    EXPECT_EQ(c.config_mismatches[0],
              "fake/tiny/default: configuration group=16 (device-default) in OLD and group=64 (tuned) in NEW");
    EXPECT_TRUE(compare_results(new_r, new_r, CompareOptions{}).config_mismatches.empty());
}

// The search's trials run seconds apart, the default's first: a default that read slow in its
// trial (a transient) must not lose to a configuration slower than it when the two are timed
// again back to back, and a tie (under kTuneMinGain) keeps the default; a real gain is kept.
TEST(Tuner, KeepsTheBestOnlyWhereTimingBothAgainConfirmsIt) {
    struct Scenario { const char* what; double default_first, default_later, group8; const char* picked, *strategy; };
    const Scenario scenarios[] = {
        {"a transient in the default's trial", 0.10, 0.05, 0.06, "group=16", "the best not confirmed"},
        {"a tie", 0.05, 0.05, 0.0499, "group=16", "the best not confirmed"},
        {"a real gain", 0.05, 0.05, 0.04, "group=8", "confirmed"},
    };
    for (const auto& c : scenarios) {
        bool others_ran = false;
        fake_time = [&](std::int64_t g) {
            if (g == 16) return others_ran ? c.default_later : c.default_first;
            others_ran = true;
            return g == 8 ? c.group8 : 1.0;  // 64 (32 and 128 fail) the slowest
        };
        FakeRun f;
        const auto groups = tuning_groups(f.cases, f.slots);
        std::ostringstream progress;
        const TuneOutcome out = tune_group(f.slots, groups[0], quick_options(), SearchSettings{}, 0, progress);
        fake_time = nullptr;
        ASSERT_TRUE(out.best) << c.what << "\n" << progress.str();
        EXPECT_EQ(out.trials.size(), 5u) << c.what << ": the search's trials alone";
        ASSERT_EQ(out.confirmation.size(), 2u) << c.what << "\n" << progress.str();
        EXPECT_EQ(to_string(out.confirmation[0].config), "group=8") << c.what;
        EXPECT_EQ(to_string(out.confirmation[1].config), "group=16") << c.what << ": the default right after";
        const TuningEntry e = out.entry();
        EXPECT_EQ(to_string(e.config), c.picked) << c.what << "\n" << progress.str();
        EXPECT_NE(e.strategy.find(std::string("exhaustive, ") + c.strategy), std::string::npos) << c.what << ": " << e.strategy;
        EXPECT_NEAR(e.default_median_ms, c.default_later, 1e-9) << c.what << ": the re-timed default's median";
        EXPECT_NEAR(e.median_ms, std::string(c.picked) == "group=8" ? c.group8 : c.default_later, 1e-9) << c.what;
    }
}

}  // namespace
